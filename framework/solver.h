/* SimSolver: the common step interface every method implements (DESIGN §2). */
#pragma once
#include <petscsys.h>
#include "framework/registry.h"
#include "framework/figures.h"
#include "framework/problem.h"

typedef struct _p_SimSolver *SimSolver;

/* What one step did; recoverable outcomes are not errors (the run decides what to do). */
typedef enum {
  SIM_STEP_OK = 0,
  SIM_STEP_NOT_CONVERGED, /* an inner solve hit its iteration limit; state is the last iterate */
  SIM_STEP_NONFINITE,     /* the new state has NaN/Inf: it must not be used */
  SIM_STEP_FAILED,        /* the step cannot go on from this input (a particle left the box, an inverted
                             cell, dt above the method's stability limit): stats.reason says what and
                             what to change, the same on every rank; the new state must not be used */
} SimStepOutcome;

/* Per-step statistics (the CSV log and the benchmark harness read these). */
#define SIM_MAX_HISTORY 256
typedef struct {
  SimStepOutcome outcome;
  PetscInt nonlinear_its;   /* Newton iterations (0 for explicit methods) */
  PetscInt linear_its;      /* linear solver iterations summed over the step */
  PetscInt linesearch_cuts; /* backtracking halvings summed over the step */
  PetscReal residual;       /* final nonlinear residual (gradient norm), 0 if none */
  PetscInt nhistory;        /* residual after each nonlinear iteration (history[0]: initial) */
  PetscReal history[SIM_MAX_HISTORY];
  PetscReal objective[SIM_MAX_HISTORY]; /* objective (e.g. incremental potential) per iteration */
  PetscInt substeps;        /* internal steps taken (adaptive methods; 1 otherwise) */
  PetscInt rejected;        /* internal steps rejected by error control */
  PetscInt pattern_changes; /* times the Hessian's sparsity changed (contact sets): re-preallocated and
                               refactored symbolically */
  char reason[256];         /* SIM_STEP_FAILED: the message naming what failed and what to change */
} SimStepStats;
/* What only some solvers record per step is not a field here but a named series the solver
 * offers (SimSolverGetSeries), e.g. pd's "elapsed_ms" and "reference_objective". */

/* Constructor signature a solver registration carries (SIM_KIND_SOLVER). */
typedef PetscErrorCode (*SimSolverCreateFn)(SimSolver);

/* Public API. Creates the solver registered as `type` on a problem (which must outlive it; the
 * solver does not own it). A solver whose registration does not list the problem's type is an
 * error naming the solvers that fit; so is one that cannot run on the problem's number of ranks. */
PetscErrorCode SimSolverCreate(SimRegistry reg, const char *type, SimProblem problem, SimSolver *solver);
PetscErrorCode SimSolverGetProblem(SimSolver solver, SimProblem *problem);
PetscErrorCode SimSolverSetFromOptions(SimSolver solver);
PetscErrorCode SimSolverSetUp(SimSolver solver);
/* Advances by dt > 0. Sets up on first call, logs the SimStep event, checks the new state is
 * finite. Returns the outcome in *outcome (NULL allowed); errors are reserved for bad input
 * and library failures. */
PetscErrorCode SimSolverStep(SimSolver solver, PetscReal dt, SimStepOutcome *outcome);
/* Energy and momentum: the solver's own report where it keeps the state (a grid solver), else
 * the problem's. */
PetscErrorCode SimSolverEnergy(SimSolver solver, SimEnergyReport *rep);
PetscErrorCode SimSolverGetStats(SimSolver solver, const SimStepStats **stats);
PetscErrorCode SimSolverGetTime(SimSolver solver, PetscReal *t, PetscInt *step);
PetscErrorCode SimSolverGetType(SimSolver solver, const char **type);
PetscErrorCode SimSolverView(SimSolver solver, PetscViewer viewer);
/* The solver's named per-step figures (at most SIM_MAX_FIGURES; *n = 0 when it has none). The
 * names stay valid while the solver lives. */
PetscErrorCode SimSolverFigures(SimSolver solver, PetscInt *n, const char *names[], PetscReal values[]);
/* A named per-step series the solver records beyond SimStepStats (e.g. pd: "elapsed_ms", the
 * wall time of the step's solve up to each iteration; "reference_objective", Newton's minimum of
 * the step's objective). *n = 0 when it records none of that name. Valid until the next step. */
PetscErrorCode SimSolverGetSeries(SimSolver solver, const char *name, PetscInt *n, const PetscReal **values);
/* Output: a ParaView frame at path, a PNG at path with a caption, by the solver where it keeps
 * the state, else by the problem. *written is PETSC_FALSE when neither has such output. Collective. */
PetscErrorCode SimSolverWriteFrame(SimSolver solver, const char *path, PetscBool *written);
/* The same frame as XDMF + HDF5 (path: the .xmf; -output_format xdmf), written collectively; path
 * NULL writes nothing and only tells in *written whether the solver or its problem has XDMF output. */
PetscErrorCode SimSolverWriteXDMF(SimSolver solver, const char *path, PetscBool *written);
PetscErrorCode SimSolverWriteImage(SimSolver solver, const char *caption, const char *path, PetscBool *written);
/* The state as one Vec (not a copy; do not destroy): the solver's own where it keeps one (e.g. the
 * face velocities of a grid solver), else the problem's (e.g. the mesh positions). */
PetscErrorCode SimSolverGetState(SimSolver solver, Vec *state);
/* Whether the state (the problem's and the solver's) is finite. Collective. */
PetscErrorCode SimSolverIsFinite(SimSolver solver, PetscBool *finite);
/* The last good state: keeps a copy of the problem's and the solver's state (restore = FALSE) or
 * puts it back (TRUE), e.g. to write it after a step blew up. */
PetscErrorCode SimSolverStash(SimSolver solver, PetscBool restore);
/* Checkpoint and restart: writes the time, the step, the problem's state and the solver's history
 * (e.g. BDF2's previous step, Newton's lagged preconditioner) to a binary viewer / reads them back
 * into a solver set up on the same scene and options, so that the run continues bit for bit. */
PetscErrorCode SimSolverSave(SimSolver solver, PetscViewer viewer);
PetscErrorCode SimSolverLoad(SimSolver solver, PetscViewer viewer);
PetscErrorCode SimSolverDestroy(SimSolver *solver); /* accepts NULL */
