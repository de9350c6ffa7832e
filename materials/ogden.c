/* Compressible Ogden (N <= 3 terms): psi = sum_p 2 mu_p / alpha_p^2 (sum_i lbar_i^alpha_p - 3) + kappa/2 (J - 1)^2, in singular
 * values. */
#include <stddef.h>
#include "framework/material_model.h"

/* Ogden 1972 ("Large deformation isotropic elasticity: on the correlation of theory and experiment
 * for incompressible rubberlike solids"), in the decoupled compressible form (e.g. Holzapfel 2000):
 *   psi = sum_p c_p (J^(-alpha_p/3) S_p - 3) + kappa/2 (J - 1)^2,  S_p = sum_i s_i^alpha_p,
 * the isochoric stretches being lbar_i = J^(-1/3) s_i. With Ogden's psi = sum mu_p/alpha_p (...),
 * the small-strain shear modulus is sum mu_p alpha_p / 2; the material keeps E, nu as its
 * small-strain moduli by taking mu_p alpha_p / 2 = w_p mu with relative weights w_p >= 0 (normalized
 * to sum 1; Ogden's stability condition mu_p alpha_p > 0), so c_p = mu_p / alpha_p = 2 w_p mu / alpha_p^2,
 * and kappa = lambda + 2/3 mu. Defaults: Ogden's fit to Treloar's rubber data, alpha = (1.3, 5, -2),
 * mu_p alpha_p = (0.819, 0.006, 0.02) MPa. Undefined for J <= 0: psi = +inf there.
 * For one term T = c q S, q = J^(-alpha/3) (so dq/ds_j = -alpha/3 q / s_j):
 *   g_i = c alpha q (s_i^(alpha-1) - S / (3 s_i)),
 *   H_ij = c alpha q (delta_ij ((alpha-1) s_i^(alpha-2) + S / (3 s_i^2)) - alpha s_i^(alpha-1) / (3 s_j)
 *          - alpha s_j^(alpha-1) / (3 s_i) + alpha S / (9 s_i s_j)).
 * No closed-form flip/twist: SimIsotropicQuotients takes them from g and H. */
typedef struct {
  PetscInt nterms;
  PetscReal alpha[SIM_MATERIAL_PARAM_MAX], weight[SIM_MATERIAL_PARAM_MAX]; /* the parameters */
  PetscReal c[SIM_MATERIAL_PARAM_MAX], kappa;                              /* derived */
} Ogden;

static const SimMaterialParam params_ogden[] = {
    {.name = "alpha",
     .help = "exponents alpha_p, one per term (1 to 3 terms), nonzero",
     .n = 3,
     .def = {1.3, 5.0, -2.0},
     .lo = -20,
     .hi = 20,
     .offset = offsetof(Ogden, alpha),
     .count = PETSC_TRUE,
     .count_offset = offsetof(Ogden, nterms),
     .ndef = 3},
    {.name = "weight",
     .help = "relative weights mu_p alpha_p of the terms (normalized: the shear modulus stays mu)",
     .n = 3,
     .def = {0.819, 0.006, 0.02},
     .lo = 0,
     .hi = 1,
     .offset = offsetof(Ogden, weight),
     .count = PETSC_TRUE,
     .count_offset = offsetof(Ogden, nterms),
     .ndef = 3},
};

static PetscErrorCode Setup_Ogden(SimMaterial m)
{
  Ogden *p = (Ogden *)m->data;
  PetscReal sum = 0;
  char opt[160];

  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < p->nterms; t++) {
    PetscCall(SimMaterialOptionName(m, "alpha", opt, sizeof(opt)));
    PetscCheck(PetscAbsReal(p->alpha[t]) >= 0.05, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "Material '%s': %s value %" PetscInt_FMT " is %g: an exponent must be at least 0.05 in magnitude", m->name, opt,
               t + 1, (double)p->alpha[t]);
    sum += p->weight[t];
  }
  PetscCall(SimMaterialOptionName(m, "weight", opt, sizeof(opt)));
  PetscCheck(sum > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Material '%s': the weights %s are all 0: at least one must be > 0", m->name, opt);
  for (PetscInt t = 0; t < p->nterms; t++) p->c[t] = 2 * (p->weight[t] / sum) * m->par.mu / (p->alpha[t] * p->alpha[t]);
  p->kappa = m->par.lambda + 2.0 / 3.0 * m->par.mu;
  PetscFunctionReturn(0);
}

