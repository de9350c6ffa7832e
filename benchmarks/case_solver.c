/* Solver convergence (DESIGN §8): for each sweep point, one run; every step's nonlinear residual
 * history and, where the solver minimizes an objective (the incremental potential), the gap to the
 * step's final value; iterations per step.
 * <case>.csv: label,step,iteration,residual,objective,gap,rel_gap,order (one row per iteration of
 * every step); rel_gap = (Phi_k - Phi*)/|Phi_0 - Phi*| with Phi* the solver's reference minimum when
 * it reports one (pd -pd_reference_newton), else the step's last objective; order is the local
 * convergence order of the residuals (BenchLocalOrder), empty where there is none.
 * <case>_gap_timing.csv: label,step,iteration,rel_gap,time_ms, a timing (not reproducible) beside it:
 * time_ms is the solver's own elapsed time to iteration k when it records it (pd), else the step's
 * wall time spread evenly over its iterations.
 * <case>_steps.csv: label,step,nonlinear_its,linear_its,linesearch_cuts,residual,outcome. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include "benchmarks/cases.h"
#include "benchmarks/metrics.h"

typedef struct {
  BenchContext *bc;
  FILE *iters, *steps, *times;
  const char *label;
  PetscInt nsteps, nonlinear, linear, cuts, max_nonlinear, not_converged, history;
  PetscInt norders;
  PetscReal peak_order[4096]; /* per step: the largest local order (median reported) */
  PetscReal gap_target;
  PetscInt nreached, cap;     /* steps whose relative gap reached gap_target */
  PetscReal *its_to_gap, *ms_to_gap;
} Tally;

