/* Helpers the case drivers share: CSV files, run options, step counts, notes (see cases.h). */
#include <math.h>
#include "benchmarks/cases.h"
#include "problems/mesh/mesh.h"

PetscErrorCode BenchRunGetModel(SimRun run, SimModel *model)
{
  SimProblem problem;

  PetscFunctionBeginUser;
  PetscCall(SimRunGetProblem(run, &problem));
  *model = SimMeshModel(problem);
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCSVOpen(BenchContext *bc, BenchCaseResult *res, const char *suffix, const char *header, FILE **fp)
{
  char name[96], path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s%s.csv", res->c->name, suffix));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", bc->outdir, name));
  PetscCall(PetscFOpen(bc->comm, path, "w", fp));
  PetscCall(PetscFPrintf(bc->comm, *fp, "%s\n", header));
  PetscCall(BenchResultAddFile(res, name));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRunOptions(const char *point_options, PetscReal dt, PetscInt steps, char *buf, size_t len)
{
  PetscFunctionBeginUser;
  /* %.17g: the run gets exactly the dt the harness computed */
  PetscCall(PetscSNPrintf(buf, len, "%s -dt %.17g -steps %" PetscInt_FMT, point_options, (double)dt, steps));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRowNoteRun(BenchRow *row, const BenchRunRecord *rec)
{
  char text[BENCH_MESSAGE_LEN + 128];

  PetscFunctionBeginUser;
  if (!strcmp(rec->status, "ok")) PetscFunctionReturn(0);
  if (rec->message[0] && strstr(row->note, rec->message)) PetscFunctionReturn(0); /* said already (another dt) */
  if (!strcmp(rec->status, "nonfinite"))
    PetscCall(PetscSNPrintf(text, sizeof(text), "blew up (NaN/Inf or runaway energy) at step %" PetscInt_FMT ", t = %.4g s, dt = %.6g",
                            rec->steps_done + 1, (double)(rec->time_reached + rec->dt), (double)rec->dt));
  else
    PetscCall(PetscSNPrintf(text, sizeof(text), "run failed (dt = %.6g, after %" PetscInt_FMT " steps): %s", (double)rec->dt,
                            rec->steps_done, rec->message));
  PetscCall(BenchRowNote(row, text));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRunPoint(BenchContext *bc, const BenchCase *c, BenchCaseResult *res, PetscInt point, SimRunMonitorFn fn,
                             void *ctx, BenchRow **row, BenchRunRecord **rec)
{
  BenchPointTime pt;

  PetscFunctionBeginUser;
  PetscCall(BenchCasePointTime(c, point, &pt));
  PetscCall(BenchRunPointAt(bc, c, res, point, pt.dt, fn, ctx, row, rec));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRunPointAt(BenchContext *bc, const BenchCase *c, BenchCaseResult *res, PetscInt point, PetscReal dt,
                               SimRunMonitorFn fn, void *ctx, BenchRow **row, BenchRunRecord **rec)
{
  char label[BENCH_LABEL_LEN], popts[4096], opts[4200];
  BenchPointTime pt;
  PetscInt steps;

  PetscFunctionBeginUser;
  PetscCall(BenchCasePointTime(c, point, &pt));
  steps = BenchPointSteps(&pt, dt);
  PetscCall(BenchCasePoint(c, point, label, sizeof(label), popts, sizeof(popts)));
  PetscCall(BenchRunOptions(popts, dt, steps, opts, sizeof(opts)));
  PetscCall(BenchResultAddRun(res, label, dt, steps, rec));
  PetscCall(BenchRunIsolated(bc, opts, fn, ctx, *rec));
  PetscCall(BenchResultAddRow(res, label, row));
  PetscCall(BenchRowSetTimings(*row, &(*rec)->timing));
  PetscCall(BenchRowNoteRun(*row, *rec));
  PetscFunctionReturn(0);
}
