/* Fixed corotated elasticity: psi = mu ||F - R||^2 + lambda/2 (J - 1)^2, in singular values. */
#include "framework/material_model.h"

/* Stomakhin, Howes, Schroeder, Teran 2012 ("Energetically consistent invertible elasticity",
 * the fixed corotated energy): psi = mu ||F - R||_F^2 + lambda/2 (J - 1)^2, J = det F, so
 *   psi(s) = mu sum (s_i - 1)^2 + lambda/2 (J - 1)^2,  J = s_0 s_1 s_2.
 * Defined for every F; with the rotation-variant SVD it resists inversion (inversion-safe).
 * Below, for a pair (i, j), m is the third index and c_i = J / s_i = s_j s_m. */
static void PsiSigma_FixedCorotated(const void *ctx, const PetscReal s[3], PetscReal *psi)
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal J = s[0] * s[1] * s[2];

  *psi =
      p->mu * ((s[0] - 1) * (s[0] - 1) + (s[1] - 1) * (s[1] - 1) + (s[2] - 1) * (s[2] - 1)) + 0.5 * p->lambda * (J - 1) * (J - 1);
}

/* g_i = 2 mu (s_i - 1) + lambda (J - 1) c_i */
static void GradientSigma_FixedCorotated(const void *ctx, const PetscReal s[3], PetscReal g[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal J = s[0] * s[1] * s[2], c[3] = {s[1] * s[2], s[0] * s[2], s[0] * s[1]};

  for (int i = 0; i < 3; i++) g[i] = 2 * p->mu * (s[i] - 1) + p->lambda * (J - 1) * c[i];
}

/* H_ii = 2 mu + lambda c_i^2,  H_ij = lambda (c_i c_j + (J - 1) s_m) = lambda s_m (2 J - 1) */
static void HessianSigma_FixedCorotated(const void *ctx, const PetscReal s[3], PetscReal H[9])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal J = s[0] * s[1] * s[2], c[3] = {s[1] * s[2], s[0] * s[2], s[0] * s[1]};

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      H[3 * i + j] = i == j ? 2 * p->mu + p->lambda * c[i] * c[i] : p->lambda * s[3 - i - j] * (2 * J - 1);
}

/* Closed forms (Smith et al. 2019: for a function k(J), (k_i - k_j)/(s_i - s_j) = -k'(J) s_m and
 * (k_i + k_j)/(s_i + s_j) = k'(J) s_m):
 *   flip = 2 mu - lambda (J - 1) s_m,  twist = 2 mu - 4 mu / (s_i + s_j) + lambda (J - 1) s_m */
static void Quotients_FixedCorotated(const void *ctx, const PetscReal s[3], PetscReal flip[3], PetscReal twist[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal J = s[0] * s[1] * s[2];

  for (int k = 0; k < 3; k++) {
    const int i = SimIsotropicPairs[k][0], j = SimIsotropicPairs[k][1];
    const PetscReal vol = p->lambda * (J - 1) * s[3 - i - j];
    flip[k] = 2 * p->mu - vol;
    twist[k] = 2 * p->mu - 4 * p->mu / SimIsotropicTwistDenominator(s[i] + s[j]) + vol;
  }
}

static const SimMaterialModel fixed_corotated = {.sigma = {.psi = PsiSigma_FixedCorotated,
                                                           .gradient = GradientSigma_FixedCorotated,
                                                           .hessian = HessianSigma_FixedCorotated,
                                                           .quotients = Quotients_FixedCorotated},
                                                 .inversion_safe = PETSC_TRUE};

PetscErrorCode SimMaterialCreate_FixedCorotated(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &fixed_corotated));
  PetscFunctionReturn(0);
}
