/* The benchmark harness's own arithmetic and bookkeeping: order and drift fits on synthetic data,
 * stable-dt bisection on a synthetic criterion, the GSL ODE reference against the oscillator's
 * analytic solution, suite parsing (and its errors), and the fields of summary.json. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <dirent.h>
#include "testing.h"
#include "framework/scene.h"
#include "benchmarks/metrics.h"
#include "benchmarks/reference_ode.h"
#include "benchmarks/suite.h"
#include "benchmarks/report.h"

/* e = C dt^p exactly: the fit and the last pair return p. */
START_TEST(test_order_fit_exact)
{
  const PetscReal p[3] = {1, 2, 4};
  PetscReal dt[5], err[5], order, last;

  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 5; i++) dt[i] = 0.1 / pow(2, i), err[i] = 3.7 * pow(dt[i], p[k]);
    CHECK_PETSC(BenchFitOrder(5, dt, err, &order, &last));
    ck_assert_msg(fabs(order - p[k]) < 1e-10, "order %g, expected %g", order, p[k]);
    ck_assert_msg(fabs(last - p[k]) < 1e-10, "last-pair order %g, expected %g", last, p[k]);
  }
}
END_TEST

/* Mildly perturbed data (+-5% alternating), unsorted dt, and unusable points (NaN, 0) that are skipped. */
START_TEST(test_order_fit_perturbed)
{
  PetscReal dt[7], err[7], order, last;
  const int perm[5] = {3, 0, 4, 1, 2};

  for (int i = 0; i < 5; i++) {
    int k = perm[i];
    dt[i] = 0.02 / pow(2, k);
    err[i] = 0.5 * pow(dt[i], 2) * (1 + 0.05 * (k % 2 ? -1 : 1));
  }
  dt[5] = 0.04, err[5] = NAN; /* a failed run */
  dt[6] = 0.08, err[6] = 0;   /* an exact result: log undefined */
  CHECK_PETSC(BenchFitOrder(7, dt, err, &order, &last));
  ck_assert_msg(fabs(order - 2) < 0.05, "order %g, expected 2 +- 0.05", order);
  /* the finest pair is k = 3 (-5%) and k = 4 (+5%): 2 + log2(0.95 / 1.05) */
  ck_assert_msg(fabs(last - (2 + log(0.95 / 1.05) / log(2))) < 1e-10, "last-pair order %g", last);
  /* fewer than two usable points: NaN */
  CHECK_PETSC(BenchFitOrder(1, dt, err, &order, &last));
  ck_assert(isnan(order) && isnan(last));
}
END_TEST

/* r_k = r_{k-1}^p exactly (Newton p = 2, a linear rate p = 1): every estimate is p; a stall and a
 * non-finite residual give no estimate. */
START_TEST(test_local_order)
{
  PetscReal r[6], q[6], peak;

  r[0] = 0.5;
  for (int k = 1; k < 6; k++) r[k] = r[k - 1] * r[k - 1];
  CHECK_PETSC(BenchLocalOrder(6, r, q, &peak));
  ck_assert(isnan(q[0]) && isnan(q[1]));
  for (int k = 2; k < 6; k++) ck_assert_msg(fabs(q[k] - 2) < 1e-10, "q[%d] = %g, expected 2", k, q[k]);
  ck_assert_msg(fabs(peak - 2) < 1e-10, "peak %g", peak);
  for (int k = 0; k < 6; k++) r[k] = 3.0 * pow(0.1, k);
  CHECK_PETSC(BenchLocalOrder(6, r, NULL, &peak));
  ck_assert_msg(fabs(peak - 1) < 1e-10, "linear rate: peak %g, expected 1", peak);
  /* the classic Newton tail cut by the tolerance: the peak keeps the quadratic phase */
  {
    const PetscReal tail[5] = {88, 1.05, 6.2e-3, 1.1e-7, 5.3e-12};
    CHECK_PETSC(BenchLocalOrder(5, tail, q, &peak));
    ck_assert_msg(peak > 2 && q[4] < 1, "peak %g, last %g", peak, q[4]);
  }
  /* a slow linear rate with round-off jitter (PD at rate 0.9): no estimate, not a spurious large one */
  for (int k = 0; k < 6; k++) r[k] = pow(0.9, k) * (1 + 1e-3 * (k % 2));
  CHECK_PETSC(BenchLocalOrder(6, r, NULL, &peak));
  ck_assert_msg(isnan(peak), "slow rate: peak %g, expected none", peak);
  r[0] = 1, r[1] = 0.1, r[2] = 0.1, r[3] = NAN; /* stall, then a failure */
  CHECK_PETSC(BenchLocalOrder(4, r, q, &peak));
  ck_assert(isnan(q[2]) && isnan(q[3]) && isnan(peak));
}
END_TEST

