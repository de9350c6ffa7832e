/* Parallel scaling: for each rank count N, this pbsim runs `mpirun -np N --oversubscribe <pbsim> bench
 * <this suite> -bench_cases <inner>[,<stream>] -o DIR/<case>_np<N>`, so the child measures with the
 * same case code, and reads back the child's <inner>_timing.csv (ms_per_step of its first good run:
 * for a poisson case the best time per projection) and <stream>_bandwidth_timing.csv (STREAM triad at N).
 * Strong mode: one inner case at every N; weak mode: inner case i (whose grid grows with N) at N_i.
 * With work ratio w = 1 (strong) or N (weak):
 *   speedup = w t_1 / t_N, efficiency = speedup / N, stream_speedup = B_N / B_1,
 *   fraction_of_stream_bound = speedup / stream_speedup (a memory-bound code cannot beat 1).
 * N above the online cores is oversubscribed: marked in the row. <case>.csv: label,ranks,inner,
 * oversubscribed,status; <case>_speedup_timing.csv: label,ranks,time_ms,speedup,efficiency,stream_gbs,
 * stream_speedup,fraction_of_stream_bound. A `solver` inner case's iterations (its <inner>_steps.csv) go into
 * the row too: newton_its_per_step, linear_its_per_step and ms_per_newton_it (time per Newton iteration). */
#include <stdlib.h>
#include "framework/text.h"
#include <unistd.h>
#include "benchmarks/cases.h"

/* Column `col` (0-based) of the first data row of a CSV whose status column `scol` (or -1) is "ok". */
static PetscErrorCode ReadColumn(const char *path, int col, int scol, PetscReal *value, PetscBool *found)
{
  char line[4096];
  FILE *f = fopen(path, "r");

  PetscFunctionBeginUser;
  *found = PETSC_FALSE;
  if (!f) PetscFunctionReturn(0);
  if (!fgets(line, sizeof(line), f)) line[0] = 0; /* header */
  while (!*found && fgets(line, sizeof(line), f)) {
    char *save = NULL, *tok = strtok_r(line, ",\n", &save);
    PetscBool ok = (PetscBool)(scol < 0);
    for (int c = 0; tok; c++, tok = strtok_r(NULL, ",\n", &save)) {
      if (c == scol) ok = (PetscBool)!strcmp(tok, "ok");
      if (c == col) *value = atof(tok);
    }
    *found = ok;
  }
  fclose(f);
  PetscFunctionReturn(0);
}

/* The mean of columns 2 and 3 over the data rows of a solver case's <inner>_steps.csv (label,step,
 * nonlinear_its,linear_its,...): Newton and Krylov iterations per step of the child's first run. */
