/* Private side of the shallow_water solver (docs/shallow_water.md): the 2D shallow-water equations
 *   h_t + (h u)_x + (h v)_y = 0
 *   (h u)_t + (h u^2 + g h^2 / 2)_x + (h u v)_y = -g h b_x
 *   (h v)_t + (h u v)_x + (h v^2 + g h^2 / 2)_y = -g h b_y
 * for the water depth h above the bottom b(x, y) and the depth-averaged velocity (u, v), on a grid
 * problem's box (its x and y axes are the horizontal plane; g is |gravity| of the problem). Finite
 * volumes on a DMDA: an HLL (or Rusanov) flux per face, the hydrostatic reconstruction of Audusse
 * et al. 2004 (well balanced: a lake at rest stays at rest over any bottom, and depths stay >= 0),
 * first order or MUSCL (minmod) with SSP-RK2 (Heun), CFL substeps. The mass flux through a face
 * is one number both cells use, so the volume changes only through open faces: with reflective
 * walls it is constant to round-off. */
#pragma once
#include <petscdmda.h>
#include "framework/solver_impl.h"
#include "problems/grid/grid.h"
#include "problems/rigid/rigid.h"

typedef enum { SWE_FLUX_HLL = 0, SWE_FLUX_RUSANOV } SWEFluxKind;

/* A line of cells along one axis for a sweep: cells -2 .. m+1 (two ghosts each side) at offset 2,
 * each with depth h, normal momentum qn, tangential momentum qt, bottom b. */
typedef struct {
  PetscInt m;
  PetscReal *h, *qn, *qt, *b;
} SWELine;

/* The numerical flux through a face whose normal is the line's axis, from the states on its left
 * (hL, normal velocity uL, tangential vL) and right: F = (mass, normal momentum, tangential
 * momentum) per unit face length. Depths must be >= 0; a dry side (h = 0) is handled. */
void SWERiemannFlux(SWEFluxKind kind, PetscReal g, PetscReal hL, PetscReal uL, PetscReal vL, PetscReal hR, PetscReal uR, PetscReal vR,
                    PetscReal F[3]);
/* The face flux with the hydrostatic reconstruction (Audusse et al. 2004): states (h, un, ut, b)
 * on either side of a face; Fm is what the left cell loses, Fp what the right cell gains (they
 * differ only in the normal momentum, by the bottom step's pressure). */
void SWEFaceFlux(SWEFluxKind kind, PetscReal g, const PetscReal L[4], const PetscReal R[4], PetscReal Fm[3], PetscReal Fp[3]);
/* dU/dt of the m cells of a line from the fluxes along it (order 1 or 2; wall_lo / wall_hi: face 0 /
 * face m is a reflective wall: no mass or tangential flux through it); dU is m x 3 (h, qn, qt)
 * and is added to. *rate: max over the cells of (|un| + sqrt(g h)) / dx. */
void SWESweep(const SWELine *line, PetscInt order, SWEFluxKind kind, PetscReal g, PetscReal dx, PetscReal dry, PetscBool wall_lo,
              PetscBool wall_hi, PetscReal *work, PetscReal dU[], PetscReal *rate);
/* Work space of SWESweep for lines of up to m cells (reals). */
#define SWE_SWEEP_WORK(m) (16 * ((m) + 4))

typedef struct {
  SimGridProblem *prob;
  DM da;          /* cells: dof 3 (h, hu, hv), ghosted physical boundaries, star stencil, width 2 */
  DM dab;         /* the same cells, dof 1: the bottom b */
  Vec U, U1, R;   /* state, stage, dU/dt */
  Vec Ul, bl;     /* local (ghosted) state and bottom */
  Vec stash;
  PetscInt nx, ny;
  PetscReal dx;            /* cell size (m) */
  PetscReal g, rho;        /* |gravity| (m/s^2), water density (kg/m^3: energies and momentum) */
  PetscReal cfl_max, dry;  /* substep CFL limit; depth below which a cell's velocity is 0 (m) */
  PetscInt order, max_substeps;
  SWEFluxKind flux;
  PetscBool wall[4];       /* face 2 axis + side reflects (WALL, SLIP); else open (zero gradient) */
  PetscReal volume0;       /* initial volume (m^3) */
  PetscReal cfl;           /* largest CFL number of the last step's substeps */
  PetscReal *line[4], *work, *dline; /* sweep buffers */
  /* the floating box (float.c; the grid problem's parameters floating_box_*): heave and pitch */
  PetscBool box;
  SimRigidBody body;        /* mass, inertia, half extents; centre x[2], vertical velocity v[2], orientation q, pitch rate w[1] */
  PetscInt box_i0, box_i1, box_j0, box_j1; /* the footprint's cells (global, inclusive) */
  PetscReal *box_rows;      /* 2 per footprint row: the surface left and right of it */
  PetscReal box_torque;     /* about y (N m), at the last evaluation */
  PetscReal box_lo[2], box_hi[2]; /* footprint (m) */
  PetscInt ncov, nring;     /* cells under it, cells next to it (4-neighbours), global */
  PetscReal box_area;       /* ncov dx^2 (m^2) */
  PetscReal box_bed, pillar; /* the bed under it; the raised bed of its cells for the flow (m) */
  PetscReal level;          /* surface of the water column under it (m) */
  PetscReal box_eta, box_force; /* the ring's mean surface (m), the buoyancy (N), at the last evaluation */
  PetscReal stash_box[8];
} SWE;

PetscErrorCode SWEFillGhosts(SWE *w, Vec Ul, PetscBool bottom);
PetscErrorCode SWERHS(SWE *w, Vec U, Vec R, PetscReal *rate);
PetscErrorCode SWEVolume(SWE *w, Vec U, PetscReal *volume); /* the water's, the column under a floating box included */
/* The floating box (float.c): reads the grid problem's parameters floating_box_at (centre x, y and
 * the bottom's height, m), floating_box_size (lengths along x, y and height, m), floating_box_density
 * (kg/m^3) and optionally floating_box_pitch (its rotation about y at the start, rad); makes its
 * cells an obstacle and starts the columns under it; one heave and pitch step of length h after a substep of the flow (failed: grounded, or the ring drawn dry); the water
 * under it (m^3; 0 without a box). */
PetscErrorCode SWEBoxSetUp(SWE *w);
PetscErrorCode SWEBoxPlace(SWE *w);
PetscErrorCode SWEBoxStep(SWE *w, PetscReal h, PetscBool *failed, char *reason, size_t len);
PetscReal SWEBoxWater(const SWE *w);
PetscReal SWEBoxPitch(const SWE *w); /* the box's rotation about y (rad) */
PetscErrorCode SWEWriteFrame(SWE *w, const char *path);
PetscErrorCode SWEWriteImage(SWE *w, const char *caption, const char *path);
