/* Isolated runs: options database push/pop, error capture, output muting and timing (see isolate.h). */
#include "benchmarks/isolate.h"
#include "framework/text.h"

/* The first error message of a run (PETSc calls the handler again at every level it unwinds). */
typedef struct {
  PetscErrorCode code;
  char message[BENCH_MESSAGE_LEN];
} ErrorCapture;

static PetscErrorCode CaptureError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p,
                                   const char *mess, void *ctx)
{
  ErrorCapture *cap = (ErrorCapture *)ctx;

  if (p == PETSC_ERROR_INITIAL && !cap->code) {
    const char *text = NULL;
    cap->code = n;
    if (!mess || !mess[0]) PetscErrorMessage(n, &text, NULL);
    snprintf(cap->message, sizeof(cap->message), "%s (%s)", mess && mess[0] ? mess : (text ? text : "unknown error"), fun);
  }
  return n;
}

/* What the harness's own monitor counts during a run. */
typedef struct {
  PetscInt steps, nv, not_converged;
  PetscReal time, wall_ms;
} Tally;

static PetscErrorCode TallyMonitor(SimRun run, PetscInt step, PetscReal time, const SimEnergyReport *rep,
                                   const SimStepStats *stats, PetscReal wall_ms, void *ctx)
{
  Tally *t = (Tally *)ctx;

  PetscFunctionBeginUser;
  if (step == 0) { /* the problem size: vertices, cells, particles, bodies */
    SimProblem problem;
    const char *unit;
    PetscCall(SimRunGetProblem(run, &problem));
    PetscCall(SimProblemGetSize(problem, &t->nv, &unit));
  }
  if (!stats) PetscFunctionReturn(0);
  t->steps = step;
  t->time = time;
  t->wall_ms += wall_ms;
  if (stats->outcome == SIM_STEP_NOT_CONVERGED) t->not_converged++;
  PetscFunctionReturn(0);
}

/* The run itself; every error propagates to the caller, which owns *run whatever happens. */
static PetscErrorCode RunBody(BenchContext *bc, SimRunMonitorFn fn, void *ctx, Tally *tally, SimRun *run)
{
  PetscFunctionBeginUser;
  PetscCall(SimRunCreate(bc->comm, bc->reg, run));
  PetscCall(SimRunSetFromOptions(*run));
  PetscCall(SimRunAddMonitor(*run, TallyMonitor, tally));
  if (fn) PetscCall(SimRunAddMonitor(*run, fn, ctx));
  PetscCall(SimRunExecute(*run));
  PetscFunctionReturn(0);
}

/* Replaces every occurrence of the scratch directory in s by "$SCRATCH", so that records do not depend
 * on where the suite wrote (acceptance: re-running gives identical numbers). The scratch path ends in
 * "/.scratch", so it is never shorter than its replacement. */
static void Scrub(char *s, const char *scratch)
{
  static const char to[] = "$SCRATCH";
  size_t n = strlen(scratch), m = sizeof(to) - 1;
  char *p = s;

  if (n < m) return;
  while ((p = strstr(p, scratch))) {
    memmove(p + m, p + n, strlen(p + n) + 1);
    memcpy(p, to, m);
    p += m;
  }
}

/* Names of the options nothing read, space-separated (truncated to fit). */
static PetscErrorCode RecordUnused(PetscOptions db, char *buf, size_t len)
{
  PetscInt n;
  char **names, **values;

  PetscFunctionBeginUser;
  buf[0] = 0;
  PetscCall(PetscOptionsLeftGet(db, &n, &names, &values));
  for (PetscInt i = 0; i < n; i++) {
    if (i) PetscCall(SimStrAppend(buf, " ", len));
    PetscCall(SimStrAppend(buf, "-", len));
    PetscCall(SimStrAppend(buf, names[i], len));
  }
  PetscCall(PetscOptionsLeftRestore(db, &n, &names, &values));
  PetscFunctionReturn(0);
}

/* A SimRun as a body: create, set from options, monitors, execute, destroy (whatever happened). */
typedef struct {
  SimRunMonitorFn fn;
  void *ctx;
  Tally tally;
} SimRunBody;

