/* Sizes that come from options (n^2 vertices, n^3 cells ...), checked before anything is allocated. */
#pragma once
#include <petscsys.h>

/* `count` items of `what` (e.g. "vertices"), each holding `per` numbers of 8 bytes in a state
 * vector, as the options named in `options` (e.g. "-cloth_n 100000 -cloth_m 100000") make them:
 * an error on comm when count * per does not fit PetscInt (pbsim's indices are 32-bit), or when four
 * such vectors (a lower bound for any method) would not fit the machine's memory. count is a real
 * so that it can be computed without overflow. */
PetscErrorCode SimCheckSize(MPI_Comm comm, const char *options, const char *what, PetscReal count, PetscInt per);

/* "1.5 GB", "640 kB": a byte count for messages (buf of at least 32 characters). */
const char *SimFormatBytes(PetscReal bytes, char *buf, size_t len);
