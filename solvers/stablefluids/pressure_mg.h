/* The pressure multigrid on any grid size: the level hierarchy and PCMG over it (matrix-free stencil
 * levels with red-black Gauss-Seidel smoothers, or assembled ones), with a sparse direct coarse solve. */
#pragma once
#include "solvers/stablefluids/mac.h"
#include <petscksp.h>

/* The hierarchy stops halving an axis at fewer than 8 cells; once one axis is there, the others go on
 * only while the coarsest level has more than this many cells. */
#define SIM_PRESSURE_COARSE_CELLS 512

/* The levels of the hierarchy, finest first (at most max): da[0] the grid's ghosted cell DMDA
 * (SimPressureCreateGhostedDA), each next one SimPressureCoarsenDA of the previous, halving every axis
 * while all have at least 8 cells (odd counts leave a ragged last cell: 45 -> 23 -> 12 -> 6), then the
 * axes with at least 8 cells while the coarsest level has more than SIM_PRESSURE_COARSE_CELLS, and
 * never a level some rank would own no cell of. The caller destroys the *nlevels DMs. */
PetscErrorCode SimPressureHierarchy(SimMAC mac, PetscInt max, PetscInt *nlevels, DM da[]);

/* Configures `pc`, a PCMG whose number of levels L is already set, over the hierarchy da[0..L-1]
 * (finest first; PCMG level l is da[L-1-l]) for the projection's pressure operator on `mac`
 * (McAdams et al. 2010, with red-black instead of damped Jacobi smoothing):
 *   levels 1..L-1, matfree: the operator as a stencil MATSHELL (SimPressureCreateStencil), smoothed
 *     by two red-black Gauss-Seidel sweeps before the coarse correction and two black-red sweeps after
 *     it (KSPRICHARDSON + the PCSHELL of SimPressureSmootherSetUp; distinct up and down smoothers), so
 *     the V-cycle is symmetric; otherwise assembled (SimPressureAssemble), the smoother left to the
 *     caller;
 *   transfers: piecewise constant (SimPressureCreateInterpolation), the restriction its transpose (a
 *     sum, which with the h^d operator scaling is consistent with the rediscretized coarse operator);
 *   level 0: the operator assembled, solved by PCMG's sparse LU (redundant on several ranks); with
 *     walls everywhere the factored copy is made definite by doubling its first diagonal entry, exact
 *     for the zero-sum right-hand sides a V-cycle hands it.
 * *A receives a new operator on the finest level with the null space, for KSPSetOperators. The
 * smoothers keep their options prefixes, so -<prefix>mg_levels_ksp_type chebyshev
 * -<prefix>mg_levels_pc_type jacobi still replaces them (the stencil has MatGetDiagonal). */
PetscErrorCode SimPressureMGSetUp(PC pc, SimMAC mac, const DM da[], PetscBool matfree, Mat *A);
