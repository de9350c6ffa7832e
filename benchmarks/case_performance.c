/* Performance (DESIGN §8): for each sweep point, one run; wall time per step split by PETSc log event,
 * throughput (vertices x steps / s), peak memory. Those figures are timings: they go to
 * <case>_timing.csv (written by the harness for every case) and the row's timings. <case>.csv holds
 * what is reproducible: label,vertices,steps,status.
 * Bytes model: a solver that models the memory traffic of a phase offers the per-step series
 * "<phase>_bytes" (SimSolverGetSeries; stablefluids: fluid_advect, fluid_forces, solve, fluid_other),
 * the phase being the row's timing "<phase>_ms". The row gets <phase>_mb (mean bytes per step / 1e6)
 * and, with stream_mb > 0 (a STREAM triad at the start of the case), <phase>_bound_ms = bytes /
 * bandwidth and <phase>_fraction_of_bound = bound / measured time; step_* for the modelled phases
 * together against ms_per_step. */
#include "benchmarks/cases.h"
#include "benchmarks/stream.h"

static const char *const phases[] = {"force", "assemble", "factor", "solve", "linesearch", "fluid_advect", "fluid_forces", "fluid_viscosity", "fluid_other"};
#define NPHASES ((PetscInt)(sizeof(phases) / sizeof(phases[0])))

typedef struct {
  PetscInt steps;
  PetscReal bytes[NPHASES];      /* summed over the steps */
  BenchEventSnapshot begin, end; /* after the set-up, after the last step */
} Traffic;

static PetscErrorCode TrafficMonitor(SimRun run, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *st,
                                     PetscReal wall_ms, void *ctx)
{
  Traffic *tr = (Traffic *)ctx;
  SimSolver solver;

  PetscFunctionBeginUser;
  if (!st) {
    PetscCall(BenchEventsSnapshot(&tr->begin));
    PetscFunctionReturn(0);
  }
  PetscCall(BenchEventsSnapshot(&tr->end));
  PetscCall(SimRunGetSolver(run, &solver));
  for (PetscInt p = 0; p < NPHASES; p++) {
    char name[48];
    PetscInt n;
    const PetscReal *v;
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s_bytes", phases[p]));
    PetscCall(SimSolverGetSeries(solver, name, &n, &v));
    if (n > 0) tr->bytes[p] += v[0];
  }
  tr->steps++;
  PetscFunctionReturn(0);
}

/* The row's bytes, bounds and fractions of a run (bandwidth in GB/s, 0: no bound). With a bytes model
 * the run's event split is taken over the steps only (the set-up's work, e.g. a first projection, is
 * not a step's): the record's and the row's timings are replaced by it. */
static PetscErrorCode RowSetTraffic(BenchRow *row, BenchRunRecord *rec, const Traffic *tr, PetscReal bandwidth)
{
  PetscReal step_bytes = 0, ms_step = 0, modelled = 0;
  char key[48];

  PetscFunctionBeginUser;
  if (tr->steps == 0) PetscFunctionReturn(0);
  for (PetscInt p = 0; p < NPHASES; p++) modelled += tr->bytes[p];
  if (modelled <= 0) PetscFunctionReturn(0);
  {
    BenchTiming t;
    PetscCall(BenchTimingCompute(&tr->begin, &tr->end, tr->steps, rec->nv, rec->timing.ms_per_step * tr->steps, &t));
    t.peak_rss_mb = rec->timing.peak_rss_mb;
    rec->timing = t;
    PetscCall(BenchRowSetTimings(row, &t));
  }
  for (PetscInt k = 0; k < row->nt; k++)
    if (!strcmp(row->t[k].key, "ms_per_step")) ms_step = row->t[k].value;
  for (PetscInt p = 0; p < NPHASES; p++) {
    const PetscReal bytes = tr->bytes[p] / tr->steps;
    PetscReal ms = 0;
    if (bytes <= 0) continue;
    step_bytes += bytes;
    PetscCall(PetscSNPrintf(key, sizeof(key), "%s_mb", phases[p]));
    PetscCall(BenchRowSet(row, key, bytes / 1e6, 0));
    if (bandwidth <= 0) continue;
    PetscCall(PetscSNPrintf(key, sizeof(key), "%s_ms", phases[p]));
    for (PetscInt k = 0; k < row->nt; k++)
      if (!strcmp(row->t[k].key, key)) ms = row->t[k].value;
    PetscCall(PetscSNPrintf(key, sizeof(key), "%s_bound_ms", phases[p]));
    PetscCall(BenchRowSetTiming(row, key, 1e3 * bytes / (bandwidth * 1e9)));
    if (ms > 0) {
      PetscCall(PetscSNPrintf(key, sizeof(key), "%s_fraction_of_bound", phases[p]));
      PetscCall(BenchRowSetTiming(row, key, 1e3 * bytes / (bandwidth * 1e9) / ms));
    }
  }
  if (step_bytes <= 0) PetscFunctionReturn(0);
  PetscCall(BenchRowSet(row, "step_mb", step_bytes / 1e6, 0));
  if (bandwidth > 0) {
    PetscCall(BenchRowSetTiming(row, "step_bound_ms", 1e3 * step_bytes / (bandwidth * 1e9)));
    if (ms_step > 0) PetscCall(BenchRowSetTiming(row, "step_fraction_of_bound", 1e3 * step_bytes / (bandwidth * 1e9) / ms_step));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Performance(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  FILE *csv;
  PetscReal bandwidth = 0, per_rank;

  PetscFunctionBeginUser;
  if (c->stream_mb > 0) {
    PetscCall(BenchStreamTriad(bc->comm, c->stream_mb, 10, &bandwidth, &per_rank));
    PetscCall(PetscPrintf(bc->comm, "bench:   STREAM triad %.2f GB/s (%.0f MB arrays) for the bandwidth bound\n", (double)bandwidth,
                          (double)c->stream_mb));
  }
  PetscCall(BenchCSVOpen(bc, res, "", "label,vertices,steps,status", &csv));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    BenchRow *row;
    BenchRunRecord *rec;
    Traffic tr;

    PetscCall(PetscMemzero(&tr, sizeof(tr)));
    PetscCall(BenchRunPoint(bc, c, res, p, TrafficMonitor, &tr, &row, &rec));
    PetscCall(BenchRowSet(row, "vertices", rec->nv, 0));
    PetscCall(BenchRowSet(row, "steps", rec->steps_done, 0));
    if (!strcmp(rec->status, "ok")) PetscCall(RowSetTraffic(row, rec, &tr, bandwidth));
    PetscCall(PetscFPrintf(bc->comm, csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%s\n", row->label, rec->nv, rec->steps_done,
                           rec->status));
  }
  PetscCall(PetscFClose(bc->comm, csv));
  PetscFunctionReturn(0);
}
