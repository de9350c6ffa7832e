/* Helpers shared by the Check unit tests. Each test file defines test_suite(). */
#pragma once
#include <check.h>
#include <petscsys.h>
#include "framework/registry.h"
#include "framework/scene.h"
#include "framework/solver.h"
#include "problems/mesh/mesh.h"
#include "problems/grid/grid.h"

Suite *test_suite(void);

/* A PETSc call inside a test: any error fails the test with the call's text. */
#define CHECK_PETSC(call) ck_assert_msg((call) == 0, "PETSc error in %s", #call)

/* A registry with every built-in implementation (the same tables the CLI uses). */
PetscErrorCode TestRegistryCreate(SimRegistry *reg);

/* Replaces the options database content for one test: clears it and inserts `opts`
 * (a command-line style string, e.g. "-dt 0.01 -cloth_n 8"). */
PetscErrorCode TestSetOptions(const char *opts);

/* A scene, its problem and (optionally, solver != NULL) a solver, built from an options string
 * (which replaces the options database, as TestSetOptions). model is the problem's model for a
 * mesh scene (borrowed), NULL otherwise. */
typedef struct {
  SimRegistry reg;
  SimScene scene;
  SimProblem problem;
  SimModel model;
  SimSolver solver;
} TestSim;
PetscErrorCode TestSimCreate(const char *scene, const char *solver, const char *opts, TestSim *t);
/* The same on a communicator (TestSimCreate: PETSC_COMM_SELF), e.g. PETSC_COMM_WORLD under mpirun. */
PetscErrorCode TestSimCreateOnComm(MPI_Comm comm, const char *scene, const char *solver, const char *opts, TestSim *t);
PetscErrorCode TestSimDestroy(TestSim *t);

/* An error handler that records the first error message (push it with the capture as context),
 * so a test can check what a message names. */
typedef struct {
  char msg[1024];
} TestErrorCapture;
PetscErrorCode TestCaptureError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p,
                                const char *mess, void *ctx);

/* Builds `scene` from `opts`, creates `solver` on it and runs its SetFromOptions, then (setup true)
 * its SetUp, with TestCaptureError pushed: *ierr is the first failure (0: none) and cap its message.
 * For the bad-input tests of a solver. */
PetscErrorCode TestSolverError(const char *scene, const char *solver, const char *opts, PetscBool setup, PetscErrorCode *ierr, TestErrorCapture *cap);

/* The solver's figure `name` (SimSolverFigures) in *value; an error if it has none of that name. */
PetscErrorCode TestSolverFigure(SimSolver s, const char *name, PetscReal *value);