static PetscBool Defined_Ogden(const void *ctx, const PetscReal s[3])
{
  return (PetscBool)(s[0] * s[1] * s[2] > 0);
}

static void Psi_Ogden(const void *ctx, const PetscReal s[3], PetscReal *psi)
{
  const Ogden *p = (const Ogden *)ctx;
  const PetscReal J = s[0] * s[1] * s[2];

  *psi = 0.5 * p->kappa * (J - 1) * (J - 1);
  for (PetscInt t = 0; t < p->nterms; t++) {
    const PetscReal a = p->alpha[t];
    *psi += p->c[t] * (PetscPowReal(J, -a / 3) * (PetscPowReal(s[0], a) + PetscPowReal(s[1], a) + PetscPowReal(s[2], a)) - 3);
  }
}

/* g_i = sum_p (above) + kappa (J - 1) J / s_i */
static void Gradient_Ogden(const void *ctx, const PetscReal s[3], PetscReal g[3])
{
  const Ogden *p = (const Ogden *)ctx;
  const PetscReal J = s[0] * s[1] * s[2], c[3] = {s[1] * s[2], s[0] * s[2], s[0] * s[1]};

  for (int i = 0; i < 3; i++) g[i] = p->kappa * (J - 1) * c[i];
  for (PetscInt t = 0; t < p->nterms; t++) {
    const PetscReal a = p->alpha[t], q = PetscPowReal(J, -a / 3);
    const PetscReal S = PetscPowReal(s[0], a) + PetscPowReal(s[1], a) + PetscPowReal(s[2], a);
    for (int i = 0; i < 3; i++) g[i] += p->c[t] * a * q * (PetscPowReal(s[i], a - 1) - S / (3 * s[i]));
  }
}

/* H_ij = sum_p (above) + kappa (c_i c_j + (J - 1) s_m (i != j)), c_i = J / s_i */
static void Hessian_Ogden(const void *ctx, const PetscReal s[3], PetscReal H[9])
{
  const Ogden *p = (const Ogden *)ctx;
  const PetscReal J = s[0] * s[1] * s[2], c[3] = {s[1] * s[2], s[0] * s[2], s[0] * s[1]};

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) H[3 * i + j] = p->kappa * (c[i] * c[j] + (i == j ? 0 : (J - 1) * s[3 - i - j]));
  for (PetscInt t = 0; t < p->nterms; t++) {
    const PetscReal a = p->alpha[t], q = PetscPowReal(J, -a / 3), f = p->c[t] * a * q;
    const PetscReal S = PetscPowReal(s[0], a) + PetscPowReal(s[1], a) + PetscPowReal(s[2], a);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        PetscReal h =
            -a * PetscPowReal(s[i], a - 1) / (3 * s[j]) - a * PetscPowReal(s[j], a - 1) / (3 * s[i]) + a * S / (9 * s[i] * s[j]);
        if (i == j) h += (a - 1) * PetscPowReal(s[i], a - 2) + S / (3 * s[i] * s[i]);
        H[3 * i + j] += f * h;
      }
  }
}

static const SimMaterialModel ogden = {
    .sigma = {.defined = Defined_Ogden, .psi = Psi_Ogden, .gradient = Gradient_Ogden, .hessian = Hessian_Ogden},
    .size = sizeof(Ogden),
    .params = params_ogden,
    .nparams = 2,
    .setup = Setup_Ogden,
    .inversion_safe = PETSC_FALSE};

PetscErrorCode SimMaterialCreate_Ogden(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &ogden));
  PetscFunctionReturn(0);
}
