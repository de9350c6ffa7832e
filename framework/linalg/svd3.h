/* 3x3 singular value decomposition (rotation-variant), polar decomposition and symmetric
 * eigendecomposition, by Jacobi rotations converged to machine precision. */
#pragma once
#include <petscsys.h>

/* All matrices are 3x3 row-major: A[3*r + c] = A_rc.
 *
 * SimSvd3: F = U diag(sigma) V^T, the rotation-variant SVD (Irving et al. 2004):
 *   - U and V are rotations: orthonormal with det U = det V = +1;
 *   - sigma[0] >= sigma[1] >= |sigma[2]| (descending by absolute value, up to rounding);
 *     sigma[0], sigma[1] >= 0, and sigma[2] carries the sign of det F (negative when F is
 *     inverted), so sigma[0] sigma[1] sigma[2] = det F;
 *   - rank-deficient F: the columns of U that belong to zero singular values are completed to a
 *     rotation (any such completion is an SVD); F = 0 gives sigma = 0 and U = V = I.
 * Method: one-sided (Hestenes) Jacobi on the columns of F, W = F V orthogonalized by plane
 * rotations until |w_p . w_q| <= eps |w_p| |w_q| for every pair; sigma_k = |w_k|, U from W by
 * Gram-Schmidt and a cross product (Demmel & Veselic 1992: relative accuracy, F^T F never formed).
 * F is scaled by its largest entry first, so every finite magnitude (1e-300 .. 1e300) works.
 * Errors: a non-finite entry in F (PETSC_ERR_FP). */
PetscErrorCode SimSvd3(const PetscReal F[9], PetscReal U[9], PetscReal sigma[3], PetscReal V[9]);

/* Polar decomposition F = R S from the rotation-variant SVD: R = U V^T (a rotation, det R = +1)
 * and S = V diag(sigma) V^T (symmetric; indefinite when F is inverted, since sigma[2] < 0 then).
 * R or S may be NULL. Errors as SimSvd3. */
PetscErrorCode SimPolar3(const PetscReal F[9], PetscReal R[9], PetscReal S[9]);

/* Symmetric eigendecomposition A = Q diag(lambda) Q^T of a symmetric 3x3 A (only the upper
 * triangle is read), by cyclic Jacobi rotations until the off-diagonal is below eps ||A||_F.
 * lambda is sorted descending; Q's columns are the eigenvectors, Q a rotation (det Q = +1).
 * Errors: a non-finite entry in A (PETSC_ERR_FP). */
PetscErrorCode SimSymEig3(const PetscReal A[9], PetscReal lambda[3], PetscReal Q[9]);
