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

/* The scalar fields smoke carries, interleaved in one cell vector (component index). */
enum { SF_DENSITY, SF_TEMPERATURE, SF_NSCALARS };

/* The phases of the bytes model of a step (traffic.c): advection, forces (buoyancy, confinement), the
 * pressure solve (the KSPSolve), the rest (sources, CFL check, the projection's divergence and
 * gradient, the divergence diagnostics). */
enum { SF_PHASE_ADVECT, SF_PHASE_FORCES, SF_PHASE_SOLVE, SF_PHASE_OTHER, SF_NPHASES };

/* The solver. Fields live on DMDAs with the same decomposition as mac->da / mac->dav but a ghost
 * width `ghost` (box stencil), so that a backtrace of up to ghost - 1 cells stays in the ghosted
 * patch of the owning rank: u on dav (dof dim, the MAC face layout of mac.h), the smoke scalars on
 * dac (dof SF_NSCALARS, interleaved so that one backtrace serves them all). */
typedef struct {
  const SimGridProblem *prob;
  SimMAC mac;
  SimProjection proj;
  DM dac, dav; /* ghosted cells (dof SF_NSCALARS) and faces (dof dim) */
  DM dout;     /* cells with 6 components: output (ux, uy, uz, p, density, temperature) */
  Vec u, unew; /* face velocity [m/s] (global, dav) */
  Vec ul;      /* ghosted local face velocity (the advecting field) */
  Vec p;       /* pressure [Pa] (global, mac->da) */
  PetscReal p_dt; /* the step p belongs to (0: unknown); p is the next projection's initial guess */
  /* the initial guess extrapolated from the last pressures (-sf_pressure_extrapolation, stablefluids.c):
   * the degree (0: p as it is), the pressures of the two steps before p's, and how many of p,
   * phist[0], phist[1] are solutions of consecutive steps (0 before the first step) */
  PetscInt p_degree, p_valid;
  Vec phist[2];
  Vec s, snew; /* smoke density and temperature (global, dac); NULL without smoke */
  Vec sl;      /* ghosted local scalars */
  PetscBool smoke;
  Vec stash[6]; /* the last good u, p, s, ... (checkpoint.c) */
  PetscInt stash_p_valid;
  PetscInt scalar_index[SF_NSCALARS]; /* index of each in prob->scalar (-1: absent, kept at 0) */

  /* second-order time stepping (-sf_time sl_bdf2, bdf2.c): u^{n-1} and the step that led from it
   * to u (dt_prev = 0: none yet), the extrapolated midpoint velocity (global and ghosted) */
  PetscBool bdf2;
  Vec uprev, vmid, vmidl;
  PetscReal dt_prev, stash_dt_prev;

  /* options */
  const SFAdvection *adv;
  PetscInt ghost;
  PetscReal nu, rho, buoyancy[2], vorticity, body[3];

  /* implicit viscosity (I - nu dt lap) u = u* */
  KSP vksp;
  Mat vA;
  PetscReal vdt; /* dt the matrix was assembled for */
  Vec vb;

  /* vorticity confinement scratch over the owned cells and two rings around them (smoke.c) */
  PetscReal *omega, *omega_norm, *conf; /* omega_norm: |omega| in 3D */
  PetscInt conf_entries; /* of omega and conf together, on this rank */

  /* the bytes model (traffic.c): entries summed over the ranks of u, the scalars (owned: global
   * vectors; ghosted: local vectors) and the confinement scratch; the phase being counted and the
   * bytes each phase moved in the last step */
  PetscReal ent_u, ent_ul, ent_s, ent_sl, ent_conf, ent_p; /* ent_p: the cells (pressure) */
  PetscReal bytes_end; /* the projection beside its solve, and the divergence norms after it */
  PetscInt phase;
  PetscReal bytes[SF_NPHASES];

  /* the energy sums of the current u (diagnostics.c), valid until u changes (SFStateChanged) */
  PetscBool ke_valid;
  PetscReal ke_sums[4];

  /* figures of the last step */
  PetscReal div_l2, div_max, div_before, cfl, pressure_ms;
  PetscInt pressure_its, viscosity_its;
  PetscReal h;
  PetscReal face_off[3][3]; /* sample offsets (in cells) of face component c along axis d */
  PetscInt face_n[3][3];    /* sample counts of face component c along axis d */
  PetscReal cell_off[3];
  PetscInt cell_n[3];
} SF;

/* A ghosted local array of a DMDA addressed by global indices: entry (i, j, k, c) is
 * a[SF_IDX(F, i, j, k) + c]. Flat strides, so kernels index it with integer arithmetic only. */
typedef struct {
  const PetscScalar *a;
  PetscInt o, sx, sy, sz; /* offset and strides (entries) */
  PetscInt gs[3], ge[3];  /* the ghosted box [gs, ge) (gs[2] = 0, ge[2] = 1 in 2D) */
} SFField;

#define SF_IDX(F, i, j, k) ((F)->o + (i) * (F)->sx + (j) * (F)->sy + (k) * (F)->sz)

/* Wraps a local (ghosted) vector of dm; release with SFFieldRestore. */
PetscErrorCode SFFieldGet(DM dm, Vec local, SFField *F);
PetscErrorCode SFFieldRestore(Vec local, SFField *F);

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

/* advect.c: the scheme table and semi-Lagrangian advection. vl is the ghosted advecting velocity
 * (a local vector of sf->dav). */
