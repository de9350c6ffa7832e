/* A 2D/3D staggered (MAC) grid on PETSc DMDAs: cell-centered scalars and face-normal velocities. */
#pragma once
#include <petscdmda.h>

/* A hot loop of the solver (advection pass, stencil product, smoother sweep), also compiled for AVX2
 * and chosen at load time by the CPU (target_clones), so that its loops may run four doubles per
 * instruction without building everything for one CPU. AVX2 without FMA: the same operations in
 * every lane, so both versions give the same numbers. Everything it calls must be inlined into it. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__ELF__)
  #define SF_KERNEL __attribute__((target_clones("avx2", "default")))
#else
  #define SF_KERNEL
#endif

/* What lies beyond one face of the box domain (Bridson, "Fluid Simulation for Computer
 * Graphics", 2nd ed., ch. 5):
 *   SIM_MAC_WALL: a solid wall. The wall-normal face velocity on that boundary is prescribed
 *                 (whatever the caller stores there, 0 for a still wall) and the pressure
 *                 condition is homogeneous Neumann (the projection never changes that face).
 *   SIM_MAC_OPEN: an open boundary with p = 0 on the boundary face (Dirichlet), imposed with a
 *                 ghost cell p_ghost = -p_inside; the boundary face velocity is projected. */
typedef enum { SIM_MAC_WALL = 0, SIM_MAC_OPEN = 1 } SimMACBoundary;

/* The MAC grid. Cells (i,j,k), 0 <= i < n[0] ..., of size h; the domain is
 * [0, n[0] h] x [0, n[1] h] (x [0, n[2] h]).
 *
 * Layout:
 *   da  : cell-centered DMDA, n[0] x n[1] (x n[2]) points, dof 1, star stencil of width 1
 *         (pressure, divergence, any cell scalar). Interpolation type DMDA_Q0, so DMCoarsen
 *         halves the cell counts (n must be even for each coarsening, see projection.h).
 *   dav : face DMDA, (n[0]+1) x (n[1]+1) (x (n[2]+1)) points, dof = dim, box stencil of
 *         width 1. Component c at point (i,j,k) is the c-velocity on the LOW c-face of cell
 *         (i,j,k): position x_c = i_c h, the other coordinates at cell centres (i_d + 1/2) h.
 *         The extra layer i_c = n[c] holds the high boundary faces of component c; the entries
 *         of component c with i_d = n[d] for some d != c are padding and are kept at 0.
 *         The ownership ranges of dav are those of da with the extra layer given to the last
 *         rank along each axis, so a rank owns the low faces of the cells it owns: every
 *         cell/face loop is local plus a width-1 ghost exchange (DMGlobalToLocal).
 * bc[2*axis + side] (side 0 = low, 1 = high) selects each face's boundary condition. */
typedef struct {
  PetscInt dim;  /* 2 or 3 */
  PetscInt n[3]; /* cells per axis; n[2] = 1 in 2D */
  PetscReal h;   /* cell size [m] */
  SimMACBoundary bc[6];
  DM da;  /* cells */
  DM dav; /* faces */
} * SimMAC;

/* Creates the grid on `comm` (any number of ranks). n[0..dim-1] >= 2 cells, h > 0; every
 * boundary starts as SIM_MAC_WALL. */
PetscErrorCode SimMACCreate(MPI_Comm comm, PetscInt dim, const PetscInt n[], PetscReal h, SimMAC *mac);
/* Sets the condition of face 2*axis + side. */
PetscErrorCode SimMACSetBoundary(SimMAC mac, PetscInt axis, PetscInt side, SimMACBoundary bc);
/* PETSC_TRUE when every face is a wall (the pressure operator then has the constants as null space). */
PetscErrorCode SimMACAllWalls(SimMAC mac, PetscBool *allwalls);
/* Destroys the grid; accepts NULL. */
PetscErrorCode SimMACDestroy(SimMAC *mac);
/* The entries of a DMDA's vectors summed over the ranks (collective): owned (global vectors) and
 * ghosted (local vectors), for the bytes models of the projection and the solver. */
PetscErrorCode SimMACEntries(DM dm, PetscReal *owned, PetscReal *ghosted);

/* The values of g (a global vector of the DMDA dm) with its ghosts, to read: in *r, g itself where dm
 * has no ghost points (one rank and no periodic axis: its local vector is the global one entry for
 * entry), so nothing is copied; otherwise l (a local vector of dm) after DMGlobalToLocal. *copied
 * (may be NULL): whether it exchanged. Collective. While *r is read, g must not be written where a
 * read is still to come (*r may be g). */
PetscErrorCode SimMACGhosted(DM dm, Vec g, Vec l, Vec *r, PetscBool *copied);

/* Discrete divergence (div u)_cell = sum_c (u_c(high face) - u_c(low face)) / h [1/s]
 * (Bridson eq. 5.4). u: global vector of mac->dav [m/s]; div: global vector of mac->da. */
PetscErrorCode SimMACDivergence(SimMAC mac, Vec u, Vec div);
/* Sets the padding entries of a face vector (see Layout) to zero. */
PetscErrorCode SimMACZeroPadding(SimMAC mac, Vec u);
/* Sets the wall-normal faces of every SIM_MAC_WALL boundary, and the padding, to zero: a face field
 * whose divergence is then compatible with the all-Neumann pressure problem (tests, benchmarks). */
PetscErrorCode SimMACZeroWallFaces(SimMAC mac, Vec u);
