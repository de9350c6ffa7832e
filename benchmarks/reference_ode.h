/* A tight-tolerance reference solution of a small Lagrangian model by GSL odeiv2 (DESIGN §8,
 * temporal convergence, reference (b)), with the scene's scripted pins, and a cache that computes it
 * once per case. */
#pragma once
#include "framework/model/model.h"

/* Largest model the reference accepts: the dense RK stages cost O(nv) per stage but the tolerance
 * makes the step count grow with the stiffest mode, so this is meant for chains, pendulums and
 * small cloths and FEM bodies. */
#define BENCH_ODE_MAX_VERTICES 1000

/* Integrates x' = v, v' = a(x, v) from (x0, v0) at t = 0 and returns the states at the sample times
 * t_k = k T / nsamples, k = 0..nsamples (xs, vs: (nsamples + 1) x 3 nv, m and m/s), with a the model's
 * own acceleration (SimModelAcceleration: M^-1 (-dE/dx - dD/dv), zero on pinned DOFs), by GSL's
 * explicit embedded Runge-Kutta Prince-Dormand 8(9) (gsl_odeiv2_step_rk8pd) with the standard error
 * control |err_i| <= atol + rtol |y_i|. Scripted (kinematic) pins are part of the problem: the
 * pinned vertices are at model->kinematic(t) in every evaluation of a, with the velocity of that
 * motion (central difference) for damping terms, and so in the returned states. GSL failures come
 * back as PETSc errors (GSL's abort handler is off during the call). */
PetscErrorCode BenchReferenceTrajectory(SimModel model, const PetscReal x0[], const PetscReal v0[], PetscReal T, PetscInt nsamples,
                                        PetscReal rtol, PetscReal atol, PetscReal xs[], PetscReal vs[]);
/* The state at T alone (nsamples = 1; xT, vT: 3 nv). */
PetscErrorCode BenchReferenceODE(SimModel model, const PetscReal x0[], const PetscReal v0[], PetscReal T, PetscReal rtol,
                                 PetscReal atol, PetscReal xT[], PetscReal vT[]);

/* References computed once per case: BenchRefCacheGet returns the trajectory of `model` from its
 * current state (its initial state: call it at step 0) for (key, T, nsamples, rtol, atol), computing it
 * on the first request and reusing it while the key and the initial state (positions, velocities,
 * masses) match; a different initial state under the same key replaces the entry. The key names the
 * model: the harness uses the point's options without the solver sweep (BenchCasePointModelKey), so
 * the integrators of one case share one reference. xs, vs point into the cache ((nsamples + 1) x 3 nv)
 * and stay valid until the cache is destroyed. */
typedef struct _p_BenchRefCache *BenchRefCache;
PetscErrorCode BenchRefCacheCreate(BenchRefCache *cache);
PetscErrorCode BenchRefCacheDestroy(BenchRefCache *cache); /* accepts NULL */
PetscErrorCode BenchRefCacheGet(BenchRefCache cache, const char *key, SimModel model, PetscReal T, PetscInt nsamples, PetscReal rtol,
                                PetscReal atol, const PetscReal **xs, const PetscReal **vs);
/* How many references the cache has computed (the harness reports it; a test checks it is one per
 * model). */
PetscInt BenchRefCacheComputed(BenchRefCache cache);
