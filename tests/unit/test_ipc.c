/* The IPC contact term (energies/ipc/ipc.c) on whole runs: its gradient and Hessian against finite
 * differences on a configuration with point-triangle, edge-edge and plane contacts and on a sphere
 * obstacle, and its projected Hessian PSD; the squishy ball
 * and a stack run 200 steps of 1/60 s with the neo-Hookean material, every state admissible (every
 * distance > 0, no crossing, no inverted tet); friction on a slope sticks below tan(angle) and
 * slides above with a = g (sin - mu cos) within 2%; an integrator without the step bound (explicit)
 * is stopped by the admissibility check with the last good state. */
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include "testing.h"
#include "framework/scene.h"
#include "framework/solver.h"
#include "energies/ipc/ipc.h"

static PetscErrorCode GetIPC(TestSim *t, SimEnergy *term)
{
  PetscFunctionBeginUser;
  PetscCall(SimModelFindTerm(t->model, "ipc", term));
  PetscCheck(*term, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no ipc term");
  PetscFunctionReturn(0);
}

/* The term's gradient against central differences of its value, and its exact Hessian (psd = false,
 * the blocks of its pattern) against differences of the gradient, at x on 4 directions with a step of
 * 1e-7 dhat: the largest errors and the largest values they are measured against. */
static void DerivativeErrors(SimEnergy ipc, PetscInt n, PetscReal *x, PetscReal dhat, PetscReal *errg, PetscReal *scale, PetscReal *errh,
                             PetscReal *hscale)
{
  PetscReal *g, *g1, *g2, *dir, *Hd, *vals, E1, E2;
  PetscInt nb, *brow, *bcol;
  PetscBool changed;

  *errg = *scale = *errh = *hscale = 0;
  CHECK_PETSC(ipc->ops.update_pattern(ipc, x, &changed));
  CHECK_PETSC(ipc->ops.pattern(ipc, &nb, NULL, NULL));
  ck_assert_msg(nb > 0, "no contact in the test configuration");
  CHECK_PETSC(PetscMalloc5(n, &g, n, &g1, n, &g2, n, &dir, n, &Hd));
  CHECK_PETSC(PetscMalloc3(9 * nb, &vals, nb, &brow, nb, &bcol));
  CHECK_PETSC(ipc->ops.pattern(ipc, &nb, brow, bcol));
  CHECK_PETSC(PetscArrayzero(g, n));
  CHECK_PETSC(ipc->ops.gradient(ipc, x, NULL, g));
  CHECK_PETSC(ipc->ops.hessian(ipc, x, NULL, PETSC_FALSE, vals));
  for (int trial = 0; trial < 4; trial++) {
    const PetscReal h = 1e-7 * dhat;
    PetscReal dg = 0, fd;
    for (PetscInt i = 0; i < n; i++) dir[i] = PetscSinReal(1.3 * i + 2.1 * trial + 0.5);
    for (PetscInt i = 0; i < n; i++) x[i] += h * dir[i];
    CHECK_PETSC(ipc->ops.value(ipc, x, NULL, &E1));
    CHECK_PETSC(PetscArrayzero(g1, n));
    CHECK_PETSC(ipc->ops.gradient(ipc, x, NULL, g1));
    for (PetscInt i = 0; i < n; i++) x[i] -= 2 * h * dir[i];
    CHECK_PETSC(ipc->ops.value(ipc, x, NULL, &E2));
    CHECK_PETSC(PetscArrayzero(g2, n));
    CHECK_PETSC(ipc->ops.gradient(ipc, x, NULL, g2));
    for (PetscInt i = 0; i < n; i++) x[i] += h * dir[i];
    for (PetscInt i = 0; i < n; i++) dg += g[i] * dir[i];
    fd = (E1 - E2) / (2 * h);
    *errg = PetscMax(*errg, PetscAbsReal(fd - dg));
    *scale = PetscMax(*scale, PetscAbsReal(dg));
    /* H dir from the blocks */
    CHECK_PETSC(PetscArrayzero(Hd, n));
    for (PetscInt k = 0; k < nb; k++)
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) Hd[3 * brow[k] + a] += vals[9 * k + 3 * a + b] * dir[3 * bcol[k] + b];
    for (PetscInt i = 0; i < n; i++) {
      *errh = PetscMax(*errh, PetscAbsReal((g1[i] - g2[i]) / (2 * h) - Hd[i]));
      *hscale = PetscMax(*hscale, PetscAbsReal(Hd[i]));
    }
  }
  CHECK_PETSC(PetscFree3(vals, brow, bcol));
  CHECK_PETSC(PetscFree5(g, g1, g2, dir, Hd));
}

