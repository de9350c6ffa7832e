/* Name -> constructor tables for every pluggable kind (solvers, scenes, energy terms, materials). */
#pragma once
#include <petscsys.h>

/* The kinds of pluggable object. Implementations are never enumerated: they are table rows. */
typedef enum { SIM_KIND_SOLVER, SIM_KIND_SCENE, SIM_KIND_ENERGY, SIM_KIND_MATERIAL, SIM_KIND_PROBLEM, SIM_KIND_COUNT } SimKind;

/* Flags a registration may carry. */
enum {
  SIM_REG_MPI = 1u << 0,    /* runs on more than one MPI rank */
  SIM_REG_SERIAL = 1u << 1, /* refuses p > 1 with a message (default when SIM_REG_MPI is absent) */
};

/* Any constructor; each kind casts to its own typed signature (see solver.h, scene.h, energy.h). */
typedef void (*SimGenericFn)(void);

/* One row. `problem` pairs scenes, solvers and problem types (framework/problem.h):
 *   scene:        the problem type it builds ("mesh", "grid", ...);
 *   solver:       the problem types it advances, comma-separated ("mesh" or "grid,particles");
 *   problem type: the solver a run uses when -solver is not given.
 * Energy terms and materials leave it empty. `solver`, of a scene only: the solver a run of this
 * scene uses when -solver is not given, in place of its problem type's (empty: the type's; set by
 * SimRegistrySetDefaultSolver), e.g. sph for the particle-fluid scenes where particles means mpm. */
typedef struct {
  char name[64];
  char help[160]; /* one line shown by `pbsim list` */
  SimGenericFn create;
  unsigned flags;
  char problem[64];
  char solver[64];
} SimRegEntry;

typedef struct _p_SimRegistry *SimRegistry;

PetscErrorCode SimRegistryCreate(SimRegistry *reg);
PetscErrorCode SimRegistryDestroy(SimRegistry *reg); /* accepts NULL */
/* Adds a row; registering a name twice in one kind is an error. Scenes, solvers and problem types
 * are added with SimRegistryAddFor, which also sets `problem` (above); SimRegistryAdd is for the
 * kinds without one. */
PetscErrorCode SimRegistryAdd(SimRegistry reg, SimKind kind, const char *name, const char *help,
                              SimGenericFn create, unsigned flags);
PetscErrorCode SimRegistryAddFor(SimRegistry reg, SimKind kind, const char *name, const char *help,
                                 SimGenericFn create, unsigned flags, const char *problem);
/* Gives the registered scene `scene` its own default solver (the solver's name is checked when a
 * run picks it, so the tables may be filled in any order). */
PetscErrorCode SimRegistrySetDefaultSolver(SimRegistry reg, const char *scene, const char *solver);
/* Finds a row; an unknown name is an error whose message lists every valid name of that kind. */
PetscErrorCode SimRegistryFind(SimRegistry reg, SimKind kind, const char *name, const SimRegEntry **entry);
/* Looks a name up without raising: *entry is NULL when absent. */
PetscErrorCode SimRegistryLookup(SimRegistry reg, SimKind kind, const char *name, const SimRegEntry **entry);
PetscErrorCode SimRegistryCount(SimRegistry reg, SimKind kind, PetscInt *n);
PetscErrorCode SimRegistryGet(SimRegistry reg, SimKind kind, PetscInt i, const SimRegEntry **entry);
/* Comma-separated list of the names of one kind, e.g. for help strings. */
PetscErrorCode SimRegistryNames(SimRegistry reg, SimKind kind, char *buf, size_t len);
/* Whether the solver row `solver` advances problems of type `type` (its `problem` list holds it). */
PetscBool SimRegistrySolverFits(const SimRegEntry *solver, const char *type);
/* Comma-separated names of the solvers that advance `type` / of the scenes that build a problem the
 * solver row advances: for the error that says which names fit. */
PetscErrorCode SimRegistrySolversFor(SimRegistry reg, const char *type, char *buf, size_t len);
PetscErrorCode SimRegistryScenesFor(SimRegistry reg, const SimRegEntry *solver, char *buf, size_t len);
/* Prints every kind as a table: what `pbsim list` shows. */
PetscErrorCode SimRegistryView(SimRegistry reg, FILE *out);
const char *SimKindName(SimKind kind);
