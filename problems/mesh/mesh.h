/* The "mesh" problem type: the Lagrangian model (framework/model/model.h) as a SimProblem, for
 * every solver that advances vertices with masses and energy terms (the explicit and implicit
 * integrators, ts, pd). Its state is x and v, replicated on every rank. */
#pragma once
#include "framework/problem.h"
#include "framework/model/model.h"

/* Constructor of the registration (problems/register.c). */
PetscErrorCode SimProblemCreate_Mesh(SimProblem problem);
/* The model of a mesh problem (borrowed: the problem owns it); an error for any other type. */
PetscErrorCode SimMeshProblemGetModel(SimProblem problem, SimModel *model);
/* The same for the hot paths of mesh solvers, whose registration ("mesh") guarantees the type:
 * the model, or NULL for a problem of another type. */
SimModel SimMeshModel(SimProblem problem);
/* The colliders a scene adds when -colliders is not given (e.g. "plane"; "-colliders none" turns
 * them off). Call from the scene's build. */
PetscErrorCode SimMeshProblemSetDefaultColliders(SimProblem problem, const char *names);
/* A mesh problem around a model built by hand (tests, scripts): the problem borrows the model
 * (the caller destroys it after the problem) and sets it up (it must be finalized already). */
PetscErrorCode SimMeshProblemCreateFromModel(SimRegistry reg, SimModel model, SimProblem *problem);
