/* The matrix-free multigrid V-cycle of the pressure solve: PCMG with stencil operators and red-black
 * Gauss-Seidel smoothers on every level but the coarsest. */
#pragma once
#include "solvers/stablefluids/mac.h"
#include <petscksp.h>

/* Configures `pc`, a PCMG whose number of levels L is already set, as a matrix-free V-cycle for the
 * projection's pressure operator on `mac` (McAdams et al. 2010, with red-black instead of damped
 * Jacobi smoothing):
 *   levels 1..L-1: the ghosted cell DMDA halved L-1-l times (DMCoarsenHierarchy), the operator as a
 *     stencil MATSHELL (rediscretized at the level's h, SimPressureCreateStencil), smoothed by two
 *     red-black Gauss-Seidel sweeps before the coarse correction and two black-red sweeps after it
 *     (KSPRICHARDSON + the PCSHELL of SimPressureSmootherSetUp; distinct up and down smoothers),
 *     so the V-cycle is symmetric;
 *   transfers: DMDA_Q0 interpolation (piecewise constant), restriction its transpose (a sum, which
 *     with the h^d operator scaling is consistent with the rediscretized coarse operator);
 *   level 0: the operator assembled (SimPressureAssemble) for the coarse solve, whose type the caller
 *     chooses (PCMG's default, or a pseudo-inverse for the singular all-wall case).
 * *A receives a new stencil operator on the finest level, with the null space, for KSPSetOperators. The
 * smoothers keep their options prefixes, so -<prefix>mg_levels_ksp_type chebyshev
 * -<prefix>mg_levels_pc_type jacobi still replaces them (the stencil has MatGetDiagonal). */
PetscErrorCode SimPressureMGSetUp(PC pc, SimMAC mac, Mat *A);
