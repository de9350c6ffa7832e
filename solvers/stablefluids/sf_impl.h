/* Private state of the stablefluids solver and the kernels each phase file provides (advect.c,
 * forces.c, smoke.c, viscosity.c, boundary.c, diagnostics.c, output.c). */
#pragma once
#include "framework/solver_impl.h"
#include "problems/grid/grid.h"
#include "solvers/stablefluids/projection.h"

/* A semi-Lagrangian scheme: an explicit Runge-Kutta backtrace (tableau a, b) and, for BFECC,
 * forward-backward error compensation with clamping. Rows of a table (advect.c). */
typedef struct {
  const char *name;
  const char *help;
  PetscInt stages;
  PetscReal a[3][3], b[3];
  PetscBool bfecc;
} SFAdvection;

/* The solver. Fields live on DMDAs with the same decomposition as mac->da / mac->dav but a ghost
 * width `ghost` (box stencil), so that a backtrace of up to ghost - 1 cells stays in the ghosted
 * patch of the owning rank: u on dav (dof dim, the MAC face layout of mac.h), scalars on dac. */
typedef struct {
  const SimGridProblem *prob;
  SimMAC mac;
  SimProjection proj;
  DM dac, dav; /* ghosted cells (dof 1) and faces (dof dim) */
  DM dac3;     /* ghosted cells with 3 components (vorticity, confinement force) */
  DM dout;     /* cells with 6 components: output (ux, uy, uz, p, density, temperature) */
  Vec u, unew; /* face velocity [m/s] (global, dav) */
  Vec ul;      /* ghosted local face velocity (the advecting field) */
  Vec p;       /* pressure [Pa] (global, mac->da) */
  Vec d, T;    /* smoke density and temperature (global, dac); NULL without smoke */
  Vec snew;    /* scratch scalar (global, dac) */
  PetscBool smoke;
  Vec stash[4]; /* the last good u, p, d, T (checkpoint.c) */
  PetscInt density, temperature; /* their indices in prob->scalar (-1: absent, kept at 0) */

  /* options */
  const SFAdvection *adv;
  PetscInt ghost;
  PetscReal nu, rho, buoyancy[2], vorticity, body[3];

  /* implicit viscosity (I - nu dt lap) u = u* */
  KSP vksp;
  Mat vA;
  PetscReal vdt; /* dt the matrix was assembled for */
  Vec vb;

  /* figures of the last step */
  PetscReal div_l2, div_max, div_before, cfl, pressure_ms;
  PetscInt pressure_its, viscosity_its;
  PetscReal h;
  PetscReal face_off[3][3]; /* sample offsets (in cells) of face component c along axis d */
  PetscInt face_n[3][3];    /* sample counts of face component c along axis d */
  PetscReal cell_off[3];
  PetscInt cell_n[3];
} SF;

/* A ghosted local array read through global indices: entry (i, j, k, c). */
typedef struct {
  const PetscScalar *a;
  PetscInt s[3], m[3], dof; /* ghosted corner and widths (s[2] = 0, m[2] = 1 in 2D) */
} SFLocal;

#define SF_AT(L, i, j, k, c)                                                                                                     \
  ((L)->a[((((k) - (L)->s[2]) * (L)->m[1] + ((j) - (L)->s[1])) * (L)->m[0] + ((i) - (L)->s[0])) * (L)->dof + (c)])

/* Wraps a local (ghosted) vector of dm for SF_AT; release with VecRestoreArrayRead(v, &L->a). */
PetscErrorCode SFLocalGet(DM dm, Vec local, SFLocal *L);

/* Multilinear interpolation of component c of L at the physical point x [m], for samples at
 * (index + off[d]) h with index in [0, n[d]); x is clamped into the sample range (a backtrace
 * that leaves the box reads the boundary values). Sets *bad when a needed sample lies outside
 * the ghosted patch (which the CFL check prevents). */
static inline PetscReal SFSample(const SFLocal *L, PetscInt c, PetscInt dim, const PetscReal off[3], const PetscInt n[3],
                                 PetscReal ih, const PetscReal x[3], PetscBool *bad)
{
  PetscInt i0[3] = {0, 0, 0};
  PetscReal t[3] = {0, 0, 0}, v = 0;

  for (PetscInt d = 0; d < dim; d++) {
    PetscReal f = x[d] * ih - off[d];
    f = f < 0 ? 0 : (f > n[d] - 1 ? n[d] - 1 : f);
    i0[d] = (PetscInt)f;
    if (i0[d] > n[d] - 2) i0[d] = n[d] - 2;
    t[d] = f - i0[d];
    if (i0[d] < L->s[d] || i0[d] + 1 >= L->s[d] + L->m[d]) {
      *bad = PETSC_TRUE;
      return 0;
    }
  }
  if (dim == 2) {
    v = (1 - t[1]) * ((1 - t[0]) * SF_AT(L, i0[0], i0[1], 0, c) + t[0] * SF_AT(L, i0[0] + 1, i0[1], 0, c)) +
        t[1] * ((1 - t[0]) * SF_AT(L, i0[0], i0[1] + 1, 0, c) + t[0] * SF_AT(L, i0[0] + 1, i0[1] + 1, 0, c));
  } else {
    for (PetscInt dk = 0; dk < 2; dk++)
      for (PetscInt dj = 0; dj < 2; dj++)
        for (PetscInt di = 0; di < 2; di++)
          v += (di ? t[0] : 1 - t[0]) * (dj ? t[1] : 1 - t[1]) * (dk ? t[2] : 1 - t[2]) *
               SF_AT(L, i0[0] + di, i0[1] + dj, i0[2] + dk, c);
  }
  return v;
}