/* Two balls, the upper one resting 40% of dhat above the lower one, the lower one 40% of dhat above
 * the plane: contacts of every kind. Gradient vs central differences of the value; the exact
 * Hessian (psd = false) vs differences of the gradient, on random directions. */
START_TEST(gradient_and_hessian_match_differences)
{
  TestSim t;
  SimEnergy ipc;
  SimIPCStats st;
  PetscReal *x, *vals, errg, errh, scale, hscale;
  PetscInt n, nb, *brow, *bcol;
  const PetscScalar *x0;

  CHECK_PETSC(TestSimCreate("ipc_stack", "implicit_euler", "-ipc_stack_count 2 -ipc_stack_n 2 -ipc_stack_size 0.2 -ipc_stack_gap 1e-4 -gravity 0,0,0 -ipc_dhat 2e-3", &t));
  CHECK_PETSC(GetIPC(&t, &ipc));
  n = 3 * t.model->nv;
  CHECK_PETSC(PetscMalloc1(n, &x));
  CHECK_PETSC(VecGetArrayRead(t.model->x, &x0));
  CHECK_PETSC(PetscArraycpy(x, x0, n));
  CHECK_PETSC(VecRestoreArrayRead(t.model->x, &x0));
  /* a little noise so that no configuration is exactly symmetric */
  for (PetscInt i = 0; i < n; i++) x[i] += 1e-5 * PetscSinReal(3.7 * i);
  CHECK_PETSC(SimIPCGetStats(ipc, &st));
  DerivativeErrors(ipc, n, x, st.dhat, &errg, &scale, &errh, &hscale);
  ck_assert_msg(scale > 0 && errg <= 1e-5 * scale, "gradient: error %g of %g", errg, scale);
  ck_assert_msg(hscale > 0 && errh <= 1e-4 * hscale, "Hessian: error %g of %g", errh, hscale);
  CHECK_PETSC(ipc->ops.pattern(ipc, &nb, NULL, NULL));
  CHECK_PETSC(PetscMalloc3(9 * nb, &vals, nb, &brow, nb, &bcol));
  CHECK_PETSC(ipc->ops.pattern(ipc, &nb, brow, bcol));
  CHECK_PETSC(ipc->ops.hessian(ipc, x, NULL, PETSC_FALSE, vals));
  { /* the projected Hessian (psd = true), assembled: PSD (GSL eigenvalues), and not the exact one */
    double *Hp = NULL, *He = NULL, hmax = 0, diff = 0, lmin = PETSC_MAX_REAL;
    gsl_vector *ev = gsl_vector_alloc(n);
    CHECK_PETSC(PetscCalloc2(n * n, &Hp, n * n, &He));
    for (PetscInt k = 0; k < nb; k++)
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) He[(3 * brow[k] + a) * n + 3 * bcol[k] + b] += vals[9 * k + 3 * a + b];
    CHECK_PETSC(ipc->ops.hessian(ipc, x, NULL, PETSC_TRUE, vals));
    for (PetscInt k = 0; k < nb; k++)
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) Hp[(3 * brow[k] + a) * n + 3 * bcol[k] + b] += vals[9 * k + 3 * a + b];
    for (PetscInt i = 0; i < n * n; i++) hmax = PetscMax(hmax, PetscAbsReal(Hp[i])), diff = PetscMax(diff, PetscAbsReal(Hp[i] - He[i]));
    {
      /* the eigenvalues of the rows and columns the contacts touch (the rest is zero): a dense
       * eigensolve of all 3 nv unknowns is O(nv^3) and took minutes */
      PetscInt m = 0, *act;
      CHECK_PETSC(PetscMalloc1(n, &act));
      for (PetscInt i = 0; i < n; i++) {
        PetscBool nz = PETSC_FALSE;
        for (PetscInt j = 0; j < n && !nz; j++) nz = (PetscBool)(Hp[i * n + j] != 0);
        if (nz) act[m++] = i;
      }
      ck_assert_msg(m > 0, "the projected Hessian is zero");
      for (PetscInt a = 0; a < m; a++)
        for (PetscInt b = 0; b < m; b++) He[a * m + b] = Hp[act[a] * n + act[b]];
      {
        gsl_matrix_view A = gsl_matrix_view_array(He, m, m);
        gsl_vector_view evm = gsl_vector_subvector(ev, 0, m);
        gsl_eigen_symm_workspace *wm = gsl_eigen_symm_alloc(m);
        gsl_eigen_symm(&A.matrix, &evm.vector, wm);
        gsl_eigen_symm_free(wm);
      }
      for (PetscInt i = 0; i < m; i++) lmin = PetscMin(lmin, gsl_vector_get(ev, i));
      CHECK_PETSC(PetscFree(act));
    }
    ck_assert_msg(hmax > 0 && lmin >= -1e-12 * hmax, "projected Hessian: smallest eigenvalue %g of %g", lmin, hmax);
    ck_assert_msg(diff > 1e-6 * hmax, "the exact Hessian was already PSD here (difference %g of %g): the projection is not exercised", diff, hmax);
    gsl_vector_free(ev);
    CHECK_PETSC(PetscFree2(Hp, He));
  }
  CHECK_PETSC(PetscFree3(vals, brow, bcol));
  CHECK_PETSC(PetscFree(x));
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* A sphere obstacle (radius 5 cm) half of dhat from a corner of a box, along the corner's diagonal:
 * the point-sphere distance's gradient and Hessian, with its curvature term 2 phi (I - n n^T) / |r|,
 * against differences (the directions have tangential parts, which only that term sees). */
