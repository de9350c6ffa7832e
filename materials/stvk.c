/* St. Venant-Kirchhoff: psi = mu ||E||^2 + lambda/2 tr(E)^2 with E = (F^T F - I)/2, in singular values. */
#include "framework/material_model.h"

/* Sifakis & Barbic 2012 ("FEM simulation of 3D deformable solids: a practitioner's guide",
 * the StVK energy): psi = mu E:E + lambda/2 tr(E)^2. E has eigenvalues E_i = (s_i^2 - 1)/2, so
 * psi(s) = mu sum E_i^2 + lambda/2 (sum E_i)^2, a polynomial in F: defined and smooth for every
 * F, inverted too (inversion-safe in that sense, though it resists inversion weakly). */
static void PsiSigma_StVK(const void *ctx, const PetscReal s[3], PetscReal *psi)
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal E0 = 0.5 * (s[0] * s[0] - 1), E1 = 0.5 * (s[1] * s[1] - 1), E2 = 0.5 * (s[2] * s[2] - 1), tr = E0 + E1 + E2;

  *psi = p->mu * (E0 * E0 + E1 * E1 + E2 * E2) + 0.5 * p->lambda * tr * tr;
}

/* g_i = (2 mu E_i + lambda trE) s_i */
static void GradientSigma_StVK(const void *ctx, const PetscReal s[3], PetscReal g[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal tr = 0.5 * (s[0] * s[0] + s[1] * s[1] + s[2] * s[2] - 3);

  for (int i = 0; i < 3; i++) g[i] = (p->mu * (s[i] * s[i] - 1) + p->lambda * tr) * s[i];
}

/* H_ii = (2 mu + lambda) s_i^2 + 2 mu E_i + lambda trE,  H_ij = lambda s_i s_j */
static void HessianSigma_StVK(const void *ctx, const PetscReal s[3], PetscReal H[9])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal tr = 0.5 * (s[0] * s[0] + s[1] * s[1] + s[2] * s[2] - 3);

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      H[3 * i + j] =
          i == j ? (2 * p->mu + p->lambda) * s[i] * s[i] + p->mu * (s[i] * s[i] - 1) + p->lambda * tr : p->lambda * s[i] * s[j];
}

/* With g_i = mu (s_i^3 - s_i) + lambda trE s_i (Smith et al. 2019 style closed forms):
 * flip  = mu (s_i^2 + s_i s_j + s_j^2 - 1) + lambda trE,  twist = mu (s_i^2 - s_i s_j + s_j^2 - 1) + lambda trE */
static void Quotients_StVK(const void *ctx, const PetscReal s[3], PetscReal flip[3], PetscReal twist[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal tr = 0.5 * (s[0] * s[0] + s[1] * s[1] + s[2] * s[2] - 3);

  for (int k = 0; k < 3; k++) {
    const PetscReal a = s[SimIsotropicPairs[k][0]], b = s[SimIsotropicPairs[k][1]];
    flip[k] = p->mu * (a * a + a * b + b * b - 1) + p->lambda * tr;
    twist[k] = p->mu * (a * a - a * b + b * b - 1) + p->lambda * tr;
  }
}

static const SimMaterialModel stvk = {
    .sigma = {.psi = PsiSigma_StVK, .gradient = GradientSigma_StVK, .hessian = HessianSigma_StVK, .quotients = Quotients_StVK},
    .inversion_safe = PETSC_TRUE};

PetscErrorCode SimMaterialCreate_StVK(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &stvk));
  PetscFunctionReturn(0);
}
