/* Bounded string building for option lists, labels and messages. */
#pragma once
#include <petscsys.h>

/* Appends `text` to the NUL-terminated string in `buf` (capacity `size` bytes), truncating so
 * the result always fits and stays terminated. Replaces PetscStrlcat: PETSc 3.18's version
 * calls strncat(s, t, n - len), which writes its terminator one byte past a full buffer
 * (AddressSanitizer found it in the bench harness). */
PetscErrorCode SimStrAppend(char buf[], const char text[], size_t size);

/* Appends `sep` (unless `buf` is empty) and then `item`: one entry of a list like "a, b, c". */
PetscErrorCode SimStrAppendItem(char buf[], const char sep[], const char item[], size_t size);
