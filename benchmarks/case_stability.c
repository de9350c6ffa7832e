/* Stability (DESIGN §8): for each sweep point, the largest dt in [dt_min, dt_max] for which a run to
 * t_end stays finite and keeps the relative energy error |E(t) - E(0)| / |E(0)| <= threshold, found by
 * geometric bisection (BenchBisectStable). <case>.csv, one row per probe:
 * label,dt,steps,stable,max_error,status (ok | over_threshold | nonfinite | error). */
#include <math.h>
#include "benchmarks/cases.h"
#include "benchmarks/metrics.h"

typedef struct {
  BenchContext *bc;
  BenchCaseResult *res;
  const BenchCase *c;
  FILE *csv;
  const char *label, *popts;
  BenchPointTime pt;
  PetscReal E0, max_error; /* of the current probe */
  PetscBool exceeded;      /* the probe stopped early: the threshold was crossed */
} Probe;

/* Tracks the energy error; stops the run (with an error the probe recognises) once it is over the
 * threshold, since the rest of the run cannot make it stable again. */
static PetscErrorCode ProbeMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *stats,
                                   PetscReal wall_ms, void *ctx)
{
  Probe *pr = (Probe *)ctx;
  PetscReal e;

  PetscFunctionBeginUser;
  if (step == 0) {
    pr->E0 = rep->total;
    PetscCheck(pr->E0 != 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "E(0) = 0: the relative energy error is undefined (lift the body)");
    PetscFunctionReturn(0);
  }
  e = PetscAbsReal(rep->total - pr->E0) / PetscAbsReal(pr->E0);
  if (PetscIsInfOrNanReal(e)) e = INFINITY;
  pr->max_error = PetscMax(pr->max_error, e);
  if (pr->max_error > pr->c->threshold) {
    pr->exceeded = PETSC_TRUE;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_CONV_FAILED, "energy error %.6g over the threshold %.6g at t = %.6g s",
            (double)pr->max_error, (double)pr->c->threshold, (double)t);
  }
  PetscFunctionReturn(0);
}

/* The criterion: finite to t_end with max e_E <= threshold. */
static PetscErrorCode Stable(void *ctx, PetscReal dt, PetscBool *stable)
{
  Probe *pr = (Probe *)ctx;
  PetscInt steps = PetscMax(1, (PetscInt)PetscCeilReal(pr->pt.t_end / dt - 1e-9));
  char opts[4200];
  BenchRunRecord *rec;

  PetscFunctionBeginUser;
  pr->max_error = 0;
  pr->exceeded = PETSC_FALSE;
  PetscCall(BenchRunOptions(pr->popts, dt, steps, opts, sizeof(opts)));
  PetscCall(BenchResultAddRun(pr->res, pr->label, dt, steps, &rec));
  PetscCall(BenchRunIsolated(pr->bc, opts, ProbeMonitor, pr, rec));
  if (pr->exceeded) PetscCall(PetscStrcpy(rec->status, "over_threshold")); /* an outcome, not a failure */
  *stable = (PetscBool)(!strcmp(rec->status, "ok") && pr->max_error <= pr->c->threshold);
  PetscCall(PetscFPrintf(pr->bc->comm, pr->csv, "%s,%.9e,%" PetscInt_FMT ",%d,%.9e,%s\n", pr->label, (double)dt, steps,
                         (int)*stable, (double)pr->max_error, rec->status));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Stability(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  Probe pr = {.bc = bc, .res = res, .c = c};

  PetscFunctionBeginUser;
  PetscCall(BenchCSVOpen(bc, res, "", "label,dt,steps,stable,max_error,status", &pr.csv));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    char label[BENCH_LABEL_LEN], popts[4096], note[256];
    PetscReal dt;
    BenchBracket how;
    PetscInt probes;
    BenchRow *row;

    PetscCall(BenchCasePoint(c, p, label, sizeof(label), popts, sizeof(popts)));
    pr.label = label;
    PetscCall(BenchCasePointTime(c, p, &pr.pt));
    pr.popts = popts;
    PetscCall(BenchBisectStable(c->dt_min, c->dt_max, c->bisect_rtol, Stable, &pr, &dt, &how, &probes));
    PetscCall(BenchResultAddRow(res, label, &row));
    /* '>': stable even at dt_max; '<': unstable even at dt_min */
    PetscCall(BenchRowSet(row, "stable_dt", dt, how == BENCH_STABLE_AT_HI ? '>' : how == BENCH_UNSTABLE_AT_LO ? '<' : 0));
    PetscCall(BenchRowSet(row, "probes", probes, 0));
    if (how != BENCH_BRACKETED) {
      PetscCall(PetscSNPrintf(note, sizeof(note), "%s at every dt tried (dt in [%.6g, %.6g])",
                              how == BENCH_STABLE_AT_HI ? "stable" : "unstable", (double)c->dt_min, (double)c->dt_max));
      PetscCall(BenchRowNote(row, note));
    }
    if (how == BENCH_UNSTABLE_AT_LO && !strcmp(res->runs[res->nruns - 1].status, "error"))
      PetscCall(BenchRowNoteRun(row, &res->runs[res->nruns - 1]));
  }
  PetscCall(PetscFClose(bc->comm, pr.csv));
  PetscFunctionReturn(0);
}
