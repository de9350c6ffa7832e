/* Temporal convergence (DESIGN §8): for each sweep point, runs at dt, dt/2, ..., dt/2^R to t_end; the
 * error at t_end in the mass-weighted norm against (a) the scene's analytic solution, (b) a GSL
 * odeiv2 reference of the same model, or (c) a run 4x finer than the finest; observed orders of
 * positions and velocities. <case>.csv: label,dt,steps,error_x,error_v,status. */
#include <math.h>
#include "benchmarks/cases.h"
#include "problems/mesh/mesh.h"
#include "benchmarks/metrics.h"
#include "benchmarks/reference_ode.h"

/* State shared by the runs of one sweep point. */
typedef struct {
  const BenchCase *c;
  BenchPointTime pt;   /* the point's dt (the coarsest) and t_end */
  PetscInt final_step; /* the step at t_end of the current run */
  PetscBool capture;   /* reference "finest": this run's final state is the reference */
  PetscInt n;          /* 3 nv of the reference, 0 until it exists */
  PetscReal *xref, *vref, *diff;
  PetscReal err_x, err_v; /* of the current run */
  BenchRefCache cache;     /* ODE references, one per model of the case */
  char key[4096];          /* the point's model key (BenchCasePointModelKey) */
} Conv;

static PetscErrorCode ConvAllocate(Conv *cv, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(cv->xref, cv->vref, cv->diff));
  PetscCall(PetscMalloc3(n, &cv->xref, n, &cv->vref, n, &cv->diff));
  cv->n = n;
  PetscFunctionReturn(0);
}

/* Step 0 (initial state): the ODE reference from this model's initial state, computed once per model
 * of the case (the cache) and shared by its integrators. */
static PetscErrorCode ReferenceFromODE(Conv *cv, SimModel model)
{
  const PetscReal *xs, *vs;
  PetscInt n = 3 * model->nv;

  PetscFunctionBeginUser;
  PetscCall(ConvAllocate(cv, n));
  PetscCall(BenchRefCacheGet(cv->cache, cv->key, model, cv->pt.t_end, 1, cv->c->ode_rtol, cv->c->ode_atol, &xs, &vs));
  PetscCall(PetscArraycpy(cv->xref, xs + n, n));
  PetscCall(PetscArraycpy(cv->vref, vs + n, n));
  PetscFunctionReturn(0);
}

/* Final step: the mass-weighted errors |x - x_ref|_M, |v - v_ref|_M (SimModelMassNorm) over the free
 * DOFs (pinned ones are prescribed, not computed: a scripted pin's velocity is a difference quotient). */
