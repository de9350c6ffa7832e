/* Spatial convergence (DESIGN §8): one run per sweep point, each point a resolution of the same
 * problem. After the final step the driver reads two of the run's named figures (SimRunGetFigures:
 * the solver's and the scene's), `figure`, the error of an observable against the scene's analytic
 * value, and `size`, the mesh size h; the observed order is the least-squares slope of log(error)
 * against log(h) over every point that finished (BenchFitOrder), and per point the slope to the
 * previous point. <case>.csv: label,h,dt,error,status. The sweep must have a single swept option
 * (the resolution): the fit is over all points of the case. With refine_dt, point k runs at
 * dt / 2^k to t_end (the sweep doubles the resolution each point, so the Courant number stays fixed
 * and the error is the method's, time and space together). */
#include <math.h>
#include "framework/text.h"
#include "benchmarks/cases.h"
#include "benchmarks/metrics.h"

typedef struct {
  const BenchCase *c;
  PetscInt final_step;
  PetscReal h, error; /* of the current run; NaN until its final step */
} Spatial;

static PetscErrorCode FindFigure(SimRun run, const char *name, const char *key, const BenchCase *c, PetscReal *value)
{
  PetscInt n;
  const char *const *names;
  const PetscReal *values;
  char list[1024] = "";

  PetscFunctionBeginUser;
  PetscCall(SimRunGetFigures(run, &n, &names, &values));
  for (PetscInt k = 0; k < n; k++) {
    PetscBool same;
    PetscCall(PetscStrcmp(names[k], name, &same));
    if (same) {
      *value = values[k];
      PetscFunctionReturn(0);
    }
    PetscCall(SimStrAppend(list, k ? ", " : "", sizeof(list)));
    PetscCall(SimStrAppend(list, names[k], sizeof(list)));
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "case '%s': %s '%s' is not a figure of this run; its figures are: %s", c->name, key, name,
          n ? list : "(none)");
}

static PetscErrorCode SpatialMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *st,
                                     PetscReal wall_ms, void *ctx)
{
  Spatial *sp = (Spatial *)ctx;

  PetscFunctionBeginUser;
  /* at step 0 too, so that a misnamed figure fails before the run's work */
  if (step != 0 && step != sp->final_step) PetscFunctionReturn(0);
  PetscCall(FindFigure(run, sp->c->size, "size", sp->c, &sp->h));
  PetscCall(FindFigure(run, sp->c->figure, "figure", sp->c, &sp->error));
  if (step != sp->final_step) sp->error = NAN;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Spatial(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  Spatial sp = {.c = c};
  PetscInt np = BenchCaseNumPoints(c);
  PetscReal *h, *err;
  BenchRow **rows;
  FILE *csv;

  PetscFunctionBeginUser;
  PetscCheck(c->nsweeps == 1 && np >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "case '%s' (metric spatial) needs exactly one sweep with at least two resolutions (it has %" PetscInt_FMT " sweeps, %" PetscInt_FMT " points)",
             c->name, c->nsweeps, np);
  PetscCall(PetscMalloc3(np, &h, np, &err, np, &rows));
  PetscCheck(!c->refine_dt || c->steps == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "case '%s': refine_dt needs t_end (not steps), so that every point ends at the same time", c->name);
  PetscCall(BenchCSVOpen(bc, res, "", "label,h,dt,error,status", &csv));
  for (PetscInt p = 0; p < np; p++) {
    BenchRunRecord *rec;
    BenchPointTime pt;
    PetscReal dt;

    PetscCall(BenchCasePointTime(c, p, &pt));
    dt = c->refine_dt ? pt.dt / PetscPowReal(2, p) : pt.dt;
    sp.h = sp.error = NAN;
    sp.final_step = BenchPointSteps(&pt, dt);
    PetscCall(BenchRunPointAt(bc, c, res, p, dt, SpatialMonitor, &sp, &rows[p], &rec));
    h[p] = sp.h;
    err[p] = strcmp(rec->status, "ok") ? NAN : sp.error;
    PetscCall(BenchRowSet(rows[p], "h", h[p], 0));
    PetscCall(BenchRowSet(rows[p], "dt", dt, 0));
    PetscCall(BenchRowSet(rows[p], "error", err[p], 0));
    if (p > 0) {
      PetscReal pair, unused;
      PetscCall(BenchFitOrder(2, h + p - 1, err + p - 1, &pair, &unused));
      PetscCall(BenchRowSet(rows[p], "order_to_previous", pair, 0));
    }
    PetscCall(PetscFPrintf(bc->comm, csv, "%s,%.9e,%.9e,%.9e,%s\n", rows[p]->label, (double)h[p], (double)dt, (double)err[p], rec->status));
  }
  {
    PetscReal order, last;
    PetscCall(BenchFitOrder(np, h, err, &order, &last));
    for (PetscInt p = 0; p < np; p++) PetscCall(BenchRowSet(rows[p], "order", order, 0));
  }
  PetscCall(PetscFClose(bc->comm, csv));
  PetscCall(PetscFree3(h, err, rows));
  PetscFunctionReturn(0);
}
