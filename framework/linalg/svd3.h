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

/* The rotation R of the polar decomposition F = R S (the same R as SimPolar3: det R = +1, the
 * maximizer of tr(R^T F) over the rotations) by Newton's method on the rotation group from a warm
 * start: q is a unit quaternion (w, x, y, z), in: the start (e.g. this element's rotation at the last
 * call; (1, 0, 0, 0) when none), out: the rotation found. Each iteration solves
 * (tr(M) I - sym(M)) w = axial(M - M^T) with M = F R^T (the gradient and Hessian of tr(R^T F) in the
 * rotation vector w) and turns R by w (quadratic convergence; from the last PD iteration's rotation
 * one or two iterations reach machine precision: the warm-started rotation extraction of Mueller et
 * al. 2016, with the exact Newton step). It stops when |w| <= 1e-9 (the next error is ~|w|^2) and
 * falls back to SimPolar3 (and sets q from its R) when the Hessian is not safely positive definite
 * (a pivot below 1e-6 of its trace: near the twist singularity s_1 + s_2 = 0 of an inverted F, or
 * far from the maximizer) or after 12 iterations. *fallback (may be NULL) tells which happened.
 * Errors: as SimSvd3 (non-finite F). */
PetscErrorCode SimPolar3Warm(const PetscReal F[9], PetscReal q[4], PetscReal R[9], PetscBool *fallback);

/* The same Newton iteration cut after nsteps (>= 1) steps (fewer when it converges first): the
 * rotation extraction of Mueller et al. 2016 as used inside an iterative solver, where the start q is
 * this element's rotation at the previous call and the iterate barely moves between calls, so one
 * step (error ~ the square of the start's) keeps R at the polar rotation to the solver's accuracy
 * while the iterations converge. R is always a rotation (q a unit quaternion); without convergence it
 * is the iterate after nsteps, not the polar R. Falls back to SimPolar3 like SimPolar3Warm when the
 * Hessian is not safely positive definite or a step exceeds a radian (a start far from R, an
 * inverted F). */
PetscErrorCode SimPolar3WarmSteps(const PetscReal F[9], PetscReal q[4], PetscInt nsteps, PetscReal R[9], PetscBool *fallback);

/* SimPolar3Warm on n elements (F: 9 n, q: 4 n in/out, R: 9 n out), bit for bit the same q and R as n
 * calls of it: four elements at a time in AVX registers where the CPU has AVX (each lane the scalar
 * iteration's operations in the same order, no fused multiply-add; a lane that would fall back is
 * redone by the scalar code), the rest one at a time. *nfallback (may be NULL): how many fell back to
 * the SVD. Errors: as SimSvd3 (non-finite F). */
PetscErrorCode SimPolar3WarmBatch(PetscInt n, const PetscReal *F, PetscReal *q, PetscReal *R, PetscInt *nfallback);

/* SimSvd3 on n matrices F (9 each), bit for bit the same U, sigma, V as n calls of it: four at a time
 * in AVX registers where the CPU has AVX (the same operations in the same order per lane, no fused
 * multiply-add), the rest one at a time. Element e's outputs start at U + stride e, sigma + stride e,
 * V + stride e (e.g. stride 21 with U, sigma, V at offsets 0, 9, 12 of one array). Errors: as
 * SimSvd3, for the first non-finite F. */
PetscErrorCode SimSvd3Batch(PetscInt n, const PetscReal *F, PetscInt stride, PetscReal *U, PetscReal *sigma, PetscReal *V);
