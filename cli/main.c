/* The `pbsim` executable: run a simulation, list what is registered, or print usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <petscsys.h>
#include "framework/registry.h"
#include "framework/sim.h"
#include "framework/plugin.h"
#include "problems/register.h"
#include "solvers/register.h"
#include "scenes/register.h"
#include "energies/register.h"
#include "materials/register.h"
#include "benchmarks/harness.h"

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

/* Set when the first error was raised on a communicator of one rank while the run has several:
 * the other ranks may be waiting in a collective call (e.g. rank 0 failed to write a frame), so
 * main aborts the job instead of returning. An error raised on a parallel communicator is raised
 * by every rank of it, which all return normally. */
static PetscBool local_error;

/* Prints the message of the first error only, as one clear line; -pbsim_traceback restores
 * PETSc's full traceback for debugging. */
static PetscErrorCode ShortErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                        PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL) {
    PetscMPIInt size = 1, wsize = 1;
    MPI_Comm_size(comm, &size);
    MPI_Comm_size(PETSC_COMM_WORLD, &wsize);
    if (size == 1 && wsize > 1) local_error = PETSC_TRUE;
    const char *text = NULL;
    if (!mess || !mess[0]) PetscErrorMessage(n, &text, NULL);
    fprintf(stderr, "pbsim: error: %s\n  (%s, %s:%d; rerun with -pbsim_traceback for the full trace)\n", mess && mess[0] ? mess : text, fun, file, line);
  }
  return n;
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
  char **names, **values;
  PetscBool strict = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-strict_options", &strict, NULL));
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt i = 0; i < n; i++)
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, stderr, "pbsim: warning: option -%s was never used (misspelled, or not an option of this scene/solver? -help lists them)\n", names[i]));
  unused = n; /* LeftRestore zeroes n */
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscCheck(!strict || unused == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "%" PetscInt_FMT " option(s) were never used (-strict_options)", unused);
  PetscFunctionReturn(0);
}

static PetscErrorCode CommandRun(void)
{
  SimRegistry reg;
  SimRun run;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryCreate(&reg));
  PetscCall(RegisterAll(reg));
  PetscCall(SimRunCreate(PETSC_COMM_WORLD, reg, &run));
  PetscCall(SimRunSetFromOptions(run));
  PetscCall(SimRunExecute(run));
  PetscCall(SimRunDestroy(&run));
  PetscCall(CheckUnusedOptions());
  PetscCall(SimRegistryDestroy(&reg));
  PetscFunctionReturn(0);
}

/* Runs a benchmark suite (benchmarks/harness.h); its file is not an options file: each run gets its
 * own options database from the suite. */
static PetscErrorCode CommandBench(const char *suite)
{
  SimRegistry reg;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryCreate(&reg));
  PetscCall(RegisterAll(reg));
  PetscCall(BenchRunSuite(PETSC_COMM_WORLD, reg, suite));
  PetscCall(CheckUnusedOptions());
  PetscCall(SimRegistryDestroy(&reg));
  PetscFunctionReturn(0);
}

static int IsConfigFile(const char *a)
{
  size_t n = strlen(a);
  return a[0] != '-' && ((n > 5 && !strcmp(a + n - 5, ".yaml")) || (n > 4 && !strcmp(a + n - 4, ".yml")));
}

int main(int argc, char **argv)
{
  const char *cmd = argc > 1 ? argv[1] : "help";
  char **args;
  int nargs = 0;
  PetscErrorCode ierr;
  PetscBool traceback = PETSC_FALSE;
  const char *suite = NULL; /* bench: the suite file */

  if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
    fputs(usage, stdout);
    return 0;
  }
  if (strcmp(cmd, "run") && strcmp(cmd, "list") && strcmp(cmd, "bench")) {
    fprintf(stderr, "pbsim: unknown command '%s'\n\n%s", cmd, usage);
    return 2;
  }
  if (!strcmp(cmd, "bench")) {
    if (argc < 3 || argv[2][0] == '-') {
      fprintf(stderr, "pbsim bench: missing the suite file (e.g. pbsim bench benchmarks/integrators.yaml -o out/integrators)\n\n%s", usage);
      return 2;
    }
    suite = argv[2];
  }
  /* PETSc sees: the program name, then the config as -options_file_yaml (so that every later
   * command-line option overrides it), then the remaining arguments in order. */
  args = (char **)calloc((size_t)argc + 3, sizeof(char *));
  args[nargs++] = argv[0];
  for (int i = suite ? 3 : 2; i < argc; i++) {
    if (i == 2 && IsConfigFile(argv[i])) {
      FILE *f = fopen(argv[i], "r");
      if (!f) {
        fprintf(stderr, "pbsim: error: cannot open config file '%s': %s\n", argv[i], strerror(errno));
        free(args);
        return 1;
      }
      fclose(f);
      args[nargs++] = (char *)"-options_file_yaml";
    }
    args[nargs++] = argv[i];
  }
  args[nargs] = NULL;
  argc = nargs;
  argv = args;
  ierr = PetscInitialize(&argc, &argv, NULL, usage);
  if (ierr) {
    free(args);
    return 1;
  }
  ierr = PetscOptionsGetBool(NULL, NULL, "-pbsim_traceback", &traceback, NULL);
  if (!ierr && !traceback) ierr = PetscPushErrorHandler(ShortErrorHandler, NULL);
  if (!ierr) ierr = !strcmp(cmd, "list") ? CommandList() : suite ? CommandBench(suite) : CommandRun();
  if (!traceback) PetscPopErrorHandler();
  if (ierr && local_error) MPI_Abort(PETSC_COMM_WORLD, 1); /* the message is printed: end the other ranks too */
  if (PetscFinalize()) ierr = ierr ? ierr : 1;
  free(args);
  return ierr ? 1 : 0;
}
