/* Energy error (DESIGN §8): for each sweep point, one run at its dt; E = kinetic + all potential terms
 * from the run's own energy report every step; max and final relative error, drift rate, and the
 * energy balance E + W - X (W = energy dissipated by damping terms, the time integral of the report's
 * dissipation rate; X = work done on the body by scripted pins). Relative errors are relative to |E(0)|,
 * or to the energy exchanged in the run when E(0) is near 0 (BenchEnergyScale). <case>.csv, sampled:
 * label,step,time,kinetic,potential,total,rel_change,rel_error,balance_error,external_work; with a dt
 * that varies over the points, <case>_dt.csv: label,series,dt,max_error,final_error,max_balance_error,status. */
#include <math.h>
#include "benchmarks/cases.h"
#include "framework/model/model.h"
#include "benchmarks/metrics.h"

typedef struct {
  PetscInt n, max;
  PetscReal *t, *K, *P, *E, *W, *X, *B; /* per step; W: dissipated so far; X: pins' work so far; B: E_free + W - X */
  PetscReal last_rate, pending, dt;      /* pending: the work of the pins' next move */
  PetscReal *xk;                          /* scratch: positions with the pins moved */
} Series;

static PetscErrorCode SeriesGrow(Series *s)
{
  PetscFunctionBeginUser;
  if (s->n < s->max) PetscFunctionReturn(0);
  s->max = s->max ? 2 * s->max : 1024;
  PetscCall(PetscRealloc(sizeof(PetscReal) * s->max, &s->t));
  PetscCall(PetscRealloc(sizeof(PetscReal) * s->max, &s->K));
  PetscCall(PetscRealloc(sizeof(PetscReal) * s->max, &s->P));
  PetscCall(PetscRealloc(sizeof(PetscReal) * s->max, &s->E));
  PetscCall(PetscRealloc(sizeof(PetscReal) * s->max, &s->W));
  PetscCall(PetscRealloc(sizeof(PetscReal) * s->max, &s->X));
  PetscCall(PetscRealloc(sizeof(PetscReal) * s->max, &s->B));
  PetscFunctionReturn(0);
}

static PetscErrorCode SeriesFree(Series *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(s->t));
  PetscCall(PetscFree(s->K));
  PetscCall(PetscFree(s->P));
  PetscCall(PetscFree(s->E));
  PetscCall(PetscFree(s->W));
  PetscCall(PetscFree(s->X));
  PetscCall(PetscFree(s->B));
  PetscCall(PetscFree(s->xk));
  PetscFunctionReturn(0);
}

/* The kinetic energy of the free vertices (a scripted pin's velocity is its difference quotient: its
 * motion is external). */
static PetscErrorCode FreeKinetic(SimModel m, PetscReal *K)
{
  const PetscScalar *v, *mass;

  PetscFunctionBeginUser;
  *K = 0;
  PetscCall(VecGetArrayRead(m->v, &v));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  for (PetscInt i = 0; i < m->nv; i++)
    if (!m->pinned[i])
      for (int d = 0; d < 3; d++) *K += 0.5 * mass[3 * i + d] * v[3 * i + d] * v[3 * i + d];
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscCall(VecRestoreArrayRead(m->v, &v));
  PetscFunctionReturn(0);
}

/* The work the scripted pins do in the next step: SimSolverStep moves them to their positions at
 * t + dt before the integrator runs (with the body held still), which changes the potential by
 * U(x with the pins moved) - U(x); during the step they are fixed and do no work. */
static PetscErrorCode PinWork(Series *s, SimModel m, PetscReal t, PetscReal U, PetscReal *work)
{
  const PetscScalar *x, *v;

  PetscFunctionBeginUser;
  if (!s->xk) PetscCall(PetscMalloc1(3 * m->nv, &s->xk));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArrayRead(m->v, &v));
  PetscCall(PetscArraycpy(s->xk, x, 3 * m->nv));
  PetscCall(m->kinematic(m->kinematic_ctx, t + s->dt, s->xk));
  PetscCall(SimModelEnergy(m, SIM_ENERGY_POTENTIAL, s->xk, v, work));
  PetscCall(VecRestoreArrayRead(m->v, &v));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  *work -= U;
  PetscFunctionReturn(0);
}

static PetscErrorCode EnergyMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *stats,
                                    PetscReal wall_ms, void *ctx)
{
  Series *s = (Series *)ctx;
  SimModel m;
  PetscReal Kf;
  PetscInt i = s->n;

  PetscFunctionBeginUser;
  PetscCall(BenchRunGetModel(run, &m));
  PetscCall(SeriesGrow(s));
  Kf = rep->kinetic;
  if (m) PetscCall(FreeKinetic(m, &Kf));
  s->t[i] = t;
  s->K[i] = rep->kinetic;
  s->P[i] = rep->potential;
  s->E[i] = rep->total;
  /* W(t) = int_0^t 2D dt, trapezoidal; X: the pins' moves so far */
  s->W[i] = i ? s->W[i - 1] + 0.5 * (s->last_rate + rep->dissipation_rate) * (t - s->t[i - 1]) : 0;
  s->X[i] = i ? s->X[i - 1] + s->pending : 0;
  s->B[i] = Kf + rep->potential + s->W[i] - s->X[i];
  s->last_rate = rep->dissipation_rate;
  s->pending = 0;
  if (m && m->kinematic) PetscCall(PinWork(s, m, t, rep->potential, &s->pending));
  s->n++;
  PetscFunctionReturn(0);
}

