/* The benchmark harness's own arithmetic (DESIGN §8): order and drift fits, energy-error statistics
 * and the stable-dt bisection. Pure functions of numbers, unit-tested on synthetic data. */
#pragma once
#include <petscsys.h>

/* Least-squares line y = intercept + slope t through (t[i], y[i]), i < n (GSL gsl_fit_linear).
 * n < 2, or all t equal: both NaN. */
PetscErrorCode BenchFitLine(PetscInt n, const PetscReal t[], const PetscReal y[], PetscReal *slope, PetscReal *intercept);

/* Observed order of convergence (DESIGN §8): the least-squares slope of log(err) against log(dt) over
 * the points whose error is finite and > 0, and the slope of the last two such points (the finest
 * pair). dt[] in any order. Fewer than two usable points: NaN. */
PetscErrorCode BenchFitOrder(PetscInt n, const PetscReal dt[], const PetscReal err[], PetscReal *order, PetscReal *last_pair);

/* Local order of convergence of an iterative solve from its residual history r[0..n-1]: for
 * k = 2..n-1, q_k = log(r_k / r_{k-1}) / log(r_{k-1} / r_{k-2}), the exponent p of r_k ~ C r_{k-1}^p
 * (2 for Newton near a minimizer, 1 for a linearly converging method). Only iterations whose three
 * residuals are finite and positive and where each step at least halves the residual give an
 * estimate (a slowly converging or stagnating sequence has no meaningful local order); order[k] is
 * NaN otherwise and for k < 2 (order may be NULL). *peak is the largest estimate (NaN when there is none): the last
 * iteration is often cut short by the tolerance or the round-off floor, so the peak, not the last
 * value, shows the rate the method reaches. */
PetscErrorCode BenchLocalOrder(PetscInt n, const PetscReal r[], PetscReal order[], PetscReal *peak);

/* Energy-error statistics of a series E[0..n-1] at times t[0..n-1] (DESIGN §8), with
 * e(t) = |E(t) - E(0)| / |E(0)|:
 *   max   = max_t e(t);  final = e(t[n-1]);
 *   drift = least-squares slope of the signed relative deviation (E(t) - E(0)) / |E(0)| against t
 *           (1/s; > 0: energy gained, < 0: lost).
 * E(0) = 0 (the relative error is undefined) or n < 1 is an input error. */
typedef struct {
  PetscReal max, final, drift;
} BenchEnergyStats;
PetscErrorCode BenchEnergyErrorStats(PetscInt n, const PetscReal t[], const PetscReal E[], BenchEnergyStats *st);
/* The same relative to a given scale instead of |E(0)| (scale > 0). */
PetscErrorCode BenchEnergyErrorStatsScaled(PetscInt n, const PetscReal t[], const PetscReal E[], PetscReal scale, BenchEnergyStats *st);
/* The denominator of relative energy errors, guarded against E(0) near 0 (a body whose potential's
 * zero is where it starts, e.g. the twist: E(0) = 3e-29 J): with R = the largest energy exchanged
 * during the run (max over t of K(t), |U(t) - U(0)|, |work(t)|), the scale is |E(0)| when
 * |E(0)| >= 1e-3 R, else R (*guarded = PETSC_TRUE). work may be NULL. Both 0: scale 0. */
PetscErrorCode BenchEnergyScale(PetscInt n, const PetscReal K[], const PetscReal U[], const PetscReal E[], const PetscReal work[],
                                PetscReal *scale, PetscBool *guarded);
#define BENCH_ENERGY_GUARD 1e-3

/* Largest stable step by bisection. stable(ctx, dt, &ok) is the criterion (the harness runs the
 * simulation; tests pass a synthetic one). The search assumes stability is monotone in dt on
 * [lo, hi]:
 *   stable at hi:   *dt = hi, *how = BENCH_STABLE_AT_HI (hi is a lower bound of the answer);
 *   unstable at lo: *dt = lo, *how = BENCH_UNSTABLE_AT_LO (lo is an upper bound);
 *   otherwise geometric bisection (mid = sqrt(lo hi)) until hi / lo <= 1 + rtol; *dt is the last
 *   stable step, within a factor 1 + rtol below the boundary; *how = BENCH_BRACKETED.
 * *nprobes (may be NULL) is the number of criterion evaluations. Requires 0 < lo < hi, rtol > 0. */
typedef PetscErrorCode (*BenchStableFn)(void *ctx, PetscReal dt, PetscBool *stable);
typedef enum { BENCH_BRACKETED, BENCH_STABLE_AT_HI, BENCH_UNSTABLE_AT_LO } BenchBracket;
PetscErrorCode BenchBisectStable(PetscReal lo, PetscReal hi, PetscReal rtol, BenchStableFn stable, void *ctx, PetscReal *dt,
                                 BenchBracket *how, PetscInt *nprobes);
/* Largest stable step by bracketing, then bisection (what the stability metric uses): the first probe
 * is `start` (clamped to [lo, hi]); from a stable start the step grows geometrically (x growth, at most
 * to hi) until a probe is unstable, from an unstable one it shrinks (/ growth, at least to lo) until a
 * probe is stable; then geometric bisection of that bracket to hi / lo <= 1 + rtol. So the cost is a
 * few probes near the boundary, never a probe at lo unless the boundary is there (a probe at dt costs
 * t_end / dt steps). Outcomes as BenchBisectStable (STABLE_AT_HI: stable at hi; UNSTABLE_AT_LO:
 * unstable at lo). Requires 0 < lo < hi, growth > 1, rtol > 0. */
PetscErrorCode BenchBracketStable(PetscReal lo, PetscReal hi, PetscReal start, PetscReal growth, PetscReal rtol, BenchStableFn stable,
                                  void *ctx, PetscReal *dt, BenchBracket *how, PetscInt *nprobes);

/* The dominant oscillation of a uniformly sampled signal (phase and damping error, DESIGN §8): a fit of
 *   y(t) = c + e^{-sigma t} (a cos(omega t) + b sin(omega t))
 * to (t[i], y[i]), i < n (n >= 8, t equally spaced). The start: the peak of the Hann-windowed FFT of
 * the mean-removed signal (GSL gsl_fft_real, mixed radix), refined by a scan of omega over +-1.5 bins
 * (linear least squares in c, a, b at each); then Levenberg-Marquardt on all five parameters (GSL
 * gsl_multifit_nlinear, analytic Jacobian). A discrete linear scheme on a linear oscillator produces
 * exactly such a sequence, y_n = c + Re(C lambda^n), so the fit returns its amplification factor
 * |lambda| = e^{-sigma h} and phase per step arg(lambda) = omega h to round-off.
 * omega (rad/s), sigma (1/s: > 0 decays), amplitude sqrt(a^2 + b^2), offset c, residual: rms of the
 * fit's residual / amplitude (near 0 for one clean mode; large when the signal is not one oscillation).
 * A signal without an oscillation (constant, or no peak) is an error. */
typedef struct {
  PetscReal omega, sigma, amplitude, offset, residual;
} BenchOscFit;
PetscErrorCode BenchFitOscillation(PetscInt n, const PetscReal t[], const PetscReal y[], BenchOscFit *fit);
