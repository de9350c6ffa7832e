/* A material from a plugin (tests/plugins/material_yeoh.c, a shared library built from one file)
 * passes the same conformance checks as the built-in materials, at its defaults and over its
 * declared parameter range, once loaded by name through -plugin's loader. */
#include "material_checks.h"
#include "framework/plugin.h"

START_TEST(plugin_material_conforms)
{
  SimRegistry reg;
  SimMaterial mat;
  const SimRegEntry *e;
  PetscReal F[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1}, psi;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryLookup(reg, SIM_KIND_MATERIAL, "yeoh", &e));
  ck_assert_ptr_null(e);
  CHECK_PETSC(SimPluginLoad(reg, PBSIM_PLUGIN_YEOH));
  CHECK_PETSC(SimRegistryFind(reg, SIM_KIND_MATERIAL, "yeoh", &e));
  CHECK_PETSC(SimMaterialCreate(reg, "yeoh", "body_", &mat));
  MaterialCheckAll(mat, 1, 1);
  CHECK_PETSC(SimMaterialEnergy(mat, 1, F, &psi));
  ck_assert_msg(PetscIsInfReal(psi) && psi > 0, "Yeoh energy of an inverted F is %g, expected +inf", (double)psi);
  CHECK_PETSC(SimMaterialDestroy(&mat));
  MaterialCheckRanges(reg, "yeoh", 1, 1, 91, 4);
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("plugin_material");
  TCase *tc = tcase_create("plugin");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, plugin_material_conforms);
  suite_add_tcase(s, tc);
  return s;
}
