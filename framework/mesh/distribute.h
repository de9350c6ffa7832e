/* Partitioning of a tetrahedral mesh over the ranks of a communicator: which cells each rank
 * evaluates, and a vertex numbering in which each rank's vertices are contiguous. */
#pragma once
#include <petscsys.h>

typedef struct {
  PetscInt ncell;        /* cells this rank owns */
  PetscInt *cell;        /* their input numbers, increasing */
  PetscInt vstart, vend; /* this rank's vertices, in the new numbering */
  PetscInt *natural;     /* nv: new number -> input number; NULL on one rank (identity) */
  PetscInt *renumber;    /* nv: input number -> new number; NULL on one rank */
} SimMeshPartition;

/* Every rank passes the same mesh (nv vertices at xyz, ntet tets). The cells are partitioned by
 * DMPlexDistribute with the PT-Scotch partitioner (-petscpartitioner_type overrides it; the
 * partitioner reads its options without a prefix); each vertex goes to the rank owning most of the
 * cells around it (ties: the lowest such rank), and the vertices are renumbered rank by rank, in
 * input order within a rank. On one rank: every cell, the identity numbering. Collective on comm. */
PetscErrorCode SimMeshPartitionTets(MPI_Comm comm, PetscInt nv, const PetscReal *xyz, PetscInt ntet, const PetscInt *tet,
                                    SimMeshPartition *part);
PetscErrorCode SimMeshPartitionFree(SimMeshPartition *part); /* accepts a zeroed partition */
