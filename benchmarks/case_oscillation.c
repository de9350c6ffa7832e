/* Phase error and numerical damping (DESIGN §8): for each sweep point, one run at its dt recording a
 * scalar signal every step (a component of the mass-weighted mean position of the free vertices); the
 * dominant oscillation of the signal is fitted (BenchFitOscillation: frequency omega and decay rate
 * sigma) and compared with the same fit of the reference signal: the scene's analytic solution or the
 * GSL reference of the same model (computed once per model of the case). Row values: omega,
 * omega_ref, phase_error_per_period = 2 pi (omega - omega_ref) / omega_ref (rad per reference period;
 * < 0: the numerical oscillation lags), damping_per_step = e^{-sigma dt} (the amplitude factor of one
 * step, |lambda| of a linear scheme), amplitude_ratio_per_period = e^{-(sigma - sigma_ref) 2 pi /
 * omega_ref} (the integrator's own amplitude change over one reference period; 1: none), fit_residual.
 * <case>.csv: label,step,time,signal (sampled); <case>_reference.csv: time,signal;
 * <case>_fit.csv: label,series,dt,omega,sigma,phase_error_per_period,damping_per_step,
 * amplitude_ratio_per_period,fit_residual,status (series: the label without its dt part). */
#include <math.h>
#include "benchmarks/cases.h"
#include "framework/model/model.h"
#include "benchmarks/metrics.h"
#include "benchmarks/reference_ode.h"

typedef struct {
  const BenchCase *c;
  BenchRefCache cache;
  const char *key;
  PetscReal T;     /* the run's end time */
  PetscInt n, max; /* the run's signal, one value per step from step 0 */
  PetscReal *t, *y;
  PetscBool have_ref;
  PetscInt nref;
  PetscReal *tref, *yref; /* the reference signal at nref + 1 evenly spaced times */
  const char *label;
} Osc;

/* The signal: component c->signal_axis of sum_i m_i x_i / sum_i m_i over the free vertices. */
static PetscErrorCode Signal(SimModel m, PetscInt axis, const PetscReal *x, PetscReal *s)
{
  const PetscScalar *mass;
  PetscReal num = 0, den = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(m->mass, &mass));
  for (PetscInt i = 0; i < m->nv; i++)
    if (!m->pinned[i]) num += mass[3 * i] * x[3 * i + axis], den += mass[3 * i];
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscCheck(den > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The oscillation signal needs a free vertex");
  *s = num / den;
  PetscFunctionReturn(0);
}

static PetscErrorCode Append(Osc *o, PetscReal t, PetscReal y)
{
  PetscFunctionBeginUser;
  if (o->n == o->max) {
    o->max = o->max ? 2 * o->max : 1024;
    PetscCall(PetscRealloc(sizeof(PetscReal) * o->max, &o->t));
    PetscCall(PetscRealloc(sizeof(PetscReal) * o->max, &o->y));
  }
  o->t[o->n] = t, o->y[o->n] = y, o->n++;
  PetscFunctionReturn(0);
}

