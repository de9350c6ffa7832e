/* The shallow_water solver (solvers/swe): the fluxes are consistent (equal states give the exact
 * flux) and nothing crosses a mirrored wall; a small standing wave in a closed channel has the
 * period 2 L / sqrt(g H) within 2% (the wave speed), at both orders; with reflective walls the
 * volume stays constant to round-off, while open faces let the waves out; a lake at rest over a
 * bottom hill stays at rest (well balanced); bad input is refused with a message naming it. */
#include "testing.h"
#include "solvers/swe/swe_impl.h"

/* A solver on a grid problem the test fills in (options replace the database). */
typedef struct {
  SimRegistry reg;
  SimProblem problem;
  SimSolver solver;
  SWE *w;
} SWESim;

static PetscErrorCode SWESimCreate(const SimGridProblem *desc, const char *opts, SWESim *t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(t, sizeof(*t)));
  PetscCall(TestSetOptions(opts));
  PetscCall(TestRegistryCreate(&t->reg));
  PetscCall(SimGridProblemCreateFromDescription(t->reg, PETSC_COMM_SELF, desc, "test", &t->problem));
  PetscCall(SimSolverCreate(t->reg, "shallow_water", t->problem, &t->solver));
  PetscCall(SimSolverSetFromOptions(t->solver));
  PetscCall(SimSolverSetUp(t->solver));
  t->w = (SWE *)t->solver->data;
  PetscFunctionReturn(0);
}

static PetscErrorCode SWESimDestroy(SWESim *t)
{
  PetscFunctionBeginUser;
  PetscCall(SimSolverDestroy(&t->solver));
  PetscCall(SimProblemDestroy(&t->problem));
  PetscCall(SimRegistryDestroy(&t->reg));
  PetscCall(TestSetOptions(NULL));
  PetscFunctionReturn(0);
}

/* ---- fluxes ---- */
START_TEST(fluxes_are_consistent_and_walls_pass_no_mass)
{
  const PetscReal g = 9.81;
  const SWEFluxKind kinds[2] = {SWE_FLUX_HLL, SWE_FLUX_RUSANOV};
  for (int k = 0; k < 2; k++)
    for (int t = 0; t < 20; t++) {
      const PetscReal h = 0.1 + 0.3 * t, u = 0.7 * PetscSinReal(1.3 * t) * PetscSqrtReal(g * h) * 2, v = PetscCosReal(0.7 * t);
      PetscReal F[3], W[3];
      const PetscReal exact[3] = {h * u, h * u * u + 0.5 * g * h * h, h * u * v};
      SWERiemannFlux(kinds[k], g, h, u, v, h, u, v, F);
      for (int c = 0; c < 3; c++) ck_assert_msg(PetscAbsReal(F[c] - exact[c]) <= 1e-13 * (1 + PetscAbsReal(exact[c])), "flux %d: %g vs %g", c,
                                                (double)F[c], (double)exact[c]);
      /* the mirror image across a wall: no mass crosses */
      SWERiemannFlux(kinds[k], g, h, -u, v, h, u, v, W);
      ck_assert_msg(W[0] == 0, "mirrored states: mass flux %g", (double)W[0]);
      /* dry on one side: the flux is finite and the water moves toward the dry side */
      SWERiemannFlux(kinds[k], g, h, 0, 0, 0, 0, 0, W);
      ck_assert_msg(W[0] > 0 && PetscIsNormalReal(W[1]), "a dry right side: mass flux %g", (double)W[0]);
    }
}
END_TEST

/* ---- a closed channel of depth H: L = 10 m, 100 x 2 cells ---- */
typedef struct {
  PetscReal L, H, a, bump;
} Channel;

static PetscErrorCode CosineDepth(void *ctx, const PetscReal x[3], PetscReal t, PetscReal *h)
{
  const Channel *c = (Channel *)ctx;
  *h = c->H + c->a * PetscCosReal(PETSC_PI * x[0] / c->L);
  return 0;
}

static void ChannelProblem(Channel *c, PetscInt n, SimGridProblem *p)
{
  CHECK_PETSC(SimGridProblemSetDefaults(p));
  p->dim = 2;
  p->n[0] = n, p->n[1] = 2, p->n[2] = 1;
  p->extent[0] = c->L, p->extent[1] = 2 * c->L / n, p->extent[2] = c->L / n;
  p->ctx = c;
  CHECK_PETSC(SimGridProblemAddScalar(p, "depth", CosineDepth, NULL));
}

/* Depth of cell (i, 0) on one rank. */
static PetscReal CellDepth(SWE *w, PetscInt i)
{
  const PetscScalar *a;
  PetscReal h;
  CHECK_PETSC(VecGetArrayRead(w->U, &a));
  h = a[3 * i];
  CHECK_PETSC(VecRestoreArrayRead(w->U, &a));
  return h;
}

