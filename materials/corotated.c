/* Linear corotated elasticity: psi = mu ||S - I||^2 + lambda/2 tr(S - I)^2 with F = R S, in singular values. */
#include "framework/material_model.h"

/* Muller & Gross 2004 ("Interactive virtual materials"), in the form of Stomakhin et al. 2012
 * ("Energetically consistent invertible elasticity", the corotated energy): with the
 * rotation-variant polar decomposition F = R S, S = V diag(s) V^T,
 *   psi(s) = mu sum (s_i - 1)^2 + lambda/2 (sum s_i - 3)^2.
 * Defined for every F (inversion-safe through the sign convention of svd3.h). */
static void PsiSigma_Corotated(const void *ctx, const PetscReal s[3], PetscReal *psi)
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal d0 = s[0] - 1, d1 = s[1] - 1, d2 = s[2] - 1, tr = d0 + d1 + d2;

  *psi = p->mu * (d0 * d0 + d1 * d1 + d2 * d2) + 0.5 * p->lambda * tr * tr;
}

/* g_i = 2 mu (s_i - 1) + lambda (sum s - 3) */
static void GradientSigma_Corotated(const void *ctx, const PetscReal s[3], PetscReal g[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal tr = s[0] + s[1] + s[2] - 3;

  for (int i = 0; i < 3; i++) g[i] = 2 * p->mu * (s[i] - 1) + p->lambda * tr;
}

/* H_ii = 2 mu + lambda, H_ij = lambda */
static void HessianSigma_Corotated(const void *ctx, const PetscReal s[3], PetscReal H[9])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;

  for (int k = 0; k < 9; k++) H[k] = p->lambda + (k % 4 == 0 ? 2 * p->mu : 0);
}

/* flip = 2 mu;  twist = (g_i + g_j)/(s_i + s_j) = 2 mu + (2 lambda (sum s - 3) - 4 mu)/(s_i + s_j),
 * singular at s_i = -s_j where the polar rotation jumps (Smith et al. 2019 on ARAP's twist). */
static void Quotients_Corotated(const void *ctx, const PetscReal s[3], PetscReal flip[3], PetscReal twist[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal tr = s[0] + s[1] + s[2] - 3;

  for (int k = 0; k < 3; k++) {
    const PetscReal sum = s[SimIsotropicPairs[k][0]] + s[SimIsotropicPairs[k][1]];
    flip[k] = 2 * p->mu;
    twist[k] = 2 * p->mu + (2 * p->lambda * tr - 4 * p->mu) / SimIsotropicTwistDenominator(sum);
  }
}

static const SimMaterialModel corotated = {.sigma = {.psi = PsiSigma_Corotated,
                                                     .gradient = GradientSigma_Corotated,
                                                     .hessian = HessianSigma_Corotated,
                                                     .quotients = Quotients_Corotated},
                                           .inversion_safe = PETSC_TRUE};

PetscErrorCode SimMaterialCreate_Corotated(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &corotated));
  PetscFunctionReturn(0);
}
