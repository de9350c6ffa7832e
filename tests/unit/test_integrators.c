/* Every time integrator on the analytic oscillator: observed order of accuracy, and the long-run
 * energy behaviour that distinguishes them (growth, bounded oscillation, decay). */
#include "testing.h"
#include "framework/scene.h"
#include "framework/solver.h"

/* The expected order of each registered integrator, and step sizes in its asymptotic range. */
typedef struct {
  const char *solver;
  PetscReal order;
  PetscReal dt; /* coarsest of dt, dt/2, dt/4 */
} OrderCase;

static const OrderCase order_cases[] = {
  {"explicit_euler", 1, 0.002},   {"symplectic_euler", 1, 0.002}, {"verlet", 2, 0.01},  {"midpoint", 2, 0.01},
  {"heun", 2, 0.01},              {"rk4", 4, 0.02},               {"implicit_euler", 1, 0.002},
  {"linearized_implicit", 1, 0.002}, {"bdf2", 2, 0.01},           {"implicit_midpoint", 2, 0.01},
};

/* Tight inner tolerances so that the time-discretization error dominates. */
static const char *tight = "-newton_rtol 1e-13 -newton_atol 1e-13 -linearized_beta 1";

/* Runs `solver` on the oscillator to time T with step dt and returns the mass-weighted position
 * error against the analytic solution, and the energy history (E[0..nsteps]) if E is not NULL. */
static PetscErrorCode RunOscillator(const char *solver, PetscReal dt, PetscInt nsteps, const char *extra, PetscReal *err, PetscReal *E)
{
  SimRegistry reg;
  SimScene scene;
  SimModel model;
  SimProblem problem;
  SimSolver s;
  PetscReal xe[6], ve[6], diff[6], t;
  PetscBool has;
  const PetscScalar *x;
  SimEnergyReport rep;
  char opts[512];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s", tight, extra ? extra : ""));
  PetscCall(TestSetOptions(opts));
  PetscCall(TestRegistryCreate(&reg));
  PetscCall(SimSceneCreate(reg, "oscillator", &scene));
  PetscCall(SimSceneBuild(scene, PETSC_COMM_SELF, &problem));
  model = SimMeshModel(problem);
  PetscCall(SimSolverCreate(reg, solver, problem, &s));
  PetscCall(SimSolverSetFromOptions(s));
  if (E) {
    PetscCall(SimSolverEnergy(s, &rep));
    E[0] = rep.total;
  }
  for (PetscInt k = 1; k <= nsteps; k++) {
    SimStepOutcome outcome;
    PetscCall(SimSolverStep(s, dt, &outcome));
    PetscCheck(outcome == SIM_STEP_OK, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "%s: step %" PetscInt_FMT " outcome %d", solver, k, (int)outcome);
    if (E) {
      PetscCall(SimSolverEnergy(s, &rep));
      E[k] = rep.total;
    }
  }
  PetscCall(SimSolverGetTime(s, &t, NULL));
  PetscCall(SimSceneExact(scene, t, xe, ve, &has));
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the oscillator has an exact solution");
  PetscCall(VecGetArrayRead(model->x, &x));
  for (int k = 0; k < 6; k++) diff[k] = x[k] - xe[k];
  PetscCall(VecRestoreArrayRead(model->x, &x));
  if (err) PetscCall(SimModelMassNorm(model, diff, err));
  PetscCall(SimSolverDestroy(&s));
  PetscCall(SimProblemDestroy(&problem));
  PetscCall(SimSceneDestroy(&scene));
  PetscCall(SimRegistryDestroy(&reg));
  PetscCall(TestSetOptions(NULL));
  PetscFunctionReturn(0);
}

START_TEST(observed_orders)
{
  const PetscReal T = 1.0;
  for (size_t c = 0; c < sizeof(order_cases) / sizeof(order_cases[0]); c++) {
    const OrderCase *oc = &order_cases[c];
    PetscReal e[3], dt = oc->dt, p;
    for (int r = 0; r < 3; r++, dt /= 2) CHECK_PETSC(RunOscillator(oc->solver, dt, (PetscInt)(T / dt + 0.5), NULL, &e[r], NULL));
    p = PetscLog2Real(e[1] / e[2]);
    printf("  %-20s dt %-7g errors %.3e %.3e %.3e  observed order %.3f (theory %g)\n", oc->solver, (double)oc->dt, (double)e[0],
           (double)e[1], (double)e[2], (double)p, (double)oc->order);
    ck_assert_msg(PetscAbsReal(p - oc->order) < 0.2, "%s: observed order %.3f (errors %.3e %.3e %.3e), expected %g", oc->solver, p, e[0],
                  e[1], e[2], oc->order);
  }
}
END_TEST

/* 10^4 steps at dt = 0.01 (omega dt = 0.1): the relative energy error's behaviour. */
#define NSTEPS 10000
static PetscReal Energy[NSTEPS + 1];

static void EnergyRun(const char *solver, PetscReal *max_err_first, PetscReal *max_err_last, PetscReal *final_ratio)
{
  PetscReal e1 = 0, e2 = 0;
  CHECK_PETSC(RunOscillator(solver, 0.01, NSTEPS, NULL, NULL, Energy));
  for (PetscInt k = 0; k <= NSTEPS; k++) {
    PetscReal rel = PetscAbsReal(Energy[k] - Energy[0]) / Energy[0];
    if (k <= NSTEPS / 2) e1 = PetscMax(e1, rel);
    else e2 = PetscMax(e2, rel);
  }
  *max_err_first = e1;
  *max_err_last = e2;
  *final_ratio = Energy[NSTEPS] / Energy[0];
  printf("  %-20s 10^4 steps, dt 0.01: max |E - E0|/E0 first half %.3e, second half %.3e, E_end/E0 %.3e\n", solver, (double)e1,
         (double)e2, (double)*final_ratio);
}

