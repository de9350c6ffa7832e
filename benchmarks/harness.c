/* The suite loop: options, output directory, each case through its metric's driver, timings, figures,
 * then summary.json and report.md (see harness.h). */
#include <errno.h>
#include "framework/text.h"
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "benchmarks/harness.h"
#include "framework/linalg/blas_threads.h"
#include "framework/io/directory.h"
#include "benchmarks/cases.h"
#include "benchmarks/plots.h"
#include "benchmarks/report.h"

/* The drivers as data, indexed by metric. */
static const BenchCaseDriver drivers[BENCH_NMETRICS] = {
    [BENCH_CONVERGENCE] = BenchCaseRun_Convergence, [BENCH_ENERGY] = BenchCaseRun_Energy,
    [BENCH_STABILITY] = BenchCaseRun_Stability,     [BENCH_SOLVER] = BenchCaseRun_Solver,
    [BENCH_PERFORMANCE] = BenchCaseRun_Performance, [BENCH_SPATIAL] = BenchCaseRun_Spatial,
    [BENCH_POISSON] = BenchCaseRun_Poisson,         [BENCH_STREAM] = BenchCaseRun_Stream,
    [BENCH_SCALING] = BenchCaseRun_Scaling,         [BENCH_OSCILLATION] = BenchCaseRun_Oscillation,
    [BENCH_WORK_PRECISION] = BenchCaseRun_WorkPrecision,
};

/* <case>_timing.csv: one row per run, everything that differs between identical runs. */
static PetscErrorCode WriteTimingCSV(BenchContext *bc, BenchCaseResult *res)
{
  FILE *fp;
  char header[512] = "label,dt,steps,status,ms_per_step", col[32];

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < BENCH_NEVENTS; e++) {
    PetscCall(PetscSNPrintf(col, sizeof(col), ",%s_ms", BenchEventName(e)));
    PetscCall(SimStrAppend(header, col, sizeof(header)));
  }
  PetscCall(SimStrAppend(header, ",other_ms,throughput,peak_rss_mb", sizeof(header)));
  PetscCall(BenchCSVOpen(bc, res, "_timing", header, &fp));
  res->nfiles--; /* listed by the report separately: not a file of reproducible numbers */
  for (PetscInt i = 0; i < res->nruns; i++) {
    const BenchRunRecord *u = &res->runs[i];
    PetscCall(PetscFPrintf(bc->comm, fp, "%s,%.9e,%" PetscInt_FMT ",%s,%.6g", u->label, (double)u->dt, u->steps, u->status,
                           (double)u->timing.ms_per_step));
    for (PetscInt e = 0; e < BENCH_NEVENTS; e++) PetscCall(PetscFPrintf(bc->comm, fp, ",%.6g", (double)u->timing.event_ms[e]));
    PetscCall(PetscFPrintf(bc->comm, fp, ",%.6g,%.6g,%.6g\n", (double)u->timing.other_ms, (double)u->timing.throughput,
                           (double)u->timing.peak_rss_mb));
  }
  PetscCall(PetscFClose(bc->comm, fp));
  PetscFunctionReturn(0);
}

