/* An elastic body from a tetrahedral mesh: masses, the FEM energy term, and output topology. */
#include "scenes/fem_body.h"
#include "energies/fem.h"

PetscErrorCode SimSceneAddFEMBody(SimScene scene, SimModel model, const SimMesh *mesh, const char *prefix, const char *default_material,
                                  PetscReal default_youngs)
{
  char name[64], opt[128];
  SimMaterial mat;
  SimEnergy term;
  PetscInt nface, *faces;

  PetscFunctionBeginUser;
  PetscCheck(mesh->ntet > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "An FEM body needs a tetrahedral mesh (this one has %" PetscInt_FMT " tets)", mesh->ntet);
  PetscCall(PetscStrncpy(name, default_material, sizeof(name)));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%smaterial", prefix));
  PetscOptionsBegin(model->comm, NULL, "FEM body", "");
  PetscCall(PetscOptionsString(opt, "material (pbsim list shows them)", "", name, name, sizeof(name), NULL));
  PetscOptionsEnd();
  /* the scene's default stiffness; -<prefix>youngs still overrides it */
  PetscCall(SimMaterialCreateWithDefaults(scene->reg, name, prefix, default_youngs, 0.3, 1000, &mat));
  PetscCall(SimModelSetVertices(model, mesh->nv, mesh->xyz));
  PetscCall(SimFEMAddLumpedMass(model, mesh->xyz, mesh->ntet, mesh->tet, mat->par.density));
  PetscCall(SimFEMCreate("elastic", mesh->nv, mesh->xyz, mesh->ntet, mesh->tet, mat, &term));
  PetscCall(SimModelAddTerm(model, term));
  PetscCall(SimMeshBoundaryFaces(mesh, &nface, &faces));
  PetscCall(SimModelSetTopology(model, nface, faces, 0, NULL, mesh->ntet, mesh->tet));
  PetscCall(PetscFree(faces));
  PetscFunctionReturn(0);
}
