/* Internal access to the "ts" solver's PETSc TS, for tests and diagnostics (not a public API). */
#pragma once
#include <petscts.h>
#include "framework/solver.h"

/* The TS that the "ts" solver drives (set up on return, so TSComputeRHSFunction and
 * TSComputeRHSJacobian work on a state Vec u = [x; v] of size 6*nv). The solver keeps ownership.
 * An error if `solver` is not a "ts" solver. */
PetscErrorCode SimSolverTSGetTS(SimSolver solver, TS *ts);

/* Internal TS steps of the last SimSolverStep: accepted (>= 1 for a completed step) and
 * rejected by the error controller or after a failed nonlinear solve. Either pointer may be NULL. */
PetscErrorCode SimSolverTSGetSubsteps(SimSolver solver, PetscInt *accepted, PetscInt *rejected);
