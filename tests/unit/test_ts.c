/* Unit tests of the "ts" solver (the model handed to PETSc TS): observed orders of rk4, beuler and
 * cn on the oscillator, adaptive Dormand-Prince accuracy and substeps, the RHS Jacobian against
 * finite differences of the RHS on a damped cloth, implicit types on the cloth, bad -ts_type. */
#include <string.h>
#include "testing.h"
#include "framework/scene.h"
#include "framework/solver.h"
#include "solvers/ts/ts_bridge.h"



/* Deterministic pseudo-random numbers in [-1, 1] (no shared RNG). */
static PetscReal Wiggle(PetscInt i, PetscInt salt)
{
  return PetscSinReal(12.9898 * (PetscReal)i + 78.233 * (PetscReal)salt + 0.5 * (PetscReal)(i % 7));
}

/* What one oscillator run to time T measured. */
typedef struct {
  PetscReal err;      /* |x(T) - x_exact(T)| in the mass norm */
  PetscInt steps;     /* pbsim steps */
  PetscInt substeps;  /* internal TS steps, summed */
  PetscInt newton;    /* SNES iterations, summed */
  PetscBool monotone; /* total energy never increased over a step */
  PetscReal E0, ET;   /* total energy at 0 and T */
} Run;

static PetscErrorCode OscillatorRun(const char *opts, PetscReal dt, PetscReal T, Run *r)
{
  TestSim s;
  SimEnergyReport rep;
  SimStepOutcome outcome;
  const SimStepStats *stats;
  PetscReal xe[6], ve[6], diff[6], E;
  const PetscScalar *x;
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscCall(TestSimCreate("oscillator", "ts", opts, &s));
  r->steps = (PetscInt)(T / dt + 0.5);
  r->monotone = PETSC_TRUE;
  PetscCall(SimSolverEnergy(s.solver, &rep));
  r->E0 = E = rep.total;
  for (PetscInt k = 0; k < r->steps; k++) {
    PetscInt acc;
    PetscCall(SimSolverStep(s.solver, dt, &outcome));
    PetscCheck(outcome == SIM_STEP_OK, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "step %" PetscInt_FMT " with '%s': outcome %d",
               k, opts, (int)outcome);
    PetscCall(SimSolverTSGetSubsteps(s.solver, &acc, NULL));
    PetscCall(SimSolverGetStats(s.solver, &stats));
    PetscCheck(stats->substeps == acc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "step stats report %" PetscInt_FMT " substeps, the TS took %" PetscInt_FMT,
               stats->substeps, acc);
    r->substeps += acc;
    r->newton += stats->nonlinear_its;
    PetscCall(SimSolverEnergy(s.solver, &rep));
    if (rep.total > E * (1 + 1e-13)) r->monotone = PETSC_FALSE;
    E = rep.total;
  }
  r->ET = E;
  PetscCall(SimSceneExact(s.scene, r->steps * dt, xe, ve, &has));
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the oscillator scene has no exact solution");
  PetscCall(VecGetArrayRead(s.model->x, &x));
  for (int k = 0; k < 6; k++) diff[k] = x[k] - xe[k];
  PetscCall(VecRestoreArrayRead(s.model->x, &x));
  PetscCall(SimModelMassNorm(s.model, diff, &r->err));
  PetscCall(PetscInfo(NULL,
                      "'%s' dt = %g: error at T = %g: %.4e (%" PetscInt_FMT " steps, %" PetscInt_FMT " TS steps, %" PetscInt_FMT
                      " Newton)\n",
                      opts, (double)dt, (double)T, (double)r->err, r->steps, r->substeps, r->newton));
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

/* Observed order from runs at dt and dt/2 to T = 1. */
static PetscErrorCode ObservedOrder(const char *opts, PetscReal dt, PetscReal *p, Run *coarse, Run *fine)
{
  PetscFunctionBeginUser;
  PetscCall(OscillatorRun(opts, dt, 1.0, coarse));
  PetscCall(OscillatorRun(opts, dt / 2, 1.0, fine));
  *p = PetscLog2Real(coarse->err / fine->err);
  PetscCall(PetscInfo(NULL, "%s: err(%g) = %.3e, err(%g) = %.3e, order %.3f\n", opts, (double)dt, (double)coarse->err,
                      (double)(dt / 2), (double)fine->err, (double)*p));
  PetscFunctionReturn(0);
}

START_TEST(test_rk4_order)
{
  Run c, f;
  PetscReal p;

  CHECK_PETSC(ObservedOrder("-ts_type rk -ts_rk_type 4 -ts_adapt_type none", 0.01, &p, &c, &f));
  ck_assert_msg(PetscAbsReal(p - 4) < 0.2, "rk4 observed order %g (errors %g, %g)", (double)p, (double)c.err, (double)f.err);
  /* fixed steps: one TS step per pbsim step, no Newton */
  ck_assert_int_eq(c.substeps, c.steps);
  ck_assert_int_eq(f.substeps, f.steps);
  ck_assert_int_eq(c.newton, 0);
}
END_TEST

START_TEST(test_beuler_order_and_decay)
{
  Run c, f, r;
  PetscReal p;

  /* dt = 0.01 is outside the asymptotic range for beuler (w dt = 0.1, observed 0.81): use smaller steps */
  CHECK_PETSC(ObservedOrder("-ts_type beuler", 0.002, &p, &c, &f));
  ck_assert_msg(PetscAbsReal(p - 1) < 0.2, "beuler observed order %g (errors %g, %g)", (double)p, (double)c.err, (double)f.err);
  ck_assert_int_eq(c.substeps, c.steps); /* beuler's default adaptor is none */
  ck_assert_msg(c.newton >= c.steps, "beuler is implicit: expected Newton iterations, got %d", (int)c.newton);
  /* backward Euler damps the undamped oscillator: energy goes down every step and visibly overall */
  CHECK_PETSC(OscillatorRun("-ts_type beuler", 0.01, 1.0, &r));
  ck_assert_msg(c.monotone && f.monotone && r.monotone, "beuler energy increased over a step");
  ck_assert_msg(r.ET < 0.5 * r.E0, "beuler energy E(T) = %g, E(0) = %g at dt = 0.01: expected numerical dissipation",
                (double)r.ET, (double)r.E0);
}
END_TEST

START_TEST(test_cn_order)
{
  Run c, f;
  PetscReal p;

  CHECK_PETSC(ObservedOrder("-ts_type cn", 0.01, &p, &c, &f));
  ck_assert_msg(PetscAbsReal(p - 2) < 0.2, "cn observed order %g (errors %g, %g)", (double)p, (double)c.err, (double)f.err);
  /* the oscillator moves along its spring, so f is linear in u: with the exact Jacobian one Newton
   * iteration per step reaches the tolerance */
  ck_assert_msg(c.newton == c.steps, "cn took %d Newton iterations for %d steps", (int)c.newton, (int)c.steps);
}
END_TEST

START_TEST(test_adaptive_5dp)
{
  Run r;

  /* T = 1 in 4 pbsim steps: dt = 0.25 is 40% of the period, far too large for one step */
  CHECK_PETSC(OscillatorRun("-ts_type rk -ts_rk_type 5dp -ts_adapt_type basic -ts_rtol 1e-8 -ts_atol 1e-10", 0.25, 1.0, &r));
  ck_assert_msg(r.err < 1e-6, "adaptive 5dp error %g at T = 1", (double)r.err);
  ck_assert_msg(r.substeps > 4 * r.steps, "adaptive 5dp took %d internal steps for %d pbsim steps", (int)r.substeps,
                (int)r.steps);
  /* stepping past t + dt and interpolating back is the other way to end a pbsim step exactly */
  CHECK_PETSC(
      OscillatorRun("-ts_type rk -ts_rk_type 5dp -ts_rtol 1e-8 -ts_atol 1e-10 -ts_exact_final_time interpolate", 0.25, 1.0, &r));
  ck_assert_msg(r.err < 1e-6, "adaptive 5dp with interpolation: error %g at T = 1", (double)r.err);
}
END_TEST

/* A step whose Newton solve fails is the outcome SIM_STEP_NOT_CONVERGED, not an error; the next
 * step restarts the TS from the model's state and time. */
START_TEST(test_failed_step)
{
  TestSim s;
  SimStepOutcome outcome;
  TS ts;
  SNES snes;
  PetscReal t;
  PetscInt acc;

  CHECK_PETSC(TestSimCreate("cloth", "ts", "-cloth_n 6 -ts_type beuler -snes_max_it 1", &s));
  CHECK_PETSC(SimSolverStep(s.solver, 0.05, &outcome));
  ck_assert_msg(outcome == SIM_STEP_NOT_CONVERGED, "one Newton iteration on a falling cloth: outcome %d", (int)outcome);
  CHECK_PETSC(SimSolverTSGetSubsteps(s.solver, &acc, NULL));
  ck_assert_int_eq(acc, 0);
  CHECK_PETSC(SimSolverTSGetTS(s.solver, &ts));
  CHECK_PETSC(TSGetSNES(ts, &snes));
  CHECK_PETSC(SNESSetTolerances(snes, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 50, PETSC_DEFAULT));
  CHECK_PETSC(SimSolverStep(s.solver, 0.05, &outcome));
  ck_assert_msg(outcome == SIM_STEP_OK, "after the failure: outcome %d", (int)outcome);
  CHECK_PETSC(TSGetTime(ts, &t));
  ck_assert_msg(PetscAbsReal(t - 0.1) < 1e-14, "TS time %g after two pbsim steps of 0.05", (double)t);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* Relative error of J w against the central difference of the RHS along w. */
static PetscErrorCode JacobianCheck(TS ts, Vec U, Vec w, PetscReal *rel)
{
  Mat J;
  Vec Jw, up, um, fp, fm;
  PetscReal eps = 1e-6, nJw, nd;

  PetscFunctionBeginUser;
  PetscCall(TSGetRHSJacobian(ts, &J, NULL, NULL, NULL));
  PetscCall(TSComputeRHSJacobian(ts, 0.0, U, J, J));
  PetscCall(VecDuplicate(U, &Jw));
  PetscCall(VecDuplicate(U, &up));
  PetscCall(VecDuplicate(U, &um));
  PetscCall(VecDuplicate(U, &fp));
  PetscCall(VecDuplicate(U, &fm));
  PetscCall(MatMult(J, w, Jw));
  PetscCall(VecWAXPY(up, eps, w, U));
  PetscCall(VecWAXPY(um, -eps, w, U));
  PetscCall(TSComputeRHSFunction(ts, 0.0, up, fp));
  PetscCall(TSComputeRHSFunction(ts, 0.0, um, fm));
  PetscCall(VecAXPY(fp, -1.0, fm));
  PetscCall(VecScale(fp, 1.0 / (2 * eps)));
  PetscCall(VecNorm(Jw, NORM_2, &nJw));
  PetscCall(VecAXPY(fp, -1.0, Jw));
  PetscCall(VecNorm(fp, NORM_2, &nd));
  *rel = nd / nJw;
  PetscCall(VecDestroy(&Jw));
  PetscCall(VecDestroy(&up));
  PetscCall(VecDestroy(&um));
  PetscCall(VecDestroy(&fp));
  PetscCall(VecDestroy(&fm));
  PetscFunctionReturn(0);
}

/* The damped cloth in a stretched, moving state; *rel[3]: errors along x-only, v-only and mixed
 * directions (zero on pinned DOFs, whose components of u never change). */
static PetscErrorCode ClothJacobianErrors(const char *opts, PetscReal rel[3])
{
  TestSim s;
  TS ts;
  Vec U, w;
  PetscScalar *u, *wa;
  const PetscInt salt[3] = {3, 5, 7};

  PetscFunctionBeginUser;
  PetscCall(TestSimCreate("cloth", "ts", opts, &s));
  PetscCall(SimSolverTSGetTS(s.solver, &ts));
  const PetscInt nv = s.model->nv, n3 = 3 * nv;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 2 * n3, &U));
  PetscCall(VecDuplicate(U, &w));
  PetscCall(VecGetArray(U, &u));
  {
    const PetscScalar *x;
    PetscCall(VecGetArrayRead(s.model->x, &x));
    for (PetscInt k = 0; k < n3; k++) {
      PetscBool pinned = s.model->pinned[k / 3];
      u[k] = x[k] + (pinned ? 0.0 : 0.05 * Wiggle(k, 1)); /* springs stretched and compressed */
      u[n3 + k] = pinned ? 0.0 : Wiggle(k, 2);            /* O(1 m/s) relative velocities */
    }
    PetscCall(VecRestoreArrayRead(s.model->x, &x));
  }
  PetscCall(VecRestoreArray(U, &u));
  for (int d = 0; d < 3; d++) {
    PetscCall(VecGetArray(w, &wa));
    for (PetscInt k = 0; k < n3; k++) {
      PetscBool pinned = s.model->pinned[k / 3];
      wa[k] = (pinned || d == 1) ? 0.0 : Wiggle(k, salt[d]);
      wa[n3 + k] = (pinned || d == 0) ? 0.0 : Wiggle(k, salt[d] + 10);
    }
    PetscCall(VecRestoreArray(w, &wa));
    PetscCall(JacobianCheck(ts, U, w, &rel[d]));
  }
  PetscCall(
      PetscInfo(NULL, "%s: relative errors x %.2e, v %.2e, mixed %.2e\n", opts, (double)rel[0], (double)rel[1], (double)rel[2]));
  PetscCall(VecDestroy(&U));
  PetscCall(VecDestroy(&w));
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

START_TEST(test_jacobian_fd)
{
  const char *names[3] = {"x", "v", "mixed"};
  PetscReal rel[3];

  CHECK_PETSC(ClothJacobianErrors("-cloth_n 4 -cloth_damping 2", rel));
  for (int d = 0; d < 3; d++)
    ck_assert_msg(rel[d] < 1e-6, "RHS Jacobian vs FD along %s directions: relative error %g", names[d], (double)rel[d]);
  /* without d(B v)/dx the x-directions miss the moving damping directions: the check must see it */
  CHECK_PETSC(ClothJacobianErrors("-cloth_n 4 -cloth_damping 2 -tsbridge_damping_fd 0", rel));
  ck_assert_msg(rel[0] > 1e-4, "damping x-derivative left out, yet the x-direction error is only %g", (double)rel[0]);
  ck_assert_msg(rel[1] < 1e-6, "v-direction error %g without the damping x-derivative", (double)rel[1]);
}
END_TEST

/* Implicit multistep and generalized-alpha types on a damped, pinned cloth: the steps complete, use
 * Newton, and converge in few iterations with the exact Jacobian. */
START_TEST(test_implicit_types_cloth)
{
  const char *types[] = {"-ts_type bdf -ts_bdf_order 2 -ts_adapt_type none", "-ts_type alpha -ts_adapt_type none",
                         "-ts_type theta -ts_theta_theta 0.5 -ts_adapt_type none"};

  for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
    char opts[256];
    TestSim s;
    SimStepOutcome outcome;
    const SimStepStats *stats;
    PetscInt newton = 0, linear = 0;
    const PetscInt nsteps = 5;

    CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-cloth_n 6 -cloth_damping 0.05 %s", types[t]));
    CHECK_PETSC(TestSimCreate("cloth", "ts", opts, &s));
    for (PetscInt k = 0; k < nsteps; k++) {
      CHECK_PETSC(SimSolverStep(s.solver, 0.01, &outcome));
      ck_assert_msg(outcome == SIM_STEP_OK, "'%s': step %d outcome %d", opts, (int)k, (int)outcome);
      CHECK_PETSC(SimSolverGetStats(s.solver, &stats));
      newton += stats->nonlinear_its;
      linear += stats->linear_its;
    }
    ck_assert_msg(newton >= nsteps && linear >= newton, "'%s': %d Newton, %d linear iterations", opts, (int)newton, (int)linear);
    ck_assert_msg(newton <= 4 * nsteps, "'%s': %d Newton iterations in %d steps: is the Jacobian right?", opts, (int)newton,
                  (int)nsteps);
    CHECK_PETSC(TestSimDestroy(&s));
  }
}
END_TEST

