/* SimRun: builds the scene's model (or grid problem), the solver, and runs the steps with output,
 * logging and progress; a non-finite state stops the run after saving the last good state. */
#include <errno.h>
#include <sys/stat.h>
#include "framework/sim.h"
#include "framework/io/directory.h"
#include "framework/events.h"
#include "framework/io/vtk.h"
#include "framework/io/png.h"
#include "framework/io/csvlog.h"
#include "framework/io/progress.h"
#include "framework/linalg/blas_threads.h"

struct _p_SimRun {
  MPI_Comm comm;
  PetscBool io; /* this rank writes the output: rank 0 (the model's state is replicated on every rank) */
  SimRegistry reg;
  SimScene scene;
  SimModel model;        /* model scenes */
  SimGridProblem *grid;  /* grid scenes (then model is NULL) */
  SimSolver solver;
  char scene_name[64], solver_name[64], outdir[PETSC_MAX_PATH_LEN];
  PetscReal dt;
  PetscInt steps, output_every, snapshot_every;
  PetscBool progress, help, snapshots, log;
  SimCamera camera;
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

/* Gathers the solver's figures, then the scene's (model scenes), at time t. Their number must not
 * change during a run: they are the CSV log's columns. */
static PetscErrorCode GatherFigures(SimRun r, PetscReal t, PetscBool first)
{
  PetscInt ns, nc;

  PetscFunctionBeginUser;
  PetscCall(SimSolverFigures(r->solver, &ns, r->fig_name, r->fig_value));
  PetscCall(SimSceneFigures(r->scene, r->model, t, &nc, r->fig_name + ns, r->fig_value + ns));
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
  PetscFunctionBeginUser;
  PetscCall(PetscNew(run));
  (*run)->comm = comm;
  (*run)->reg = reg;
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    (*run)->io = (PetscBool)(rank == 0);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunSetFromOptions(SimRun r)
{
  char solvers[1024], scenes[1024];
  PetscBool solver_set = PETSC_FALSE, isgrid;
  PetscInt blas_threads = 1; /* one per rank: fast and reproducible (a threaded BLAS changed iteration counts run to run) */

  PetscFunctionBeginUser;
  PetscCall(PetscStrcpy(r->scene_name, "cloth"));
  PetscCall(PetscStrcpy(r->solver_name, "implicit_euler"));
  PetscCall(PetscStrcpy(r->outdir, "out"));
  r->dt = 1.0 / 60;
  r->steps = 120;
  r->output_every = 1;
  r->snapshot_every = 0;
  r->progress = PETSC_TRUE;
  r->snapshots = PETSC_TRUE;
  r->log = PETSC_TRUE;
  PetscCall(SimRegistryNames(r->reg, SIM_KIND_SOLVER, solvers, sizeof(solvers)));
  PetscCall(SimRegistryNames(r->reg, SIM_KIND_SCENE, scenes, sizeof(scenes)));
  PetscOptionsBegin(r->comm, NULL, "pbsim run", "");
  PetscCall(PetscOptionsString("-scene", scenes, "", r->scene_name, r->scene_name, sizeof(r->scene_name), NULL));
  PetscCall(PetscOptionsString("-solver", solvers, "", r->solver_name, r->solver_name, sizeof(r->solver_name), &solver_set));
  PetscCall(PetscOptionsReal("-dt", "time step (s)", "", r->dt, &r->dt, NULL));
  PetscCall(PetscOptionsInt("-steps", "number of steps", "", r->steps, &r->steps, NULL));
  PetscCall(PetscOptionsString("-o", "output directory", "", r->outdir, r->outdir, sizeof(r->outdir), NULL));
  PetscCall(PetscOptionsInt("-output_every", "write a VTK frame every N steps (0: none)", "", r->output_every, &r->output_every, NULL));
  PetscCall(PetscOptionsInt("-snapshot_every", "write a PNG every N steps (first and last always; 0: only those)", "",
                            r->snapshot_every, &r->snapshot_every, NULL));
  PetscCall(PetscOptionsBool("-snapshots", "write PNG snapshots", "", r->snapshots, &r->snapshots, NULL));
  PetscCall(PetscOptionsBool("-log", "write the per-step CSV log DIR/log.csv", "", r->log, &r->log, NULL));
  PetscCall(PetscOptionsBool("-progress", "progress line on stderr when it is a terminal", "", r->progress, &r->progress, NULL));
  PetscCall(PetscOptionsInt("-blas_threads", "threads of the BLAS (CHOLMOD's, MUMPS' dense kernels) per MPI rank; set here, so "
                            "OPENBLAS_NUM_THREADS is not needed", "", blas_threads, &blas_threads, NULL));
  PetscOptionsEnd();
  PetscCall(SimBLASSetThreads(blas_threads, NULL));
  PetscCheck(r->dt > 0 && PetscIsNormalReal(r->dt), r->comm, PETSC_ERR_ARG_OUTOFRANGE, "-dt must be > 0 (got %g)", (double)r->dt);
  PetscCheck(r->steps >= 0, r->comm, PETSC_ERR_ARG_OUTOFRANGE, "-steps must be >= 0 (got %" PetscInt_FMT ")", r->steps);
  PetscCheck(r->output_every >= 0 && r->snapshot_every >= 0, r->comm, PETSC_ERR_ARG_OUTOFRANGE, "-output_every and -snapshot_every must be >= 0");

  /* check both names and that they fit each other before building anything, so a typo or a grid
   * solver on a model scene (or the reverse) fails fast with the valid names */
  {
    const SimRegEntry *sc, *so;
    PetscBool gscene;
    char fit[1024];
    PetscCall(SimRegistryFind(r->reg, SIM_KIND_SCENE, r->scene_name, &sc));
    gscene = (sc->flags & SIM_REG_GRID) ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(SimRegistryNamesWithFlag(r->reg, SIM_KIND_SOLVER, SIM_REG_GRID, gscene, fit, sizeof(fit)));
    if (gscene && !solver_set) { /* a grid scene's default solver: the first grid solver */
      const SimRegEntry *e;
      PetscInt n;
      PetscCall(SimRegistryCount(r->reg, SIM_KIND_SOLVER, &n));
      for (PetscInt i = n - 1; i >= 0; i--) {
        PetscCall(SimRegistryGet(r->reg, SIM_KIND_SOLVER, i, &e));
        if (e->flags & SIM_REG_GRID) PetscCall(PetscStrncpy(r->solver_name, e->name, sizeof(r->solver_name)));
      }
    }
    PetscCall(SimRegistryFind(r->reg, SIM_KIND_SOLVER, r->solver_name, &so));
    if (!(so->flags & SIM_REG_GRID) != !gscene) {
      char scn[1024];
      PetscCall(SimRegistryNamesWithFlag(r->reg, SIM_KIND_SCENE, SIM_REG_GRID, !gscene, scn, sizeof(scn)));
      SETERRQ(r->comm, PETSC_ERR_ARG_INCOMP,
              "Solver '%s' does not fit scene '%s': the scene %s. Solvers for it: %s. Scenes for solver '%s': %s", r->solver_name,
              r->scene_name, gscene ? "is a grid problem (Eulerian)" : "builds a Lagrangian model", fit[0] ? fit : "(none)", r->solver_name,
              scn[0] ? scn : "(none)");
    }
  }
  PetscCall(SimSceneCreate(r->reg, r->scene_name, &r->scene));
  PetscCall(SimSceneIsGrid(r->scene, &isgrid));
  if (isgrid) {
    PetscCall(PetscNew(&r->grid));
    PetscCall(SimSceneBuildGrid(r->scene, r->grid));
    PetscCall(SimSolverCreateOnGrid(r->reg, r->solver_name, r->comm, r->grid, &r->solver));
  } else {
    PetscCall(SimSceneBuildModel(r->scene, r->reg, r->comm, &r->model));
    PetscCall(SimSolverCreate(r->reg, r->solver_name, r->model, &r->solver));
  }
  PetscCall(SimSolverSetFromOptions(r->solver));
  PetscCall(PetscOptionsHasHelp(NULL, &r->help));
  PetscFunctionReturn(0);
}

typedef struct {
  SimPVD pvd;
  SimCSVLog csv;
  SimProgress progress;
  PetscInt last_snapshot;
} RunOutput;

/* One view for the whole run: the body's initial box plus the same box moved down (along gravity)
 * by the body's diameter, the space a hanging or falling body swings into. */
static PetscErrorCode FitCamera(SimRun r)
{
  const PetscScalar *x;
  PetscReal *both, lo[3], hi[3], diam = 0, g = 0, gdir[3] = {0, -1, 0};
  PetscInt nv = r->model->nv;

  PetscFunctionBeginUser;
  for (int d = 0; d < 3; d++) g += r->model->gravity[d] * r->model->gravity[d];
  if (g > 0)
    for (int d = 0; d < 3; d++) gdir[d] = r->model->gravity[d] / PetscSqrtReal(g);
  PetscCall(VecGetArrayRead(r->model->x, &x));
  for (int d = 0; d < 3; d++) lo[d] = PETSC_MAX_REAL, hi[d] = PETSC_MIN_REAL;
  for (PetscInt i = 0; i < nv; i++)
    for (int d = 0; d < 3; d++) lo[d] = PetscMin(lo[d], x[3 * i + d]), hi[d] = PetscMax(hi[d], x[3 * i + d]);
  for (int d = 0; d < 3; d++) diam += (hi[d] - lo[d]) * (hi[d] - lo[d]);
  diam = PetscSqrtReal(diam);
  PetscCall(PetscMalloc1(6 * nv, &both));
  for (PetscInt k = 0; k < 3 * nv; k++) both[k] = x[k], both[3 * nv + k] = x[k] + (g > 0 ? diam * gdir[k % 3] : 0);
  PetscCall(VecRestoreArrayRead(r->model->x, &x));
  PetscCall(SimCameraFit(2 * nv, both, 0.1, &r->camera));
  PetscCall(PetscFree(both));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteFrame(SimRun r, RunOutput *o, PetscInt step, PetscReal t)
{
  char path[PETSC_MAX_PATH_LEN], file[64];
  const PetscScalar *x, *v;

  PetscFunctionBeginUser;
  if (r->grid) { /* the solver owns the state: a VTK ImageData frame, written collectively */
    PetscBool written;
    PetscCall(PetscSNPrintf(file, sizeof(file), "frame_%05" PetscInt_FMT ".vti", step));
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", r->outdir, file));
    PetscCall(SimSolverWriteFrame(r->solver, path, &written));
    if (written && o->pvd) PetscCall(SimPVDAdd(o->pvd, t, file));
    PetscFunctionReturn(0);
  }
  if (!r->io) PetscFunctionReturn(0); /* the model's state is replicated: rank 0 writes it */
  PetscCall(PetscSNPrintf(file, sizeof(file), "frame_%05" PetscInt_FMT ".vtu", step));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", r->outdir, file));
  PetscCall(VecGetArrayRead(r->model->x, &x));
  PetscCall(VecGetArrayRead(r->model->v, &v));
  PetscCall(SimVTKWriteFrame(r->model, x, v, path));
  PetscCall(VecRestoreArrayRead(r->model->v, &v));
  PetscCall(VecRestoreArrayRead(r->model->x, &x));
  PetscCall(SimPVDAdd(o->pvd, t, file));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteSnapshot(SimRun r, RunOutput *o, PetscInt step, PetscReal t)
{
  char path[PETSC_MAX_PATH_LEN], caption[160];
  const PetscScalar *x;

  PetscFunctionBeginUser;
  o->last_snapshot = step;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/snapshot_%05" PetscInt_FMT ".png", r->outdir, step));
  PetscCall(PetscSNPrintf(caption, sizeof(caption), "%s  %s  t = %.3f s  step %" PetscInt_FMT, r->scene_name, r->solver_name, (double)t, step));
  if (r->grid) { /* collective: the solver gathers its slice */
    PetscBool written;
    PetscCall(SimSolverWriteImage(r->solver, caption, path, &written));
    PetscFunctionReturn(0);
  }
  if (!r->io) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(r->model->x, &x));
  PetscCall(SimPNGWrite(r->model, x, &r->camera, caption, path));
  PetscCall(VecRestoreArrayRead(r->model->x, &x));
  o->last_snapshot = step;
  PetscFunctionReturn(0);
}

/* Writes the last good state to DIR/last_good.vtu (path returned). */
static PetscErrorCode WriteLastGood(SimRun r, Vec xgood, Vec vgood, char *path, size_t len)
{
  const PetscScalar *x, *v;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, len, "%s/last_good.vtu", r->outdir));
  if (!r->io) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(xgood, &x));
  PetscCall(VecGetArrayRead(vgood, &v));
  PetscCall(SimVTKWriteFrame(r->model, x, v, path));
  PetscCall(VecRestoreArrayRead(vgood, &v));
  PetscCall(VecRestoreArrayRead(xgood, &x));
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunExecute(SimRun r)
{
  RunOutput o = {0};
  SimEnergyReport rep;
  const SimStepStats *stats;
  char path[PETSC_MAX_PATH_LEN];
  Vec xgood, vgood;
  PetscLogDouble t0, t1, wall_start;
  PetscInt not_converged = 0, total_newton = 0;
  SimEvents ev;

  PetscFunctionBeginUser;
  if (r->help) PetscFunctionReturn(0); /* -help: the options are listed, nothing runs */
  PetscCall(SimEventsGet(&ev));
  if (r->io) PetscCall(SimMakeDirectory(r->outdir));
  PetscCallMPI(MPI_Barrier(r->comm));
  PetscCall(SimSolverSetUp(r->solver));
  PetscCall(SimSolverGetStats(r->solver, &stats));
  PetscCall(SimSolverEnergy(r->solver, &rep));
  PetscCall(GatherFigures(r, 0.0, PETSC_TRUE));
  if (r->log && r->io) { /* rank 0 writes the files the run shares (a grid solver writes its frames collectively) */
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/log.csv", r->outdir));
    PetscCall(SimCSVLogCreateWithFigures(path, &rep, r->nfig, r->fig_name, &o.csv));
    PetscCall(SimCSVLogRowWithFigures(o.csv, 0, 0.0, r->dt, &rep, NULL, 0.0, r->nfig, r->fig_value));
  }
  PetscCall(CallMonitors(r, 0, 0.0, &rep, NULL, 0.0));
  if (r->output_every && r->io) {
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s.pvd", r->outdir, r->scene_name));
    PetscCall(SimPVDCreate(path, &o.pvd));
  }
  if (r->snapshots && !r->grid) PetscCall(FitCamera(r));
  PetscCall(PetscLogEventBegin(ev.output, 0, 0, 0, 0));
  if (r->output_every) PetscCall(WriteFrame(r, &o, 0, 0.0));
  if (r->snapshots) PetscCall(WriteSnapshot(r, &o, 0, 0.0));
  PetscCall(PetscLogEventEnd(ev.output, 0, 0, 0, 0));
  if (r->grid)
    PetscCall(PetscPrintf(r->comm, "pbsim: scene %s (%" PetscInt_FMT "D grid, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells), solver %s, dt = %g s, %" PetscInt_FMT " steps -> %s/\n",
                          r->scene_name, r->grid->dim, r->grid->n[0], r->grid->n[1], r->grid->n[2], r->solver_name, (double)r->dt, r->steps, r->outdir));
  else
    PetscCall(PetscPrintf(r->comm, "pbsim: scene %s (%" PetscInt_FMT " vertices, %" PetscInt_FMT " pinned), solver %s, dt = %g s, %" PetscInt_FMT " steps -> %s/\n",
                          r->scene_name, r->model->nv, r->model->npinned, r->solver_name, (double)r->dt, r->steps, r->outdir));

  /* the last good state: the model's x and v, or the grid solver's state vector */
  {
    Vec state;
    PetscCall(SimSolverGetState(r->solver, &state));
    PetscCall(VecDuplicate(state, &xgood));
    PetscCall(VecDuplicate(r->model ? r->model->v : state, &vgood));
  }
  PetscCall(SimProgressStart(&o.progress, r->steps, (PetscBool)(r->progress && r->io)));
  PetscCall(PetscTime(&wall_start));
  for (PetscInt step = 1; step <= r->steps; step++) {
    SimStepOutcome outcome;
    PetscReal t;

    if (r->model) {
      PetscCall(VecCopy(r->model->x, xgood));
      PetscCall(VecCopy(r->model->v, vgood));
    }
    PetscCall(PetscTime(&t0));
    PetscCall(SimSolverStep(r->solver, r->dt, &outcome));
    PetscCall(PetscTime(&t1));
    PetscCall(SimSolverGetTime(r->solver, &t, NULL));
    if (outcome == SIM_STEP_NONFINITE) { /* stop: save the last good state, free everything, say what to try */
      PetscCall(SimProgressFinish(&o.progress, step, t));
      if (r->model) PetscCall(WriteLastGood(r, xgood, vgood, path, sizeof(path)));
      else PetscCall(PetscSNPrintf(path, sizeof(path), "the frames in %s/", r->outdir)); /* grid: frames hold the history */
      PetscCall(SimCSVLogDestroy(&o.csv));
      PetscCall(SimPVDDestroy(&o.pvd));
      PetscCall(VecDestroy(&xgood));
      PetscCall(VecDestroy(&vgood));
      SETERRQ(r->comm, PETSC_ERR_FP,
              "Step %" PetscInt_FMT " (t = %g s) of solver '%s' produced a non-finite state (NaN or Inf). The last good state "
              "(step %" PetscInt_FMT ") is in %s. Try a smaller -dt (now %g) or an implicit integrator (-solver implicit_euler).",
              step, (double)t, r->solver_name, step - 1, path, (double)r->dt);
    }
    if (outcome == SIM_STEP_NOT_CONVERGED && !not_converged++)
      PetscCall(PetscPrintf(r->comm, "pbsim: warning: step %" PetscInt_FMT ": the solver did not converge (residual %g); continuing with its last iterate. "
                                     "Later occurrences are counted, not printed.\n", step, (double)stats->residual));
    total_newton += stats->nonlinear_its;
    PetscCall(SimSolverEnergy(r->solver, &rep));
    PetscCall(GatherFigures(r, t, PETSC_FALSE));
    PetscCall(PetscLogEventBegin(ev.output, 0, 0, 0, 0));
    if (o.csv) PetscCall(SimCSVLogRowWithFigures(o.csv, step, t, r->dt, &rep, stats, 1e3 * (t1 - t0), r->nfig, r->fig_value));
    PetscCall(CallMonitors(r, step, t, &rep, stats, 1e3 * (t1 - t0)));
    if (r->output_every && step % r->output_every == 0) PetscCall(WriteFrame(r, &o, step, t));
    if (r->snapshots && ((r->snapshot_every && step % r->snapshot_every == 0) || step == r->steps)) PetscCall(WriteSnapshot(r, &o, step, t));
    PetscCall(PetscLogEventEnd(ev.output, 0, 0, 0, 0));
    PetscCall(SimProgressUpdate(&o.progress, step, t));
  }
  PetscCall(PetscTime(&t1));
  PetscCall(SimProgressFinish(&o.progress, r->steps, r->steps * r->dt));
  PetscCall(PetscPrintf(r->comm, "pbsim: done: %" PetscInt_FMT " steps in %.3f s (%.2f ms/step", r->steps, (double)(t1 - wall_start),
                        r->steps ? 1e3 * (double)(t1 - wall_start) / r->steps : 0.0));
  if (total_newton) PetscCall(PetscPrintf(r->comm, ", %.2f nonlinear iterations/step", (double)total_newton / r->steps));
  PetscCall(PetscPrintf(r->comm, "); energy %.6g J at the end", (double)rep.total));
  if (not_converged) PetscCall(PetscPrintf(r->comm, "; %" PetscInt_FMT " step(s) did not converge", not_converged));
  PetscCall(PetscPrintf(r->comm, "\n"));
  PetscCall(VecDestroy(&xgood));
  PetscCall(VecDestroy(&vgood));
  PetscCall(SimCSVLogDestroy(&o.csv));
  PetscCall(SimPVDDestroy(&o.pvd));
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunGetSolver(SimRun r, SimSolver *solver)
{
  PetscFunctionBeginUser;
  *solver = r->solver;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunGetModel(SimRun r, SimModel *model)
{
  PetscFunctionBeginUser;
  *model = r->model;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunGetGrid(SimRun r, const SimGridProblem **grid)
{
  PetscFunctionBeginUser;
  *grid = r->grid;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRunDestroy(SimRun *run)
{
  PetscFunctionBeginUser;
  if (!run || !*run) PetscFunctionReturn(0);
  PetscCall(SimSolverDestroy(&(*run)->solver));
  PetscCall(SimModelDestroy(&(*run)->model));
  PetscCall(SimSceneDestroy(&(*run)->scene));
  PetscCall(PetscFree((*run)->grid));
  PetscCall(PetscFree(*run));
  PetscFunctionReturn(0);
}
