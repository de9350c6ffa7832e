/* The "grid" problem type: an Eulerian box described analytically (framework/grid.h: domain,
 * faces, initial and boundary fields) for grid solvers (stablefluids). The solver samples the
 * description and keeps the fields it advances itself (it provides the state, energy, output and
 * checkpoint ops for them, framework/solver_impl.h). */
#pragma once
#include "framework/problem.h"
#include "framework/grid.h"

/* Constructor of the registration (problems/register.c). */
PetscErrorCode SimProblemCreate_Grid(SimProblem problem);
/* The description of a grid problem (borrowed; starts from SimGridProblemSetDefaults): a scene
 * fills it in its build, a solver reads it; an error for any other type. */
PetscErrorCode SimGridProblemGetDescription(SimProblem problem, SimGridProblem **desc);
/* A grid problem from a description filled by hand (tests): copied, checked, set up. */
PetscErrorCode SimGridProblemCreateFromDescription(SimRegistry reg, MPI_Comm comm, const SimGridProblem *desc, const char *name,
                                                   SimProblem *problem);
