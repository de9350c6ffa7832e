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
      CHECK_PETSC(TestSolverFigure(t.solver, "volume_change", &v));
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
      CHECK_PETSC(TestSolverFigure(t.solver, "max_speed", &v));
      sp = PetscMax(sp, v);
    }
    CHECK_PETSC(TestSolverFigure(t.solver, "surface_min", &lo));
    CHECK_PETSC(TestSolverFigure(t.solver, "surface_max", &hi));
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
  CHECK_PETSC(TestSolverFigure(t.solver, "depth_min", &hmin));
  CHECK_PETSC(TestSolverFigure(t.solver, "volume_change", &dv));
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

/* ---- the wave tank's floating box (solvers/swe/float.c), a 4 m x 1 m tank 0.5 m deep at 40 x 10 cells,
 * a 0.4 x 0.4 x 0.3 m box of 500 kg/m^3 (mass M = 24 kg, footprint A = 0.16 m^2) ---- */
static const PetscReal tank_len = 4, tank_depth = 0.5, tank_area = 4.0, box_area = 0.16, box_mass = 24, g_tank = 9.81;

/* Placed at Archimedes' draft M / (rho A) = 0.15 m, the box stays there: the buoyancy rho g A d equals
 * its weight, so nothing moves (round-off only); the volume (field plus the column under the box) is
 * constant to round-off. */
START_TEST(floating_box_at_archimedes_draft_stays_at_rest)
{
  TestSim t;
  SimStepOutcome out;
  PetscReal d, d_rest, v, dv, dvmax = 0;

  CHECK_PETSC(TestSimCreate("wave_tank", "shallow_water", "-wave_tank_n 40 -wave_tank_wave 0", &t));
  for (int k = 0; k < 200; k++) {
    CHECK_PETSC(SimSolverStep(t.solver, 1e-2, &out));
    ck_assert_int_eq(out, SIM_STEP_OK);
    if (k == 0) {
      CHECK_PETSC(TestSolverFigure(t.solver, "box_draft_rest", &d_rest));
      ck_assert_msg(PetscAbsReal(d_rest - box_mass / (1000 * box_area)) < 1e-12, "draft at rest %g m, M / (rho A) = %g m", (double)d_rest,
                    (double)(box_mass / (1000 * box_area)));
    }
    CHECK_PETSC(TestSolverFigure(t.solver, "volume_change", &dv));
    dvmax = PetscMax(dvmax, PetscAbsReal(dv));
  }
  CHECK_PETSC(TestSolverFigure(t.solver, "box_draft", &d));
  CHECK_PETSC(TestSolverFigure(t.solver, "box_velocity", &v));
  ck_assert_msg(PetscAbsReal(d - d_rest) < 1e-9 && PetscAbsReal(v) < 1e-9, "after 2 s: draft %.12g m (at rest %.12g m), velocity %g m/s", (double)d,
                (double)d_rest, (double)v);
  ck_assert_msg(dvmax < 1e-13, "relative volume change %g", (double)dvmax);
  CHECK_PETSC(TestSimDestroy(&t));
}
END_TEST

/* Released 3 cm above its draft, the box heaves. (1) The water volume, the column under the box
 * included, stays constant to round-off while the box pushes water into the field and draws it back.
 * (2) Its period: the buoyancy rho g A (eta - z_b) against the weight, with the water the box pushes
 * out raising the free surface A_f = A_tank - A around it by A dz / A_f, is a spring of stiffness
 * rho g A (1 + A / A_f) on the mass M: T = 2 pi sqrt(M / (rho g A (1 + A / A_f))) (0.76 s; the added
 * mass of the water is not in this model). Measured between the first two upward crossings of the
 * draft, before the waves the box radiates come back from the end walls (2 (L/2) / sqrt(g H) = 1.8
 * s), within 10%: the pushed-out water first piles up next to the box before it spreads (stiffer:
 * shorter), and the radiated waves damp it (longer). (3) Over 10 s the mean buoyancy equals the weight
 * to |dv| / (g T) <= 2 vmax / (g T) (Newton: M (v(T) - v(0)) = integral of (F - M g)), so the mean
 * draft is Archimedes' within 1%. */
START_TEST(floating_box_heaves_at_its_period_about_archimedes_draft)
{
  TestSim t;
  SimStepOutcome out;
  const PetscReal dt = 5e-3, Af = tank_area - box_area;
  const PetscReal T = 2 * PETSC_PI * PetscSqrtReal(box_mass / (1000 * g_tank * box_area * (1 + box_area / Af)));
  const PetscReal t_back = tank_len / PetscSqrtReal(g_tank * tank_depth);
  PetscReal d, d_rest, dv, dvmax = 0, prev = 0, up[2] = {0, 0}, mean = 0, vmax = 0, v;
  PetscInt nup = 0, nsteps = 2000;

  CHECK_PETSC(TestSimCreate("wave_tank", "shallow_water", "-wave_tank_n 40 -wave_tank_wave 0 -wave_tank_offset 0.03", &t));
  for (PetscInt k = 1; k <= nsteps; k++) {
    CHECK_PETSC(SimSolverStep(t.solver, dt, &out));
    ck_assert_int_eq(out, SIM_STEP_OK);
    if (k == 1) CHECK_PETSC(TestSolverFigure(t.solver, "box_draft_rest", &d_rest));
    CHECK_PETSC(TestSolverFigure(t.solver, "volume_change", &dv));
    dvmax = PetscMax(dvmax, PetscAbsReal(dv));
    CHECK_PETSC(TestSolverFigure(t.solver, "box_draft", &d));
    CHECK_PETSC(TestSolverFigure(t.solver, "box_velocity", &v));
    vmax = PetscMax(vmax, PetscAbsReal(v));
    mean += d / nsteps;
    /* the box above its draft: d < d_rest; an upward crossing of the box is d going below d_rest */
    if (k > 1 && prev - d_rest > 0 && d - d_rest <= 0 && nup < 2 && k * dt < t_back) up[nup++] = (k - 1) * dt + dt * (prev - d_rest) / (prev - d);
    prev = d;
  }
  ck_assert_msg(dvmax < 1e-13, "relative volume change %g", (double)dvmax);
  ck_assert_msg(nup == 2, "%d upward crossings before the reflections return (%g s)", (int)nup, (double)t_back);
  ck_assert_msg(PetscAbsReal(up[1] - up[0] - T) < 0.1 * T, "heave period %.4f s, theory %.4f s (%.1f%%)", (double)(up[1] - up[0]), (double)T,
                (double)(100 * (up[1] - up[0] - T) / T));
  ck_assert_msg(2 * vmax / (g_tank * nsteps * dt) < 0.01, "the bound on the mean is too loose: vmax %g m/s", (double)vmax);
  ck_assert_msg(PetscAbsReal(mean - d_rest) < 0.01 * d_rest, "mean draft %.5f m, Archimedes %.5f m", (double)mean, (double)d_rest);
  CHECK_PETSC(TestSimDestroy(&t));
}
END_TEST

