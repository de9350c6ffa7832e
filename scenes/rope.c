/* The rope scene: a chain of n masses joined by springs, pinned at its first vertex, released
 * horizontally so that it swings down under gravity. */
#include "scenes/scenes.h"
#include "framework/sizes.h"
#include "energies/springs.h"

static PetscErrorCode Build_Rope(SimScene scene, SimProblem problem)
{
  SimModel model;
  PetscInt n = 20;
  PetscReal length = 1, mass = 0.1, k = 1e3, kd = 0;
  PetscReal *xyz;
  PetscInt *seg;
  SimSpringList springs = {0};

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  PetscOptionsBegin(model->comm, "rope_", "Rope scene", "");
  PetscCall(PetscOptionsInt("-n", "number of vertices (>= 2)", "", n, &n, NULL));
  PetscCall(PetscOptionsReal("-length", "length (m)", "", length, &length, NULL));
  PetscCall(PetscOptionsReal("-mass", "total mass (kg)", "", mass, &mass, NULL));
  PetscCall(PetscOptionsReal("-k", "spring stiffness (N/m)", "", k, &k, NULL));
  PetscCall(PetscOptionsReal("-damping", "damping along each spring (N s/m)", "", kd, &kd, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rope_n must be >= 2 (got %" PetscInt_FMT ")", n);
  PetscCheck(length > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rope_length must be > 0 (got %g)", (double)length);
  PetscCheck(mass > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rope_mass must be > 0 (got %g)", (double)mass);
  PetscCheck(k >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rope_k must be >= 0 (got %g)", (double)k);
  PetscCheck(kd >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rope_damping must be >= 0 (got %g)", (double)kd);
  {
    char opts[64];
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-rope_n %" PetscInt_FMT, n));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "vertices", (PetscReal)n, 3));
  }
  PetscCall(PetscMalloc2(3 * n, &xyz, 2 * (n - 1), &seg));
  for (PetscInt i = 0; i < n; i++) {
    xyz[3 * i] = length * i / (n - 1);
    xyz[3 * i + 1] = xyz[3 * i + 2] = 0;
  }
  PetscCall(SimModelSetVertices(model, n, xyz));
  for (PetscInt i = 0; i < n; i++) PetscCall(SimModelSetVertexMass(model, i, mass / n));
  for (PetscInt i = 0; i + 1 < n; i++) {
    PetscCall(SimSpringListAdd(&springs, i, i + 1, k, kd));
    seg[2 * i] = i, seg[2 * i + 1] = i + 1;
  }
  PetscCall(SimModelPin(model, 0, "rope anchor"));
  PetscCall(SimSpringListAddToModel(&springs, model, "spring"));
  PetscCall(SimModelSetTopology(model, 0, NULL, n - 1, seg, 0, NULL));
  PetscCall(SimSpringListFree(&springs));
  PetscCall(PetscFree2(xyz, seg));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Rope(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_Rope;
  PetscFunctionReturn(0);
}
