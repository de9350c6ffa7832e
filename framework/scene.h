/* SimScene: a registered generator that builds a Lagrangian model from its options. */
#pragma once
#include <petscsys.h>
#include "framework/registry.h"
#include "framework/model/model.h"

typedef struct _p_SimScene *SimScene;

/* build:   fill the model (vertices, masses, pins, terms, topology) from options under the
 *          scene's prefix ("cloth_", "rope_", ...); called once.
 * exact:   optional analytic solution at time t (flat 3*nv arrays); NULL if none.
 * destroy: free data. */
typedef struct {
  PetscErrorCode (*build)(SimScene, SimModel);
  PetscErrorCode (*exact)(SimScene, PetscReal t, PetscReal *x, PetscReal *v);
  PetscErrorCode (*destroy)(SimScene);
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
/* Exact solution; *has is PETSC_FALSE when the scene has none. */
PetscErrorCode SimSceneExact(SimScene scene, PetscReal t, PetscReal *x, PetscReal *v, PetscBool *has);
PetscErrorCode SimSceneDestroy(SimScene *scene);
