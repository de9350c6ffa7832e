/* Internals of the projective-dynamics solver (solvers/pd/pd.c) that its tests and benchmarks use:
 * the factorization counter and the minimization of one incremental potential from a given guess. */
#pragma once
#include "framework/solver_impl.h"
#include "problems/mesh/mesh.h"

/* Number of CHOLMOD numeric factorizations of the global matrix since the solver was created
 * (one per constraint set: a new step size or a new set of pinned vertices). s must be a "pd"
 * solver. */
PetscErrorCode SimPDGetFactorizations(SimSolver s, PetscInt *count);
/* How many of those were caused by a change of the active constraint set (colliders: at the start
 * of a step, or when an iterate violates an inactive constraint). */
PetscErrorCode SimPDGetConstraintSetChanges(SimSolver s, PetscInt *count);
/* With -pd_anderson: how many accelerated iterates the energy safeguard refused (replaced by the
 * plain PD iterate) since the solver was created; 0 without Anderson. */
PetscErrorCode SimPDGetAndersonRejections(SimSolver s, PetscInt *count);

/* Minimizes the implicit-Euler incremental potential of step h,
 *   Phi(x) = 1/(2 h^2) (x - y)^T M (x - y) + E(x),
 * by PD iterations (local projection + one global 3-right-hand-side solve) from the guess x.
 * y, x: flat arrays of 3*nv (m); x is in/out and must carry the pinned positions, which never
 * change. stats (may be NULL) is overwritten as by a step: nonlinear_its, objective[k] = Phi and
 * history[k] = ||grad Phi||_2 after k iterations (k = 0: the guess; only with -pd_monitor),
 * residual (||grad Phi||_2 with -pd_monitor, else the last relative change of x), outcome.
 * Sets the solver up on first use; refactors when h or the pins changed. */
PetscErrorCode SimPDMinimize(SimSolver s, PetscReal h, const PetscReal *y, PetscReal *x, SimStepStats *stats);
