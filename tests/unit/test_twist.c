/* The twist scene and large deformations: scripted pins follow their script, Newton converges
 * quadratically near the solution, and stable neo-Hookean recovers from an inverted state. */
#include "testing.h"
#include "framework/scene.h"
#include "framework/solver.h"
#include "energies/fem.h"

/* After 0.5 s at pi rad/s the x = L end has turned by pi/2: (y, z) -> (-z, y). */
START_TEST(pins_follow_the_script)
{
  TestSim t;
  Vec rest;
  const PetscScalar *x, *x0;
  PetscReal err = 0;
  PetscInt nend = 0;

  CHECK_PETSC(TestSimCreate("twist", "implicit_euler", "-twist_n 6", &t));
  CHECK_PETSC(VecDuplicate(t.model->x, &rest));
  CHECK_PETSC(VecCopy(t.model->x, rest));
  for (int k = 0; k < 25; k++) CHECK_PETSC(SimSolverStep(t.solver, 0.02, NULL));
  CHECK_PETSC(VecGetArrayRead(t.model->x, &x));
  CHECK_PETSC(VecGetArrayRead(rest, &x0));
  for (PetscInt i = 0; i < t.model->nv; i++) {
    if (x0[3 * i] != 1.0) continue;
    nend++;
    err = PetscMax(err, PetscAbsReal(x[3 * i + 1] + x0[3 * i + 2]) + PetscAbsReal(x[3 * i + 2] - x0[3 * i + 1]));
  }
  CHECK_PETSC(VecRestoreArrayRead(rest, &x0));
  CHECK_PETSC(VecRestoreArrayRead(t.model->x, &x));
  ck_assert_int_eq(nend, 9);
  ck_assert_msg(err < 1e-12, "the turned end is %g off its script", err);
  CHECK_PETSC(VecDestroy(&rest));
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* Near the solution, Newton's residual falls quadratically: r_{k+1} <= C r_k^2 over the last
 * iterations of each step, with C from the step's own scale (C = 10 / r_0 here). */
START_TEST(newton_quadratic_on_twist)
{
  TestSim t;
  const SimStepStats *st;
  PetscInt quadratic = 0, checked = 0;

  CHECK_PETSC(TestSimCreate("twist", "implicit_euler", "-twist_n 10 -newton_rtol 1e-12 -newton_atol 1e-14 -newton_vtol 0", &t));
  CHECK_PETSC(SimSolverGetStats(t.solver, &st));
  for (int k = 0; k < 25; k++) {
    SimStepOutcome outcome;
    CHECK_PETSC(SimSolverStep(t.solver, 0.04, &outcome));
    ck_assert_msg(outcome == SIM_STEP_OK, "step %d did not converge", k);
    if (k == 24) {
      printf("  twist step %d residuals:", k);
      for (PetscInt i = 0; i < st->nhistory; i++) printf(" %.2e", (double)st->history[i]);
      printf("\n");
    }
    /* the last ratio r_n / r_{n-1}^2, where r_{n-1} is already small */
    if (st->nhistory >= 3) {
      PetscReal r0 = st->history[0], a = st->history[st->nhistory - 2], b = st->history[st->nhistory - 1];
      checked++;
      if (b <= 10 * a * a / r0 || b < 1e-13 * r0) quadratic++;
    }
  }
  ck_assert_msg(checked >= 20, "only %d steps took more than one Newton iteration", (int)checked);
  ck_assert_msg(quadratic >= checked - 2, "the last Newton step was quadratic in %d of %d steps", (int)quadratic, (int)checked);
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* Newton's iteration counts do not hang on the last bits of the Hessian: the twist under the
 * midpoint rule with the one-rank CSR assembly and with the COO assembly (coo_only; the two Hessians
 * differ at round-off) converges every step in at most 4 iterations with no line-search cut, with
 * the same counts. Regression: near the minimizer the full Newton step's decrease of Phi (g.p ~ -4e-15)
 * was below Phi's round-off, the Armijo test cut it at random, and step 1 took 17 (COO) or 30 (CSR,
 * not converged) iterations with 185-245 cuts. */
START_TEST(newton_robust_to_hessian_roundoff)
{
  PetscInt its[2][4];

  for (int coo = 0; coo < 2; coo++) {
    TestSim t;
    const SimStepStats *st;

    CHECK_PETSC(TestSimCreate("twist", "implicit_midpoint", "-twist_n 8", &t));
    t.model->coo_only = (PetscBool)coo;
    CHECK_PETSC(SimSolverGetStats(t.solver, &st));
    for (int k = 0; k < 4; k++) {
      SimStepOutcome outcome;
      CHECK_PETSC(SimSolverStep(t.solver, 1.0 / 60, &outcome));
      ck_assert_msg(outcome == SIM_STEP_OK, "%s: step %d did not converge (%d iterations, |g| %g)", coo ? "COO" : "CSR", k,
                    (int)st->nonlinear_its, (double)st->residual);
      ck_assert_msg(st->nonlinear_its <= 4 && st->linesearch_cuts == 0, "%s: step %d took %d iterations and %d line-search cuts",
                    coo ? "COO" : "CSR", k, (int)st->nonlinear_its, (int)st->linesearch_cuts);
      its[coo][k] = st->nonlinear_its;
    }
    if (coo)
      ck_assert_msg(t.model->csr_version == 0, "the COO run took the CSR path");
    else
      ck_assert_msg(t.model->csr_version == t.model->pattern_version + 1, "the CSR run took the COO path");
    CHECK_PETSC(TestSimDestroy(&t));
    CHECK_PETSC(TestSetOptions(NULL));
  }
  for (int k = 0; k < 4; k++) ck_assert_int_eq(its[0][k], its[1][k]);
}
END_TEST

static PetscErrorCode MinDetF(SimModel model, PetscReal *mindet)
{
  SimEnergy term;
  PetscReal *F;
  PetscInt ntet;
  const PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(SimModelFindTerm(model, "elastic", &term));
  PetscCheck(term, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no FEM term");
  PetscCall(VecGetArrayRead(model->x, &x));
  PetscCall(SimFEMGetDeformation(term, x, &ntet, NULL, NULL));
  PetscCall(PetscMalloc1(9 * ntet, &F));
  PetscCall(SimFEMGetDeformation(term, x, &ntet, F, NULL));
  PetscCall(VecRestoreArrayRead(model->x, &x));
  *mindet = PETSC_MAX_REAL;
  for (PetscInt e = 0; e < ntet; e++) {
    const PetscReal *A = F + 9 * e;
    PetscReal d = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
    *mindet = PetscMin(*mindet, d);
  }
  PetscCall(PetscFree(F));
  PetscFunctionReturn(0);
}

/* A stable neo-Hookean box turned inside out (every tet mirrored: det F = -1) un-inverts. */
START_TEST(stable_neohookean_recovers_from_inversion)
{
  TestSim t;
  PetscScalar *x;
  PetscReal before, after;

  CHECK_PETSC(
      TestSimCreate("drop", "implicit_euler", "-drop_n 3 -gravity 0,0,0 -colliders none -drop_material stable_neohookean", &t));
  CHECK_PETSC(VecGetArray(t.model->x, &x));
  for (PetscInt i = 0; i < t.model->nv; i++)
    x[3 * i] = -x[3 * i] + 1e-3 * PetscSinReal(7.0 * i); /* mirror, plus a nudge off the symmetric state */
  CHECK_PETSC(VecRestoreArray(t.model->x, &x));
  CHECK_PETSC(MinDetF(t.model, &before));
  ck_assert_msg(before < -0.5, "the start must be inverted (min det F = %g)", before);
  for (int k = 0; k < 100; k++) {
    SimStepOutcome outcome;
    CHECK_PETSC(SimSolverStep(t.solver, 0.01, &outcome));
    ck_assert_msg(outcome != SIM_STEP_NONFINITE, "non-finite state at step %d", k);
  }
  CHECK_PETSC(MinDetF(t.model, &after));
  printf("  inverted box: min det F %.3f -> %.3f after 1 s\n", (double)before, (double)after);
  ck_assert_msg(after > 0.5, "still inverted after 1 s: min det F = %g", after);
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("twist");
  TCase *tc = tcase_create("large_deformation");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, pins_follow_the_script);
  tcase_add_test(tc, newton_quadratic_on_twist);
  tcase_add_test(tc, newton_robust_to_hessian_roundoff);
  tcase_add_test(tc, stable_neohookean_recovers_from_inversion);
  suite_add_tcase(s, tc);
  return s;
}
