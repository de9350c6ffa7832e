/* SimRun: builds the scene's problem and the solver, and runs the steps with output, logging,
 * checkpoints and progress; a non-finite state stops the run after saving the last good state.
 * Nothing here knows what kind of problem it runs: every kind-specific act is a problem or solver
 * op (framework/problem.h, framework/solver.h). */
#include <errno.h>
#include "framework/text.h"
#include <sys/stat.h>
#include "framework/sim.h"
#include "framework/io/directory.h"
#include "framework/events.h"
#include "framework/io/vtk.h"
#include "framework/io/xdmf.h"
#include "framework/io/csvlog.h"
#include "framework/io/progress.h"
#include "framework/linalg/blas_threads.h"

/* -output_format */
enum { OUTPUT_AUTO, OUTPUT_VTK, OUTPUT_XDMF };

struct _p_SimRun {
  MPI_Comm comm;
  PetscBool io; /* this rank writes the files the run shares (log, series index): rank 0 */
  SimRegistry reg;
  SimScene scene;
  SimProblem problem;
  SimSolver solver;
  char scene_name[64], solver_name[64], outdir[PETSC_MAX_PATH_LEN], restart[PETSC_MAX_PATH_LEN];
  PetscReal dt;
  PetscInt steps, output_every, snapshot_every, checkpoint_every;
  PetscBool progress, help, snapshots, log;
  PetscBool xdmf; /* -output_format xdmf: frames as XDMF + HDF5, written collectively */
  PetscInt format; /* -output_format: OUTPUT_AUTO, OUTPUT_VTK, OUTPUT_XDMF (auto is settled in Execute) */
  PetscInt xdmf_ranks; /* -output_xdmf_ranks: auto chooses XDMF from this many ranks on */
  PetscInt nmonitors;
  SimRunMonitorFn monitor[8];
  void *monitor_ctx[8];
  PetscInt nfig; /* the current figures: the solver's, then the scene's */
  const char *fig_name[2 * SIM_MAX_FIGURES];
  PetscReal fig_value[2 * SIM_MAX_FIGURES];
};

PetscErrorCode SimRunGetFigures(SimRun r, PetscInt *n, const char *const **names, const PetscReal **values)
{
  PetscFunctionBeginUser;
  *n = r->nfig;
  if (names) *names = r->fig_name;
  if (values) *values = r->fig_value;
  PetscFunctionReturn(0);
}

/* Gathers the solver's figures, then the scene's, at time t. Their number must not change during
 * a run: they are the CSV log's columns. */
static PetscErrorCode GatherFigures(SimRun r, PetscReal t, PetscBool first)
{
  PetscInt ns, nc;

  PetscFunctionBeginUser;
  PetscCall(SimSolverFigures(r->solver, &ns, r->fig_name, r->fig_value));
  PetscCall(SimSceneFigures(r->scene, r->problem, t, &nc, r->fig_name + ns, r->fig_value + ns));
  PetscCheck(first || ns + nc == r->nfig, r->comm, PETSC_ERR_PLIB, "The number of figures changed from %" PetscInt_FMT " to %" PetscInt_FMT " during the run",
             r->nfig, ns + nc);
  r->nfig = ns + nc;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunAddMonitor(SimRun r, SimRunMonitorFn fn, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCheck(r->nmonitors < 8, r->comm, PETSC_ERR_ARG_SIZ, "At most 8 monitors");
  r->monitor[r->nmonitors] = fn;
  r->monitor_ctx[r->nmonitors++] = ctx;
  PetscFunctionReturn(0);
}

static PetscErrorCode CallMonitors(SimRun r, PetscInt step, PetscReal t, const SimEnergyReport *rep, const SimStepStats *stats,
                                   PetscReal wall_ms)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < r->nmonitors; i++) PetscCall(r->monitor[i](r, step, t, rep, stats, wall_ms, r->monitor_ctx[i]));
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunGetScene(SimRun r, SimScene *scene)
{
  PetscFunctionBeginUser;
  *scene = r->scene;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunCreate(MPI_Comm comm, SimRegistry reg, SimRun *run)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(run));
  (*run)->comm = comm;
  (*run)->reg = reg;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  (*run)->io = (PetscBool)(rank == 0);
  PetscFunctionReturn(0);
}

