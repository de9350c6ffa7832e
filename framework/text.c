#include "framework/text.h"
#include <stdio.h>
#include <string.h>

PetscErrorCode SimStrAppend(char buf[], const char text[], size_t size)
{
  PetscFunctionBeginUser;
  PetscCheck(buf && size > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "SimStrAppend needs a buffer of at least one byte");
  if (!text) PetscFunctionReturn(0);
  size_t used = strnlen(buf, size);
  PetscCheck(used < size, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "SimStrAppend: the buffer of %zu bytes holds no terminator", size);
  snprintf(buf + used, size - used, "%s", text);
  PetscFunctionReturn(0);
}

PetscErrorCode SimStrAppendItem(char buf[], const char sep[], const char item[], size_t size)
{
  PetscFunctionBeginUser;
  if (buf[0]) PetscCall(SimStrAppend(buf, sep, size));
  PetscCall(SimStrAppend(buf, item, size));
  PetscFunctionReturn(0);
}
