/* Result rows, run records and file lists of a case (see results.h). */
#include "benchmarks/results.h"
#include "framework/text.h"

PetscErrorCode BenchResultInit(BenchCaseResult *r, const BenchCase *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->c = c;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchResultDestroy(BenchCaseResult *r)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < r->nruns; i++) PetscCall(PetscFree(r->runs[i].options));
  PetscCall(PetscFree(r->rows));
  PetscCall(PetscFree(r->runs));
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscFunctionReturn(0);
}

/* Grows an array of `size`-byte items to hold one more, doubling its capacity. */
static PetscErrorCode Grow(void **array, PetscInt n, PetscInt *max, size_t size)
{
  void *bigger;

  PetscFunctionBeginUser;
  if (n < *max) PetscFunctionReturn(0);
  *max = *max ? 2 * *max : 16;
  PetscCall(PetscCalloc((size_t)*max * size, &bigger));
  if (n) PetscCall(PetscMemcpy(bigger, *array, (size_t)n * size));
  PetscCall(PetscFree(*array));
  *array = bigger;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchResultAddRow(BenchCaseResult *r, const char *label, BenchRow **row)
{
  PetscFunctionBeginUser;
  PetscCall(Grow((void **)&r->rows, r->nrows, &r->maxrows, sizeof(BenchRow)));
  *row = &r->rows[r->nrows++];
  PetscCall(PetscStrncpy((*row)->label, label, sizeof((*row)->label)));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchResultAddRun(BenchCaseResult *r, const char *label, PetscReal dt, PetscInt steps, BenchRunRecord **run)
{
  PetscFunctionBeginUser;
  PetscCall(Grow((void **)&r->runs, r->nruns, &r->maxruns, sizeof(BenchRunRecord)));
  *run = &r->runs[r->nruns++];
  PetscCall(PetscStrncpy((*run)->label, label, sizeof((*run)->label)));
  (*run)->dt = dt;
  (*run)->steps = steps;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchResultAddFile(BenchCaseResult *r, const char *file)
{
  PetscFunctionBeginUser;
  PetscCheck(r->nfiles < BENCH_MAX_FILES, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "At most %d data files per case", BENCH_MAX_FILES);
  PetscCall(PetscStrncpy(r->file[r->nfiles++], file, sizeof(r->file[0])));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchResultAddPlot(BenchCaseResult *r, const char *stem, const char *caption)
{
  PetscFunctionBeginUser;
  PetscCheck(r->nplots < BENCH_MAX_FILES, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "At most %d plots per case", BENCH_MAX_FILES);
  PetscCall(PetscStrncpy(r->plot[r->nplots], stem, sizeof(r->plot[0])));
  PetscCall(PetscStrncpy(r->caption[r->nplots++], caption, sizeof(r->caption[0])));
  PetscFunctionReturn(0);
}

static PetscErrorCode Set(BenchValue *list, PetscInt *n, const char *key, PetscReal value, char bound)
{
  PetscInt i;

  PetscFunctionBeginUser;
  for (i = 0; i < *n; i++)
    if (!strcmp(list[i].key, key)) break;
  if (i == *n) {
    PetscCheck(*n < BENCH_MAX_ROW_VALUES, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "At most %d values per result row",
               BENCH_MAX_ROW_VALUES);
    (*n)++;
    PetscCall(PetscStrncpy(list[i].key, key, sizeof(list[i].key)));
  }
  list[i].value = value;
  list[i].bound = bound;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRowSet(BenchRow *row, const char *key, PetscReal value, char bound)
{
  return Set(row->v, &row->n, key, value, bound);
}

PetscErrorCode BenchRowSetTiming(BenchRow *row, const char *key, PetscReal value)
{
  return Set(row->t, &row->nt, key, value, 0);
}

PetscErrorCode BenchRowSetTimings(BenchRow *row, const BenchTiming *t)
{
  char key[32];

  PetscFunctionBeginUser;
  PetscCall(BenchRowSetTiming(row, "ms_per_step", t->ms_per_step));
  for (PetscInt i = 1; i < BENCH_NEVENTS; i++) {
    PetscCall(PetscSNPrintf(key, sizeof(key), "%s_ms", BenchEventName(i)));
    PetscCall(BenchRowSetTiming(row, key, t->event_ms[i]));
  }
  PetscCall(BenchRowSetTiming(row, "other_ms", t->other_ms));
  PetscCall(BenchRowSetTiming(row, "throughput", t->throughput));
  PetscCall(BenchRowSetTiming(row, "peak_rss_mb", t->peak_rss_mb));
  if (t->term_calls[0] > 0) { /* the IPC term ran: its phases per step and per call (issue 12's figures) */
    const PetscReal *ms = t->term_ms, *n = t->term_calls;
    PetscReal barrier_call = 0;
    for (PetscInt i = 1; i <= 3; i++)
      if (n[i] > 0) barrier_call += ms[i] / n[i];
    PetscCall(BenchRowSetTiming(row, "ipc_build_ms", ms[0]));
    PetscCall(BenchRowSetTiming(row, "ipc_barrier_ms", ms[1] + ms[2] + ms[3]));
    PetscCall(BenchRowSetTiming(row, "ipc_ccd_ms", ms[4]));
    PetscCall(BenchRowSetTiming(row, "ipc_build_call_ms", ms[0] / n[0]));
    PetscCall(BenchRowSetTiming(row, "ipc_barrier_call_ms", barrier_call)); /* one value + one gradient + one Hessian */
    PetscCall(BenchRowSetTiming(row, "ipc_ccd_call_ms", n[4] > 0 ? ms[4] / n[4] : 0));
  }
  if (t->term_calls[BENCH_FLUID_EVENT] > 0) { /* a stablefluids step: its phases (the projection's solve is solve_ms) */
    const PetscReal *ms = t->term_ms + BENCH_FLUID_EVENT;
    PetscCall(BenchRowSetTiming(row, "fluid_advect_ms", ms[0]));
    PetscCall(BenchRowSetTiming(row, "fluid_forces_ms", ms[1]));
    PetscCall(BenchRowSetTiming(row, "fluid_viscosity_ms", ms[2]));
    /* the rest of the step: sources, CFL check, the projection's divergence and gradient, diagnostics */
    PetscCall(BenchRowSetTiming(row, "fluid_other_ms", PetscMax(0, t->event_ms[0] - ms[0] - ms[1] - ms[2] - t->event_ms[3] - t->event_ms[4])));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRowNote(BenchRow *row, const char *text)
{
  PetscFunctionBeginUser;
  PetscCall(SimStrAppendItem(row->note, "; ", text, sizeof(row->note)));
  PetscFunctionReturn(0);
}

const BenchValue *BenchResultFind(const BenchCaseResult *r, const char *label, const char *key)
{
  for (PetscInt i = 0; i < r->nrows; i++) {
    const BenchRow *row = &r->rows[i];
    if (strcmp(row->label, label)) continue;
    for (PetscInt k = 0; k < row->n; k++)
      if (!strcmp(row->v[k].key, key)) return &row->v[k];
    for (PetscInt k = 0; k < row->nt; k++)
      if (!strcmp(row->t[k].key, key)) return &row->t[k];
  }
  return NULL;
}
