/* The SimSolver dispatcher: creation by name, set-up once, logged steps with a finiteness check,
 * and the defaults for optional ops. Implementations only compute. */
#include "framework/solver_impl.h"

/* Finds the row, checks it advances the problem's type and runs on the problem's number of ranks,
 * and calls the constructor on a solver bound to the problem. */
PetscErrorCode SimSolverCreate(SimRegistry reg, const char *type, SimProblem problem, SimSolver *solver)
{
  const SimRegEntry *e;
  SimSolver s;
  PetscMPIInt size;
  MPI_Comm comm;
  const char *ptype;

  PetscFunctionBeginUser;
  PetscCall(SimProblemGetComm(problem, &comm));
  PetscCall(SimProblemGetType(problem, &ptype));
  PetscCall(SimRegistryFind(reg, SIM_KIND_SOLVER, type, &e));
  if (!SimRegistrySolverFits(e, ptype)) {
    char names[1024];
    PetscCall(SimRegistrySolversFor(reg, ptype, names, sizeof(names)));
    SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "Solver '%s' advances %s problems, not this %s problem. Solvers for it: %s", type, e->problem, ptype,
            names[0] ? names : "(none)");
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(size == 1 || (e->flags & SIM_REG_MPI), comm, PETSC_ERR_SUP,
             "Solver '%s' runs on one MPI rank only (this run has %d); run it without mpirun, or pick a solver marked [MPI] in `pbsim list`",
             type, (int)size);
  PetscCall(PetscNew(&s));
  PetscCall(PetscStrncpy(s->type, type, sizeof(s->type)));
  s->comm = comm;
  s->problem = problem;
  PetscCall(SimEventsGet(&s->ev));
  {
    /* a constructor that refuses its problem may have allocated its data already: free what it
     * made (its destroy op once it set one, else the data block) before passing the error on */
    PetscErrorCode ierr = ((SimSolverCreateFn)e->create)(s);
    if (ierr) {
      if (s->ops.destroy) (void)s->ops.destroy(s);
      else (void)PetscFree(s->data);
      (void)PetscFree(s);
      PetscCall(ierr);
    }
  }
  PetscCheck(s->ops.step, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Solver '%s' provides no step operation", type);
  *solver = s;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverGetProblem(SimSolver s, SimProblem *problem)
{
  PetscFunctionBeginUser;
  *problem = s->problem;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverSetFromOptions(SimSolver s)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  if (!s->ops.setfromoptions) PetscFunctionReturn(0);
  /* implementations read their options inside this block with PetscOptionsHeadBegin(PetscOptionsObject, ...) */
  PetscOptionsBegin(s->comm, NULL, "Solver options", "");
  ierr = s->ops.setfromoptions(s, PetscOptionsObject);
  PetscOptionsEnd(); /* close the block before propagating an error, or its strings leak */
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverSetUp(SimSolver s)
{
  PetscFunctionBeginUser;
  if (s->setupcalled) PetscFunctionReturn(0);
  if (s->ops.setup) PetscCall(s->ops.setup(s));
  s->setupcalled = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverIsFinite(SimSolver s, PetscBool *finite)
{
  PetscBool own = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(SimProblemIsFinite(s->problem, finite));
  if (s->ops.is_finite) PetscCall(s->ops.is_finite(s, &own));
  else if (s->ops.state) {
    Vec state;
    PetscReal nrm;
    PetscCall(s->ops.state(s, &state));
    PetscCall(VecNorm(state, NORM_INFINITY, &nrm));
    own = (PetscBool)!PetscIsInfOrNanReal(nrm);
  }
  *finite = (PetscBool)(*finite && own);
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverStep(SimSolver s, PetscReal dt, SimStepOutcome *outcome)
{
  PetscBool finite = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCheck(dt > 0 && PetscIsNormalReal(dt), s->comm, PETSC_ERR_ARG_OUTOFRANGE, "The time step must be > 0 (got dt = %g)", (double)dt);
  PetscCall(SimSolverSetUp(s));
  PetscCall(PetscMemzero(&s->stats, sizeof(s->stats)));
  PetscCall(PetscLogEventBegin(s->ev.step, 0, 0, 0, 0));
  PetscCall(SimProblemBeforeStep(s->problem, s->time, dt));
  PetscCall(s->ops.step(s, dt));
  if (!s->stats.substeps) s->stats.substeps = 1; /* solvers without internal steps leave it 0 */
  PetscCall(SimProblemAfterStep(s->problem, s->time, dt));
  PetscCall(PetscLogEventEnd(s->ev.step, 0, 0, 0, 0));
  PetscCall(SimSolverIsFinite(s, &finite));
  if (!finite && s->stats.outcome != SIM_STEP_FAILED) s->stats.outcome = SIM_STEP_NONFINITE;
  if (finite && s->stats.outcome != SIM_STEP_FAILED) { /* rules of the problem beyond finiteness (contact) */
    char why[200];
    PetscCall(SimProblemAdmissible(s->problem, why, sizeof(why)));
    if (why[0]) {
      s->stats.outcome = SIM_STEP_FAILED;
      PetscCall(PetscSNPrintf(s->stats.reason, sizeof(s->stats.reason), "the new state is not admissible (%s); try a smaller -dt", why));
    }
  }
  s->time += dt;
  s->step++;
  if (outcome) *outcome = s->stats.outcome;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverEnergy(SimSolver s, SimEnergyReport *rep)
{
  PetscBool has = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(rep, sizeof(*rep)));
  if (s->ops.energy) PetscCall(s->ops.energy(s, rep));
  else PetscCall(SimProblemReport(s->problem, rep, &has));
  PetscCheck(s->ops.energy || has, s->comm, PETSC_ERR_SUP, "Neither solver '%s' nor its problem reports an energy", s->type);
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverGetStats(SimSolver s, const SimStepStats **stats)
{
  PetscFunctionBeginUser;
  *stats = &s->stats;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverGetTime(SimSolver s, PetscReal *t, PetscInt *step)
{
  PetscFunctionBeginUser;
  if (t) *t = s->time;
  if (step) *step = s->step;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverGetType(SimSolver s, const char **type)
{
  PetscFunctionBeginUser;
  *type = s->type;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverView(SimSolver s, PetscViewer viewer)
{
  char summary[256];

  PetscFunctionBeginUser;
  PetscCall(SimProblemSummary(s->problem, summary, sizeof(summary)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "SimSolver %s: %s\n", s->type, summary));
  if (s->ops.view) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(s->ops.view(s, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverFigures(SimSolver s, PetscInt *n, const char *names[], PetscReal values[])
{
  PetscFunctionBeginUser;
  *n = 0;
  if (s->ops.figures) PetscCall(s->ops.figures(s, n, names, values));
  PetscCheck(*n >= 0 && *n <= SIM_MAX_FIGURES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Solver '%s' reported %" PetscInt_FMT " figures (at most %d)",
             s->type, *n, SIM_MAX_FIGURES);
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverGetSeries(SimSolver s, const char *name, PetscInt *n, const PetscReal **values)
{
  PetscFunctionBeginUser;
  *n = 0;
  *values = NULL;
  if (s->ops.series) PetscCall(s->ops.series(s, name, n, values));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverWriteFrame(SimSolver s, const char *path, PetscBool *written)
{
  PetscFunctionBeginUser;
  if (s->ops.write_frame) {
    PetscCall(s->ops.write_frame(s, path));
    *written = PETSC_TRUE;
  } else PetscCall(SimProblemWriteFrame(s->problem, path, written));
  PetscFunctionReturn(0);
}

/* A solver that writes its own frames (a grid solver) writes its own XDMF or none. path NULL: only
 * whether it would. */
PetscErrorCode SimSolverWriteXDMF(SimSolver s, const char *path, PetscBool *written)
{
  PetscFunctionBeginUser;
  *written = PETSC_FALSE;
  if (s->ops.write_xdmf) {
    if (path) PetscCall(s->ops.write_xdmf(s, path));
    *written = PETSC_TRUE;
  } else if (!s->ops.write_frame) PetscCall(SimProblemWriteXDMF(s->problem, path, written));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverWriteImage(SimSolver s, const char *caption, const char *path, PetscBool *written)
{
  PetscFunctionBeginUser;
  if (s->ops.write_image) {
    PetscCall(s->ops.write_image(s, caption, path));
    *written = PETSC_TRUE;
  } else PetscCall(SimProblemWriteImage(s->problem, caption, path, written));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverGetState(SimSolver s, Vec *state)
{
  PetscFunctionBeginUser;
  if (s->ops.state) PetscCall(s->ops.state(s, state));
  else PetscCall(SimProblemGetState(s->problem, state));
  PetscCheck(*state, s->comm, PETSC_ERR_SUP, "Neither solver '%s' nor its problem holds a state vector", s->type);
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverStash(SimSolver s, PetscBool restore)
{
  PetscFunctionBeginUser;
  PetscCall(SimProblemStash(s->problem, restore));
  if (s->ops.stash) PetscCall(s->ops.stash(s, restore));
  PetscFunctionReturn(0);
}

/* The checkpoint layout: a header (magic, problem type, solver type, time, step), the problem's
 * part, the solver's part. Strings are fixed-size char records so the reader can check them. */
static const char checkpoint_magic[32] = "pbsim checkpoint v1";

PetscErrorCode SimSolverSave(SimSolver s, PetscViewer viewer)
{
  char rec[3][64] = {{0}};
  const char *ptype;

  PetscFunctionBeginUser;
  PetscCall(SimSolverSetUp(s));
  PetscCall(SimProblemGetType(s->problem, &ptype));
  PetscCall(PetscStrncpy(rec[0], checkpoint_magic, sizeof(rec[0])));
  PetscCall(PetscStrncpy(rec[1], ptype, sizeof(rec[1])));
  PetscCall(PetscStrncpy(rec[2], s->type, sizeof(rec[2])));
  PetscCall(PetscViewerBinaryWrite(viewer, rec, sizeof(rec), PETSC_CHAR));
  PetscCall(PetscViewerBinaryWrite(viewer, &s->time, 1, PETSC_REAL));
  PetscCall(PetscViewerBinaryWrite(viewer, &s->step, 1, PETSC_INT));
  PetscCall(SimProblemSave(s->problem, viewer));
  if (s->ops.save) PetscCall(s->ops.save(s, viewer));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverLoad(SimSolver s, PetscViewer viewer)
{
  char rec[3][64];
  const char *ptype;

  PetscFunctionBeginUser;
  PetscCall(SimSolverSetUp(s));
  PetscCall(SimProblemGetType(s->problem, &ptype));
  PetscCall(PetscViewerBinaryRead(viewer, rec, sizeof(rec), NULL, PETSC_CHAR));
  rec[0][63] = rec[1][63] = rec[2][63] = 0;
  PetscCheck(!strcmp(rec[0], checkpoint_magic), s->comm, PETSC_ERR_FILE_UNEXPECTED, "Not a pbsim checkpoint (its header is not '%s')", checkpoint_magic);
  PetscCheck(!strcmp(rec[1], ptype) && !strcmp(rec[2], s->type), s->comm, PETSC_ERR_ARG_INCOMP,
             "The checkpoint holds a %s problem advanced by solver '%s'; this run has a %s problem and solver '%s' (restart with the "
             "same scene, solver and options)", rec[1], rec[2], ptype, s->type);
  PetscCall(PetscViewerBinaryRead(viewer, &s->time, 1, NULL, PETSC_REAL));
  PetscCall(PetscViewerBinaryRead(viewer, &s->step, 1, NULL, PETSC_INT));
  PetscCall(SimProblemLoad(s->problem, viewer));
  if (s->ops.load) PetscCall(s->ops.load(s, viewer));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverDestroy(SimSolver *solver)
{
  PetscFunctionBeginUser;
  if (!solver || !*solver) PetscFunctionReturn(0);
  if ((*solver)->ops.destroy) PetscCall((*solver)->ops.destroy(*solver));
  PetscCall(PetscFree(*solver));
  PetscFunctionReturn(0);
}
