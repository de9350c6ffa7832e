/* The `pbsim` executable: run a simulation, run a benchmark suite, list what is registered, or
 * print usage. Every bad input ends in one line `pbsim: error: ...` and a non-zero exit. */
#include <ctype.h>
#include "framework/text.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <petscsys.h>
#include "framework/config.h"
#include "framework/sizes.h"
#include "framework/registry.h"
#include "framework/sim.h"
#include "framework/problem.h"
#include "framework/plugin.h"
#include "problems/register.h"
#include "solvers/register.h"
#include "scenes/register.h"
#include "energies/register.h"
#include "materials/register.h"
#include "benchmarks/harness.h"
#include "cli/options_guard.h"

static const char usage[] =
  "pbsim " PBSIM_VERSION " (" PBSIM_COMMIT ") - physically based simulation on PETSc\n"
  "\n"
  "usage:\n"
  "  pbsim run [CONFIG.yaml] [-option value ...]   run a simulation (options override the config)\n"
  "  pbsim run [CONFIG.yaml] -help                  list every option of the chosen scene and solver\n"
  "  pbsim bench SUITE.yaml [-o DIR]                run a benchmark suite: CSVs, plots, summary.json, report.md\n"
  "                                                 (-bench_cases a,b runs some cases; docs/benchmarks.md)\n"
  "  pbsim list                                     list solvers, scenes, energy terms and materials\n"
  "  pbsim help                                     this text\n"
  "\n"
  "common run options: -scene NAME -solver NAME -dt SECONDS -steps N -o DIR -output_every N\n"
  "                    -checkpoint_every N -restart FILE -plugin lib.so\n"
  "                    -snapshot_every N -gravity gx,gy,gz -colliders plane,sphere -log_view\n"
  "example: pbsim run configs/cloth.yaml -steps 20 -o out\n";

/* How long a rank that failed waits for the others to fail too before ending the job alone. */
#define PBSIM_ERROR_RENDEZVOUS_SECONDS 5.0

/* The last error raised (PETSC_ERROR_INITIAL) while pbsim's handler is in place. main prints the
 * one that ends the run, once (ReportError); an error that some code catches and recovers from is
 * overwritten by the next one and never printed. */
static struct {
  char message[4096];
  char where[512];
} last_error;

static PetscErrorCode RecordErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p,
                                         const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL) {
    const char *text = NULL;
    if (!mess || !mess[0]) PetscErrorMessage(n, &text, NULL);
    while (file && !strncmp(file, "../", 3)) file += 3;
    if (file && !strncmp(file, PBSIM_SOURCE_DIR "/", sizeof(PBSIM_SOURCE_DIR))) file += sizeof(PBSIM_SOURCE_DIR);
    snprintf(last_error.message, sizeof(last_error.message), "%s", mess && mess[0] ? mess : text ? text : "unknown error");
    for (char *c = last_error.message; *c; c++)
      if (*c == '\n' || *c == '\r') *c = ' '; /* one line */
    snprintf(last_error.where, sizeof(last_error.where), "%s, %s:%d", fun ? fun : "?", file ? file : "?", line);
  }
  return n;
}

/* The arguments after the command, grouped as PETSc groups them (PetscOptionsInsertArgs): a key
 * takes the next word as its value unless that is a key too. A word where a key is expected is
 * positional: PETSc would ignore it, pbsim takes it as the config (run) or refuses it. */
typedef struct {
  int argc;               /* for PetscInitialize: the program name and the options */
  char **argv;
  const char *config;     /* run: the config file */
  int nkeys;              /* the option names given, for the config's precedence */
  const char **keys;
  char error[1024];       /* a bad argument, raised once PETSc and the error handler are up */
} CliArgs;

/* PetscOptionsValidKey: "-name", not a negative number. */
static int IsKey(const char *a)
{
  char *end;
  if (!a || a[0] != '-') return 0;
  if (a[1] == '-') a++;
  if (!isalpha((unsigned char)a[1])) return 0;
  (void)strtod(a, &end);
  if (end != a && !(*end == '_' || isalnum((unsigned char)*end))) return 0;
  return 1;
}

