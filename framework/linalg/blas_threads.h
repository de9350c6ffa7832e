/* The BLAS library's thread count, set by pbsim itself so that runs are fast and reproducible
 * without environment variables (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS). */
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
