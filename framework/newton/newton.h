/* SimNewton: the one projected-Newton minimizer (with backtracking line search) that every
 * implicit integrator and the Newton FEM solver use to minimize an incremental potential. */
#pragma once
#include <petscksp.h>
#include "framework/model/model.h"
#include "framework/solver.h"

typedef struct _p_SimNewton *SimNewton;

/* The objective. For an effective step beta > 0 (seconds), an inertial target y, a dissipation
 * reference X (the velocity is v(x) = (x - X) / beta) and lagged positions xd at which the
 * dissipation terms take their directions (all flat arrays of 3*nv, metres):
 *
 *   Phi(x)  = 1/(2 beta^2) (x - y)^T M (x - y) + E(x) + beta D(xd, v(x))            [J]
 *   grad    = M (x - y) / beta^2 + dE/dx(x) + dD/dv(xd, v(x))                        [N]
 *   Hessian = M / beta^2 + d2E/dx2(x) + (1/beta) d2D/dv2(xd, v(x))                   [N/m]
 *
 * E is the sum of the model's POTENTIAL terms and D of its DISSIPATION terms. The minimizer x*
 * satisfies M (x* - y) / beta^2 = -dE/dx(x*) - dD/dv(xd, v(x*)), i.e. the implicit update
 * x* = X + beta v*, v* = (y - X)/beta + beta M^-1 f(x*, v*). Implicit Euler is beta = h,
 * y = x_n + h v_n, X = xd = x_n (see solvers/implicit/implicit.c for BDF2 and the midpoint rule).
 *
 * Gradient entries of pinned DOFs are zero and their Hessian rows/columns are the identity, so a
 * pinned DOF keeps the value it has in the initial guess: the guess must carry pinned positions.
 *
 * The direction, per iteration (the line search is a backtracking Armijo search on Phi; where the
 * decrease the full step predicts is within round-off of Phi, the full step is first judged by
 * whether it reduces ||grad||_2, see LineSearch_Newton):
 *   Newton-CG (default): CG on the exact Hessian, preconditioned by the Cholesky factorization of
 *     the PSD-projected Hessian (each term projected). Superlinear near the minimizer, unlike
 *     plain projected Newton, whose projection changes the Hessian wherever springs are
 *     compressed and makes it converge linearly. CG stops at negative curvature; an unusable
 *     direction falls back to the projected-Newton direction. The factorization is lagged
 *     (kept across iterations and minimizations) while CG needs <= pc_lag_its iterations;
 *     a line search that fails on a lagged factorization's direction is retried once with a fresh
 *     factorization before the minimization is given up.
 *   Projected Newton (-newton_ksp_type preonly): H_psd p = -g, one factorization per iteration.
 *   Last resort (e.g. -newton_psd 0 on an indefinite Hessian): p = -g / |diag H|.
 *
 * Options, under the prefix given at creation (default "newton_"):
 *   -newton_rtol R     converged when ||grad||_2 <= max(atol, R ||grad(x_0)||_2)   (default 1e-8)
 *   -newton_atol A     absolute gradient tolerance, N                              (default 1e-10)
 *   -newton_vtol V     also converged when the Newton step ||p||_inf / beta <= V, m/s; the step is
 *                      taken first (0 disables)                                     (default 1e-9)
 *   -newton_max_it N   Newton iterations before the outcome is SIM_STEP_NOT_CONVERGED (default 50)
 *   -newton_psd B      project each term's Hessian onto PSD (default true); without it the
 *                      exact Hessian is factored (CHOLMOD refuses indefinite ones: use
 *                      -newton_pc_type lu)
 *   -newton_exact_operator B  Newton-CG as above (default true; needs -newton_psd and a Krylov KSP)
 *   -newton_pc_lag_its N      keep the factorization while CG takes <= N iterations (default 25;
 *                      0 refactors every iteration)
 *   -newton_forcing B  CG tolerance max(-newton_ksp_rtol, min(0.01, |g_k|/|g_0|)) (default true)
 *   -newton_symmetric_product B|auto  Newton-CG on one rank: CG multiplies by the exact Hessian from
 *                      its upper 3x3 blocks (framework/linalg/symblock.h; a quarter of AIJ's MatMult
 *                      time on the cloth demo, but another summation order, hence other round-off
 *                      and iteration counts; default false; true is an error on several ranks, auto
 *                      is on where the run allows it and off elsewhere)
 *   -newton_pc_precision double|single|auto  the Cholesky factor applied in single precision
 *                      (framework/linalg/single_cholesky.h; one rank, CHOLMOD; default double; auto:
 *                      single where it applies, double elsewhere)
 *   -newton_ls_max N   backtracking halvings before the step is given up (default 30)
 *   -newton_ksp_*, -newton_pc_*  the linear solver; default CG (rtol 1e-6, at most 200
 *                      iterations) with Cholesky by CHOLMOD on one rank and by MUMPS on several
 *                      (CHOLMOD is sequential); e.g. -newton_ksp_type preonly (projected Newton),
 *                      -newton_pc_type icc (PCG, one rank) or -newton_pc_type gamg (the Hessian
 *                      carries the rigid-body near-null space) or hypre.
 *
 * On several ranks (model->comm): the Hessian is MPIAIJ with this rank's rows 3*[vstart, vend)
 * (framework/model/model.h), the linear solve is parallel, and the objective, the gradient and the
 * line search work on the replicated state, the direction being gathered to every rank after the
 * solve; all ranks take the same decisions because every figure they test is reduced. */
