/* Stability (DESIGN §8): for each sweep point, the largest dt in [dt_min, dt_max] for which a run to
 * t_end is stable, found by bracketing from dt_start (geometric steps up or down) and bisection
 * (BenchBracketStable). A probe is unstable, with the reason as its status, when
 *   nonfinite       a step produced NaN/Inf or grew the energy 1e10-fold (SimRunExecute stops it);
 *   over_threshold  the relative energy error |E(t) - E(0)| / scale went over threshold with the
 *                   energy growing (a blow-up);
 *   accuracy        ... with the energy lost (numerical damping: an accuracy-limited dt, the limit of
 *                   the unconditionally stable implicit methods);
 *   not_converged   a step's nonlinear solve hit its iteration limit;
 *   iterations      a step needed more than max_its nonlinear iterations (iteration blow-up);
 *   error           the run failed (e.g. a Newton line search that cannot descend).
 * scale is |E(0)|, or the energy exchanged so far when E(0) is near 0 (BenchEnergyScale's rule).
 * <case>.csv, one row per probe: label,dt,steps,stable,max_error,status. */
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
  PetscReal E0, U0, exchanged, max_error; /* of the current probe */
  char reason[16];                         /* why the current probe stopped early ("" if it did not) */
  PetscInt not_converged;
  PetscReal first_unstable;                /* the smallest unstable dt of the point, and why */
  char first_reason[16];
} Probe;

/* Tracks the energy error and the solver's iterations; stops the run (with an error the probe
 * recognises) once it is unstable, since the rest of the run cannot make it stable again. */
static PetscErrorCode ProbeMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *stats,
                                   PetscReal wall_ms, void *ctx)
{
  Probe *pr = (Probe *)ctx;
  PetscReal e, scale;

  PetscFunctionBeginUser;
  if (step == 0) {
    pr->E0 = rep->total, pr->U0 = rep->potential, pr->exchanged = 0;
    PetscFunctionReturn(0);
  }
  if (stats && stats->outcome == SIM_STEP_NOT_CONVERGED) pr->not_converged++;
  if (stats && pr->c->max_its > 0 && stats->nonlinear_its > pr->c->max_its) {
    PetscCall(PetscStrcpy(pr->reason, "iterations"));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_CONV_FAILED, "%" PetscInt_FMT " nonlinear iterations in one step (max_its %" PetscInt_FMT ")",
            stats->nonlinear_its, pr->c->max_its);
  }
  pr->exchanged = PetscMax(pr->exchanged, PetscMax(PetscAbsReal(rep->kinetic), PetscAbsReal(rep->potential - pr->U0)));
  scale = PetscAbsReal(pr->E0) >= BENCH_ENERGY_GUARD * pr->exchanged ? PetscAbsReal(pr->E0) : pr->exchanged;
  e = scale > 0 ? PetscAbsReal(rep->total - pr->E0) / scale : 0;
  if (PetscIsInfOrNanReal(e)) e = INFINITY;
  pr->max_error = PetscMax(pr->max_error, e);
  if (pr->max_error > pr->c->threshold) {
    PetscCall(PetscStrcpy(pr->reason, rep->total < pr->E0 ? "accuracy" : "over_threshold"));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_CONV_FAILED, "energy error %.6g over the threshold %.6g at t = %.6g s (energy %s)",
            (double)pr->max_error, (double)pr->c->threshold, (double)t, rep->total < pr->E0 ? "lost" : "gained");
  }
  PetscFunctionReturn(0);
}

/* The criterion (see the file's comment). */
static PetscErrorCode Stable(void *ctx, PetscReal dt, PetscBool *stable)
{
  Probe *pr = (Probe *)ctx;
  PetscInt steps = PetscMax(1, (PetscInt)PetscCeilReal(pr->pt.t_end / dt - 1e-9));
  char opts[4200];
  BenchRunRecord *rec;

  PetscFunctionBeginUser;
  pr->max_error = 0;
  pr->reason[0] = 0;
  pr->not_converged = 0;
  PetscCall(BenchRunOptions(pr->popts, dt, steps, opts, sizeof(opts)));
  PetscCall(BenchResultAddRun(pr->res, pr->label, dt, steps, &rec));
  PetscCall(BenchRunIsolated(pr->bc, opts, ProbeMonitor, pr, rec));
  if (pr->reason[0]) PetscCall(PetscStrcpy(rec->status, pr->reason)); /* an outcome, not a failure */
  else if (!strcmp(rec->status, "ok") && pr->not_converged) PetscCall(PetscStrcpy(rec->status, "not_converged"));
  *stable = (PetscBool)(!strcmp(rec->status, "ok") && pr->max_error <= pr->c->threshold);
  if (!*stable && (!(pr->first_unstable > 0) || dt < pr->first_unstable)) {
    pr->first_unstable = dt;
    PetscCall(PetscStrncpy(pr->first_reason, rec->status, sizeof(pr->first_reason)));
  }
  PetscCall(PetscFPrintf(pr->bc->comm, pr->csv, "%s,%.9e,%" PetscInt_FMT ",%d,%.9e,%s\n", pr->label, (double)dt, steps,
                         (int)*stable, (double)pr->max_error, rec->status));
  PetscFunctionReturn(0);
}

/* What limits dt, in words, from the status of the smallest unstable probe. */
static const char *Limit(const char *status)
{
  if (!strcmp(status, "nonfinite")) return "blow-up (NaN/Inf or runaway energy)";
  if (!strcmp(status, "over_threshold")) return "blow-up (energy growth over the threshold)";
  if (!strcmp(status, "accuracy")) return "accuracy (energy lost over the threshold: numerical damping)";
  if (!strcmp(status, "not_converged")) return "Newton not converged (iteration limit)";
  if (!strcmp(status, "iterations")) return "iteration blow-up (over max_its per step)";
  return "run failure (e.g. Newton's line search)";
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
    pr.first_unstable = 0;
    pr.first_reason[0] = 0;
    PetscCall(BenchBracketStable(c->dt_min, c->dt_max, c->dt_start, c->growth, c->bisect_rtol, Stable, &pr, &dt, &how, &probes));
    PetscCall(BenchResultAddRow(res, label, &row));
    /* '>': stable even at dt_max; '<': unstable even at dt_min */
    PetscCall(BenchRowSet(row, "stable_dt", dt, how == BENCH_STABLE_AT_HI ? '>' : how == BENCH_UNSTABLE_AT_LO ? '<' : 0));
    PetscCall(BenchRowSet(row, "probes", probes, 0));
    if (how != BENCH_STABLE_AT_HI) {
      PetscCall(BenchRowSet(row, "unstable_dt", pr.first_unstable, 0));
      PetscCall(PetscSNPrintf(note, sizeof(note), "limited by %s", Limit(pr.first_reason)));
      PetscCall(BenchRowNote(row, note));
    }
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
