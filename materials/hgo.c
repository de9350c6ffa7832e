/* Holzapfel-Gasser-Ogden fibre term on a stable neo-Hookean matrix: the first anisotropic material, in invariants plus I4. */
#include <math.h>
#include <stddef.h>
#include "framework/material_model.h"

/* Holzapfel, Gasser, Ogden 2000 ("A new constitutive framework for arterial wall mechanics and a
 * comparative study of material models", J. Elasticity 61): one family of collagen fibres along the unit
 * reference direction a adds
 *   psi_f = k1 / (2 k2) (exp(k2 (I4 - 1)^2) - 1),  I4 = a^T C a = |F a|^2,
 * active only where the fibres are stretched, I4 > 1 (they buckle rather than bear compression; beyond
 * round-off, 1 + 8 eps, so that the rest state and rotations are fibre-free for certain):
 *   dpsi_f/dI4 = k1 x e,  d2psi_f/dI4^2 = k1 (1 + 2 k2 x^2) e,  x = I4 - 1, e = exp(k2 x^2)
 * (k2 -> 0: psi_f = k1 x^2 / 2). P and dP/dF of the term, and the exact PSD projection of the sum, are
 * the helper's (framework/linalg/isotropic.h, SimFibreAddPK1/AddHessian). At rest the fibres add no
 * stiffness (their tangent jumps from 0 to 4 k1 a a a a as they engage), so dP/dF(I) is the matrix's.
 * The matrix is the stable neo-Hookean of materials/stable_neohookean.c written in invariants,
 *   psi_m = mu'/2 (I_C - 3) + lambda'/2 (J - alpha)^2 - mu'/2 log(I_C + 1) - psi0
 * (HGO 2000 use an isochoric neo-Hookean; this one keeps the material inversion-safe), with
 * E, nu its small-strain moduli. Parameters: k1 relative to mu (k1_ratio), k2, and a per body
 * (-<prefix>hgo_fiber, normalized); per element, rotate each element's material frame
 * (SimFEMSetMaterialFrames, energies/fem.h). */
typedef struct {
  PetscReal fiber[3];                    /* a: the parameter, then normalized */
  PetscReal k1_ratio, k2;                /* parameters */
  PetscReal k1, mu, lambda, alpha, psi0; /* derived: k1 in Pa, the matrix's mu', lambda', alpha, psi0 */
} HGO;

static const SimMaterialParam params_hgo[] = {
    {.name = "k1_ratio",
     .help = "fibre stiffness k1 / mu",
     .n = 1,
     .def = {2},
     .lo = 0,
     .hi = 10,
     .offset = offsetof(HGO, k1_ratio)},
    {.name = "k2",
     .help = "fibre exponent k2 (dimensionless; 0: quadratic fibres)",
     .n = 1,
     .def = {1},
     .lo = 0,
     .hi = 10,
     .offset = offsetof(HGO, k2)},
    {.name = "fiber",
     .help = "fibre direction a in the reference frame: x,y,z components, normalized",
     .n = 3,
     .def = {1, 0, 0},
     .lo = -1,
     .hi = 1,
     .offset = offsetof(HGO, fiber)},
};

static PetscErrorCode Setup_HGO(SimMaterial m)
{
  HGO *p = (HGO *)m->data;
  const PetscReal norm = PetscSqrtReal(p->fiber[0] * p->fiber[0] + p->fiber[1] * p->fiber[1] + p->fiber[2] * p->fiber[2]);
  char opt[160];

  PetscFunctionBeginUser;
  PetscCall(SimMaterialOptionName(m, "fiber", opt, sizeof(opt)));
  PetscCheck(norm >= 1e-3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Material '%s': %s (%g, %g, %g) is not a direction (length %g)", m->name, opt, (double)p->fiber[0],
             (double)p->fiber[1], (double)p->fiber[2], (double)norm);
  for (int d = 0; d < 3; d++) p->fiber[d] /= norm;
  p->k1 = p->k1_ratio * m->par.mu;
  p->mu = 4.0 / 3.0 * m->par.mu; /* the stable neo-Hookean's constants */
  p->lambda = m->par.lambda + 5.0 / 6.0 * m->par.mu;
  p->alpha = 1 + 0.75 * p->mu / p->lambda;
  p->psi0 = 0.5 * p->lambda * (1 - p->alpha) * (1 - p->alpha) - 0.5 * p->mu * PetscLogReal(4.0);
  PetscFunctionReturn(0);
}

/* the matrix: inv = (I_C, II_C, J) */
static void Psi_HGO(const void *ctx, const PetscReal inv[3], PetscReal *psi)
{
  const HGO *p = (const HGO *)ctx;

  *psi = 0.5 * p->mu * (inv[0] - 3) + 0.5 * p->lambda * (inv[2] - p->alpha) * (inv[2] - p->alpha) -
         0.5 * p->mu * PetscLogReal(inv[0] + 1) - p->psi0;
}

/* d = (mu'/2 (1 - 1/(I_C + 1)), 0, lambda' (J - alpha)) */
static void Gradient_HGO(const void *ctx, const PetscReal inv[3], PetscReal d[3])
{
  const HGO *p = (const HGO *)ctx;

  d[0] = 0.5 * p->mu * (1 - 1 / (inv[0] + 1));
  d[1] = 0;
  d[2] = p->lambda * (inv[2] - p->alpha);
}

/* D_00 = mu'/2 / (I_C + 1)^2, D_22 = lambda', the rest 0 */
static void Hessian_HGO(const void *ctx, const PetscReal inv[3], PetscReal D[9])
{
  const HGO *p = (const HGO *)ctx;

  for (int k = 0; k < 9; k++) D[k] = 0;
  D[0] = 0.5 * p->mu / ((inv[0] + 1) * (inv[0] + 1));
  D[8] = p->lambda;
}

/* the fibres: (psi_f, psi_f', psi_f'') at I4 */
static void Fibre_HGO(const void *ctx, PetscReal I4, PetscReal d[3])
{
  const HGO *p = (const HGO *)ctx;
  const PetscReal x = I4 - 1, t = p->k2 * x * x, e = PetscExpReal(t);

  if (!(x > 8 * PETSC_MACHINE_EPSILON)) { /* compressed (or at rest): the fibres carry nothing */
    d[0] = d[1] = d[2] = 0;
    return;
  }
  d[0] = t != 0 ? 0.5 * p->k1 * x * x * expm1(t) / t : 0.5 * p->k1 * x * x; /* k1/(2 k2) expm1(k2 x^2) */
  d[1] = p->k1 * x * e;
  d[2] = p->k1 * (1 + 2 * t) * e;
}

static const SimMaterialModel hgo = {.invariants = {.psi = Psi_HGO, .gradient = Gradient_HGO, .hessian = Hessian_HGO},
                                     .fibre = {.psi = Fibre_HGO, .direction = offsetof(HGO, fiber)},
                                     .size = sizeof(HGO),
                                     .params = params_hgo,
                                     .nparams = 3,
                                     .setup = Setup_HGO,
                                     .inversion_safe = PETSC_TRUE};

PetscErrorCode SimMaterialCreate_HGO(SimMaterial m)
{
  PetscFunctionBeginUser;
  PetscCall(SimMaterialSetModel(m, &hgo));
  PetscFunctionReturn(0);
}
