/* The particle fluids' shared part (fluid.h): gather with ghosts, neighbour lists, boundary volumes,
 * lattice rest density and the SPH density sum. */
#include "solvers/sph/fluid.h"

PetscErrorCode SimFluidCreate(SimProblem problem, const char *kernel, const char *option, PetscReal h, SimFluid **fout)
{
  SimFluid *f;
  SimParticlesInfo in;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetInfo(problem, &in));
  PetscCall(PetscNew(&f));
  f->problem = problem;
  PetscCall(SimProblemGetComm(problem, &f->comm));
  f->dim = in.dim;
  PetscCall(SimKernelSetUp(kernel, option, in.dim, h, &f->kernel));
  PetscCall(SimParticleGhostsCreate(problem, h, &f->ghosts));
  PetscCall(SimNeighborsCreate(in.dim, h, &f->nb));
  *fout = f;
  PetscFunctionReturn(0);
}

PetscErrorCode SimFluidDestroy(SimFluid **f)
{
  PetscFunctionBeginUser;
  if (!f || !*f) PetscFunctionReturn(0);
  PetscCall(SimParticleGhostsDestroy(&(*f)->ghosts));
  PetscCall(SimNeighborsDestroy(&(*f)->nb));
  PetscCall(SimNeighborListFree(&(*f)->list));
  PetscCall(PetscFree((*f)->fluid));
  PetscCall(PetscFree((*f)->x));
  PetscCall(PetscFree((*f)->v));
  PetscCall(PetscFree((*f)->m));
  PetscCall(PetscFree((*f)->vol));
  PetscCall(PetscFree((*f)->bnd));
  PetscCall(PetscFree((*f)->pack));
  PetscCall(PetscFree(*f));
  PetscFunctionReturn(0);
}

PetscErrorCode SimFluidEnsure(SimFluid *f, PetscInt bs, PetscInt *cap, PetscReal **a)
{
  const PetscInt need = f->n + f->ng;

  PetscFunctionBeginUser;
  if (need <= *cap && *a) PetscFunctionReturn(0);
  PetscCall(PetscFree(*a));
  *cap = PetscMax(need, 5 * *cap / 4) + 16;
  PetscCall(PetscMalloc1(bs * *cap, a));
  PetscFunctionReturn(0);
}

/* Grows the particle arrays to hold nt particles. */
static PetscErrorCode Grow(SimFluid *f, PetscInt nt)
{
  PetscFunctionBeginUser;
  if (nt <= f->cap) PetscFunctionReturn(0);
  f->cap = PetscMax(nt, 5 * f->cap / 4) + 16;
  PetscCall(PetscFree(f->fluid));
  PetscCall(PetscFree(f->x));
  PetscCall(PetscFree(f->v));
  PetscCall(PetscFree(f->m));
  PetscCall(PetscFree(f->vol));
  PetscCall(PetscFree(f->bnd));
  PetscCall(PetscMalloc1(f->cap, &f->fluid));
  PetscCall(PetscMalloc1(f->dim * f->cap, &f->x));
  PetscCall(PetscMalloc1(f->dim * f->cap, &f->v));
  PetscCall(PetscMalloc1(f->cap, &f->m));
  PetscCall(PetscMalloc1(f->cap, &f->vol));
  PetscCall(PetscMalloc1(f->cap, &f->bnd));
  PetscFunctionReturn(0);
}

