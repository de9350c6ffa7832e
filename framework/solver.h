/* SimSolver: the common step interface every method implements (DESIGN §2). */
#pragma once
#include <petscsys.h>
#include "framework/registry.h"
#include "framework/grid.h"
#include "framework/figures.h"
#include "framework/model/model.h"

typedef struct _p_SimSolver *SimSolver;

/* What one step did; recoverable outcomes are not errors (the run decides what to do). */
typedef enum {
  SIM_STEP_OK = 0,
  SIM_STEP_NOT_CONVERGED, /* an inner solve hit its iteration limit; state is the last iterate */
  SIM_STEP_NONFINITE,     /* the new state has NaN/Inf: it must not be used */
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
  /* Optional, filled by solvers that can (pd): elapsed_ms[k] = wall time of the step's solve up to
   * iteration k (0 for solvers that do not record it; excludes monitoring evaluations), and the
   * reference minimum Phi* of the step's objective (pd with -pd_reference_newton: by Newton). */
  PetscReal elapsed_ms[SIM_MAX_HISTORY];
  PetscBool has_reference;
  PetscReal reference_objective;
} SimStepStats;

/* Constructor signature a solver registration carries (SIM_KIND_SOLVER). */
typedef PetscErrorCode (*SimSolverCreateFn)(SimSolver);

/* Public API. Create by registered name on a model (the solver does not own the model). */
PetscErrorCode SimSolverCreate(SimRegistry reg, const char *type, SimModel model, SimSolver *solver);
/* Create a grid solver (registered with SIM_REG_GRID) on a grid problem, on `comm`; the problem
 * must outlive the solver. A model solver here, or a grid solver in SimSolverCreate, is an error
 * naming the solvers that fit. */
PetscErrorCode SimSolverCreateOnGrid(SimRegistry reg, const char *type, MPI_Comm comm, const SimGridProblem *problem, SimSolver *solver);
PetscErrorCode SimSolverSetFromOptions(SimSolver solver);
PetscErrorCode SimSolverSetUp(SimSolver solver);
/* Advances by dt > 0. Sets up on first call, logs the SimStep event, checks the new state is
 * finite. Returns the outcome in *outcome (NULL allowed); errors are reserved for bad input
 * and library failures. */
PetscErrorCode SimSolverStep(SimSolver solver, PetscReal dt, SimStepOutcome *outcome);
PetscErrorCode SimSolverEnergy(SimSolver solver, SimEnergyReport *rep);
PetscErrorCode SimSolverGetStats(SimSolver solver, const SimStepStats **stats);
PetscErrorCode SimSolverGetTime(SimSolver solver, PetscReal *t, PetscInt *step);
PetscErrorCode SimSolverGetType(SimSolver solver, const char **type);
PetscErrorCode SimSolverView(SimSolver solver, PetscViewer viewer);
/* The solver's named per-step figures (at most SIM_MAX_FIGURES; *n = 0 when it has none). The
 * names stay valid while the solver lives. */
PetscErrorCode SimSolverFigures(SimSolver solver, PetscInt *n, const char *names[], PetscReal values[]);
/* Output of solvers that own their state (grid solvers): a ParaView frame at path, a PNG at path
 * with a caption. *written is PETSC_FALSE when the solver has no such output. Collective. */
PetscErrorCode SimSolverWriteFrame(SimSolver solver, const char *path, PetscBool *written);
PetscErrorCode SimSolverWriteImage(SimSolver solver, const char *caption, const char *path, PetscBool *written);
/* The state as one Vec (not a copy; do not destroy): the model's x for model solvers, the
 * solver's own (e.g. the face velocities) for grid solvers. */
PetscErrorCode SimSolverGetState(SimSolver solver, Vec *state);
PetscErrorCode SimSolverDestroy(SimSolver *solver); /* accepts NULL */
