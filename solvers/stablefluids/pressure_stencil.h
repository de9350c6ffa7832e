/* The pressure operator of the projection (A = -h^d lap_h on cell centres, with the MAC grid's wall
 * and open faces), assembled or matrix-free, and a red-black Gauss-Seidel smoother on the stencil. */
#pragma once
#include "solvers/stablefluids/mac.h"
#include <petscksp.h>

/* Assembles A on the cell DMDA `dm` (any DMDA with the grid's cell layout, e.g. a PCMG level) into
 * A (from DMCreateMatrix(dm)): row (i,j,k) holds sum over the 2d neighbours of s (p_c - p_nb) for an
 * interior face, nothing for a wall face (homogeneous Neumann), 2 s p_c for an open face (p = 0 on
 * the face through the ghost value -p_c), s = h^(d-2) with h the level's cell size
 * mac->h * mac->n[0] / M[0] (Bridson eq. 5.9 times the cell volume). With walls everywhere the
 * constants are attached as null space. */
PetscErrorCode SimPressureAssemble(SimMAC mac, DM dm, Mat A);

/* A cell DMDA with mac->da's layout (same ownership, so its global vectors are interchangeable with
 * mac->da's) whose local vectors have ghost slots beyond the physical boundary
 * (DM_BOUNDARY_GHOSTED): the matrix-free stencil reads zeros there instead of branching. Q0
 * interpolation, so DMCoarsen halves it like mac->da. */
PetscErrorCode SimPressureCreateGhostedDA(SimMAC mac, DM *da);

/* The same operator as SimPressureAssemble on the ghosted DMDA `da` (SimPressureCreateGhostedDA or
 * a DMCoarsen of it) as a MATSHELL: MatMult, MatMultTranspose (A is symmetric), MatResidual
 * (r = b - A x in one sweep), MatGetDiagonal. One ghost exchange per product (the owned part copied row
 * by row, the face ghosts scattered from the neighbours),
 * then a plain loop over flat arrays. The null space is attached as in SimPressureAssemble. */
PetscErrorCode SimPressureCreateStencil(SimMAC mac, DM da, Mat *A);

/* Makes `pc` a PCSHELL smoother for the stencil matrix A (SimPressureCreateStencil): one red-black
 * Gauss-Seidel sweep per application (red cells (i+j+k) even first, then black; `reverse`: black
 * first). Used through KSPRICHARDSON (PCApplyRichardson): the pre-smoother red-black and the
 * post-smoother black-red make the V-cycle symmetric, as CG needs. */
PetscErrorCode SimPressureSmootherSetUp(PC pc, Mat A, PetscBool reverse);
