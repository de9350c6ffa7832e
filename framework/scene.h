/* SimScene: a registered generator that builds a problem (framework/problem.h) from its options. */
#pragma once
#include <petscsys.h>
#include "framework/registry.h"
#include "framework/figures.h"
#include "framework/problem.h"

typedef struct _p_SimScene *SimScene;

/* build:   fill the problem (of the type the scene's registration names) from options under the
 *          scene's prefix ("cloth_", "rope_", ...); the problem type's header says how (e.g.
 *          SimMeshProblemGetModel for a mesh, SimGridProblemGetDescription for a grid); called once.
 * exact:   optional analytic solution at time t (flat 3*nv arrays of a mesh); NULL if none.
 * figures: optional analytic observables at time t of the problem, as named figures (at most
 *          SIM_MAX_FIGURES; names must stay valid while the scene lives); appended to the CSV
 *          row after the solver's figures.
 * destroy: free data. */
typedef struct {
  PetscErrorCode (*build)(SimScene, SimProblem);
  PetscErrorCode (*exact)(SimScene, PetscReal t, PetscReal *x, PetscReal *v);
  PetscErrorCode (*destroy)(SimScene);
  PetscErrorCode (*figures)(SimScene, SimProblem, PetscReal t, PetscInt *n, const char *names[], PetscReal values[]);
} SimSceneOps;

struct _p_SimScene {
  char name[64];
  char problem_type[64]; /* from the registration: the type of problem build fills */
  SimSceneOps ops;
  void *data;
  SimRegistry reg; /* the tables it was created from (materials for FEM bodies) */
};

/* Constructor signature a scene registration carries (SIM_KIND_SCENE): sets ops and data. */
typedef PetscErrorCode (*SimSceneCreateFn)(SimScene);

PetscErrorCode SimSceneCreate(SimRegistry reg, const char *name, SimScene *scene);
/* Creates a problem of the scene's type on comm, lets the scene fill it, and sets it up
 * (SimProblemSetUp: e.g. a mesh adds gravity and -colliders and checks masses). */
PetscErrorCode SimSceneBuild(SimScene scene, MPI_Comm comm, SimProblem *problem);
/* The scene's figures at time t (*n = 0 when it has none). */
PetscErrorCode SimSceneFigures(SimScene scene, SimProblem problem, PetscReal t, PetscInt *n, const char *names[], PetscReal values[]);
/* Exact solution; *has is PETSC_FALSE when the scene has none. */
PetscErrorCode SimSceneExact(SimScene scene, PetscReal t, PetscReal *x, PetscReal *v, PetscBool *has);
PetscErrorCode SimSceneDestroy(SimScene *scene);