static PetscErrorCode Errors(Conv *cv, SimRun run, SimModel model, PetscReal t)
{
  const PetscScalar *x, *v;
  PetscInt n = 3 * model->nv;

  PetscFunctionBeginUser;
  if (!strcmp(cv->c->reference, "analytic")) {
    SimScene scene;
    PetscBool has;
    PetscCall(SimRunGetScene(run, &scene));
    if (cv->n != n) PetscCall(ConvAllocate(cv, n));
    PetscCall(SimSceneExact(scene, t, cv->xref, cv->vref, &has));
    PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "Scene '%s' has no analytic solution: use reference: ode (small systems) or finest", scene->name);
  }
  PetscCheck(cv->n == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The reference has %" PetscInt_FMT " DOFs, this run %" PetscInt_FMT,
             cv->n, n);
  PetscCall(VecGetArrayRead(model->x, &x));
  PetscCall(VecGetArrayRead(model->v, &v));
  for (PetscInt k = 0; k < n; k++) cv->diff[k] = x[k] - cv->xref[k];
  PetscCall(SimModelZeroPinned(model, cv->diff));
  PetscCall(SimModelMassNorm(model, cv->diff, &cv->err_x));
  for (PetscInt k = 0; k < n; k++) cv->diff[k] = v[k] - cv->vref[k];
  PetscCall(SimModelZeroPinned(model, cv->diff));
  PetscCall(SimModelMassNorm(model, cv->diff, &cv->err_v));
  PetscCall(VecRestoreArrayRead(model->v, &v));
  PetscCall(VecRestoreArrayRead(model->x, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode CaptureReference(Conv *cv, SimModel model)
{
  const PetscScalar *x, *v;

  PetscFunctionBeginUser;
  PetscCall(ConvAllocate(cv, 3 * model->nv));
  PetscCall(VecGetArrayRead(model->x, &x));
  PetscCall(VecGetArrayRead(model->v, &v));
  PetscCall(PetscArraycpy(cv->xref, x, cv->n));
  PetscCall(PetscArraycpy(cv->vref, v, cv->n));
  PetscCall(VecRestoreArrayRead(model->v, &v));
  PetscCall(VecRestoreArrayRead(model->x, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode ConvMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *stats,
                                  PetscReal wall_ms, void *ctx)
{
  Conv *cv = (Conv *)ctx;
  SimProblem problem;
  SimModel model;

  PetscFunctionBeginUser;
  PetscCall(SimRunGetProblem(run, &problem));
  model = SimMeshModel(problem);
  PetscCheck(model, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "A convergence case compares mesh states (x, v in the mass norm); other problems report their error as a figure (e.g. "
             "velocity_error, metric spatial)");
  if (step == 0 && !strcmp(cv->c->reference, "ode") && !cv->n) PetscCall(ReferenceFromODE(cv, model));
  if (step == 0 && !strcmp(cv->c->reference, "analytic")) PetscCall(Errors(cv, run, model, t)); /* fails now if there is none */
  if (step != cv->final_step) PetscFunctionReturn(0);
  if (cv->capture)
    PetscCall(CaptureReference(cv, model));
  else
    PetscCall(Errors(cv, run, model, t));
  PetscFunctionReturn(0);
}

/* One run of the point at dt; err_x/err_v are NaN unless it reached t_end. */
static PetscErrorCode RunAt(BenchContext *bc, BenchCaseResult *res, Conv *cv, const char *label, const char *popts, PetscReal dt,
                            BenchRunRecord **rec)
{
  char opts[4200];

  PetscFunctionBeginUser;
  cv->final_step = BenchPointSteps(&cv->pt, dt);
  cv->err_x = cv->err_v = NAN;
  PetscCall(BenchRunOptions(popts, dt, cv->final_step, opts, sizeof(opts)));
  PetscCall(BenchResultAddRun(res, label, dt, cv->final_step, rec));
  PetscCall(BenchRunIsolated(bc, opts, ConvMonitor, cv, *rec));
  if (strcmp((*rec)->status, "ok")) cv->err_x = cv->err_v = NAN;
  PetscFunctionReturn(0);
}

/* The row of one sweep point: orders from the runs that reached t_end (DESIGN §8). */
static PetscErrorCode FillRow(BenchRow *row, PetscInt n, const PetscReal dt[], const PetscReal ex[], const PetscReal ev[])
{
  PetscReal p, plast;

  PetscFunctionBeginUser;
  PetscCall(BenchRowSet(row, "dt", dt[0], 0));
  PetscCall(BenchRowSet(row, "dt_finest", dt[n - 1], 0));
  PetscCall(BenchRowSet(row, "error_x", ex[0], 0));
  PetscCall(BenchRowSet(row, "error_x_finest", ex[n - 1], 0));
  PetscCall(BenchFitOrder(n, dt, ex, &p, &plast));
  PetscCall(BenchRowSet(row, "order_x", p, 0));
  PetscCall(BenchRowSet(row, "order_x_last", plast, 0));
  PetscCall(BenchRowSet(row, "error_v", ev[0], 0));
  PetscCall(BenchRowSet(row, "error_v_finest", ev[n - 1], 0));
  PetscCall(BenchFitOrder(n, dt, ev, &p, &plast));
  PetscCall(BenchRowSet(row, "order_v", p, 0));
  PetscCall(BenchRowSet(row, "order_v_last", plast, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Convergence(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  FILE *csv;
  PetscInt nruns = c->refinements + 1;
  PetscReal *dt, *ex, *ev;
  BenchRefCache cache;

  PetscFunctionBeginUser;
  PetscCall(BenchRefCacheCreate(&cache));
  PetscCall(BenchCSVOpen(bc, res, "", "label,dt,steps,error_x,error_v,status", &csv));
  PetscCall(PetscMalloc3(nruns, &dt, nruns, &ex, nruns, &ev));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    char label[BENCH_LABEL_LEN], popts[4096];
    Conv cv = {.c = c, .cache = cache};
    BenchRunRecord *rec;
    BenchRow *row;
    PetscBool have_ref = PETSC_TRUE;

    PetscCall(BenchCasePoint(c, p, label, sizeof(label), popts, sizeof(popts)));
    PetscCall(BenchCasePointTime(c, p, &cv.pt));
    PetscCall(BenchCasePointModelKey(c, p, cv.key, sizeof(cv.key)));
    PetscCall(BenchResultAddRow(res, label, &row));
    if (!strcmp(c->reference, "finest")) {
      /* reference (c): a run 4x finer than the finest of the sequence */
      cv.capture = PETSC_TRUE;
      PetscCall(RunAt(bc, res, &cv, label, popts, cv.pt.dt / PetscPowReal(2, c->refinements + 2), &rec));
      cv.capture = PETSC_FALSE;
      have_ref = (PetscBool)(!strcmp(rec->status, "ok") && cv.n > 0);
      if (!have_ref) {
        PetscCall(BenchRowNote(row, "reference (finest) run failed"));
        PetscCall(BenchRowNoteRun(row, rec));
      }
    }
    for (PetscInt k = 0; k < nruns; k++) {
      dt[k] = cv.pt.dt / PetscPowReal(2, k);
      ex[k] = ev[k] = NAN;
      if (!have_ref) continue;
      PetscCall(RunAt(bc, res, &cv, label, popts, dt[k], &rec));
      ex[k] = cv.err_x;
      ev[k] = cv.err_v;
      PetscCall(PetscFPrintf(bc->comm, csv, "%s,%.9e,%" PetscInt_FMT ",%.9e,%.9e,%s\n", label, (double)dt[k], rec->steps,
                             (double)ex[k], (double)ev[k], rec->status));
      PetscCall(BenchRowNoteRun(row, rec));
      if (k == nruns - 1) PetscCall(BenchRowSetTimings(row, &rec->timing)); /* timings of the finest run */
    }
    PetscCall(FillRow(row, nruns, dt, ex, ev));
    PetscCall(PetscFree3(cv.xref, cv.vref, cv.diff));
  }
  PetscCall(PetscFree3(dt, ex, ev));
  PetscCall(PetscFClose(bc->comm, csv));
  if (!strcmp(c->reference, "ode"))
    PetscCall(PetscPrintf(bc->comm, "bench:   ODE reference computed %" PetscInt_FMT " time(s) for %" PetscInt_FMT " sweep point(s)\n",
                          BenchRefCacheComputed(cache), BenchCaseNumPoints(c)));
  PetscCall(BenchRefCacheDestroy(&cache));
  PetscFunctionReturn(0);
}
