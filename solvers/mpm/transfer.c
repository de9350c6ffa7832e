/* One MPM substep as plain loops in physical order (the shape of Taichi's mpm88/mpm99): particles to
 * grid, grid update, grid to particles with the F update and advection; then, batched per material,
 * the return mapping and the stress the next P2G scatters. Each loop is written once for 2D and 3D
 * and both kernels (D and K are compile-time constants of the instantiations at the end of each
 * phase), and once for every transfer (its flags are loop-invariant). */
#include "solvers/mpm/mpm.h"
#include <immintrin.h>

/* The grid patch of this rank: a node's first component at g + Offset(...). */
typedef struct {
  PetscInt gs[3], sy, sz; /* ghosted corner, strides (in reals) of y and z */
  PetscInt dof;
} Patch;

static PetscErrorCode GetPatch(MPM *mpm, Patch *pt)
{
  PetscInt gm[3];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetGhostCorners(mpm->da, &pt->gs[0], &pt->gs[1], &pt->gs[2], &gm[0], &gm[1], &gm[2]));
  pt->dof = mpm->dof;
  pt->sy = gm[0] * pt->dof;
  pt->sz = gm[0] * gm[1] * pt->dof;
  if (mpm->dim == 2) pt->gs[2] = 0, pt->sz = 0;
  PetscFunctionReturn(0);
}

/* Two doubles as one SSE2 register (GCC vector extension; unaligned access allowed). The 3D MLS loops
 * below update a node's four reals (momentum, mass) as two pairs: each lane does exactly the scalar
 * operations in the same order, so the results are bit for bit those of the scalar loops. */