/* E(t) = E0 (1 + a t + b sin(w t)): drift = a, max and final from the definition. */
START_TEST(test_drift_fit)
{
  const PetscInt n = 20001;
  const PetscReal E0 = -2.5, a = 3e-4, b = 1e-3, w = 2 * M_PI * 1.7;
  PetscReal *t, *E, emax = 0, efinal;
  BenchEnergyStats st;
  PetscErrorCode ierr;

  CHECK_PETSC(PetscMalloc2(n, &t, n, &E));
  for (PetscInt i = 0; i < n; i++) {
    t[i] = 100.0 * i / (n - 1);
    E[i] = E0 + fabs(E0) * (a * t[i] + b * sin(w * t[i]));
    emax = PetscMax(emax, fabs(a * t[i] + b * sin(w * t[i])));
  }
  efinal = fabs(a * t[n - 1] + b * sin(w * t[n - 1]));
  CHECK_PETSC(BenchEnergyErrorStats(n, t, E, &st));
  ck_assert_msg(fabs(st.drift - a) < 0.01 * a, "drift %g, expected %g", st.drift, a);
  ck_assert_msg(fabs(st.max - emax) < 1e-12, "max %g, expected %g", st.max, emax);
  ck_assert_msg(fabs(st.final - efinal) < 1e-12, "final %g, expected %g", st.final, efinal);
  /* a straight line is fitted exactly */
  for (PetscInt i = 0; i < n; i++) E[i] = 4 - 0.25 * t[i];
  CHECK_PETSC(BenchEnergyErrorStats(n, t, E, &st));
  ck_assert_msg(fabs(st.drift + 0.25 / 4) < 1e-12, "drift %g, expected %g", st.drift, -0.25 / 4);
  /* E(0) = 0: the relative error is undefined, an input error */
  E[0] = 0;
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = BenchEnergyErrorStats(n, t, E, &st);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE, "E(0) = 0 must be an error (got %d)", (int)ierr);
  CHECK_PETSC(PetscFree2(t, E));
}
END_TEST

typedef struct {
  PetscReal limit;
  PetscInt calls;
  PetscReal smallest; /* the smallest dt probed */
} Synthetic;

static PetscErrorCode StableBelow(void *ctx, PetscReal dt, PetscBool *stable)
{
  Synthetic *s = (Synthetic *)ctx;
  if (!s->calls || dt < s->smallest) s->smallest = dt;
  s->calls++;
  *stable = (PetscBool)(dt < s->limit);
  return 0;
}

/* Bracketing from a start, up or down by a factor, then bisection: the boundary within the tolerance,
 * and no probe far below it (never dt_min = 1e-5 when the boundary is at 0.0123); both one-sided cases. */
