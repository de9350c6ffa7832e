/* As-rigid-as-possible elasticity: psi = mu ||F - R||^2 with F = R S, in singular values. */
#include "framework/material.h"
#include "framework/linalg/isotropic.h"

/* Chao et al. 2010 ("A simple geometric model for elastic deformations"; the volumetric form of
 * Sorkine & Alexa 2007): psi = mu ||F - R||_F^2 = mu ||S - I||_F^2, so
 *   psi(s) = mu sum (s_i - 1)^2,
 * the corotated energy without its volume term (lambda is not used). Defined for every F
 * (inversion-safe through the sign convention of svd3.h). */
static void PsiSigma_ARAP(const void *ctx, const PetscReal s[3], PetscReal *psi)
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;

  *psi = p->mu * ((s[0] - 1) * (s[0] - 1) + (s[1] - 1) * (s[1] - 1) + (s[2] - 1) * (s[2] - 1));
}

/* g_i = 2 mu (s_i - 1) */
static void GradientSigma_ARAP(const void *ctx, const PetscReal s[3], PetscReal g[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;

  for (int i = 0; i < 3; i++) g[i] = 2 * p->mu * (s[i] - 1);
}

/* H = 2 mu I */
static void HessianSigma_ARAP(const void *ctx, const PetscReal s[3], PetscReal H[9])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;

  for (int k = 0; k < 9; k++) H[k] = k % 4 == 0 ? 2 * p->mu : 0;
}

/* Smith et al. 2019 (ARAP eigensystem): flip = 2 mu, twist = 2 mu - 4 mu / (s_i + s_j), the only
 * eigenvalue that can be negative; singular at s_i = -s_j where the polar rotation jumps. */
static void Quotients_ARAP(const void *ctx, const PetscReal s[3], PetscReal flip[3], PetscReal twist[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;

  for (int k = 0; k < 3; k++) {
    const PetscReal sum = s[SimIsotropicPairs[k][0]] + s[SimIsotropicPairs[k][1]];
    flip[k] = 2 * p->mu;
    twist[k] = 2 * p->mu - 4 * p->mu / SimIsotropicTwistDenominator(sum);
  }
}

static const SimIsotropicEnergy energy_arap = {.name = "arap",
                                               .psi = PsiSigma_ARAP,
                                               .gradient = GradientSigma_ARAP,
                                               .hessian = HessianSigma_ARAP,
                                               .quotients = Quotients_ARAP};

static PetscErrorCode Energy_ARAP(SimMaterial m, PetscInt n, const PetscReal *F, PetscReal *psi)
{
  PetscFunctionBeginUser;
  PetscCall(SimIsotropicEvaluate(&energy_arap, &m->par, n, F, psi, NULL, NULL, PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode PK1_ARAP(SimMaterial m, PetscInt n, const PetscReal *F, PetscReal *P)
{
  PetscFunctionBeginUser;
  PetscCall(SimIsotropicEvaluate(&energy_arap, &m->par, n, F, NULL, P, NULL, PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode Hessian_ARAP(SimMaterial m, PetscInt n, const PetscReal *F, PetscBool psd, PetscReal *dPdF)
{
  PetscFunctionBeginUser;
  PetscCall(SimIsotropicEvaluate(&energy_arap, &m->par, n, F, NULL, NULL, dPdF, psd));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMaterialCreate_ARAP(SimMaterial m)
{
  static const SimMaterialOps ops = {.energy = Energy_ARAP, .pk1 = PK1_ARAP, .hessian = Hessian_ARAP};

  PetscFunctionBeginUser;
  m->ops = ops;
  m->inversion_safe = PETSC_TRUE;
  PetscFunctionReturn(0);
}
