/* Run-time plugins by dlopen: the library's symbols resolve against the pbsim executable, which
 * exports its own (CMake: ENABLE_EXPORTS and the layers linked whole). */
#include <dlfcn.h>
#include "framework/plugin.h"

PetscErrorCode SimPluginLoad(SimRegistry reg, const char *path)
{
  void *lib;
  SimPluginRegisterFn fn;

  PetscFunctionBeginUser;
  lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  PetscCheck(lib, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-plugin: cannot load '%s': %s", path, dlerror());
  *(void **)&fn = dlsym(lib, SIM_PLUGIN_SYMBOL);
  PetscCheck(fn, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-plugin: '%s' has no function %s(SimRegistry) (docs/guide.md, \"Plugins\")", path,
             SIM_PLUGIN_SYMBOL);
  /* the library stays loaded for the life of the process: its functions sit in the registry */
  PetscCall(fn(reg));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPluginLoadFromOptions(SimRegistry reg)
{
  char *paths[16];
  PetscInt n = 16;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-plugin", paths, &n, &set));
  for (PetscInt i = 0; set && i < n; i++) {
    PetscErrorCode ierr = SimPluginLoad(reg, paths[i]);
    for (PetscInt j = i; ierr && j < n; j++) PetscCall(PetscFree(paths[j]));
    PetscCall(ierr);
    PetscCall(PetscFree(paths[i]));
  }
  PetscFunctionReturn(0);
}