/* Reads the own particles from the swarm; with ghosts, also the ghosts and the neighbour lists. */
static PetscErrorCode Gather(SimFluid *f, PetscBool ghosts)
{
  const PetscInt dim = f->dim, bs = 2 * dim + 3;
  PetscReal *x, *v, *m, *vol, *mat;
  PetscInt n;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(f->problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VOLUME, NULL, NULL, (void **)&vol));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  f->n = n;
  f->ng = 0;
  if (ghosts) PetscCall(SimParticleGhostsSetUp(f->ghosts, n, x, &f->ng));
  PetscCall(Grow(f, n + f->ng));
  /* own particles */
  f->nf = 0;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt d = 0; d < dim; d++) f->x[dim * i + d] = x[dim * i + d], f->v[dim * i + d] = v[dim * i + d];
    f->m[i] = m[i], f->vol[i] = vol[i];
    f->bnd[i] = mat[i] < 0;
    if (!f->bnd[i]) f->fluid[f->nf++] = i;
  }
  /* ghosts: x, v, m, vol, material packed per particle (collective: on every rank, also one without particles) */
  if (ghosts) {
    const PetscInt need = bs * (n + f->ng) + 1;
    if (need > f->cappack) {
      PetscCall(PetscFree(f->pack));
      f->cappack = need + 64;
      PetscCall(PetscMalloc1(f->cappack, &f->pack));
    }
    for (PetscInt i = 0; i < n; i++) {
      PetscReal *r = f->pack + bs * i;
      for (PetscInt d = 0; d < dim; d++) r[d] = x[dim * i + d], r[dim + d] = v[dim * i + d];
      r[2 * dim] = m[i], r[2 * dim + 1] = vol[i], r[2 * dim + 2] = mat[i];
    }
    PetscCall(SimParticleGhostsExchange(f->ghosts, bs, f->pack, f->pack + bs * n));
    for (PetscInt i = n; i < n + f->ng; i++) {
      const PetscReal *r = f->pack + bs * i;
      for (PetscInt d = 0; d < dim; d++) f->x[dim * i + d] = r[d], f->v[dim * i + d] = r[dim + d];
      f->m[i] = r[2 * dim], f->vol[i] = r[2 * dim + 1], f->bnd[i] = r[2 * dim + 2] < 0;
    }
  }
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VOLUME, NULL, NULL, (void **)&vol));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  /* neighbours of the own fluid particles among every particle */
  if (ghosts) {
    PetscCall(SimNeighborsSetPoints(f->nb, n + f->ng, f->x));
    if (f->half) PetscCall(SimNeighborsFindHalf(f->nb, f->nf, f->fluid, &f->list));
    else PetscCall(SimNeighborsFind(f->nb, f->nf, f->fluid, &f->list));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimFluidGather(SimFluid *f)
{
  PetscFunctionBeginUser;
  PetscCall(Gather(f, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode SimFluidGatherOwn(SimFluid *f)
{
  PetscFunctionBeginUser;
  PetscCall(Gather(f, PETSC_FALSE));
  PetscFunctionReturn(0);
}

PetscErrorCode SimFluidExchange(SimFluid *f, PetscInt bs, PetscReal *a)
{
  PetscFunctionBeginUser;
  PetscCall(SimParticleGhostsExchange(f->ghosts, bs, a, a + bs * f->n));
  PetscFunctionReturn(0);
}

PetscErrorCode SimFluidScatter(SimFluid *f)
{
  const PetscInt dim = f->dim;
  PetscReal *x, *v;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(f->problem, &sw));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    for (PetscInt d = 0; d < dim; d++) x[dim * i + d] = f->x[dim * i + d], v[dim * i + d] = f->v[dim * i + d];
  }
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(SimParticlesMigrate(f->problem));
  PetscFunctionReturn(0);
}

PetscErrorCode SimFluidBoundaryVolumes(SimFluid *f, PetscBool all)
{
  const PetscInt dim = f->dim;
  const PetscReal w0 = SimKernelW(&f->kernel, 0);
  SimNeighborList bl = {0};
  PetscInt *b, nb = 0;
  PetscReal *vol;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimFluidGather(f));
  PetscCall(PetscMalloc1(f->n + 1, &b));
  for (PetscInt i = 0; i < f->n; i++)
    if (f->bnd[i] && (all || f->vol[i] == 0)) b[nb++] = i;
  PetscCall(SimNeighborsFind(f->nb, nb, b, &bl));
  PetscCall(SimParticlesGetSwarm(f->problem, &sw));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VOLUME, NULL, NULL, (void **)&vol));
  for (PetscInt q = 0; q < nb; q++) {
    const PetscInt i = b[q];
    PetscReal sum = w0;
    for (PetscInt k = bl.offset[q]; k < bl.offset[q + 1]; k++) {
      const PetscInt j = bl.index[k];
      PetscReal r2 = 0;
      if (!f->bnd[j]) continue;
      for (PetscInt d = 0; d < dim; d++) r2 += (f->x[dim * i + d] - f->x[dim * j + d]) * (f->x[dim * i + d] - f->x[dim * j + d]);
      sum += SimKernelW(&f->kernel, PetscSqrtReal(r2));
    }
    vol[i] = f->vol[i] = 1 / sum;
  }
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VOLUME, NULL, NULL, (void **)&vol));
  PetscCall(SimNeighborListFree(&bl));
  PetscCall(PetscFree(b));
  PetscFunctionReturn(0);
}

