/* The damped oscillator (exact solution x(t) = L + A e^{-zeta w t} (cos wd t + zeta/sqrt(1-zeta^2)
 * sin wd t)) under every model integrator: the observed order of the state error against the exact
 * solution, and the energy decay rate against the exact one. A method that drops the damping force,
 * or applies it with the wrong sign or size, converges to another solution and fails both. PD
 * cannot run a damping term (refused by name, test_pd.c); its implicit-Euler energy decay on the
 * undamped oscillator is checked against the exact discrete factor 1/(1 + (w h)^2) per step. */
#include "testing.h"

/* The oscillator's defaults (scenes/oscillator.c): k = 100 N/m, m = 1 kg, A = 0.1 m; damping
 * c = 2 N s/m gives zeta = 0.1 and an exact energy decay of e^{-2 zeta w t} = e^{-2 t} on average. */
static const PetscReal K = 100, MASS = 1, C = 2, T_END = 1;

typedef struct {
  const char *solver;
  const char *opts;
  PetscReal order;    /* expected observed order with damping */
  PetscReal dt;       /* coarsest of dt, dt/2, dt/4 (T_END / dt an integer) */
  PetscReal rate_tol; /* relative error of the energy decay rate allowed at dt/4 */
  PetscInt newton;    /* >= 0: nonlinear iterations per step (after the first) the solver must not
                       * exceed: the problem is linear along the spring, so an exact Jacobian
                       * converges at once (a second Newton iteration at 1e-13 is round-off) */
} DampedCase;

/* Tight Newton tolerances so that the time-discretization error dominates (TS: the problem is linear,
 * one exact-Jacobian iteration solves it). */
#define TIGHT "-newton_rtol 1e-13 -newton_atol 1e-13 "

static const DampedCase cases[] = {
    {"explicit_euler", "", 1, 0.002, 0.05, -1},
    {"midpoint", "", 2, 0.01, 5e-4, -1},
    {"heun", "", 2, 0.01, 5e-4, -1},
    {"rk4", "", 4, 0.04, 1e-5, -1},
    {"symplectic_euler", "", 1, 0.002, 5e-3, -1},
    /* the last half kick takes the damping force at the half-step velocity (solvers/explicit/symplectic.c):
     * first order with a velocity-dependent force */
    {"verlet", "", 1, 0.002, 5e-4, -1},
    {"implicit_euler", "", 1, 0.002, 0.05, 2},
    {"bdf2", "", 2, 0.004, 5e-5, 2},
    {"implicit_midpoint", "", 2, 0.01, 5e-4, 2},
    {"linearized_implicit", "-linearized_beta 1", 1, 0.002, 0.05, 2},
    {"linearized_implicit", "-linearized_beta 0.5", 1, 0.002, 0.03, 2},
    {"linearized_implicit", "-linearized_beta 0", 1, 0.002, 3e-3, 2},
    {"ts", "-ts_type beuler", 1, 0.002, 0.05, 2},
    {"ts", "-ts_type cn", 2, 0.01, 5e-4, 2},
    {"ts", "-ts_type theta -ts_theta_theta 0.5", 2, 0.01, 5e-4, 2},
    {"ts", "-ts_type bdf -ts_bdf_order 2 -ts_adapt_type none", 2, 0.004, 2e-4, 2},
    {"ts", "-ts_type alpha -ts_adapt_type none", 2, 0.01, 5e-4, 2},
    {"ts", "-ts_type rk -ts_rk_type 4 -ts_adapt_type none", 4, 0.04, 1e-5, -1},
};

/* Total energy of the exact solution at t. */
static PetscReal ExactEnergy(SimScene scene, PetscReal t)
{
  PetscReal xe[6], ve[6];
  PetscBool has;
  CHECK_PETSC(SimSceneExact(scene, t, xe, ve, &has));
  ck_assert(has);
  return 0.5 * MASS * ve[3] * ve[3] + 0.5 * K * (xe[3] - 1) * (xe[3] - 1);
}

/* Runs one case to T_END with step dt; *err = sqrt(|x - xe|^2 + |v - ve|^2 / w^2) of the moving
 * vertex at T_END, *rate = -ln(E(T)/E(0)) / T and *rate_exact the same for the exact solution. */