/* At step 0: the reference signal at c->samples + 1 times over [0, T], analytic or GSL. */
static PetscErrorCode Reference(Osc *o, SimRun run, SimModel m)
{
  const BenchCase *c = o->c;
  PetscInt n = 3 * m->nv;

  PetscFunctionBeginUser;
  o->nref = c->samples;
  PetscCall(PetscFree2(o->tref, o->yref));
  PetscCall(PetscMalloc2(o->nref + 1, &o->tref, o->nref + 1, &o->yref));
  if (!strcmp(c->reference, "ode")) {
    const PetscReal *xs, *vs;
    PetscCall(BenchRefCacheGet(o->cache, o->key, m, o->T, o->nref, c->ode_rtol, c->ode_atol, &xs, &vs));
    for (PetscInt k = 0; k <= o->nref; k++) {
      o->tref[k] = o->T * k / o->nref;
      PetscCall(Signal(m, c->signal_axis, xs + k * n, &o->yref[k]));
    }
  } else {
    SimScene scene;
    PetscReal *x, *v;
    PetscBool has;
    PetscCall(SimRunGetScene(run, &scene));
    PetscCall(PetscMalloc2(n, &x, n, &v));
    for (PetscInt k = 0; k <= o->nref; k++) {
      o->tref[k] = o->T * k / o->nref;
      PetscCall(SimSceneExact(scene, o->tref[k], x, v, &has));
      PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_SUP, "Scene '%s' has no analytic solution: use reference: ode", scene->name);
      PetscCall(Signal(m, c->signal_axis, x, &o->yref[k]));
    }
    PetscCall(PetscFree2(x, v));
  }
  o->have_ref = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode OscMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *stats,
                                 PetscReal wall_ms, void *ctx)
{
  Osc *o = (Osc *)ctx;
  SimModel m;
  const PetscScalar *x;
  PetscReal s;

  PetscFunctionBeginUser;
  PetscCall(BenchRunGetModel(run, &m));
  PetscCheck(m, PETSC_COMM_SELF, PETSC_ERR_SUP, "An oscillation case follows a model's vertices; a grid scene has none");
  if (step == 0) PetscCall(Reference(o, run, m));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(Signal(m, o->c->signal_axis, x, &s));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscCall(Append(o, t, s));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Oscillation(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  FILE *csv, *fitcsv, *refcsv;
  Osc o = {.c = c};
  BenchOscFit ref = {0};
  char key[4096] = "", refkey[4096] = "";
  PetscReal refT = 0;

  PetscFunctionBeginUser;
  PetscCall(BenchRefCacheCreate(&o.cache));
  PetscCall(BenchCSVOpen(bc, res, "", "label,step,time,signal", &csv));
  PetscCall(BenchCSVOpen(bc, res, "_reference", "time,signal", &refcsv));
  PetscCall(BenchCSVOpen(bc, res, "_fit",
                         "label,series,dt,omega,sigma,phase_error_per_period,damping_per_step,amplitude_ratio_per_period,fit_residual,status",
                         &fitcsv));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    BenchPointTime pt;
    BenchRow *row;
    BenchRunRecord *rec;
    BenchOscFit fit = {0};
    char series[BENCH_LABEL_LEN];
    PetscBool fitted = PETSC_FALSE;

    PetscCall(BenchCasePointTime(c, p, &pt));
    PetscCall(BenchCasePointModelKey(c, p, key, sizeof(key)));
    PetscCall(BenchCasePointSeries(c, p, "dt", series, sizeof(series)));
    o.key = key;
    o.T = BenchPointSteps(&pt, pt.dt) * pt.dt;
    o.n = 0;
    o.have_ref = PETSC_FALSE;
    PetscCall(BenchRunPoint(bc, c, res, p, OscMonitor, &o, &row, &rec));
    PetscCall(BenchRowSet(row, "dt", pt.dt, 0));
    if (o.have_ref && (strcmp(refkey, key) || refT != o.T || !ref.omega)) {
      /* the reference's fit, once per model (and its signal in the CSV, for the first model) */
      PetscCall(BenchFitOscillation(o.nref + 1, o.tref, o.yref, &ref));
      if (!refkey[0])
        for (PetscInt k = 0; k <= o.nref; k++) PetscCall(PetscFPrintf(bc->comm, refcsv, "%.9e,%.12e\n", (double)o.tref[k], (double)o.yref[k]));
      PetscCall(PetscStrncpy(refkey, key, sizeof(refkey)));
      refT = o.T;
    }
    if (!strcmp(rec->status, "ok") && o.n >= 8) {
      PetscCall(BenchFitOscillation(o.n, o.t, o.y, &fit));
      fitted = PETSC_TRUE;
    } else if (!strcmp(rec->status, "ok"))
      PetscCall(BenchRowNote(row, "fewer than 8 steps: no fit"));
    {
      PetscInt stride = PetscMax(1, (o.n - 1 + c->samples - 1) / c->samples);
      for (PetscInt i = 0; i < o.n; i++)
        if (!(i % stride) || i == o.n - 1)
          PetscCall(PetscFPrintf(bc->comm, csv, "%s,%" PetscInt_FMT ",%.9e,%.12e\n", row->label, i, (double)o.t[i], (double)o.y[i]));
    }
    if (fitted && ref.omega > 0) {
      const PetscReal period = 2 * PETSC_PI / ref.omega;
      const PetscReal phase = 2 * PETSC_PI * (fit.omega - ref.omega) / ref.omega, step = PetscExpReal(-fit.sigma * pt.dt);
      const PetscReal ratio = PetscExpReal(-(fit.sigma - ref.sigma) * period);
      PetscCall(BenchRowSet(row, "omega", fit.omega, 0));
      PetscCall(BenchRowSet(row, "omega_ref", ref.omega, 0));
      PetscCall(BenchRowSet(row, "sigma", fit.sigma, 0));
      PetscCall(BenchRowSet(row, "sigma_ref", ref.sigma, 0));
      PetscCall(BenchRowSet(row, "phase_error_per_period", phase, 0));
      PetscCall(BenchRowSet(row, "damping_per_step", step, 0));
      PetscCall(BenchRowSet(row, "amplitude_ratio_per_period", ratio, 0));
      PetscCall(BenchRowSet(row, "fit_residual", fit.residual, 0));
      PetscCall(BenchRowSet(row, "ref_fit_residual", ref.residual, 0));
      PetscCall(PetscFPrintf(bc->comm, fitcsv, "%s,%s,%.9e,%.12e,%.12e,%.9e,%.12e,%.12e,%.3e,%s\n", row->label, series, (double)pt.dt,
                             (double)fit.omega, (double)fit.sigma, (double)phase, (double)step, (double)ratio, (double)fit.residual,
                             rec->status));
    } else
      PetscCall(PetscFPrintf(bc->comm, fitcsv, "%s,%s,%.9e,,,,,,,%s\n", row->label, series, (double)pt.dt, rec->status));
  }
  PetscCall(PetscFClose(bc->comm, csv));
  PetscCall(PetscFClose(bc->comm, refcsv));
  PetscCall(PetscFClose(bc->comm, fitcsv));
  if (!strcmp(c->reference, "ode"))
    PetscCall(PetscPrintf(bc->comm, "bench:   ODE reference computed %" PetscInt_FMT " time(s) for %" PetscInt_FMT " sweep point(s)\n",
                          BenchRefCacheComputed(o.cache), BenchCaseNumPoints(c)));
  PetscCall(PetscFree(o.t));
  PetscCall(PetscFree(o.y));
  PetscCall(PetscFree2(o.tref, o.yref));
  PetscCall(BenchRefCacheDestroy(&o.cache));
  PetscFunctionReturn(0);
}
