/* Solver convergence (DESIGN §8): for each sweep point, one run; every step's nonlinear residual
 * history and, where the solver minimizes an objective (the incremental potential), the gap to the
 * step's final value; iterations per step.
 * <case>.csv: label,step,iteration,residual,objective,gap,order (one row per iteration of every step;
 *   order is the local convergence order of BenchLocalOrder, empty where there is none);
 * <case>_steps.csv: label,step,nonlinear_its,linear_its,linesearch_cuts,residual,outcome. */
#include "benchmarks/cases.h"
#include "benchmarks/metrics.h"

typedef struct {
  BenchContext *bc;
  FILE *iters, *steps;
  const char *label;
  PetscInt nsteps, nonlinear, linear, cuts, max_nonlinear, not_converged, history;
  PetscInt norders;
  PetscReal peak_order[4096]; /* per step: the largest local order (median reported) */
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
  for (PetscInt k = 0; k < nh; k++) {
    /* incremental-potential gap: objective at iteration k minus the step's last */
    PetscReal gap = st->objective[k] - st->objective[nh - 1];
    char q[32] = "";
    if (!PetscIsInfOrNanReal(order[k])) PetscCall(PetscSNPrintf(q, sizeof(q), "%.4f", (double)order[k]));
    PetscCall(PetscFPrintf(ty->bc->comm, ty->iters, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%.9e,%.12e,%.9e,%s\n", ty->label, step,
                           k, (double)st->history[k], (double)st->objective[k], (double)gap, q));
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
  PetscCall(BenchCSVOpen(bc, res, "", "label,step,iteration,residual,objective,gap,order", &ty.iters));
  PetscCall(BenchCSVOpen(bc, res, "_steps", "label,step,nonlinear_its,linear_its,linesearch_cuts,residual,outcome", &ty.steps));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    char label[BENCH_LABEL_LEN], popts[4096];
    BenchRow *row;
    BenchRunRecord *rec;
    PetscReal n;

    PetscCall(BenchCasePoint(c, p, label, sizeof(label), popts, sizeof(popts)));
    ty.label = label;
    ty.nsteps = ty.nonlinear = ty.linear = ty.cuts = ty.max_nonlinear = ty.not_converged = ty.history = ty.norders = 0;
    PetscCall(BenchRunPoint(bc, c, res, p, SolverMonitor, &ty, &row, &rec));
    n = PetscMax(1, ty.nsteps);
    PetscCall(BenchRowSet(row, "dt", c->dt, 0));
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
  }
  PetscCall(PetscFClose(bc->comm, ty.iters));
  PetscCall(PetscFClose(bc->comm, ty.steps));
  PetscFunctionReturn(0);
}