typedef double V2 __attribute__((vector_size(16), aligned(8)));
static inline V2 V2Load(const PetscReal *p)
{
  V2 v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
static inline void V2Store(PetscReal *p, V2 v)
{
  __builtin_memcpy(p, &v, sizeof(v));
}

/* Four doubles as one AVX register, in the functions compiled for AVX (the *_avx instantiations,
 * chosen at run time when the CPU has it): a node's four reals at once, each lane again the scalar
 * operations in the same order (no fused multiply-add), so bit for bit the SSE2 pairs' results.
 * Macros, not functions: a function taking or returning a 32-byte vector needs AVX itself. */
typedef double V4 __attribute__((vector_size(32), aligned(8)));
typedef int V4I __attribute__((vector_size(16)));
typedef long long V4L __attribute__((vector_size(32), aligned(8))); /* a V4 comparison's lanes: -1 true, 0 false */
/* GCC 12 warns that the per-particle arrays of broadcast weights (w0, w1, w2 below), each element
 * written before it is read, "may be used uninitialized": a false positive of its vector lowering. */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define V4LOAD(p) \
  ({ \
    V4 v4_; \
    __builtin_memcpy(&v4_, (p), sizeof(v4_)); \
    v4_; \
  })
#define V4STORE(p, v) \
  do { \
    const V4 v4s_ = (v); \
    __builtin_memcpy((p), &v4s_, sizeof(v4s_)); \
  } while (0)

/* MPMWeights1 for the quadratic kernel on the three axes of a 3D particle at xq at once (lanes: axes),
 * its operations lane by lane: base[3], fx[3] and wt[i][d], the weight of node base + i on axis d. */
#define WEIGHTS3Q(xq, lo4, ih, base, fx, wt) \
  do { \
    const V4 x4_ = {(xq)[0], (xq)[1], (xq)[2], (lo4)[3] + 1}, xh_ = (x4_ - V4LOAD(lo4)) * (ih); \
    const V4I b_ = __builtin_convertvector(xh_ - 0.5, V4I); /* truncation, as the (PetscInt) cast */ \
    const V4 f_ = xh_ - __builtin_convertvector(b_, V4), a_ = 1.5 - f_, bb_ = f_ - 1.0, c_ = f_ - 0.5; \
    V4STORE((wt)[0], 0.5 * a_ * a_); \
    V4STORE((wt)[1], 0.75 - bb_ * bb_); \
    V4STORE((wt)[2], 0.5 * c_ * c_); \
    for (int d_ = 0; d_ < 3; d_++) (base)[d_] = b_[d_], (fx)[d_] = f_[d_]; \
  } while (0)

/* The symmetric stress (xx, yy, xy / xx, yy, zz, xy, yz, xz) as a full matrix. */
static inline void SymToFull(const int D, const PetscReal *t, PetscReal S[3][3])
{
  if (D == 2) {
    S[0][0] = t[0], S[1][1] = t[1], S[0][1] = S[1][0] = t[2];
  } else {
    S[0][0] = t[0], S[1][1] = t[1], S[2][2] = t[2];
    S[0][1] = S[1][0] = t[3], S[1][2] = S[2][1] = t[4], S[0][2] = S[2][0] = t[5];
  }
}

typedef struct {
  PetscInt n;
  const PetscReal *x, *v, *m, *C, *stress;
  PetscReal *g;
  Patch pt;
  PetscReal lo[3], h, dt, dinv;
  PetscInt *mlo, *mhi, ny; /* the rows of particle bases to record (MPM.mlo, mhi) */
} P2GArgs;

/* ---- 1. particles to grid (Hu et al. 2018, eq. 29 and section 5.3; Jiang et al. 2015 for APIC):
 * node i receives w_ip m_p (v_p + C_p (x_i - x_p)), its mass w_ip m_p and the stress impulse: with
 * MLS through the affine term, -dt V0 tau_p D^-1 (x_i - x_p); otherwise -dt V0 tau_p grad w_ip
 * (Stomakhin et al. 2013, eq. 6). FLIP keeps the impulse apart (the velocity before forces).
 * T is the transfer (0 pic, 1 flip, 2 apic, 3 mls), a compile-time constant like D and K. ---- */
static inline __attribute__((always_inline)) void P2G(const int D, const int K, const int T, const int X, const P2GArgs *a)
{
  const int affine = T >= 2, mls = T == 3, flip = T == 1;
  const PetscReal h = a->h, ih = 1 / h, dt = a->dt, sfac = mls ? -dt * a->dinv * ih * ih : -dt;
  const PetscInt dof = a->pt.dof, sy = a->pt.sy, sz = a->pt.sz, gs0 = a->pt.gs[0], gs1 = a->pt.gs[1], gs2 = a->pt.gs[2], fslot = flip ? D + 1 : 0, n = a->n;
  const PetscReal lo[3] = {a->lo[0], a->lo[1], a->lo[2]}, lo4[4] = {a->lo[0], a->lo[1], a->lo[2], 0};
  const PetscReal *restrict x = a->x, *restrict vel = a->v, *restrict mass = a->m, *restrict Cf = a->C, *restrict stress = a->stress;
  PetscReal *restrict g = a->g;
  PetscInt *restrict mlo = a->mlo, *restrict mhi = a->mhi;
  const PetscInt ny = a->ny;

  for (PetscInt p = 0; p < n; p++) {
    PetscReal w[3][4] = {{0}}, dw[3][4] = {{0}}, fx[3] = {0, 0, 0}, S[3][3] = {{0}}, A[3][3] = {{0}}, G[3][3] = {{0}}, q0[3] = {0, 0, 0};
    PetscInt base[3] = {0, 0, gs2};
    const PetscReal m = mass[p];

    PetscReal wt[4][4]; /* 3D, quadratic, AVX: the weights by node (WEIGHTS3Q) */
    if (D == 3 && X && K == 3) WEIGHTS3Q(x + 3 * p, lo4, ih, base, fx, wt);
    else
      for (int d = 0; d < D; d++) base[d] = MPMWeights1(K, (x[D * p + d] - lo[d]) * ih, w[d], dw[d], &fx[d]);
    if (D == 2) w[2][0] = 1;
    {
      const PetscInt r = (base[2] - gs2) * ny + base[1] - gs1, b0 = base[0] - gs0;
      mlo[r] = PetscMin(mlo[r], b0), mhi[r] = PetscMax(mhi[r], b0);
    }
    if (D == 3 && mls && X) { /* the loop below on the node's four reals at once (AVX): (x, y, z, mass: q = m, A = 0) */
      /* A = h (m C + sfac S) and q0 = m v - sum_c (h A e_c) fx_c as below, by columns of A (lanes: rows) */
      const PetscReal *Cp = Cf + 9 * p, *t = stress + 6 * p, *vv = vel + 3 * p;
      const V4 s0 = {t[0], t[3], t[5], 0}, s1 = {t[3], t[1], t[4], 0}, s2 = {t[5], t[4], t[2], 0};
      const V4 c0 = {Cp[0], Cp[3], Cp[6], 0}, c1 = {Cp[1], Cp[4], Cp[7], 0}, c2 = {Cp[2], Cp[5], Cp[8], 0}, v4 = {vv[0], vv[1], vv[2], 0};
      const V4 a0 = h * (m * c0 + sfac * s0), a1 = h * (m * c1 + sfac * s1), a2 = h * (m * c2 + sfac * s2);
      V4 q4 = m * v4;
      q4 -= a0 * fx[0], q4 -= a1 * fx[1], q4 -= a2 * fx[2];
      q4[3] = m;
      const V4 one = {1, 1, 1, 1};
      V4 w0[4], w1[4], w2[4], a0i[4], a1j[4], a2k[4]; /* the weights broadcast, A's columns times the offsets: once per particle */
      for (int i = 0; i < K; i++) {
        const PetscReal id = i;
        if (K == 3) w0[i] = wt[i][0] * one, w1[i] = wt[i][1] * one, w2[i] = wt[i][2] * one; /* x 1: exact */
        else w0[i] = w[0][i] * one, w1[i] = w[1][i] * one, w2[i] = w[2][i] * one;
        a0i[i] = a0 * id, a1j[i] = a1 * id, a2k[i] = a2 * id;
      }
      for (int k = 0; k < K; k++) {
#pragma GCC unroll 4
        for (int j = 0; j < K; j++) {
          PetscReal *restrict row = g + (base[2] + k - gs2) * sz + (base[1] + j - gs1) * sy + (base[0] - gs0) * dof;
          const V4 wjk = w1[j] * w2[k], qj = q4 + a1j[j] + a2k[k];
#pragma GCC unroll 4
          for (int i = 0; i < K; i++) {
            PetscReal *restrict node = row + i * dof;
            V4STORE(node, V4LOAD(node) + (w0[i] * wjk) * (qj + a0i[i]));
          }
        }
      }
      continue;
    }
    SymToFull(D, stress + (D == 2 ? 3 : 6) * p, S);
    for (int r = 0; r < D; r++)
      for (int c = 0; c < D; c++) {
        A[r][c] = affine ? m * Cf[D * D * p + D * r + c] : 0;
        if (mls) A[r][c] += sfac * S[r][c];
        else G[r][c] = sfac * S[r][c] * ih;
      }
    /* w (m v + A (x_i - x_p)) with x_i - x_p = h (o - fx), o the node's offset: q0 + h A o */
    for (int r = 0; r < D; r++) {
      q0[r] = m * vel[D * p + r];
      for (int c = 0; c < D; c++) q0[r] -= h * A[r][c] * fx[c], A[r][c] *= h;
    }
    if (D == 3 && mls) { /* the loop below in pairs of lanes: (x, y), (z, mass: q = m, A = 0) */
      const V2 qa = {q0[0], q0[1]}, qb = {q0[2], m}, a0a = {A[0][0], A[1][0]}, a0b = {A[2][0], 0}, a1a = {A[0][1], A[1][1]}, a1b = {A[2][1], 0};
      const V2 a2a = {A[0][2], A[1][2]}, a2b = {A[2][2], 0};
      for (int k = 0; k < K; k++) {
#pragma GCC unroll 4
        for (int j = 0; j < K; j++) {
          PetscReal *restrict row = g + (base[2] + k - gs2) * sz + (base[1] + j - gs1) * sy + (base[0] - gs0) * dof;
          const PetscReal wjk = w[1][j] * w[2][k], jd = j, kd = k;
          const V2 qja = qa + a1a * jd + a2a * kd, qjb = qb + a1b * jd + a2b * kd;
#pragma GCC unroll 4
          for (int i = 0; i < K; i++) {
            PetscReal *restrict node = row + i * dof;
            const PetscReal wt = w[0][i] * wjk, id = i;
            V2Store(node, V2Load(node) + wt * (qja + a0a * id));
            V2Store(node + 2, V2Load(node + 2) + wt * (qjb + a0b * id));
          }
        }
      }
      continue;
    }
    if (D == 2 && mls) { /* the same with the pair (x, y) and the mass alone */
      const V2 qa = {q0[0], q0[1]}, a0a = {A[0][0], A[1][0]}, a1a = {A[0][1], A[1][1]};
#pragma GCC unroll 4
      for (int j = 0; j < K; j++) {
        PetscReal *restrict row = g + (base[1] + j - gs1) * sy + (base[0] - gs0) * dof;
        const PetscReal wjk = w[1][j] * w[2][0], jd = j;
        const V2 qja = qa + a1a * jd;
#pragma GCC unroll 4
        for (int i = 0; i < K; i++) {
          PetscReal *restrict node = row + i * dof;
          const PetscReal wt = w[0][i] * wjk, id = i;
          V2Store(node, V2Load(node) + wt * (qja + a0a * id));
          node[2] += wt * m;
        }
      }
      continue;
    }
    for (int k = 0; k < (D == 3 ? K : 1); k++) {
#pragma GCC unroll 4
      for (int j = 0; j < K; j++) {
        PetscReal *restrict row = g + (base[2] + k - gs2) * sz + (base[1] + j - gs1) * sy + (base[0] - gs0) * dof;
        const PetscReal wjk = w[1][j] * w[2][k];
        PetscReal qjk[3], gjk[3][2];
        for (int r = 0; r < D; r++) {
          qjk[r] = q0[r] + A[r][1] * j + (D == 3 ? A[r][2] * k : 0);
          /* grad w = (dw_x w_y w_z, w_x dw_y w_z, w_x w_y dw_z) / h: the force is G grad w */
          gjk[r][0] = G[r][0] * wjk;
          gjk[r][1] = G[r][1] * dw[1][j] * w[2][k] + (D == 3 ? G[r][2] * w[1][j] * dw[2][k] : 0);
        }
#pragma GCC unroll 4
        for (int i = 0; i < K; i++) {
          PetscReal *restrict node = row + i * dof;
          const PetscReal wt = w[0][i] * wjk;
          for (int r = 0; r < D; r++) node[r] += wt * (qjk[r] + A[r][0] * i);
          node[D] += wt * m;
          if (!mls)
            for (int r = 0; r < D; r++) node[fslot + r] += gjk[r][0] * dw[0][i] + gjk[r][1] * w[0][i];
        }
      }
    }
  }
}

#define P2G_VARIANTS(D, K, KN) \
  static void P2G_##D##KN##_0(const P2GArgs *a) { P2G(D, K, 0, 0, a); } \
  static void P2G_##D##KN##_1(const P2GArgs *a) { P2G(D, K, 1, 0, a); } \
  static void P2G_##D##KN##_2(const P2GArgs *a) { P2G(D, K, 2, 0, a); } \
  static void P2G_##D##KN##_3(const P2GArgs *a) { P2G(D, K, 3, 0, a); }
P2G_VARIANTS(2, 3, Q)
P2G_VARIANTS(2, 4, C)
P2G_VARIANTS(3, 3, Q)
P2G_VARIANTS(3, 4, C)
/* [dim - 2][K - 3][transfer] */
static void (*const p2g[2][2][4])(const P2GArgs *) = {{{P2G_2Q_0, P2G_2Q_1, P2G_2Q_2, P2G_2Q_3}, {P2G_2C_0, P2G_2C_1, P2G_2C_2, P2G_2C_3}},
                                                      {{P2G_3Q_0, P2G_3Q_1, P2G_3Q_2, P2G_3Q_3}, {P2G_3C_0, P2G_3C_1, P2G_3C_2, P2G_3C_3}}};

/* 3D MLS with AVX: [K - 3] */
static __attribute__((target("avx"))) void P2G_3Q_3_avx(const P2GArgs *a)
{
  P2G(3, 3, 3, 1, a);
}
static __attribute__((target("avx"))) void P2G_3C_3_avx(const P2GArgs *a)
{
  P2G(3, 4, 3, 1, a);
}
/* the same compiled for AVX2 with fused multiply-add (GCC contracts a * b + c in GNU C): [K - 3] */
static __attribute__((target("avx2,fma"))) void P2G_3Q_3_fma(const P2GArgs *a)
{
  P2G(3, 3, 3, 1, a);
}
static __attribute__((target("avx2,fma"))) void P2G_3C_3_fma(const P2GArgs *a)
{
  P2G(3, 4, 3, 1, a);
}
static void (*const p2g_avx[2][2])(const P2GArgs *) = {{P2G_3Q_3_avx, P2G_3C_3_avx}, {P2G_3Q_3_fma, P2G_3C_3_fma}};

/* The transfer's index in the instantiations. */
static inline int TransferIndex(const MPMTransfer *t)
{
  return t->mls ? 3 : t->affine ? 2 : t->flip ? 1 : 0;
}

PetscErrorCode MPMParticlesToGrid(SimSolver s, MPM *mpm, PetscReal dt)
{
  DM sw;
  P2GArgs a;
  PetscReal *x, *v, *m, *C, *stress;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(mpm->ev_p2g, 0, 0, 0, 0));
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &a.n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_C, NULL, NULL, (void **)&C));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_STRESS, NULL, NULL, (void **)&stress));
  a.x = x, a.v = v, a.m = m, a.C = C, a.stress = stress;
  PetscCall(GetPatch(mpm, &a.pt));
  for (int d = 0; d < 3; d++) a.lo[d] = mpm->info.lo[d];
  a.h = mpm->info.h, a.dt = dt, a.dinv = mpm->kernel->dinv;
  /* clear the patch where the last substep left values (the rows the last P2G wrote and the band the
   * ghost exchange wrote), scatter into it recording the rows */
  PetscCall(VecGetArray(mpm->gl, &a.g));
  for (PetscInt r = 0; r < mpm->nrows; r++) {
    if (mpm->rlo[r] <= mpm->rhi[r]) PetscCall(PetscArrayzero(a.g + r * a.pt.sy + mpm->rlo[r] * a.pt.dof, (mpm->rhi[r] - mpm->rlo[r] + 1) * a.pt.dof));
    mpm->mlo[r] = PETSC_MAX_INT, mpm->mhi[r] = -1;
  }
  for (PetscInt b = 0, e; b < mpm->nband; b = e) { /* by runs of consecutive nodes */
    for (e = b + 1; e < mpm->nband && mpm->band[e] == mpm->band[e - 1] + 1; e++) {}
    PetscCall(PetscArrayzero(a.g + mpm->band[b] * a.pt.dof, (e - b) * a.pt.dof));
  }
  a.mlo = mpm->mlo, a.mhi = mpm->mhi, a.ny = mpm->ny;
  if (mpm->avx && mpm->dim == 3 && mpm->transfer->mls) p2g_avx[mpm->fma][mpm->kernel->K - 3](&a);
  else p2g[mpm->dim - 2][mpm->kernel->K - 3][TransferIndex(mpm->transfer)](&a);
  { /* node row (j, k) holds the nodes of the bases (j - b, k - c), b, c < K: [min base x, max base x + K - 1] */
    const PetscInt K = mpm->kernel->K, ny = mpm->ny, nz = mpm->nrows / ny;
    for (PetscInt k = 0; k < nz; k++)
      for (PetscInt j = 0; j < ny; j++) {
        PetscInt lo = PETSC_MAX_INT, hi = -1;
        for (PetscInt c = 0; c < (mpm->dim == 3 ? K : 1) && c <= k; c++)
          for (PetscInt b = 0; b < K && b <= j; b++) {
            const PetscInt r = (k - c) * ny + j - b;
            lo = PetscMin(lo, mpm->mlo[r]), hi = PetscMax(hi, mpm->mhi[r]);
          }
        mpm->rlo[k * ny + j] = hi >= 0 ? lo : 0;
        mpm->rhi[k * ny + j] = hi >= 0 ? hi + K - 1 : -1;
      }
  }
  if (mpm->ghost_sf) { /* the ghost nodes' sums to their owners, the owners' totals back to every copy */
    /* the box of the nodes this scatter wrote on any rank (global indices): the exchange must cover it */
    const PetscInt ny = mpm->ny, nz = mpm->nrows / ny;
    PetscInt box[6] = {PETSC_MAX_INT, PETSC_MAX_INT, PETSC_MAX_INT, PETSC_MAX_INT, PETSC_MAX_INT, PETSC_MAX_INT};
    for (PetscInt k = 0; k < nz; k++)
      for (PetscInt j = 0; j < ny; j++) {
        const PetscInt r = k * ny + j;
        if (mpm->rlo[r] > mpm->rhi[r]) continue;
        box[0] = PetscMin(box[0], mpm->rlo[r] + a.pt.gs[0]), box[1] = PetscMin(box[1], -(mpm->rhi[r] + a.pt.gs[0]));
        box[2] = PetscMin(box[2], j + a.pt.gs[1]), box[3] = PetscMin(box[3], -(j + a.pt.gs[1]));
        box[4] = PetscMin(box[4], k + a.pt.gs[2]), box[5] = PetscMin(box[5], -(k + a.pt.gs[2]));
      }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, box, 6, MPIU_INT, MPI_MIN, s->comm));
    for (int d = 0; d < 3; d++) box[2 * d + 1] = -box[2 * d + 1];
    PetscCall(MPMGhostExchangeCover(s, mpm, box));
    PetscCall(PetscSFReduceBegin(mpm->ghost_sf, MPIU_REAL, a.g, a.g, MPI_SUM));
    PetscCall(PetscSFReduceEnd(mpm->ghost_sf, MPIU_REAL, a.g, a.g, MPI_SUM));
    PetscCall(PetscSFBcastBegin(mpm->ghost_sf, MPIU_REAL, a.g, a.g, MPI_REPLACE));
    PetscCall(PetscSFBcastEnd(mpm->ghost_sf, MPIU_REAL, a.g, a.g, MPI_REPLACE));
  }
  PetscCall(VecRestoreArray(mpm->gl, &a.g));
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_STRESS, NULL, NULL, (void **)&stress));
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_C, NULL, NULL, (void **)&C));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(PetscLogEventEnd(mpm->ev_p2g, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* A boundary condition on a velocity v relative to the obstacle, n the unit normal out of the
 * obstacle (Stomakhin et al. 2013, section 8, eq. 27 with Coulomb friction mu). */
static inline void Collide(const int D, SimParticlesBoundary bc, PetscReal mu, const PetscReal n[3], PetscReal v[3])
{
  PetscReal vn = 0, vt[3], lt = 0;

  if (bc == SIM_PARTICLES_STICKY) {
    for (int r = 0; r < D; r++) v[r] = 0;
    return;
  }
  for (int r = 0; r < D; r++) vn += v[r] * n[r];
  if (bc == SIM_PARTICLES_SEPARATE && vn >= 0) return; /* leaving: free */
  for (int r = 0; r < D; r++) vt[r] = v[r] - vn * n[r], lt += vt[r] * vt[r];
  lt = PetscSqrtReal(lt);
  if (mu > 0 && vn < 0) { /* friction of the impact -vn */
    const PetscReal f = lt > -mu * vn ? 1 + mu * vn / lt : 0;
    for (int r = 0; r < D; r++) vt[r] *= f;
  }
  for (int r = 0; r < D; r++) v[r] = vt[r];
}

/* Signed distance phi (> 0 outside the solid) and unit normal n of a collider at time t. */
static inline PetscReal ColliderPhi(const int D, const SimParticlesCollider *c, PetscReal t, const PetscReal x[3], PetscReal n[3])
{
  PetscReal a[3], y[3], l = 0;

  for (int r = 0; r < 3; r++) a[r] = c->a[r] + c->velocity[r] * t, y[r] = r < D ? x[r] - a[r] : 0;
  if (c->shape[0] == 'p') { /* plane */
    PetscReal phi = 0;
    for (int r = 0; r < D; r++) phi += y[r] * c->b[r], n[r] = c->b[r];
    return phi;
  }
  if (c->shape[0] == 's') { /* sphere */
    for (int r = 0; r < D; r++) l += y[r] * y[r];
    l = PetscSqrtReal(l);
    for (int r = 0; r < D; r++) n[r] = l > 0 ? y[r] / l : (r == 1);
    return l - c->b[0];
  }
  { /* box [a, b] moved with a: the outward normal of the nearest face (inside) or of the nearest point */
    PetscReal out[3], dmax = -PETSC_MAX_REAL;
    int face = 0;
    for (int r = 0; r < D; r++) {
      const PetscReal lo = a[r], hi = c->b[r] + c->velocity[r] * t, dlo = lo - x[r], dhi = x[r] - hi;
      out[r] = dlo > 0 ? -dlo : (dhi > 0 ? dhi : 0);
      l += out[r] * out[r];
      if (dlo > dmax) dmax = dlo, face = -(r + 1);
      if (dhi > dmax) dmax = dhi, face = r + 1;
    }
    if (l > 0) {
      l = PetscSqrtReal(l);
      for (int r = 0; r < D; r++) n[r] = out[r] / l;
      return l;
    }
    for (int r = 0; r < D; r++) n[r] = 0;
    n[PetscAbsInt(face) - 1] = face > 0 ? 1 : -1;
    return dmax;
  }
}

/* ---- 2. grid update (Hu et al. 2018, eq. 30; Stomakhin et al. 2013, section 8): velocity =
 * momentum / mass, gravity, then the box walls and the colliders. FLIP also keeps the velocity
 * before forces. ---- */
static inline __attribute__((always_inline)) void NodeUpdate(const int D, const MPM *mpm, PetscReal *g, PetscInt i, PetscInt j, PetscInt k, PetscReal dt)
{
  const SimParticlesInfo *in = &mpm->info;
  const SimParticlesWalls *wl = &in->walls;
  const PetscBool flip = mpm->transfer->flip;
  const PetscInt id[3] = {i, j, k};
  PetscReal v[3] = {0, 0, 0}, x[3] = {0, 0, 0};
  const PetscReal m = g[D];

  if (!(m > 0)) return; /* no particle near: stays zero */
  for (int r = 0; r < D; r++) {
    v[r] = (g[r] + (flip ? g[D + 1 + r] : 0)) / m + dt * in->gravity[r];
    if (flip) g[D + 1 + r] = g[r] / m;
    x[r] = in->lo[r] + id[r] * in->h;
  }
  for (int r = 0; r < D; r++) { /* walls: the normal points into the box */
    const PetscReal n[3] = {r == 0, r == 1, r == 2}, nn[3] = {-n[0], -n[1], -n[2]};
    if (x[r] - in->lo[r] < wl->thickness) Collide(D, wl->bc[2 * r], wl->friction[2 * r], n, v);
    if (in->hi[r] - x[r] < wl->thickness) Collide(D, wl->bc[2 * r + 1], wl->friction[2 * r + 1], nn, v);
  }
  for (PetscInt c = 0; c < in->ncolliders; c++) {
    const SimParticlesCollider *col = &in->colliders[c];
    PetscReal n[3], vrel[3];
    if (ColliderPhi(D, col, mpm->time, x, n) > 0) continue;
    for (int r = 0; r < D; r++) vrel[r] = v[r] - col->velocity[r];
    Collide(D, col->bc, col->friction, n, vrel);
    for (int r = 0; r < D; r++) v[r] = vrel[r] + col->velocity[r];
  }
  for (int r = 0; r < D; r++) g[r] = v[r];
}

/* The nodes P2G wrote (the rows' ranges rlo .. rhi) of the patch g, then the band's nodes outside
 * those ranges: every node of the patch with mass then holds its velocity. */
static inline __attribute__((always_inline)) void GridUpdateRows(const int D, MPM *mpm, PetscReal *g, PetscReal dt)
{
  const PetscInt dof = mpm->dof, *gs = mpm->gs, *gm = mpm->gm;

  for (PetscInt k = 0; k < (D == 3 ? gm[2] : 1); k++)
    for (PetscInt j = 0; j < gm[1]; j++) {
      const PetscInt r = k * gm[1] + j;
      for (PetscInt i = mpm->rlo[r]; i <= mpm->rhi[r]; i++) NodeUpdate(D, mpm, g + (r * gm[0] + i) * dof, gs[0] + i, gs[1] + j, gs[2] + k, dt);
    }
  for (PetscInt b = 0; b < mpm->nband; b++) {
    const PetscInt q = mpm->band[b], i = q % gm[0], r = q / gm[0];
    if (i < mpm->rlo[r] || i > mpm->rhi[r]) NodeUpdate(D, mpm, g + q * dof, gs[0] + i, gs[1] + r % gm[1], gs[2] + r / gm[1], dt);
  }
}

PetscErrorCode MPMGridUpdate(SimSolver s, MPM *mpm, PetscReal dt)
{
  PetscReal *g;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(mpm->ev_grid, 0, 0, 0, 0));
  PetscCall(VecGetArray(mpm->gl, &g));
  if (mpm->dim == 2) GridUpdateRows(2, mpm, g, dt);
  else GridUpdateRows(3, mpm, g, dt);
  PetscCall(VecRestoreArray(mpm->gl, &g));
  PetscCall(PetscLogEventEnd(mpm->ev_grid, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt n;
  PetscReal *x, *v, *C, *F;
  const PetscReal *g;
  Patch pt;
  PetscReal lo[3], hi[3], h, dt, dinv, flip_ratio;
  PetscReal *F9, *Jtrial; /* out: the trial F (3x3; in 3D this may be F) and its determinant, for the constitutive update */
  int *check; /* out: check[0] = 1 when the kernel checked every particle (a cell inside the box, trial J > 0), then check[1] = 1 when all passed,
               * and, with track, check[2] the number of particles whose next kernel leaves the patch (MPMGridToParticles' strays) */
  int track, pge[3]; /* more than one rank: count those (the patch's nodes gs .. pge - 1 on each axis) */
} G2PArgs;

/* ---- 3. grid to particles (Hu et al. 2018, eqs. 17 and 31; Jiang et al. 2015, eq. 10): the PIC
 * velocity sum w v_i, the affine C = sum w v_i (x_i - x_p)^T D^-1, the velocity gradient (C for
 * MLS, sum v_i grad w^T otherwise), FLIP's blend, advection x += dt v and F <- (I + dt grad v) F.
 * Writes the trial F (3x3, F33 = 1 in 2D) and det F for the constitutive update. The sums run row by
 * row of nodes: sum_i w_i v_i and sum_i w_i v_i i along x, then weighted by the row's w_y w_z. ---- */
static inline __attribute__((always_inline)) void G2P(const int D, const int K, const int T, const int X, const G2PArgs *a)
{
  const int affine = T >= 2, mls = T == 3, flip = T == 1;
  const PetscReal h = a->h, ih = 1 / h, dt = a->dt, cfac = a->dinv * ih, alpha = a->flip_ratio;
  const PetscInt dof = a->pt.dof, sy = a->pt.sy, sz = a->pt.sz, gs0 = a->pt.gs[0], gs1 = a->pt.gs[1], gs2 = a->pt.gs[2], n = a->n;
  const PetscReal lo[3] = {a->lo[0], a->lo[1], a->lo[2]}, lo4[4] = {a->lo[0], a->lo[1], a->lo[2], 0};
  const PetscReal *restrict g = a->g;
  PetscReal *restrict x = a->x, *restrict vel = a->v, *restrict Cf = a->C, *Ff = a->F, *F9out = a->F9, *restrict Jt = a->Jtrial; /* F9out may be Ff */
  /* 3D MLS AVX: the checks of MPMGridToParticles (lo + h <= x < hi - h on every axis, J > 0) as masks,
   * the same comparisons of the same numbers (the mass lane passes) */
  const V4 lob = {a->lo[0] + h, a->lo[1] + h, a->lo[2] + h, -PETSC_MAX_REAL}, hib = {a->hi[0] - h, a->hi[1] - h, a->hi[2] - h, PETSC_MAX_REAL};
  V4L okv = {-1, -1, -1, -1};
  int jok = 1, nstray = 0;
  const V4I pgs = {(int)gs0, (int)gs1, (int)gs2, 0}, pge = {a->pge[0], a->pge[1], a->pge[2], K};

  for (PetscInt p = 0; p < n; p++) {
    PetscReal w[3][4] = {{0}}, dw[3][4] = {{0}}, fx[3] = {0, 0, 0}, v[3] = {0, 0, 0}, dv[3] = {0, 0, 0}, Bo[3][3] = {{0}}, L[3][3] = {{0}};
    PetscReal *xp = x + D * p, *vp = vel + D * p, *Fp = Ff + D * D * p, *F9 = F9out + 9 * p;
    PetscInt base[3] = {0, 0, gs2};

    PetscReal wt[4][4]; /* 3D, quadratic, AVX: the weights by node (WEIGHTS3Q) */
    if (D == 3 && X && K == 3) WEIGHTS3Q(xp, lo4, ih, base, fx, wt);
    else
      for (int d = 0; d < D; d++) base[d] = MPMWeights1(K, (xp[d] - lo[d]) * ih, w[d], dw[d], &fx[d]);
    if (D == 2) w[2][0] = 1;
    if (D == 3 && mls && X) { /* the loop below on the node's four reals at once (AVX; the mass lane unused) */
      V4 va = {0, 0, 0, 0}, b0 = {0, 0, 0, 0}, b1 = {0, 0, 0, 0}, b2 = {0, 0, 0, 0}, w0[4], w0i[4], w1[4], w2[4];
      const V4 one = {1, 1, 1, 1};
      for (int i = 0; i < K; i++) { /* the weights broadcast once per particle */
        if (K == 3) w0[i] = wt[i][0] * one, w1[i] = wt[i][1] * one, w2[i] = wt[i][2] * one; /* x 1: exact */
        else w0[i] = w[0][i] * one, w1[i] = w[1][i] * one, w2[i] = w[2][i] * one;
        w0i[i] = w0[i] * (PetscReal)i;
      }
      for (int k = 0; k < K; k++) {
#pragma GCC unroll 4
        for (int j = 0; j < K; j++) {
          const PetscReal *restrict row = g + (base[2] + k - gs2) * sz + (base[1] + j - gs1) * sy + (base[0] - gs0) * dof;
          const V4 wjk = w1[j] * w2[k], wj = wjk * (PetscReal)j, wk = wjk * (PetscReal)k;
          V4 rv = {0, 0, 0, 0}, ri = {0, 0, 0, 0};
#pragma GCC unroll 4
          for (int i = 0; i < K; i++) {
            const V4 nd = V4LOAD(row + i * dof);
            rv += w0[i] * nd;
            if (i) ri += w0i[i] * nd;
          }
          va += wjk * rv, b0 += wjk * ri;
          if (j) b1 += wj * rv; /* j = 0: + (+0 rv), which leaves the sum (never -0) as it is */
          if (k) b2 += wk * rv;
        }
      }
      { /* the tail below by columns of C (lanes: rows), each lane its operations in their order:
         * C = (Bo - v fx^T) cfac, F <- F + sum_e (dt C e_e) (e_e^T F) */
        const V4 c0 = (b0 - va * fx[0]) * cfac, c1 = (b1 - va * fx[1]) * cfac, c2 = (b2 - va * fx[2]) * cfac;
        const V4 d0 = dt * c0, d1 = dt * c1, d2 = dt * c2;
        V4 fn[3];
        PetscReal Fn[9];
        for (int c = 0; c < 3; c++) {
          const V4 col = {Fp[c], Fp[3 + c], Fp[6 + c], 0};
          fn[c] = col + d0 * Fp[c] + d1 * Fp[3 + c] + d2 * Fp[6 + c];
        }
        const V4 xo = {xp[0], xp[1], xp[2], 0}, xn = xo + dt * va; /* x += dt v, lane by lane */
        for (int r = 0; r < 3; r++) {
          Cf[9 * p + 3 * r] = c0[r], Cf[9 * p + 3 * r + 1] = c1[r], Cf[9 * p + 3 * r + 2] = c2[r];
          vp[r] = va[r];
          xp[r] = xn[r];
          Fn[3 * r] = fn[0][r], Fn[3 * r + 1] = fn[1][r], Fn[3 * r + 2] = fn[2][r];
        }
        for (int q = 0; q < 9; q++) F9[q] = Fn[q];
        Jt[p] = Fn[0] * (Fn[4] * Fn[8] - Fn[5] * Fn[7]) - Fn[1] * (Fn[3] * Fn[8] - Fn[5] * Fn[6]) + Fn[2] * (Fn[3] * Fn[7] - Fn[4] * Fn[6]);
        okv &= (xn >= lob) & (xn < hib);
        jok &= Jt[p] > 0;
        if (a->track) { /* MPMGridToParticles' strays: the next base (MPMWeights1) at least 1 cell in, the K nodes from it in the patch */
          V4 xq = xn;
          xq[3] = lo4[3] + 1; /* the mass lane: a valid cell (its conversion below must not overflow) */
          const V4 xh = (xq - V4LOAD(lo4)) * ih;
          const V4I b = K == 3 ? __builtin_convertvector(xh - 0.5, V4I) : __builtin_convertvector(xh, V4I) - 1;
          const V4L in = xh >= 1;
          const V4I out = (b < pgs) | (b + K > pge);
          nstray += (out[0] | out[1] | out[2] | !in[0] | !in[1] | !in[2]) != 0;
        }
      }
      continue;
    } else     if (D == 3 && mls) { /* the loop below in pairs of lanes (x, y), (z, mass: unused) */
      V2 va = {0, 0}, vb = {0, 0}, b0a = {0, 0}, b0b = {0, 0}, b1a = {0, 0}, b1b = {0, 0}, b2a = {0, 0}, b2b = {0, 0};
      for (int k = 0; k < K; k++) {
#pragma GCC unroll 4
        for (int j = 0; j < K; j++) {
          const PetscReal *restrict row = g + (base[2] + k - gs2) * sz + (base[1] + j - gs1) * sy + (base[0] - gs0) * dof;
          const PetscReal wjk = w[1][j] * w[2][k], wj = wjk * j, wk = wjk * k;
          V2 rva = {0, 0}, rvb = {0, 0}, ria = {0, 0}, rib = {0, 0};
#pragma GCC unroll 4
          for (int i = 0; i < K; i++) {
            const V2 na = V2Load(row + i * dof), nb = V2Load(row + i * dof + 2);
            rva += w[0][i] * na, rvb += w[0][i] * nb;
            if (i) {
              const PetscReal wi = w[0][i] * i;
              ria += wi * na, rib += wi * nb;
            }
          }
          va += wjk * rva, vb += wjk * rvb;
          b0a += wjk * ria, b0b += wjk * rib;
          b1a += wj * rva, b1b += wj * rvb;
          b2a += wk * rva, b2b += wk * rvb;
        }
      }
      v[0] = va[0], v[1] = va[1], v[2] = vb[0];
      Bo[0][0] = b0a[0], Bo[1][0] = b0a[1], Bo[2][0] = b0b[0];
      Bo[0][1] = b1a[0], Bo[1][1] = b1a[1], Bo[2][1] = b1b[0];
      Bo[0][2] = b2a[0], Bo[1][2] = b2a[1], Bo[2][2] = b2b[0];
    } else if (D == 2 && mls) { /* the pair (x, y) */
      V2 va = {0, 0}, b0a = {0, 0}, b1a = {0, 0};
#pragma GCC unroll 4
      for (int j = 0; j < K; j++) {
        const PetscReal *restrict row = g + (base[1] + j - gs1) * sy + (base[0] - gs0) * dof;
        const PetscReal wjk = w[1][j] * w[2][0], wj = wjk * j;
        V2 rva = {0, 0}, ria = {0, 0};
#pragma GCC unroll 4
        for (int i = 0; i < K; i++) {
          const V2 na = V2Load(row + i * dof);
          rva += w[0][i] * na;
          if (i) ria += (w[0][i] * i) * na;
        }
        va += wjk * rva, b0a += wjk * ria, b1a += wj * rva;
      }
      v[0] = va[0], v[1] = va[1];
      Bo[0][0] = b0a[0], Bo[1][0] = b0a[1], Bo[0][1] = b1a[0], Bo[1][1] = b1a[1];
    } else
    for (int k = 0; k < (D == 3 ? K : 1); k++) {
#pragma GCC unroll 4
      for (int j = 0; j < K; j++) {
        const PetscReal *restrict row = g + (base[2] + k - gs2) * sz + (base[1] + j - gs1) * sy + (base[0] - gs0) * dof;
        const PetscReal wjk = w[1][j] * w[2][k];
        PetscReal rv[3] = {0, 0, 0}, ri[3] = {0, 0, 0}, rd[3] = {0, 0, 0}, rf[3] = {0, 0, 0};
#pragma GCC unroll 4
        for (int i = 0; i < K; i++) {
          const PetscReal *restrict node = row + i * dof;
          for (int r = 0; r < D; r++) {
            rv[r] += w[0][i] * node[r];
            if (affine && i) ri[r] += w[0][i] * i * node[r];
            if (!mls) rd[r] += dw[0][i] * node[r];
            if (flip) rf[r] += w[0][i] * (node[r] - node[D + 1 + r]);
          }
        }
        for (int r = 0; r < D; r++) {
          v[r] += wjk * rv[r];
          if (flip) dv[r] += wjk * rf[r];
          if (affine) {
            Bo[r][0] += wjk * ri[r];
            Bo[r][1] += wjk * j * rv[r];
            if (D == 3) Bo[r][2] += wjk * k * rv[r];
          }
          if (!mls) { /* sum v_i grad w^T, grad w = (dw_x w_y w_z, w_x dw_y w_z, w_x w_y dw_z) / h */
            L[r][0] += wjk * rd[r] * ih;
            L[r][1] += dw[1][j] * w[2][k] * rv[r] * ih;
            if (D == 3) L[r][2] += w[1][j] * dw[2][k] * rv[r] * ih;
          }
        }
      }
    }
    /* C = sum w v_i (x_i - x_p)^T D^-1 = (Bo - v fx^T) h dinv / h^2 */
    for (int r = 0; r < D; r++)
      for (int c = 0; c < D; c++) {
        const PetscReal Crc = affine ? (Bo[r][c] - v[r] * fx[c]) * cfac : 0;
        Cf[D * D * p + D * r + c] = Crc;
        if (mls) L[r][c] = Crc;
      }
    for (int r = 0; r < D; r++) {
      vp[r] = flip ? alpha * (vp[r] + dv[r]) + (1 - alpha) * v[r] : v[r];
      xp[r] += dt * v[r];
    }
    /* F <- (I + dt L) F, into the 3x3 trial (F33 = 1 in 2D; in 3D F9 may be F itself) */
    PetscReal Fn[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
    for (int r = 0; r < D; r++)
      for (int c = 0; c < D; c++) {
        PetscReal f = Fp[D * r + c];
        for (int e = 0; e < D; e++) f += dt * L[r][e] * Fp[D * e + c];
        Fn[3 * r + c] = f;
      }
    for (int q = 0; q < 9; q++) F9[q] = Fn[q];
    Jt[p] = D == 2 ? Fn[0] * Fn[4] - Fn[1] * Fn[3]
                   : Fn[0] * (Fn[4] * Fn[8] - Fn[5] * Fn[7]) - Fn[1] * (Fn[3] * Fn[8] - Fn[5] * Fn[6]) + Fn[2] * (Fn[3] * Fn[7] - Fn[4] * Fn[6]);
  }
  a->check[0] = D == 3 && mls && X;
  a->check[1] = jok && okv[0] && okv[1] && okv[2];
  a->check[2] = nstray;
}

#define G2P_VARIANTS(D, K, KN) \
  static void G2P_##D##KN##_0(const G2PArgs *a) { G2P(D, K, 0, 0, a); } \
  static void G2P_##D##KN##_1(const G2PArgs *a) { G2P(D, K, 1, 0, a); } \
  static void G2P_##D##KN##_2(const G2PArgs *a) { G2P(D, K, 2, 0, a); } \
  static void G2P_##D##KN##_3(const G2PArgs *a) { G2P(D, K, 3, 0, a); }
G2P_VARIANTS(2, 3, Q)
G2P_VARIANTS(2, 4, C)
G2P_VARIANTS(3, 3, Q)
G2P_VARIANTS(3, 4, C)
static void (*const g2p[2][2][4])(const G2PArgs *) = {{{G2P_2Q_0, G2P_2Q_1, G2P_2Q_2, G2P_2Q_3}, {G2P_2C_0, G2P_2C_1, G2P_2C_2, G2P_2C_3}},
                                                      {{G2P_3Q_0, G2P_3Q_1, G2P_3Q_2, G2P_3Q_3}, {G2P_3C_0, G2P_3C_1, G2P_3C_2, G2P_3C_3}}};
static __attribute__((target("avx"))) void G2P_3Q_3_avx(const G2PArgs *a)
{
  G2P(3, 3, 3, 1, a);
}
static __attribute__((target("avx"))) void G2P_3C_3_avx(const G2PArgs *a)
{
  G2P(3, 4, 3, 1, a);
}
static __attribute__((target("avx2,fma"))) void G2P_3Q_3_fma(const G2PArgs *a)
{
  G2P(3, 3, 3, 1, a);
}
static __attribute__((target("avx2,fma"))) void G2P_3C_3_fma(const G2PArgs *a)
{
  G2P(3, 4, 3, 1, a);
}
static void (*const g2p_avx[2][2])(const G2PArgs *) = {{G2P_3Q_3_avx, G2P_3C_3_avx}, {G2P_3Q_3_fma, G2P_3C_3_fma}};

/* ---- 4. the constitutive update of n particles of material m (gathered): the return mapping on
 * the trial F, the stress V0 scale P(F) F^T from the material (one batched call, with the SVD the
 * return mapping took), det F and the squared speed of the fastest elastic wave. ---- */
PetscErrorCode MPMConstitutive(MPM *mpm, PetscInt m, PetscInt n, PetscReal *F9, PetscReal *state, const PetscReal *vol, PetscReal *tau, PetscReal *J,
                               PetscReal *speed2, const PetscReal *mass)
{
  MPMMaterial *mt = &mpm->mat[m];
  const PetscInt D = mpm->dim;
  PetscReal *dec = mpm->dec, *scale = mpm->scale, *P = mpm->P;

  PetscFunctionBeginUser;
  if (!n) PetscFunctionReturn(0);
  if (mt->corotated) { /* no return mapping, the stress from the polar R (no SVD) */
    if (D == 3 && mpm->avx) PetscCall(MPMCorotatedStress3Avx(n, F9, vol, mt->elastic->par.mu, mt->elastic->par.lambda, tau, J, mpm->fma));
    else PetscCall(MPMCorotatedStress(D, n, F9, vol, mt->elastic->par.mu, mt->elastic->par.lambda, tau, J));
    for (PetscInt q = 0; q < n; q++) speed2[q] = mt->modulus * vol[q] / mass[q];
    PetscFunctionReturn(0);
  }
  mt->plastic->type->project(mt->plastic, D, n, F9, state, dec, scale);
  if (mt->corotated_dec) { /* the stress from the return mapping's SVD */
    MPMCorotatedStressSvd(D, n, dec, vol, scale, mt->elastic->par.mu, mt->elastic->par.lambda, tau);
    for (PetscInt q = 0; q < n; q++) {
      const PetscReal *Fq = F9 + 9 * q;
      J[q] = D == 2 ? Fq[0] * Fq[4] - Fq[1] * Fq[3]
                    : Fq[0] * (Fq[4] * Fq[8] - Fq[5] * Fq[7]) - Fq[1] * (Fq[3] * Fq[8] - Fq[5] * Fq[6]) + Fq[2] * (Fq[3] * Fq[7] - Fq[4] * Fq[6]);
      speed2[q] = scale[q] * mt->modulus * vol[q] / mass[q];
    }
    PetscFunctionReturn(0);
  }
  if (mt->elastic->ndec == SIM_ISOTROPIC_NDEC) PetscCall(SimMaterialEvaluate(mt->elastic, n, F9, dec, PETSC_TRUE, NULL, P, NULL, NULL));
  else PetscCall(SimMaterialPK1(mt->elastic, n, F9, P));
  for (PetscInt q = 0; q < n; q++) {
    const PetscReal *Pq = P + 9 * q, *Fq = F9 + 9 * q, c = vol[q] * scale[q];
    PetscReal T[3][3];
    for (int r = 0; r < D; r++) /* tau = P F^T (symmetric for an isotropic material) */
      for (int e = r; e < D; e++) T[r][e] = c * (Pq[3 * r] * Fq[3 * e] + Pq[3 * r + 1] * Fq[3 * e + 1] + Pq[3 * r + 2] * Fq[3 * e + 2]);
    if (D == 2) tau[3 * q] = T[0][0], tau[3 * q + 1] = T[1][1], tau[3 * q + 2] = T[0][1];
    else {
      PetscReal *t = tau + 6 * q;
      t[0] = T[0][0], t[1] = T[1][1], t[2] = T[2][2], t[3] = T[0][1], t[4] = T[1][2], t[5] = T[0][2];
    }
    J[q] = D == 2 ? Fq[0] * Fq[4] - Fq[1] * Fq[3]
                  : Fq[0] * (Fq[4] * Fq[8] - Fq[5] * Fq[7]) - Fq[1] * (Fq[3] * Fq[8] - Fq[5] * Fq[6]) + Fq[2] * (Fq[3] * Fq[7] - Fq[4] * Fq[6]);
    speed2[q] = scale[q] * mt->modulus * vol[q] / mass[q];
  }
  PetscFunctionReturn(0);
}

/* Runs the constitutive update of the particles [0, n) of a chunk, one batched call per run of
 * particles of the same material (in place: particles keep their order, runs are long where a scene
 * adds each body's particles together): mat[p] the material ids; F9 (9 each) trial in / elastic out,
 * state, vol, mass by particle; out: the dim x dim F, the stress, J and the squared wave speed. */
static PetscErrorCode ChunkConstitutive(MPM *mpm, PetscInt n, const PetscReal *mat, PetscReal *F9, PetscReal *state, const PetscReal *vol,
                                        const PetscReal *mass, PetscReal *F, PetscReal *stress, PetscReal *J, PetscReal *speed2)
{
  const PetscInt D = mpm->dim, ns = D == 2 ? 3 : 6;

  PetscFunctionBeginUser;
  for (PetscInt p0 = 0, p1; p0 < n; p0 = p1) {
    const PetscReal m = mat[p0];
    for (p1 = p0 + 1; p1 < n && mat[p1] == m; p1++) {}
    PetscCall(MPMConstitutive(mpm, (PetscInt)m, p1 - p0, F9 + 9 * p0, state + p0, vol + p0, stress + ns * p0, J + p0, speed2 + p0, mass + p0));
    if (F9 == F) continue; /* 3D, in place */
    for (PetscInt p = p0; p < p1; p++)
      for (int r = 0; r < D; r++)
        for (int c = 0; c < D; c++) F[D * D * p + D * r + c] = F9[9 * p + 3 * r + c];
  }
  PetscFunctionReturn(0);
}

/* The particle fields a phase reads and writes. */
typedef struct {
  PetscReal *x, *v, *m, *vol, *mat, *id, *C, *F, *plastic, *J, *stress;
} Fields;

static PetscErrorCode GetFields(DM sw, Fields *f, PetscBool get)
{
  const char *names[11] = {SIM_PARTICLES_POSITION, SIM_PARTICLES_VELOCITY, SIM_PARTICLES_MASS, SIM_PARTICLES_VOLUME, SIM_PARTICLES_MATERIAL, SIM_PARTICLES_ID,
                           MPM_FIELD_C,            MPM_FIELD_F,            MPM_FIELD_PLASTIC,  MPM_FIELD_J,          MPM_FIELD_STRESS};
  PetscReal **ptr[11] = {&f->x, &f->v, &f->m, &f->vol, &f->mat, &f->id, &f->C, &f->F, &f->plastic, &f->J, &f->stress};

  PetscFunctionBeginUser;
  for (int k = 0; k < 11; k++) {
    if (get) PetscCall(DMSwarmGetField(sw, names[k], NULL, NULL, (void **)ptr[k]));
    else PetscCall(DMSwarmRestoreField(sw, names[10 - k], NULL, NULL, (void **)ptr[10 - k]));
  }
  PetscFunctionReturn(0);
}

/* A particle that left the valid region (a cell inside the box on every side: its kernel must find
 * nodes) or whose trial J is not positive (see MPMGridToParticles). */
static inline void Flag(PetscReal bad[7], PetscReal id, PetscReal kind, const PetscReal *x, PetscInt D, PetscReal J, PetscReal mat)
{
  if (bad[0] >= 0) return;
  bad[0] = id, bad[1] = kind;
  for (PetscInt d = 0; d < 3; d++) bad[2 + d] = d < D ? x[d] : 0;
  bad[5] = J, bad[6] = mat;
}

/* max(vmax, max_q sqrt(speed2[q]) + |v_q|) of n 3D particles, four at a time in AVX registers: the
 * scalar loop's numbers (square roots correctly rounded, |v|^2 summed in the same order, no fused
 * multiply-add; the maximum of finite numbers does not depend on the order). */
static __attribute__((target("avx"))) PetscReal MaxSpeed3Avx(PetscInt n, const PetscReal *speed2, const PetscReal *v, PetscReal vmax)
{
  __m256d m = _mm256_set1_pd(vmax);
  PetscInt q = 0;
  PetscReal m4[4];

  for (; q + 4 <= n; q += 4) {
    const PetscReal *w = v + 3 * q;
    const __m256d vx = _mm256_set_pd(w[9], w[6], w[3], w[0]), vy = _mm256_set_pd(w[10], w[7], w[4], w[1]), vz = _mm256_set_pd(w[11], w[8], w[5], w[2]);
    const __m256d v2 = vx * vx + vy * vy + vz * vz;
    m = _mm256_max_pd(m, _mm256_sqrt_pd(_mm256_loadu_pd(speed2 + q)) + _mm256_sqrt_pd(v2));
  }
  _mm256_storeu_pd(m4, m);
  vmax = PetscMax(PetscMax(m4[0], m4[1]), PetscMax(m4[2], m4[3]));
  for (; q < n; q++) {
    const PetscReal *w = v + 3 * q, v2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    vmax = PetscMax(vmax, PetscSqrtReal(speed2[q]) + PetscSqrtReal(v2));
  }
  return vmax;
}

PetscErrorCode MPMGridToParticles(SimSolver s, MPM *mpm, PetscReal dt, PetscReal bad[7], PetscReal *speed, PetscInt *strays)
{
  DM sw;
  Fields f;
  G2PArgs a;
  PetscInt n;
  const PetscInt D = mpm->dim, ns = D == 2 ? 3 : 6;
  const PetscReal ih = 1 / mpm->info.h;
  PetscReal Jtrial[MPM_CHUNK], speed2[MPM_CHUNK], vmax = 0;
  const PetscReal *g;
  int check[3];

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(mpm->ev_g2p, 0, 0, 0, 0));
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(GetFields(sw, &f, PETSC_TRUE));
  PetscCall(GetPatch(mpm, &a.pt));
  PetscCall(VecGetArrayRead(mpm->gl, &g));
  a.g = g;
  for (int d = 0; d < 3; d++) a.lo[d] = mpm->info.lo[d];
  for (int d = 0; d < 3; d++) a.hi[d] = mpm->info.hi[d];
  a.h = mpm->info.h, a.dt = dt, a.dinv = mpm->kernel->dinv, a.flip_ratio = mpm->flip_ratio;
  a.Jtrial = Jtrial, a.check = check, a.track = mpm->ghost_sf != NULL;
  for (int d = 0; d < 3; d++) a.pge[d] = (int)(mpm->gs[d] + mpm->gm[d]);
  for (int k = 0; k < 7; k++) bad[k] = -1;
  *speed = 0, *strays = 0;
  for (PetscInt p0 = 0; p0 < n; p0 += MPM_CHUNK) {
    const PetscInt nc = PetscMin(MPM_CHUNK, n - p0);
    a.n = nc, a.x = f.x + D * p0, a.v = f.v + D * p0, a.C = f.C + D * D * p0, a.F = f.F + D * D * p0;
    a.F9 = D == 3 ? a.F : mpm->F9; /* 3D: F is 3x3, the trial F goes to it in place */
    if (mpm->avx && D == 3 && mpm->transfer->mls) g2p_avx[mpm->fma][mpm->kernel->K - 3](&a);
    else g2p[D - 2][mpm->kernel->K - 3][TransferIndex(mpm->transfer)](&a);
    for (PetscInt q = 0; q < (check[0] && check[1] ? 0 : nc); q++) { /* the particle stays a cell inside the box; J > 0 (unless the kernel found every one so) */
      const PetscReal *xq = f.x + D * (p0 + q);
      for (PetscInt d = 0; d < D; d++)
        if (!(xq[d] >= mpm->info.lo[d] + mpm->info.h && xq[d] < mpm->info.hi[d] - mpm->info.h)) Flag(bad, f.id[p0 + q], 1, xq, D, Jtrial[q], f.mat[p0 + q]);
      if (!(Jtrial[q] > 0)) Flag(bad, f.id[p0 + q], 2, xq, D, Jtrial[q], f.mat[p0 + q]);
    }
    if (mpm->ghost_sf && check[0]) *strays += check[2];
    else if (mpm->ghost_sf) /* the next P2G's nodes base .. base + K - 1 (MPMWeights1) must be in the patch */
      for (PetscInt q = 0; q < nc; q++) {
        const PetscReal *xq = f.x + D * (p0 + q);
        for (PetscInt d = 0; d < D; d++) {
          const PetscReal xh = (xq[d] - mpm->info.lo[d]) * ih;
          const PetscInt base = mpm->kernel->K == 3 ? (PetscInt)(xh - 0.5) : (PetscInt)xh - 1;
          if (!(xh >= 1) || base < mpm->gs[d] || base + mpm->kernel->K > mpm->gs[d] + mpm->gm[d]) {
            (*strays)++;
            break;
          }
        }
      }
    if (bad[0] >= 0) break; /* the state is not used further: the step fails */
    PetscCall(ChunkConstitutive(mpm, nc, f.mat + p0, a.F9, f.plastic + p0, f.vol + p0, f.m + p0, f.F + D * D * p0, f.stress + ns * p0, f.J + p0, speed2));
    if (mpm->avx && D == 3) vmax = MaxSpeed3Avx(nc, speed2, f.v + 3 * p0, vmax);
    else
      for (PetscInt q = 0; q < nc; q++) {
        PetscReal v2 = 0;
        for (PetscInt d = 0; d < D; d++) v2 += f.v[D * (p0 + q) + d] * f.v[D * (p0 + q) + d];
        vmax = PetscMax(vmax, PetscSqrtReal(speed2[q]) + PetscSqrtReal(v2));
      }
  }
  *speed = vmax;
  PetscCall(VecRestoreArrayRead(mpm->gl, &g));
  PetscCall(GetFields(sw, &f, PETSC_FALSE));
  PetscCall(PetscLogEventEnd(mpm->ev_g2p, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode MPMComputeStress(SimSolver s, MPM *mpm, PetscReal *speed)
{
  DM sw;
  Fields f;
  PetscInt n;
  const PetscInt D = mpm->dim, ns = D == 2 ? 3 : 6;
  PetscReal speed2[MPM_CHUNK], vmax = 0;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(GetFields(sw, &f, PETSC_TRUE));
  for (PetscInt p0 = 0; p0 < n; p0 += MPM_CHUNK) {
    const PetscInt nc = PetscMin(MPM_CHUNK, n - p0);
    for (PetscInt q = 0; q < nc; q++) {
      PetscReal *F9 = mpm->F9 + 9 * q;
      for (int k = 0; k < 9; k++) F9[k] = 0;
      F9[8] = 1;
      for (int r = 0; r < D; r++)
        for (int c = 0; c < D; c++) F9[3 * r + c] = f.F[D * D * (p0 + q) + D * r + c];
    }
    PetscCall(ChunkConstitutive(mpm, nc, f.mat + p0, mpm->F9, f.plastic + p0, f.vol + p0, f.m + p0, f.F + D * D * p0, f.stress + ns * p0, f.J + p0, speed2));
    for (PetscInt q = 0; q < nc; q++) {
      PetscReal v2 = 0;
      for (PetscInt d = 0; d < D; d++) v2 += f.v[D * (p0 + q) + d] * f.v[D * (p0 + q) + d];
      vmax = PetscMax(vmax, PetscSqrtReal(speed2[q]) + PetscSqrtReal(v2));
    }
  }
  *speed = vmax;
  PetscCall(GetFields(sw, &f, PETSC_FALSE));
  PetscFunctionReturn(0);
}
