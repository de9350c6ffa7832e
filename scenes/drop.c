/* The drop scene: a soft elastic box falling on a ground plane (penalty contact). */
#include "scenes/scenes.h"
#include "scenes/fem_body.h"

static PetscErrorCode Build_Drop(SimScene scene, SimProblem problem)
{
  SimModel model;
  PetscReal size = 0.4, height = 0.3;
  PetscInt n = 4;
  SimMesh mesh;

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  PetscCall(SimMeshProblemSetDefaultColliders(problem, "plane"));
  PetscOptionsBegin(model->comm, "drop_", "Drop scene", "");
  PetscCall(PetscOptionsReal("-size", "side of the box (m)", "", size, &size, NULL));
  PetscCall(PetscOptionsReal("-height", "height of its bottom above the ground (m)", "", height, &height, NULL));
  PetscCall(PetscOptionsInt("-n", "cells per side", "", n, &n, NULL));
  PetscOptionsEnd();
  PetscCheck(size > 0 && height >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-drop_size must be > 0 and -drop_height >= 0");
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-drop_n must be >= 1 (got %" PetscInt_FMT ")", n);
  {
    const PetscInt cells[3] = {n, n, n};
    const PetscReal lo[3] = {-0.5 * size, height, -0.5 * size}, hi[3] = {0.5 * size, height + size, 0.5 * size};
    PetscCall(SimMeshCreateBox(cells, lo, hi, &mesh));
  }
  PetscCall(SimSceneAddFEMBody(scene, model, &mesh, "drop_", "stable_neohookean", 1e5));
  PetscCall(SimMeshFree(&mesh));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Drop(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_Drop;
  PetscFunctionReturn(0);
}
