/* summary.json and the provenance it records: commit, versions, date, machine, ranks (see report.h). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <petscconfiginfo.h>
#include <unistd.h>
#include "benchmarks/report.h"
#include "benchmarks/json.h"
#include "framework/linalg/blas_threads.h"

/* First line of a shell command's output, or "" (used for git). */
static void CommandLine(const char *command, char *buf, size_t len)
{
  FILE *p = popen(command, "r");

  buf[0] = 0;
  if (!p) return;
  if (!fgets(buf, (int)len, p)) buf[0] = 0;
  buf[strcspn(buf, "\r\n")] = 0;
  pclose(p);
}

static void CPUModel(char *buf, size_t len)
{
  char line[512];
  FILE *f = fopen("/proc/cpuinfo", "r");

  snprintf(buf, len, "unknown");
  if (!f) return;
  while (fgets(line, sizeof(line), f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !colon) continue;
    colon++;
    while (*colon == ' ' || *colon == '\t') colon++;
    colon[strcspn(colon, "\r\n")] = 0;
    snprintf(buf, len, "%s", colon);
    break;
  }
  fclose(f);
}

/* The BLAS in use: the library file that defines dgemm_ (symlinks followed, so Debian's alternatives
 * show the implementation), and its threads. */
static void BLASInfo(BenchProvenance *p)
{
  Dl_info info;
  void *sym = dlsym(RTLD_DEFAULT, "dgemm_");
  int (*threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  const char *ob = getenv("OPENBLAS_NUM_THREADS"), *omp = getenv("OMP_NUM_THREADS");
  char real[PETSC_MAX_PATH_LEN];
  PetscInt omp_threads = -1;

  snprintf(p->blas, sizeof(p->blas), "unknown");
  if (sym && dladdr(sym, &info) && info.dli_fname) snprintf(p->blas, sizeof(p->blas), "%s", realpath(info.dli_fname, real) ? real : info.dli_fname);
  if (SimOpenMPGetThreads(&omp_threads)) omp_threads = -1;
  snprintf(p->blas_threads, sizeof(p->blas_threads), "%s%d, OpenMP threads %d; OPENBLAS_NUM_THREADS=%s, OMP_NUM_THREADS=%s",
           threads ? "openblas threads " : "threads ", threads ? threads() : -1, (int)omp_threads, ob ? ob : "(unset)", omp ? omp : "(unset)");
}

static void PETScSummary(BenchProvenance *p)
{
  static const struct {
    const char *name;
    int have;
  } pkgs[] = {
#if defined(PETSC_HAVE_SUITESPARSE)
    {"suitesparse", 1},
#endif
#if defined(PETSC_HAVE_MUMPS)
    {"mumps", 1},
#endif
#if defined(PETSC_HAVE_HYPRE)
    {"hypre", 1},
#endif
#if defined(PETSC_HAVE_SUPERLU_DIST)
    {"superlu_dist", 1},
#endif
#if defined(PETSC_HAVE_ML)
    {"ml", 1},
#endif
#if defined(PETSC_HAVE_YAML)
    {"yaml", 1},
#endif
    {NULL, 0}};
  snprintf(p->petsc_summary, sizeof(p->petsc_summary), "debugging %s, %s %s scalars, %d-bit indices, packages:",
#if defined(PETSC_USE_DEBUG)
           "yes",
#else
           "no",
#endif
#if defined(PETSC_USE_COMPLEX)
           "complex",
#else
           "real",
#endif
#if defined(PETSC_USE_REAL_SINGLE)
           "single",
#else
           "double",
#endif
           (int)(8 * sizeof(PetscInt)));
  for (size_t i = 0; pkgs[i].name; i++) {
    strncat(p->petsc_summary, " ", sizeof(p->petsc_summary) - strlen(p->petsc_summary) - 1);
    strncat(p->petsc_summary, pkgs[i].name, sizeof(p->petsc_summary) - strlen(p->petsc_summary) - 1);
  }
}

PetscErrorCode BenchProvenanceCollect(MPI_Comm comm, BenchProvenance *p)
{
  time_t now = time(NULL);
  struct tm utc;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCall(PetscStrncpy(p->build_commit, PBSIM_COMMIT, sizeof(p->build_commit)));
  PetscCall(PetscStrncpy(p->version, PBSIM_VERSION, sizeof(p->version)));
  CommandLine("git -C '" PBSIM_SOURCE_DIR "' describe --always --dirty 2>/dev/null", p->commit, sizeof(p->commit));
  if (!p->commit[0]) PetscCall(PetscStrcpy(p->commit, p->build_commit));
  PetscCall(
      PetscSNPrintf(p->petsc, sizeof(p->petsc), "%d.%d.%d", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR));
  gmtime_r(&now, &utc);
  strftime(p->date, sizeof(p->date), "%Y-%m-%dT%H:%M:%SZ", &utc);
  CPUModel(p->cpu, sizeof(p->cpu));
  p->cores = (PetscInt)sysconf(_SC_NPROCESSORS_ONLN);
  PetscCallMPI(MPI_Comm_size(comm, &p->ranks));
  PetscCall(PetscStrncpy(p->build_type, PBSIM_BUILD_TYPE, sizeof(p->build_type)));
  PetscCall(PetscStrncpy(p->compiler, PBSIM_C_COMPILER, sizeof(p->compiler)));
  PetscCall(PetscStrncpy(p->cflags, PBSIM_C_FLAGS, sizeof(p->cflags)));
  BLASInfo(p);
  PETScSummary(p);
  p->petsc_configure = petscconfigureoptions;
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteParameters(BenchJSON *j, const BenchCase *c)
{
  PetscFunctionBeginUser;
  PetscCall(BenchJSONObjectBegin(j, "parameters"));
  if (c->metric < BENCH_POISSON && c->metric != BENCH_STABILITY) PetscCall(BenchJSONReal(j, "dt", c->dt));
  if (c->t_end > 0) PetscCall(BenchJSONReal(j, "t_end", c->t_end));
  if (c->steps > 0) PetscCall(BenchJSONInt(j, "steps", c->steps));
  switch (c->metric) {
  case BENCH_CONVERGENCE:
    PetscCall(BenchJSONInt(j, "refinements", c->refinements));
    PetscCall(BenchJSONString(j, "reference", c->reference));
    if (!strcmp(c->reference, "ode")) {
      PetscCall(BenchJSONReal(j, "ode_rtol", c->ode_rtol));
      PetscCall(BenchJSONReal(j, "ode_atol", c->ode_atol));
    }
    break;
  case BENCH_ENERGY:
    PetscCall(BenchJSONInt(j, "samples", c->samples));
    break;
  case BENCH_STABILITY:
    PetscCall(BenchJSONReal(j, "dt_min", c->dt_min));
    PetscCall(BenchJSONReal(j, "dt_max", c->dt_max));
    PetscCall(BenchJSONReal(j, "threshold", c->threshold));
    PetscCall(BenchJSONReal(j, "bisect_rtol", c->bisect_rtol));
    PetscCall(BenchJSONReal(j, "dt_start", c->dt_start));
    PetscCall(BenchJSONReal(j, "growth", c->growth));
    PetscCall(BenchJSONInt(j, "max_its", c->max_its));
    break;
  case BENCH_SOLVER:
    PetscCall(BenchJSONInt(j, "plot_step", c->plot_step));
    PetscCall(BenchJSONReal(j, "gap_target", c->gap_target));
    break;
  case BENCH_OSCILLATION:
  case BENCH_WORK_PRECISION:
    PetscCall(BenchJSONString(j, "reference", c->reference));
    PetscCall(BenchJSONReal(j, "ode_rtol", c->ode_rtol));
    PetscCall(BenchJSONReal(j, "ode_atol", c->ode_atol));
    PetscCall(BenchJSONInt(j, "samples", c->samples));
    if (c->metric == BENCH_OSCILLATION) PetscCall(BenchJSONInt(j, "signal_axis", c->signal_axis));
    else {
      PetscCall(BenchJSONInt(j, "repeats", c->repeats));
      PetscCall(BenchJSONArrayBegin(j, "accuracy"));
      for (PetscInt i = 0; i < c->naccuracy; i++) PetscCall(BenchJSONReal(j, NULL, c->accuracy[i]));
      PetscCall(BenchJSONArrayEnd(j));
    }
    break;
  case BENCH_POISSON:
    PetscCall(BenchJSONInt(j, "repeats", c->repeats));
    PetscCall(BenchJSONReal(j, "stream_mb", c->stream_mb));
    break;
  case BENCH_STREAM:
    PetscCall(BenchJSONInt(j, "repeats", c->repeats));
    PetscCall(BenchJSONReal(j, "mb", c->stream_mb));
    break;
  case BENCH_SCALING:
    PetscCall(BenchJSONString(j, "mode", c->mode));
    PetscCall(BenchJSONArrayBegin(j, "ranks"));
    for (PetscInt i = 0; i < c->nranks; i++) PetscCall(BenchJSONInt(j, NULL, c->ranks[i]));
    PetscCall(BenchJSONArrayEnd(j));
    PetscCall(BenchJSONArrayBegin(j, "inner"));
    for (PetscInt i = 0; i < c->ninner; i++) PetscCall(BenchJSONString(j, NULL, c->inner[i]));
    PetscCall(BenchJSONArrayEnd(j));
    PetscCall(BenchJSONString(j, "stream", c->stream_case));
    PetscCall(BenchJSONString(j, "mpirun", c->mpirun));
    break;
  default:
    break;
  }
  PetscCall(BenchJSONObjectEnd(j));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteSweeps(BenchJSON *j, const BenchCase *c)
{
  PetscFunctionBeginUser;
  PetscCall(BenchJSONArrayBegin(j, "sweeps"));
  for (PetscInt s = 0; s < c->nsweeps; s++) {
    PetscCall(BenchJSONObjectBegin(j, NULL));
    PetscCall(BenchJSONString(j, "option", c->sweep[s].option));
    PetscCall(BenchJSONArrayBegin(j, "labels"));
    for (PetscInt v = 0; v < c->sweep[s].n; v++) PetscCall(BenchJSONString(j, NULL, c->sweep[s].label[v]));
    PetscCall(BenchJSONArrayEnd(j));
    PetscCall(BenchJSONArrayBegin(j, "values"));
    for (PetscInt v = 0; v < c->sweep[s].n; v++) PetscCall(BenchJSONString(j, NULL, c->sweep[s].value[v]));
    PetscCall(BenchJSONArrayEnd(j));
    PetscCall(BenchJSONObjectEnd(j));
  }
  PetscCall(BenchJSONArrayEnd(j));
  PetscFunctionReturn(0);
}

/* values {key: number}, and bounds {key: ">" | "<"} for the values that are bounds. */
static PetscErrorCode WriteValues(BenchJSON *j, const char *key, PetscInt n, const BenchValue v[], PetscBool bounds)
{
  PetscBool any = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(BenchJSONObjectBegin(j, key));
  for (PetscInt k = 0; k < n; k++) PetscCall(BenchJSONReal(j, v[k].key, v[k].value));
  PetscCall(BenchJSONObjectEnd(j));
  for (PetscInt k = 0; k < n; k++) any = (PetscBool)(any || v[k].bound);
  if (!bounds || !any) PetscFunctionReturn(0);
  PetscCall(BenchJSONObjectBegin(j, "bounds"));
  for (PetscInt k = 0; k < n; k++) {
    char b[2] = {v[k].bound, 0};
    if (v[k].bound) PetscCall(BenchJSONString(j, v[k].key, b));
  }
  PetscCall(BenchJSONObjectEnd(j));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteRows(BenchJSON *j, const BenchCaseResult *r)
{
  PetscFunctionBeginUser;
  PetscCall(BenchJSONArrayBegin(j, "results"));
  PetscCall(BenchJSONInlineBegin(j)); /* one line per row */
  for (PetscInt i = 0; i < r->nrows; i++) {
    PetscCall(BenchJSONObjectBegin(j, NULL));
    PetscCall(BenchJSONString(j, "label", r->rows[i].label));
    PetscCall(WriteValues(j, "values", r->rows[i].n, r->rows[i].v, PETSC_TRUE));
    PetscCall(BenchJSONString(j, "note", r->rows[i].note));
    PetscCall(BenchJSONObjectEnd(j));
  }
  PetscCall(BenchJSONInlineEnd(j));
  PetscCall(BenchJSONArrayEnd(j));
  PetscCall(BenchJSONArrayBegin(j, "timing"));
  PetscCall(BenchJSONInlineBegin(j));
  for (PetscInt i = 0; i < r->nrows; i++) {
    PetscCall(BenchJSONObjectBegin(j, NULL));
    PetscCall(BenchJSONString(j, "label", r->rows[i].label));
    PetscCall(WriteValues(j, "values", r->rows[i].nt, r->rows[i].t, PETSC_FALSE));
    PetscCall(BenchJSONObjectEnd(j));
  }
  PetscCall(BenchJSONInlineEnd(j));
  PetscCall(BenchJSONArrayEnd(j));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteRuns(BenchJSON *j, const BenchCaseResult *r)
{
  PetscFunctionBeginUser;
  PetscCall(BenchJSONArrayBegin(j, "runs"));
  PetscCall(BenchJSONInlineBegin(j)); /* one line per run */
  for (PetscInt i = 0; i < r->nruns; i++) {
    const BenchRunRecord *u = &r->runs[i];
    PetscCall(BenchJSONObjectBegin(j, NULL));
    PetscCall(BenchJSONString(j, "label", u->label));
    PetscCall(BenchJSONReal(j, "dt", u->dt));
    PetscCall(BenchJSONInt(j, "steps", u->steps));
    PetscCall(BenchJSONString(j, "status", u->status));
    PetscCall(BenchJSONString(j, "message", u->message));
    PetscCall(BenchJSONInt(j, "steps_done", u->steps_done));
    PetscCall(BenchJSONReal(j, "time_reached", u->time_reached));
    PetscCall(BenchJSONInt(j, "vertices", u->nv));
    PetscCall(BenchJSONInt(j, "not_converged_steps", u->not_converged));
    PetscCall(BenchJSONString(j, "unused_options", u->unused));
    PetscCall(BenchJSONString(j, "options", u->options));
    PetscCall(BenchJSONObjectEnd(j));
  }
  PetscCall(BenchJSONInlineEnd(j));
  PetscCall(BenchJSONArrayEnd(j));
  PetscCall(BenchJSONArrayBegin(j, "run_timing"));
  PetscCall(BenchJSONInlineBegin(j));
  for (PetscInt i = 0; i < r->nruns; i++) {
    const BenchTiming *t = &r->runs[i].timing;
    char key[32];
    PetscCall(BenchJSONObjectBegin(j, NULL));
    PetscCall(BenchJSONString(j, "label", r->runs[i].label));
    PetscCall(BenchJSONReal(j, "dt", r->runs[i].dt));
    PetscCall(BenchJSONReal(j, "ms_per_step", t->ms_per_step));
    for (PetscInt e = 0; e < BENCH_NEVENTS; e++) {
      PetscCall(PetscSNPrintf(key, sizeof(key), "%s_ms", BenchEventName(e)));
      PetscCall(BenchJSONReal(j, key, t->event_ms[e]));
    }
    PetscCall(BenchJSONReal(j, "other_ms", t->other_ms));
    PetscCall(BenchJSONReal(j, "throughput", t->throughput));
    PetscCall(BenchJSONReal(j, "peak_rss_mb", t->peak_rss_mb));
    PetscCall(BenchJSONObjectEnd(j));
  }
  PetscCall(BenchJSONInlineEnd(j));
  PetscCall(BenchJSONArrayEnd(j));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteCase(BenchJSON *j, const BenchCaseResult *r)
{
  const BenchCase *c = r->c;

  PetscFunctionBeginUser;
  PetscCall(BenchJSONObjectBegin(j, NULL));
  PetscCall(BenchJSONString(j, "name", c->name));
  PetscCall(BenchJSONString(j, "metric", BenchMetricName(c->metric)));
  PetscCall(BenchJSONString(j, "title", c->title));
  PetscCall(BenchJSONString(j, "options", c->options));
  PetscCall(WriteSweeps(j, c));
  PetscCall(WriteParameters(j, c));
  PetscCall(BenchJSONArrayBegin(j, "files"));
  for (PetscInt i = 0; i < r->nfiles; i++) PetscCall(BenchJSONString(j, NULL, r->file[i]));
  PetscCall(BenchJSONArrayEnd(j));
  PetscCall(BenchJSONArrayBegin(j, "plots"));
  for (PetscInt i = 0; i < r->nplots; i++) PetscCall(BenchJSONString(j, NULL, r->plot[i]));
  PetscCall(BenchJSONArrayEnd(j));
  PetscCall(BenchJSONString(j, "never_used_options", r->never_used));
  PetscCall(WriteRows(j, r));
  PetscCall(WriteRuns(j, r));
  PetscCall(BenchJSONObjectEnd(j));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchSummaryWrite(MPI_Comm comm, const char *path, const BenchSuite *suite, const BenchProvenance *prov,
                                 PetscInt n, const BenchCaseResult res[])
{
  FILE *fp;
  BenchJSON j;

  PetscFunctionBeginUser;
  PetscCall(PetscFOpen(comm, path, "w", &fp));
  PetscCall(BenchJSONBegin(&j, comm, fp));
  PetscCall(BenchJSONString(&j, "suite", suite->name));
  PetscCall(BenchJSONString(&j, "title", suite->title));
  PetscCall(BenchJSONString(&j, "suite_file", suite->path));
  PetscCall(BenchJSONString(&j, "commit", prov->commit));
  PetscCall(BenchJSONString(&j, "build_commit", prov->build_commit));
  PetscCall(BenchJSONString(&j, "pbsim_version", prov->version));
  PetscCall(BenchJSONString(&j, "petsc_version", prov->petsc));
  PetscCall(BenchJSONString(&j, "date", prov->date));
  PetscCall(BenchJSONInt(&j, "ranks", prov->ranks));
  PetscCall(BenchJSONObjectBegin(&j, "machine"));
  PetscCall(BenchJSONString(&j, "cpu", prov->cpu));
  PetscCall(BenchJSONInt(&j, "cores", prov->cores));
  PetscCall(BenchJSONObjectEnd(&j));
  PetscCall(BenchJSONReal(&j, "wall_seconds", prov->wall_seconds));
  PetscCall(BenchJSONString(&j, "command", prov->command));
  PetscCall(BenchJSONObjectBegin(&j, "build"));
  PetscCall(BenchJSONString(&j, "type", prov->build_type));
  PetscCall(BenchJSONString(&j, "compiler", prov->compiler));
  PetscCall(BenchJSONString(&j, "c_flags", prov->cflags));
  PetscCall(BenchJSONString(&j, "blas", prov->blas));
  PetscCall(BenchJSONString(&j, "blas_threads", prov->blas_threads));
  PetscCall(BenchJSONString(&j, "petsc", prov->petsc_summary));
  PetscCall(BenchJSONString(&j, "petsc_configure", prov->petsc_configure));
  PetscCall(BenchJSONObjectEnd(&j));
  PetscCall(BenchJSONString(&j, "suite_copy", prov->suite_copy));
  PetscCall(BenchJSONArrayBegin(&j, "cases"));
  for (PetscInt i = 0; i < n; i++) PetscCall(WriteCase(&j, &res[i]));
  PetscCall(BenchJSONArrayEnd(&j));
  PetscCall(BenchJSONEnd(&j));
  PetscCall(PetscFClose(comm, fp));
  PetscFunctionReturn(0);
}
