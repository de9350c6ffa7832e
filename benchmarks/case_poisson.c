/* The pressure solve of the Stable Fluids projection, measured alone: for each sweep point, a MAC
 * grid (-poisson_dim 2|3, -poisson_n cells per axis, -poisson_ny/-poisson_nz to differ, h = 1/n,
 * walls everywhere unless -poisson_open_top) and a SimProjection with the point's options
 * (-sf_pressure_*), projecting a fixed pseudo-random divergent face field with SimProjectionApply,
 * the code the solver runs. Setup = the creation plus the SimFactor event (KSPSetUp) of the first
 * projection; then `repeats` projections of the same field are timed.
 * <case>.csv: label,series,dim,n,unknowns,iterations,relres,status (reproducible);
 * <case>_solve_timing.csv: label,series,unknowns,iterations,setup_ms,solve_ms,median_ms,ms_per_iteration,
 * bound_ms_per_iteration (timings; the bound from the STREAM bandwidth when stream_mb > 0). */
#include "benchmarks/cases.h"
#include "framework/text.h"
#include "benchmarks/stream.h"
#include "solvers/stablefluids/stablefluids.h"

typedef struct {
  PetscInt dim, n[3], unknowns, its;
  PetscReal relres, setup_ms, best_ms, median_ms, bytes;
  PetscInt repeats;
} Solve;

/* A value in [-0.5, 0.5) from a global face index: the same field on any number of ranks. */
static PetscReal Hash(PetscInt64 i)
{
  PetscInt64 x = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  uint64_t z = (uint64_t)x;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (PetscReal)(z >> 11) / 9007199254740992.0 - 0.5;
}