START_TEST(symplectic_energy_bounded)
{
  const char *names[] = {"symplectic_euler", "verlet"};
  const PetscReal bound[] = {0.06, 0.003}; /* O(omega h) and O((omega h)^2) */
  for (int i = 0; i < 2; i++) {
    PetscReal e1, e2, ratio;
    EnergyRun(names[i], &e1, &e2, &ratio);
    ck_assert_msg(e2 < bound[i], "%s: energy error %g over the second half exceeds %g", names[i], e2, bound[i]);
    ck_assert_msg(e2 < 1.2 * e1 + 1e-12, "%s: energy error grows (%g in the first half, %g in the second)", names[i], e1, e2);
  }
}
END_TEST

START_TEST(explicit_euler_energy_grows)
{
  PetscReal e1, e2, ratio;
  EnergyRun("explicit_euler", &e1, &e2, &ratio);
  ck_assert_msg(ratio > 1e3, "explicit Euler: energy ratio after 10^4 steps is %g, expected growth", ratio);
  /* E_{n+1} = (1 + (omega h)^2) E_n while the motion stays on the anchor's side (amplitude < L:
   * about 470 steps here); after that the spring passes through the anchor */
  for (PetscInt k = 1; k <= 400; k++) {
    ck_assert_msg(Energy[k] > Energy[k - 1], "explicit Euler: energy fell at step %d", (int)k);
    ck_assert_double_eq_tol(Energy[k] / Energy[k - 1], 1.01, 1e-9);
  }
}
END_TEST

START_TEST(implicit_euler_energy_decays)
{
  PetscReal e1, e2, ratio;
  EnergyRun("implicit_euler", &e1, &e2, &ratio);
  ck_assert_msg(ratio < 1e-3, "implicit Euler: energy ratio after 10^4 steps is %g, expected decay", ratio);
  /* monotone decay until the energy reaches round-off level */
  for (PetscInt k = 1; k <= NSTEPS && Energy[k] > 1e-12 * Energy[0]; k++)
    ck_assert_msg(Energy[k] <= Energy[k - 1] * (1 + 1e-12), "implicit Euler: energy rose at step %d", (int)k);
}
END_TEST

/* Conformance: every registered model solver sets up, takes a step on a small cloth and is
 * destroyed (grid solvers: every_grid_solver_on_every_grid_scene in test_stablefluids.c). */
START_TEST(every_solver_steps_a_cloth)
{
  SimRegistry reg;
  PetscInt n;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_SOLVER, &n));
  ck_assert_int_ge(n, 10);
  for (PetscInt i = 0; i < n; i++) {
    const SimRegEntry *e;
    SimScene scene;
    SimModel model;
    SimProblem problem;
    SimSolver s;
    SimStepOutcome outcome;
    PetscReal y0, y1;
    const PetscScalar *x;

    CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_SOLVER, i, &e));
    if (!SimRegistrySolverFits(e, "mesh")) continue;
    CHECK_PETSC(TestSetOptions("-cloth_n 6 -cloth_pin none"));
    CHECK_PETSC(SimSceneCreate(reg, "cloth", &scene));
    CHECK_PETSC(SimSceneBuild(scene, PETSC_COMM_SELF, &problem));
    model = SimMeshModel(problem);
    CHECK_PETSC(SimSolverCreate(reg, e->name, problem, &s));
    CHECK_PETSC(SimSolverSetFromOptions(s));
    CHECK_PETSC(VecGetArrayRead(model->x, &x));
    y0 = x[1];
    CHECK_PETSC(VecRestoreArrayRead(model->x, &x));
    for (int k = 0; k < 3; k++) CHECK_PETSC(SimSolverStep(s, 0.01, &outcome));
    ck_assert_msg(outcome == SIM_STEP_OK, "%s: outcome %d", e->name, (int)outcome);
    /* a free cloth in free fall: every vertex drops by g t^2 / 2 (springs stay at rest) */
    CHECK_PETSC(VecGetArrayRead(model->x, &x));
    y1 = x[1];
    CHECK_PETSC(VecRestoreArrayRead(model->x, &x));
    ck_assert_msg(PetscAbsReal((y0 - y1) - 0.5 * 9.81 * 0.03 * 0.03) < 0.5 * 9.81 * 0.03 * 0.03 * 0.6,
                  "%s: dropped %g m in 0.03 s, free fall is %g m", e->name, y0 - y1, 0.5 * 9.81 * 0.03 * 0.03);
    CHECK_PETSC(SimSolverDestroy(&s));
    CHECK_PETSC(SimProblemDestroy(&problem));
    CHECK_PETSC(SimSceneDestroy(&scene));
  }
  CHECK_PETSC(SimRegistryDestroy(&reg));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("integrators");
  TCase *tc = tcase_create("oscillator");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, observed_orders);
  tcase_add_test(tc, symplectic_energy_bounded);
  tcase_add_test(tc, explicit_euler_energy_grows);
  tcase_add_test(tc, implicit_euler_energy_decays);
  tcase_add_test(tc, every_solver_steps_a_cloth);
  suite_add_tcase(s, tc);
  return s;
}
