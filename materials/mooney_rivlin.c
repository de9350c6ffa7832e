/* Compressible Mooney-Rivlin: psi = C10 (Ibar_C - 3) + C01 (IIbar_C - 3) + kappa/2 (J - 1)^2, in invariants. */
#include <stddef.h>
#include "framework/material_model.h"

/* Mooney 1940, Rivlin 1948; the compressible form with isochoric invariants (e.g. Bonet & Wood 2008):
 *   psi = C10 (Ibar_C - 3) + C01 (IIbar_C - 3) + kappa/2 (J - 1)^2,
 *   Ibar_C = J^(-2/3) I_C,  IIbar_C = J^(-4/3) II_C  (isochoric invariants, framework/linalg/isotropic.h).
 * At small strain it is linear elasticity with shear modulus 2 (C10 + C01) and bulk modulus kappa, so
 * the material keeps E and nu as its small-strain moduli: C10 + C01 = mu/2, kappa = lambda + 2/3 mu,
 * and its one parameter is how the shear stiffness splits between the two invariants,
 * c01_ratio = C01 / (C10 + C01) (0: an isochoric neo-Hookean solid).
 * Undefined for J <= 0 (J^(-2/3)): psi = +inf there. */
typedef struct {
  PetscReal c01_ratio;       /* the parameter */
  PetscReal c10, c01, kappa; /* derived by the setup */
} MooneyRivlin;

static const SimMaterialParam params_mooney_rivlin[] = {
    {.name = "c01_ratio",
     .help = "C01 / (C10 + C01): the share of the shear modulus in the second invariant",
     .n = 1,
     .def = {0},
     .lo = 0,
     .hi = 1,
     .offset = offsetof(MooneyRivlin, c01_ratio)},
};

static PetscErrorCode Setup_MooneyRivlin(SimMaterial m)
{
  MooneyRivlin *p = (MooneyRivlin *)m->data;

  PetscFunctionBeginUser;
  p->c01 = 0.5 * m->par.mu * p->c01_ratio;
  p->c10 = 0.5 * m->par.mu - p->c01;
  p->kappa = m->par.lambda + 2.0 / 3.0 * m->par.mu;
  PetscFunctionReturn(0);
}

static PetscBool Defined_MooneyRivlin(const void *ctx, const PetscReal inv[3])
{
  return (PetscBool)(inv[2] > 0);
}

/* inv = (I_C, II_C, J); a = J^(-2/3), b = J^(-4/3) */
static void Psi_MooneyRivlin(const void *ctx, const PetscReal inv[3], PetscReal *psi)
{
  const MooneyRivlin *p = (const MooneyRivlin *)ctx;
  const PetscReal a = PetscPowReal(inv[2], -2.0 / 3.0), b = a * a;

  *psi = p->c10 * (a * inv[0] - 3) + p->c01 * (b * inv[1] - 3) + 0.5 * p->kappa * (inv[2] - 1) * (inv[2] - 1);
}

/* d = dpsi/d(I_C, II_C, J) = (C10 a, C01 b, -2/3 C10 a I_C / J - 4/3 C01 b II_C / J + kappa (J - 1)) */
static void Gradient_MooneyRivlin(const void *ctx, const PetscReal inv[3], PetscReal d[3])
{
  const MooneyRivlin *p = (const MooneyRivlin *)ctx;
  const PetscReal J = inv[2], a = PetscPowReal(J, -2.0 / 3.0), b = a * a;

  d[0] = p->c10 * a;
  d[1] = p->c01 * b;
  d[2] = (-2.0 / 3.0 * p->c10 * a * inv[0] - 4.0 / 3.0 * p->c01 * b * inv[1]) / J + p->kappa * (J - 1);
}

/* D = d2psi/dinv2: D_02 = -2/3 C10 a / J, D_12 = -4/3 C01 b / J,
 * D_22 = (10/9 C10 a I_C + 28/9 C01 b II_C) / J^2 + kappa, the rest 0 */
static void Hessian_MooneyRivlin(const void *ctx, const PetscReal inv[3], PetscReal D[9])
{
  const MooneyRivlin *p = (const MooneyRivlin *)ctx;
  const PetscReal J = inv[2], a = PetscPowReal(J, -2.0 / 3.0), b = a * a;

  for (int k = 0; k < 9; k++) D[k] = 0;
  D[2] = D[6] = -2.0 / 3.0 * p->c10 * a / J;
  D[5] = D[7] = -4.0 / 3.0 * p->c01 * b / J;
  D[8] = (10.0 / 9.0 * p->c10 * a * inv[0] + 28.0 / 9.0 * p->c01 * b * inv[1]) / (J * J) + p->kappa;
}

static const SimMaterialModel mooney_rivlin = {.invariants = {.defined = Defined_MooneyRivlin,
                                                              .psi = Psi_MooneyRivlin,
                                                              .gradient = Gradient_MooneyRivlin,
                                                              .hessian = Hessian_MooneyRivlin},
                                               .size = sizeof(MooneyRivlin),
                                               .params = params_mooney_rivlin,
                                               .nparams = 1,
                                               .setup = Setup_MooneyRivlin,
                                               .inversion_safe = PETSC_FALSE};

PetscErrorCode SimMaterialCreate_MooneyRivlin(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &mooney_rivlin));
  PetscFunctionReturn(0);
}