START_TEST(test_bracketing)
{
  const PetscReal starts[3] = {1e-3, 0.0123 * 0.999, 0.5};
  PetscReal dt;
  BenchBracket how;
  PetscInt probes;

  for (int k = 0; k < 3; k++) {
    Synthetic s = {0.0123, 0, 0};
    CHECK_PETSC(BenchBracketStable(1e-5, 1.0, starts[k], 2, 1e-3, StableBelow, &s, &dt, &how, &probes));
    ck_assert_int_eq(how, BENCH_BRACKETED);
    ck_assert_msg(dt < 0.0123 && dt > 0.0123 / (1 + 1e-3), "start %g: found %.8g, expected within 0.1%% below 0.0123", starts[k], dt);
    ck_assert_int_eq(probes, s.calls);
    ck_assert_msg(s.smallest >= PetscMin(starts[k], 0.0123 / 2), "start %g: probed %g, below the bracket", starts[k], s.smallest);
    ck_assert_msg(probes < 25, "%d probes", (int)probes);
  }
  {
    Synthetic s = {10, 0, 0};
    CHECK_PETSC(BenchBracketStable(1e-5, 1.0, 1e-3, 2, 1e-3, StableBelow, &s, &dt, &how, NULL));
    ck_assert_int_eq(how, BENCH_STABLE_AT_HI);
    ck_assert(dt == 1.0);
  }
  {
    Synthetic s = {1e-6, 0, 0};
    CHECK_PETSC(BenchBracketStable(1e-5, 1.0, 1e-3, 2, 1e-3, StableBelow, &s, &dt, &how, NULL));
    ck_assert_int_eq(how, BENCH_UNSTABLE_AT_LO);
    ck_assert(dt == 1e-5);
  }
}
END_TEST

/* Stable iff dt < 0.0123: found within the tolerance, below the limit; the two one-sided cases. */
START_TEST(test_bisection)
{
  Synthetic s = {0.0123, 0, 0};
  PetscReal dt;
  BenchBracket how;
  PetscInt probes;

  CHECK_PETSC(BenchBisectStable(1e-5, 1.0, 1e-3, StableBelow, &s, &dt, &how, &probes));
  ck_assert_int_eq(how, BENCH_BRACKETED);
  ck_assert_msg(dt < 0.0123 && dt > 0.0123 / (1 + 1e-3), "found %.8g, expected within 0.1%% below 0.0123", dt);
  ck_assert_int_eq(probes, s.calls);
  ck_assert_msg(probes < 30, "%d probes: bisection should be logarithmic", (int)probes);

  s.limit = 10;
  CHECK_PETSC(BenchBisectStable(1e-5, 1.0, 1e-3, StableBelow, &s, &dt, &how, NULL));
  ck_assert_int_eq(how, BENCH_STABLE_AT_HI);
  ck_assert(dt == 1.0);
  s.limit = 1e-6;
  CHECK_PETSC(BenchBisectStable(1e-5, 1.0, 1e-3, StableBelow, &s, &dt, &how, NULL));
  ck_assert_int_eq(how, BENCH_UNSTABLE_AT_LO);
  ck_assert(dt == 1e-5);
}
END_TEST