START_TEST(sphere_obstacle_derivatives)
{
  const char *base = "-ipc_stack_count 1 -ipc_stack_n 2 -ipc_stack_size 0.2 -gravity 0,0,0 -ipc_dhat 2e-3";
  TestSim t;
  SimEnergy ipc;
  SimIPCStats st;
  PetscReal *x, c[3] = {0, 0, 0}, u[3], len = 0, r = 0.05, errg, errh, scale, hscale;
  PetscInt n, far = 0;
  const PetscScalar *x0;
  char opts[512];

  /* the box alone: its vertices, a vertex farthest from the centroid, dhat */
  CHECK_PETSC(TestSimCreate("ipc_stack", "implicit_euler", base, &t));
  CHECK_PETSC(GetIPC(&t, &ipc));
  CHECK_PETSC(SimIPCGetStats(ipc, &st));
  n = 3 * t.model->nv;
  CHECK_PETSC(PetscMalloc1(n, &x));
  CHECK_PETSC(VecGetArrayRead(t.model->x, &x0));
  CHECK_PETSC(PetscArraycpy(x, x0, n));
  CHECK_PETSC(VecRestoreArrayRead(t.model->x, &x0));
  CHECK_PETSC(TestSimDestroy(&t));
  for (PetscInt v = 0; v < n / 3; v++)
    for (int d = 0; d < 3; d++) c[d] += x[3 * v + d] / (n / 3);
  for (PetscInt v = 1; v < n / 3; v++) {
    PetscReal dv = 0, df = 0;
    for (int d = 0; d < 3; d++) dv += PetscSqr(x[3 * v + d] - c[d]), df += PetscSqr(x[3 * far + d] - c[d]);
    if (dv > df) far = v;
  }
  for (int d = 0; d < 3; d++) u[d] = x[3 * far + d] - c[d], len += u[d] * u[d];
  len = PetscSqrtReal(len);
  for (int d = 0; d < 3; d++) u[d] /= len;
  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "%s -ipc_sphere_radius %g -ipc_sphere_center %.17g,%.17g,%.17g", base, (double)r,
                            (double)(x[3 * far] + (r + 0.5 * st.dhat) * u[0]), (double)(x[3 * far + 1] + (r + 0.5 * st.dhat) * u[1]),
                            (double)(x[3 * far + 2] + (r + 0.5 * st.dhat) * u[2])));
  CHECK_PETSC(TestSimCreate("ipc_stack", "implicit_euler", opts, &t));
  CHECK_PETSC(GetIPC(&t, &ipc));
  DerivativeErrors(ipc, n, x, st.dhat, &errg, &scale, &errh, &hscale);
  ck_assert_msg(scale > 0 && errg <= 1e-5 * scale, "sphere: gradient error %g of %g", errg, scale);
  ck_assert_msg(hscale > 0 && errh <= 1e-4 * hscale, "sphere: Hessian error %g of %g", errh, hscale);
  CHECK_PETSC(PetscFree(x));
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* 200 steps of 1/60 s; every step OK (the solver dispatcher checks admissibility after each) and the
 * bodies end resting (contacts, min distance in (0, dhat)). */
