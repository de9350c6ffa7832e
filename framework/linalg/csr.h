/* Lookups in a CSR nonzero pattern (a SeqAIJ matrix's ia, ja from MatGetRowIJ). */
#pragma once
#include <petscsys.h>

/* The place of entry (row, col) in ja, whose rows hold sorted columns; -1 when the entry is not in
 * the pattern. Binary search within the row. */
static inline PetscInt SimCsrPlace(const PetscInt *ia, const PetscInt *ja, PetscInt row, PetscInt col)
{
  PetscInt lo = ia[row], hi = ia[row + 1] - 1;

  while (lo <= hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (ja[mid] == col) return mid;
    if (ja[mid] < col) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
