/* Pressure projection on a MAC grid: lap p = (rho/dt) div u*, u = u* - (dt/rho) grad p, by CG + multigrid. */
#pragma once
#include "solvers/stablefluids/mac.h"
#include <petscksp.h>

/* The projection of Stable Fluids (Stam 1999, sec. 2.1) on the MAC grid (Bridson ch. 5):
 *   lap_h p = (rho/dt) div_h u*,   u = u* - (dt/rho) grad_h p,
 * so that div_h u = 0 up to the solver tolerance. The discrete operator is the cell-centered
 * 5-point (7-point in 3D) Laplacian with the grid's boundary conditions: a wall face drops
 * its flux (homogeneous Neumann, the wall-normal velocity stays as prescribed), an open face
 * has p = 0 on the face (ghost p = -p_inside). It is assembled as A = -h^d lap_h (SPD;
 * stencil entries scaled by h^(d-2)), and with walls everywhere A has the constants as null
 * space, attached with MatSetNullSpace and removed from every right-hand side.
 *
 * Solver (McAdams et al. 2010, "A parallel multigrid Poisson solver for fluids simulation
 * on large grids"): KSPCG preconditioned by PCMG over a hierarchy of any grid size (pressure_mg.h):
 * every level halves the axes in pairs of cells (the last one ragged on an odd count) while all have
 * >= 8 cells; each level's operator is the finite-volume Laplacian on its (possibly uneven) cells,
 * which on even levels is the rediscretization at that level's h; the transfers are piecewise
 * constant with the summed restriction, which with the volume (h^d) scaling is consistent with the
 * rediscretized coarse operator (a Galerkin product with the piecewise-constant transfer is not: it
 * is twice the coarse Laplacian, 2D and 3D). Two variants, -<prefix>mg_operator:
 *   matfree (default): the levels are stencil MATSHELLs on ghosted DMDAs and each smooths with two
 *     red-black Gauss-Seidel sweeps before and two black-red sweeps after the correction
 *     (pressure_mg.h, pressure_stencil.h); measured 2-3x faster per solve than the assembled variant;
 *   assembled: AIJ levels, one symmetric Gauss-Seidel sweep (Richardson + PCSOR, local symmetric
 *     sweeps in parallel) before and after the correction.
 * The coarsest level (< 8 cells along some axis, a few hundred cells at most unless some rank
 * would own none) is solved by sparse LU (redundant on several ranks), made definite in the singular
 * all-wall case by doubling one diagonal entry of the factored copy. The convergence test is on the
 * unpreconditioned residual, relative tolerance 1e-8.
 * Everything is an option under the prefix (default "sf_pressure_"), e.g.
 *   -sf_pressure_ksp_rtol 1e-6 -sf_pressure_pc_type gamg|hypre|icc|jacobi (assembled operator)
 *   -sf_pressure_mg_operator assembled -sf_pressure_pc_mg_levels 5 -sf_pressure_pc_mg_galerkin both
 *   -sf_pressure_mg_levels_ksp_type chebyshev -sf_pressure_mg_levels_pc_type jacobi (either variant)
 * The grid must stay alive (and its boundary conditions unchanged) while the projection exists. */
typedef struct _n_SimProjection *SimProjection;

/* Creates the solver for `mac` with options prefix `prefix` (NULL: "sf_pressure_"); reads the options. */
PetscErrorCode SimProjectionCreate(SimMAC mac, const char prefix[], SimProjection *proj);
/* Projects the face velocity u (global vector of mac->dav, [m/s], in place) with time step
 * dt > 0 [s] and density rho > 0 [kg/m^3]. p (global vector of mac->da, or NULL) receives the
 * pressure [Pa]; with walls everywhere it is the mean-free one. With -<prefix>warm_start (default
 * on) p on entry is CG's initial guess: in a time-stepping loop the previous step's pressure
 * (rescaled by dt_previous / dt, as p ~ 1/dt) saves about one of six iterations; a zero p is the
 * cold start. Wall-face normal velocities are not changed;
 * with walls everywhere their net inflow must be 0 (otherwise only the compatible part of div u* is
 * removed). */
PetscErrorCode SimProjectionApply(SimProjection proj, PetscReal dt, PetscReal rho, Vec u, Vec p);
/* |div_h u*|_2 [1/s] of the last SimProjectionApply's input (the divergence it removed). */
PetscErrorCode SimProjectionGetDivergenceNorm(SimProjection proj, PetscReal *norm);
/* Solves lap_h p = f with the projection's operator and solver (f, p: global vectors of
 * mac->da; f at cell centres). With walls everywhere the mean of f is removed first and p is
 * the mean-free solution. */
PetscErrorCode SimProjectionSolveLaplacian(SimProjection proj, Vec f, Vec p);
/* Iterations of the last solve. */
PetscErrorCode SimProjectionGetIterations(SimProjection proj, PetscInt *its);
/* Whether SimProjectionApply starts CG from the p it is given (-<prefix>warm_start). */
PetscErrorCode SimProjectionGetWarmStart(SimProjection proj, PetscBool *warm);
/* The modelled memory traffic of one CG iteration with the matrix-free V(2,2) multigrid [bytes]
 * (the counts are in projection.c and docs/stablefluids.md), for comparison with the STREAM
 * bandwidth; 0 for any other preconditioner or smoothing. */
PetscErrorCode SimProjectionBytesPerIteration(SimProjection proj, PetscReal *bytes);
/* The modelled memory traffic of SimProjectionApply beside the KSP solve [bytes]: the divergence of
 * u*, the right-hand side's scaling and null space, the gradient update (projection.c). Collective. */
PetscErrorCode SimProjectionBytesAround(SimProjection proj, PetscReal *bytes);
/* The pressure KSP (to inspect or configure further). */
PetscErrorCode SimProjectionGetKSP(SimProjection proj, KSP *ksp);
/* Destroys the solver; accepts NULL. */
PetscErrorCode SimProjectionDestroy(SimProjection *proj);