PetscErrorCode SFAdvectionFind(const char *name, const SFAdvection **adv);
/* The scheme's backtrace of the point x [m] over dt through the ghosted velocity V (exposed for the
 * order test of the tableaux). */
void SFBacktrace(const SF *sf, const SFField *V, PetscReal dt, const PetscReal x[3], PetscReal xb[3]);
/* qnew = q advected over dt (the cell scalars, global vectors of sf->dac). ql: q's ghosted local
 * vector when the caller has it (NULL: exchanged here). */
PetscErrorCode SFAdvectCells(SF *sf, Vec vl, PetscReal dt, Vec q, Vec ql, Vec qnew);
/* unew = u advected over dt (face velocity, global vectors of sf->dav); prescribed boundary
 * faces are copied and padding set to 0. ul: u's ghosted values when the caller has them (SFExchange)
 * (e.g. vl itself when u advects itself; NULL: exchanged here). */
PetscErrorCode SFAdvectFaces(SF *sf, Vec vl, PetscReal dt, Vec u, Vec ul, Vec unew);

/* bdf2.c: the semi-Lagrangian BDF2 step's advection (see there). */
PetscErrorCode SFTimeSchemeFind(const char *name, PetscBool *bdf2);
const char *SFTimeSchemeName(const SF *sf);
PetscErrorCode SFBDF2SetUp(SF *sf);
PetscErrorCode SFBDF2Destroy(SF *sf);
PetscErrorCode SFBDF2CFL(SF *sf, PetscReal dt, PetscReal un, PetscReal *cfl);
PetscErrorCode SFBDF2Advect(SF *sf, Vec ul, PetscReal dt, PetscReal *dt_eff);

/* traffic.c: the bytes model. SFTrafficSetUp sums the fields' entries over the ranks (collective);
 * SFTraffic counts a pass over `entries` 8-byte values in the current phase; SFEntries: the entries
 * of a vector of sf->dav or sf->dac (owned or ghosted); SFTrafficStepBegin/End zero the counters and
 * add the pressure solve (its iterations) and the projection around it. */
PetscErrorCode SFTrafficSetUp(SF *sf);
static inline void SFTraffic(SF *sf, PetscReal entries)
{
  sf->bytes[sf->phase] += 8 * entries;
}
static inline PetscReal SFEntries(const SF *sf, DM dm, PetscBool ghosted)
{
  return dm == sf->dav ? (ghosted ? sf->ent_ul : sf->ent_u) : (ghosted ? sf->ent_sl : sf->ent_s);
}
/* a DMGlobalToLocal of dm: read the global vector, write the local one */
static inline void SFTrafficExchange(SF *sf, DM dm)
{
  SFTraffic(sf, SFEntries(sf, dm, PETSC_FALSE) + SFEntries(sf, dm, PETSC_TRUE));
}
/* The ghosted values of q (a global vector of sf->dav or sf->dac) to read, in *r: q itself on one
 * rank, where the local vector would be a copy of it entry for entry, otherwise l after an exchange,
 * whose traffic it counts (SimMACGhosted). */
PetscErrorCode SFExchange(SF *sf, DM dm, Vec q, Vec l, Vec *r);
PetscErrorCode SFTrafficStepEnd(SF *sf, PetscInt pressure_its);

/* Exchanges two of the solver's vectors by handle (VecSwap would read and write both arrays): the
 * state lives in whichever the SF member names, so nothing may keep a field's handle across a step. */
static inline void SFSwapVecs(Vec *a, Vec *b)
{
  Vec t = *a;
  *a = *b;
  *b = t;
}

/* boundary.c: prescribed boundary-normal face velocities at time t (walls, slip, inflow). */
PetscErrorCode SFApplyBoundary(SF *sf, PetscReal t, Vec u);
/* The initial fields sampled from the problem: u (projected afterwards), density, temperature. */
PetscErrorCode SFInitialFields(SF *sf);

/* forces.c: u += dt (body force + Boussinesq buoyancy). */
PetscErrorCode SFAddForces(SF *sf, PetscReal dt);
/* smoke.c: the problem's sources at time t; vorticity confinement u += dt eps h (N x omega) from
 * the velocity's ghosted values ul (ghost width >= 3; SFExchange: on one rank sf->u itself, whose
 * faces it writes a plane after the last read of them), with its scratch (SFVorticitySetUp). */
PetscErrorCode SFApplySources(SF *sf, PetscReal t);
PetscErrorCode SFVorticitySetUp(SF *sf);
PetscErrorCode SFAddVorticityConfinement(SF *sf, Vec ul, PetscReal dt);

/* viscosity.c: (I - nu dt lap_h) u = u* per component, no-slip/slip walls as ghost values. */
PetscErrorCode SFViscositySolve(SF *sf, PetscReal t, PetscReal dt);

/* diagnostics.c: kinetic energy rho/2 sum u^2 h^d [J, or J/m in 2D], momentum, CFL, divergence
 * norms, velocity RMS error against an exact u(x, t). */
PetscErrorCode SFKineticEnergy(SF *sf, Vec u, PetscReal *ke, PetscReal momentum[3]);
/* Marks the state's velocity as changed (the cached energy sums are stale). */
static inline void SFStateChanged(SF *sf)
{
  sf->ke_valid = PETSC_FALSE;
}
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
