/* An elastic body from a tetrahedral mesh: masses, the FEM energy term, and output topology. */
#include "scenes/fem_body.h"
#include "energies/fem.h"
#include "energies/volume.h"
#include "framework/mesh/distribute.h"

/* Applies the partition's vertex numbering to the mesh (positions, tets, triangles) and to a face
 * list, in place; cells keep their order. */
static PetscErrorCode Renumber(const SimMeshPartition *part, SimMesh *mesh, PetscInt nface, PetscInt *faces)
{
  PetscReal *xyz;

  PetscFunctionBeginUser;
  if (!part->natural) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(3 * mesh->nv, &xyz));
  for (PetscInt j = 0; j < mesh->nv; j++)
    for (int d = 0; d < 3; d++) xyz[3 * j + d] = mesh->xyz[3 * part->natural[j] + d];
  PetscCall(PetscArraycpy(mesh->xyz, xyz, 3 * mesh->nv));
  PetscCall(PetscFree(xyz));
  for (PetscInt k = 0; k < 4 * mesh->ntet; k++) mesh->tet[k] = part->renumber[mesh->tet[k]];
  for (PetscInt k = 0; k < 3 * mesh->ntri; k++) mesh->tri[k] = part->renumber[mesh->tri[k]];
  for (PetscInt k = 0; k < 3 * nface; k++) faces[k] = part->renumber[faces[k]];
  PetscFunctionReturn(0);
}

static PetscErrorCode AddFEMBody(SimScene scene, SimModel model, SimMesh *mesh, const char *prefix, const char *default_material,
                                 PetscReal default_youngs)
{
  char name[64], opt[128];
  PetscReal kvol = 0;
  SimMaterial mat;
  SimEnergy term;
  SimMeshPartition part;
  PetscInt nface, *faces, *owned;

  PetscFunctionBeginUser;
  PetscCheck(mesh->ntet > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "An FEM body needs a tetrahedral mesh (this one has %" PetscInt_FMT " tets)", mesh->ntet);
  PetscCall(PetscStrncpy(name, default_material, sizeof(name)));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%smaterial", prefix));
  PetscOptionsBegin(model->comm, NULL, "FEM body", "");
  PetscCall(PetscOptionsString(opt, "material (pbsim list shows them)", "", name, name, sizeof(name), NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%svolume", prefix));
  PetscCall(PetscOptionsReal(opt, "stiffness k (Pa) of a tet volume term k/(2 V0) (V - V0)^2 (energies/volume.h; 0: none)", "", kvol, &kvol, NULL));
  PetscOptionsEnd();
  PetscCheck(kvol >= 0, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g must be >= 0", opt, (double)kvol);
  /* the scene's default stiffness; -<prefix>youngs still overrides it */
  PetscCall(SimMaterialCreateWithDefaults(scene->reg, name, prefix, default_youngs, 0.3, 1000, &mat));
  /* Boundary faces in input numbering (so their order does not depend on the partition), then the
   * partition: the mesh is renumbered so that each rank's vertices are contiguous. */
  PetscCall(SimMeshBoundaryFaces(mesh, &nface, &faces));
  PetscCall(SimMeshPartitionTets(model->comm, mesh->nv, mesh->xyz, mesh->ntet, mesh->tet, &part));
  { /* every rank needs elements: its FEM term takes part in every reduction */
    PetscInt fewest;
    PetscCallMPI(MPI_Allreduce(&part.ncell, &fewest, 1, MPIU_INT, MPI_MIN, model->comm));
    PetscCheck(fewest > 0, model->comm, PETSC_ERR_ARG_OUTOFRANGE,
               "The mesh (%" PetscInt_FMT " tets) left a rank without elements on %d ranks: use fewer ranks or a finer mesh", mesh->ntet,
               (int)model->size);
  }
  PetscCall(Renumber(&part, mesh, nface, faces));
  PetscCall(SimModelSetVertices(model, mesh->nv, mesh->xyz));
  PetscCall(SimModelSetPartition(model, part.vstart, part.vend, part.natural));
  /* masses are replicated (every rank, every tet); the elastic term holds this rank's cells only */
  PetscCall(SimFEMAddLumpedMass(model, mesh->xyz, mesh->ntet, mesh->tet, mat->par.density));
  PetscCall(PetscMalloc1(4 * part.ncell, &owned));
  for (PetscInt e = 0; e < part.ncell; e++) PetscCall(PetscArraycpy(owned + 4 * e, mesh->tet + 4 * part.cell[e], 4));
  PetscCall(SimFEMCreate("elastic", mesh->nv, mesh->xyz, part.ncell, owned, mat, &term));
  term->distributed = (PetscBool)(model->size > 1);
  PetscCall(SimModelAddTerm(model, term));
  if (kvol > 0) { /* the XPBD volume constraints, on the same cells */
    PetscCall(SimVolumeCreate("volume", mesh->nv, mesh->xyz, part.ncell, owned, kvol, &term));
    term->distributed = (PetscBool)(model->size > 1);
    PetscCall(SimModelAddTerm(model, term));
  }
  PetscCall(PetscFree(owned));
  PetscCall(SimModelSetTopology(model, nface, faces, 0, NULL, mesh->ntet, mesh->tet));
  PetscCall(PetscFree(faces));
  PetscCall(SimMeshPartitionFree(&part));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneAddFEMBody(SimScene scene, SimModel model, SimMesh *mesh, const char *prefix, const char *default_material,
                                  PetscReal default_youngs)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  ierr = AddFEMBody(scene, model, mesh, prefix, default_material, default_youngs);
  if (ierr) (void)SimMeshFree(mesh); /* a bad body option ends the run: its mesh is not left behind */
  PetscCall(ierr);
  PetscFunctionReturn(0);
}