/* Pitch: a wide box (0.8 x 0.4 x 0.2 m, 500 kg/m^3: M = 32 kg, draft 0.1 m) released tilted 0.1 rad
 * about y, in the 4 m tank at 80 x 20 cells (a footprint of 16 x 8 columns), rights itself: the
 * buoyancy of the deeper columns turns it back. Its righting moment per radian is the waterplane's,
 * rho g W L^3 / 12 = 167 N m, less the weight's M g BG = 15.7 N m (the centre of buoyancy 0.05 m
 * below the centre of mass): K = 152 N m, and with I_yy = M (L^2 + H^2) / 12 = 1.81 kg m^2 (the
 * water's added inertia not in this model) it rocks with T = 2 pi sqrt(I / K) = 0.69 s. Tested: the
 * pitch changes sign within 0.75 T (it is righted: a box without the torque would keep its tilt;
 * measured 0.17 s), its first period (downward crossings of 0) is T within 3% (measured 0.686 s, 0.15%;
 * the waterplane term alone would give 0.654 s, -4.8%: the test sees the BG term), it never exceeds
 * the start's tilt by more than symplectic Euler's bounded energy error (1%; measured 7e-5), the mean
 * pitch over 3 s is below 10% of the start's, and the volume of water (the field plus the columns
 * under the box) stays constant to round-off (measured 6e-15). */
START_TEST(tilted_wide_box_rights_itself)
{
  TestSim t;
  SimStepOutcome out;
  const PetscReal dt = 2.5e-3, th0 = 0.1, M = 32, L = 0.8, W = 0.4, H = 0.2;
  const PetscReal K = 1000 * g_tank * W * L * L * L / 12 - M * g_tank * 0.05, T = 2 * PETSC_PI * PetscSqrtReal(M * (L * L + H * H) / 12 / K);
  PetscReal th, prev = th0, dv, dvmax = 0, thmax = 0, mean = 0, first = -1, down[2] = {0, 0};
  PetscInt nsteps = 1200, ndown = 0;

  CHECK_PETSC(TestSimCreate("wave_tank", "shallow_water", "-wave_tank_n 80 -wave_tank_wave 0 -wave_tank_box 0.8,0.4,0.2 -wave_tank_pitch 0.1", &t));
  for (PetscInt k = 1; k <= nsteps; k++) {
    CHECK_PETSC(SimSolverStep(t.solver, dt, &out));
    ck_assert_int_eq(out, SIM_STEP_OK);
    CHECK_PETSC(TestSolverFigure(t.solver, "volume_change", &dv));
    dvmax = PetscMax(dvmax, PetscAbsReal(dv));
    CHECK_PETSC(TestSolverFigure(t.solver, "box_pitch", &th));
    thmax = PetscMax(thmax, PetscAbsReal(th));
    mean += th / nsteps;
    if (first < 0 && th <= 0) first = k * dt;
    if (prev > 0 && th <= 0 && ndown < 2) down[ndown++] = (k - 1) * dt + dt * prev / (prev - th);
    prev = th;
  }
  ck_assert_msg(dvmax < 1e-13, "relative volume change %g", (double)dvmax);
  ck_assert_msg(first > 0 && first < 0.75 * T, "the pitch first reaches 0 at %g s (T = %g s)", (double)first, (double)T);
  ck_assert_msg(ndown == 2 && PetscAbsReal(down[1] - down[0] - T) < 0.03 * T, "pitch period %g s, theory %g s", (double)(down[1] - down[0]), (double)T);
  ck_assert_msg(thmax <= 1.01 * th0, "largest pitch %g rad (start %g)", (double)thmax, (double)th0);
  ck_assert_msg(PetscAbsReal(mean) < 0.1 * th0, "mean pitch %g rad", (double)mean);
  CHECK_PETSC(TestSimDestroy(&t));
}
END_TEST

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
  tcase_add_test(tc, floating_box_at_archimedes_draft_stays_at_rest);
  tcase_add_test(tc, floating_box_heaves_at_its_period_about_archimedes_draft);
  tcase_add_test(tc, tilted_wide_box_rights_itself);
  tcase_add_test(tc, bad_input_is_refused_naming_it);
  suite_add_tcase(s, tc);
  return s;
}
