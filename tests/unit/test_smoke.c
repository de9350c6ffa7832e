/* Smoke forces of the stablefluids solver, from theory: Boussinesq buoyancy f = (-alpha d + beta T)
 * up lifts hot smoke (the plume's density centroid rises, and stays put without buoyancy or sinks
 * onto the floor when the smoke is heavy; only the combination -alpha d + beta T matters), and
 * vorticity confinement f = eps h (N x omega) feeds the vortex it acts on: on the Taylor-Green
 * vortex f is parallel to u, and the kinetic energy it adds in one step matches dt int rho u.f. */
#include "testing.h"
#include "solvers/stablefluids/sf_impl.h"

typedef struct {
  SimRegistry reg;
  SimScene scene;
  SimProblem problem;
  SimSolver solver;
} Grid;

static PetscErrorCode GridCreate(const char *scene, const char *opts, Grid *g)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  PetscCall(TestSetOptions(opts));
  PetscCall(TestRegistryCreate(&g->reg));
  PetscCall(SimSceneCreate(g->reg, scene, &g->scene));
  PetscCall(SimSceneBuild(g->scene, PETSC_COMM_SELF, &g->problem));
  PetscCall(SimSolverCreate(g->reg, "stablefluids", g->problem, &g->solver));
  PetscCall(SimSolverSetFromOptions(g->solver));
  PetscCall(SimSolverSetUp(g->solver));
  PetscFunctionReturn(0);
}

static PetscErrorCode GridDestroy(Grid *g)
{
  PetscFunctionBeginUser;
  PetscCall(SimSolverDestroy(&g->solver));
  PetscCall(SimProblemDestroy(&g->problem));
  PetscCall(SimSceneDestroy(&g->scene));
  PetscCall(SimRegistryDestroy(&g->reg));
  PetscCall(TestSetOptions(NULL));
  PetscFunctionReturn(0);
}

/* Height of the smoke density's centroid (m) and the total smoke (sum of d over the cells). */
static void DensityCentroid(Grid *g, PetscReal *yc, PetscReal *total)
{
  SF *sf = (SF *)g->solver->data;
  PetscInt xs, ys, zs, xm, ym, zm;
  const PetscScalar *d;
  PetscReal s = 0, sy = 0;

  CHECK_PETSC(DMDAGetCorners(sf->dac, &xs, &ys, &zs, &xm, &ym, &zm));
  CHECK_PETSC(VecGetArrayRead(sf->s, &d)); /* the smoke scalars, interleaved */
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        s += d[SF_NSCALARS * l + SF_DENSITY];
        sy += d[SF_NSCALARS * l + SF_DENSITY] * (j + 0.5) * sf->h;
      }
  CHECK_PETSC(VecRestoreArrayRead(sf->s, &d));
  *yc = s > 0 ? sy / s : 0;
  *total = s;
}

/* A plume without inflow (-smoke_plume_inflow 0: only buoyancy can move the smoke), 16 x 32 cells
 * (h = 1/16 m), 60 steps of 0.02 s. The source fills the cells below 2h, so the centroid starts at h. */
static void Plume(const char *buoyancy, PetscReal temperature, PetscReal *yc, PetscReal *total, PetscReal *h)
{
  Grid g;
  char opts[256];
  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts),
                            "-smoke_plume_n 16 -smoke_plume_inflow 0 -smoke_plume_temperature %g -sf_buoyancy %s",
                            (double)temperature, buoyancy));
  CHECK_PETSC(GridCreate("smoke_plume", opts, &g));
  for (int k = 0; k < 60; k++) CHECK_PETSC(SimSolverStep(g.solver, 0.02, NULL));
  DensityCentroid(&g, yc, total);
  *h = ((SF *)g.solver->data)->h;
  CHECK_PETSC(GridDestroy(&g));
}

START_TEST(buoyancy_lifts_hot_smoke)
{
  PetscReal yc, tot, h, yc0, tot0, ych, toth, yce, tote;

  Plume("0.5,2", 1.0, &yc, &tot, &h); /* the scene's buoyancy: net lift (2 T - 0.5 d) = 1.5 m/s^2 per unit smoke */
  Plume("0,0", 1.0, &yc0, &tot0, &h);
  Plume("2,0", 1.0, &ych, &toth, &h); /* heavy, cold smoke */
  printf("  smoke centroid after 1.2 s (h = %g m): buoyant %.4f m, no buoyancy %.4f m, heavy %.4f m\n", (double)h, (double)yc,
         (double)yc0, (double)ych);
  ck_assert_msg(PetscAbsReal(yc0 - h) < 1e-12, "without buoyancy or inflow nothing moves: centroid %g m, expected h = %g m",
                (double)yc0, (double)h);
  ck_assert_msg(yc > 2 * h, "hot smoke did not rise: centroid %g m after 1.2 s (source at %g m)", (double)yc, (double)h);
  ck_assert_msg(ych < 1.5 * h, "heavy smoke rose: centroid %g m (source at %g m)", (double)ych, (double)h);
  /* only -alpha d + beta T matters: with T = 2 d everywhere (the source sets d = 1, T = 2 and both
   * are advected alike), (alpha, beta) = (0.5, 2) and (0, 1.75) exert the same force */
  Plume("0.5,2", 2.0, &yc, &tot, &h);
  Plume("0,1.75", 2.0, &yce, &tote, &h);
  ck_assert_msg(PetscAbsReal(yc - yce) < 1e-9 * yc && PetscAbsReal(tot - tote) < 1e-9 * tot,
                "buoyancy (0.5, 2) and (0, 1.75) at T = 2 d differ: centroids %.12g and %.12g m", (double)yc, (double)yce);
}
END_TEST