static PetscErrorCode RunSimRun(BenchContext *bc, void *ctx)
{
  SimRunBody *b = (SimRunBody *)ctx;
  SimRun run = NULL;
  PetscErrorCode rerr, derr;

  rerr = RunBody(bc, b->fn, b->ctx, &b->tally, &run);
  derr = SimRunDestroy(&run);
  return rerr ? rerr : derr;
}

/* Runs body(bc, ctx) isolated (see isolate.h); forced: options inserted after `options`, which win. */
static PetscErrorCode Isolated(BenchContext *bc, const char *options, const char *forced, BenchBodyFn body, void *ctx,
                               BenchRunRecord *rec)
{
  PetscOptions db;
  ErrorCapture cap = {0};
  BenchEventSnapshot before, after;
  FILE *saved_stdout = PETSC_STDOUT;
  PetscErrorCode rerr;
  char *all;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsCreate(&db));
  PetscCall(PetscOptionsInsertString(db, options));
  if (forced) PetscCall(PetscOptionsInsertString(db, forced));
  if (bc->verbose) PetscCall(PetscPrintf(bc->comm, "bench: run %s:%s\n", rec->label, options));

  PetscCall(BenchEventsSnapshot(&before));
  PetscCall(PetscOptionsPush(db));
  if (!bc->verbose && bc->devnull) PETSC_STDOUT = bc->devnull;
  PetscCall(PetscPushErrorHandler(CaptureError, &cap));
  rerr = body(bc, ctx);
  PetscCall(PetscPopErrorHandler());
  PETSC_STDOUT = saved_stdout;
  PetscCall(PetscOptionsPop());
  PetscCall(BenchEventsSnapshot(&after));
  PetscCall(BenchEventsRebalance(&before, &after));

  if (!rerr)
    PetscCall(PetscStrcpy(rec->status, "ok"));
  else
    PetscCall(PetscStrcpy(rec->status, cap.code == PETSC_ERR_FP ? "nonfinite" : "error"));
  PetscCall(PetscStrncpy(rec->message, cap.message, sizeof(rec->message)));
  Scrub(rec->message, bc->scratch);
  PetscCall(RecordUnused(db, rec->unused, sizeof(rec->unused)));
  PetscCall(PetscOptionsGetAll(db, &all));
  PetscCall(PetscMalloc1(strlen(all) + 1, &rec->options));
  PetscCall(PetscStrcpy(rec->options, all));
  Scrub(rec->options, bc->scratch);
  PetscCall(PetscFree(all));
  PetscCall(PetscOptionsDestroy(&db));
  if (bc->verbose && rerr) PetscCall(PetscPrintf(bc->comm, "bench:   %s: %s\n", rec->status, rec->message));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRunIsolated(BenchContext *bc, const char *options, SimRunMonitorFn fn, void *ctx, BenchRunRecord *rec)
{
  SimRunBody body = {.fn = fn, .ctx = ctx};
  BenchEventSnapshot before, after;
  char forced[PETSC_MAX_PATH_LEN + 128];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(forced, sizeof(forced), "-o %s -csv_log 0 -snapshots 0 -output_every 0 -progress 0", bc->scratch));
  PetscCall(BenchEventsSnapshot(&before));
  PetscCall(Isolated(bc, options, forced, RunSimRun, &body, rec));
  PetscCall(BenchEventsSnapshot(&after));
  rec->nv = body.tally.nv;
  rec->steps_done = body.tally.steps;
  rec->time_reached = body.tally.time;
  rec->not_converged = body.tally.not_converged;
  PetscCall(BenchTimingCompute(&before, &after, body.tally.steps, body.tally.nv, body.tally.wall_ms, &rec->timing));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRunIsolatedBody(BenchContext *bc, const char *options, BenchBodyFn fn, void *ctx, BenchRunRecord *rec)
{
  PetscFunctionBeginUser;
  PetscCall(Isolated(bc, options, NULL, fn, ctx, rec));
  PetscFunctionReturn(0);
}
