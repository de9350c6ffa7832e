/* docs/materials.md "Adding a material" done for real: the worked example, materials/mooney_rivlin.c,
 * built here from that very file as a researcher's own material would be and registered from the
 * test; and the conformance suite catching a bug planted where only a non-default parameter shows it. */
#include <stddef.h>
#include "material_checks.h"

/* ---- the worked example, exactly the file (its constructor renamed: the library has its own) ---- */
#define SimMaterialCreate_MooneyRivlin SimMaterialCreate_MyMooneyRivlin
#include "materials/mooney_rivlin.c"
#undef SimMaterialCreate_MooneyRivlin

START_TEST(mooney_rivlin_as_a_plugin)
{
  SimRegistry reg;
  SimMaterial mat;
  PetscReal F[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1}, psi, ratio;
  PetscInt n;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryAdd(reg, SIM_KIND_MATERIAL, "my_mooney_rivlin", "compressible Mooney-Rivlin (docs/materials.md)",
                             (SimGenericFn)SimMaterialCreate_MyMooneyRivlin, 0));
  /* created by name, its options read under the body's prefix, like a built-in material */
  CHECK_PETSC(TestSetOptions("-flesh_youngs 3e5 -flesh_poisson 0.4 -flesh_my_mooney_rivlin_c01_ratio 0.25"));
  CHECK_PETSC(SimMaterialCreate(reg, "my_mooney_rivlin", "flesh_", &mat));
  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(SimMaterialGetParameter(mat, "c01_ratio", &n, &ratio));
  ck_assert(mat->par.youngs == 3e5 && mat->par.poisson == 0.4 && n == 1 && ratio == 0.25);
  {
    const MooneyRivlin *p = (const MooneyRivlin *)mat->data; /* the setup's constants */
    ck_assert(PetscAbsReal(p->c01 - 0.125 * mat->par.mu) < 1e-12 * mat->par.mu &&
              PetscAbsReal(p->c10 - 0.375 * mat->par.mu) < 1e-12 * mat->par.mu);
  }
  /* the conformance checks at these parameters, then over its declared range */
  MaterialCheckAll(mat, 1, 1);
  CHECK_PETSC(SimMaterialEnergy(mat, 1, F, &psi));
  ck_assert_msg(PetscIsInfReal(psi) && psi > 0, "Mooney-Rivlin energy of an inverted F is %g, expected +inf", (double)psi);
  CHECK_PETSC(SimMaterialDestroy(&mat));
  MaterialCheckRanges(reg, "my_mooney_rivlin", 1, 1, 77, 4);
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* ---- a planted bug that only a non-default parameter shows ----
 * psi = mu/2 (I_C - 3) - mu log J + lambda/2 (log J)^2 + k mu (I_C - 3)^3 / 3, in invariants: the
 * neo-Hookean plus a cubic term that vanishes to second order at rest, with k = 0 by default. The
 * planted version drops the factor 2 of d2/dI_C^2 of the cubic term, 2 k mu (I_C - 3): with k = 0
 * it is exactly the neo-Hookean, so every check at the defaults passes. */
typedef struct {
  PetscReal k;
  PetscReal mu, lambda;
} Cubic;

static const SimMaterialParam params_cubic[] = {
    {.name = "k",
     .help = "weight of the cubic term k mu (I_C - 3)^3 / 3",
     .n = 1,
     .def = {0},
     .lo = 0,
     .hi = 2,
     .offset = offsetof(Cubic, k)},
};

static PetscErrorCode Setup_Cubic(SimMaterial m)
{
  Cubic *p = (Cubic *)m->data;

  PetscFunctionBeginUser;
  p->mu = m->par.mu, p->lambda = m->par.lambda;
  PetscFunctionReturn(0);
}

static PetscBool Defined_Cubic(const void *ctx, const PetscReal inv[3])
{
  return (PetscBool)(inv[2] > 0);
}

static void Psi_Cubic(const void *ctx, const PetscReal inv[3], PetscReal *psi)
{
  const Cubic *p = (const Cubic *)ctx;
  const PetscReal t = inv[0] - 3, L = PetscLogReal(inv[2]);

  *psi = 0.5 * p->mu * t - p->mu * L + 0.5 * p->lambda * L * L + p->k * p->mu * t * t * t / 3;
}

static void Gradient_Cubic(const void *ctx, const PetscReal inv[3], PetscReal d[3])
{
  const Cubic *p = (const Cubic *)ctx;
  const PetscReal t = inv[0] - 3;

  d[0] = 0.5 * p->mu + p->k * p->mu * t * t;
  d[1] = 0;
  d[2] = (p->lambda * PetscLogReal(inv[2]) - p->mu) / inv[2];
}

