/* mkdir -p for output directories (runs and benchmark suites). */
#include <errno.h>
#include <sys/stat.h>
#include "framework/io/directory.h"

PetscErrorCode SimMakeDirectory(const char *path)
{
  char buf[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(buf, path, sizeof(buf)));
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    PetscCheck(!mkdir(buf, 0777) || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create directory '%s': %s", buf, strerror(errno));
    *p = '/';
  }
  PetscCheck(!mkdir(buf, 0777) || errno == EEXIST, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create output directory '%s': %s", buf, strerror(errno));
  PetscFunctionReturn(0);
}
