/* Energy error (DESIGN §8): for each sweep point, one run at dt; E = kinetic + all potential terms from
 * the run's own energy report every step; max and final relative error, drift rate, and the energy
 * balance E + W (W = energy dissipated by damping terms, the time integral of the report's
 * dissipation rate). <case>.csv, sampled:
 * label,step,time,kinetic,potential,total,rel_change,rel_error,balance_error. */
#include <math.h>
#include "benchmarks/cases.h"
#include "benchmarks/metrics.h"

typedef struct {
  PetscInt n, max;
  PetscReal *t, *K, *P, *E, *W; /* per step; W: dissipated energy so far (trapezoidal rule) */
  PetscReal last_rate;
} Series;

static PetscErrorCode SeriesAppend(Series *s, PetscReal t, const SimEnergyReport *rep)
{
  PetscFunctionBeginUser;
  if (s->n == s->max) {
    Series b = *s;
    b.max = s->max ? 2 * s->max : 1024;
    PetscCall(PetscMalloc5(b.max, &b.t, b.max, &b.K, b.max, &b.P, b.max, &b.E, b.max, &b.W));
    PetscCall(PetscArraycpy(b.t, s->t, s->n));
    PetscCall(PetscArraycpy(b.K, s->K, s->n));
    PetscCall(PetscArraycpy(b.P, s->P, s->n));
    PetscCall(PetscArraycpy(b.E, s->E, s->n));
    PetscCall(PetscArraycpy(b.W, s->W, s->n));
    PetscCall(PetscFree5(s->t, s->K, s->P, s->E, s->W));
    *s = b;
  }
  s->t[s->n] = t;
  s->K[s->n] = rep->kinetic;
  s->P[s->n] = rep->potential;
  s->E[s->n] = rep->total;
  /* W(t) = int_0^t 2D dt, trapezoidal */
  s->W[s->n] = s->n ? s->W[s->n - 1] + 0.5 * (s->last_rate + rep->dissipation_rate) * (t - s->t[s->n - 1]) : 0;
  s->last_rate = rep->dissipation_rate;
  s->n++;
  PetscFunctionReturn(0);
}

static PetscErrorCode EnergyMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *stats,
                                    PetscReal wall_ms, void *ctx)
{
  return SeriesAppend((Series *)ctx, t, rep);
}

/* Rows every `stride` steps and the last one. */
static PetscErrorCode WriteSamples(BenchContext *bc, FILE *csv, const char *label, const Series *s, PetscInt samples)
{
  PetscInt stride = PetscMax(1, (s->n - 1 + samples - 1) / samples);
  PetscReal scale = PetscAbsReal(s->E[0]);

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < s->n; i++) {
    PetscReal dev = scale > 0 ? (s->E[i] - s->E[0]) / scale : NAN;
    PetscReal bal = scale > 0 ? (s->E[i] + s->W[i] - s->E[0]) / scale : NAN;
    if (i % stride && i != s->n - 1) continue;
    PetscCall(PetscFPrintf(bc->comm, csv, "%s,%" PetscInt_FMT ",%.7e,%.7e,%.7e,%.7e,%.7e,%.7e,%.7e\n", label, i, (double)s->t[i],
                           (double)s->K[i], (double)s->P[i], (double)s->E[i], (double)dev, (double)PetscAbsReal(dev),
                           (double)PetscAbsReal(bal)));
  }
  PetscFunctionReturn(0);
}

/* max, final, drift of e_E (DESIGN §8); the balance error only where something dissipated. */
static PetscErrorCode FillRow(BenchRow *row, const Series *s, const BenchRunRecord *rec)
{
  BenchEnergyStats st;
  char bound = strcmp(rec->status, "ok") ? '>' : 0; /* a run cut short: the error would have grown further */

  PetscFunctionBeginUser;
  PetscCall(BenchRowSet(row, "dt", rec->dt, 0));
  if (s->n < 1) PetscFunctionReturn(0);
  if (s->E[0] == 0) {
    PetscCall(
        BenchRowNote(row, "E(0) = 0: the relative energy error is undefined (lift the body so that its energy is not zero)"));
    PetscFunctionReturn(0);
  }
  PetscCall(BenchEnergyErrorStats(s->n, s->t, s->E, &st));
  PetscCall(BenchRowSet(row, "max_error", st.max, bound));
  PetscCall(BenchRowSet(row, "final_error", st.final, bound));
  PetscCall(BenchRowSet(row, "drift", st.drift, 0));
  PetscCall(BenchRowSet(row, "t_reached", s->t[s->n - 1], 0));
  if (s->W[s->n - 1] > 0) {
    PetscReal bal = 0;
    for (PetscInt i = 0; i < s->n; i++) bal = PetscMax(bal, PetscAbsReal(s->E[i] + s->W[i] - s->E[0]) / PetscAbsReal(s->E[0]));
    PetscCall(BenchRowSet(row, "max_balance_error", bal, bound));
    PetscCall(BenchRowSet(row, "dissipated", s->W[s->n - 1], 0));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Energy(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  FILE *csv;

  PetscFunctionBeginUser;
  PetscCall(BenchCSVOpen(bc, res, "", "label,step,time,kinetic,potential,total,rel_change,rel_error,balance_error", &csv));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    Series s = {0};
    BenchRow *row;
    BenchRunRecord *rec;

    PetscCall(BenchRunPoint(bc, c, res, p, EnergyMonitor, &s, &row, &rec));
    PetscCall(WriteSamples(bc, csv, row->label, &s, c->samples));
    PetscCall(FillRow(row, &s, rec));
    PetscCall(PetscFree5(s.t, s.K, s.P, s.E, s.W));
  }
  PetscCall(PetscFClose(bc->comm, csv));
  PetscFunctionReturn(0);
}