PetscReal SimFluidLatticeDensity(const SimKernel *k, PetscReal s, PetscReal m)
{
  const PetscInt K = (PetscInt)PetscCeilReal(k->h / s) + 1, kz = k->dim == 3 ? K : 0;
  PetscReal sum = 0;

  for (PetscInt c = -kz; c <= kz; c++)
    for (PetscInt b = -K; b <= K; b++)
      for (PetscInt a = -K; a <= K; a++) sum += SimKernelW(k, s * PetscSqrtReal((PetscReal)(a * a + b * b + c * c)));
  return m * sum;
}

/* rho_i = sum_j m_j W_ij over fluid j (i itself included), + rho0 V_b W_ib over boundary b, for a
 * compile-time dim (inlined with 2 or 3: the same operations in the same order as a loop over d) */
static inline __attribute__((always_inline)) void DensityDim(SimFluid *f, PetscReal rho0, PetscReal *rho, const PetscInt dim, const SimKernelType kt)
{
  const PetscReal w0 = SimKernelW(&f->kernel, 0);
  const PetscInt *off = f->list.offset, *idx = f->list.index;
  const PetscReal *x = f->x;

  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    const PetscReal *xi = x + dim * i;
    PetscReal sum = f->m[i] * w0;
    for (PetscInt k = off[q]; k < off[q + 1]; k++) {
      const PetscInt j = idx[k];
      const PetscReal *xj = x + dim * j;
      PetscReal r2 = 0;
      for (PetscInt d = 0; d < dim; d++) r2 += (xi[d] - xj[d]) * (xi[d] - xj[d]);
      sum += (f->bnd[j] ? rho0 * f->vol[j] : f->m[j]) * SimKernelWT(&f->kernel, kt, PetscSqrtReal(r2));
    }
    rho[i] = sum;
  }
}

PetscErrorCode SimFluidDensity(SimFluid *f, PetscReal rho0, PetscReal *rho)
{
  PetscFunctionBeginUser;
  SIM_FLUID_PAIR_DISPATCH(f, DensityDim, f, rho0, rho);
  PetscFunctionReturn(0);
}

PetscErrorCode SimFluidCounts(SimFluid *f, PetscInt *nfluid, PetscInt *nboundary)
{
  PetscInt c[2];

  PetscFunctionBeginUser;
  c[0] = f->nf, c[1] = f->n - f->nf;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, c, 2, MPIU_INT, MPI_SUM, f->comm));
  if (nfluid) *nfluid = c[0];
  if (nboundary) *nboundary = c[1];
  PetscFunctionReturn(0);
}

PetscErrorCode SimFluidHydrostatic(SimFluid *f, const PetscReal g[3], PetscReal s, PetscReal rho0, PetscReal B, PetscReal gamma)
{
  const PetscInt dim = f->dim;
  SimParticlesInfo in;
  PetscReal gn = 0, up[3] = {0, 0, 0}, lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL, *m;
  PetscInt nrow, ncol[2] = {1, 1}, ax[2] = {0, 2}, axis = 1;
  char *occ;
  DM sw;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < dim; d++) gn += g[d] * g[d];
  gn = PetscSqrtReal(gn);
  if (gn == 0) PetscFunctionReturn(0);
  /* columns along the axis gravity follows most (the scenes' gravity is along -y) */
  for (PetscInt d = 0; d < dim; d++) {
    up[d] = -g[d] / gn;
    if (PetscAbsReal(g[d]) > PetscAbsReal(g[axis])) axis = d;
  }
  for (PetscInt d = 0, k = 0; d < dim; d++)
    if (d != axis) ax[k++] = d;
  PetscCall(SimParticlesGetInfo(f->problem, &in));
  for (PetscInt k = 0; k < dim - 1; k++) ncol[k] = (PetscInt)PetscCeilReal((in.hi[ax[k]] - in.lo[ax[k]]) / s) + 1;
  lo = in.lo[axis], hi = in.hi[axis];
  nrow = (PetscInt)PetscCeilReal((hi - lo) / s) + 1;
  PetscCheck((PetscReal)nrow * ncol[0] * ncol[1] < 5e8, f->comm, PETSC_ERR_ARG_OUTOFRANGE, "hydrostatic start: too many lattice cells");
  PetscCall(PetscCalloc1(nrow * ncol[0] * ncol[1], &occ));
