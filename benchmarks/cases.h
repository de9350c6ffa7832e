/* The case drivers, one per metric (DESIGN §8), and the few helpers they share. A driver runs every
 * sweep point of its case through BenchRunIsolated with a monitor collecting its metric, writes
 * <case>.csv (raw numbers, reproducible) in the output directory, and fills one result row per
 * sweep point. Timings never go into <case>.csv: the harness writes them to <case>_timing.csv. */
#pragma once
#include <stdio.h>
#include "benchmarks/isolate.h"
#include "framework/model/model.h"

typedef PetscErrorCode (*BenchCaseDriver)(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);

PetscErrorCode BenchCaseRun_Convergence(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
PetscErrorCode BenchCaseRun_Energy(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
PetscErrorCode BenchCaseRun_Stability(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
PetscErrorCode BenchCaseRun_Solver(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
PetscErrorCode BenchCaseRun_Performance(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
PetscErrorCode BenchCaseRun_Spatial(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
PetscErrorCode BenchCaseRun_Oscillation(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
PetscErrorCode BenchCaseRun_WorkPrecision(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
PetscErrorCode BenchCaseRun_Poisson(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
PetscErrorCode BenchCaseRun_Stream(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
PetscErrorCode BenchCaseRun_Scaling(BenchContext *bc, const BenchCase *c, BenchCaseResult *res);
/* poisson: the series of a sweep point (its sweep labels but the grid's, sweep_poisson_n, joined by
 * '/'; the case name if none): one line per series in the figures. */
PetscErrorCode BenchPoissonSeries(const BenchCase *c, PetscInt point, char *series, size_t len);

/* Opens DIR/<case><suffix>.csv for writing on rank 0, writes the header line, and lists the file in
 * res. Close with PetscFClose(bc->comm, fp). */
PetscErrorCode BenchCSVOpen(BenchContext *bc, BenchCaseResult *res, const char *suffix, const char *header, FILE **fp);
/* Options of one run: the point's options, then -dt and -steps. */
PetscErrorCode BenchRunOptions(const char *point_options, PetscReal dt, PetscInt steps, char *buf, size_t len);
/* The run's Lagrangian model (a mesh problem's), or NULL for another problem type (a grid). */
PetscErrorCode BenchRunGetModel(SimRun run, SimModel *model);
/* A note on the row for a run that did not finish: "<status> at t = ... (step n): message". */
PetscErrorCode BenchRowNoteRun(BenchRow *row, const BenchRunRecord *rec);
/* Runs a case's point at its dt for its steps (BenchCasePointTime): the common part of the energy,
 * solver and performance drivers. Adds the run record, and a row with the run's timings. */
PetscErrorCode BenchRunPoint(BenchContext *bc, const BenchCase *c, BenchCaseResult *res, PetscInt point, SimRunMonitorFn fn,
                             void *ctx, BenchRow **row, BenchRunRecord **rec);
/* The same at a step dt of the driver's choosing (spatial cases that refine dt with h); the number of
 * steps is the point's (its steps, or t_end / dt). */
PetscErrorCode BenchRunPointAt(BenchContext *bc, const BenchCase *c, BenchCaseResult *res, PetscInt point, PetscReal dt,
                               SimRunMonitorFn fn, void *ctx, BenchRow **row, BenchRunRecord **rec);
