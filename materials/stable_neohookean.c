/* Stable neo-Hookean (Smith, de Goes, Kim 2018), rest-stable and inversion-safe, in singular values. */
#include "framework/material_model.h"

/* Smith, de Goes, Kim 2018 ("Stable Neo-Hookean Flesh Simulation", ACM TOG 37(2)):
 *   psi = mu'/2 (I_C - 3) + lambda'/2 (J - alpha)^2 - mu'/2 log(I_C + 1) - psi0,
 * I_C = sum s_i^2, J = s_0 s_1 s_2. The paper's choices, re-derived here and checked by the tests:
 *   - rest stability, P(I) = 0: mu' + lambda'(1 - alpha) - mu'/4 = 0, so alpha = 1 + 3 mu' / (4 lambda');
 *   - dP/dF(I) = 3/4 mu' (d_ik d_jl + d_il d_jk) + (lambda' - 5/8 mu') d_ij d_kl must be the linear
 *     elastic tensor of the material's (mu, lambda): mu' = 4/3 mu, lambda' = lambda + 5/6 mu (the
 *     paper's Lame reparametrization); lambda' > 0 for every nu in (-1, 0.5);
 *   - psi0 = lambda'/2 (1 - alpha)^2 - mu'/2 log 4 makes psi(R) = 0 for every rotation R (the paper
 *     leaves this constant in; it does not change P or dP/dF).
 * Smooth for every F (I_C + 1 > 0, J polynomial): inversion-safe. */
typedef struct {
  PetscReal mu, lambda, alpha, psi0; /* mu', lambda' above */
} StableNeoHookean;

static void PsiSigma_StableNeoHookean(const void *ctx, const PetscReal s[3], PetscReal *psi)
{
  const StableNeoHookean *p = (const StableNeoHookean *)ctx;
  const PetscReal IC = s[0] * s[0] + s[1] * s[1] + s[2] * s[2], J = s[0] * s[1] * s[2];

  *psi =
      0.5 * p->mu * (IC - 3) + 0.5 * p->lambda * (J - p->alpha) * (J - p->alpha) - 0.5 * p->mu * PetscLogReal(IC + 1) - p->psi0;
}

/* g_i = mu' s_i (1 - 1/(I_C + 1)) + lambda' (J - alpha) c_i,  c_i = J / s_i = s_j s_m */
static void GradientSigma_StableNeoHookean(const void *ctx, const PetscReal s[3], PetscReal g[3])
{
  const StableNeoHookean *p = (const StableNeoHookean *)ctx;
  const PetscReal IC = s[0] * s[0] + s[1] * s[1] + s[2] * s[2], J = s[0] * s[1] * s[2];
  const PetscReal c[3] = {s[1] * s[2], s[0] * s[2], s[0] * s[1]}, f = p->mu * (1 - 1 / (IC + 1));

  for (int i = 0; i < 3; i++) g[i] = f * s[i] + p->lambda * (J - p->alpha) * c[i];
}

/* H_ii = mu' (1 - 1/(I_C + 1)) + 2 mu' s_i^2 / (I_C + 1)^2 + lambda' c_i^2
 * H_ij = 2 mu' s_i s_j / (I_C + 1)^2 + lambda' (c_i c_j + (J - alpha) s_m) = ... + lambda' s_m (2 J - alpha) */
static void HessianSigma_StableNeoHookean(const void *ctx, const PetscReal s[3], PetscReal H[9])
{
  const StableNeoHookean *p = (const StableNeoHookean *)ctx;
  const PetscReal IC = s[0] * s[0] + s[1] * s[1] + s[2] * s[2], J = s[0] * s[1] * s[2];
  const PetscReal c[3] = {s[1] * s[2], s[0] * s[2], s[0] * s[1]}, f = p->mu * (1 - 1 / (IC + 1)),
                  q = 2 * p->mu / ((IC + 1) * (IC + 1));

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      H[3 * i + j] = i == j ? f + q * s[i] * s[i] + p->lambda * c[i] * c[i]
                            : q * s[i] * s[j] + p->lambda * s[3 - i - j] * (2 * J - p->alpha);
}

/* Closed forms (Smith et al. 2019; for the J term see fixed_corotated.c):
 *   flip = mu' (1 - 1/(I_C + 1)) - lambda' (J - alpha) s_m,  twist = mu' (1 - 1/(I_C + 1)) + lambda' (J - alpha) s_m */
static void Quotients_StableNeoHookean(const void *ctx, const PetscReal s[3], PetscReal flip[3], PetscReal twist[3])
{
  const StableNeoHookean *p = (const StableNeoHookean *)ctx;
  const PetscReal IC = s[0] * s[0] + s[1] * s[1] + s[2] * s[2], J = s[0] * s[1] * s[2], f = p->mu * (1 - 1 / (IC + 1));

  for (int k = 0; k < 3; k++) {
    const PetscReal vol = p->lambda * (J - p->alpha) * s[3 - SimIsotropicPairs[k][0] - SimIsotropicPairs[k][1]];
    flip[k] = f - vol;
    twist[k] = f + vol;
  }
}

/* The paper's constants from the material's (mu, lambda), see above. */
static PetscErrorCode Setup_StableNeoHookean(SimMaterial m)
{
  StableNeoHookean *p = (StableNeoHookean *)m->data;

  PetscFunctionBeginUser;
  p->mu = 4.0 / 3.0 * m->par.mu;
  p->lambda = m->par.lambda + 5.0 / 6.0 * m->par.mu;
  PetscCheck(p->lambda > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "stable_neohookean: lambda + 5/6 mu = %g must be > 0",
             (double)p->lambda);
  p->alpha = 1 + 0.75 * p->mu / p->lambda;
  p->psi0 = 0.5 * p->lambda * (1 - p->alpha) * (1 - p->alpha) - 0.5 * p->mu * PetscLogReal(4.0);
  PetscFunctionReturn(0);
}

static const SimMaterialModel stable_neohookean = {.sigma = {.psi = PsiSigma_StableNeoHookean,
                                                             .gradient = GradientSigma_StableNeoHookean,
                                                             .hessian = HessianSigma_StableNeoHookean,
                                                             .quotients = Quotients_StableNeoHookean},
                                                   .size = sizeof(StableNeoHookean),
                                                   .setup = Setup_StableNeoHookean,
                                                   .inversion_safe = PETSC_TRUE};

PetscErrorCode SimMaterialCreate_StableNeoHookean(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &stable_neohookean));
  PetscFunctionReturn(0);
}
