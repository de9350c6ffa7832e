/* Issue 21: the six built-in materials rewritten on SimMaterialSetModel give the values of the
 * code they replace. The previous files (tests/unit/legacy/, wrappers included, as they were on
 * main) are compiled here under other names and compared with the registered materials. */
#include "material_checks.h"
#include "framework/linalg/isotropic.h"

#define SimMaterialCreate_StVK Legacy_StVK
#define SimMaterialCreate_Corotated Legacy_Corotated
#define SimMaterialCreate_FixedCorotated Legacy_FixedCorotated
#define SimMaterialCreate_NeoHookean Legacy_NeoHookean
#define SimMaterialCreate_StableNeoHookean Legacy_StableNeoHookean
#define SimMaterialCreate_ARAP Legacy_ARAP
#include "legacy/stvk.c"
#include "legacy/corotated.c"
#include "legacy/fixed_corotated.c"
#include "legacy/neohookean.c"
#include "legacy/stable_neohookean.c"
#include "legacy/arap.c"

static const struct {
  const char *name;
  PetscErrorCode (*legacy)(SimMaterial);
} pairs[] = {{"stvk", Legacy_StVK},
             {"corotated", Legacy_Corotated},
             {"fixed_corotated", Legacy_FixedCorotated},
             {"neohookean", Legacy_NeoHookean},
             {"stable_neohookean", Legacy_StableNeoHookean},
             {"arap", Legacy_ARAP}};

/* max |a - b| / max(|b|, tiny) over k entries */
static PetscReal RelDiff(const PetscReal *a, const PetscReal *b, PetscInt k)
{
  PetscReal d = 0, m = 0;
  for (PetscInt i = 0; i < k; i++) d = PetscMax(d, PetscAbsReal(a[i] - b[i])), m = PetscMax(m, PetscAbsReal(b[i]));
  return m > 0 ? d / m : d;
}

START_TEST(rewrite_matches_legacy)
{
  const PetscReal params[][4] = {
      {1e5, 0.3, 1, 1}, {2e6, 0.45, 1, 1}, {5e4, -0.3, 1, 1}, {3e3, 0.49, 0.8, 1.2}, {7e7, 0.1, 0.95, 1.02}};
  SimRegistry reg;
  MaterialTestSet set;
  PetscReal worst = 0;

  CHECK_PETSC(TestRegistryCreate(&reg));
  for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
    char old[64];
    snprintf(old, sizeof(old), "legacy_%s", pairs[k].name);
    CHECK_PETSC(SimRegistryAdd(reg, SIM_KIND_MATERIAL, old, "the material before the rewrite", (SimGenericFn)pairs[k].legacy, 0));
  }
  CHECK_PETSC(MaterialTestSetCreate(31, PETSC_TRUE, &set));
  for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)
    for (size_t q = 0; q < sizeof(params) / sizeof(params[0]); q++) {
      SimMaterial a, b;
      char old[64];
      PetscReal psi[2][MC_MAX_F], P[2][9 * MC_MAX_F], H[2][81 * MC_MAX_F], Hp[2][81 * MC_MAX_F];
      PetscInt n = set.n;

      snprintf(old, sizeof(old), "legacy_%s", pairs[k].name);
      CHECK_PETSC(SimMaterialCreateWithParams(reg, pairs[k].name, params[q][0], params[q][1], 1000, &a));
      CHECK_PETSC(SimMaterialCreateWithParams(reg, old, params[q][0], params[q][1], 1000, &b));
      a->par.strain_min = b->par.strain_min = params[q][2]; /* read by arap only */
      a->par.strain_max = b->par.strain_max = params[q][3];
      ck_assert(a->inversion_safe == b->inversion_safe);
      if (!a->inversion_safe) n = 18; /* the first 18 cases have J > 0 */
      CHECK_PETSC(SimMaterialEnergy(a, set.n, &set.F[0][0], psi[0]));
      CHECK_PETSC(SimMaterialEnergy(b, set.n, &set.F[0][0], psi[1]));
      CHECK_PETSC(SimMaterialPK1(a, n, &set.F[0][0], P[0]));
      CHECK_PETSC(SimMaterialPK1(b, n, &set.F[0][0], P[1]));
      CHECK_PETSC(SimMaterialHessian(a, n, &set.F[0][0], PETSC_FALSE, H[0]));
      CHECK_PETSC(SimMaterialHessian(b, n, &set.F[0][0], PETSC_FALSE, H[1]));
      CHECK_PETSC(SimMaterialHessian(a, n, &set.F[0][0], PETSC_TRUE, Hp[0]));
      CHECK_PETSC(SimMaterialHessian(b, n, &set.F[0][0], PETSC_TRUE, Hp[1]));
      for (PetscInt c = 0; c < set.n; c++) {
        const PetscReal d[4] = {
            psi[0][c] == psi[1][c] ? 0 : RelDiff(&psi[0][c], &psi[1][c], 1), c < n ? RelDiff(P[0] + 9 * c, P[1] + 9 * c, 9) : 0,
            c < n ? RelDiff(H[0] + 81 * c, H[1] + 81 * c, 81) : 0, c < n ? RelDiff(Hp[0] + 81 * c, Hp[1] + 81 * c, 81) : 0};
        for (int t = 0; t < 4; t++) {
          worst = PetscMax(worst, d[t]);
          ck_assert_msg(d[t] <= 1e-14, "%s (E %g, nu %g), %s: %s differs from the legacy code by %g (relative)", pairs[k].name,
                        params[q][0], params[q][1], set.label[c],
                        t == 0   ? "psi"
                        : t == 1 ? "P"
                        : t == 2 ? "dP/dF"
                                 : "projected dP/dF",
                        (double)d[t]);
        }
      }
      CHECK_PETSC(SimMaterialDestroy(&a));
      CHECK_PETSC(SimMaterialDestroy(&b));
    }
  CHECK_PETSC(PetscPrintf(PETSC_COMM_SELF, "rewrite vs legacy: largest relative difference %g\n", (double)worst));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("material_rewrite");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, rewrite_matches_legacy);
  suite_add_tcase(s, tc);
  return s;
}