static int IsConfigName(const char *a)
{
  size_t n = strlen(a);
  return (n > 5 && !strcmp(a + n - 5, ".yaml")) || (n > 4 && !strcmp(a + n - 4, ".yml"));
}

static void SplitArguments(const char *cmd, int argc, char **argv, int first, CliArgs *a)
{
  memset(a, 0, sizeof(*a));
  a->argv = (char **)calloc((size_t)argc + 1, sizeof(char *));
  a->keys = (const char **)calloc((size_t)argc + 1, sizeof(char *));
  a->argv[a->argc++] = argv[0];
  for (int i = first; i < argc && !a->error[0]; i++) {
    const char *w = argv[i];
    if (!IsKey(w)) {
      if (!strcmp(cmd, "run") && IsConfigName(w) && !a->config) a->config = w;
      else if (!strcmp(cmd, "run") && IsConfigName(w))
        snprintf(a->error, sizeof(a->error), "pbsim run takes one config file; got '%s' and '%s' (put the options of one in the other, or on the command line)",
                 a->config, w);
      else if (!strcmp(cmd, "run"))
        snprintf(a->error, sizeof(a->error), "'%s' is neither an option (-name value) nor a config file (CONFIG.yaml)", w);
      else
        snprintf(a->error, sizeof(a->error), "pbsim %s: unexpected argument '%s' (options start with '-'; pbsim help shows the usage)", cmd, w);
      continue;
    }
    if (!strcasecmp(w, "-options_file_yaml") && !strcmp(cmd, "run")) { /* the config by its PETSc name */
      if (i + 1 >= argc || IsKey(argv[i + 1]))
        snprintf(a->error, sizeof(a->error), "option -options_file_yaml has no value (the config file)");
      else if (a->config)
        snprintf(a->error, sizeof(a->error), "pbsim run takes one config file; got '%s' and '%s'", a->config, argv[i + 1]);
      else a->config = argv[++i];
      continue;
    }
    if (!strcasecmp(w, "-options_file") || !strcasecmp(w, "-options_file_yaml") || !strcasecmp(w, "-options_string_yaml")) {
      snprintf(a->error, sizeof(a->error), "option %s is not supported: pbsim reads options from one YAML config (pbsim run CONFIG.yaml) and the command line", w);
      continue;
    }
    a->keys[a->nkeys++] = w[1] == '-' ? w + 1 : w;
    a->argv[a->argc++] = (char *)w;
    if (i + 1 < argc && !IsKey(argv[i + 1])) a->argv[a->argc++] = argv[++i];
  }
  a->argv[a->argc] = NULL;
}

static PetscErrorCode RegisterAll(SimRegistry reg)
{
  PetscFunctionBeginUser;
  PetscCall(SimRegisterProblems(reg));
  PetscCall(SimRegisterSolvers(reg));
  PetscCall(SimRegisterScenes(reg));
  PetscCall(SimRegisterEnergies(reg));
  PetscCall(SimRegisterMaterials(reg));
  PetscCall(SimPluginLoadFromOptions(reg)); /* -plugin lib.so: more of any kind, by the same calls */
  PetscFunctionReturn(0);
}

static PetscErrorCode CommandList(void)
{
  SimRegistry reg;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryCreate(&reg));
  PetscCall(RegisterAll(reg));
  PetscCall(SimRegistryView(reg, stdout));
  PetscCall(SimRegistryDestroy(&reg));
  PetscFunctionReturn(0);
}

/* A misspelled option would otherwise be ignored silently: name every option nobody read.
 * With -strict_options this is an error (the tests use it). */
static PetscErrorCode CheckUnusedOptions(void)
{
  PetscInt n, unused;
  char **names, **values, list[1024] = "";
  PetscBool strict = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-strict_options", &strict, NULL));
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt i = 0; i < n && !strict; i++)
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, stderr, "pbsim: warning: option -%s was never used (misspelled, or not an option of this scene/solver? -help lists them)\n", names[i]));
  for (PetscInt i = 0; i < n && strict; i++) {
    PetscCall(SimStrAppend(list, i ? ", -" : "-", sizeof(list)));
    PetscCall(SimStrAppend(list, names[i], sizeof(list)));
  }
  unused = n; /* LeftRestore zeroes n */
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscCheck(!strict || unused == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "%" PetscInt_FMT " option(s) were never used (-strict_options): %s (misspelled, or not options of this scene/solver? -help lists them)",
             unused, list);
  PetscFunctionReturn(0);
}