/* Checks both names and that they fit each other before anything is built, so a typo or a solver
 * for another kind of problem fails fast with the valid names; picks the scene's default solver, or
 * else its problem type's, when -solver was not given. */
static PetscErrorCode MatchSceneAndSolver(SimRun r, PetscBool solver_set)
{
  const SimRegEntry *sc, *so, *pt;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryFind(r->reg, SIM_KIND_SCENE, r->scene_name, &sc));
  PetscCall(SimRegistryFind(r->reg, SIM_KIND_PROBLEM, sc->problem, &pt));
  if (!solver_set && sc->solver[0]) PetscCall(PetscStrncpy(r->solver_name, sc->solver, sizeof(r->solver_name)));
  else if (!solver_set && pt->problem[0]) PetscCall(PetscStrncpy(r->solver_name, pt->problem, sizeof(r->solver_name)));
  PetscCall(SimRegistryFind(r->reg, SIM_KIND_SOLVER, r->solver_name, &so));
  if (!SimRegistrySolverFits(so, sc->problem)) {
    char fit[1024], scn[1024];
    PetscCall(SimRegistrySolversFor(r->reg, sc->problem, fit, sizeof(fit)));
    PetscCall(SimRegistryScenesFor(r->reg, so, scn, sizeof(scn)));
    SETERRQ(r->comm, PETSC_ERR_ARG_INCOMP,
            "Solver '%s' does not fit scene '%s': the scene builds a %s problem and the solver advances %s. Solvers for it: %s. "
            "Scenes for solver '%s': %s",
            r->solver_name, r->scene_name, sc->problem, so->problem, fit[0] ? fit : "(none)", r->solver_name, scn[0] ? scn : "(none)");
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunSetFromOptions(SimRun r)
{
  char solvers[1024], scenes[1024];
  PetscBool solver_set = PETSC_FALSE;

  PetscFunctionBeginUser;
  {
    /* "-log" was pbsim's CSV switch once, and is PETSc's event dump: "-log 0" made PetscFinalize write a
     * file "0.<rank>" into the working directory. Refuse it, cleared so the exit writes nothing. */
    PetscBool petsc_log;

    PetscCall(PetscOptionsHasName(NULL, NULL, "-log", &petsc_log));
    if (petsc_log) PetscCall(PetscOptionsClearValue(NULL, "-log"));
    PetscCheck(!petsc_log, r->comm, PETSC_ERR_ARG_WRONG,
               "-log is PETSc's event dump (-log NAME writes NAME.<rank> into the working directory at exit); the per-step CSV log "
               "DIR/log.csv is -csv_log 0|1");
  }
  PetscCall(PetscStrcpy(r->scene_name, "cloth"));
  PetscCall(PetscStrcpy(r->solver_name, "implicit_euler"));
  PetscCall(PetscStrcpy(r->outdir, "out"));
  r->dt = 1.0 / 60;
  r->steps = 120;
  r->output_every = 1;
  r->format = OUTPUT_AUTO;
  r->xdmf_ranks = 8;
  r->snapshot_every = 0;
  r->checkpoint_every = 0;
  r->progress = PETSC_TRUE;
  r->snapshots = PETSC_TRUE;
  r->log = PETSC_TRUE;
  PetscCall(SimRegistryNames(r->reg, SIM_KIND_SOLVER, solvers, sizeof(solvers)));
  PetscCall(SimRegistryNames(r->reg, SIM_KIND_SCENE, scenes, sizeof(scenes)));
  PetscOptionsBegin(r->comm, NULL, "pbsim run", "");
  PetscCall(PetscOptionsString("-scene", scenes, "", r->scene_name, r->scene_name, sizeof(r->scene_name), NULL));
  PetscCall(PetscOptionsString("-solver", solvers, "", r->solver_name, r->solver_name, sizeof(r->solver_name), &solver_set));
  PetscCall(PetscOptionsReal("-dt", "time step (s)", "", r->dt, &r->dt, NULL));
  PetscCall(PetscOptionsInt("-steps", "number of steps (a restarted run ends at the same step)", "", r->steps, &r->steps, NULL));
  PetscCall(PetscOptionsString("-o", "output directory", "", r->outdir, r->outdir, sizeof(r->outdir), NULL));
  PetscCall(PetscOptionsInt("-output_every", "write a ParaView frame every N steps (0: none)", "", r->output_every, &r->output_every, NULL));
  PetscCall(PetscOptionsInt("-snapshot_every", "write a PNG every N steps (first and last always; 0: only those)", "",
                            r->snapshot_every, &r->snapshot_every, NULL));
  PetscCall(PetscOptionsBool("-snapshots", "write PNG snapshots", "", r->snapshots, &r->snapshots, NULL));
  {
    const char *formats[] = {"auto", "vtk", "xdmf"};
    PetscCall(PetscOptionsEList("-output_format",
                                "frames: vtk (.vtu/.vti + .pvd, gathered to and written by rank 0), xdmf (.xmf + .h5, written by every rank) or auto "
                                "(xdmf from -output_xdmf_ranks ranks on where the scene has XDMF output, else vtk)",
                                "", formats, 3, formats[r->format], &r->format, NULL));
    PetscCall(PetscOptionsInt("-output_xdmf_ranks", "-output_format auto chooses xdmf from this many ranks on (gathering a frame to rank 0 stops scaling)", "",
                              r->xdmf_ranks, &r->xdmf_ranks, NULL));
    PetscCheck(r->xdmf_ranks >= 1, r->comm, PETSC_ERR_ARG_OUTOFRANGE, "-output_xdmf_ranks must be >= 1 (got %" PetscInt_FMT ")", r->xdmf_ranks);
    r->xdmf = r->format == OUTPUT_XDMF ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(PetscOptionsBool("-csv_log", "write the per-step CSV log DIR/log.csv", "", r->log, &r->log, NULL));
  PetscCall(PetscOptionsBool("-progress", "progress line on stderr when it is a terminal", "", r->progress, &r->progress, NULL));
  PetscCall(PetscOptionsInt("-checkpoint_every", "write DIR/checkpoint_<step>.bin every N steps (0: none)", "", r->checkpoint_every,
                            &r->checkpoint_every, NULL));
  PetscCall(PetscOptionsString("-restart", "continue from a checkpoint file (same scene, solver and options)", "", r->restart, r->restart,
                               sizeof(r->restart), NULL));
  PetscOptionsEnd();
  PetscCall(SimThreadsSetFromOptions(r->comm));
  PetscCheck(r->dt > 0 && PetscIsNormalReal(r->dt), r->comm, PETSC_ERR_ARG_OUTOFRANGE, "-dt must be > 0 (got %g)", (double)r->dt);
  PetscCheck(r->steps >= 0, r->comm, PETSC_ERR_ARG_OUTOFRANGE, "-steps must be >= 0 (got %" PetscInt_FMT ")", r->steps);
  PetscCheck(r->output_every >= 0 && r->snapshot_every >= 0 && r->checkpoint_every >= 0, r->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-output_every, -snapshot_every and -checkpoint_every must be >= 0");

  PetscCall(MatchSceneAndSolver(r, solver_set));
  PetscCall(SimSceneCreate(r->reg, r->scene_name, &r->scene));
  PetscCall(SimSceneBuild(r->scene, r->comm, &r->problem));
  PetscCall(SimSolverCreate(r->reg, r->solver_name, r->problem, &r->solver));
  PetscCall(SimSolverSetFromOptions(r->solver));
  PetscCall(PetscOptionsHasHelp(NULL, &r->help));
  PetscFunctionReturn(0);
}

typedef struct {
  SimPVD pvd;
  SimXDMFSeries series;
  SimCSVLog csv;
  SimProgress progress;
  const char *ext; /* the problem's frame extension */
} RunOutput;

/* A frame in the run's format; XDMF is an error for a problem type (or grid solver) without it. */
static PetscErrorCode WriteFrameFile(SimRun r, const char *path, PetscBool *written)
{
  PetscFunctionBeginUser;
  if (!r->xdmf) {
    PetscCall(SimSolverWriteFrame(r->solver, path, written));
    PetscFunctionReturn(0);
  }
  PetscCall(SimSolverWriteXDMF(r->solver, path, written));
  PetscCheck(*written, r->comm, PETSC_ERR_SUP, "-output_format xdmf: scene '%s' with solver '%s' has no XDMF output; use -output_format vtk",
             r->scene_name, r->solver_name);
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteFrame(SimRun r, RunOutput *o, PetscInt step, PetscReal t)
{
  char path[PETSC_MAX_PATH_LEN], file[64];
  PetscBool written;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(file, sizeof(file), "frame_%05" PetscInt_FMT ".%s", step, o->ext));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", r->outdir, file));
  PetscCall(WriteFrameFile(r, path, &written));
  if (written && o->pvd) PetscCall(SimPVDAdd(o->pvd, t, file));
  if (written && o->series) PetscCall(SimXDMFSeriesAdd(o->series, t, file));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteSnapshot(SimRun r, PetscInt step, PetscReal t)
{
  char path[PETSC_MAX_PATH_LEN], caption[160];
  PetscBool written;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/snapshot_%05" PetscInt_FMT ".png", r->outdir, step));
  PetscCall(PetscSNPrintf(caption, sizeof(caption), "%s  %s  t = %.3f s  step %" PetscInt_FMT, r->scene_name, r->solver_name, (double)t, step));
  PetscCall(SimSolverWriteImage(r->solver, caption, path, &written));
  PetscFunctionReturn(0);
}

/* A checkpoint file as a binary viewer without the .info side file (its per-Vec block sizes would
 * pile up in the options database and apply to every VecLoad). */
static PetscErrorCode OpenCheckpoint(MPI_Comm comm, const char *path, PetscFileMode mode, PetscViewer *viewer)
{
  PetscFunctionBeginUser;
  PetscCall(PetscViewerCreate(comm, viewer));
  PetscCall(PetscViewerSetType(*viewer, PETSCVIEWERBINARY));
  PetscCall(PetscViewerBinarySetSkipInfo(*viewer, PETSC_TRUE));
  PetscCall(PetscViewerFileSetMode(*viewer, mode));
  PetscCall(PetscViewerFileSetName(*viewer, path));
  PetscFunctionReturn(0);
}

/* DIR/checkpoint_<step>.bin: the solver's time and step, the problem's state and the solver's
 * history (SimSolverSave). Written to a temporary name and renamed, so a crash never leaves a
 * truncated checkpoint under the final name. */
static PetscErrorCode WriteCheckpoint(SimRun r, PetscInt step)
{
  char path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN];
  PetscViewer viewer;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/checkpoint_%05" PetscInt_FMT ".bin", r->outdir, step));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", path));
  PetscCall(OpenCheckpoint(r->comm, tmp, FILE_MODE_WRITE, &viewer));
  PetscCall(SimSolverSave(r->solver, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  if (r->io) PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
  PetscCallMPI(MPI_Barrier(r->comm));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadCheckpoint(SimRun r)
{
  PetscViewer viewer;
  PetscBool exists = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscTestFile(r->restart, 'r', &exists));
  PetscCheck(exists, r->comm, PETSC_ERR_FILE_OPEN, "-restart: cannot read '%s'", r->restart);
  PetscCall(OpenCheckpoint(r->comm, r->restart, FILE_MODE_READ, &viewer));
  PetscCall(SimSolverLoad(r->solver, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscFunctionReturn(0);
}

/* The step blew up: put the last good state back, write it as DIR/last_good.<ext>, and say where. */
static PetscErrorCode WriteLastGood(SimRun r, RunOutput *o, char *where, size_t len)
{
  char path[PETSC_MAX_PATH_LEN];
  PetscBool written;

  PetscFunctionBeginUser;
  PetscCall(SimSolverStash(r->solver, PETSC_TRUE));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/last_good.%s", r->outdir, o->ext));
  if (r->xdmf) PetscCall(SimSolverWriteXDMF(r->solver, path, &written));
  else PetscCall(SimSolverWriteFrame(r->solver, path, &written));
  if (written) PetscCall(PetscStrncpy(where, path, len));
  else PetscCall(PetscSNPrintf(where, len, "the frames in %s/ (this problem writes no last-good frame)", r->outdir));
  PetscFunctionReturn(0);
}

/* A run has blown up when the energy grows by this factor over its scale at the start (the larger of
 * the initial state's and the first step's): a stable method can inject energy (gravity, a scripted
 * motion, an inflow), never ten orders of magnitude. */
#define SIM_BLOWUP_FACTOR 1e10

/* The size of the energy in a report: the kinetic energy plus every term's magnitude, so that terms
 * of opposite signs (gravity against elasticity) cannot cancel into a small number. */
static PetscReal EnergyScale(const SimEnergyReport *rep)
{
  PetscReal e = PetscAbsReal(rep->kinetic);
  for (PetscInt i = 0; i < rep->nterms; i++) e += PetscAbsReal(rep->term[i]);
  return e;
}

/* What to try after a blow-up, for the solver in use: a smaller step always; an iterating solver
 * (Newton, PD, PBD: it reported nonlinear iterations) can also iterate more, an explicit one is
 * limited by its stability bound; and the other solvers that fit this problem. */
static PetscErrorCode BlowUpAdvice(SimRun r, const SimStepStats *stats, char *buf, size_t len)
{
  const char *type;
  char fit[1024], others[1024] = "";

  PetscFunctionBeginUser;
  PetscCall(SimProblemGetType(r->problem, &type));
  PetscCall(SimRegistrySolversFor(r->reg, type, fit, sizeof(fit)));
  for (char *save = NULL, *name = strtok_r(fit, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
    if (!strcmp(name, r->solver_name)) continue;
    PetscCall(SimStrAppend(others, others[0] ? ", " : "", sizeof(others)));
    PetscCall(SimStrAppend(others, name, sizeof(others)));
  }
  if (stats && stats->nonlinear_its > 0)
    PetscCall(PetscSNPrintf(buf, len, "Try a smaller -dt (now %g), or let solver '%s' iterate more or to a tighter tolerance (-help lists its options)%s%s.",
                            (double)r->dt, r->solver_name, others[0] ? "; other solvers for this scene: " : "", others));
  else
    PetscCall(PetscSNPrintf(buf, len, "Try a smaller -dt (now %g): solver '%s' takes explicit steps, stable only below a limit that the stiffest term sets%s%s.",
                            (double)r->dt, r->solver_name, others[0] ? "; or another solver for this scene (implicit ones are stable at larger steps): " : "", others));
  PetscFunctionReturn(0);
}

/* Ends a run at `step`: the last good state written (WriteLastGood), the outputs closed, and one error
 * with `code` saying what happened (`what` and `detail`), where the last good state is and, for a
 * blow-up (stats given), what to try. */
static PetscErrorCode StopRun(SimRun r, RunOutput *o, PetscInt step, PetscReal t, const SimStepStats *stats, PetscErrorCode code, const char *what,
                              const char *detail)
{
  char where[PETSC_MAX_PATH_LEN + 80], advice[1280] = "";

  PetscFunctionBeginUser;
  PetscCall(SimProgressFinish(&o->progress, step, t));
  PetscCall(WriteLastGood(r, o, where, sizeof(where)));
  if (stats) PetscCall(BlowUpAdvice(r, stats, advice, sizeof(advice)));
  SETERRQ(r->comm, code, "Step %" PetscInt_FMT " (t = %g s) of solver '%s' %s%s. The last good state (step %" PetscInt_FMT ") is in %s.%s%s", step, (double)t,
          r->solver_name, what, detail, step - 1, where, advice[0] ? " " : "", advice);
}

/* Closes the run's log and series files (also after an error: what was written stays readable). */
static PetscErrorCode CloseOutputs(RunOutput *o)
{
  PetscFunctionBeginUser;
  PetscCall(SimCSVLogDestroy(&o->csv));
  PetscCall(SimPVDDestroy(&o->pvd));
  PetscCall(SimXDMFSeriesDestroy(&o->series));
  PetscFunctionReturn(0);
}

static PetscErrorCode Execute(SimRun r, RunOutput *o)
{
  SimEnergyReport rep;
  const SimStepStats *stats;
  char path[PETSC_MAX_PATH_LEN], summary[256];
  PetscLogDouble t0, t1, wall_start, setup;
  PetscInt not_converged = 0, total_newton = 0, first = 0;
  PetscReal t = 0, e_ref = 0;
  SimEvents ev;

  PetscFunctionBeginUser;
  if (r->help) PetscFunctionReturn(0); /* -help: the options are listed, nothing runs */
  PetscCall(SimEventsGet(&ev));
  if (r->io) PetscCall(SimMakeDirectory(r->outdir));
  PetscCallMPI(MPI_Barrier(r->comm));
  if (r->format == OUTPUT_AUTO) { /* large runs write collectively, where the scene can */
    PetscMPIInt size;
    PetscBool has;
    PetscCallMPI(MPI_Comm_size(r->comm, &size));
    PetscCall(SimSolverWriteXDMF(r->solver, NULL, &has));
    r->xdmf = (PetscBool)(has && size >= r->xdmf_ranks);
  }
  PetscCall(SimProblemGetFrameExtension(r->problem, &o->ext));
  if (r->xdmf) o->ext = "xmf";
  PetscCall(PetscTime(&t0));
  PetscCall(SimSolverSetUp(r->solver));
  PetscCall(PetscTime(&t1));
  setup = t1 - t0; /* the solver's set-up (factorizations, grids, hierarchies), reported in the done line */
  if (r->restart[0]) PetscCall(ReadCheckpoint(r));
  PetscCall(SimSolverGetTime(r->solver, &t, &first));
  PetscCheck(first <= r->steps, r->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-restart: the checkpoint is at step %" PetscInt_FMT ", past -steps %" PetscInt_FMT " (-steps counts from the start of the run)", first,
             r->steps);
  PetscCall(SimSolverGetStats(r->solver, &stats));
  PetscCall(SimSolverEnergy(r->solver, &rep));
  e_ref = EnergyScale(&rep);
  PetscCall(GatherFigures(r, t, PETSC_TRUE));
  if (r->log && r->io) { /* rank 0 writes the files the run shares */
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/log.csv", r->outdir));
    PetscCall(SimCSVLogCreateWithFigures(path, &rep, r->nfig, r->fig_name, &o->csv));
    PetscCall(SimCSVLogRowWithFigures(o->csv, first, t, r->dt, &rep, NULL, 0.0, r->nfig, r->fig_value));
  }
  PetscCall(CallMonitors(r, first, t, &rep, NULL, 0.0));
  if (r->output_every && r->io) {
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s.%s", r->outdir, r->scene_name, r->xdmf ? "xmf" : "pvd"));
    if (r->xdmf) PetscCall(SimXDMFSeriesCreate(path, &o->series));
    else PetscCall(SimPVDCreate(path, &o->pvd));
  }
  PetscCall(PetscLogEventBegin(ev.output, 0, 0, 0, 0));
  if (r->output_every) PetscCall(WriteFrame(r, o, first, t));
  if (r->snapshots) PetscCall(WriteSnapshot(r, first, t));
  PetscCall(PetscLogEventEnd(ev.output, 0, 0, 0, 0));
  PetscCall(SimProblemSummary(r->problem, summary, sizeof(summary)));
  PetscCall(PetscPrintf(r->comm, "pbsim: scene %s (%s), solver %s, dt = %g s, %" PetscInt_FMT " steps -> %s/\n", r->scene_name, summary,
                        r->solver_name, (double)r->dt, r->steps, r->outdir));
  if (first) PetscCall(PetscPrintf(r->comm, "pbsim: restarted from %s at step %" PetscInt_FMT " (t = %g s)\n", r->restart, first, (double)t));

  PetscCall(SimProgressStart(&o->progress, r->steps, (PetscBool)(r->progress && r->io)));
  PetscCall(PetscTime(&wall_start));
  for (PetscInt step = first + 1; step <= r->steps; step++) {
    SimStepOutcome outcome;

    PetscCall(SimSolverStash(r->solver, PETSC_FALSE));
    PetscCall(PetscTime(&t0));
    PetscCall(SimSolverStep(r->solver, r->dt, &outcome));
    PetscCall(PetscTime(&t1));
    PetscCall(SimSolverGetTime(r->solver, &t, NULL));
    if (outcome == SIM_STEP_FAILED) PetscCall(StopRun(r, o, step, t, NULL, PETSC_ERR_ARG_OUTOFRANGE, "failed: ", stats->reason));
    if (outcome == SIM_STEP_NONFINITE) PetscCall(StopRun(r, o, step, t, stats, PETSC_ERR_FP, "produced a non-finite state (NaN or Inf)", ""));
    if (outcome == SIM_STEP_NOT_CONVERGED && !not_converged++)
      PetscCall(PetscPrintf(r->comm, "pbsim: warning: step %" PetscInt_FMT ": the solver did not converge (residual %g); continuing with its last iterate. "
                                     "Later occurrences are counted, not printed.\n", step, (double)stats->residual));
    total_newton += stats->nonlinear_its;
    PetscCall(SimSolverEnergy(r->solver, &rep));
    { /* a finite state can still have blown up: the energy far beyond its scale at the start */
      const PetscReal e = EnergyScale(&rep);
      if (step == first + 1) e_ref = PetscMax(e_ref, e); /* a body at rest starts with round-off: its first step sets the scale */
      if (e > SIM_BLOWUP_FACTOR * e_ref) {
        char what[160];
        PetscCall(PetscSNPrintf(what, sizeof(what), "made the energy %.3g J, %.2g times its scale at the start (%.3g J): the run has blown up", (double)e,
                                (double)(e / e_ref), (double)e_ref));
        PetscCall(StopRun(r, o, step, t, stats, PETSC_ERR_FP, what, ""));
      }
    }
    PetscCall(GatherFigures(r, t, PETSC_FALSE));
    PetscCall(PetscLogEventBegin(ev.output, 0, 0, 0, 0));
    if (o->csv) PetscCall(SimCSVLogRowWithFigures(o->csv, step, t, r->dt, &rep, stats, 1e3 * (t1 - t0), r->nfig, r->fig_value));
    PetscCall(CallMonitors(r, step, t, &rep, stats, 1e3 * (t1 - t0)));
    if (r->output_every && step % r->output_every == 0) PetscCall(WriteFrame(r, o, step, t));
    if (r->snapshots && ((r->snapshot_every && step % r->snapshot_every == 0) || step == r->steps)) PetscCall(WriteSnapshot(r, step, t));
    if (r->checkpoint_every && step % r->checkpoint_every == 0) PetscCall(WriteCheckpoint(r, step));
    PetscCall(PetscLogEventEnd(ev.output, 0, 0, 0, 0));
    PetscCall(SimProgressUpdate(&o->progress, step, t));
  }
  PetscCall(PetscTime(&t1));
  {
    const PetscInt ran = r->steps - first;
    PetscCall(SimProgressFinish(&o->progress, r->steps, t));
    PetscCall(PetscPrintf(r->comm, "pbsim: done: %" PetscInt_FMT " steps in %.3f s (%.2f ms/step", ran, (double)(t1 - wall_start),
                          ran ? 1e3 * (double)(t1 - wall_start) / ran : 0.0));
    if (total_newton) PetscCall(PetscPrintf(r->comm, ", %.2f nonlinear iterations/step", (double)total_newton / ran));
    PetscCall(PetscPrintf(r->comm, ", set-up %.3f s", (double)setup));
  }
  PetscCall(PetscPrintf(r->comm, "); energy %.6g J at the end", (double)rep.total));
  if (not_converged) PetscCall(PetscPrintf(r->comm, "; %" PetscInt_FMT " step(s) did not converge", not_converged));
  PetscCall(PetscPrintf(r->comm, "\n"));
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunExecute(SimRun r)
{
  RunOutput o = {0};
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  ierr = Execute(r, &o);
  PetscCall(CloseOutputs(&o));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunGetSolver(SimRun r, SimSolver *solver)
{
  PetscFunctionBeginUser;
  *solver = r->solver;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunGetProblem(SimRun r, SimProblem *problem)
{
  PetscFunctionBeginUser;
  *problem = r->problem;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunDestroy(SimRun *run)
{
  PetscFunctionBeginUser;
  if (!run || !*run) PetscFunctionReturn(0);
  PetscCall(SimSolverDestroy(&(*run)->solver));
  PetscCall(SimProblemDestroy(&(*run)->problem));
  PetscCall(SimSceneDestroy(&(*run)->scene));
  PetscCall(PetscFree(*run));
  PetscFunctionReturn(0);
}
