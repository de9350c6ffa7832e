/* Isotropic energies in singular values turned into psi, P and (PSD-projected) dP/dF, batched over
 * n deformation gradients; the eigensystem is documented in isotropic.h. */
#include <math.h>
#include "framework/linalg/isotropic.h"
#include "framework/linalg/svd3.h"

const int SimIsotropicPairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};

void SimIsotropicQuotients(const PetscReal s[3], const PetscReal g[3], const PetscReal H[9], PetscReal flip[3],
                           PetscReal twist[3])
{
  const PetscReal tau = cbrt(PETSC_MACHINE_EPSILON);

  for (int k = 0; k < 3; k++) {
    const int i = SimIsotropicPairs[k][0], j = SimIsotropicPairs[k][1];
    const PetscReal scale = tau * (PetscAbsReal(s[i]) + PetscAbsReal(s[j])), havg = 0.5 * (H[4 * i] + H[4 * j]);
    const PetscReal dif = s[i] - s[j], sum = s[i] + s[j];
    flip[k] = PetscAbsReal(dif) > scale ? (g[i] - g[j]) / dif : havg - H[3 * i + j];
    twist[k] = PetscAbsReal(sum) > scale ? (g[i] + g[j]) / sum : havg + H[3 * i + j];
  }
}

/* The 9 eigenpairs of dP/dF: lambda l[m] (scaling, flip[0..2], twist[0..2]) and modes q[m] (9 values,
 * row-major 3x3 matrices), orthonormal. */
static PetscErrorCode Eigensystem(const PetscReal U[9], const PetscReal V[9], const PetscReal H[9], const PetscReal flip[3],
                                  const PetscReal twist[3], PetscReal l[9], PetscReal q[9][9])
{
  PetscReal hl[3], hq[9];
  const PetscReal r2 = 1 / PetscSqrtReal(2.0);

  PetscFunctionBeginUser;
  /* scaling modes: H = W diag(hl) W^T, mode k is U diag(W[:,k]) V^T */
  PetscCall(SimSymEig3(H, hl, hq));
  for (int k = 0; k < 3; k++) {
    l[k] = hl[k];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        q[k][3 * a + b] =
            U[3 * a] * hq[k] * V[3 * b] + U[3 * a + 1] * hq[3 + k] * V[3 * b + 1] + U[3 * a + 2] * hq[6 + k] * V[3 * b + 2];
  }
  /* flip and twist modes of the pair (i, j): U (e_i e_j^T +- e_j e_i^T) V^T / sqrt(2) */
  for (int k = 0; k < 3; k++) {
    const int i = SimIsotropicPairs[k][0], j = SimIsotropicPairs[k][1];
    l[3 + k] = flip[k];
    l[6 + k] = twist[k];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        const PetscReal x = U[3 * a + i] * V[3 * b + j], y = U[3 * a + j] * V[3 * b + i];
        q[3 + k][3 * a + b] = r2 * (x + y);
        q[6 + k][3 * a + b] = r2 * (x - y);
      }
  }
  PetscFunctionReturn(0);
}

/* dP/dF = sum_m l_m q_m q_m^T (psd: l_m clamped at 0): the upper triangle as dot products over the
 * modes of the transposed mode matrix (contiguous, no aliasing), then mirrored. */
static void SumModes(const PetscReal l[9], PetscReal q[9][9], PetscBool psd, PetscReal dPdF[81])
{
  PetscReal qt[9][9], lqt[9][9];

  for (int m = 0; m < 9; m++) {
    const PetscReal lm = psd ? PetscMax(l[m], 0.0) : l[m];
    for (int r = 0; r < 9; r++) qt[r][m] = q[m][r], lqt[r][m] = lm * q[m][r];
  }
  for (int r = 0; r < 9; r++)
    for (int c = r; c < 9; c++) {
      PetscReal sum = 0;
      for (int m = 0; m < 9; m++) sum += lqt[r][m] * qt[c][m];
      dPdF[9 * r + c] = dPdF[9 * c + r] = sum;
    }
}

