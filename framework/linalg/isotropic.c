/* The analytic eigensystem of isotropic energies (dP/dF and its exact PSD projection from the
 * singular values), energies in invariants in singular-value form, and the I4 fibre term; the
 * formulas are documented in isotropic.h. */
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

PetscErrorCode SimIsotropicHessians(const PetscReal U[9], const PetscReal V[9], const PetscReal H[9], const PetscReal flip[3],
                                    const PetscReal twist[3], PetscReal dPdF[81], PetscReal dPdF_psd[81])
{
  PetscReal q[9][9], l[9];

  PetscFunctionBeginUser;
  PetscCall(Eigensystem(U, V, H, flip, twist, l, q));
  if (dPdF) SumModes(l, q, PETSC_FALSE, dPdF);
  if (dPdF_psd) SumModes(l, q, PETSC_TRUE, dPdF_psd);
  PetscFunctionReturn(0);
}

void SimInvariantsOfSigma(const PetscReal s[3], PetscReal inv[3])
{
  const PetscReal q0 = s[0] * s[0], q1 = s[1] * s[1], q2 = s[2] * s[2];

  inv[0] = q0 + q1 + q2;
  inv[1] = q0 * q1 + q0 * q2 + q1 * q2;
  inv[2] = s[0] * s[1] * s[2];
}

void SimInvariantsToSigma(const SimInvariantEnergy *e, const void *ctx, const PetscReal s[3], PetscReal *psi, PetscReal g[3],
                          PetscReal H[9], PetscReal flip[3], PetscReal twist[3])
{
  PetscReal inv[3], d[3], D[9], dI[3][3]; /* dI[a][i] = dI_a / ds_i */

  SimInvariantsOfSigma(s, inv);
  if (psi) e->psi(ctx, inv, psi);
  if (!g && !H) return;
  e->gradient(ctx, inv, d);
  for (int i = 0; i < 3; i++) {
    dI[0][i] = 2 * s[i];
    dI[1][i] = 2 * s[i] * (inv[0] - s[i] * s[i]);
    dI[2][i] = s[(i + 1) % 3] * s[(i + 2) % 3];
  }
  if (g)
    for (int i = 0; i < 3; i++) g[i] = d[0] * dI[0][i] + d[1] * dI[1][i] + d[2] * dI[2][i];
  if (!H) return;
  e->hessian(ctx, inv, D);
  /* H = sum_a d_a d2I_a/ds2 + dI^T D dI, with d2I_C = 2 delta_ij, d2II_C = 2 (I_C - s_i^2) delta_ij +
   * 4 s_i s_j (i != j), d2J = s_m (i != j) */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      PetscReal h = i == j ? 2 * d[0] + 2 * d[1] * (inv[0] - s[i] * s[i]) : 4 * d[1] * s[i] * s[j] + d[2] * s[3 - i - j];
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) h += dI[a][i] * D[3 * a + b] * dI[b][j];
      H[3 * i + j] = h;
    }
  for (int k = 0; k < 3; k++) {
    const int i = SimIsotropicPairs[k][0], j = SimIsotropicPairs[k][1], m = 3 - i - j;
    flip[k] = 2 * d[0] + 2 * d[1] * (s[m] * s[m] - s[i] * s[j]) - d[2] * s[m];
    twist[k] = 2 * d[0] + 2 * d[1] * (s[m] * s[m] + s[i] * s[j]) + d[2] * s[m];
  }
}

PetscReal SimFibreI4(const PetscReal F[9], const PetscReal a[3])
{
  PetscReal I4 = 0;

  for (int i = 0; i < 3; i++) {
    const PetscReal fa = F[3 * i] * a[0] + F[3 * i + 1] * a[1] + F[3 * i + 2] * a[2];
    I4 += fa * fa;
  }
  return I4;
}

void SimFibreAddPK1(const PetscReal F[9], const PetscReal a[3], PetscReal d1, PetscReal P[9])
{
  for (int i = 0; i < 3; i++) {
    const PetscReal fa = F[3 * i] * a[0] + F[3 * i + 1] * a[1] + F[3 * i + 2] * a[2];
    for (int j = 0; j < 3; j++) P[3 * i + j] += 2 * d1 * fa * a[j];
  }
}

void SimFibreAddHessian(const PetscReal F[9], const PetscReal a[3], PetscReal d1, PetscReal d2, PetscReal dPdF[81])
{
  PetscReal w[9]; /* (F a)_i a_j */

  for (int i = 0; i < 3; i++) {
    const PetscReal fa = F[3 * i] * a[0] + F[3 * i + 1] * a[1] + F[3 * i + 2] * a[2];
    for (int j = 0; j < 3; j++) w[3 * i + j] = fa * a[j];
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++)
          dPdF[9 * (3 * i + j) + 3 * k + l] += (i == k ? 2 * d1 * a[j] * a[l] : 0) + 4 * d2 * w[3 * i + j] * w[3 * k + l];
}