PetscErrorCode SimNewtonCreate(SimModel model, const char *prefix, SimNewton *newton);
/* Reads the options above (opens its own options block; call it outside another one). */
PetscErrorCode SimNewtonSetFromOptions(SimNewton newton);

/* Minimizes Phi starting from x (a Vec of 3*nv: in, the initial guess with pinned positions;
 * out, the last accepted iterate). y, X, xd are flat arrays of 3*nv (not modified).
 * Feasibility: xd should have a finite energy (it is x_n, the last accepted state, in every
 * integrator). Where Phi is +inf at the guess (an element inverted past what its material allows,
 * e.g. the guess y of a fast, soft neo-Hookean body), the free DOFs are pulled back to
 * xd + 2^-j (x - xd), j = 1 .. ls_max, then to xd, until Phi is finite; each pull-back counts as a
 * line-search cut. Every iterate after that has a finite Phi (the line search rejects +inf).
 * stats (may be NULL) is overwritten: outcome (SIM_STEP_OK, SIM_STEP_NOT_CONVERGED when max_it is
 * reached or the line search fails, SIM_STEP_NONFINITE when Phi is not finite at the guess nor at
 * xd, or its gradient there is not), nonlinear_its, linear_its (KSP iterations summed), linesearch_cuts, residual (final
 * ||grad||_2), history[k] = ||grad||_2 and objective[k] = Phi after k iterations (k = 0: the
 * guess), nhistory. Assembly, factorization, solve and line search are logged under SimEvents. */
PetscErrorCode SimNewtonMinimize(SimNewton newton, PetscReal beta, const PetscReal *y, const PetscReal *X, const PetscReal *xd,
                                 Vec x, SimStepStats *stats);

/* Evaluation of the same objective at a point, for tests and diagnostics.
 * SimNewtonObjective: *phi = Phi(x); g (3*nv, may be NULL) = grad Phi(x) with pinned entries 0.
 * SimNewtonHessian:   assembles the Hessian at x into the minimizer's matrix and returns it in *H
 *                     (borrowed: valid until the next call, freed by SimNewtonDestroy). */
PetscErrorCode SimNewtonObjective(SimNewton newton, PetscReal beta, const PetscReal *y, const PetscReal *X, const PetscReal *xd,
                                  const PetscReal *x, PetscReal *phi, PetscReal *g);
PetscErrorCode SimNewtonHessian(SimNewton newton, PetscReal beta, const PetscReal *X, const PetscReal *xd, const PetscReal *x,
                                Mat *H);
/* Checkpoint of what carries over from one minimization to the next, so that a restarted run takes
 * the same iterations as an uninterrupted one: the lag state and, while a factorization is lagged,
 * the projected Hessian it was computed from (the factorization is recomputed from it on load,
 * which gives the same factor). Collective on the minimizer's communicator; Load needs a minimizer
 * created on the same model. */
PetscErrorCode SimNewtonSave(SimNewton newton, PetscViewer viewer);
PetscErrorCode SimNewtonLoad(SimNewton newton, PetscViewer viewer);
/* The linear solver (borrowed), e.g. to read its type or set it programmatically. */
PetscErrorCode SimNewtonGetKSP(SimNewton newton, KSP *ksp);
PetscErrorCode SimNewtonView(SimNewton newton, PetscViewer viewer);
PetscErrorCode SimNewtonDestroy(SimNewton *newton); /* accepts NULL */
