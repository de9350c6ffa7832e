/* SimScene: a registered generator that builds a Lagrangian model, or describes a grid problem,
 * from its options. */
#pragma once
#include <petscsys.h>
#include "framework/registry.h"
#include "framework/grid.h"
#include "framework/figures.h"
#include "framework/model/model.h"


typedef struct _p_SimScene *SimScene;

/* A scene provides exactly one of build (a model scene) or grid (a grid scene, registered with
 * SIM_REG_GRID so that a run can match it with a grid solver before building anything).
 * build:   fill the model (vertices, masses, pins, terms, topology) from options under the
 *          scene's prefix ("cloth_", "rope_", ...); called once.
 * grid:    describe the grid problem from options under the scene's prefix; the descriptor
 *          comes in with SimGridProblemSetDefaults; called once.
 * exact:   optional analytic solution at time t (flat 3*nv arrays); NULL if none.
 * figures: optional analytic observables of a model scene at time t, as named figures (at most
 *          SIM_MAX_FIGURES; names must stay valid while the scene lives); appended to the CSV
 *          row after the solver's figures.
 * destroy: free data. */
typedef struct {
  PetscErrorCode (*build)(SimScene, SimModel);
  PetscErrorCode (*exact)(SimScene, PetscReal t, PetscReal *x, PetscReal *v);
  PetscErrorCode (*destroy)(SimScene);
  PetscErrorCode (*grid)(SimScene, SimGridProblem *);
  PetscErrorCode (*figures)(SimScene, SimModel, PetscReal t, PetscInt *n, const char *names[], PetscReal values[]);
} SimSceneOps;

struct _p_SimScene {
  char name[64];
  SimSceneOps ops;
  void *data;
  PetscReal default_gravity[3];  /* set by create; -gravity overrides */
  char default_colliders[64];    /* e.g. "plane"; used when -colliders is not given */
  SimRegistry reg;               /* the tables it was created from (materials for FEM bodies) */
};

/* Constructor signature a scene registration carries (SIM_KIND_SCENE): sets ops and defaults. */
typedef PetscErrorCode (*SimSceneCreateFn)(SimScene);

PetscErrorCode SimSceneCreate(SimRegistry reg, const char *name, SimScene *scene);
/* Builds the model: the scene's bodies, then gravity (-gravity x,y,z) and any -colliders from the
 * energy registry, then SimModelFinalize. */
PetscErrorCode SimSceneBuildModel(SimScene scene, SimRegistry reg, MPI_Comm comm, SimModel *model);
/* Describes the grid problem of a grid scene (an error naming the scene for a model scene);
 * checks it with SimGridProblemCheck. */
PetscErrorCode SimSceneBuildGrid(SimScene scene, SimGridProblem *problem);
/* PETSC_TRUE for a grid scene (one with a grid operation). */
PetscErrorCode SimSceneIsGrid(SimScene scene, PetscBool *isgrid);
/* The scene's figures at time t (*n = 0 when it has none). */
PetscErrorCode SimSceneFigures(SimScene scene, SimModel model, PetscReal t, PetscInt *n, const char *names[], PetscReal values[]);
/* Exact solution; *has is PETSC_FALSE when the scene has none. */
PetscErrorCode SimSceneExact(SimScene scene, PetscReal t, PetscReal *x, PetscReal *v, PetscBool *has);
PetscErrorCode SimSceneDestroy(SimScene *scene);