static void RunDamped(const DampedCase *c, PetscReal dt, PetscReal damping, PetscReal *err, PetscReal *rate,
                      PetscReal *rate_exact, PetscInt *maxits)
{
  TestSim s;
  char opts[512];
  SimEnergyReport rep;
  PetscReal E0, xe[6], ve[6], t, w2 = K / MASS;
  const PetscScalar *x, *v;
  PetscBool has;
  PetscInt n = (PetscInt)(T_END / dt + 0.5);

  *maxits = 0;

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), TIGHT "-oscillator_damping %g %s", (double)damping, c->opts));
  CHECK_PETSC(TestSimCreate("oscillator", c->solver, opts, &s));
  CHECK_PETSC(SimSolverEnergy(s.solver, &rep));
  E0 = rep.total;
  ck_assert_double_eq_tol(E0, ExactEnergy(s.scene, 0), 1e-14);
  for (PetscInt k = 0; k < n; k++) {
    SimStepOutcome out;
    const SimStepStats *st;
    CHECK_PETSC(SimSolverStep(s.solver, dt, &out));
    CHECK_PETSC(SimSolverGetStats(s.solver, &st));
    /* per internal step; the first step may start a multistep method (TS bdf, alpha) */
    if (k > 0) *maxits = PetscMax(*maxits, st->nonlinear_its / PetscMax(st->substeps, 1));
    ck_assert_msg(out == SIM_STEP_OK, "%s %s: step %d outcome %d", c->solver, c->opts, (int)k, (int)out);
  }
  CHECK_PETSC(SimSolverGetTime(s.solver, &t, NULL));
  CHECK_PETSC(SimSceneExact(s.scene, t, xe, ve, &has));
  CHECK_PETSC(VecGetArrayRead(s.model->x, &x));
  CHECK_PETSC(VecGetArrayRead(s.model->v, &v));
  *err = 0;
  for (int d = 0; d < 3; d++)
    *err += (x[3 + d] - xe[3 + d]) * (x[3 + d] - xe[3 + d]) + (v[3 + d] - ve[3 + d]) * (v[3 + d] - ve[3 + d]) / w2;
  *err = PetscSqrtReal(*err);
  CHECK_PETSC(VecRestoreArrayRead(s.model->v, &v));
  CHECK_PETSC(VecRestoreArrayRead(s.model->x, &x));
  CHECK_PETSC(SimSolverEnergy(s.solver, &rep));
  *rate = -PetscLogReal(rep.total / E0) / t;
  *rate_exact = -PetscLogReal(ExactEnergy(s.scene, t) / E0) / t;
  CHECK_PETSC(TestSimDestroy(&s));
}

/* Observed order against the exact damped solution, and the energy decay rate at the finest step. */
START_TEST(damped_oscillator_every_integrator)
{
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const DampedCase *c = &cases[i];
    PetscReal e[3], r[3], rex, dt = c->dt, p;
    PetscInt its[3];
    for (int l = 0; l < 3; l++, dt /= 2) RunDamped(c, dt, C, &e[l], &r[l], &rex, &its[l]);
    p = PetscLog2Real(e[1] / e[2]);
    printf("  %-20s %-45s errors %.3e %.3e %.3e order %.3f (%g); decay rate %.5f %.5f %.5f, exact %.5f; its %d\n", c->solver,
           c->opts, (double)e[0], (double)e[1], (double)e[2], (double)p, (double)c->order, (double)r[0], (double)r[1],
           (double)r[2], (double)rex, (int)its[2]);
    ck_assert_msg(PetscAbsReal(p - c->order) < 0.25,
                  "%s %s: observed order %.3f against the damped solution (errors %.3e %.3e %.3e), expected %g", c->solver,
                  c->opts, (double)p, (double)e[0], (double)e[1], (double)e[2], (double)c->order);
    if (c->newton >= 0)
      ck_assert_msg(its[0] <= c->newton && its[2] <= c->newton,
                    "%s %s: %d nonlinear iterations in a step on a problem linear in the state (an inexact Jacobian?)", c->solver,
                    c->opts, (int)PetscMax(its[0], its[2]));
    ck_assert_msg(PetscAbsReal(r[2] - rex) < c->rate_tol * rex,
                  "%s %s: energy decay rate %.6f 1/s, the exact solution's %.6f 1/s", c->solver, c->opts, (double)r[2],
                  (double)rex);
  }
}
END_TEST

/* PD (implicit Euler by local/global iterations; no damping terms): on the undamped oscillator the
 * discrete energy falls by exactly 1/(1 + (w h)^2) per step, and the state converges at order 1. */
START_TEST(pd_undamped_decay)
{
  const PetscReal h = 0.01, w2 = K / MASS;
  TestSim s;
  SimEnergyReport rep;
  PetscReal E = 0, e[2];

  CHECK_PETSC(TestSimCreate("oscillator", "pd", "-pd_iterations 200 -pd_rtol 1e-14", &s));
  CHECK_PETSC(SimSolverEnergy(s.solver, &rep));
  E = rep.total;
  for (int k = 0; k < 50; k++) {
    CHECK_PETSC(SimSolverStep(s.solver, h, NULL));
    CHECK_PETSC(SimSolverEnergy(s.solver, &rep));
    ck_assert_msg(PetscAbsReal(rep.total / E - 1 / (1 + w2 * h * h)) < 1e-9,
                  "pd: energy ratio %.12f at step %d, implicit Euler's %.12f", (double)(rep.total / E), k,
                  (double)(1 / (1 + w2 * h * h)));
    E = rep.total;
  }
  CHECK_PETSC(TestSimDestroy(&s));
  for (int l = 0; l < 2; l++) {
    const DampedCase c = {"pd", "-pd_iterations 200 -pd_rtol 1e-14", 1, 0.002, 0, -1};
    PetscReal r, rex;
    PetscInt its;
    RunDamped(&c, 0.001 / (1 << l), 0, &e[l], &r, &rex, &its);
  }
  ck_assert_msg(PetscAbsReal(PetscLog2Real(e[0] / e[1]) - 1) < 0.1, "pd: observed order %.3f (errors %.3e %.3e)",
                (double)PetscLog2Real(e[0] / e[1]), (double)e[0], (double)e[1]);
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("damping");
  TCase *tc = tcase_create("oscillator");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, damped_oscillator_every_integrator);
  tcase_add_test(tc, pd_undamped_decay);
  suite_add_tcase(s, tc);
  return s;
}