/* Velocity at x from the ghosted face velocity V. */
static inline void SFVelocity(const SF *sf, const SFLocal *V, const PetscReal x[3], PetscReal u[3], PetscBool *bad)
{
  PetscInt dim = sf->mac->dim;
  u[2] = 0;
  for (PetscInt c = 0; c < dim; c++) u[c] = SFSample(V, c, dim, sf->face_off[c], sf->face_n[c], 1.0 / sf->h, x, bad);
}

/* Position [m] of face component c at index (i, j, k), and of cell (i, j, k). */
static inline void SFFacePosition(const SF *sf, PetscInt c, PetscInt i, PetscInt j, PetscInt k, PetscReal x[3])
{
  PetscInt idx[3] = {i, j, k};
  for (PetscInt d = 0; d < 3; d++) x[d] = d < sf->mac->dim ? (idx[d] + (d == c ? 0.0 : 0.5)) * sf->h : 0;
}
static inline void SFCellPosition(const SF *sf, PetscInt i, PetscInt j, PetscInt k, PetscReal x[3])
{
  PetscInt idx[3] = {i, j, k};
  for (PetscInt d = 0; d < 3; d++) x[d] = d < sf->mac->dim ? (idx[d] + 0.5) * sf->h : 0;
}

/* Face component c at (i, j, k) is padding (see mac.h). */
static inline PetscBool SFFacePadding(const SF *sf, PetscInt c, const PetscInt idx[3])
{
  for (PetscInt d = 0; d < sf->mac->dim; d++)
    if (d != c && idx[d] == sf->mac->n[d]) return PETSC_TRUE;
  return PETSC_FALSE;
}
/* Face component c at (i, j, k) lies on a boundary whose normal velocity is prescribed (a wall,
 * slip wall or inflow face): the advection, forces and viscosity leave it alone. */
static inline PetscBool SFFacePrescribed(const SF *sf, PetscInt c, const PetscInt idx[3])
{
  PetscInt side = idx[c] == 0 ? 0 : (idx[c] == sf->mac->n[c] ? 1 : -1);
  return side >= 0 && sf->prob->face[2 * c + side] != SIM_GRID_OPEN;
}

/* advect.c: the scheme table and semi-Lagrangian advection. vl is the ghosted advecting velocity. */
PetscErrorCode SFAdvectionFind(const char *name, const SFAdvection **adv);
/* The scheme's backtrace of the point x over dt through the ghosted velocity V (exposed for the
 * order test of the tableaux). */
void SFBacktrace(const SF *sf, const SFLocal *V, PetscReal dt, const PetscReal x[3], PetscReal xb[3], PetscBool *bad);
/* qnew = q advected over dt (cell scalar, global vectors of sf->dac). */
PetscErrorCode SFAdvectCells(SF *sf, Vec vl, PetscReal dt, Vec q, Vec qnew);
/* unew = u advected over dt (face velocity, global vectors of sf->dav); prescribed boundary
 * faces and padding are copied. */
PetscErrorCode SFAdvectFaces(SF *sf, Vec vl, PetscReal dt, Vec u, Vec unew);

/* boundary.c: prescribed boundary-normal face velocities at time t (walls, slip, inflow). */
PetscErrorCode SFApplyBoundary(SF *sf, PetscReal t, Vec u);
/* The initial fields sampled from the problem: u (projected afterwards), density, temperature. */
PetscErrorCode SFInitialFields(SF *sf);

/* forces.c: u += dt (body force + Boussinesq buoyancy). */
PetscErrorCode SFAddForces(SF *sf, PetscReal dt);
/* smoke.c: the problem's sources at time t; vorticity confinement u += dt eps h (N x omega). */
PetscErrorCode SFApplySources(SF *sf, PetscReal t);
PetscErrorCode SFAddVorticityConfinement(SF *sf, PetscReal dt);

/* viscosity.c: (I - nu dt lap_h) u = u* per component, no-slip/slip walls as ghost values. */
PetscErrorCode SFViscositySolve(SF *sf, PetscReal t, PetscReal dt);

/* diagnostics.c: kinetic energy rho/2 sum u^2 h^d [J, or J/m in 2D], momentum, CFL, divergence
 * norms, velocity RMS error against an exact u(x, t). */
PetscErrorCode SFKineticEnergy(SF *sf, Vec u, PetscReal *ke, PetscReal momentum[3]);
PetscErrorCode SFExactKineticEnergy(SF *sf, PetscReal t, PetscReal *ke);
PetscErrorCode SFVelocityError(SF *sf, PetscReal t, PetscReal *rms);
PetscErrorCode SFDivergenceNorms(SF *sf, Vec u, PetscReal *rms, PetscReal *max, PetscReal *l2);
PetscErrorCode SFMaxVelocity(SF *sf, Vec u, PetscReal *umax);

/* output.c: the VTK ImageData frame and the PNG of a density (or speed) slice; collective. */
PetscErrorCode SFWriteFrame(SF *sf, const char *path);
PetscErrorCode SFWriteXDMF(SF *sf, const char *path); /* the same fields as XDMF + HDF5, every rank its cells */
/* Last-good stash and checkpoint of the fields (checkpoint.c): the solver's stash, save and load ops. */
PetscErrorCode SFStash(SimSolver s, PetscBool restore);
PetscErrorCode SFSave(SimSolver s, PetscViewer viewer);
PetscErrorCode SFLoad(SimSolver s, PetscViewer viewer);
PetscErrorCode SFStashDestroy(SF *sf);
PetscErrorCode SFWriteImage(SF *sf, const char *caption, const char *path);
