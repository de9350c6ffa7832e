/* Observed orders on a nonlinear problem: a damped pendulum rope (three masses on stiff springs,
 * swinging under gravity) against a tight GSL reference (rk8pd, rtol 1e-12), for BDF2, the other
 * Newton integrators and PETSc TS's bdf, alpha, theta, cn, beuler and rk. On the linear oscillator
 * (test_integrators.c) several wrong schemes still look right; the pendulum's geometric
 * nonlinearity and the moving damping directions do not forgive them. */
#include "testing.h"
#include "benchmarks/reference_ode.h"

#define ROPE "-rope_n 4 -rope_k 200 -rope_damping 0.05 -rope_mass 0.3 "
static const PetscReal T_END = 0.5;

typedef struct {
  const char *solver;
  const char *opts;
  PetscReal order;
  PetscReal dt; /* coarsest of dt, dt/2, dt/4 */
} OrderCase;

static const OrderCase cases[] = {
    {"bdf2", "", 2, 0.004},
    /* stronger damping: lagging the damping directions at x_n made these first order (regression) */
    {"bdf2", "-rope_damping 0.5", 2, 0.004},
    {"implicit_midpoint", "-rope_damping 0.5", 2, 0.004},
    {"implicit_euler", "", 1, 0.001},
    {"implicit_midpoint", "", 2, 0.004},
    {"verlet", "-rope_damping 0", 2, 0.004}, /* second order without damping only */
    {"rk4", "", 4, 0.01},
    {"ts", "-ts_type bdf -ts_bdf_order 2 -ts_adapt_type none", 2, 0.004},
    {"ts", "-ts_type alpha -ts_adapt_type none", 2, 0.004},
    {"ts", "-ts_type theta -ts_theta_theta 0.5", 2, 0.004},
    {"ts", "-ts_type cn", 2, 0.004},
    {"ts", "-ts_type beuler", 1, 0.001},
    {"ts", "-ts_type rk -ts_rk_type 4 -ts_adapt_type none", 4, 0.01},
};

/* Runs one case to T_END with step dt; *err = the mass-weighted position error against the GSL
 * reference of the same model. */
static void RunRope(const OrderCase *c, PetscReal dt, PetscReal *err)
{
  TestSim s;
  char opts[512];
  PetscReal *x0, *v0, *xT, *vT, *d;
  const PetscScalar *x, *v;
  PetscInt n = (PetscInt)(T_END / dt + 0.5), n3;

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), ROPE "-newton_rtol 1e-13 -newton_atol 1e-13 -snes_rtol 1e-12 -snes_atol 1e-13 %s",
                            c->opts));
  CHECK_PETSC(TestSimCreate("rope", c->solver, opts, &s));
  n3 = 3 * s.model->nv;
  CHECK_PETSC(PetscMalloc5(n3, &x0, n3, &v0, n3, &xT, n3, &vT, n3, &d));
  CHECK_PETSC(VecGetArrayRead(s.model->x, &x));
  CHECK_PETSC(VecGetArrayRead(s.model->v, &v));
  CHECK_PETSC(PetscArraycpy(x0, x, n3));
  CHECK_PETSC(PetscArraycpy(v0, v, n3));
  CHECK_PETSC(VecRestoreArrayRead(s.model->v, &v));
  CHECK_PETSC(VecRestoreArrayRead(s.model->x, &x));
  CHECK_PETSC(BenchReferenceODE(s.model, x0, v0, T_END, 1e-12, 1e-14, xT, vT));
  for (PetscInt k = 0; k < n; k++) {
    SimStepOutcome out;
    CHECK_PETSC(SimSolverStep(s.solver, dt, &out));
    ck_assert_msg(out == SIM_STEP_OK, "%s %s: step %d outcome %d", c->solver, c->opts, (int)k, (int)out);
  }
  CHECK_PETSC(VecGetArrayRead(s.model->x, &x));
  for (PetscInt q = 0; q < n3; q++) d[q] = x[q] - xT[q];
  CHECK_PETSC(VecRestoreArrayRead(s.model->x, &x));
  CHECK_PETSC(SimModelMassNorm(s.model, d, err));
  CHECK_PETSC(PetscFree5(x0, v0, xT, vT, d));
  CHECK_PETSC(TestSimDestroy(&s));
}

START_TEST(pendulum_rope_orders)
{
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const OrderCase *c = &cases[i];
    PetscReal e[3], dt = c->dt, p1, p2;
    for (int l = 0; l < 3; l++, dt /= 2) RunRope(c, dt, &e[l]);
    p1 = PetscLog2Real(e[0] / e[1]);
    p2 = PetscLog2Real(e[1] / e[2]);
    printf("  %-18s %-50s errors %.3e %.3e %.3e orders %.3f %.3f (%g)\n", c->solver, c->opts, (double)e[0], (double)e[1],
           (double)e[2], (double)p1, (double)p2, (double)c->order);
    ck_assert_msg(PetscAbsReal(p2 - c->order) < 0.2,
                  "%s %s: observed order %.3f on the pendulum rope (errors %.3e %.3e %.3e against GSL rk8pd), expected %g",
                  c->solver, c->opts, (double)p2, (double)e[0], (double)e[1], (double)e[2], (double)c->order);
  }
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("nonlinear_order");
  TCase *tc = tcase_create("rope");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, pendulum_rope_orders);
  suite_add_tcase(s, tc);
  return s;
}
