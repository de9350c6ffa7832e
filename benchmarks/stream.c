/* STREAM triad (see stream.h). */
#include "benchmarks/stream.h"

PetscErrorCode BenchStreamTriad(MPI_Comm comm, PetscReal mb, PetscInt repeats, PetscReal *aggregate, PetscReal *per_rank)
{
  size_t n = (size_t)(mb * 1e6 / sizeof(double));
  double *a, *b, *c, best = PETSC_MAX_REAL, q = 3.0, check = 0;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCheck(n > 0 && repeats > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "STREAM needs mb > 0 and repeats > 0");
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc3(n, &a, n, &b, n, &c));
  for (size_t i = 0; i < n; i++) a[i] = 1.0, b[i] = 2.0, c[i] = 0.5; /* first touch, by this rank */
  for (PetscInt r = 0; r < repeats; r++) {
    PetscLogDouble t0, t1;
    double t;
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    for (size_t i = 0; i < n; i++) a[i] = b[i] + q * c[i];
    PetscCall(PetscTime(&t1));
    t = t1 - t0;
    /* the pass ends when the slowest rank is done */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm));
    best = PetscMin(best, t);
    check += a[r % n];
  }
  PetscCheck(check == repeats * 3.5, PETSC_COMM_SELF, PETSC_ERR_PLIB, "STREAM triad computed a wrong value");
  PetscCall(PetscFree3(a, b, c));
  *aggregate = 3.0 * sizeof(double) * (double)n * size / best / 1e9;
  *per_rank = *aggregate / size;
  PetscFunctionReturn(0);
}
