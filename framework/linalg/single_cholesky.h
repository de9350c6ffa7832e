/* A Cholesky preconditioner whose factor is applied in single precision.
 *
 * CHOLMOD factors the matrix in double precision (supernodal, its default fill-reducing ordering,
 * the symbolic analysis done once per nonzero pattern); the factor's values are then rounded to
 * float, and each application is a hand-written supernodal forward/backward substitution that
 * reads those floats and computes in double. A triangular solve reads the whole factor twice and
 * does two flops per value read, so it runs at the memory's speed: half the bytes is most of half
 * the time (the 64 x 64 cloth's factor, 1.2e6 values: CHOLMOD's solve 0.94 ms, this one 0.64 ms;
 * docs/implicit.md). The price is a preconditioner perturbed by the rounding, |dL| <= 2^-24 |L|
 * entrywise: M = (L + dL)(L + dL)^T instead of A. For the preconditioner of a Krylov method that
 * is harmless (it changes how fast CG converges, not what it converges to); as a direct solver it
 * gives a solution with a relative error of about cond(A) * 6e-8.
 *
 * One rank, a sequential AIJ matrix with its symmetric part stored (both triangles; the upper one
 * is read). */
#pragma once
#include <petscpc.h>

typedef struct _p_SimSingleCholesky *SimSingleCholesky;

PetscErrorCode SimSingleCholeskyCreate(SimSingleCholesky *chol);
/* Factors A (MATSEQAIJ, symmetric). The symbolic analysis is redone only when A's nonzero pattern
 * changed. *posdef is false when A is not positive definite (the factor is then unusable). */
PetscErrorCode SimSingleCholeskyFactor(SimSingleCholesky chol, Mat A, PetscBool *posdef);
/* x = (L L^T)^-1 b with the single-precision factor; b and x (n values) may be the same array. */
PetscErrorCode SimSingleCholeskySolve(SimSingleCholesky chol, const PetscReal *b, PetscReal *x);
/* The factor's size: rows, supernodes, stored values (the supernodes' dense blocks). */
PetscErrorCode SimSingleCholeskyGetInfo(SimSingleCholesky chol, PetscInt *n, PetscInt *nsuper, PetscInt64 *nvalues);
PetscErrorCode SimSingleCholeskyDestroy(SimSingleCholesky *chol); /* accepts NULL */

/* Turns pc into a PCSHELL that factors its preconditioning matrix with SimSingleCholesky at each
 * PCSetUp (so KSPSetReusePreconditioner lags it as usual) and applies the single-precision solve.
 * A matrix that is not positive definite fails the set-up the way PCCHOLESKY does
 * (PC_FACTOR_NUMERIC_ZEROPIVOT: the KSP stops with KSP_DIVERGED_PC_FAILED). */
PetscErrorCode SimPCSetSingleCholesky(PC pc);
/* Whether pc is such a preconditioner. */
PetscErrorCode SimPCIsSingleCholesky(PC pc, PetscBool *is);
