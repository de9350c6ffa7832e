/* The BLAS thread count through the loaded library's own call, looked up with dlsym (see blas_threads.h). */
#include <dlfcn.h>
#include <stdlib.h>
#include "framework/linalg/blas_threads.h"

typedef void (*SetIntFn)(int);
typedef void (*SetLongFn)(long);
typedef int (*GetIntFn)(void);
typedef long (*GetLongFn)(void);

PetscErrorCode SimBLASSetThreads(PetscInt n, const char **library)
{
  void *f;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= 4096, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-blas_threads %" PetscInt_FMT " is out of range: must be in [1, 4096] (threads per MPI rank)", n);
  if (library) *library = "";
  if ((f = dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    ((SetIntFn)f)((int)n);
    if (library) *library = "openblas_set_num_threads";
  } else if ((f = dlsym(RTLD_DEFAULT, "bli_thread_set_num_threads"))) {
    ((SetLongFn)f)((long)n);
    if (library) *library = "bli_thread_set_num_threads";
  } else if ((f = dlsym(RTLD_DEFAULT, "MKL_Set_Num_Threads"))) {
    ((SetIntFn)f)((int)n);
    if (library) *library = "MKL_Set_Num_Threads";
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimBLASGetThreads(PetscInt *n)
{
  void *f;

  PetscFunctionBeginUser;
  *n = -1;
  if ((f = dlsym(RTLD_DEFAULT, "openblas_get_num_threads"))) *n = ((GetIntFn)f)();
  else if ((f = dlsym(RTLD_DEFAULT, "bli_thread_get_num_threads"))) *n = (PetscInt)((GetLongFn)f)();
  else if ((f = dlsym(RTLD_DEFAULT, "MKL_Get_Max_Threads"))) *n = ((GetIntFn)f)();
  PetscFunctionReturn(0);
}

PetscErrorCode SimOpenMPSetThreads(PetscInt n, const char **library)
{
  SetIntFn set_levels = (SetIntFn)dlsym(RTLD_DEFAULT, "omp_set_max_active_levels");
  SetIntFn set_threads = (SetIntFn)dlsym(RTLD_DEFAULT, "omp_set_num_threads");

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= 4096, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-omp_threads %" PetscInt_FMT " is out of range: must be in [1, 4096] (threads per MPI rank)", n);
  if (library) *library = "";
  if (set_levels && set_threads) {
    set_levels(n == 1 ? 0 : 1);
    set_threads((int)n);
    if (library) *library = "omp_set_max_active_levels";
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimOpenMPGetThreads(PetscInt *n)
{
  GetIntFn get_levels = (GetIntFn)dlsym(RTLD_DEFAULT, "omp_get_max_active_levels");
  GetIntFn get_threads = (GetIntFn)dlsym(RTLD_DEFAULT, "omp_get_max_threads");

  PetscFunctionBeginUser;
  *n = -1;
  if (get_levels && get_threads) *n = get_levels() == 0 ? 1 : (PetscInt)get_threads();
  PetscFunctionReturn(0);
}

PetscErrorCode SimPartitionerSetThreads(PetscInt n)
{
  char v[32];

  PetscFunctionBeginUser;
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " partitioner threads: must be >= 1", n);
  PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, n));
  PetscCheck(!setenv("SCOTCH_PTHREAD_NUMBER", v, 1), PETSC_COMM_SELF, PETSC_ERR_SYS, "Cannot set SCOTCH_PTHREAD_NUMBER");
  PetscFunctionReturn(0);
}

PetscErrorCode SimThreadsSetFromOptions(MPI_Comm comm)
{
  PetscInt blas_threads = 1, omp_threads = 1, partitioner_threads = 1;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "Threads of the linked libraries", "");
  PetscCall(PetscOptionsInt("-blas_threads", "threads of the BLAS (CHOLMOD's, MUMPS' dense kernels) per MPI rank; set here, so "
                            "OPENBLAS_NUM_THREADS is not needed", "", blas_threads, &blas_threads, NULL));
  PetscCall(PetscOptionsInt("-omp_threads", "OpenMP threads of the linked libraries (CHOLMOD's supernodal solves) per MPI rank; 1 runs their "
                            "parallel regions serially, so OMP_THREAD_LIMIT is not needed", "", omp_threads, &omp_threads, NULL));
  PetscCall(PetscOptionsInt("-partitioner_threads", "threads of PT-Scotch, the mesh partitioner of multi-rank runs, per MPI rank; 1 makes "
                            "its partition (and so every multi-rank result) the same from run to run", "", partitioner_threads,
                            &partitioner_threads, NULL));
  PetscOptionsEnd();
  PetscCall(SimBLASSetThreads(blas_threads, NULL));
  PetscCall(SimOpenMPSetThreads(omp_threads, NULL));
  PetscCall(SimPartitionerSetThreads(partitioner_threads));
  PetscFunctionReturn(0);
}
