/* Projection of small symmetric matrices onto the PSD cone through their eigendecomposition. */
#include "framework/linalg/psd.h"
#include "framework/linalg/symeig.h"

PetscErrorCode SimSymProjectPSD(PetscInt n, PetscReal *A)
{
  PetscReal lam[12], Q[144];
  PetscBool negative = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= 12, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SimSymProjectPSD: n = %" PetscInt_FMT " must be in [1, 12]", n);
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