static PetscErrorCode SolverMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *st,
                                    PetscReal wall_ms, void *ctx)
{
  Tally *ty = (Tally *)ctx;
  PetscInt nh;
  PetscReal order[SIM_MAX_HISTORY], peak;

  PetscFunctionBeginUser;
  if (!st) PetscFunctionReturn(0);
  nh = PetscMin(st->nhistory, SIM_MAX_HISTORY);
  ty->history += nh;
  PetscCall(BenchLocalOrder(nh, st->history, order, &peak));
  if (!PetscIsInfOrNanReal(peak) && ty->norders < (PetscInt)(sizeof(ty->peak_order) / sizeof(ty->peak_order[0])))
    ty->peak_order[ty->norders++] = peak;
  if (nh > 0) {
    /* the solver's own series where it records them (pd): Newton's reference minimum, and the wall
     * time per iteration without its monitoring evaluations */
    SimSolver solver;
    PetscInt nref, nel;
    const PetscReal *refv, *elapsed;
    PetscCall(SimRunGetSolver(run, &solver));
    PetscCall(SimSolverGetSeries(solver, "reference_objective", &nref, &refv));
    PetscCall(SimSolverGetSeries(solver, "elapsed_ms", &nel, &elapsed));
    const PetscReal ref = nref ? refv[0] : st->objective[nh - 1];
    const PetscReal den = PetscAbsReal(st->objective[0] - ref);
    const PetscBool own_time = (PetscBool)(nh > 1 && nel >= nh && elapsed[nh - 1] > 0);
    PetscBool reached = PETSC_FALSE;
    for (PetscInt k = 0; k < nh; k++) {
      /* incremental-potential gap: objective at iteration k minus the step's last, and relative to the reference */
      const PetscReal gap = st->objective[k] - st->objective[nh - 1], rel = den > 0 ? (st->objective[k] - ref) / den : 0;
      const PetscReal ms = own_time ? elapsed[k] : wall_ms * k / PetscMax(1, nh - 1);
      char q[32] = "";
      if (!PetscIsInfOrNanReal(order[k])) PetscCall(PetscSNPrintf(q, sizeof(q), "%.4f", (double)order[k]));
      PetscCall(PetscFPrintf(ty->bc->comm, ty->iters, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%.9e,%.12e,%.9e,%.9e,%s\n", ty->label,
                             step, k, (double)st->history[k], (double)st->objective[k], (double)gap, (double)rel, q));
      PetscCall(PetscFPrintf(ty->bc->comm, ty->times, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%.9e,%.6e\n", ty->label, step, k,
                             (double)rel, (double)ms));
      if (!reached && k > 0 && rel <= ty->gap_target) {
        reached = PETSC_TRUE;
        if (ty->nreached == ty->cap) {
          ty->cap = ty->cap ? 2 * ty->cap : 64;
          PetscCall(PetscRealloc(sizeof(PetscReal) * ty->cap, &ty->its_to_gap));
          PetscCall(PetscRealloc(sizeof(PetscReal) * ty->cap, &ty->ms_to_gap));
        }
        ty->its_to_gap[ty->nreached] = k, ty->ms_to_gap[ty->nreached] = ms, ty->nreached++;
      }
    }
  }
  PetscCall(PetscFPrintf(ty->bc->comm, ty->steps,
                         "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%.9e,%d\n", ty->label, step,
                         st->nonlinear_its, st->linear_its, st->linesearch_cuts, (double)st->residual, (int)st->outcome));
  ty->nsteps++;
  ty->nonlinear += st->nonlinear_its;
  ty->linear += st->linear_its;
  ty->cuts += st->linesearch_cuts;
  ty->max_nonlinear = PetscMax(ty->max_nonlinear, st->nonlinear_its);
  if (st->outcome == SIM_STEP_NOT_CONVERGED) ty->not_converged++;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Solver(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  Tally ty = {.bc = bc};

  PetscFunctionBeginUser;
  ty.gap_target = c->gap_target > 0 ? c->gap_target : 1e-3;
  PetscCall(BenchCSVOpen(bc, res, "", "label,step,iteration,residual,objective,gap,rel_gap,order", &ty.iters));
  PetscCall(BenchCSVOpen(bc, res, "_gap_timing", "label,step,iteration,rel_gap,time_ms", &ty.times));
  PetscCall(BenchCSVOpen(bc, res, "_steps", "label,step,nonlinear_its,linear_its,linesearch_cuts,residual,outcome", &ty.steps));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    char label[BENCH_LABEL_LEN], popts[4096];
    BenchRow *row;
    BenchRunRecord *rec;
    PetscReal n;

    PetscCall(BenchCasePoint(c, p, label, sizeof(label), popts, sizeof(popts)));
    ty.label = label;
    ty.nsteps = ty.nonlinear = ty.linear = ty.cuts = ty.max_nonlinear = ty.not_converged = ty.history = ty.nreached = ty.norders = 0;
    PetscCall(BenchRunPoint(bc, c, res, p, SolverMonitor, &ty, &row, &rec));
    n = PetscMax(1, ty.nsteps);
    PetscCall(BenchRowSet(row, "dt", rec->dt, 0));
    PetscCall(BenchRowSet(row, "steps", ty.nsteps, 0));
    PetscCall(BenchRowSet(row, "nonlinear_its_per_step", ty.nonlinear / n, 0));
    PetscCall(BenchRowSet(row, "max_nonlinear_its", ty.max_nonlinear, 0));
    PetscCall(BenchRowSet(row, "linear_its_per_step", ty.linear / n, 0));
    PetscCall(BenchRowSet(row, "linesearch_cuts_per_step", ty.cuts / n, 0));
    PetscCall(BenchRowSet(row, "not_converged_steps", ty.not_converged, 0));
    PetscCall(BenchRowSet(row, "history_points", ty.history, 0)); /* residuals recorded (0: the solver keeps no history) */
    /* median over steps of each step's peak local order: ~2 for Newton near the minimizer */
    if (ty.norders) {
      PetscCall(PetscSortReal(ty.norders, ty.peak_order));
      PetscCall(BenchRowSet(row, "local_order", ty.peak_order[ty.norders / 2], 0));
    }
    if (ty.nreached > 0) { /* medians over the steps that reached the relative gap gap_target */
      gsl_sort(ty.its_to_gap, 1, (size_t)ty.nreached);
      gsl_sort(ty.ms_to_gap, 1, (size_t)ty.nreached);
      PetscCall(BenchRowSet(row, "its_to_gap", gsl_stats_median_from_sorted_data(ty.its_to_gap, 1, (size_t)ty.nreached), 0));
      PetscCall(BenchRowSetTiming(row, "ms_to_gap", gsl_stats_median_from_sorted_data(ty.ms_to_gap, 1, (size_t)ty.nreached)));
    }
    if (ty.history > 0) PetscCall(BenchRowSet(row, "steps_gap_not_reached", ty.nsteps - ty.nreached, 0));
  }
  PetscCall(PetscFree(ty.its_to_gap));
  PetscCall(PetscFree(ty.ms_to_gap));
  PetscCall(PetscFClose(bc->comm, ty.iters));
  PetscCall(PetscFClose(bc->comm, ty.steps));
  PetscCall(PetscFClose(bc->comm, ty.times));
  PetscFunctionReturn(0);
}
