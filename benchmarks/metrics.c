/* Fits, energy-error statistics and stable-dt bisection of the benchmark harness (see metrics.h). */
#include <math.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_errno.h>
#include "benchmarks/metrics.h"

PetscErrorCode BenchFitLine(PetscInt n, const PetscReal t[], const PetscReal y[], PetscReal *slope, PetscReal *intercept)
{
  double c0, c1, cov00, cov01, cov11, sumsq;
  PetscBool distinct = PETSC_FALSE;
  int status;

  PetscFunctionBeginUser;
  *slope = *intercept = NAN;
  for (PetscInt i = 1; i < n; i++)
    if (t[i] != t[0]) distinct = PETSC_TRUE;
  if (n < 2 || !distinct) PetscFunctionReturn(0);
  status = gsl_fit_linear(t, 1, y, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
  PetscCheck(status == GSL_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "gsl_fit_linear failed: %s", gsl_strerror(status));
  *slope = c1;
  *intercept = c0;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchFitOrder(PetscInt n, const PetscReal dt[], const PetscReal err[], PetscReal *order, PetscReal *last_pair)
{
  PetscReal *ldt, *lerr, c0;
  PetscInt m = 0, ifine = -1, inext = -1;

  PetscFunctionBeginUser;
  *order = *last_pair = NAN;
  PetscCall(PetscMalloc2(n, &ldt, n, &lerr));
  for (PetscInt i = 0; i < n; i++) {
    if (!(err[i] > 0) || PetscIsInfOrNanReal(err[i]) || !(dt[i] > 0)) continue;
    ldt[m] = PetscLogReal(dt[i]);
    lerr[m] = PetscLogReal(err[i]);
    /* the finest pair: the two smallest usable dt */
    if (ifine < 0 || ldt[m] < ldt[ifine])
      inext = ifine, ifine = m;
    else if (inext < 0 || ldt[m] < ldt[inext])
      inext = m;
    m++;
  }
  /* slope of log e = log C + p log dt (DESIGN §8: observed order = slope of log error vs log dt) */
  PetscCall(BenchFitLine(m, ldt, lerr, order, &c0));
  if (m >= 2 && ldt[inext] != ldt[ifine]) *last_pair = (lerr[inext] - lerr[ifine]) / (ldt[inext] - ldt[ifine]);
  PetscCall(PetscFree2(ldt, lerr));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchEnergyErrorStats(PetscInt n, const PetscReal t[], const PetscReal E[], BenchEnergyStats *st)
{
  PetscFunctionBeginUser;
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Energy statistics need at least the initial energy");
  PetscCall(BenchEnergyErrorStatsScaled(n, t, E, PetscAbsReal(E[0]), st));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchEnergyScale(PetscInt n, const PetscReal K[], const PetscReal U[], const PetscReal E[], const PetscReal work[],
                                PetscReal *scale, PetscBool *guarded)
{
  PetscReal R = 0;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The energy scale needs at least the initial energy");
  for (PetscInt i = 0; i < n; i++) {
    R = PetscMax(R, PetscAbsReal(K[i]));
    R = PetscMax(R, PetscAbsReal(U[i] - U[0]));
    if (work) R = PetscMax(R, PetscAbsReal(work[i]));
  }
  if (PetscIsInfOrNanReal(R)) R = 0; /* a blow-up: the initial energy is the scale */
  *guarded = (PetscBool)(PetscAbsReal(E[0]) < BENCH_ENERGY_GUARD * R);
  *scale = *guarded ? R : PetscAbsReal(E[0]);
  PetscFunctionReturn(0);
}

PetscErrorCode BenchEnergyErrorStatsScaled(PetscInt n, const PetscReal t[], const PetscReal E[], PetscReal scale, BenchEnergyStats *st)
{
  PetscReal *dev, c0;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Energy statistics need at least the initial energy");
  PetscCheck(
      scale > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
      "E(0) = 0: the relative energy error |E(t) - E(0)| / |E(0)| is undefined (shift the potential's zero, e.g. lift the body)");
  PetscCall(PetscMalloc1(n, &dev));
  st->max = 0;
  for (PetscInt i = 0; i < n; i++) {
    /* e_E(t) = |E(t) - E(0)| / |E(0)| (DESIGN §8) */
    dev[i] = (E[i] - E[0]) / scale;
    st->max = PetscMax(st->max, PetscAbsReal(dev[i]));
  }
  st->final = PetscAbsReal(dev[n - 1]);
  PetscCall(BenchFitLine(n, t, dev, &st->drift, &c0));
  PetscCall(PetscFree(dev));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchBisectStable(PetscReal lo, PetscReal hi, PetscReal rtol, BenchStableFn stable, void *ctx, PetscReal *dt,
                                 BenchBracket *how, PetscInt *nprobes)
{
  PetscBool ok;
  PetscInt probes = 0;

  PetscFunctionBeginUser;
  PetscCheck(lo > 0 && hi > lo, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Bisection needs 0 < dt_min < dt_max (got %.6g, %.6g)",
             (double)lo, (double)hi);
  PetscCheck(rtol > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Bisection tolerance must be > 0 (got %.6g)", (double)rtol);
  PetscCall(stable(ctx, hi, &ok));
  probes++;
  if (ok) {
    *dt = hi, *how = BENCH_STABLE_AT_HI;
  } else {
    PetscCall(stable(ctx, lo, &ok));
    probes++;
    if (!ok) {
      *dt = lo, *how = BENCH_UNSTABLE_AT_LO;
    } else {
      /* invariant: stable at lo, unstable at hi */
      while (hi / lo > 1 + rtol) {
        PetscReal mid = PetscSqrtReal(lo * hi);
        PetscCall(stable(ctx, mid, &ok));
        probes++;
        if (ok)
          lo = mid;
        else
          hi = mid;
      }
      *dt = lo, *how = BENCH_BRACKETED;
    }
  }
  if (nprobes) *nprobes = probes;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchBracketStable(PetscReal lo, PetscReal hi, PetscReal start, PetscReal growth, PetscReal rtol, BenchStableFn stable,
                                  void *ctx, PetscReal *dt, BenchBracket *how, PetscInt *nprobes)
{
  PetscReal a, b, d; /* stable at a, unstable at b */
  PetscBool ok;
  PetscInt probes = 0;

  PetscFunctionBeginUser;
  PetscCheck(lo > 0 && hi > lo, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Bracketing needs 0 < dt_min < dt_max (got %.6g, %.6g)",
             (double)lo, (double)hi);
  PetscCheck(growth > 1 && rtol > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Bracketing needs growth > 1 and rtol > 0 (got %.6g, %.6g)",
             (double)growth, (double)rtol);
  d = PetscMin(hi, PetscMax(lo, start));
  PetscCall(stable(ctx, d, &ok));
  probes++;
  if (ok) {
    /* up from a stable step */
    a = d;
    for (;;) {
      if (a >= hi) {
        *dt = hi, *how = BENCH_STABLE_AT_HI;
        if (nprobes) *nprobes = probes;
        PetscFunctionReturn(0);
      }
      d = PetscMin(hi, a * growth);
      PetscCall(stable(ctx, d, &ok));
      probes++;
      if (!ok) break;
      a = d;
    }
    b = d;
  } else {
    /* down from an unstable step */
    b = d;
    for (;;) {
      if (b <= lo) {
        *dt = lo, *how = BENCH_UNSTABLE_AT_LO;
        if (nprobes) *nprobes = probes;
        PetscFunctionReturn(0);
      }
      d = PetscMax(lo, b / growth);
      PetscCall(stable(ctx, d, &ok));
      probes++;
      if (ok) break;
      b = d;
    }
    a = d;
  }
  /* invariant: stable at a, unstable at b */
  while (b / a > 1 + rtol) {
    PetscReal mid = PetscSqrtReal(a * b);
    PetscCall(stable(ctx, mid, &ok));
    probes++;
    if (ok) a = mid;
    else b = mid;
  }
  *dt = a, *how = BENCH_BRACKETED;
  if (nprobes) *nprobes = probes;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchLocalOrder(PetscInt n, const PetscReal r[], PetscReal order[], PetscReal *peak)
{
  PetscFunctionBeginUser;
  *peak = NAN;
  for (PetscInt k = 0; k < n; k++) {
    PetscReal q = NAN;
    if (k >= 2) {
      PetscBool usable = PETSC_TRUE;
      for (PetscInt j = k - 2; j <= k; j++) usable = (PetscBool)(usable && PetscIsNormalReal(r[j]) && r[j] > 0);
      /* both steps must at least halve the residual: near-stagnation (a slow linear rate, the round-off
       * floor) makes the ratio of two logs near 0 meaningless */
      if (usable && r[k] <= 0.5 * r[k - 1] && r[k - 1] <= 0.5 * r[k - 2]) q = PetscLogReal(r[k] / r[k - 1]) / PetscLogReal(r[k - 1] / r[k - 2]);
      if (!PetscIsInfOrNanReal(q) && (PetscIsInfOrNanReal(*peak) || q > *peak)) *peak = q;
    }
    if (order) order[k] = q;
  }
  PetscFunctionReturn(0);
}

/* ---- dominant oscillation: FFT start, linear scan, Levenberg-Marquardt (BenchFitOscillation) ---- */
#include <gsl/gsl_fft_real.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>

typedef struct {
  PetscInt n;
  const PetscReal *t, *y;
} OscData;

/* Linear least squares of y = c + e^{-sigma t}(a cos wt + b sin wt) at fixed (w, sigma): p = (c, a, b). */
static PetscErrorCode OscLinear(const OscData *d, PetscReal w, PetscReal sigma, PetscReal p[3], PetscReal *chisq)
{
  gsl_matrix *X = gsl_matrix_alloc((size_t)d->n, 3), *cov = gsl_matrix_alloc(3, 3);
  gsl_vector_const_view y = gsl_vector_const_view_array(d->y, (size_t)d->n);
  gsl_vector *c = gsl_vector_alloc(3);
  gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)d->n, 3);
  int status;

  PetscFunctionBeginUser;
  PetscCheck(X && cov && c && ws, PETSC_COMM_SELF, PETSC_ERR_MEM, "GSL allocation failed");
  for (PetscInt i = 0; i < d->n; i++) {
    PetscReal e = PetscExpReal(-sigma * d->t[i]);
    gsl_matrix_set(X, (size_t)i, 0, 1);
    gsl_matrix_set(X, (size_t)i, 1, e * PetscCosReal(w * d->t[i]));
    gsl_matrix_set(X, (size_t)i, 2, e * PetscSinReal(w * d->t[i]));
  }
  status = gsl_multifit_linear(X, &y.vector, c, cov, chisq, ws);
  PetscCheck(status == GSL_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "gsl_multifit_linear failed: %s", gsl_strerror(status));
  for (int k = 0; k < 3; k++) p[k] = gsl_vector_get(c, (size_t)k);
  gsl_multifit_linear_free(ws);
  gsl_vector_free(c);
  gsl_matrix_free(cov);
  gsl_matrix_free(X);
  PetscFunctionReturn(0);
}

/* Residual and Jacobian of the model in p = (c, a, b, w, sigma). */
static int OscF(const gsl_vector *p, void *ctx, gsl_vector *f)
{
  const OscData *d = (const OscData *)ctx;
  const double c = gsl_vector_get(p, 0), a = gsl_vector_get(p, 1), b = gsl_vector_get(p, 2), w = gsl_vector_get(p, 3),
               s = gsl_vector_get(p, 4);

  for (PetscInt i = 0; i < d->n; i++) {
    const double t = d->t[i], e = exp(-s * t);
    gsl_vector_set(f, (size_t)i, c + e * (a * cos(w * t) + b * sin(w * t)) - d->y[i]);
  }
  return GSL_SUCCESS;
}

static int OscDF(const gsl_vector *p, void *ctx, gsl_matrix *J)
{
  const OscData *d = (const OscData *)ctx;
  const double a = gsl_vector_get(p, 1), b = gsl_vector_get(p, 2), w = gsl_vector_get(p, 3), s = gsl_vector_get(p, 4);

  for (PetscInt i = 0; i < d->n; i++) {
    const double t = d->t[i], e = exp(-s * t), cs = cos(w * t), sn = sin(w * t);
    gsl_matrix_set(J, (size_t)i, 0, 1);
    gsl_matrix_set(J, (size_t)i, 1, e * cs);
    gsl_matrix_set(J, (size_t)i, 2, e * sn);
    gsl_matrix_set(J, (size_t)i, 3, e * t * (-a * sn + b * cs));
    gsl_matrix_set(J, (size_t)i, 4, -t * e * (a * cs + b * sn));
  }
  return GSL_SUCCESS;
}

PetscErrorCode BenchFitOscillation(PetscInt n, const PetscReal t[], const PetscReal y[], BenchOscFit *fit)
{
  OscData d = {.n = n, .t = t, .y = y};
  PetscReal *buf, mean = 0, h, T, best = -1, w0 = 0, dw, p[3], chisq, bestchi = PETSC_MAX_REAL, x0[5];
  PetscInt kpeak = 0;
  gsl_error_handler_t *previous;
  int status, info;

  PetscFunctionBeginUser;
  PetscCheck(n >= 8, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "An oscillation fit needs at least 8 samples (got %" PetscInt_FMT ")", n);
  h = (t[n - 1] - t[0]) / (n - 1);
  T = n * h;
  PetscCheck(h > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "An oscillation fit needs increasing sample times");
  for (PetscInt i = 0; i < n; i++) mean += y[i] / n;
  {
    PetscReal var = 0;
    for (PetscInt i = 0; i < n; i++) var += PetscSqr(y[i] - mean) / n;
    PetscCheck(PetscSqrtReal(var) > 1e-12 * PetscAbsReal(mean) && var > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "The signal does not oscillate (constant to 1e-12 relative: standard deviation %g around %g)", (double)PetscSqrtReal(var),
               (double)mean);
  }
  /* 1. the dominant frequency: peak of the Hann-windowed spectrum, parabola through log magnitudes */
  PetscCall(PetscMalloc1(n, &buf));
  for (PetscInt i = 0; i < n; i++) buf[i] = (y[i] - mean) * 0.5 * (1 - PetscCosReal(2 * PETSC_PI * i / (n - 1)));
  {
    gsl_fft_real_wavetable *wt = gsl_fft_real_wavetable_alloc((size_t)n);
    gsl_fft_real_workspace *ws = gsl_fft_real_workspace_alloc((size_t)n);
    PetscCheck(wt && ws, PETSC_COMM_SELF, PETSC_ERR_MEM, "GSL FFT allocation failed");
    status = gsl_fft_real_transform(buf, 1, (size_t)n, wt, ws);
    gsl_fft_real_workspace_free(ws);
    gsl_fft_real_wavetable_free(wt);
    PetscCheck(status == GSL_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "gsl_fft_real_transform failed: %s", gsl_strerror(status));
  }
  {
    /* halfcomplex: bin k (1 <= k < n/2) is (buf[2k-1], buf[2k]) */
    PetscInt nb = (n - 1) / 2;
    PetscReal *mag;
    PetscCall(PetscMalloc1(nb + 2, &mag));
    mag[0] = 0;
    for (PetscInt k = 1; k <= nb; k++) mag[k] = PetscSqrtReal(buf[2 * k - 1] * buf[2 * k - 1] + buf[2 * k] * buf[2 * k]);
    for (PetscInt k = 1; k <= nb; k++)
      if (mag[k] > best) best = mag[k], kpeak = k;
    PetscCheck(best > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The signal does not oscillate (its spectrum is zero)");
    w0 = kpeak;
    if (kpeak > 1 && kpeak < nb && mag[kpeak - 1] > 0 && mag[kpeak + 1] > 0) {
      PetscReal l = PetscLogReal(mag[kpeak - 1]), c0 = PetscLogReal(mag[kpeak]), r = PetscLogReal(mag[kpeak + 1]);
      PetscReal den = l - 2 * c0 + r;
      if (den < 0) w0 = kpeak + 0.5 * (l - r) / den;
    }
    w0 *= 2 * PETSC_PI / T;
    PetscCall(PetscFree(mag));
  }
  PetscCall(PetscFree(buf));
  /* 2. scan omega over +-1.5 bins without damping: the least residual of the linear fit */
  dw = 2 * PETSC_PI / T;
  x0[3] = w0;
  for (int k = -30; k <= 30; k++) {
    PetscReal w = w0 + dw * 1.5 * k / 30;
    if (w <= 0) continue;
    PetscCall(OscLinear(&d, w, 0, p, &chisq));
    if (chisq < bestchi) bestchi = chisq, x0[3] = w;
  }
  PetscCall(OscLinear(&d, x0[3], 0, p, &chisq));
  x0[0] = p[0], x0[1] = p[1], x0[2] = p[2], x0[4] = 0;
  /* 3. Levenberg-Marquardt on (c, a, b, w, sigma) */
  previous = gsl_set_error_handler_off();
  {
    gsl_multifit_nlinear_fdf fdf = {.f = OscF, .df = OscDF, .fvv = NULL, .n = (size_t)n, .p = 5, .params = &d};
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *ws = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, (size_t)n, 5);
    gsl_vector_view xv = gsl_vector_view_array(x0, 5);
    const gsl_vector *x, *f;
    PetscReal rss = 0;

    PetscCheck(ws, PETSC_COMM_SELF, PETSC_ERR_MEM, "GSL allocation failed");
    status = gsl_multifit_nlinear_init(&xv.vector, &fdf, ws);
    if (status == GSL_SUCCESS) status = gsl_multifit_nlinear_driver(500, 1e-15, 1e-15, 1e-15, NULL, NULL, &info, ws);
    /* GSL_ENOPROG / max iterations at the round-off floor still leave the best point found */
    x = gsl_multifit_nlinear_position(ws);
    f = gsl_multifit_nlinear_residual(ws);
    for (PetscInt i = 0; i < n; i++) rss += gsl_vector_get(f, (size_t)i) * gsl_vector_get(f, (size_t)i);
    fit->offset = gsl_vector_get(x, 0);
    fit->amplitude = PetscSqrtReal(PetscSqr(gsl_vector_get(x, 1)) + PetscSqr(gsl_vector_get(x, 2)));
    fit->omega = PetscAbsReal(gsl_vector_get(x, 3));
    fit->sigma = gsl_vector_get(x, 4);
    fit->residual = fit->amplitude > 0 ? PetscSqrtReal(rss / n) / fit->amplitude : NAN;
    gsl_multifit_nlinear_free(ws);
  }
  gsl_set_error_handler(previous);
  PetscCheck(status == GSL_SUCCESS || status == GSL_EMAXITER || status == GSL_ENOPROG, PETSC_COMM_SELF, PETSC_ERR_LIB,
             "Oscillation fit failed: %s", gsl_strerror(status));
  PetscFunctionReturn(0);
}