/* Whether `name` is a whitespace-separated token of `list`. */
static PetscBool HasToken(const char *list, const char *name)
{
  size_t n = strlen(name);

  for (const char *p = list; (p = strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Whether option `name` was left unread by every run that got as far as reading its options. */
static PetscBool UnreadEverywhere(const BenchCaseResult *res, PetscInt n, const char *name)
{
  PetscBool any = PETSC_FALSE;

  for (PetscInt c = 0; c < n; c++)
    for (PetscInt i = 0; i < res[c].nruns; i++) {
      if (!strcmp(res[c].runs[i].status, "error")) continue;
      if (!HasToken(res[c].runs[i].unused, name)) return PETSC_FALSE;
      any = PETSC_TRUE;
    }
  return any;
}

/* Appends to buf the options named in `options` (tokens "-name") that no run of res[0..n) read. */
static PetscErrorCode NeverUsed(const BenchCaseResult *res, PetscInt n, const char *options, char *buf, size_t len)
{
  char copy[4096], *save = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(copy, options, sizeof(copy)));
  for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (tok[0] != '-' || !((tok[1] >= 'a' && tok[1] <= 'z') || (tok[1] >= 'A' && tok[1] <= 'Z')))
      continue; /* values, e.g. -9.81 */
    if (!UnreadEverywhere(res, n, tok) || HasToken(buf, tok)) continue;
    PetscCall(SimStrAppendItem(buf, " ", tok, len));
  }
  PetscFunctionReturn(0);
}

/* The case's own options (its `options` and sweep values) that none of its runs read: a typo, or an
 * option meant for another scene or solver. The caller makes it an error once the outputs so far are
 * written. The suite's common options are checked over the whole suite (SuiteNeverUsed). */
static PetscErrorCode CaseNeverUsed(BenchContext *bc, BenchCaseResult *res)
{
  const BenchCase *c = res->c;

  PetscFunctionBeginUser;
  PetscCall(NeverUsed(res, 1, c->own_options, res->never_used, sizeof(res->never_used)));
  for (PetscInt s = 0; s < c->nsweeps; s++)
    for (PetscInt v = 0; v < c->sweep[s].n; v++) {
      char opt[4200];
      if (!c->sweep[s].run[v]) continue; /* a sweep of dt, t_end or steps: the harness's own */
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s %s", c->sweep[s].option, c->sweep[s].run[v]));
      PetscCall(NeverUsed(res, 1, opt, res->never_used, sizeof(res->never_used)));
    }
  PetscFunctionReturn(0);
}

/* The suite's `options` that no run of any case read: with every case run, an error (the caller
 * raises it after writing the outputs); with -bench_cases, a warning (the options may be for the
 * cases left out). */
/* Adds key to the comma-separated list buf unless it is there. */
static PetscErrorCode AddKey(char *buf, size_t len, const char *key)
{
  size_t n = strlen(key);

  PetscFunctionBeginUser;
  for (const char *p = buf; (p = strstr(p, key)); p += n)
    if ((p == buf || p[-1] == ' ') && (p[n] == ',' || !p[n])) PetscFunctionReturn(0);
  /* snprintf, not PetscStrlcat: PETSc 3.18's strncat there writes one byte past a full buffer
   * (AddressSanitizer: stack-buffer-overflow in cli.bench.fluids_repeat, whose figure list fills it) */
  n = strlen(buf);
  if (n + 1 < len) (void)snprintf(buf + n, len - n, "%s%s", buf[0] ? ", " : "", key);
  PetscFunctionReturn(0);
}

/* A summary-table column showing a figure that its case, run with results, does not have (a typo in
 * `table`: the cell would be empty in every row): says which, and the figures that case has. */
static PetscErrorCode TableUnknownFigures(const BenchSuite *suite, const BenchCaseResult *res, PetscInt n, char *buf, size_t len)
{
  PetscFunctionBeginUser;
  buf[0] = 0;
  for (PetscInt c = 0; c < suite->ncolumns && !buf[0]; c++) {
    const BenchColumn *col = &suite->column[c];
    for (PetscInt k = 0; k < col->nrefs && !buf[0]; k++)
      for (PetscInt i = 0; i < n; i++) {
        char have[BENCH_MESSAGE_LEN] = "";
        PetscBool found = PETSC_FALSE;
        if (strcmp(res[i].c->name, col->ref_case[k]) || !res[i].nrows) continue;
        for (PetscInt r = 0; r < res[i].nrows; r++) {
          const BenchRow *row = &res[i].rows[r];
          for (PetscInt j = 0; j < row->n + row->nt; j++) {
            const char *key = j < row->n ? row->v[j].key : row->t[j - row->n].key;
            found = (PetscBool)(found || !strcmp(key, col->ref_key[k]));
            PetscCall(AddKey(have, sizeof(have), key));
          }
        }
        if (!found)
          PetscCall(PetscSNPrintf(buf, len, "table column '%s' shows '%s' of case '%s', which has no such figure; its figures: %s", col->name,
                                  col->ref_key[k], col->ref_case[k], have));
      }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SuiteNeverUsed(BenchContext *bc, const BenchSuite *suite, const BenchCaseResult *res, PetscInt n, PetscBool all,
                                     char *buf, size_t len)
{
  PetscFunctionBeginUser;
  buf[0] = 0;
  PetscCall(NeverUsed(res, n, suite->options, buf, len));
  if (buf[0] && !all) {
    PetscCall(PetscFPrintf(bc->comm, stderr, "bench: warning: suite options %s: no run of the selected cases read them\n", buf));
    buf[0] = 0;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode RunCase(BenchContext *bc, const BenchCase *c, BenchCaseResult *res, PetscBool plots)
{
  PetscLogDouble t0, t1;
  PetscInt failed = 0, blown = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(BenchResultInit(res, c));
  PetscCall(drivers[c->metric](bc, c, res));
  PetscCall(WriteTimingCSV(bc, res));
  PetscCall(CaseNeverUsed(bc, res));
  if (plots) PetscCall(BenchPlotsMake(bc, res));
  PetscCall(PetscTime(&t1));
  for (PetscInt i = 0; i < res->nruns; i++) {
    failed += !strcmp(res->runs[i].status, "error");
    blown += !strcmp(res->runs[i].status, "nonfinite");
  }
  PetscCall(PetscPrintf(bc->comm, "bench:   %" PetscInt_FMT " runs in %.1f s", res->nruns, (double)(t1 - t0)));
  if (blown) PetscCall(PetscPrintf(bc->comm, ", %" PetscInt_FMT " blew up", blown));
  if (failed) PetscCall(PetscPrintf(bc->comm, ", %" PetscInt_FMT " FAILED (messages in report.md)", failed));
  PetscCall(PetscPrintf(bc->comm, "\n"));
  PetscFunctionReturn(0);
}

/* Copies the suite file next to the report (rank 0), so that the outputs say what was run. */
static PetscErrorCode CopySuite(MPI_Comm comm, const char *from, const char *outdir, char *name, size_t len)
{
  const char *base = strrchr(from, '/') ? strrchr(from, '/') + 1 : from;
  char to[2 * PETSC_MAX_PATH_LEN], buf[4096];
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(name, base, len));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(to, sizeof(to), "%s/%s", outdir, base));
  {
    char a[PETSC_MAX_PATH_LEN], b[PETSC_MAX_PATH_LEN];
    if (realpath(from, a) && realpath(to, b) && !strcmp(a, b)) PetscFunctionReturn(0); /* it is there already */
  }
  {
    FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
    size_t n;
    PetscCheck(in && out, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot copy the suite %s to %s: %s", from, to, strerror(errno));
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0) PetscCheck(fwrite(buf, 1, n, out) == n, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s", to);
    fclose(in);
    fclose(out);
  }
  PetscFunctionReturn(0);
}

/* Whether case `name` is selected by -bench_cases (all when the option is absent). */
static PetscBool Selected(char **names, PetscInt n, PetscBool set, const char *name)
{
  if (!set) return PETSC_TRUE;
  for (PetscInt i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return PETSC_TRUE;
  return PETSC_FALSE;
}

static PetscErrorCode CheckSelection(const BenchSuite *suite, char **names, PetscInt n)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt c;
    for (c = 0; c < suite->ncases; c++)
      if (!strcmp(suite->cases[c].name, names[i])) break;
    PetscCheck(c < suite->ncases, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-bench_cases: suite %s has no case '%s'", suite->path,
               names[i]);
  }
  PetscFunctionReturn(0);
}

/* Removes what the runs left in the scratch directory (a blow-up's last_good.vtu, gnuplot's log). */
static void RemoveScratch(const BenchContext *bc)
{
  const char *files[] = {"last_good.vtu", "gnuplot.log"};
  char path[PETSC_MAX_PATH_LEN + 32];

  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    snprintf(path, sizeof(path), "%s/%s", bc->scratch, files[i]);
    (void)remove(path);
  }
  (void)rmdir(bc->scratch);
}

static PetscErrorCode RunSuite(MPI_Comm comm, SimRegistry reg, const char *suite_file, BenchSuite *suite)
{
  BenchContext bc = {.comm = comm, .reg = reg};
  BenchCaseResult *res;
  BenchProvenance prov;
  char *names[64], path[PETSC_MAX_PATH_LEN + 32], unused[BENCH_MESSAGE_LEN + 128] = "", badfig[2 * BENCH_MESSAGE_LEN] = "";
  PetscInt nnames = 64, n = 0;
  PetscBool set_o, set_cases, plots, dry = PETSC_FALSE;
  char style[16];
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(bc.suite_path, suite_file, sizeof(bc.suite_path)));
  PetscCall(PetscSNPrintf(bc.outdir, sizeof(bc.outdir), "out/bench/%s", suite->name));
  PetscOptionsBegin(comm, NULL, "pbsim bench", "");
  PetscCall(PetscOptionsString("-o", "output directory", "", bc.outdir, bc.outdir, sizeof(bc.outdir), &set_o));
  PetscCall(PetscOptionsStringArray("-bench_cases", "run only these cases", "", names, &nnames, &set_cases));
  PetscCall(PetscOptionsBool("-bench_verbose", "show every run's options and output", "", bc.verbose, &bc.verbose, NULL));
  PetscCall(PetscOptionsBool("-bench_dry_run", "check the suite and the selection, list the cases, run nothing", "", dry, &dry, NULL));
  PetscCall(PetscStrncpy(style, suite->figure_style, sizeof(style)));
  PetscCall(PetscOptionsString("-bench_style", "figures: screen, or paper (one journal column)", "", style, style, sizeof(style), NULL));
  PetscOptionsEnd();
  if (!set_cases) nnames = 0;
  PetscCheck(!strcmp(style, "screen") || !strcmp(style, "paper"), comm, PETSC_ERR_ARG_WRONG, "-bench_style must be screen or paper (got %s)",
             style);
  bc.paper = (PetscBool)!strcmp(style, "paper");
  PetscCall(CheckSelection(suite, names, nnames));
  if (dry) { /* the suite loaded and every selected case exists: say what a run would do */
    for (PetscInt i = 0; i < suite->ncases; i++) {
      const BenchCase *c = &suite->cases[i];
      if (Selected(names, nnames, set_cases, c->name))
        PetscCall(PetscPrintf(comm, "bench: case %s (%s, %" PetscInt_FMT " sweep point(s)) -> %s/\n", c->name, BenchMetricName(c->metric),
                              BenchCaseNumPoints(c), bc.outdir));
    }
    for (PetscInt i = 0; i < nnames; i++) PetscCall(PetscFree(names[i]));
    PetscFunctionReturn(0);
  }
  PetscCheck(!strchr(bc.outdir, '\''), comm, PETSC_ERR_ARG_WRONG,
             "-o: the output directory may not contain a single quote (got %s)", bc.outdir);
  PetscCall(SimMakeDirectory(bc.outdir));
  PetscCall(PetscSNPrintf(bc.scratch, sizeof(bc.scratch), "%s/.scratch", bc.outdir));
  PetscCall(SimMakeDirectory(bc.scratch));
  PetscCall(BenchTimingStart());
  PetscCall(SimThreadsSetFromOptions(comm)); /* before the provenance reads the thread counts back */
  PetscCall(BenchProvenanceCollect(comm, &prov));
  PetscCall(CopySuite(comm, suite_file, bc.outdir, prov.suite_copy, sizeof(prov.suite_copy)));
  PetscCall(PetscSNPrintf(prov.command, sizeof(prov.command), "%s%s%spbsim bench %s -o %s%s%s", getenv("OPENBLAS_NUM_THREADS") ? "OPENBLAS_NUM_THREADS=" : "",
                          getenv("OPENBLAS_NUM_THREADS") ? getenv("OPENBLAS_NUM_THREADS") : "", getenv("OPENBLAS_NUM_THREADS") ? " " : "", suite_file, bc.outdir,
                          strcmp(style, suite->figure_style) ? (bc.paper ? " -bench_style paper" : " -bench_style screen") : "",
                          set_cases ? " -bench_cases " : ""));
  for (PetscInt i = 0; i < nnames; i++) {
    if (i) PetscCall(SimStrAppend(prov.command, ",", sizeof(prov.command)));
    PetscCall(SimStrAppend(prov.command, names[i], sizeof(prov.command)));
  }
  PetscCall(BenchPlotsAvailable(&plots));
  if (!plots)
    PetscCall(
        PetscFPrintf(comm, stderr, "bench: warning: gnuplot not found: no figures (install the Debian package gnuplot-nox)\n"));
  bc.devnull = fopen("/dev/null", "w");

  PetscCall(PetscCalloc1(suite->ncases, &res));
  PetscCall(PetscPrintf(comm, "bench: suite %s (%s): %" PetscInt_FMT " case(s) -> %s/\n", suite->name, suite_file,
                        set_cases ? nnames : suite->ncases, bc.outdir));
  PetscCall(PetscTime(&t0));
  for (PetscInt i = 0; i < suite->ncases; i++) {
    const BenchCase *c = &suite->cases[i];
    if (!Selected(names, nnames, set_cases, c->name)) continue;
    PetscCall(PetscPrintf(comm, "bench: case %s (%s, %" PetscInt_FMT " sweep point(s))\n", c->name, BenchMetricName(c->metric),
                          BenchCaseNumPoints(c)));
    PetscCall(RunCase(&bc, c, &res[n++], plots));
    if (res[n - 1].never_used[0]) { /* stop here: an unused option is an error (raised below) */
      PetscCall(PetscSNPrintf(unused, sizeof(unused), "case '%s': no run read the option(s) %s", c->name, res[n - 1].never_used));
      break;
    }
  }
  PetscCall(PetscTime(&t1));
  prov.wall_seconds = t1 - t0;
  if (!unused[0]) {
    char buf[BENCH_MESSAGE_LEN];
    PetscCall(SuiteNeverUsed(&bc, suite, res, n, (PetscBool)!set_cases, buf, sizeof(buf)));
    if (buf[0]) PetscCall(PetscSNPrintf(unused, sizeof(unused), "no run of any case read the suite option(s) %s", buf));
  }
  PetscCall(TableUnknownFigures(suite, res, n, badfig, sizeof(badfig)));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/summary.json", bc.outdir));
  PetscCall(BenchSummaryWrite(comm, path, suite, &prov, n, res));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/report.md", bc.outdir));
  PetscCall(BenchReportWrite(comm, path, suite, &prov, n, res));
  PetscCall(PetscPrintf(comm, "bench: done in %.1f s: %s/report.md, %s/summary.json\n", (double)prov.wall_seconds, bc.outdir,
                        bc.outdir));

  { /* rank 0 runs gnuplot in the scratch directory: the others must not remove it under its feet */
    PetscMPIInt rank;
    PetscCallMPI(MPI_Barrier(comm));
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (!rank) RemoveScratch(&bc);
  }
  if (bc.devnull) fclose(bc.devnull);
  for (PetscInt i = 0; i < n; i++) PetscCall(BenchResultDestroy(&res[i]));
  PetscCall(PetscFree(res));
  for (PetscInt i = 0; i < nnames; i++) PetscCall(PetscFree(names[i]));
  PetscCheck(!unused[0], comm, PETSC_ERR_ARG_WRONG,
             "%s: %s. Every option a suite sets must be read by some run (misspelled, or meant for another scene or solver?); "
             "the outputs of the cases run so far are in %s", suite_file, unused, bc.outdir);
  PetscCheck(!badfig[0], comm, PETSC_ERR_ARG_WRONG, "%s: %s (the outputs are in %s)", suite_file, badfig, bc.outdir);
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRunSuite(MPI_Comm comm, SimRegistry reg, const char *suite_file)
{
  BenchSuite *suite;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(BenchSuiteLoad(comm, suite_file, &suite));
  ierr = RunSuite(comm, reg, suite_file, suite);
  PetscCall(BenchSuiteDestroy(&suite)); /* after an error too: a refused selection or option leaks nothing */
  PetscCall(ierr);
  PetscFunctionReturn(0);
}