static PetscErrorCode ReadIterations(const char *path, PetscReal *newton, PetscReal *linear, PetscBool *found)
{
  char line[4096], first[256] = "";
  FILE *f = fopen(path, "r");
  PetscInt rows = 0;

  PetscFunctionBeginUser;
  *found = PETSC_FALSE;
  *newton = *linear = 0;
  if (!f) PetscFunctionReturn(0);
  if (!fgets(line, sizeof(line), f)) line[0] = 0; /* header */
  while (fgets(line, sizeof(line), f)) {
    char *save = NULL, *tok = strtok_r(line, ",\n", &save);
    if (!tok) continue;
    if (!first[0]) PetscCall(PetscStrncpy(first, tok, sizeof(first)));
    if (strcmp(tok, first)) break; /* the next run's rows */
    for (int c = 1; (tok = strtok_r(NULL, ",\n", &save)); c++) {
      if (c == 2) *newton += atof(tok);
      if (c == 3) *linear += atof(tok);
    }
    rows++;
  }
  fclose(f);
  if (rows) {
    *newton /= rows;
    *linear /= rows;
    *found = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

extern char **environ;

/* "env -u NAME ..." for the MPI runtime's variables of this (singleton) process: a child mpirun that
 * inherits them (PMIX_*, OMPI_MCA_ess=singleton, ...) takes itself for a rank of this job and exits.
 * The user's OMPI_ALLOW_RUN_AS_ROOT* and OMPI_MCA_* settings other than the runtime's stay. */
static PetscErrorCode CleanEnvironment(char *buf, size_t len)
{
  static const char *const runtime[] = {"PMIX_", "ORTE_", "OPAL_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_orte_", "OMPI_APP_", "OMPI_COMM", "OMPI_COMMAND", "OMPI_FILE_LOCATION", "OMPI_UNIVERSE_SIZE", "OMPI_FIRST_RANKS", "OMPI_NUM_APP_CTX"};

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(buf, "env", len));
  for (char **e = environ; e && *e; e++) {
    const char *eq = strchr(*e, '=');
    char name[256];
    PetscBool match = PETSC_FALSE;
    if (!eq || (size_t)(eq - *e) >= sizeof(name)) continue;
    for (size_t r = 0; r < sizeof(runtime) / sizeof(runtime[0]); r++) match = (PetscBool)(match || !strncmp(*e, runtime[r], strlen(runtime[r])));
    if (!match) continue;
    PetscCall(PetscStrncpy(name, *e, (size_t)(eq - *e) + 1));
    PetscCall(SimStrAppend(buf, " -u ", len));
    PetscCall(SimStrAppend(buf, name, len));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCaseRun_Scaling(BenchContext *bc, const BenchCase *c, BenchCaseResult *res)
{
  FILE *csv, *times;
  char exe[PETSC_MAX_PATH_LEN] = "";
  PetscReal t1 = 0, b1 = 0;
  PetscMPIInt size;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  ssize_t len;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(bc->comm, &size));
  PetscCheck(size == 1, bc->comm, PETSC_ERR_ARG_WRONG,
             "case '%s' (metric scaling) launches mpirun itself: run pbsim bench on one rank (got %d)", c->name, (int)size);
  len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "case '%s': cannot find this pbsim executable (/proc/self/exe)", c->name);
  exe[len] = 0;
  PetscCall(BenchCSVOpen(bc, res, "", "label,ranks,inner,oversubscribed,status", &csv));
  PetscCall(BenchCSVOpen(bc, res, "_speedup_timing", "label,ranks,time_ms,speedup,efficiency,stream_gbs,stream_speedup,fraction_of_stream_bound",
                         &times));
  for (PetscInt i = 0; i < c->nranks; i++) {
    PetscInt N = c->ranks[i];
    const char *inner = !strcmp(c->mode, "weak") ? c->inner[i] : c->inner[0];
    char label[32], dir[PETSC_MAX_PATH_LEN], cmd[4 * PETSC_MAX_PATH_LEN], env[4096], path[PETSC_MAX_PATH_LEN + 96], note[256];
    PetscBool has_t, has_b, over = (PetscBool)(N > cores);
    PetscReal t = 0, b = 0, w = !strcmp(c->mode, "weak") ? (PetscReal)N : 1.0;
    BenchRow *row;
    BenchRunRecord *rec;
    int status;

    PetscCall(PetscSNPrintf(label, sizeof(label), "np%d", (int)N));
    PetscCall(PetscSNPrintf(dir, sizeof(dir), "%s/%s_np%d", bc->outdir, c->name, (int)N));
    PetscCall(CleanEnvironment(env, sizeof(env)));
    PetscCall(PetscSNPrintf(cmd, sizeof(cmd), "%s %s -np %d --oversubscribe '%s' bench '%s' -bench_cases %s%s%s -o '%s' > '%s.log' 2>&1",
                            env, c->mpirun, (int)N, exe, bc->suite_path, inner, c->stream_case[0] ? "," : "", c->stream_case, dir, dir));
    PetscCall(BenchResultAddRun(res, label, 0, 1, &rec));
    PetscCall(PetscStrallocpy(cmd, &rec->options));
    PetscCall(PetscPrintf(bc->comm, "bench:   %s: mpirun -np %d ... -bench_cases %s%s%s%s\n", label, (int)N, inner,
                          c->stream_case[0] ? "," : "", c->stream_case, over ? " (oversubscribed)" : ""));
    status = system(cmd);
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s_timing.csv", dir, inner));
    PetscCall(ReadColumn(path, 4, 3, &t, &has_t));
    has_b = PETSC_FALSE;
    if (c->stream_case[0]) {
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s_bandwidth_timing.csv", dir, c->stream_case));
      PetscCall(ReadColumn(path, 3, -1, &b, &has_b));
    }
    PetscCall(BenchResultAddRow(res, label, &row));
    PetscCall(BenchRowSet(row, "ranks", N, 0));
    PetscCall(BenchRowSet(row, "oversubscribed", over, 0));
    if (over) {
      PetscCall(PetscSNPrintf(note, sizeof(note), "oversubscribed: %d ranks on %ld cores", (int)N, cores));
      PetscCall(BenchRowNote(row, note));
    }
    if (status || !has_t || t <= 0) {
      PetscCall(PetscStrcpy(rec->status, "error"));
      PetscCall(PetscSNPrintf(rec->message, sizeof(rec->message), "the %d-rank run failed (exit status %d%s); see %s.log", (int)N,
                              status, has_t ? "" : ", no timing of the inner case", dir));
      PetscCall(BenchRowNoteRun(row, rec));
      PetscCall(PetscFPrintf(bc->comm, csv, "%s,%d,%s,%d,error\n", label, (int)N, inner, (int)over));
      continue;
    }
    PetscCall(PetscStrcpy(rec->status, "ok"));
    rec->steps_done = 1;
    rec->timing.ms_per_step = t;
    if (i == 0) t1 = t, b1 = b;
    {
      PetscReal speedup = t1 > 0 ? w * t1 / t : NAN, eff = speedup / N, ss = has_b && b1 > 0 ? b / b1 : NAN;
      PetscCall(BenchRowSetTiming(row, "time_ms", t));
      PetscCall(BenchRowSetTiming(row, "speedup", speedup));
      PetscCall(BenchRowSetTiming(row, "efficiency", eff));
      { /* a solver inner case: its iteration counts beside the time (benchmarks/fem_solvers.yaml) */
        PetscReal nits, lits;
        PetscBool has_its;
        PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s_steps.csv", dir, inner));
        PetscCall(ReadIterations(path, &nits, &lits, &has_its));
        if (has_its) {
          PetscCall(BenchRowSet(row, "newton_its_per_step", nits, 0));
          PetscCall(BenchRowSet(row, "linear_its_per_step", lits, 0));
          if (nits > 0) PetscCall(BenchRowSetTiming(row, "ms_per_newton_it", t / nits));
        }
      }
      if (has_b) {
        PetscCall(BenchRowSetTiming(row, "stream_gbs", b));
        PetscCall(BenchRowSetTiming(row, "stream_speedup", ss));
        PetscCall(BenchRowSetTiming(row, "fraction_of_stream_bound", speedup / ss));
      }
      PetscCall(PetscFPrintf(bc->comm, csv, "%s,%d,%s,%d,ok\n", label, (int)N, inner, (int)over));
      PetscCall(PetscFPrintf(bc->comm, times, "%s,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", label, (int)N, (double)t, (double)speedup,
                             (double)eff, (double)b, (double)ss, (double)(speedup / ss)));
    }
  }
  PetscCall(PetscFClose(bc->comm, csv));
  PetscCall(PetscFClose(bc->comm, times));
  PetscFunctionReturn(0);
}