/* The standing mode h = H + a cos(pi x / L) cos(omega t), omega = pi c / L, c = sqrt(g H): the
 * depth at the wall crosses H at T/4 and 3T/4; the period from the two crossings (interpolated
 * linearly between steps) against 2 L / c. */
static void StandingWavePeriod(const char *opts, PetscReal *period, PetscReal *exact)
{
  Channel c = {10.0, 1.0, 1e-3, 0};
  SimGridProblem p;
  SWESim t;
  const PetscReal dt = 0.01;
  PetscReal prev, cross[2] = {0, 0}, g;
  PetscInt found = 0;

  ChannelProblem(&c, 100, &p);
  CHECK_PETSC(SWESimCreate(&p, opts, &t));
  g = t.w->g;
  *exact = 2 * c.L / PetscSqrtReal(g * c.H);
  prev = CellDepth(t.w, 0) - c.H;
  for (PetscInt s = 1; found < 2 && s * dt < *exact; s++) {
    PetscReal cur;
    SimStepOutcome out;
    CHECK_PETSC(SimSolverStep(t.solver, dt, &out));
    ck_assert_int_eq(out, SIM_STEP_OK);
    cur = CellDepth(t.w, 0) - c.H;
    if (prev * cur < 0) cross[found++] = (s - 1) * dt + dt * prev / (prev - cur);
    prev = cur;
  }
  ck_assert_msg(found == 2, "%s: the depth at the wall crossed H %d times in one period", opts, (int)found);
  *period = 2 * (cross[1] - cross[0]);
  CHECK_PETSC(SWESimDestroy(&t));
}

START_TEST(standing_wave_period_matches_sqrt_g_h_within_two_percent)
{
  const char *opts[3] = {"", "-swe_order 1", "-swe_flux rusanov"};
  for (int k = 0; k < 3; k++) {
    PetscReal T, Tex;
    StandingWavePeriod(opts[k], &T, &Tex);
    ck_assert_msg(PetscAbsReal(T - Tex) < 0.02 * Tex, "'%s': period %.5f s, 2L/sqrt(gH) = %.5f s (%.3f%%)", opts[k], (double)T, (double)Tex,
                  (double)(100 * (T - Tex) / Tex));
  }
}
END_TEST

/* ---- a drop in a square pool ---- */
static PetscErrorCode Figure(SimSolver s, const char *name, PetscReal *value)
{
  PetscInt n;
  const char *names[SIM_MAX_FIGURES];
  PetscReal values[SIM_MAX_FIGURES];

  PetscFunctionBeginUser;
  PetscCall(SimSolverFigures(s, &n, names, values));
  for (PetscInt i = 0; i < n; i++)
    if (!strcmp(names[i], name)) {
      *value = values[i];
      PetscFunctionReturn(0);
    }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "no figure %s", name);
}

/* 200 steps of 10 ms (the waves cross the pool and reflect ~3 times): the relative volume change
 * with walls everywhere is round-off; with open faces the waves leave and take water with them. */
START_TEST(volume_is_constant_to_round_off_with_reflective_walls)
{
  const char *opts[2] = {"-swe_drop_n 32", "-swe_drop_n 32 -swe_drop_open"};
  for (int k = 0; k < 2; k++) {
    TestSim t;
    PetscReal dv = 0, v;
    CHECK_PETSC(TestSimCreate("swe_drop", "shallow_water", opts[k], &t));
    for (PetscInt s = 0; s < 200; s++) {
      CHECK_PETSC(SimSolverStep(t.solver, 0.01, NULL));
      CHECK_PETSC(Figure(t.solver, "volume_change", &v));
      dv = PetscMax(dv, PetscAbsReal(v));
    }
    if (k == 0) ck_assert_msg(dv < 1e-13, "walls: the volume changed by %g (relative)", (double)dv);
    else ck_assert_msg(dv > 1e-4, "open faces: the volume changed by only %g", (double)dv);
    CHECK_PETSC(TestSimDestroy(&t));
  }
}
END_TEST

/* A lake at rest (surface flat at H = 0.5 m) over a Gaussian hill of 0.3 m: 100 steps leave the
 * velocity below 1e-12 m/s and the surface flat to 1e-12 m, for both orders and both fluxes; an
 * unbalanced discretization of the bottom slope would start a flow of order g |grad b| dt. */
