/* Small dense symmetric eigendecomposition by cyclic Jacobi rotations (symeig.h). */
#include "framework/linalg/symeig.h"

PetscErrorCode SimSymEig(PetscInt n, const PetscReal *A, PetscReal *lambda, PetscReal *Q)
{
  PetscReal D[SIM_SYMEIG_MAX * SIM_SYMEIG_MAX], norm = 0;
  PetscInt sweep;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= SIM_SYMEIG_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SimSymEig: n = %" PetscInt_FMT " must be in [1, %d]", n,
             SIM_SYMEIG_MAX);
  for (PetscInt k = 0; k < n * n; k++) {
    PetscCheck(!PetscIsInfOrNanReal(A[k]), PETSC_COMM_SELF, PETSC_ERR_FP, "SimSymEig: entry %" PetscInt_FMT " is not finite", k);
    D[k] = A[k], Q[k] = (k / n == k % n);
    norm += A[k] * A[k];
  }
  norm = PetscSqrtReal(norm);
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
  PetscCheck(sweep < 50, PETSC_COMM_SELF, PETSC_ERR_CONV_FAILED, "SimSymEig: Jacobi did not converge in 50 sweeps (n = %" PetscInt_FMT ")", n);
  for (PetscInt m = 0; m < n; m++) lambda[m] = D[m * n + m];
  PetscFunctionReturn(0);
}
