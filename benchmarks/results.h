/* What a case produced: per-label result rows (reproducible numbers apart from timings), per-run
 * records (options, status, error message, timing), and the files it wrote. */
#pragma once
#include "benchmarks/suite.h"
#include "benchmarks/timing.h"

#define BENCH_MAX_ROW_VALUES 32
#define BENCH_MAX_FILES 8
#define BENCH_MESSAGE_LEN 512

/* A named number. bound: 0 (the value), '>' (the true value is at least this: e.g. stable at the
 * largest dt tried, or an energy error cut short by a blow-up), '<' (at most this). */
typedef struct {
  char key[32];
  PetscReal value;
  char bound;
} BenchValue;

/* One row per sweep point (label). v: reproducible results; t: timings (differ between runs). */
typedef struct {
  char label[BENCH_LABEL_LEN];
  PetscInt n, nt;
  BenchValue v[BENCH_MAX_ROW_VALUES];
  BenchValue t[BENCH_MAX_ROW_VALUES];
  char note[BENCH_MESSAGE_LEN]; /* e.g. "blew up at t = 0.3 s", failures */
} BenchRow;

/* One simulation run. */
typedef struct {
  char label[BENCH_LABEL_LEN];
  PetscReal dt;
  PetscInt steps;                  /* requested */
  char status[16];                 /* ok | nonfinite (a step blew up: NaN/Inf or runaway energy) | error */
  char message[BENCH_MESSAGE_LEN]; /* the first error message of a failed run */
  char *options;                   /* the run's whole options database ("$OUT" for the output directory) */
  char unused[BENCH_MESSAGE_LEN];  /* options of the run nothing read, space-separated */
  PetscInt nv, steps_done, not_converged;
  PetscReal time_reached;
  BenchTiming timing;
} BenchRunRecord;

typedef struct {
  const BenchCase *c;
  PetscInt nrows, maxrows;
  BenchRow *rows;
  PetscInt nruns, maxruns;
  BenchRunRecord *runs;
  PetscInt nfiles, nplots;
  char file[BENCH_MAX_FILES][96]; /* data files, relative to the output directory */
  char plot[BENCH_MAX_FILES][96]; /* plot stems: <stem>.png and <stem>.svg */
  char caption[BENCH_MAX_FILES][160];
  char never_used[BENCH_MESSAGE_LEN]; /* options no run of the case read: likely typos */
} BenchCaseResult;

PetscErrorCode BenchResultInit(BenchCaseResult *r, const BenchCase *c);
PetscErrorCode BenchResultDestroy(BenchCaseResult *r);
/* A new zeroed row / run record; the pointer is valid until the next add of the same kind. */
PetscErrorCode BenchResultAddRow(BenchCaseResult *r, const char *label, BenchRow **row);
PetscErrorCode BenchResultAddRun(BenchCaseResult *r, const char *label, PetscReal dt, PetscInt steps, BenchRunRecord **run);
PetscErrorCode BenchResultAddFile(BenchCaseResult *r, const char *file);
PetscErrorCode BenchResultAddPlot(BenchCaseResult *r, const char *stem, const char *caption);
/* Sets a reproducible value / a timing of a row. */
PetscErrorCode BenchRowSet(BenchRow *row, const char *key, PetscReal value, char bound);
PetscErrorCode BenchRowSetTiming(BenchRow *row, const char *key, PetscReal value);
/* The row timings from one run's figures (ms_per_step, <event>_ms, other_ms, throughput, peak_rss_mb;
 * when the IPC term ran, ipc_build_ms, ipc_barrier_ms, ipc_ccd_ms per step and ipc_build_call_ms,
 * ipc_barrier_call_ms (one value, gradient and Hessian), ipc_ccd_call_ms per call; after a stablefluids
 * step, fluid_advect_ms, fluid_forces_ms, fluid_viscosity_ms and fluid_other_ms, the rest of the step
 * beside them and the projection's factor and solve). */
PetscErrorCode BenchRowSetTimings(BenchRow *row, const BenchTiming *t);
/* Appends to a row's note ("; " between parts). */
PetscErrorCode BenchRowNote(BenchRow *row, const char *text);
/* The value of key for label, among the row's values, then its timings; NULL if absent. */
const BenchValue *BenchResultFind(const BenchCaseResult *r, const char *label, const char *key);
