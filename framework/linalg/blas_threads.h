/* The thread counts of the libraries pbsim links (the BLAS; OpenMP regions inside CHOLMOD), set by
 * pbsim itself so that runs are fast and reproducible without environment variables
 * (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, OMP_THREAD_LIMIT). */
#pragma once
#include <petscsys.h>

/* Sets the number of threads of the BLAS that the process loaded (CHOLMOD's and MUMPS' dense
 * kernels), through the library's own call found at run time with dlsym, so nothing is needed at
 * link time: openblas_set_num_threads (OpenBLAS, pthreads or OpenMP builds), bli_thread_set_num_threads
 * (BLIS), MKL_Set_Num_Threads (MKL). n >= 1 threads per MPI rank. *library (may be NULL) receives the
 * name of the call that was made, or "" when the BLAS has no such call (the reference BLAS is
 * single-threaded anyway). Errors: n < 1. */
PetscErrorCode SimBLASSetThreads(PetscInt n, const char **library);
/* The BLAS's current thread count where the library can report it (OpenBLAS: openblas_get_num_threads;
 * BLIS: bli_thread_get_num_threads; MKL: MKL_Get_Max_Threads), else -1. */
PetscErrorCode SimBLASGetThreads(PetscInt *n);

/* Sets the OpenMP threads of the libraries the process loaded, through libgomp's (or any OpenMP
 * runtime's) own calls found with dlsym. Why: Debian's CHOLMOD runs the gathers of its supernodal
 * triangular solves in `parallel for num_threads(4)` regions; on 2 cores those regions' wake-ups cost
 * more than the solves (the 64 x 64 cloth demo: 306 -> 150 ms/step with them serial), and a
 * num_threads clause overrides omp_set_num_threads. So n = 1 sets max-active-levels to 0, which makes
 * every region run on the calling thread whatever its clause; n > 1 sets max-active-levels 1 and
 * omp_set_num_threads(n) (a region with a num_threads clause still takes its own count). *library
 * (may be NULL) receives "omp_set_max_active_levels" or "" when no OpenMP runtime is loaded.
 * Errors: n < 1. */
PetscErrorCode SimOpenMPSetThreads(PetscInt n, const char **library);
/* The number of threads an OpenMP region without a num_threads clause would get now (1 when
 * regions are serial), or -1 when no OpenMP runtime is loaded. */
PetscErrorCode SimOpenMPGetThreads(PetscInt *n);
/* Sets the threads of PT-Scotch 7, PETSc's mesh partitioner for multi-rank runs (DMPlexDistribute in
 * framework/mesh/distribute.c). Scotch reads their number from the environment variable
 * SCOTCH_PTHREAD_NUMBER whenever it starts a partitioning, and with several threads its partition
 * changes from run to run (a 12,000-tet beam on 2 ranks: 273 to 276 vertices on rank 0 over 6 runs),
 * and with the partition the order of every sum across ranks: no multi-rank result was reproducible.
 * With n = 1 it is. Sets the variable (n >= 1; errors: n < 1). */
PetscErrorCode SimPartitionerSetThreads(PetscInt n);
/* Reads -blas_threads, -omp_threads and -partitioner_threads (default 1 each, per MPI rank: fast and
 * reproducible; a threaded BLAS changed the cloth's iteration counts run to run, a threaded Scotch
 * every multi-rank result) and sets them. pbsim run and
 * pbsim bench call it before anything is solved. */
PetscErrorCode SimThreadsSetFromOptions(MPI_Comm comm);
