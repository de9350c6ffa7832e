/* Output directories: create a path and its parents (mkdir -p). */
#pragma once
#include <petscsys.h>

/* Creates `path` and any missing parents; an existing directory is fine. The error names the
 * first component that could not be created and why. */
PetscErrorCode SimMakeDirectory(const char *path);