/* A body that starts inside a collider is a scene contradicting itself: the penalty turns the
 * overlap into a kick in the first steps (the armadillo 1 cm below the plane gets 61.6 J). A
 * restarted run starts from its checkpoint, not from the scene, and is not checked. */
static PetscErrorCode CheckStartOutsideColliders(SimRun run)
{
  SimProblem problem;
  SimEnergyReport rep;
  PetscBool has = PETSC_FALSE, restart = PETSC_FALSE, help = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-restart", &restart));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (restart || help) PetscFunctionReturn(0);
  PetscCall(SimRunGetProblem(run, &problem));
  PetscCall(SimProblemReport(problem, &rep, &has));
  for (PetscInt i = 0; has && i < rep.nterms; i++) {
    const char *name = rep.term_name[i];
    PetscBool plane = (PetscBool)!strcmp(name, "plane"), sphere = (PetscBool)!strcmp(name, "sphere");
    PetscCheck(!(plane || sphere) || rep.term[i] <= 1e-9, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP,
               "The body starts inside the %s collider: the collider's penalty energy at the start is %.4g J (0 for a body outside it), "
               "which the first steps would turn into motion. Move the body (e.g. -file_translate, -drop_height) or the collider (%s)",
               name, (double)rep.term[i], plane ? "-plane_point x,y,z" : "-sphere_center x,y,z, -sphere_radius");
  }
  PetscFunctionReturn(0);
}

/* What a command makes, held by main so that it is destroyed after an error too: a bad input must
 * not leave a leak behind (LeakSanitizer runs over the bad-input corpus, tests/sanitize). */
typedef struct {
  SimRegistry reg;
  SimRun run;
} CliObjects;

static PetscErrorCode CliObjectsDestroy(CliObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SimRunDestroy(&o->run));
  PetscCall(SimRegistryDestroy(&o->reg));
  PetscFunctionReturn(0);
}

static PetscErrorCode CommandRun(CliObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(SimRegistryCreate(&o->reg));
  PetscCall(RegisterAll(o->reg));
  PetscCall(SimRunCreate(PETSC_COMM_WORLD, o->reg, &o->run));
  PetscCall(SimRunSetFromOptions(o->run));
  PetscCall(CheckStartOutsideColliders(o->run));
  PetscCall(SimRunExecute(o->run));
  PetscCall(SimRunDestroy(&o->run));
  PetscCall(CheckUnusedOptions());
  PetscCall(SimRegistryDestroy(&o->reg));
  PetscFunctionReturn(0);
}

/* Runs a benchmark suite (benchmarks/harness.h); its file is not an options file: each run gets its
 * own options database from the suite. */
static PetscErrorCode CommandBench(CliObjects *o, const char *suite)
{
  PetscFunctionBeginUser;
  PetscCall(SimRegistryCreate(&o->reg));
  PetscCall(RegisterAll(o->reg));
  PetscCall(BenchRunSuite(PETSC_COMM_WORLD, o->reg, suite));
  PetscCall(CheckUnusedOptions());
  PetscCall(SimRegistryDestroy(&o->reg));
  PetscFunctionReturn(0);
}

/* The config's options go in below the command line's (which override them); PETSc's profiling
 * starts here if the config asks for -log_view (PetscInitialize has not seen the config). */
