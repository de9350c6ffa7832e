/* A material a researcher adds without rebuilding pbsim: the Yeoh model as a plugin, one file of
 * maths plus its registration (issue 10's acceptance 5). Built as a shared library by
 * tests/cli/plugins.cmake, loaded with -plugin; test_plugin_material runs the conformance suite on it.
 *
 * Yeoh 1993, in the decoupled compressible form (Bonet & Wood 2008, 6.6):
 *   psi = C1 (Ibar_C - 3) + C2 (Ibar_C - 3)^2 + kappa/2 (J - 1)^2,   Ibar_C = J^(-2/3) I_C,
 * with C1 = mu/2 and kappa = lambda + 2/3 mu (linear elasticity at small strain), and the one
 * parameter c2_ratio = C2 / C1, the stiffening of rubber at large stretch. Undefined for J <= 0. */
#include <stddef.h>
#include "framework/material_model.h"
#include "framework/plugin.h"

typedef struct {
  PetscReal c2_ratio;     /* the parameter */
  PetscReal c1, c2, kappa; /* derived by the setup */
} Yeoh;

static const SimMaterialParam params_yeoh[] = {
    {.name = "c2_ratio", .help = "C2 / C1: the quadratic stiffening in (Ibar_C - 3)", .n = 1, .def = {0.1}, .lo = 0, .hi = 1, .offset = offsetof(Yeoh, c2_ratio)},
};

static PetscErrorCode Setup_Yeoh(SimMaterial m)
{
  Yeoh *p = (Yeoh *)m->data;

  PetscFunctionBeginUser;
  p->c1 = 0.5 * m->par.mu;
  p->c2 = p->c2_ratio * p->c1;
  p->kappa = m->par.lambda + 2.0 / 3.0 * m->par.mu;
  PetscFunctionReturn(0);
}

static PetscBool Defined_Yeoh(const void *ctx, const PetscReal inv[3])
{
  return (PetscBool)(inv[2] > 0);
}

/* inv = (I_C, II_C, J); a = J^(-2/3), t = a I_C - 3, g = dpsi/dt = C1 + 2 C2 t */
static void Psi_Yeoh(const void *ctx, const PetscReal inv[3], PetscReal *psi)
{
  const Yeoh *p = (const Yeoh *)ctx;
  const PetscReal t = PetscPowReal(inv[2], -2.0 / 3.0) * inv[0] - 3;

  *psi = p->c1 * t + p->c2 * t * t + 0.5 * p->kappa * (inv[2] - 1) * (inv[2] - 1);
}

/* d = (g a, 0, -2/3 g a I_C / J + kappa (J - 1)) */
static void Gradient_Yeoh(const void *ctx, const PetscReal inv[3], PetscReal d[3])
{
  const Yeoh *p = (const Yeoh *)ctx;
  const PetscReal J = inv[2], a = PetscPowReal(J, -2.0 / 3.0), g = p->c1 + 2 * p->c2 * (a * inv[0] - 3);

  d[0] = g * a;
  d[1] = 0;
  d[2] = -2.0 / 3.0 * g * a * inv[0] / J + p->kappa * (J - 1);
}

/* D_00 = 2 C2 a^2, D_02 = -2/3 (a / J)(2 C2 a I_C + g),
 * D_22 = 8/9 C2 a^2 I_C^2 / J^2 + 10/9 g a I_C / J^2 + kappa, the rest 0 */
static void Hessian_Yeoh(const void *ctx, const PetscReal inv[3], PetscReal D[9])
{
  const Yeoh *p = (const Yeoh *)ctx;
  const PetscReal ic = inv[0], J = inv[2], a = PetscPowReal(J, -2.0 / 3.0), g = p->c1 + 2 * p->c2 * (a * ic - 3);

  for (int k = 0; k < 9; k++) D[k] = 0;
  D[0] = 2 * p->c2 * a * a;
  D[2] = D[6] = -2.0 / 3.0 * a / J * (2 * p->c2 * a * ic + g);
  D[8] = 8.0 / 9.0 * p->c2 * a * a * ic * ic / (J * J) + 10.0 / 9.0 * g * a * ic / (J * J) + p->kappa;
}

static const SimMaterialModel yeoh = {.invariants = {.defined = Defined_Yeoh, .psi = Psi_Yeoh, .gradient = Gradient_Yeoh, .hessian = Hessian_Yeoh},
                                      .size = sizeof(Yeoh),
                                      .params = params_yeoh,
                                      .nparams = 1,
                                      .setup = Setup_Yeoh,
                                      .inversion_safe = PETSC_FALSE};

static PetscErrorCode SimMaterialCreate_Yeoh(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &yeoh));
  PetscFunctionReturn(0);
}

PetscErrorCode PbsimPluginRegister(SimRegistry reg)
{
  PetscFunctionBeginUser;
  PetscCall(SimRegistryAdd(reg, SIM_KIND_MATERIAL, "yeoh", "Yeoh C1 (Ibar - 3) + C2 (Ibar - 3)^2 + kappa/2 (J - 1)^2 (plugin)",
                           (SimGenericFn)SimMaterialCreate_Yeoh, 0));
  PetscFunctionReturn(0);
}