/* The GSL reference reproduces the oscillator's analytic solution at t = 1 s. */
START_TEST(test_reference_ode)
{
  SimRegistry reg;
  SimScene scene;
  SimModel model;
  SimProblem problem;
  PetscReal xT[6], vT[6], xe[6], ve[6], d[6], ex, ev;
  const PetscScalar *x, *v;
  PetscBool has;

  CHECK_PETSC(TestSetOptions("-oscillator_damping 2"));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimSceneCreate(reg, "oscillator", &scene));
  CHECK_PETSC(SimSceneBuild(scene, PETSC_COMM_SELF, &problem));
  model = SimMeshModel(problem);
  CHECK_PETSC(VecGetArrayRead(model->x, &x));
  CHECK_PETSC(VecGetArrayRead(model->v, &v));
  CHECK_PETSC(BenchReferenceODE(model, x, v, 1.0, 1e-12, 1e-14, xT, vT));
  CHECK_PETSC(VecRestoreArrayRead(model->v, &v));
  CHECK_PETSC(VecRestoreArrayRead(model->x, &x));
  CHECK_PETSC(SimSceneExact(scene, 1.0, xe, ve, &has));
  ck_assert(has);
  for (int k = 0; k < 6; k++) d[k] = xT[k] - xe[k];
  CHECK_PETSC(SimModelMassNorm(model, d, &ex));
  for (int k = 0; k < 6; k++) d[k] = vT[k] - ve[k];
  CHECK_PETSC(SimModelMassNorm(model, d, &ev));
  ck_assert_msg(ex < 1e-10 && ev < 1e-9, "ODE reference error x %g, v %g", ex, ev);
  CHECK_PETSC(SimProblemDestroy(&problem));
  CHECK_PETSC(SimSceneDestroy(&scene));
  CHECK_PETSC(SimRegistryDestroy(&reg));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* The reference trajectory at 4 sample times matches the analytic solution at each; the cache computes
 * it once for repeated requests of the same model and again when the initial state differs. */
START_TEST(test_reference_cache)
{
  SimRegistry reg;
  SimScene scene;
  SimModel model;
  SimProblem problem;
  BenchRefCache cache;
  const PetscReal *xs, *vs, *xs2, *vs2;
  PetscReal xe[6], ve[6], d[6], ex, ev;
  PetscScalar *v;
  PetscBool has;

  CHECK_PETSC(TestSetOptions("-oscillator_damping 2"));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimSceneCreate(reg, "oscillator", &scene));
  CHECK_PETSC(SimSceneBuild(scene, PETSC_COMM_SELF, &problem));
  model = SimMeshModel(problem);
  CHECK_PETSC(BenchRefCacheCreate(&cache));
  CHECK_PETSC(BenchRefCacheGet(cache, "osc", model, 1.0, 4, 1e-12, 1e-14, &xs, &vs));
  for (int k = 0; k <= 4; k++) {
    CHECK_PETSC(SimSceneExact(scene, 0.25 * k, xe, ve, &has));
    ck_assert(has);
    for (int i = 0; i < 6; i++) d[i] = xs[6 * k + i] - xe[i];
    CHECK_PETSC(SimModelMassNorm(model, d, &ex));
    for (int i = 0; i < 6; i++) d[i] = vs[6 * k + i] - ve[i];
    CHECK_PETSC(SimModelMassNorm(model, d, &ev));
    ck_assert_msg(ex < 1e-10 && ev < 1e-9, "sample %d: error x %g, v %g", k, ex, ev);
  }
  CHECK_PETSC(BenchRefCacheGet(cache, "osc", model, 1.0, 4, 1e-12, 1e-14, &xs2, &vs2));
  ck_assert_int_eq(BenchRefCacheComputed(cache), 1);
  ck_assert(xs2 == xs && vs2 == vs);
  CHECK_PETSC(VecGetArray(model->v, &v));
  v[3] = 0.5; /* another initial state under the same key: computed again */
  CHECK_PETSC(VecRestoreArray(model->v, &v));
  CHECK_PETSC(BenchRefCacheGet(cache, "osc", model, 1.0, 4, 1e-12, 1e-14, &xs2, &vs2));
  ck_assert_int_eq(BenchRefCacheComputed(cache), 2);
  ck_assert(vs2[3] == 0.5);
  CHECK_PETSC(BenchRefCacheGet(cache, "other", model, 1.0, 4, 1e-12, 1e-14, &xs2, &vs2));
  ck_assert_int_eq(BenchRefCacheComputed(cache), 3);
  CHECK_PETSC(BenchRefCacheDestroy(&cache));
  CHECK_PETSC(SimProblemDestroy(&problem));
  CHECK_PETSC(SimSceneDestroy(&scene));
  CHECK_PETSC(SimRegistryDestroy(&reg));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* Implicit Euler on x'' = -w^2 x produces x_n = Re(C lambda^n) with lambda = 1 / (1 + i w h): the fit
 * returns |lambda| = |1 + i w h|^-1 per step and the phase atan(w h) per step, light and heavy damping;
 * a sampled damped cosine with an offset gives its parameters back. */
