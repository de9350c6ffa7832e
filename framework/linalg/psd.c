/* Projection of small symmetric matrices onto the PSD cone by a cyclic Jacobi eigendecomposition. */
#include "framework/linalg/psd.h"

PetscErrorCode SimSymProjectPSD(PetscInt n, PetscReal *A)
{
  PetscReal D[144], Q[144], norm = 0;
  PetscBool negative = PETSC_FALSE;
  PetscInt sweep;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= 12, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "SimSymProjectPSD: n = %" PetscInt_FMT " must be in [1, 12]", n);
  for (PetscInt k = 0; k < n * n; k++) {
    PetscCheck(!PetscIsInfOrNanReal(A[k]), PETSC_COMM_SELF, PETSC_ERR_FP,
               "SimSymProjectPSD: entry %" PetscInt_FMT " is not finite", k);
    D[k] = A[k], Q[k] = (k / n == k % n);
    norm += A[k] * A[k];
  }
  norm = PetscSqrtReal(norm);
  if (norm == 0) PetscFunctionReturn(0);
  /* D <- J^T D J for plane rotations J(p, q) zeroing D_pq; Q accumulates the rotations (D = Q^T A Q) */
  for (sweep = 0; sweep < 50; sweep++) {
    PetscReal off = 0;
    for (PetscInt p = 0; p < n; p++)
      for (PetscInt q = p + 1; q < n; q++) off = PetscMax(off, PetscAbsReal(D[p * n + q]));
    if (off <= PETSC_MACHINE_EPSILON * norm) break;
    for (PetscInt p = 0; p < n; p++)
      for (PetscInt q = p + 1; q < n; q++) {
        const PetscReal apq = D[p * n + q];
        PetscReal theta, t, c, sn;
        if (apq == 0) continue;
        theta = (D[q * n + q] - D[p * n + p]) / (2 * apq);
        t = (theta >= 0 ? 1 : -1) / (PetscAbsReal(theta) + PetscSqrtReal(theta * theta + 1));
        c = 1 / PetscSqrtReal(t * t + 1), sn = t * c;
        for (PetscInt k = 0; k < n; k++) { /* columns p, q */
          const PetscReal dkp = D[k * n + p], dkq = D[k * n + q];
          D[k * n + p] = c * dkp - sn * dkq, D[k * n + q] = sn * dkp + c * dkq;
        }
        for (PetscInt k = 0; k < n; k++) { /* rows p, q */
          const PetscReal dpk = D[p * n + k], dqk = D[q * n + k];
          D[p * n + k] = c * dpk - sn * dqk, D[q * n + k] = sn * dpk + c * dqk;
        }
        D[p * n + q] = D[q * n + p] = 0;
        for (PetscInt k = 0; k < n; k++) {
          const PetscReal qkp = Q[k * n + p], qkq = Q[k * n + q];
          Q[k * n + p] = c * qkp - sn * qkq, Q[k * n + q] = sn * qkp + c * qkq;
        }
      }
  }
  PetscCheck(sweep < 50, PETSC_COMM_SELF, PETSC_ERR_CONV_FAILED, "SimSymProjectPSD: Jacobi did not converge in 50 sweeps");
  for (PetscInt m = 0; m < n; m++) negative = (PetscBool)(negative || D[m * n + m] < 0);
  if (!negative) PetscFunctionReturn(0); /* already PSD: A unchanged, not rebuilt with round-off */
  /* A = sum_m max(lambda_m, 0) q_m q_m^T, q_m = column m of Q */
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = i; j < n; j++) {
      PetscReal s = 0;
      for (PetscInt m = 0; m < n; m++)
        if (D[m * n + m] > 0) s += D[m * n + m] * Q[i * n + m] * Q[j * n + m];
      A[i * n + j] = A[j * n + i] = s;
    }
  PetscFunctionReturn(0);
}