START_TEST(lake_at_rest_stays_at_rest_over_a_hill)
{
  const char *opts[3] = {"", "-swe_order 1", "-swe_flux rusanov"};
  for (int k = 0; k < 3; k++) {
    TestSim t;
    char o[256];
    PetscReal sp = 0, lo, hi, v;
    CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "-swe_drop_n 32 -swe_drop_height 0 -swe_drop_bump 0.3 %s", opts[k]));
    CHECK_PETSC(TestSimCreate("swe_drop", "shallow_water", o, &t));
    for (PetscInt s = 0; s < 100; s++) {
      CHECK_PETSC(SimSolverStep(t.solver, 0.01, NULL));
      CHECK_PETSC(Figure(t.solver, "max_speed", &v));
      sp = PetscMax(sp, v);
    }
    CHECK_PETSC(Figure(t.solver, "surface_min", &lo));
    CHECK_PETSC(Figure(t.solver, "surface_max", &hi));
    ck_assert_msg(sp < 1e-12 && PetscAbsReal(lo - 0.5) < 1e-12 && PetscAbsReal(hi - 0.5) < 1e-12, "'%s': speed %g, surface [%.15f, %.15f]", opts[k],
                  (double)sp, (double)lo, (double)hi);
    CHECK_PETSC(TestSimDestroy(&t));
  }
}
END_TEST

/* A dry-bed dam break keeps depths >= 0 and the volume to round-off while the front runs over the
 * dry bed (Ritter: at 2 sqrt(g h0)). */
START_TEST(dry_bed_dam_break_keeps_depths_nonnegative)
{
  TestSim t;
  PetscReal hmin, dv;
  SimStepOutcome out;
  CHECK_PETSC(TestSimCreate("dam_break_swe", "shallow_water", "-dam_break_swe_right 0 -dam_break_swe_n 100", &t));
  for (PetscInt s = 0; s < 50; s++) {
    CHECK_PETSC(SimSolverStep(t.solver, 0.01, &out));
    ck_assert_int_eq(out, SIM_STEP_OK);
  }
  CHECK_PETSC(Figure(t.solver, "depth_min", &hmin));
  CHECK_PETSC(Figure(t.solver, "volume_change", &dv));
  ck_assert_msg(hmin >= 0 && PetscAbsReal(dv) < 1e-13, "depth_min %g, volume change %g", (double)hmin, (double)dv);
  CHECK_PETSC(TestSimDestroy(&t));
}
END_TEST

/* ---- bad input ---- */
static void ExpectError(const SimGridProblem *p, const char *opts, const char *expect)
{
  SWESim t;
  TestErrorCapture cap = {""};
  PetscErrorCode ierr;
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SWESimCreate(p, opts, &t);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0 && strstr(cap.msg, expect), "'%s': expected an error with '%s', got '%s'", opts, expect, cap.msg);
  CHECK_PETSC(SWESimDestroy(&t));
}

static PetscErrorCode NegativeDepth(void *ctx, const PetscReal x[3], PetscReal t, PetscReal *h)
{
  *h = x[0] > 5 ? -0.1 : 1;
  return 0;
}

START_TEST(bad_input_is_refused_naming_it)
{
  Channel c = {10.0, 1.0, 1e-3, 0};
  SimGridProblem p, q;
  ChannelProblem(&c, 20, &p);
  ExpectError(&p, "-swe_cfl 0.8", "-swe_cfl must be in (0, 0.5]");
  ExpectError(&p, "-swe_order 3", "-swe_order must be 1 or 2");
  ExpectError(&p, "-swe_flux roe", "unknown flux 'roe' (valid: hll, rusanov)");
  ExpectError(&p, "-swe_gravity 0", "-swe_gravity must be > 0");
  q = p;
  q.nscalars = 0;
  ExpectError(&q, "", "has no scalar field 'depth'");
  q = p;
  q.scalar[0].initial = NegativeDepth;
  ExpectError(&q, "", "a depth (and the bottom) must be finite and >= 0");
  q = p;
  q.dim = 3, q.n[2] = 2, q.extent[2] = 2 * c.L / 20;
  ExpectError(&q, "", "a height field lives on a 2D grid");
  q = p;
  q.face[0] = SIM_GRID_INFLOW;
  ExpectError(&q, "", "is an inflow");
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("swe");
  TCase *tc = tcase_create("shallow_water");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, fluxes_are_consistent_and_walls_pass_no_mass);
  tcase_add_test(tc, standing_wave_period_matches_sqrt_g_h_within_two_percent);
  tcase_add_test(tc, volume_is_constant_to_round_off_with_reflective_walls);
  tcase_add_test(tc, lake_at_rest_stays_at_rest_over_a_hill);
  tcase_add_test(tc, dry_bed_dam_break_keeps_depths_nonnegative);
  tcase_add_test(tc, bad_input_is_refused_naming_it);
  suite_add_tcase(s, tc);
  return s;
}
