/* SimSolver: the common step interface every method implements (DESIGN §2). */
#pragma once
#include <petscsys.h>
#include "framework/registry.h"
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
PetscErrorCode SimSolverDestroy(SimSolver *solver); /* accepts NULL */