#define CELL(i, c, r) \
  do { \
    const PetscReal *xx = f->x + dim * (i); \
    c = (PetscInt)((xx[ax[0]] - in.lo[ax[0]]) / s); \
    if (dim == 3) c += ncol[0] * (PetscInt)((xx[ax[1]] - in.lo[ax[1]]) / s); \
    r = (PetscInt)((xx[axis] - lo) / s); \
  } while (0)
  for (PetscInt q = 0; q < f->nf; q++) {
    PetscInt c, r;
    CELL(f->fluid[q], c, r);
    occ[c * nrow + r] = 1;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, occ, (PetscMPIInt)(nrow * ncol[0] * ncol[1]), MPI_CHAR, MPI_MAX, f->comm));
  PetscCall(SimParticlesGetSwarm(f->problem, &sw));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    PetscInt c, r, top;
    PetscReal depth;
    CELL(i, c, r);
    for (top = r; top + 1 < nrow && occ[c * nrow + top + 1]; top++) {}
    depth = (top - r) * s;
    if (up[axis] < 0) { /* gravity along +axis: the top is the lowest row */
      for (top = r; top - 1 >= 0 && occ[c * nrow + top - 1]; top--) {}
      depth = (r - top) * s;
    }
    depth += 0.5 * s; /* to the fluid's surface, half a spacing beyond the top particle */
    f->m[i] *= PetscPowReal(1 + rho0 * gn * depth / B, 1 / gamma);
    m[i] = f->m[i];
  }
#undef CELL
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(PetscFree(occ));
  PetscFunctionReturn(0);
}

/* The particle spacing (from the fluid particles' volume, the largest), the fluid's mass and its
 * height along gravity, over every rank. */
PetscErrorCode SimFluidGeometry(SimFluid *f, const PetscReal g[3], PetscReal *spacing, PetscReal *mass, PetscReal *height)
{
  const PetscInt dim = f->dim;
  PetscReal gn = 0, v[4] = {0, 0, -PETSC_MAX_REAL, -PETSC_MAX_REAL};

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < dim; d++) gn += g[d] * g[d];
  gn = PetscSqrtReal(gn);
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    PetscReal up = 0;
    for (PetscInt d = 0; d < dim; d++) up -= gn > 0 ? f->x[dim * i + d] * g[d] / gn : 0;
    v[0] = PetscMax(v[0], f->vol[i]), v[1] = PetscMax(v[1], f->m[i]);
    v[2] = PetscMax(v[2], up), v[3] = PetscMax(v[3], -up);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 4, MPIU_REAL, MPIU_MAX, f->comm));
  PetscCheck(v[0] > 0, f->comm, PETSC_ERR_ARG_WRONGSTATE, "the scene has no fluid particles (only boundary ones)");
  *spacing = PetscPowReal(v[0], 1.0 / dim);
  *mass = v[1];
  *height = v[2] + v[3] + *spacing;
  PetscFunctionReturn(0);
}

