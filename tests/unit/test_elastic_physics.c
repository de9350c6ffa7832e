/* Elastic models against continuum theory: the quadratic bending energy of a sheet rolled into a
 * cylinder (proportional to 1/R^2, independent of the mesh in the limit), and every material's
 * rest tensor under uniaxial stress (the Young's modulus and Poisson ratio it was built with). */
#include "testing.h"
#include "framework/material.h"

/* Bending energy of the cloth's n x n sheet (1 m x 1 m, -cloth_model fem, bending kb) rolled onto a
 * cylinder of radius R about an axis along z: x = R sin(u/R), y = R (1 - cos(u/R)) for the sheet
 * coordinate u. The rolling is an isometry of the continuum sheet (its membrane energy only sees
 * the chords). */
static PetscReal CylinderBending(PetscInt n, PetscReal R, PetscReal kb)
{
  TestSim s;
  char opts[256];
  SimEnergyReport rep;
  PetscScalar *x;
  PetscReal Eb = -1;

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts),
                            "-cloth_n %d -cloth_pin none -cloth_model fem -cloth_bending %g -gravity 0,0,0 -colliders none",
                            (int)n, (double)kb));
  CHECK_PETSC(TestSimCreate("cloth", NULL, opts, &s));
  CHECK_PETSC(VecGetArray(s.model->x, &x));
  for (PetscInt i = 0; i < s.model->nv; i++) {
    const PetscReal th = x[3 * i] / R;
    x[3 * i] = R * PetscSinReal(th);
    x[3 * i + 1] += R * (1 - PetscCosReal(th));
  }
  CHECK_PETSC(VecRestoreArray(s.model->x, &x));
  CHECK_PETSC(SimModelReport(s.model, s.model->x, s.model->v, &rep));
  for (PetscInt t = 0; t < rep.nterms; t++)
    if (!strcmp(rep.term_name[t], "bending")) Eb = rep.term[t];
  ck_assert_msg(Eb >= 0, "the fem cloth has no 'bending' term");
  CHECK_PETSC(TestSimDestroy(&s));
  return Eb;
}

/* The continuum energy of a plate of bending rigidity D rolled to radius R is D/2 kappa^2 A =
 * D A / (2 R^2). Bergou et al.'s hinge weights 3 kb / (A1 + A2) make the discrete energy converge
 * (first order: the boundary hinges) to 3 kb A / (2 R^2), i.e. D = 3 kb. Asserted: exact 1/R^2
 * scaling, proportionality to kb, and the refinement limit (Richardson from n = 17, 33) within 1%. */
START_TEST(bending_energy_of_a_cylinder)
{
  const PetscReal kb = 1e-3, A = 1.0;
  PetscReal e17 = CylinderBending(17, 1.0, kb), e33 = CylinderBending(33, 1.0, kb), lim = 2 * e33 - e17;

  printf("  cylinder R = 1 m, kb = %g N m: E(n=17) = %.6e, E(n=33) = %.6e J, limit %.6e J = %.4f kb A / (2 R^2)\n", (double)kb,
         (double)e17, (double)e33, (double)lim, (double)(lim / (kb * A / 2)));
  ck_assert_msg(PetscAbsReal(lim / (3 * kb * A / 2) - 1) < 0.01,
                "bending energy of the cylinder converges to %g J, expected 3 kb A / (2 R^2) = %g J", (double)lim,
                (double)(3 * kb * A / 2));
  ck_assert_msg(PetscAbsReal(e33 / e17 - 1) < 0.05, "the bending energy depends on the mesh: %g J (n = 17), %g J (n = 33)",
                (double)e17, (double)e33);
  ck_assert_msg(PetscAbsReal(CylinderBending(17, 2.0, kb) * 4 / e17 - 1) < 1e-3, "bending energy does not scale as 1/R^2");
  ck_assert_msg(PetscAbsReal(CylinderBending(17, 1.0, 2 * kb) / (2 * e17) - 1) < 1e-12,
                "bending energy is not proportional to kb");
}
END_TEST

/* Uniaxial stress from the rest tensor C = dP/dF(I) (linear elasticity): strain diag(1, t, t) with
 * the lateral stresses zero gives t = -C_yyxx / (C_yyyy + C_yyzz), the Poisson ratio -t and the
 * Young's modulus C_xxxx + 2 C_xxyy t. Every material built with (E, nu) must give them back (ARAP,
 * which has no volume term: lambda = 0, so nu = 0 and E = 2 mu = E / (1 + nu)). */
START_TEST(uniaxial_stress_gives_E_and_nu)
{
  const PetscReal sets[][2] = {{1e5, 0.3}, {2e6, 0.45}, {5e4, -0.3}};
  const PetscReal Id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  SimRegistry reg;
  PetscInt nmat;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &nmat));
  for (PetscInt i = 0; i < nmat; i++)
    for (size_t p = 0; p < sizeof(sets) / sizeof(sets[0]); p++) {
      const SimRegEntry *e;
      SimMaterial mat;
      PetscReal C[81], E = sets[p][0], nu = sets[p][1], t, Eeff, nueff, Ewant = E, nuwant = nu;
      /* C[9 (3 a + b) + 3 c + d] = dP_ab / dF_cd; xx = 0, yy = 4, zz = 8 */
      CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_MATERIAL, i, &e));
      CHECK_PETSC(SimMaterialCreateWithParams(reg, e->name, E, nu, 1000, &mat));
      CHECK_PETSC(SimMaterialHessian(mat, 1, Id, PETSC_FALSE, C));
      t = -C[9 * 4 + 0] / (C[9 * 4 + 4] + C[9 * 4 + 8]);
      Eeff = C[0] + 2 * C[4] * t;
      nueff = -t;
      if (!strcmp(e->name, "arap")) Ewant = E / (1 + nu), nuwant = 0;
      ck_assert_msg(PetscAbsReal(Eeff / Ewant - 1) < 1e-10 && PetscAbsReal(nueff - nuwant) < 1e-10,
                    "%s built with E = %g Pa, nu = %g: uniaxial stress gives E = %.12g Pa, nu = %.12g (expected %g, %g)", e->name,
                    (double)E, (double)nu, (double)Eeff, (double)nueff, (double)Ewant, (double)nuwant);
      CHECK_PETSC(SimMaterialDestroy(&mat));
    }
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("elastic_physics");
  TCase *tc = tcase_create("continuum");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, bending_energy_of_a_cylinder);
  tcase_add_test(tc, uniaxial_stress_gives_E_and_nu);
  suite_add_tcase(s, tc);
  return s;
}
