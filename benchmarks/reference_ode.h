/* A tight-tolerance reference solution of a small Lagrangian model by GSL odeiv2 (DESIGN §8,
 * temporal convergence, reference (b)). */
#pragma once
#include "framework/model/model.h"

/* Largest model the reference accepts: the dense RK stages cost O(nv) per stage but the tolerance
 * makes the step count grow with the stiffest mode, so this is meant for chains and pendulums. */
#define BENCH_ODE_MAX_VERTICES 1000

/* Integrates x' = v, v' = a(x, v) from (x0, v0) at t = 0 to t = T, with a the model's own
 * acceleration (SimModelAcceleration: M^-1 (-dE/dx - dD/dv), zero on pinned DOFs), by GSL's
 * explicit embedded Runge-Kutta Prince-Dormand 8(9) (gsl_odeiv2_step_rk8pd) with the standard
 * error control |err_i| <= atol + rtol |y_i|. x0, v0, xT, vT: flat arrays of 3 nv (m, m/s).
 * GSL failures come back as PETSc errors (GSL's abort handler is off during the call). */
PetscErrorCode BenchReferenceODE(SimModel model, const PetscReal x0[], const PetscReal v0[], PetscReal T, PetscReal rtol,
                                 PetscReal atol, PetscReal xT[], PetscReal vT[]);
