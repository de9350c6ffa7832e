/* An elastic body from a tetrahedral mesh: masses, the FEM energy term, and output topology. */
#include "scenes/fem_body.h"
#include "energies/fem.h"
#include "energies/volume.h"
#include "energies/shape_matching.h"
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

/* Whether the colliders -colliders names (added by the mesh problem after the scene) are vertex
 * terms, which a distributed state evaluates on owned vertices; any other needs every vertex. */
static PetscBool VertexColliders(void)
{
  char *names[16];
  PetscInt n = 16;
  PetscBool set = PETSC_FALSE, ok = PETSC_TRUE;

  if (PetscOptionsGetStringArray(NULL, NULL, "-colliders", names, &n, &set) || !set) return PETSC_TRUE;
  for (PetscInt c = 0; c < n; c++) {
    if (strcmp(names[c], "plane") && strcmp(names[c], "sphere") && strcmp(names[c], "none")) ok = PETSC_FALSE;
    (void)PetscFree(names[c]);
  }
  return ok;
}

static PetscErrorCode AddFEMBody(SimScene scene, SimModel model, SimMesh *mesh, const char *prefix, const char *default_material,
                                 PetscReal default_youngs)
{
  char name[64], opt[128];
  PetscReal kvol = 0, kshape = 0, beta = 0.5, spacing = 0;
  PetscInt mode = SIM_SHAPE_LINEAR, csize = 27;
  PetscBool elastic = PETSC_TRUE, grid = PETSC_FALSE, dstate = PETSC_FALSE, dset = PETSC_FALSE;
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
  PetscCheck(kvol >= 0, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g must be >= 0", opt, (double)kvol);
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%selastic", prefix));
  PetscCall(PetscOptionsBool(opt, "add the FEM term of the material (false: a body of shape matching alone; the material still gives the density)", "", elastic,
                             &elastic, NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sshape", prefix));
  PetscCall(PetscOptionsReal(opt, "stiffness k (N/m) of a shape-matching term (Mueller et al. 2005; energies/shape_matching.h; 0: none)", "", kshape, &kshape, NULL));
  PetscCheck(kshape >= 0, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g must be >= 0", opt, (double)kshape);
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sshape_mode", prefix));
  PetscCall(PetscOptionsEList(opt, "shape matching: the goal's deformation", "", SimShapeModes, 3, SimShapeModes[mode], &mode, NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sshape_beta", prefix));
  PetscCall(PetscOptionsReal(opt, "shape matching: blend beta in [0, 1] of the linear or quadratic fit with the rotation", "", beta, &beta, NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sshape_spacing", prefix));
  PetscCall(PetscOptionsReal(opt, "shape matching: clusters around a lattice of this spacing (m; 0: one cluster per tet)", "", spacing, &spacing, &grid));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sshape_size", prefix));
  PetscCall(PetscOptionsInt(opt, "shape matching: vertices per lattice cluster (the nearest to its centre, <= 27)", "", csize, &csize, NULL));
  PetscCall(PetscOptionsBool("-fem_distributed_state",
                             "on several ranks each rank stores only its owned vertices and a ghost layer (docs/scaling.md; default "
                             "on several ranks unless the scene keeps the whole state, e.g. IPC); needs distributed or vertex terms only",
                             "", dstate, &dstate, &dset));
  PetscOptionsEnd();
  /* the volume and shape-matching terms and IPC (model->replicated_state) evaluate the whole mesh */
  if (!dset) dstate = (PetscBool)(model->size > 1 && kvol == 0 && kshape == 0 && !model->replicated_state && VertexColliders());
  PetscCheck(elastic || kshape > 0, model->comm, PETSC_ERR_ARG_WRONG, "-%selastic false needs -%sshape k > 0: the body would have no elasticity", prefix, prefix);
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
  PetscCall(PetscMalloc1(4 * part.ncell, &owned));
  for (PetscInt e = 0; e < part.ncell; e++) PetscCall(PetscArraycpy(owned + 4 * e, mesh->tet + 4 * part.cell[e], 4));
  if (dstate) PetscCall(SimModelDistributeState(model, part.ncell, owned));
  /* every rank sums the masses of every tet onto the vertices it stores (all of them when
   * replicated): the same sums in the same order as on one rank */
  PetscCall(SimFEMAddLumpedMass(model, mesh->xyz, mesh->ntet, mesh->tet, mat->par.density));
  if (model->local_state) { /* the elastic term in local numbers: its kernels index the local arrays */
    const PetscScalar *x;
    for (PetscInt k = 0; k < 4 * part.ncell; k++) owned[k] = SimModelLocal(model, owned[k]);
    PetscCall(VecGetArrayRead(model->x, &x));
    if (elastic) PetscCall(SimFEMCreate("elastic", model->nv, x, part.ncell, owned, mat, &term));
    PetscCall(VecRestoreArrayRead(model->x, &x));
    if (elastic) {
      term->distributed = PETSC_TRUE;
      PetscCall(SimModelAddTerm(model, term));
    } else PetscCall(SimMaterialDestroy(&mat));
    PetscCheck(kvol == 0, model->comm, PETSC_ERR_SUP, "-%svolume runs with a replicated state (-fem_distributed_state 0)", prefix);
  } else if (elastic) {
    PetscCall(SimFEMCreate("elastic", mesh->nv, mesh->xyz, part.ncell, owned, mat, &term));
    term->distributed = (PetscBool)(model->size > 1);
    PetscCall(SimModelAddTerm(model, term));
  } else PetscCall(SimMaterialDestroy(&mat));
  if (kvol > 0 && !model->local_state) { /* the XPBD volume constraints, on the same cells */
    PetscCall(SimVolumeCreate("volume", mesh->nv, mesh->xyz, part.ncell, owned, kvol, &term));
    term->distributed = (PetscBool)(model->size > 1);
    PetscCall(SimModelAddTerm(model, term));
  }
  PetscCall(PetscFree(owned));
  if (kshape > 0) { /* shape matching over the whole mesh (replicated), the masses lumped as the FEM term's */
    PetscReal *vmass;
    PetscInt nc, *cl = NULL;
    PetscErrorCode ierr;
    PetscCheck(model->size == 1, model->comm, PETSC_ERR_SUP, "-%sshape runs on one rank", prefix);
    PetscCall(PetscCalloc1(mesh->nv, &vmass));
    for (PetscInt e = 0; e < mesh->ntet; e++) {
      const PetscInt *t = mesh->tet + 4 * e;
      const PetscReal V = PetscAbsReal(SimTetVolume(mesh->xyz + 3 * t[0], mesh->xyz + 3 * t[1], mesh->xyz + 3 * t[2], mesh->xyz + 3 * t[3], NULL));
      for (int a = 0; a < 4; a++) vmass[t[a]] += V / 4;
    }
    if (grid) ierr = SimShapeClustersGrid(mesh->nv, mesh->xyz, spacing, csize, &nc, &cl);
    else ierr = 0, nc = mesh->ntet, csize = 4;
    if (!ierr) ierr = SimShapeMatchingCreate("shape_matching", mesh->nv, mesh->xyz, vmass, nc, csize, grid ? cl : mesh->tet, mode, beta, kshape, &term);
    PetscCall(PetscFree(vmass));
    PetscCall(PetscFree(cl));
    PetscCall(ierr);
    PetscCall(SimModelAddTerm(model, term));
  }
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