static void HessianWith(const Cubic *p, const PetscReal inv[3], PetscReal factor, PetscReal D[9])
{
  for (int k = 0; k < 9; k++) D[k] = 0;
  D[0] = factor * p->k * p->mu * (inv[0] - 3);
  D[8] = (p->mu + p->lambda - p->lambda * PetscLogReal(inv[2])) / (inv[2] * inv[2]);
}

static void Hessian_Cubic(const void *ctx, const PetscReal inv[3], PetscReal D[9])
{
  HessianWith((const Cubic *)ctx, inv, 2, D);
}

static void Hessian_CubicPlanted(const void *ctx, const PetscReal inv[3], PetscReal D[9])
{
  HessianWith((const Cubic *)ctx, inv, 1, D); /* the planted bug: 1 instead of 2 */
}

static const SimMaterialModel cubic = {
    .invariants = {.defined = Defined_Cubic, .psi = Psi_Cubic, .gradient = Gradient_Cubic, .hessian = Hessian_Cubic},
    .size = sizeof(Cubic),
    .params = params_cubic,
    .nparams = 1,
    .setup = Setup_Cubic};
static const SimMaterialModel cubic_planted = {
    .invariants = {.defined = Defined_Cubic, .psi = Psi_Cubic, .gradient = Gradient_Cubic, .hessian = Hessian_CubicPlanted},
    .size = sizeof(Cubic),
    .params = params_cubic,
    .nparams = 1,
    .setup = Setup_Cubic};

static PetscErrorCode SimMaterialCreate_Cubic(SimMaterial m)
{
  return SimMaterialSetModel(m, &cubic);
}

static PetscErrorCode SimMaterialCreate_CubicPlanted(SimMaterial m)
{
  return SimMaterialSetModel(m, &cubic_planted);
}

START_TEST(planted_bug_at_a_non_default_parameter)
{
  const PetscReal sets[][2] = {{1e5, 0.3}, {2e6, 0.45}, {5e4, -0.3}}; /* those of test_materials */
  SimRegistry reg;
  MaterialCheckReport defaults = {0}, ranges = {0}, correct = {0};

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryAdd(reg, SIM_KIND_MATERIAL, "cubic", "neo-Hookean + k mu (I_C - 3)^3/3",
                             (SimGenericFn)SimMaterialCreate_Cubic, 0));
  CHECK_PETSC(SimRegistryAdd(reg, SIM_KIND_MATERIAL, "cubic_planted", "the same with a bug in d2psi/dI_C^2",
                             (SimGenericFn)SimMaterialCreate_CubicPlanted, 0));
  /* at its defaults (k = 0) the planted material passes every check */
  for (size_t q = 0; q < sizeof(sets) / sizeof(sets[0]); q++) {
    SimMaterial mat;
    CHECK_PETSC(SimMaterialCreateWithParams(reg, "cubic_planted", sets[q][0], sets[q][1], 1000, &mat));
    MaterialCheckAllReport(mat, 1, 1, &defaults);
    CHECK_PETSC(SimMaterialDestroy(&mat));
  }
  ck_assert_msg(defaults.failures == 0, "the planted bug should be invisible at k = 0:\n%s", defaults.text);
  /* over the declared range of k the checker reports it, naming the drawn k */
  MaterialCheckRangesReport(reg, "cubic_planted", 1, 1, 5, 3, &ranges);
  ck_assert_msg(ranges.failures > 0, "the conformance suite missed a bug at k != 0");
  ck_assert_msg(strstr(ranges.text, "cubic_planted at the drawn parameters") && strstr(ranges.text, " k ") &&
                    strstr(ranges.text, "dP/dF differs from finite differences of P"),
                "the report should name the drawn k and the failing check:\n%s", ranges.text);
  { /* what the checker says (its first two lines), for the log and docs/materials.md */
    const char *second = strchr(ranges.text, '\n');
    second = second ? strchr(second + 1, '\n') : NULL;
    CHECK_PETSC(PetscPrintf(PETSC_COMM_SELF, "planted bug, the checker reports:\n%.*s\n", second ? (int)(second - ranges.text) : 400,
                            ranges.text));
  }
  /* and the correct material passes the same draws: the failures are the bug's */
  MaterialCheckRangesReport(reg, "cubic", 1, 1, 5, 3, &correct);
  ck_assert_msg(correct.failures == 0, "the correct material fails:\n%s", correct.text);
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
  tcase_add_test(tc, mooney_rivlin_as_a_plugin);
  tcase_add_test(tc, planted_bug_at_a_non_default_parameter);
  tcase_add_test(tc, generic_quotients);
  suite_add_tcase(s, tc);
  return s;
}
