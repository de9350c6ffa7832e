/* Compressible neo-Hookean: psi = mu/2 (I_C - 3) - mu log J + lambda/2 (log J)^2, in singular values; +inf for J <= 0. */
#include "framework/material_model.h"

/* Bonet & Wood 2008 ("Nonlinear continuum mechanics for finite element analysis", the
 * compressible neo-Hookean material): psi = mu/2 (I_C - 3) - mu log J + lambda/2 (log J)^2 with
 * I_C = tr(F^T F) = sum s_i^2 and J = s_0 s_1 s_2. Undefined for J <= 0 (log J): the energy is
 * +inf there, which a line search rejects; P and dP/dF are errors (not inversion-safe). */
static PetscBool DefinedSigma_NeoHookean(const void *ctx, const PetscReal s[3])
{
  return (PetscBool)(s[0] * s[1] * s[2] > 0);
}

static void PsiSigma_NeoHookean(const void *ctx, const PetscReal s[3], PetscReal *psi)
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal IC = s[0] * s[0] + s[1] * s[1] + s[2] * s[2], logJ = PetscLogReal(s[0] * s[1] * s[2]);

  *psi = 0.5 * p->mu * (IC - 3) - p->mu * logJ + 0.5 * p->lambda * logJ * logJ;
}

/* g_i = mu s_i + (lambda log J - mu) / s_i */
static void GradientSigma_NeoHookean(const void *ctx, const PetscReal s[3], PetscReal g[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal logJ = PetscLogReal(s[0] * s[1] * s[2]);

  for (int i = 0; i < 3; i++) g[i] = p->mu * s[i] + (p->lambda * logJ - p->mu) / s[i];
}

/* H_ii = mu + (mu + lambda - lambda log J) / s_i^2,  H_ij = lambda / (s_i s_j) */
static void HessianSigma_NeoHookean(const void *ctx, const PetscReal s[3], PetscReal H[9])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal logJ = PetscLogReal(s[0] * s[1] * s[2]);

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      H[3 * i + j] = i == j ? p->mu + (p->mu + p->lambda - p->lambda * logJ) / (s[i] * s[i]) : p->lambda / (s[i] * s[j]);
}

/* Closed forms (Smith et al. 2019): flip = mu + (mu - lambda log J)/(s_i s_j),
 * twist = mu - (mu - lambda log J)/(s_i s_j) */
static void Quotients_NeoHookean(const void *ctx, const PetscReal s[3], PetscReal flip[3], PetscReal twist[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal logJ = PetscLogReal(s[0] * s[1] * s[2]);

  for (int k = 0; k < 3; k++) {
    const PetscReal t = (p->mu - p->lambda * logJ) / (s[SimIsotropicPairs[k][0]] * s[SimIsotropicPairs[k][1]]);
    flip[k] = p->mu + t;
    twist[k] = p->mu - t;
  }
}

static const SimMaterialModel neohookean = {.sigma = {.defined = DefinedSigma_NeoHookean,
                                                      .psi = PsiSigma_NeoHookean,
                                                      .gradient = GradientSigma_NeoHookean,
                                                      .hessian = HessianSigma_NeoHookean,
                                                      .quotients = Quotients_NeoHookean},
                                            .inversion_safe = PETSC_FALSE};

PetscErrorCode SimMaterialCreate_NeoHookean(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &neohookean));
  PetscFunctionReturn(0);
}
