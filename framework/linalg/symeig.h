/* Eigendecomposition of a small dense symmetric matrix (the one cyclic Jacobi solver that the PSD
 * projection and the pbd solver's pseudo-inverses share). */
#pragma once
#include <petscsys.h>

#define SIM_SYMEIG_MAX 32 /* the largest n: a shape-matching cluster block has up to 27 rows */

/* A (n x n, row-major, symmetric; only its values are read, not modified) = Q diag(lambda) Q^T with Q
 * orthogonal: lambda[n] the eigenvalues (unsorted), Q[n*n] row-major with column m the eigenvector of
 * lambda[m] (Q[i*n + m] its component i). Method: cyclic Jacobi rotations until every off-diagonal
 * entry is below eps ||A||_F (Golub & Van Loan, 8.5; the rotation of Rutishauser's formulation); a
 * zero matrix gives lambda = 0, Q = I. Errors: n out of [1, SIM_SYMEIG_MAX], a non-finite entry, or
 * no convergence in 50 sweeps. */
PetscErrorCode SimSymEig(PetscInt n, const PetscReal *A, PetscReal *lambda, PetscReal *Q);