static void Run200(const char *scene, const char *opts)
{
  TestSim t;
  SimEnergy ipc;
  SimIPCStats st;
  PetscInt maxcontacts = 0;
  PetscReal ymin = PETSC_MAX_REAL;
  const PetscScalar *x;

  CHECK_PETSC(TestSimCreate(scene, "implicit_euler", opts, &t));
  CHECK_PETSC(GetIPC(&t, &ipc));
  for (int k = 0; k < 200; k++) {
    SimStepOutcome out;
    const SimStepStats *ss;
    CHECK_PETSC(SimSolverStep(t.solver, 1.0 / 60, &out));
    CHECK_PETSC(SimSolverGetStats(t.solver, &ss));
    ck_assert_msg(out == SIM_STEP_OK || out == SIM_STEP_NOT_CONVERGED, "%s step %d: outcome %d (%s)", scene, k, (int)out, ss->reason);
    CHECK_PETSC(SimIPCGetStats(ipc, &st));
    ck_assert_msg(st.dmin > 0, "%s step %d: min distance %g", scene, k, st.dmin);
    maxcontacts = PetscMax(maxcontacts, st.contacts);
  }
  CHECK_PETSC(VecGetArrayRead(t.model->x, &x));
  for (PetscInt i = 0; i < t.model->nv; i++) ymin = PetscMin(ymin, x[3 * i + 1]);
  CHECK_PETSC(VecRestoreArrayRead(t.model->x, &x));
  ck_assert_msg(maxcontacts > 0 && ymin > 0 && ymin < 2 * st.dhat, "%s: %d contacts, lowest point %g (dhat %g)", scene, (int)maxcontacts, ymin,
                st.dhat);
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}

START_TEST(squishy_ball_200_steps)
{
  Run200("squishy_ball", "-squishy_ball_n 3");
}
END_TEST

START_TEST(stack_200_steps)
{
  Run200("ipc_stack", "-ipc_stack_count 2 -ipc_stack_n 2");
}
END_TEST

