/* Exact projection of a small dense symmetric matrix onto the positive semi-definite cone. */
#pragma once
#include <petscsys.h>

/* A (n x n, row-major, symmetric, n <= 12) is replaced by Q diag(max(lambda, 0)) Q^T, where
 * A = Q diag(lambda) Q^T is its eigendecomposition: the nearest PSD matrix in the Frobenius norm.
 * For energies without an analytic eigensystem (an isotropic energy plus a fibre term). Method:
 * SimSymEig (symeig.h, cyclic Jacobi). A matrix without a negative eigenvalue is left untouched; one
 * that is clearly positive definite (exactly symmetric, and the LDL^T factorization of A - 1e-9 |A|_F I
 * has positive pivots) is recognized without the eigendecomposition (the same answer, bit for bit; for n = 3
 * ~160 instructions instead of ~950, callgrind).
 * Errors: n out of range, a non-finite A, or no convergence in 50 sweeps. */
PetscErrorCode SimSymProjectPSD(PetscInt n, PetscReal *A);
