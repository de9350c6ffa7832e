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
  PetscReal *dev, scale, c0;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Energy statistics need at least the initial energy");
  scale = PetscAbsReal(E[0]);
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
