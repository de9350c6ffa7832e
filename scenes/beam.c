/* The cantilever beam scene: a box of tets clamped at x = 0, sagging under gravity; its small-load
 * static tip deflection is the Euler-Bernoulli q L^4 / (8 E I). */
#include "scenes/scenes.h"
#include "scenes/fem_body.h"

static PetscErrorCode Build_Beam(SimScene scene, SimModel model)
{
  PetscReal length = 1.0, width = 0.1;
  PetscInt n = 20, nw = -1;
  SimMesh mesh;

  PetscFunctionBeginUser;
  PetscOptionsBegin(model->comm, "beam_", "Cantilever beam scene", "");
  PetscCall(PetscOptionsReal("-length", "length along x (m)", "", length, &length, NULL));
  PetscCall(PetscOptionsReal("-width", "side of the square cross-section (m)", "", width, &width, NULL));
  PetscCall(PetscOptionsInt("-n", "cells along the length", "", n, &n, NULL));
  PetscCall(PetscOptionsInt("-nw", "cells across (default: cubic cells, at least 2)", "", nw, &nw, NULL));
  PetscOptionsEnd();
  PetscCheck(length > 0 && width > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-beam_length and -beam_width must be > 0");
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-beam_n must be >= 1 (got %" PetscInt_FMT ")", n);
  if (nw < 1) nw = PetscMax(2, (PetscInt)(n * width / length + 0.5));
  {
    const PetscInt cells[3] = {n, nw, nw};
    const PetscReal lo[3] = {0, -0.5 * width, -0.5 * width}, hi[3] = {length, 0.5 * width, 0.5 * width};
    PetscCall(SimMeshCreateBox(cells, lo, hi, &mesh));
  }
  /* E = 1e8 Pa keeps the default beam's tip deflection near 1.5% of its length: a small load */
  PetscCall(SimSceneAddFEMBody(scene, model, &mesh, "beam_", "fixed_corotated", 1e8));
  for (PetscInt i = 0; i < mesh.nv; i++)
    if (mesh.xyz[3 * i] == 0.0) PetscCall(SimModelPin(model, i, "beam clamp"));
  PetscCall(SimMeshFree(&mesh));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Beam(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_Beam;
  PetscFunctionReturn(0);
}