/* Rows every `stride` steps and the last one. */
static PetscErrorCode WriteSamples(BenchContext *bc, FILE *csv, const char *label, const Series *s, PetscInt samples, PetscReal scale)
{
  PetscInt stride = PetscMax(1, (s->n - 1 + samples - 1) / samples);

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < s->n; i++) {
    PetscReal dev = scale > 0 ? (s->E[i] - s->E[0]) / scale : NAN;
    PetscReal bal = scale > 0 ? (s->B[i] - s->B[0]) / scale : NAN;
    if (i % stride && i != s->n - 1) continue;
    PetscCall(PetscFPrintf(bc->comm, csv, "%s,%" PetscInt_FMT ",%.7e,%.7e,%.7e,%.7e,%.7e,%.7e,%.7e,%.7e\n", label, i, (double)s->t[i],
                           (double)s->K[i], (double)s->P[i], (double)s->E[i], (double)dev, (double)PetscAbsReal(dev),
                           (double)PetscAbsReal(bal), (double)s->X[i]));
  }
  PetscFunctionReturn(0);
}

/* max, final, drift of e_E (DESIGN §8); the balance error where something dissipated or drove. */
static PetscErrorCode FillRow(BenchRow *row, const Series *s, const BenchRunRecord *rec, PetscReal scale, PetscBool guarded, PetscBool driven)
{
  BenchEnergyStats st;
  char bound = strcmp(rec->status, "ok") ? '>' : 0; /* a run cut short: the error would have grown further */

  PetscFunctionBeginUser;
  PetscCall(BenchRowSet(row, "dt", rec->dt, 0));
  if (s->n < 1) PetscFunctionReturn(0);
  if (!(scale > 0)) {
    PetscCall(BenchRowNote(row, "E(0) = 0 and no energy exchanged: the relative energy error is undefined"));
    PetscFunctionReturn(0);
  }
  if (guarded) {
    char note[256];
    PetscCall(PetscSNPrintf(note, sizeof(note),
                            "|E(0)| = %.3g J is below %g of the energy exchanged in the run: errors are relative to that, %.4g J", (double)PetscAbsReal(s->E[0]),
                            (double)BENCH_ENERGY_GUARD, (double)scale));
    PetscCall(BenchRowNote(row, note));
  }
  PetscCall(BenchEnergyErrorStatsScaled(s->n, s->t, s->E, scale, &st));
  PetscCall(BenchRowSet(row, "max_error", st.max, bound));
  PetscCall(BenchRowSet(row, "final_error", st.final, bound));
  PetscCall(BenchRowSet(row, "drift", st.drift, 0));
  PetscCall(BenchRowSet(row, "t_reached", s->t[s->n - 1], 0));
  if (s->W[s->n - 1] > 0 || driven) {
    PetscReal bal = 0;
    for (PetscInt i = 0; i < s->n; i++) bal = PetscMax(bal, PetscAbsReal(s->B[i] - s->B[0]) / scale);
    PetscCall(BenchRowSet(row, "max_balance_error", bal, bound));
    if (s->W[s->n - 1] > 0) PetscCall(BenchRowSet(row, "dissipated", s->W[s->n - 1], 0));
    if (driven) PetscCall(BenchRowSet(row, "external_work", s->X[s->n - 1], 0));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Energy(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  FILE *csv, *dtcsv = NULL;
  PetscBool dt_varies = PETSC_FALSE;
  BenchPointTime p0;

  PetscFunctionBeginUser;
  PetscCall(BenchCSVOpen(bc, res, "", "label,step,time,kinetic,potential,total,rel_change,rel_error,balance_error,external_work", &csv));
  PetscCall(BenchCasePointTime(c, 0, &p0));
  for (PetscInt p = 1; p < BenchCaseNumPoints(c); p++) {
    BenchPointTime pt;
    PetscCall(BenchCasePointTime(c, p, &pt));
    if (pt.dt != p0.dt) dt_varies = PETSC_TRUE;
  }
  if (dt_varies) PetscCall(BenchCSVOpen(bc, res, "_dt", "label,series,dt,max_error,final_error,max_balance_error,status", &dtcsv));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    Series s = {0};
    BenchRow *row;
    BenchRunRecord *rec;
    BenchPointTime pt;
    PetscReal scale = 0, *work = NULL;
    PetscBool guarded = PETSC_FALSE, driven;

    PetscCall(BenchCasePointTime(c, p, &pt));
    s.dt = pt.dt;
    PetscCall(BenchRunPoint(bc, c, res, p, EnergyMonitor, &s, &row, &rec));
    driven = PETSC_FALSE;
    for (PetscInt i = 0; i < s.n; i++) driven = (PetscBool)(driven || s.X[i] != 0);
    if (driven) work = s.X;
    if (s.n) PetscCall(BenchEnergyScale(s.n, s.K, s.P, s.E, work, &scale, &guarded));
    PetscCall(WriteSamples(bc, csv, row->label, &s, c->samples, scale));
    PetscCall(FillRow(row, &s, rec, scale, guarded, driven));
    if (dtcsv) {
      char series[BENCH_LABEL_LEN];
      const BenchValue *mx = BenchResultFind(res, row->label, "max_error"), *fe = BenchResultFind(res, row->label, "final_error"),
                       *be = BenchResultFind(res, row->label, "max_balance_error");
      PetscCall(BenchCasePointSeries(c, p, "dt", series, sizeof(series)));
      PetscCall(PetscFPrintf(bc->comm, dtcsv, "%s,%s,%.9e,%.9e,%.9e,%.9e,%s\n", row->label, series, (double)pt.dt,
                             (double)(mx ? mx->value : NAN), (double)(fe ? fe->value : NAN), (double)(be ? be->value : NAN), rec->status));
    }
    PetscCall(SeriesFree(&s));
  }
  PetscCall(PetscFClose(bc->comm, csv));
  if (dtcsv) PetscCall(PetscFClose(bc->comm, dtcsv));
  PetscFunctionReturn(0);
}