START_TEST(test_oscillation_fit)
{
  const PetscReal w = 10, hs[2] = {0.01, 0.05};
  const PetscInt ns[2] = {1000, 120};

  for (int c = 0; c < 2; c++) {
    PetscReal h = hs[c], x = 0.1, v = 0, *t, *y;
    BenchOscFit fit;
    PetscInt n = ns[c];

    CHECK_PETSC(PetscMalloc2(n, &t, n, &y));
    for (PetscInt i = 0; i < n; i++) {
      /* (x, v)_{n+1} solves x' = x + h v', v' = v - h w^2 x' */
      PetscReal xn = (x + h * v) / (1 + h * h * w * w);
      v = v - h * w * w * xn;
      x = xn;
      t[i] = (i + 1) * h, y[i] = 1 + x; /* an offset, as a position has */
    }
    CHECK_PETSC(BenchFitOscillation(n, t, y, &fit));
    ck_assert_msg(fabs(exp(-fit.sigma * h) - 1 / sqrt(1 + w * w * h * h)) < 1e-9, "h %g: damping per step %.12g, expected %.12g", h,
                  exp(-fit.sigma * h), 1 / sqrt(1 + w * w * h * h));
    ck_assert_msg(fabs(fit.omega * h - atan(w * h)) < 1e-9, "h %g: phase per step %.12g, expected %.12g", h, fit.omega * h, atan(w * h));
    ck_assert_msg(fabs(fit.offset - 1) < 1e-9 && fit.residual < 1e-8, "offset %g, residual %g", fit.offset, fit.residual);
    CHECK_PETSC(PetscFree2(t, y));
  }
  {
    PetscReal t[500], y[500];
    BenchOscFit fit;
    for (int i = 0; i < 500; i++) t[i] = 0.01 * i, y[i] = -0.3 + 2 * exp(-0.4 * t[i]) * cos(7.3 * t[i] + 0.6);
    CHECK_PETSC(BenchFitOscillation(500, t, y, &fit));
    ck_assert_msg(fabs(fit.omega - 7.3) < 1e-9 && fabs(fit.sigma - 0.4) < 1e-9 && fabs(fit.amplitude - 2) < 1e-9,
                  "omega %g sigma %g amplitude %g", fit.omega, fit.sigma, fit.amplitude);
    for (int i = 0; i < 500; i++) y[i] = 1;
    ck_assert(BenchFitOscillation(500, t, y, &fit) != 0); /* no oscillation: an error */
  }
}
END_TEST

/* Every suite in benchmarks/ loads (keys, sweeps, per-point time keys all valid). */
START_TEST(test_committed_suites_load)
{
  DIR *d = opendir(PBSIM_SOURCE_DIR "/benchmarks");
  struct dirent *e;
  int n = 0;

  ck_assert(d != NULL);
  while ((e = readdir(d))) {
    char path[1024];
    BenchSuite *suite;
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".yaml")) continue;
    snprintf(path, sizeof(path), "%s/benchmarks/%s", PBSIM_SOURCE_DIR, e->d_name);
    CHECK_PETSC(BenchSuiteLoad(PETSC_COMM_SELF, path, &suite));
    ck_assert_msg(suite->ncases > 0, "%s has no case", path);
    CHECK_PETSC(BenchSuiteDestroy(&suite));
    n++;
  }
  closedir(d);
  ck_assert_msg(n >= 5, "only %d suites found", n);
}
END_TEST

static void WriteFile(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  ck_assert(f != NULL);
  fputs(text, f);
  fclose(f);
}