/* Records the first message of a PETSc error, so a test can check what it says. */

START_TEST(test_bad_type)
{
  TestSim s;
  PetscErrorCode ierr;
  TestErrorCapture cap = {""};

  CHECK_PETSC(PetscMemzero(&s, sizeof(s)));
  CHECK_PETSC(TestSetOptions("-ts_type no_such_integrator"));
  CHECK_PETSC(TestRegistryCreate(&s.reg));
  CHECK_PETSC(SimSceneCreate(s.reg, "oscillator", &s.scene));
  CHECK_PETSC(SimSceneBuild(s.scene, PETSC_COMM_SELF, &s.problem));
  s.model = SimMeshModel(s.problem);
  CHECK_PETSC(SimSolverCreate(s.reg, "ts", s.problem, &s.solver));
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimSolverSetFromOptions(s.solver);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0, "-ts_type no_such_integrator was accepted");
  /* the message names the bad value and lists the valid ones */
  ck_assert_msg(strstr(cap.msg, "no_such_integrator") && strstr(cap.msg, "rk") && strstr(cap.msg, "bdf"), "unhelpful message: %s", cap.msg);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("ts");
  TCase *tc = tcase_create("ts");

  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_rk4_order);
  tcase_add_test(tc, test_beuler_order_and_decay);
  tcase_add_test(tc, test_cn_order);
  tcase_add_test(tc, test_adaptive_5dp);
  tcase_add_test(tc, test_jacobian_fd);
  tcase_add_test(tc, test_implicit_types_cloth);
  tcase_add_test(tc, test_failed_step);
  tcase_add_test(tc, test_bad_type);
  suite_add_tcase(s, tc);
  return s;
}
