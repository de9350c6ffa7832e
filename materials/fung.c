/* Isotropic Fung (soft tissue): psi = c/2 (exp(Q) - 1), Q = 2 W_StVK / c, in singular values. */
#include <math.h>
#include <stddef.h>
#include "framework/material_model.h"

/* Fung 1967, 1979 ("Inversion of a class of nonlinear stress-strain relationships of biological
 * soft tissues"): psi = c/2 (exp(Q) - 1) with Q a quadratic form of the Green strain E; here its
 * isotropic case Q = 2 W / c, W = mu E:E + lambda/2 tr(E)^2 the St. Venant-Kirchhoff energy, so that
 * psi -> W at small strain (E and nu stay the small-strain moduli) and stiffens exponentially beyond.
 * The one parameter is dimensionless, b = mu / c (0: StVK itself):
 *   psi = h(W),  h(W) = mu/(2b) (exp(2 b W / mu) - 1),  h' = exp(2 b W / mu),  h'' = 2b/mu h'.
 * In singular values (W, its g_W, H_W and quotients as in materials/stvk.c):
 *   g = h' g_W,  H = h' H_W + h'' g_W g_W^T,  flip = h' flip_W,  twist = h' twist_W
 * (g_i -+ g_j = h' (g_W,i -+ g_W,j): the closed forms carry over). Defined and smooth for every F,
 * inverted ones too (a function of F^T F); exp overflows to +inf only far beyond any tissue strain. */
typedef struct {
  PetscReal b;          /* the parameter */
  PetscReal mu, lambda; /* derived */
} Fung;

static const SimMaterialParam params_fung[] = {
    {.name = "b",
     .help = "stiffening mu / c: psi = c/2 (exp(2 W_StVK / c) - 1); 0 is St. Venant-Kirchhoff",
     .n = 1,
     .def = {1},
     .lo = 0,
     .hi = 2,
     .offset = offsetof(Fung, b)},
};

static PetscErrorCode Setup_Fung(SimMaterial m)
{
  Fung *p = (Fung *)m->data;

  PetscFunctionBeginUser;
  p->mu = m->par.mu, p->lambda = m->par.lambda;
  PetscFunctionReturn(0);
}

/* W, g_W (may be NULL) of St. Venant-Kirchhoff, and h, h', h'' at W */
static void Exponential(const Fung *p, const PetscReal s[3], PetscReal *W, PetscReal gW[3], PetscReal h[3])
{
  const PetscReal E[3] = {0.5 * (s[0] * s[0] - 1), 0.5 * (s[1] * s[1] - 1), 0.5 * (s[2] * s[2] - 1)}, tr = E[0] + E[1] + E[2];
  PetscReal t;

  *W = p->mu * (E[0] * E[0] + E[1] * E[1] + E[2] * E[2]) + 0.5 * p->lambda * tr * tr;
  if (gW)
    for (int i = 0; i < 3; i++) gW[i] = (2 * p->mu * E[i] + p->lambda * tr) * s[i];
  t = 2 * p->b * *W / p->mu;
  h[0] = t != 0 ? *W * expm1(t) / t : *W; /* mu/(2b) expm1(t), exact as b -> 0 */
  h[1] = PetscExpReal(t);
  h[2] = 2 * p->b / p->mu * h[1];
}

static void Psi_Fung(const void *ctx, const PetscReal s[3], PetscReal *psi)
{
  PetscReal W, h[3];

  Exponential((const Fung *)ctx, s, &W, NULL, h);
  *psi = h[0];
}

static void Gradient_Fung(const void *ctx, const PetscReal s[3], PetscReal g[3])
{
  PetscReal W, gW[3], h[3];

  Exponential((const Fung *)ctx, s, &W, gW, h);
  for (int i = 0; i < 3; i++) g[i] = h[1] * gW[i];
}

/* H_W: diagonal (2 mu + lambda) s_i^2 + 2 mu E_i + lambda trE, off-diagonal lambda s_i s_j */
static void Hessian_Fung(const void *ctx, const PetscReal s[3], PetscReal H[9])
{
  const Fung *p = (const Fung *)ctx;
  const PetscReal tr = 0.5 * (s[0] * s[0] + s[1] * s[1] + s[2] * s[2] - 3);
  PetscReal W, gW[3], h[3];

  Exponential(p, s, &W, gW, h);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const PetscReal HW =
          i == j ? (2 * p->mu + p->lambda) * s[i] * s[i] + p->mu * (s[i] * s[i] - 1) + p->lambda * tr : p->lambda * s[i] * s[j];
      H[3 * i + j] = h[1] * HW + h[2] * gW[i] * gW[j];
    }
}

/* flip_W = mu (s_i^2 + s_i s_j + s_j^2 - 1) + lambda trE, twist_W = mu (s_i^2 - s_i s_j + s_j^2 - 1) + lambda trE */
static void Quotients_Fung(const void *ctx, const PetscReal s[3], PetscReal flip[3], PetscReal twist[3])
{
  const Fung *p = (const Fung *)ctx;
  const PetscReal tr = 0.5 * (s[0] * s[0] + s[1] * s[1] + s[2] * s[2] - 3);
  PetscReal W, h[3];

  Exponential(p, s, &W, NULL, h);
  for (int k = 0; k < 3; k++) {
    const PetscReal a = s[SimIsotropicPairs[k][0]], c = s[SimIsotropicPairs[k][1]];
    flip[k] = h[1] * (p->mu * (a * a + a * c + c * c - 1) + p->lambda * tr);
    twist[k] = h[1] * (p->mu * (a * a - a * c + c * c - 1) + p->lambda * tr);
  }
}

static const SimMaterialModel fung = {
    .sigma = {.psi = Psi_Fung, .gradient = Gradient_Fung, .hessian = Hessian_Fung, .quotients = Quotients_Fung},
    .size = sizeof(Fung),
    .params = params_fung,
    .nparams = 1,
    .setup = Setup_Fung,
    .inversion_safe = PETSC_TRUE};

PetscErrorCode SimMaterialCreate_Fung(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &fung));
  PetscFunctionReturn(0);
}