/* A suite with two sweeps and a LABEL=VALUE entry: cases, points, labels and options. */
START_TEST(test_suite_parse)
{
  char path[256], label[BENCH_LABEL_LEN], opts[1024];
  BenchSuite *suite;
  const BenchCase *c;

  snprintf(path, sizeof(path), "/tmp/pbsim_test_suite_%d.yaml", (int)getpid());
  WriteFile(path, "suite: t\noptions: -newton_rtol 1e-12\ncases: a,b\ntable:\n  - order: a.order_x\n"
                  "a:\n  metric: convergence\n  options: -scene oscillator\n"
                  "  sweep_solver: [verlet, cn=ts -ts_type cn]\n  sweep_oscillator_k: [10, 100]\n"
                  "  dt: 0.01\n  t_end: 1\n  reference: analytic\n"
                  "b:\n  metric: stability\n  t_end: 2\n  dt_min: 0.001\n  dt_max: 1\n");
  CHECK_PETSC(BenchSuiteLoad(PETSC_COMM_SELF, path, &suite));
  ck_assert_str_eq(suite->name, "t");
  ck_assert_int_eq(suite->ncases, 2);
  c = &suite->cases[0];
  ck_assert_int_eq(c->metric, BENCH_CONVERGENCE);
  ck_assert_int_eq(c->refinements, 3); /* default */
  ck_assert_int_eq(c->nsweeps, 2);
  ck_assert_int_eq(BenchCaseNumPoints(c), 4);
  /* sweeps in option order: oscillator_k (slowest), then solver */
  CHECK_PETSC(BenchCasePoint(c, 1, label, sizeof(label), opts, sizeof(opts)));
  ck_assert_str_eq(label, "10/cn");
  ck_assert_msg(strstr(opts, "-newton_rtol 1e-12") && strstr(opts, "-scene oscillator") && strstr(opts, "-oscillator_k 10") &&
                    strstr(opts, "-solver ts -ts_type cn"),
                "point options: %s", opts);
  ck_assert_int_eq(suite->cases[1].metric, BENCH_STABILITY);
  ck_assert(suite->cases[1].threshold == 1); /* default */
  ck_assert_int_eq(suite->ncolumns, 1);
  ck_assert_str_eq(suite->column[0].ref_key[0], "order_x");
  CHECK_PETSC(BenchSuiteDestroy(&suite));
  unlink(path);
}
END_TEST

/* A misspelled key is an error naming the case and the key. */
START_TEST(test_suite_bad_key)
{
  char path[256];
  BenchSuite *suite = NULL;
  PetscErrorCode ierr;

  snprintf(path, sizeof(path), "/tmp/pbsim_test_bad_%d.yaml", (int)getpid());
  WriteFile(path, "cases: a\na:\n  metric: energy\n  dt: 0.01\n  steps: 3\n  sampels: 4\n");
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = BenchSuiteLoad(PETSC_COMM_SELF, path, &suite);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0, "an unknown key must be an error");
  /* a spatial case without the figure that is its error */
  WriteFile(path, "cases: a\na:\n  metric: spatial\n  dt: 1000\n  steps: 1\n  size: h\n  sweep_beam_n: [4, 8]\n");
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = BenchSuiteLoad(PETSC_COMM_SELF, path, &suite);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0, "a spatial case without 'figure' must be an error");
  unlink(path);
}
END_TEST

/* Balanced braces and brackets outside strings: a cheap well-formedness check. */
static void AssertBalanced(const char *s)
{
  int depth = 0, in_string = 0;
  for (const char *c = s; *c; c++) {
    if (in_string) {
      if (*c == '\\')
        c++;
      else if (*c == '"')
        in_string = 0;
      continue;
    }
    if (*c == '"')
      in_string = 1;
    else if (*c == '{' || *c == '[')
      depth++;
    else if (*c == '}' || *c == ']')
      depth--;
    ck_assert(depth >= 0);
  }
  ck_assert_int_eq(depth, 0);
  ck_assert(!in_string);
}