PetscErrorCode SimIsotropicHessian(const PetscReal U[9], const PetscReal V[9], const PetscReal H[9], const PetscReal flip[3],
                                   const PetscReal twist[3], PetscBool psd, PetscReal dPdF[81], PetscReal lambda[9])
{
  PetscReal q[9][9], l[9];

  PetscFunctionBeginUser;
  PetscCall(Eigensystem(U, V, H, flip, twist, l, q));
  if (lambda)
    for (int m = 0; m < 9; m++) lambda[m] = l[m];
  SumModes(l, q, psd, dPdF);
  PetscFunctionReturn(0);
}

/* One element: the SVD into dec (U, s, V) unless have_dec, then the requested outputs. */
static PetscErrorCode EvaluateOne(const SimIsotropicEnergy *e, const void *ctx, PetscInt el, const PetscReal *Fe, PetscReal *dec,
                                  PetscBool have_dec, PetscReal *psi, PetscReal *P, PetscReal *dPdF, PetscReal *dPdF_psd)
{
  PetscReal *U = dec, *s = dec + 9, *V = dec + 12, g[3], H[9], flip[3], twist[3];

  PetscFunctionBeginUser;
  if (!have_dec) PetscCall(SimSvd3(Fe, U, s, V));
  if (e->defined && !e->defined(ctx, s)) {
    PetscCheck(!P && !dPdF && !dPdF_psd, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Energy '%s' is undefined at deformation gradient %" PetscInt_FMT " (singular values %g %g %g, J = det F = %g): "
               "it is not inversion-safe, its stress and Hessian exist only where it is defined (J > 0)",
               e->name, el, (double)s[0], (double)s[1], (double)s[2], (double)(s[0] * s[1] * s[2]));
    if (psi) *psi = (PetscReal)INFINITY; /* IEEE +inf: PETSC_INFINITY is a finite sentinel */
    PetscFunctionReturn(0);
  }
  if (psi) e->psi(ctx, s, psi);
  if (!P && !dPdF && !dPdF_psd) PetscFunctionReturn(0);
  e->gradient(ctx, s, g);
  if (P) { /* P = U diag(g) V^T */
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) P[3 * a + b] = U[3 * a] * g[0] * V[3 * b] + U[3 * a + 1] * g[1] * V[3 * b + 1] + U[3 * a + 2] * g[2] * V[3 * b + 2];
  }
  if (!dPdF && !dPdF_psd) PetscFunctionReturn(0);
  e->hessian(ctx, s, H);
  if (e->quotients) e->quotients(ctx, s, flip, twist);
  else SimIsotropicQuotients(s, g, H, flip, twist);
  {
    PetscReal q[9][9], l[9];
    PetscCall(Eigensystem(U, V, H, flip, twist, l, q));
    if (dPdF) SumModes(l, q, PETSC_FALSE, dPdF);
    if (dPdF_psd) SumModes(l, q, PETSC_TRUE, dPdF_psd);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimIsotropicEvaluate(const SimIsotropicEnergy *e, const void *ctx, PetscInt n, const PetscReal *F, PetscReal *psi,
                                    PetscReal *P, PetscReal *dPdF, PetscBool psd)
{
  PetscFunctionBeginUser;
  for (PetscInt el = 0; el < n; el++) {
    PetscReal dec[SIM_ISOTROPIC_NDEC];
    PetscReal *H = dPdF ? dPdF + 81 * el : NULL;
    PetscCall(EvaluateOne(e, ctx, el, F + 9 * el, dec, PETSC_FALSE, psi ? psi + el : NULL, P ? P + 9 * el : NULL, psd ? NULL : H,
                          psd ? H : NULL));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimIsotropicEvaluateDec(const SimIsotropicEnergy *e, const void *ctx, PetscInt n, const PetscReal *F, PetscReal *dec,
                                       PetscBool have_dec, PetscReal *psi, PetscReal *P, PetscReal *dPdF, PetscReal *dPdF_psd)
{
  PetscFunctionBeginUser;
  for (PetscInt el = 0; el < n; el++)
    PetscCall(EvaluateOne(e, ctx, el, F + 9 * el, dec + SIM_ISOTROPIC_NDEC * el, have_dec, psi ? psi + el : NULL, P ? P + 9 * el : NULL,
                          dPdF ? dPdF + 81 * el : NULL, dPdF_psd ? dPdF_psd + 81 * el : NULL));
  PetscFunctionReturn(0);
}
