/* Projection of small symmetric matrices onto the PSD cone through their eigendecomposition. */
#include "framework/linalg/psd.h"
#include "framework/linalg/symeig.h"

/* Whether A (n x n, exactly symmetric, finite) is positive definite with a margin: the LDL^T
 * factorization of A - tau I, tau = 1e-9 |A|_F, runs to completion with positive pivots in floating
 * point. Then lambda_min(A) >= tau - O(n eps |A|) > 0.99 tau (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., Thm 10.5 and 10.14: the computed factors are exact for A - tau I + dA
 * with |dA|_2 <= about (n + 1) eps trace), some 1e5 times the error of SimSymEig's computed eigenvalues
 * (backward stable Jacobi), so SimSymEig would report no negative eigenvalue and SimSymProjectPSD
 * leave A untouched: the answer without the eigendecomposition is the same, bit for bit. Any doubt
 * (asymmetry, a non-finite entry, a small pivot) answers false, and the caller takes the
 * eigendecomposition. */
static inline PetscBool PositiveDefinite(PetscInt n, const PetscReal *A)
{
  PetscReal L[144], D[12], norm = 0, tau;

  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j <= i; j++) {
      if (A[i * n + j] != A[j * n + i]) return PETSC_FALSE; /* also a NaN */
      norm += (i == j ? 1 : 2) * A[i * n + j] * A[i * n + j];
    }
  tau = 1e-9 * PetscSqrtReal(norm);
  if (!(tau > 0) || PetscIsInfReal(tau)) return PETSC_FALSE;
  for (PetscInt j = 0; j < n; j++) { /* L unit lower triangular (below the diagonal), D the pivots */
    PetscReal d = A[j * n + j] - tau;
    for (PetscInt k = 0; k < j; k++) d -= L[j * n + k] * L[j * n + k] * D[k];
    if (!(d > 0)) return PETSC_FALSE;
    D[j] = d;
    for (PetscInt i = j + 1; i < n; i++) {
      PetscReal s = A[i * n + j];
      for (PetscInt k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k] * D[k];
      L[i * n + j] = s / d;
    }
  }
  return PETSC_TRUE;
}

PetscErrorCode SimSymProjectPSD(PetscInt n, PetscReal *A)
{
  PetscReal lam[12], Q[144];
  PetscBool negative = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= 12, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SimSymProjectPSD: n = %" PetscInt_FMT " must be in [1, 12]", n);
  /* clearly PD: A unchanged, as below (n = 3, the 3x3 blocks of springs and sparsified couplings: unrolled) */
  if (n == 3 ? PositiveDefinite(3, A) : PositiveDefinite(n, A)) PetscFunctionReturn(0);
  PetscCall(SimSymEig(n, A, lam, Q));
  for (PetscInt m = 0; m < n; m++) negative = (PetscBool)(negative || lam[m] < 0);
  if (!negative) PetscFunctionReturn(0); /* already PSD: A unchanged, not rebuilt with round-off */
  /* A = sum_m max(lambda_m, 0) q_m q_m^T, q_m = column m of Q */
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = i; j < n; j++) {
      PetscReal s = 0;
      for (PetscInt m = 0; m < n; m++)
        if (lam[m] > 0) s += lam[m] * Q[i * n + m] * Q[j * n + m];
      A[i * n + j] = A[j * n + i] = s;
    }
  PetscFunctionReturn(0);
}