static PetscErrorCode LoadConfig(const CliArgs *a, SimConfig *cfg)
{
  PetscBool log_view = PETSC_FALSE, active = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(SimConfigRead(PETSC_COMM_WORLD, a->config, cfg));
  PetscCheck(!SimConfigFind(cfg, "-cases"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "'%s' is a benchmark suite (it lists `cases`), not a run config: run it with pbsim bench %s", a->config, a->config);
  PetscCall(SimConfigInsert(cfg, NULL, a->nkeys, a->keys));
  PbsimOptionsGuardSetOrigin(cfg, a->nkeys, a->keys);
  PetscCall(PetscOptionsHasName(NULL, NULL, "-log_view", &log_view));
  PetscCall(PetscLogIsActive(&active));
  if (log_view && !active) PetscCall(PetscLogDefaultBegin());
  PetscFunctionReturn(0);
}

/* -log_view is read by PetscFinalize, after pbsim's error handler is gone: check its value now. */
static PetscErrorCode CheckLogView(void)
{
  PetscViewer viewer = NULL;
  PetscViewerFormat format;
  PetscBool set = PETSC_FALSE;

  PetscErrorCode ierr;
  char *why = NULL;

  PetscFunctionBeginUser;
  ierr = PetscOptionsGetViewer(PETSC_COMM_WORLD, NULL, NULL, "-log_view", &viewer, &format, &set);
  if (ierr) {
    PetscCall(PetscErrorMessage(ierr, NULL, &why));
    PetscCall(PetscOptionsClearValue(NULL, "-log_view")); /* or PetscFinalize fails on it again */
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Option -log_view: %s (e.g. -log_view, -log_view :profile.txt)", why ? why : "bad value");
  }
  PetscCall(PetscViewerDestroy(&viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode Main(const char *cmd, const CliArgs *a, const char *suite, SimConfig *cfg, CliObjects *o)
{
  PetscFunctionBeginUser;
  PetscCheck(!a->error[0], PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "%s", a->error);
  if (a->config) PetscCall(LoadConfig(a, cfg));
  PetscCall(CheckLogView());
  if (!strcmp(cmd, "list")) PetscCall(CommandList());
  else if (suite) PetscCall(CommandBench(o, suite));
  else PetscCall(CommandRun(o));
  PetscFunctionReturn(0);
}

/* This process's rank before MPI is up (from the launcher's environment), to print usage errors once. */
static int LauncherRank(void)
{
  const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
  for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
    if (getenv(vars[i])) return atoi(getenv(vars[i]));
  return 0;
}

/* The exit status of a usage error found before MPI starts: 2 on the launcher's rank 0, which printed
 * the message, and 0 elsewhere — a rank that exits non-zero first makes mpirun kill rank 0 before
 * its message reaches the terminal (seen under load: `mpirun -np 2 pbsim frobnicate` printed nothing). */
static int UsageErrorStatus(void)
{
  return LauncherRank() ? 0 : 2;
}

/* PETSc's allocators report a failed allocation with only the caller's name ("VecCreate_Seq") and
 * an unrelated error code: these wrap them to say how much was asked for. */
static PetscErrorCode (*petsc_malloc)(size_t, PetscBool, int, const char[], const char[], void **);
static PetscErrorCode (*petsc_realloc)(size_t, int, const char[], const char[], void **);

static PetscErrorCode OutOfMemory(size_t n, int line, const char fun[], const char file[])
{
  char need[32];
  PetscLogDouble rss = 0;

  (void)PetscMemoryGetCurrentUsage(&rss);
  return PetscError(PETSC_COMM_SELF, line, fun, file, PETSC_ERR_MEM, PETSC_ERROR_INITIAL,
                    "Out of memory: cannot allocate %s in %s (the process holds %.3g GB)",
                    SimFormatBytes((PetscReal)n, need, sizeof(need)), fun, rss / 1e9);
}

static PetscErrorCode ReportingMalloc(size_t n, PetscBool clear, int line, const char fun[], const char file[], void **result)
{
  PetscErrorCode ierr = petsc_malloc(n, clear, line, fun, file, result);
  return ierr && ierr != PETSC_ERR_MEMC ? OutOfMemory(n, line, fun, file) : ierr;
}

static PetscErrorCode ReportingRealloc(size_t n, int line, const char fun[], const char file[], void **result)
{
  PetscErrorCode ierr = petsc_realloc(n, line, fun, file, result);
  return ierr && ierr != PETSC_ERR_MEMC ? OutOfMemory(n, line, fun, file) : ierr;
}

static PetscErrorCode ReportAllocationSizes(void)
{
  PetscFunctionBeginUser;
  petsc_malloc = PetscTrMalloc;
  petsc_realloc = PetscTrRealloc;
  PetscCall(PetscMallocSet(ReportingMalloc, PetscTrFree, ReportingRealloc));
  PetscFunctionReturn(0);
}

/* After an error on this rank. On one rank: print it. On several: every rank that failed waits (a
 * non-blocking barrier on a communicator of its own) for the others; if they all arrive, the error
 * was everyone's and rank 0 prints it once, and the job ends normally. If some rank does not come
 * (it is waiting in a collective call that will never complete), this rank prints its message and
 * ends the job with _exit: no rank hangs, and no MPI_Abort banner. */
static void ReportError(MPI_Comm errcomm, PetscBool print)
{
  PetscMPIInt size = 1, rank = 0;
  int done = 0;

  MPI_Comm_size(errcomm, &size);
  MPI_Comm_rank(errcomm, &rank);
  if (size > 1) {
    MPI_Request req;
    double t0 = MPI_Wtime();
    MPI_Ibarrier(errcomm, &req);
    while (!done && MPI_Wtime() - t0 < PBSIM_ERROR_RENDEZVOUS_SECONDS) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      if (!done) usleep(2000);
    }
  }
  if (print && (size == 1 || !done || rank == 0)) fprintf(stderr, "pbsim: error: %s (%s)\n", last_error.message, last_error.where);
  if (size > 1 && !done) {
    fflush(stdout);
    fflush(stderr);
    _exit(1);
  }
}

int main(int argc, char **argv)
{
  const char *cmd = argc > 1 ? argv[1] : "help";
  const char *suite = NULL; /* bench: the suite file */
  PetscErrorCode ierr;
  PetscBool traceback = PETSC_FALSE;
  CliArgs args;
  SimConfig cfg = {0};
  CliObjects objs = {0};
  MPI_Comm errcomm = MPI_COMM_NULL;

  if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
    if (!LauncherRank()) fputs(usage, stdout);
    return 0;
  }
  if (strcmp(cmd, "run") && strcmp(cmd, "list") && strcmp(cmd, "bench")) {
    if (!LauncherRank()) fprintf(stderr, "pbsim: error: unknown command '%s' (commands: run, bench, list, help; pbsim help shows the usage)\n", cmd);
    return UsageErrorStatus();
  }
  if (!strcmp(cmd, "bench")) {
    if (argc < 3 || IsKey(argv[2])) {
      if (!LauncherRank())
        fprintf(stderr, "pbsim: error: pbsim bench: missing the suite file (e.g. pbsim bench benchmarks/integrators.yaml -o out/integrators)\n");
      return UsageErrorStatus();
    }
    suite = argv[2];
  }
  /* PETSc sees the program name and the options: the config is read after PetscInitialize, once
   * pbsim's error handler is in place (LoadConfig). */
  SplitArguments(cmd, argc, argv, suite ? 3 : 2, &args);
  ierr = PetscInitialize(&args.argc, &args.argv, NULL, usage);
  if (ierr) return 1;
  ierr = PetscOptionsGetBool(NULL, NULL, "-pbsim_traceback", &traceback, NULL);
  if (!ierr) ierr = MPI_Comm_dup(PETSC_COMM_WORLD, &errcomm);
  if (!ierr && !traceback) ierr = PetscPushErrorHandler(RecordErrorHandler, NULL);
  if (!ierr) ierr = ReportAllocationSizes();
  if (!ierr) ierr = Main(cmd, &args, suite, &cfg, &objs);
  if (!traceback) PetscPopErrorHandler();
  if (ierr && errcomm != MPI_COMM_NULL) ReportError(errcomm, (PetscBool)!traceback); /* PETSc printed the traceback */
  /* after an error (which every rank reached, or ReportError ended the job): what the command made;
   * an error in that clean-up is not reported over the first one */
  if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL) == 0) {
    (void)CliObjectsDestroy(&objs);
    (void)PetscPopErrorHandler();
  }
  if (errcomm != MPI_COMM_NULL) MPI_Comm_free(&errcomm);
  PbsimOptionsGuardSetOrigin(NULL, 0, NULL);
  (void)SimConfigFree(&cfg);
  if (PetscFinalize()) ierr = ierr ? ierr : 1;
  free(args.argv);
  free(args.keys);
  return ierr ? 1 : 0;
}
