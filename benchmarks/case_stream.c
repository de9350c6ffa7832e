/* STREAM (see stream.h) as a benchmark case: for each sweep point, one triad measurement on the
 * suite's ranks. <case>.csv: label,ranks,mb (reproducible); <case>_bandwidth_timing.csv:
 * label,ranks,mb,triad_gbs,triad_gbs_per_rank (the measurement; the scaling metric reads it). */
#include "benchmarks/cases.h"
#include "benchmarks/stream.h"

typedef struct {
  const BenchCase *c;
  PetscReal aggregate, per_rank;
} Stream;

static PetscErrorCode StreamBody(BenchContext *bc, void *ctx)
{
  Stream *st = (Stream *)ctx;

  PetscFunctionBeginUser;
  PetscCall(BenchStreamTriad(bc->comm, st->c->stream_mb, st->c->repeats, &st->aggregate, &st->per_rank));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Stream(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  FILE *csv, *bw;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(bc->comm, &size));
  PetscCall(BenchCSVOpen(bc, res, "", "label,ranks,mb", &csv));
  PetscCall(BenchCSVOpen(bc, res, "_bandwidth_timing", "label,ranks,mb,triad_gbs,triad_gbs_per_rank", &bw));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    char label[BENCH_LABEL_LEN], popts[4096];
    Stream st = {.c = c};
    BenchRow *row;
    BenchRunRecord *rec;

    PetscCall(BenchCasePoint(c, p, label, sizeof(label), popts, sizeof(popts)));
    PetscCall(BenchResultAddRun(res, label, 0, 1, &rec));
    PetscCall(BenchRunIsolatedBody(bc, popts, StreamBody, &st, rec));
    PetscCall(BenchResultAddRow(res, label, &row));
    PetscCall(BenchRowNoteRun(row, rec));
    PetscCall(BenchRowSet(row, "ranks", size, 0));
    PetscCall(BenchRowSet(row, "mb", c->stream_mb, 0));
    PetscCall(PetscFPrintf(bc->comm, csv, "%s,%d,%.6g\n", label, (int)size, (double)c->stream_mb));
    if (strcmp(rec->status, "ok")) continue;
    rec->steps_done = 1;
    PetscCall(BenchRowSetTiming(row, "triad_gbs", st.aggregate));
    PetscCall(BenchRowSetTiming(row, "triad_gbs_per_rank", st.per_rank));
    PetscCall(PetscFPrintf(bc->comm, bw, "%s,%d,%.6g,%.6g,%.6g\n", label, (int)size, (double)c->stream_mb, (double)st.aggregate,
                           (double)st.per_rank));
  }
  PetscCall(PetscFClose(bc->comm, csv));
  PetscCall(PetscFClose(bc->comm, bw));
  PetscFunctionReturn(0);
}