/* A stiff box resting on the plane under gravity tilted by 30 degrees (tan = 0.577): mu = 0.7 sticks,
 * mu = 0.3 slides with a = g (sin - mu cos) = 2.356 m/s^2. The acceleration is the change of the
 * mean velocity along the slope between t = 0.3 s and t = 0.6 s. */
static void Slope(PetscReal mu, PetscReal *accel, PetscReal *vend)
{
  const PetscReal g = 9.81, th = PETSC_PI / 6, dt = 0.01;
  char opts[512];
  TestSim t;
  PetscReal v1 = 0, v2 = 0;

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts),
                            "-drop_n 1 -drop_size 0.1 -drop_height 6e-5 -drop_youngs 1e7 -drop_material neohookean -colliders ipc -ipc_plane "
                            "-ipc_mu %g -ipc_eps_v 1e-4 -gravity %.17g,%.17g,0 -newton_vtol_rel 1e-6 -ipc_friction_its 4",
                            (double)mu, g * PetscSinReal(th), -g * PetscCosReal(th)));
  CHECK_PETSC(TestSimCreate("drop", "implicit_euler", opts, &t));
  for (int k = 1; k <= 60; k++) {
    SimStepOutcome out;
    CHECK_PETSC(SimSolverStep(t.solver, dt, &out));
    ck_assert_msg(out == SIM_STEP_OK, "slope mu %g step %d: outcome %d", mu, k, (int)out);
    if (k == 30 || k == 60) {
      const PetscScalar *v;
      PetscReal s = 0;
      CHECK_PETSC(VecGetArrayRead(t.model->v, &v));
      for (PetscInt i = 0; i < t.model->nv; i++) s += v[3 * i] / t.model->nv;
      CHECK_PETSC(VecRestoreArrayRead(t.model->v, &v));
      if (k == 30) v1 = s;
      else v2 = s;
    }
  }
  *accel = (v2 - v1) / 0.3;
  *vend = v2;
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}

START_TEST(friction_on_a_slope)
{
  const PetscReal g = 9.81, th = PETSC_PI / 6, expect = g * (PetscSinReal(th) - 0.3 * PetscCosReal(th));
  PetscReal a, v;

  Slope(0.7, &a, &v);
  ck_assert_msg(PetscAbsReal(v) < 1e-3, "mu = 0.7 > tan 30: the box should stick, v = %g m/s", v);
  Slope(0.3, &a, &v);
  ck_assert_msg(PetscAbsReal(a - expect) <= 0.02 * expect, "mu = 0.3: a = %g, expected %g", a, expect);
}
END_TEST

/* An explicit integrator knows nothing of the step bound: the ball falls through the plane, and
 * the first step whose state is not admissible fails with the reason, before it is used. */
START_TEST(inadmissible_state_stops)
{
  TestSim t;
  SimStepOutcome out = SIM_STEP_OK;
  const SimStepStats *ss;
  int k;

  CHECK_PETSC(TestSimCreate("squishy_ball", "symplectic_euler", "-squishy_ball_n 2 -squishy_ball_height 0.01", &t));
  for (k = 0; k < 400 && out != SIM_STEP_FAILED; k++) CHECK_PETSC(SimSolverStep(t.solver, 1e-3, &out));
  CHECK_PETSC(SimSolverGetStats(t.solver, &ss));
  ck_assert_msg(out == SIM_STEP_FAILED && strstr(ss->reason, "not admissible") && strstr(ss->reason, "ipc:"), "after %d steps: outcome %d '%s'", k,
                (int)out, ss->reason);
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("ipc");
  TCase *tc = tcase_create("ipc");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, gradient_and_hessian_match_differences);
  tcase_add_test(tc, sphere_obstacle_derivatives);
  tcase_add_test(tc, squishy_ball_200_steps);
  tcase_add_test(tc, stack_200_steps);
  tcase_add_test(tc, friction_on_a_slope);
  tcase_add_test(tc, inadmissible_state_stops);
  suite_add_tcase(s, tc);
  return s;
}