/* summary.json of a fake case has every field DESIGN §8 asks for. */
START_TEST(test_summary_fields)
{
  static const char *keys[] = {"\"suite\"",
                               "\"commit\"",
                               "\"date\"",
                               "\"ranks\"",
                               "\"machine\"",
                               "\"cpu\"",
                               "\"cores\"",
                               "\"cases\"",
                               "\"metric\": \"convergence\"",
                               "\"options\"",
                               "\"results\"",
                               "\"order_x\": 2",
                               "\"bounds\"",
                               "\"stable_dt\": \">\"",
                               "\"runs\"",
                               "\"status\": \"error\"",
                               "\"message\": \"a \\\"quoted\\\" failure\"",
                               "\"timing\"",
                               "\"ms_per_step\"",
                               "\"run_timing\"",
                               "\"wall_seconds\""};
  BenchSuite suite = {0};
  BenchCase c = {0};
  BenchCaseResult res;
  BenchProvenance prov;
  BenchRow *row;
  BenchRunRecord *run;
  char path[256], *text;
  FILE *f;
  long n;

  PetscStrcpy(suite.name, "fake");
  PetscStrcpy(c.name, "case1");
  c.metric = BENCH_CONVERGENCE;
  c.dt = 0.01, c.t_end = 1, c.refinements = 2;
  PetscStrcpy(c.reference, "analytic");
  c.options = (char *)"-scene oscillator";
  suite.ncases = 1, suite.cases = &c;
  CHECK_PETSC(BenchResultInit(&res, &c));
  CHECK_PETSC(BenchResultAddRow(&res, "verlet", &row));
  CHECK_PETSC(BenchRowSet(row, "order_x", 2, 0));
  CHECK_PETSC(BenchRowSet(row, "stable_dt", 0.5, '>'));
  CHECK_PETSC(BenchRowSetTiming(row, "ms_per_step", 0.1));
  CHECK_PETSC(BenchResultAddRun(&res, "verlet", 0.01, 100, &run));
  PetscStrcpy(run->status, "error");
  PetscStrcpy(run->message, "a \"quoted\" failure");
  CHECK_PETSC(PetscStrallocpy("-scene oscillator -solver verlet", &run->options));
  CHECK_PETSC(BenchProvenanceCollect(PETSC_COMM_SELF, &prov));
  ck_assert(prov.commit[0] && prov.date[0] && prov.cpu[0] && prov.cores > 0 && prov.ranks == 1);

  snprintf(path, sizeof(path), "/tmp/pbsim_test_summary_%d.json", (int)getpid());
  CHECK_PETSC(BenchSummaryWrite(PETSC_COMM_SELF, path, &suite, &prov, 1, &res));
  f = fopen(path, "r");
  ck_assert(f != NULL);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = calloc((size_t)n + 1, 1);
  ck_assert(fread(text, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
    ck_assert_msg(strstr(text, keys[k]), "summary.json lacks %s:\n%s", keys[k], text);
  AssertBalanced(text);
  free(text);
  unlink(path);
  CHECK_PETSC(BenchResultDestroy(&res));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("harness");
  TCase *tc = tcase_create("harness");

  tcase_add_test(tc, test_order_fit_exact);
  tcase_add_test(tc, test_order_fit_perturbed);
  tcase_add_test(tc, test_local_order);
  tcase_add_test(tc, test_drift_fit);
  tcase_add_test(tc, test_bisection);
  tcase_add_test(tc, test_bracketing);
  tcase_add_test(tc, test_reference_ode);
  tcase_add_test(tc, test_reference_cache);
  tcase_add_test(tc, test_oscillation_fit);
  tcase_add_test(tc, test_committed_suites_load);
  tcase_add_test(tc, test_suite_parse);
  tcase_add_test(tc, test_suite_bad_key);
  tcase_add_test(tc, test_summary_fields);
  suite_add_tcase(s, tc);
  return s;
}