PetscErrorCode SimFluidCheckInBox(SimFluid *f, PetscBool *failed, char *reason, size_t len)
{
  const PetscInt dim = f->dim;
  SimParticlesInfo in;
  PetscReal out[2] = {-1, -1}, *id;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetInfo(f->problem, &in));
  PetscCall(SimParticlesGetSwarm(f->problem, &sw));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  for (PetscInt q = 0; q < f->nf && out[0] < 0; q++) {
    const PetscInt i = f->fluid[q];
    for (PetscInt d = 0; d < dim; d++)
      if (!(f->x[dim * i + d] >= in.lo[d] && f->x[dim * i + d] <= in.hi[d])) out[0] = id[i], out[1] = (PetscReal)d;
  }
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, out, 2, MPIU_REAL, MPIU_MAX, f->comm));
  *failed = (PetscBool)(out[0] >= 0);
  if (*failed) PetscCall(PetscSNPrintf(reason, len, "fluid particle %.0f left the box along %c", (double)out[0], "xyz"[(int)out[1]]));
  PetscFunctionReturn(0);
}

/* SimSPHAccelerations for a compile-time dim (inlined with 2 or 3; the same operations in the same order). */
static inline __attribute__((always_inline)) void AccelerationsDim(const SimFluid *f, const SimSPHForceParams *sp, const PetscReal *rp, PetscReal *acc, PetscReal *dx,
                                                                   const PetscInt dim, const SimKernelType kt)
{
  const PetscInt *off = f->list.offset, *idx = f->list.index;
  const PetscReal hs = sp->hs, eps2 = 0.01 * hs * hs, ac = sp->alpha * sp->c * hs, rho0 = sp->rho0;

  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    const PetscReal *xi = f->x + dim * i, *vi = f->v + dim * i, rhoi = rp[2 * i], Pi = rp[2 * i + 1];
    PetscReal a[3] = {0, 0, 0}, xs[3] = {0, 0, 0};
    for (PetscInt k = off[q]; k < off[q + 1]; k++) {
      const PetscInt j = idx[k];
      const PetscReal *xj = f->x + dim * j, *vj = f->v + dim * j;
      PetscReal xij[3], vij[3], r2 = 0, vx = 0, w, g, c;
      for (PetscInt d = 0; d < dim; d++) {
        xij[d] = xi[d] - xj[d], vij[d] = vi[d] - vj[d];
        r2 += xij[d] * xij[d], vx += vij[d] * xij[d];
      }
      SimKernelWGradT(&f->kernel, kt, PetscSqrtReal(r2), &w, &g);
      if (f->bnd[j]) {
        /* Akinci et al. 2012: the boundary particle as the mass Psi_b = rho0 V_b, with its pressure mirrored
         * (p_b = p_i, rho_b = rho_i): -Psi_b 2 p_i / rho_i^2 grad W_ib, so that a wall holds a fluid at rest in
         * hydrostatic balance as fluid particles would; the viscosity sees v_b = 0 */
        const PetscReal psi = rho0 * f->vol[j];
        c = -psi * 2 * Pi * g;
        if (vx < 0) c += psi * (ac * vx / (r2 + eps2)) / rhoi * g;
      } else {
        const PetscReal mj = f->m[j], rhoj = rp[2 * j], rhobar = 0.5 * (rhoi + rhoj);
        /* symmetric pressure force (SimSPHPairPressure divided by m_i) */
        c = -mj * (Pi + rp[2 * j + 1]) * g;
        /* Monaghan 1992: -m_j Pi_ij grad W_ij, Pi_ij = -alpha c mu_ij / rhobar, mu_ij = h v_ij.x_ij / (r^2 + 0.01 h^2),
         * for v_ij.x_ij < 0 (approaching) */
        if (vx < 0) c += mj * (ac * vx / (r2 + eps2)) / rhobar * g;
        /* XSPH: sum_j m_j / rhobar (v_j - v_i) W_ij */
        for (PetscInt d = 0; d < dim; d++) xs[d] -= mj / rhobar * vij[d] * w;
      }
      for (PetscInt d = 0; d < dim; d++) a[d] += c * xij[d];
    }
    for (PetscInt d = 0; d < dim; d++) acc[dim * q + d] = a[d] + sp->gravity[d], dx[dim * q + d] = xs[d];
  }
}

void SimSPHAccelerations(const SimFluid *f, const SimSPHForceParams *sp, const PetscReal *rp, PetscReal *acc, PetscReal *dx)
{
  SIM_FLUID_PAIR_DISPATCH(f, AccelerationsDim, f, sp, rp, acc, dx);
}
