/* Private side of SimSolver: the ops table and the object, for solver implementations only. */
#pragma once
#include "framework/solver.h"
#include "framework/events.h"

/* Ops. Required: step; for grid solvers also energy and state. Optional with a default in the
 * dispatcher: energy (model report), setfromoptions, setup, view, destroy, state (model->x);
 * optional: figures, write_frame, write_image (see solver.h). */
typedef struct {
  PetscErrorCode (*setfromoptions)(SimSolver, PetscOptionItems *);
  PetscErrorCode (*setup)(SimSolver);
  /* Advance model->x, model->v by dt; fill solver->stats (outcome, iterations, residuals). */
  PetscErrorCode (*step)(SimSolver, PetscReal dt);
  PetscErrorCode (*energy)(SimSolver, SimEnergyReport *);
  PetscErrorCode (*view)(SimSolver, PetscViewer);
  PetscErrorCode (*destroy)(SimSolver);
  PetscErrorCode (*state)(SimSolver, Vec *);
  PetscErrorCode (*figures)(SimSolver, PetscInt *n, const char *names[], PetscReal values[]);
  PetscErrorCode (*write_frame)(SimSolver, const char *path);
  PetscErrorCode (*write_image)(SimSolver, const char *caption, const char *path);
} SimSolverOps;

struct _p_SimSolver {
  char type[64];
  MPI_Comm comm;
  SimModel model; /* the Lagrangian model it advances (not owned); NULL for a grid solver */
  const SimGridProblem *grid; /* the grid problem it solves (not owned); NULL for a model solver */
  SimSolverOps ops;
  void *data;     /* implementation data */
  SimEvents ev;
  PetscBool setupcalled;
  PetscReal time;
  PetscInt step;
  SimStepStats stats;
};
