/* One simulation run of the harness, isolated: its own PETSc options database, its errors caught
 * and recorded instead of ending the suite, its timing read from the log events. */
#pragma once
#include "framework/sim.h"
#include "benchmarks/results.h"

/* What every run of a suite shares. */
typedef struct {
  MPI_Comm comm;
  SimRegistry reg;
  char suite_path[PETSC_MAX_PATH_LEN]; /* the suite file (the scaling metric re-runs it under mpirun) */
  char outdir[PETSC_MAX_PATH_LEN];  /* -o DIR */
  char scratch[PETSC_MAX_PATH_LEN]; /* the runs' -o (only a blow-up writes there: last_good.vtu) */
  PetscBool verbose;                /* show the runs' own output */
  PetscBool paper;                  /* figures in the paper-column style (-bench_style paper) */
  FILE *devnull;                    /* where the runs' stdout goes unless verbose */
} BenchContext;

/* Runs a simulation with exactly `options` (plus -o <scratch> -csv_log 0 -snapshots 0 -output_every 0
 * -progress 0, which win) in a fresh options database pushed for the run and popped after it:
 * SimRunCreate, SimRunSetFromOptions, the monitor fn(ctx) if not NULL, SimRunExecute, SimRunDestroy.
 * The outcome goes to rec: status "ok", "nonfinite" (a step produced NaN/Inf or a runaway energy: PETSC_ERR_FP) or
 * "error" with the first error message; the options database as run; options nothing read; steps,
 * time reached, vertex count, steps that did not converge; timing. A failed run is not an error of
 * this function: its errors are only the harness's own (e.g. an unparsable option string). */
PetscErrorCode BenchRunIsolated(BenchContext *bc, const char *options, SimRunMonitorFn fn, void *ctx, BenchRunRecord *rec);

/* The same isolation for a run that is not a SimRun (the pressure-solve, STREAM and scaling metrics):
 * fn(bc, ctx) runs with `options` alone in a fresh options database (nothing forced), stdout muted,
 * errors captured into rec (status, message), the options as run and those nothing read recorded.
 * rec's counts and timing are left to the caller. */
typedef PetscErrorCode (*BenchBodyFn)(BenchContext *bc, void *ctx);
PetscErrorCode BenchRunIsolatedBody(BenchContext *bc, const char *options, BenchBodyFn fn, void *ctx, BenchRunRecord *rec);
