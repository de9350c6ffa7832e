/* Shared set-up of the libFuzzer harnesses (tests/fuzz/README.md): PETSc once, errors returned
 * silently (a rejected input is the expected outcome), inputs written to a private scratch folder
 * for the readers that open files. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <petscsys.h>

/* PetscInitialize once, with PETSc's error printing off. */
int FuzzInitialize(void);
/* Writes `size` bytes to <scratch>/<name> and returns the path (valid until the next call). */
const char *FuzzWriteFile(const char *name, const uint8_t *data, size_t size);
