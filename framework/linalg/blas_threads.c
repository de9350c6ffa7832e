/* The BLAS thread count through the loaded library's own call, looked up with dlsym (see blas_threads.h). */
#include <dlfcn.h>
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
