/* Performance (DESIGN §8): for each sweep point, one run; wall time per step split by PETSc log event,
 * throughput (vertices x steps / s), peak memory. Those figures are timings: they go to
 * <case>_timing.csv (written by the harness for every case) and the row's timings. <case>.csv holds
 * what is reproducible: label,vertices,steps,status. */
#include "benchmarks/cases.h"

PetscErrorCode BenchCaseRun_Performance(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  FILE *csv;

  PetscFunctionBeginUser;
  PetscCall(BenchCSVOpen(bc, res, "", "label,vertices,steps,status", &csv));
  for (PetscInt p = 0; p < BenchCaseNumPoints(c); p++) {
    BenchRow *row;
    BenchRunRecord *rec;

    PetscCall(BenchRunPoint(bc, c, res, p, NULL, NULL, &row, &rec));
    PetscCall(BenchRowSet(row, "vertices", rec->nv, 0));
    PetscCall(BenchRowSet(row, "steps", rec->steps_done, 0));
    PetscCall(PetscFPrintf(bc->comm, csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%s\n", row->label, rec->nv, rec->steps_done,
                           rec->status));
  }
  PetscCall(PetscFClose(bc->comm, csv));
  PetscFunctionReturn(0);
}
