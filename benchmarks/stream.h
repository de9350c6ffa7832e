/* STREAM triad (McCalpin): the sustainable memory bandwidth the pressure solve is compared with. */
#pragma once
#include <petscsys.h>

/* a[i] = b[i] + q c[i] over three arrays of `mb` MB each, on every rank of comm at once (each rank its
 * own arrays, first touched by itself), `repeats` times; each pass is timed between two MPI_Barriers
 * and the best pass counts. Bytes per pass: 3 arrays x 8 B x n per rank (STREAM's convention: the
 * write-allocate read of a is not counted). aggregate: all ranks' bytes / best time [GB/s = 1e9 B/s];
 * per_rank = aggregate / ranks. mb should be well above the last-level cache. */
PetscErrorCode BenchStreamTriad(MPI_Comm comm, PetscReal mb, PetscInt repeats, PetscReal *aggregate, PetscReal *per_rank);
