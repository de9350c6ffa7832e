/* Mesh partitioning through DMPlex: the plex is only a vehicle for PETSc's graph partitioners; the
 * model keeps its own flat arrays (see distribute.h). */
#include <petscdmplex.h>
#include <petscsf.h>
#include "framework/mesh/distribute.h"

/* This rank's cells (input numbers, increasing) after DMPlexDistribute of a plex that rank 0
 * built from the whole cell list: in that plex cells are points [0, ntet), so the migration SF's
 * root index of every cell this rank received is the cell's input number. */
static PetscErrorCode OwnedCells(MPI_Comm comm, PetscInt nv, const PetscReal *xyz, PetscInt ntet, const PetscInt *tet,
                                 PetscInt *ncell, PetscInt **cell)
{
  DM dm, dmdist = NULL;
  PetscPartitioner partitioner;
  PetscSF migration = NULL;
  PetscMPIInt rank;
  PetscInt cstart, cend, nleaves, n = 0;
  const PetscInt *ilocal;
  const PetscSFNode *iremote;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(DMPlexCreateFromCellListPetsc(comm, 3, rank ? 0 : ntet, rank ? 0 : nv, 4, PETSC_FALSE, rank ? NULL : tet, 3,
                                          rank ? NULL : xyz, &dm));
  PetscCall(DMPlexGetPartitioner(dm, &partitioner));
  PetscCall(PetscPartitionerSetType(partitioner, PETSCPARTITIONERPTSCOTCH));
  PetscCall(PetscPartitionerSetFromOptions(partitioner));
  PetscCall(DMPlexDistribute(dm, 0, &migration, &dmdist));
  PetscCheck(dmdist && migration, comm, PETSC_ERR_PLIB, "DMPlexDistribute did not distribute the mesh");
  PetscCall(DMPlexGetHeightStratum(dmdist, 0, &cstart, &cend));
  PetscCall(PetscSFGetGraph(migration, NULL, &nleaves, &ilocal, &iremote));
  PetscCall(PetscMalloc1(cend - cstart, cell));
  for (PetscInt l = 0; l < nleaves; l++) {
    const PetscInt q = ilocal ? ilocal[l] : l;
    if (q < cstart || q >= cend) continue;
    PetscCheck(iremote[l].rank == 0 && iremote[l].index >= 0 && iremote[l].index < ntet, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Unexpected migration SF entry for cell %" PetscInt_FMT, q);
    (*cell)[n++] = iremote[l].index;
  }
  PetscCheck(n == cend - cstart, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The migration SF names %" PetscInt_FMT " of %" PetscInt_FMT " cells", n,
             cend - cstart);
  PetscCall(PetscSortInt(n, *cell));
  *ncell = n;
  PetscCall(PetscSFDestroy(&migration));
  PetscCall(DMDestroy(&dmdist));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshPartitionTets(MPI_Comm comm, PetscInt nv, const PetscReal *xyz, PetscInt ntet, const PetscInt *tet,
                                    SimMeshPartition *part)
{
  PetscMPIInt size, rank, mycount, *counts, *displs;
  PetscInt *allcells, *cellrank, *vrank, *first;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(part, sizeof(*part)));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (size == 1) {
    part->ncell = ntet;
    part->vend = nv;
    PetscCall(PetscMalloc1(ntet, &part->cell));
    for (PetscInt e = 0; e < ntet; e++) part->cell[e] = e;
    PetscFunctionReturn(0);
  }
  PetscCall(OwnedCells(comm, nv, xyz, ntet, tet, &part->ncell, &part->cell));

  /* every rank learns every cell's rank */
  PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
  PetscCall(PetscMPIIntCast(part->ncell, &mycount));
  PetscCallMPI(MPI_Allgather(&mycount, 1, MPI_INT, counts, 1, MPI_INT, comm));
  displs[0] = 0;
  for (PetscMPIInt r = 0; r < size; r++) displs[r + 1] = displs[r] + counts[r];
  PetscCheck(displs[size] == ntet, comm, PETSC_ERR_PLIB, "The partition has %d cells, the mesh %" PetscInt_FMT, displs[size], ntet);
  PetscCall(PetscMalloc3(ntet, &allcells, ntet, &cellrank, nv, &vrank));
  PetscCallMPI(MPI_Allgatherv(part->cell, mycount, MPIU_INT, allcells, counts, displs, MPIU_INT, comm));
  for (PetscMPIInt r = 0; r < size; r++)
    for (PetscInt k = displs[r]; k < displs[r + 1]; k++) cellrank[allcells[k]] = r;

  /* a vertex belongs to the rank owning most of its cells (ties: the lowest of them; a vertex of no
   * cell: rank 0), so that an interface vertex goes where most of its elements are. The incidences
   * (vertex, rank) sorted as vertex * size + rank come in runs, one per pair, ranks increasing. */
  {
    PetscInt *key, nk = 4 * ntet, k = 0;
    PetscCall(PetscMalloc1(nk, &key));
    for (PetscInt e = 0; e < ntet; e++)
      for (int a = 0; a < 4; a++) key[4 * e + a] = tet[4 * e + a] * size + cellrank[e];
    PetscCall(PetscSortInt(nk, key));
    for (PetscInt i = 0; i < nv; i++) vrank[i] = 0;
    while (k < nk) {
      const PetscInt v = key[k] / size;
      PetscInt best = 0;
      while (k < nk && key[k] / size == v) { /* the vertex's runs, ranks increasing */
        const PetscInt pair = key[k];
        PetscInt run = 0;
        while (k < nk && key[k] == pair) k++, run++;
        if (run > best) best = run, vrank[v] = pair % size; /* strictly more: a tie keeps the lower rank */
      }
    }
    PetscCall(PetscFree(key));
  }

  /* rank by rank, input order within a rank */
  PetscCall(PetscCalloc1(size + 1, &first));
  for (PetscInt i = 0; i < nv; i++) first[vrank[i] + 1]++;
  for (PetscMPIInt r = 0; r < size; r++) first[r + 1] += first[r];
  part->vstart = first[rank];
  part->vend = first[rank + 1];
  PetscCall(PetscMalloc2(nv, &part->natural, nv, &part->renumber));
  for (PetscInt i = 0; i < nv; i++) {
    const PetscInt j = first[vrank[i]]++;
    part->renumber[i] = j;
    part->natural[j] = i;
  }
  PetscCall(PetscFree(first));
  PetscCall(PetscFree3(allcells, cellrank, vrank));
  PetscCall(PetscFree2(counts, displs));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshPartitionFree(SimMeshPartition *part)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(part->cell));
  PetscCall(PetscFree2(part->natural, part->renumber));
  PetscCall(PetscMemzero(part, sizeof(*part)));
  PetscFunctionReturn(0);
}
