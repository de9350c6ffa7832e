/* docs/materials.md "adding a material" done for real: a Hencky (logarithmic strain) material
 * defined only in this file, registered from the test, passes the same checks as the built-in ones
 * (it supplies no closed-form quotients, so the generic flip/twist limits are tested too). */
#include "material_checks.h"
#include "framework/linalg/isotropic.h"

/* ---- the whole material: energy in singular values, ops, constructor ---- */

/* Hencky 1933 / e.g. Xu et al. 2015: psi = mu |log S|^2 + lambda/2 tr(log S)^2 with the
 * logarithmic strain log S = V diag(log s) V^T; in singular values, with L_i = log s_i:
 *   psi(s) = mu sum L_i^2 + lambda/2 (sum L_i)^2, defined for s_i > 0 (J > 0) only. */
static PetscBool DefinedSigma_Hencky(const void *ctx, const PetscReal s[3])
{
  return (PetscBool)(s[0] > 0 && s[1] > 0 && s[2] > 0);
}

static void PsiSigma_Hencky(const void *ctx, const PetscReal s[3], PetscReal *psi)
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal L0 = PetscLogReal(s[0]), L1 = PetscLogReal(s[1]), L2 = PetscLogReal(s[2]), tr = L0 + L1 + L2;

  *psi = p->mu * (L0 * L0 + L1 * L1 + L2 * L2) + 0.5 * p->lambda * tr * tr;
}

/* g_i = (2 mu L_i + lambda trL) / s_i */
static void GradientSigma_Hencky(const void *ctx, const PetscReal s[3], PetscReal g[3])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal tr = PetscLogReal(s[0] * s[1] * s[2]);

  for (int i = 0; i < 3; i++) g[i] = (2 * p->mu * PetscLogReal(s[i]) + p->lambda * tr) / s[i];
}

/* H_ii = (2 mu + lambda - 2 mu L_i - lambda trL) / s_i^2,  H_ij = lambda / (s_i s_j) */
static void HessianSigma_Hencky(const void *ctx, const PetscReal s[3], PetscReal H[9])
{
  const SimMaterialParams *p = (const SimMaterialParams *)ctx;
  const PetscReal tr = PetscLogReal(s[0] * s[1] * s[2]);

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      H[3 * i + j] = i == j ? (2 * p->mu + p->lambda - 2 * p->mu * PetscLogReal(s[i]) - p->lambda * tr) / (s[i] * s[i])
                            : p->lambda / (s[i] * s[j]);
}

/* no .quotients: SimIsotropicQuotients derives flip/twist from g and H */
static const SimIsotropicEnergy energy_hencky = {.name = "hencky",
                                                 .defined = DefinedSigma_Hencky,
                                                 .psi = PsiSigma_Hencky,
                                                 .gradient = GradientSigma_Hencky,
                                                 .hessian = HessianSigma_Hencky};

static PetscErrorCode Energy_Hencky(SimMaterial m, PetscInt n, const PetscReal *F, PetscReal *psi)
{
  PetscFunctionBeginUser;
  PetscCall(SimIsotropicEvaluate(&energy_hencky, &m->par, n, F, psi, NULL, NULL, PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode PK1_Hencky(SimMaterial m, PetscInt n, const PetscReal *F, PetscReal *P)
{
  PetscFunctionBeginUser;
  PetscCall(SimIsotropicEvaluate(&energy_hencky, &m->par, n, F, NULL, P, NULL, PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode Hessian_Hencky(SimMaterial m, PetscInt n, const PetscReal *F, PetscBool psd, PetscReal *dPdF)
{
  PetscFunctionBeginUser;
  PetscCall(SimIsotropicEvaluate(&energy_hencky, &m->par, n, F, NULL, NULL, dPdF, psd));
  PetscFunctionReturn(0);
}

static PetscErrorCode SimMaterialCreate_Hencky(SimMaterial m)
{
  static const SimMaterialOps ops = {.energy = Energy_Hencky, .pk1 = PK1_Hencky, .hessian = Hessian_Hencky};

  PetscFunctionBeginUser;
  m->ops = ops;
  m->inversion_safe = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* ---- the test: register it and use it like any other material ---- */

START_TEST(hencky_conformance)
{
  SimRegistry reg;
  SimMaterial mat;
  PetscReal F[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1}, psi;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryAdd(reg, SIM_KIND_MATERIAL, "hencky", "Hencky mu |log S|^2 + lambda/2 tr(log S)^2 (test plugin)",
                             (SimGenericFn)SimMaterialCreate_Hencky, 0));
  /* created by name, options read under its prefix, like a built-in material */
  CHECK_PETSC(TestSetOptions("-flesh_youngs 3e5 -flesh_poisson 0.4"));
  CHECK_PETSC(SimMaterialCreate(reg, "hencky", "flesh_", &mat));
  CHECK_PETSC(TestSetOptions(NULL));
  ck_assert(mat->par.youngs == 3e5 && mat->par.poisson == 0.4);
  /* Hencky reduces to linear elasticity at rest (log s ~ s - 1) */
  MaterialCheckAll(mat, 1, 1);
  CHECK_PETSC(SimMaterialEnergy(mat, 1, F, &psi));
  ck_assert_msg(PetscIsInfReal(psi) && psi > 0, "Hencky energy of an inverted F is %g, expected +inf", (double)psi);
  CHECK_PETSC(SimMaterialDestroy(&mat));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* The generic quotients against the exact ones at nearly repeated singular values (s_i ~ s_j) and
 * nearly opposite ones (s_i ~ -s_j): for psi = sum s_i^4 / 4, g_i = s_i^3, the flip quotient is
 * s_i^2 + s_i s_j + s_j^2 and the twist quotient s_i^2 - s_i s_j + s_j^2. */
START_TEST(generic_quotients)
{
  const PetscReal base = 1.3;
  const PetscReal gaps[] = {0, 1e-14, 1e-10, 1e-7, 5e-6, 1e-5, 1e-3, 0.1};

  for (size_t k = 0; k < 2 * sizeof(gaps) / sizeof(gaps[0]); k++) {
    const PetscReal gap = gaps[k % (sizeof(gaps) / sizeof(gaps[0]))];
    const PetscReal s[3] = {k < sizeof(gaps) / sizeof(gaps[0]) ? base + gap : base,
                            k < sizeof(gaps) / sizeof(gaps[0]) ? base : 0.4,
                            k < sizeof(gaps) / sizeof(gaps[0]) ? 0.4 : -0.4 + gap};
    PetscReal g[3], H[9] = {0}, flip[3], twist[3];
    for (int i = 0; i < 3; i++) g[i] = s[i] * s[i] * s[i], H[4 * i] = 3 * s[i] * s[i];
    SimIsotropicQuotients(s, g, H, flip, twist);
    for (int p = 0; p < 3; p++) {
      const PetscReal a = s[SimIsotropicPairs[p][0]], b = s[SimIsotropicPairs[p][1]];
      const PetscReal fx = a * a + a * b + b * b, tx = a * a - a * b + b * b;
      ck_assert_msg(PetscAbsReal(flip[p] - fx) < 1e-9 * fx, "gap %g pair %d: flip %.17g, exact %.17g", (double)gap, p,
                    (double)flip[p], (double)fx);
      ck_assert_msg(PetscAbsReal(twist[p] - tx) < 1e-9 * fx, "gap %g pair %d: twist %.17g, exact %.17g", (double)gap, p,
                    (double)twist[p], (double)tx);
    }
  }
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("add_material");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, hencky_conformance);
  tcase_add_test(tc, generic_quotients);
  suite_add_tcase(s, tc);
  return s;
}
