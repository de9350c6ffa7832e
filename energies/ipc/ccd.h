/* IPC continuous collision detection: a conservative time of impact along a straight motion
 * x + t p, t in [0, tmax], by additive CCD (Li, Kaufman and Jiang 2021, "Codimensional Incremental
 * Potential Contact", Algorithm 1): no polynomial roots, only distance evaluations. */
#pragma once
#include "energies/ipc/distance.h"

/* The largest t in [0, tmax] such that the stencil's primitives (k, at x + tau p, 3n coordinates
 * each) stay apart for all tau in [0, t]; tmax when they do not come closer than the stopping gap.
 *
 * Guarantee (up to the rounding of the distance evaluations, which is relative to the distance):
 * with d0 the distance at tau = 0 and eta in (0, 1) the rescaling, the distance stays positive on
 * [0, t] and is at least (1 - eta) d0 at t. Each advance is eta (d - xi) / l_p, where l_p bounds
 * the rate at which the distance can shrink (the largest relative displacement of the two
 * primitives after removing the mean motion), so no contact can occur inside an advance; the
 * march stops before the distance would fall below (1 - eta)(d0 - xi) + xi. Positions are
 * recomputed as x + t p at every trial (no accumulated increments).
 * xi >= 0 is a minimum separation (thickness); a stencil already within xi returns 0. The march
 * takes at most max_iter advances and then returns the time reached (still conservative).
 * *iters (may be NULL) gets the number of distance evaluations. */
PetscReal IPCAdditiveCCD(IPCStencil k, const PetscReal *x, const PetscReal *p, PetscReal eta, PetscReal xi, PetscReal tmax,
                         PetscInt max_iter, PetscInt *iters);

/* The same for a vertex against an analytic obstacle with signed distance phi (positive outside):
 * a plane (point o, unit normal n), where phi is linear in t and the step is exact, or a sphere
 * (center c, radius r, the outside free), where |grad phi| = 1 bounds the rate by |p|. */
PetscReal IPCPlaneCCD(const PetscReal *x, const PetscReal *p, const PetscReal *o, const PetscReal *n, PetscReal eta, PetscReal tmax);
PetscReal IPCSphereCCD(const PetscReal *x, const PetscReal *p, const PetscReal *c, PetscReal r, PetscReal eta, PetscReal tmax,
                       PetscInt max_iter);