/* Kinetic energy of the stablefluids state (the solver's figure). */
static PetscReal KineticEnergy(Grid *g)
{
  PetscInt n;
  const char *names[SIM_MAX_FIGURES];
  PetscReal values[SIM_MAX_FIGURES];
  CHECK_PETSC(SimSolverFigures(g->solver, &n, names, values));
  for (PetscInt i = 0; i < n; i++)
    if (!strcmp(names[i], "kinetic_energy")) return values[i];
  ck_abort_msg("stablefluids reports no kinetic_energy figure");
  return 0;
}

/* int rho u.f over the box for the Taylor-Green vortex u = U (sin kx cos ky, -cos kx sin ky),
 * k = pi/L: omega = 2 k U sin kx sin ky >= 0, N = grad|omega| / |grad|omega|| =
 * (cos kx sin ky, sin kx cos ky) / S with S = sqrt(cos^2 kx sin^2 ky + sin^2 kx cos^2 ky), and
 * f = eps h omega (N_y, -N_x) = eps h omega / (U S) u, so u.f = eps h omega U S (midpoint rule). */
static PetscReal ConfinementPower(PetscReal rho, PetscReal U, PetscReal L, PetscReal eps, PetscReal h)
{
  const PetscInt q = 400;
  const PetscReal k = PETSC_PI / L, dq = L / q;
  PetscReal sum = 0;
  for (PetscInt i = 0; i < q; i++)
    for (PetscInt j = 0; j < q; j++) {
      const PetscReal x = (i + 0.5) * dq, y = (j + 0.5) * dq, sx = PetscSinReal(k * x), cx = PetscCosReal(k * x),
                      sy = PetscSinReal(k * y), cy = PetscCosReal(k * y);
      sum += 2 * k * U * sx * sy * U * PetscSqrtReal(cx * cx * sy * sy + sx * sx * cy * cy);
    }
  return rho * eps * h * sum * dq * dq;
}

START_TEST(vorticity_confinement_feeds_the_vortex)
{
  const PetscReal dt = 0.005, eps = 2;
  Grid a, b;
  PetscReal Ka, Kb, P, ha;
  char opts[128];

  /* one step: the energy confinement adds is dt int rho u.f (the projection keeps it: u is
   * divergence-free, so the gradient part of f does no work) */
  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-taylor_green_n 32 -sf_vorticity %g", (double)eps));
  CHECK_PETSC(GridCreate("taylor_green", opts, &a));
  CHECK_PETSC(GridCreate("taylor_green", "-taylor_green_n 32", &b));
  CHECK_PETSC(SimSolverStep(a.solver, dt, NULL));
  CHECK_PETSC(SimSolverStep(b.solver, dt, NULL));
  Ka = KineticEnergy(&a);
  Kb = KineticEnergy(&b);
  ha = ((SF *)a.solver->data)->h;
  P = ConfinementPower(((SF *)a.solver->data)->rho, 1.0, 1.0, eps, ha);
  printf(
      "  vorticity confinement eps %g, one step of %g s: kinetic energy %.9g (without: %.9g), gain %.4e, dt int rho u.f = %.4e\n",
      (double)eps, (double)dt, (double)Ka, (double)Kb, (double)(Ka - Kb), (double)(dt * P));
  ck_assert_msg(Ka > Kb, "vorticity confinement took energy out of the vortex (%g -> %g)", (double)Kb, (double)Ka);
  ck_assert_msg(PetscAbsReal((Ka - Kb) / (dt * P) - 1) < 0.05, "confinement added %g J in one step, theory dt int rho u.f = %g J",
                (double)(Ka - Kb), (double)(dt * P));
  /* and it keeps feeding it */
  for (int k = 0; k < 20; k++) {
    CHECK_PETSC(SimSolverStep(a.solver, dt, NULL));
    CHECK_PETSC(SimSolverStep(b.solver, dt, NULL));
  }
  ck_assert_msg(KineticEnergy(&a) - KineticEnergy(&b) > 10 * (Ka - Kb),
                "confinement's gain did not grow: %g after 21 steps, %g after 1", (double)(KineticEnergy(&a) - KineticEnergy(&b)),
                (double)(Ka - Kb));
  CHECK_PETSC(GridDestroy(&a));
  CHECK_PETSC(GridDestroy(&b));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("smoke");
  TCase *tc = tcase_create("forces");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, buoyancy_lifts_hot_smoke);
  tcase_add_test(tc, vorticity_confinement_feeds_the_vortex);
  suite_add_tcase(s, tc);
  return s;
}
