/* Private side of SimSolver: the ops table and the object, for solver implementations only. */
#pragma once
#include "framework/solver.h"
#include "framework/events.h"

/* Ops. Required: step. Optional with a default in the dispatcher: energy (model report),
 * setfromoptions, setup, view, destroy. */
typedef struct {
  PetscErrorCode (*setfromoptions)(SimSolver, PetscOptionItems *);
  PetscErrorCode (*setup)(SimSolver);
  /* Advance model->x, model->v by dt; fill solver->stats (outcome, iterations, residuals). */
  PetscErrorCode (*step)(SimSolver, PetscReal dt);
  PetscErrorCode (*energy)(SimSolver, SimEnergyReport *);
  PetscErrorCode (*view)(SimSolver, PetscViewer);
  PetscErrorCode (*destroy)(SimSolver);
} SimSolverOps;

struct _p_SimSolver {
  char type[64];
  MPI_Comm comm;
  SimModel model; /* the Lagrangian model it advances (not owned) */
  SimSolverOps ops;
  void *data;     /* implementation data */
  SimEvents ev;
  PetscBool setupcalled;
  PetscReal time;
  PetscInt step;
  SimStepStats stats;
};
