/* The pressure operator of the projection (A = -h^d lap_h on cell centres, with the MAC grid's wall
 * and open faces), assembled or matrix-free, and a red-black Gauss-Seidel smoother on the stencil. */
#pragma once
#include "solvers/stablefluids/mac.h"
#include <petscksp.h>

/* The levels of the pressure hierarchy are cell DMDAs of the grid's layout (any size, odd ones too):
 * along each axis a level's cells aggregate the fine cells in pairs, the last one ragged when a count
 * is odd (SimPressureCoarsenDA), so cell I of a level halved t times covers the fine cells
 * [I 2^t, min((I + 1) 2^t, n)). Its operator is the finite-volume Laplacian on that grid of uneven
 * cells: across a face normal to axis d the coupling is s (product of the cell's widths along the
 * other axes, in fine cells) 2 / (sum of the widths of the two cells along d), s = h^(d-2) of the fine
 * grid; an open face couples to p = 0 on the face (2 / width), a wall not at all (Neumann). On a level
 * of equal cells this is the rediscretization at that level's h (Bridson eq. 5.9 times the cell
 * volume); on the finest it is A = -h^d lap_h of the MAC grid. */

/* Assembles the operator of the level `dm` (the grid's cell DMDA, or one of the hierarchy) into A
 * (from DMCreateMatrix(dm)). With walls everywhere the constants are attached as null space. */
PetscErrorCode SimPressureAssemble(SimMAC mac, DM dm, Mat A);

/* The next coarser level of `fine` (a DM_BOUNDARY_GHOSTED cell DMDA of the hierarchy): the axes with
 * axes[d] halved (ceil(M / 2) cells, the last one ragged for odd M), the others kept; coarse cell I
 * goes to the rank owning fine cell 2I. *coarse is NULL when some rank would own no coarse cell
 * along a halved axis (the hierarchy then stops). */
PetscErrorCode SimPressureCoarsenDA(SimMAC mac, DM fine, const PetscBool axes[3], DM *coarse);
/* The piecewise-constant interpolation from `coarse` to `fine` (an AIJ matrix, one 1 per fine row at
 * its aggregate; its transpose, the restriction, sums the fine cells of each aggregate). */
PetscErrorCode SimPressureCreateInterpolation(SimMAC mac, DM coarse, DM fine, Mat *P);

/* A cell DMDA with mac->da's layout (same ownership, so its global vectors are interchangeable with
 * mac->da's) whose local vectors have ghost slots beyond the physical boundary
 * (DM_BOUNDARY_GHOSTED): the matrix-free stencil reads zeros there instead of branching. The finest
 * level of the hierarchy. */
PetscErrorCode SimPressureCreateGhostedDA(SimMAC mac, DM *da);

/* The same operator as SimPressureAssemble on the ghosted DMDA `da` (SimPressureCreateGhostedDA or
 * a SimPressureCoarsenDA of it) as a MATSHELL: MatMult, MatMultTranspose (A is symmetric), MatResidual
 * (r = b - A x in one sweep), MatGetDiagonal. One ghost exchange per product (the owned part copied row
 * by row, the face ghosts scattered from the neighbours),
 * then a plain loop over flat arrays. The null space is attached as in SimPressureAssemble. */
PetscErrorCode SimPressureCreateStencil(SimMAC mac, DM da, Mat *A);

/* Makes `pc` a PCSHELL smoother for the stencil matrix A (SimPressureCreateStencil): one red-black
 * Gauss-Seidel sweep per application (red cells (i+j+k) even first, then black; `reverse`: black
 * first). Used through KSPRICHARDSON (PCApplyRichardson): the pre-smoother red-black and the
 * post-smoother black-red make the V-cycle symmetric, as CG needs. */
PetscErrorCode SimPressureSmootherSetUp(PC pc, Mat A, PetscBool reverse);
