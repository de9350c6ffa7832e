/* The SimSolver dispatcher: creation by name, set-up once, logged steps with a finiteness check,
 * and the defaults for optional ops. Implementations only compute. */
#include "framework/solver_impl.h"

/* Finds the row, checks it suits the problem (grid or model) and the number of ranks, and calls
 * the constructor on a solver bound to `model` or `grid`. */
static PetscErrorCode Create_Solver(SimRegistry reg, const char *type, MPI_Comm comm, SimModel model, const SimGridProblem *grid,
                                    SimSolver *solver)
{
  const SimRegEntry *e;
  SimSolver s;
  PetscMPIInt size;
  PetscBool isgrid = grid ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryFind(reg, SIM_KIND_SOLVER, type, &e));
  if (!(e->flags & SIM_REG_GRID) != !isgrid) {
    char names[1024];
    PetscCall(SimRegistryNamesWithFlag(reg, SIM_KIND_SOLVER, SIM_REG_GRID, isgrid, names, sizeof(names)));
    SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "Solver '%s' solves %s, but this is a %s. Solvers for it: %s", type,
            isgrid ? "Lagrangian models" : "grid problems", isgrid ? "grid problem" : "Lagrangian model", names[0] ? names : "(none)");
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(size == 1 || (e->flags & SIM_REG_MPI), comm, PETSC_ERR_SUP,
             "Solver '%s' runs on one MPI rank only (this run has %d); run it without mpirun, or pick a solver marked [MPI] in `pbsim list`",
             type, (int)size);
  PetscCall(PetscNew(&s));
  PetscCall(PetscStrncpy(s->type, type, sizeof(s->type)));
  s->comm = comm;
  s->model = model;
  s->grid = grid;
  PetscCall(SimEventsGet(&s->ev));
  PetscCall(((SimSolverCreateFn)e->create)(s));
  PetscCheck(s->ops.step, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Solver '%s' provides no step operation", type);
  PetscCheck(!grid || (s->ops.energy && s->ops.state), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Grid solver '%s' must provide the energy and state operations", type);
  *solver = s;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate(SimRegistry reg, const char *type, SimModel model, SimSolver *solver)
{
  PetscFunctionBeginUser;
  PetscCall(Create_Solver(reg, type, model->comm, model, NULL, solver));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreateOnGrid(SimRegistry reg, const char *type, MPI_Comm comm, const SimGridProblem *problem, SimSolver *solver)
{
  PetscFunctionBeginUser;
  PetscCall(Create_Solver(reg, type, comm, NULL, problem, solver));
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

static PetscErrorCode StateIsFinite(SimSolver s, PetscBool *finite)
{
  PetscReal nx, nv = 0;

  PetscFunctionBeginUser;
  if (s->model) {
    PetscCall(VecNorm(s->model->x, NORM_INFINITY, &nx));
    PetscCall(VecNorm(s->model->v, NORM_INFINITY, &nv));
  } else {
    Vec state;
    PetscCall(s->ops.state(s, &state));
    PetscCall(VecNorm(state, NORM_INFINITY, &nx));
  }
  *finite = (PetscBool)(!PetscIsInfOrNanReal(nx) && !PetscIsInfOrNanReal(nv));
  PetscFunctionReturn(0);
}

/* Kinematic pins, before the step: the pinned vertices jump to their scripted positions at
 * t + dt with zero velocity, so every integrator treats them as fixed during the step. */
static PetscErrorCode KinematicBefore(SimSolver s, PetscReal dt, PetscReal *xold)
{
  SimModel m = s->model;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  PetscCall(PetscArraycpy(xold, x, 3 * m->nv));
  PetscCall(m->kinematic(m->kinematic_ctx, s->time + dt, x));
  for (PetscInt i = 0; i < m->nv; i++)
    if (m->pinned[i]) v[3 * i] = v[3 * i + 1] = v[3 * i + 2] = 0;
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArray(m->x, &x));
  PetscFunctionReturn(0);
}

/* After the step: the pinned vertices carry the velocity of their scripted motion (for energy
 * and momentum reports and damping at the next step). */
static PetscErrorCode KinematicAfter(SimSolver s, PetscReal dt, const PetscReal *xold)
{
  SimModel m = s->model;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  for (PetscInt i = 0; i < m->nv; i++)
    if (m->pinned[i])
      for (int d = 0; d < 3; d++) v[3 * i + d] = (x[3 * i + d] - xold[3 * i + d]) / dt;
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArray(m->x, &x));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverStep(SimSolver s, PetscReal dt, SimStepOutcome *outcome)
{
  PetscBool finite = PETSC_FALSE;
  PetscReal *xold = NULL;

  PetscFunctionBeginUser;
  PetscCheck(dt > 0 && PetscIsNormalReal(dt), s->comm, PETSC_ERR_ARG_OUTOFRANGE, "The time step must be > 0 (got dt = %g)", (double)dt);
  PetscCall(SimSolverSetUp(s));
  PetscCall(PetscMemzero(&s->stats, sizeof(s->stats)));
  PetscCall(PetscLogEventBegin(s->ev.step, 0, 0, 0, 0));
  if (s->model && s->model->kinematic) {
    PetscCall(PetscMalloc1(3 * s->model->nv, &xold));
    PetscCall(KinematicBefore(s, dt, xold));
  }
  PetscCall(s->ops.step(s, dt));
  if (!s->stats.substeps) s->stats.substeps = 1; /* solvers without internal steps leave it 0 */
  if (xold) PetscCall(KinematicAfter(s, dt, xold));
  PetscCall(PetscFree(xold));
  PetscCall(PetscLogEventEnd(s->ev.step, 0, 0, 0, 0));
  PetscCall(StateIsFinite(s, &finite));
  if (!finite) s->stats.outcome = SIM_STEP_NONFINITE;
  s->time += dt;
  s->step++;
  if (outcome) *outcome = s->stats.outcome;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverEnergy(SimSolver s, SimEnergyReport *rep)
{
  PetscFunctionBeginUser;
  if (s->ops.energy) PetscCall(s->ops.energy(s, rep));
  else PetscCall(SimModelReport(s->model, s->model->x, s->model->v, rep));
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
  PetscFunctionBeginUser;
  if (s->model)
    PetscCall(PetscViewerASCIIPrintf(viewer, "SimSolver %s: %" PetscInt_FMT " vertices, %" PetscInt_FMT " pinned, %" PetscInt_FMT " energy terms\n",
                                     s->type, s->model->nv, s->model->npinned, s->model->nterms));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "SimSolver %s: %" PetscInt_FMT "D grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells\n",
                                     s->type, s->grid->dim, s->grid->n[0], s->grid->n[1], s->grid->n[2]));
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

PetscErrorCode SimSolverWriteFrame(SimSolver s, const char *path, PetscBool *written)
{
  PetscFunctionBeginUser;
  *written = s->ops.write_frame ? PETSC_TRUE : PETSC_FALSE;
  if (s->ops.write_frame) PetscCall(s->ops.write_frame(s, path));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverWriteImage(SimSolver s, const char *caption, const char *path, PetscBool *written)
{
  PetscFunctionBeginUser;
  *written = s->ops.write_image ? PETSC_TRUE : PETSC_FALSE;
  if (s->ops.write_image) PetscCall(s->ops.write_image(s, caption, path));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverGetState(SimSolver s, Vec *state)
{
  PetscFunctionBeginUser;
  if (s->ops.state) PetscCall(s->ops.state(s, state));
  else *state = s->model->x;
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
