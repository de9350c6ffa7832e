/* As-rigid-as-possible elasticity: psi = mu ||F - R||^2 with F = R S, in singular values. */
#include "framework/material_model.h"

/* Chao et al. 2010 ("A simple geometric model for elastic deformations"; the volumetric form of
 * Sorkine & Alexa 2007): psi = mu ||F - R||_F^2 = mu ||S - I||_F^2, so
 *   psi(s) = mu sum (s_i - 1)^2,
 * the corotated energy without its volume term (lambda is not used). Defined for every F
 * (inversion-safe through the sign convention of svd3.h).
 *
 * Strain limits (Bouaziz et al. 2014, strain limiting): with [s_min, s_max] = par.strain_min/max
 * the energy is mu times the squared distance of F to the set {U diag(c) V^T : c_i in
 * [s_min, s_max]}, psi(s) = mu sum (s_i - c_i)^2 with c_i = clamp(s_i, s_min, s_max): zero inside
 * the band, quadratic outside. [1, 1] (the default) is ARAP itself. */
static inline PetscReal Clamp(const SimMaterialParams *p, PetscReal s)
{
  return PetscMin(PetscMax(s, p->strain_min), p->strain_max);
}

/* d c_i / d s_i: 1 strictly inside the band, 0 outside (and on its ends, so that [1, 1] is ARAP) */
static inline PetscReal ClampSlope(const SimMaterialParams *p, PetscReal s)
{
  return s > p->strain_min && s < p->strain_max ? 1 : 0;
}

static void PsiSigma_ARAP(const void *ctx, const PetscReal s[3], PetscReal *psi)
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  PetscReal sum = 0;

  for (int i = 0; i < 3; i++) sum += (s[i] - Clamp(p, s[i])) * (s[i] - Clamp(p, s[i]));
  *psi = p->mu * sum;
}

/* g_i = 2 mu (s_i - c_i) */
static void GradientSigma_ARAP(const void *ctx, const PetscReal s[3], PetscReal g[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;

  for (int i = 0; i < 3; i++) g[i] = 2 * p->mu * (s[i] - Clamp(p, s[i]));
}

/* H = 2 mu diag(1 - dc_i/ds_i): 2 mu I without limits */
static void HessianSigma_ARAP(const void *ctx, const PetscReal s[3], PetscReal H[9])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;

  for (int k = 0; k < 9; k++) H[k] = 0;
  for (int i = 0; i < 3; i++) H[4 * i] = 2 * p->mu * (1 - ClampSlope(p, s[i]));
}

/* Smith et al. 2019 (ARAP eigensystem): flip = (g_i - g_j)/(s_i - s_j) = 2 mu (1 - (c_i - c_j)/(s_i - s_j)),
 * twist = (g_i + g_j)/(s_i + s_j) = 2 mu - 2 mu (c_i + c_j)/(s_i + s_j); without limits (c = 1) these
 * are 2 mu and 2 mu - 4 mu/(s_i + s_j), the only eigenvalue that can be negative, singular at
 * s_i = -s_j where the polar rotation jumps. The ratio (c_i - c_j)/(s_i - s_j) is exact (1 when
 * both are inside the band, 0 when both are clamped to the same end); at s_i = s_j it is the slope. */
static void Quotients_ARAP(const void *ctx, const PetscReal s[3], PetscReal flip[3], PetscReal twist[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;

  for (int k = 0; k < 3; k++) {
    const PetscReal si = s[SimIsotropicPairs[k][0]], sj = s[SimIsotropicPairs[k][1]], ci = Clamp(p, si), cj = Clamp(p, sj);
    const PetscReal ratio = si != sj ? (ci - cj) / (si - sj) : ClampSlope(p, si);
    flip[k] = 2 * p->mu * (1 - ratio);
    twist[k] = 2 * p->mu - 2 * p->mu * (ci + cj) / SimIsotropicTwistDenominator(si + sj);
  }
}

static const SimMaterialModel arap = {
    .sigma = {.psi = PsiSigma_ARAP, .gradient = GradientSigma_ARAP, .hessian = HessianSigma_ARAP, .quotients = Quotients_ARAP},
    .inversion_safe = PETSC_TRUE,
    .strain_limits = PETSC_TRUE};

PetscErrorCode SimMaterialCreate_ARAP(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &arap));
  PetscFunctionReturn(0);
}