/* u: pseudo-random faces, wall-normal boundary faces and padding 0 (a compatible divergence). */
static PetscErrorCode FillField(SimMAC mac, Vec u)
{
  PetscInt xs, ys, zs, xm, ym, zm, dim = mac->dim;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(mac->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(u, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        PetscInt64 g = ((PetscInt64)k * (mac->n[1] + 1) + j) * (mac->n[0] + 1) + i;
        for (PetscInt c = 0; c < dim; c++) a[l * dim + c] = Hash(g * 3 + c);
      }
  PetscCall(VecRestoreArray(u, &a));
  PetscCall(SimMACZeroWallFaces(mac, u));
  PetscFunctionReturn(0);
}

/* One sweep point, inside the run's options database. */
static PetscErrorCode SolveBody(BenchContext *bc, void *ctx)
{
  Solve *S = (Solve *)ctx;
  SimMAC mac = NULL;
  SimProjection proj = NULL;
  Vec u, u0, div;
  PetscReal *ms, n0, n1;
  PetscBool open_top = PETSC_FALSE;
  PetscLogDouble t0, t1;
  BenchEventSnapshot before, after;

  PetscFunctionBeginUser;
  S->dim = 2;
  S->n[0] = 64;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-poisson_dim", &S->dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-poisson_n", &S->n[0], NULL));
  S->n[1] = S->n[2] = S->n[0];
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-poisson_ny", &S->n[1], NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-poisson_nz", &S->n[2], NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-poisson_open_top", &open_top, NULL));
  PetscCall(SimMACCreate(bc->comm, S->dim, S->n, 1.0 / S->n[0], &mac));
  if (open_top) PetscCall(SimMACSetBoundary(mac, S->dim - 1, 1, SIM_MAC_OPEN));
  S->unknowns = mac->n[0] * mac->n[1] * mac->n[2];
  PetscCall(DMCreateGlobalVector(mac->dav, &u));
  PetscCall(VecDuplicate(u, &u0));
  PetscCall(DMCreateGlobalVector(mac->da, &div));
  PetscCall(FillField(mac, u0));
  PetscCall(SimMACDivergence(mac, u0, div));
  PetscCall(VecNorm(div, NORM_2, &n0));

  /* setup: the creation (the matrix-free hierarchy is built there) and, in the first projection, the
   * SimFactor event (KSPSetUp: assembled operators, AMG hierarchies, factorizations) */
  PetscCall(VecCopy(u0, u));
  PetscCallMPI(MPI_Barrier(bc->comm));
  PetscCall(PetscTime(&t0));
  PetscCall(SimProjectionCreate(mac, NULL, &proj));
  PetscCallMPI(MPI_Barrier(bc->comm));
  PetscCall(PetscTime(&t1));
  PetscCall(BenchEventsSnapshot(&before));
  PetscCall(SimProjectionApply(proj, 1.0, 1.0, u, NULL));
  PetscCall(BenchEventsSnapshot(&after));
  S->setup_ms = 1e3 * (t1 - t0 + after.time[3] - before.time[3]); /* event 3: SimFactor (timing.h) */
  PetscCall(PetscMalloc1(S->repeats, &ms));
  for (PetscInt r = 0; r < S->repeats; r++) {
    PetscCall(VecCopy(u0, u));
    PetscCallMPI(MPI_Barrier(bc->comm));
    PetscCall(PetscTime(&t0));
    PetscCall(SimProjectionApply(proj, 1.0, 1.0, u, NULL));
    PetscCallMPI(MPI_Barrier(bc->comm));
    PetscCall(PetscTime(&t1));
    ms[r] = 1e3 * (t1 - t0);
  }
  PetscCall(PetscSortReal(S->repeats, ms));
  S->best_ms = ms[0];
  S->median_ms = S->repeats % 2 ? ms[S->repeats / 2] : 0.5 * (ms[S->repeats / 2 - 1] + ms[S->repeats / 2]);
  PetscCall(PetscFree(ms));
  PetscCall(SimProjectionGetIterations(proj, &S->its));
  PetscCall(SimProjectionBytesPerIteration(proj, &S->bytes));
  /* the true residual of A p = -h^d div u* is -h^d div u: relative, ||div u|| / ||div u*|| */
  PetscCall(SimMACDivergence(mac, u, div));
  PetscCall(VecNorm(div, NORM_2, &n1));
  S->relres = n1 / n0;
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&u0));
  PetscCall(VecDestroy(&div));
  PetscCall(SimProjectionDestroy(&proj));
  PetscCall(SimMACDestroy(&mac));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchPoissonSeries(const BenchCase *c, PetscInt point, char *series, size_t len)
{
  PetscInt stride = BenchCaseNumPoints(c);

  PetscFunctionBeginUser;
  series[0] = 0;
  for (PetscInt s = 0; s < c->nsweeps; s++) {
    PetscInt k;
    stride /= c->sweep[s].n;
    k = (point / stride) % c->sweep[s].n;
    if (!strcmp(c->sweep[s].option, "poisson_n")) continue;
    PetscCall(SimStrAppendItem(series, "/", c->sweep[s].label[k], len));
  }
  if (!series[0]) PetscCall(PetscStrncpy(series, c->name, len));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Poisson(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  FILE *csv, *times;
  PetscReal bandwidth = 0, per_rank;

  PetscFunctionBeginUser;
  if (c->stream_mb > 0) {
    PetscCall(BenchStreamTriad(bc->comm, c->stream_mb, 10, &bandwidth, &per_rank));
    PetscCall(PetscPrintf(bc->comm, "bench:   STREAM triad %.2f GB/s (%.0f MB arrays) for the bandwidth bound\n", (double)bandwidth,
                          (double)c->stream_mb));
  }
  PetscCall(BenchCSVOpen(bc, res, "", "label,series,dim,n,unknowns,iterations,relres,status", &csv));
  PetscCall(BenchCSVOpen(bc, res, "_solve_timing",
                         "label,series,unknowns,iterations,setup_ms,solve_ms,median_ms,ms_per_iteration,bound_ms_per_iteration",
                         &times));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    char label[BENCH_LABEL_LEN], series[BENCH_LABEL_LEN], popts[4096];
    Solve S = {.repeats = c->repeats};
    BenchRow *row;
    BenchRunRecord *rec;
    PetscReal per_it, bound = 0;

    PetscCall(BenchCasePoint(c, p, label, sizeof(label), popts, sizeof(popts)));
    PetscCall(BenchPoissonSeries(c, p, series, sizeof(series)));
    PetscCall(BenchResultAddRun(res, label, 0, 1, &rec));
    PetscCall(BenchRunIsolatedBody(bc, popts, SolveBody, &S, rec));
    PetscCall(BenchResultAddRow(res, label, &row));
    PetscCall(BenchRowNoteRun(row, rec));
    if (strcmp(rec->status, "ok")) {
      PetscCall(PetscFPrintf(bc->comm, csv, "%s,%s,%d,%d,%d,,,%s\n", label, series, (int)S.dim, (int)S.n[0], (int)S.unknowns,
                             rec->status));
      continue;
    }
    per_it = S.best_ms / PetscMax(1, S.its);
    if (S.bytes > 0 && bandwidth > 0) bound = 1e3 * S.bytes / (bandwidth * 1e9);
    PetscCall(BenchRowSet(row, "dim", S.dim, 0));
    PetscCall(BenchRowSet(row, "n", S.n[0], 0));
    PetscCall(BenchRowSet(row, "unknowns", S.unknowns, 0));
    PetscCall(BenchRowSet(row, "iterations", S.its, 0));
    PetscCall(BenchRowSet(row, "relres", S.relres, 0));
    if (S.bytes > 0) PetscCall(BenchRowSet(row, "mb_per_iteration", S.bytes / 1e6, 0));
    PetscCall(BenchRowSetTiming(row, "setup_ms", S.setup_ms));
    PetscCall(BenchRowSetTiming(row, "solve_ms", S.best_ms));
    PetscCall(BenchRowSetTiming(row, "median_ms", S.median_ms));
    PetscCall(BenchRowSetTiming(row, "ms_per_iteration", per_it));
    if (bound > 0) {
      PetscCall(BenchRowSetTiming(row, "bound_ms_per_iteration", bound));
      PetscCall(BenchRowSetTiming(row, "fraction_of_bound", bound / per_it));
    }
    /* the harness's <case>_timing.csv: one "step" is one projection */
    rec->steps_done = 1;
    rec->nv = S.unknowns;
    rec->timing.ms_per_step = S.best_ms;
    rec->timing.event_ms[3] = S.setup_ms; /* factor */
    rec->timing.event_ms[4] = S.best_ms;  /* solve */
    rec->timing.throughput = S.unknowns / (1e-3 * S.best_ms);
    PetscCall(PetscFPrintf(bc->comm, csv, "%s,%s,%d,%d,%d,%d,%.6e,%s\n", label, series, (int)S.dim, (int)S.n[0], (int)S.unknowns,
                           (int)S.its, (double)S.relres, rec->status));
    PetscCall(PetscFPrintf(bc->comm, times, "%s,%s,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g\n", label, series, (int)S.unknowns, (int)S.its,
                           (double)S.setup_ms, (double)S.best_ms, (double)S.median_ms, (double)per_it, (double)bound));
  }
  PetscCall(PetscFClose(bc->comm, csv));
  PetscCall(PetscFClose(bc->comm, times));
  PetscFunctionReturn(0);
}
