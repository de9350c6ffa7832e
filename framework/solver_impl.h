/* Private side of SimSolver: the ops table and the object, for solver implementations only. */
#pragma once
#include "framework/solver.h"
#include "framework/events.h"

/* Ops. Required: step. Optional: setfromoptions, setup, view, destroy, figures, series.
 * A solver that keeps state the problem does not hold (a grid solver's fields) provides state,
 * energy, write_frame, write_image, is_finite, stash, save and load for that state; each front-end
 * call composes the problem's part and the solver's (solver.h). A solver whose history matters for
 * the next step (BDF2's previous state, a lagged factorization) provides save and load for it. */
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
  PetscErrorCode (*is_finite)(SimSolver, PetscBool *);
  PetscErrorCode (*stash)(SimSolver, PetscBool restore);
  PetscErrorCode (*save)(SimSolver, PetscViewer);
  PetscErrorCode (*load)(SimSolver, PetscViewer);
  PetscErrorCode (*series)(SimSolver, const char *name, PetscInt *n, const PetscReal **values);
  PetscErrorCode (*write_xdmf)(SimSolver, const char *path); /* with write_frame: the same frame as XDMF + HDF5 */
} SimSolverOps;

struct _p_SimSolver {
  char type[64];
  MPI_Comm comm;
  SimProblem problem; /* what it advances (not owned); implementations reach their kind's data
                         through the problem type's header, e.g. SimMeshProblemGetModel */
  SimSolverOps ops;
  void *data;     /* implementation data */
  SimEvents ev;
  PetscBool setupcalled;
  PetscReal time;
  PetscInt step;
  SimStepStats stats;
};
