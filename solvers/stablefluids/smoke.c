/* Smoke: the problem's sources (e.g. a heated inflow) and vorticity confinement (Fedkiw, Stam and
 * Jensen 2001, sec. 4: f = eps h (N x omega), N = grad|omega| / |grad|omega||). */
#include "solvers/stablefluids/sf_impl.h"

/* The source of the problem's scalar field `index` (if any) on component c of the owned rows of
 * the scalars a: one call per row on a contiguous copy of the row. */
static PetscErrorCode ApplySource(SF *sf, PetscInt index, PetscInt c, PetscReal t, PetscScalar *a)
{
  const SimGridProblem *p = sf->prob;
  SimGridSourceFn source = index >= 0 ? p->scalar[index].source : NULL;
  PetscInt xs, ys, zs, xm, ym, zm;
  PetscReal *xc, *row;

  PetscFunctionBegin;
  if (!source) PetscFunctionReturn(0);
  PetscCall(DMDAGetCorners(sf->dac, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(PetscMalloc2(xm, &xc, xm, &row));
  for (PetscInt i = 0; i < xm; i++) xc[i] = (xs + i + 0.5) * sf->h;
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++) {
      PetscScalar *r = a + SF_NSCALARS * xm * ((j - ys) + ym * (k - zs));
      for (PetscInt i = 0; i < xm; i++) row[i] = r[SF_NSCALARS * i + c];
      PetscCall(source(p->ctx, xm, xc, (j + 0.5) * sf->h, sf->mac->dim == 3 ? (k + 0.5) * sf->h : 0, t, row));
      for (PetscInt i = 0; i < xm; i++) r[SF_NSCALARS * i + c] = row[i];
    }
  PetscCall(PetscFree2(xc, row));
  SFTraffic(sf, 2 * sf->ent_s); /* a pass reading and writing the interleaved scalars */
  PetscFunctionReturn(0);
}

PetscErrorCode SFApplySources(SF *sf, PetscReal t)
{
  PetscScalar *a;

  PetscFunctionBegin;
  if (!sf->smoke) PetscFunctionReturn(0);
  PetscCall(VecGetArray(sf->s, &a));
  for (PetscInt c = 0; c < SF_NSCALARS; c++) PetscCall(ApplySource(sf, sf->scalar_index[c], c, t, a));
  PetscCall(VecRestoreArray(sf->s, &a));
  PetscFunctionReturn(0);
}

/* Vorticity confinement works on boxes of cells around the owned ones, all in the ghosted patch
 * of the velocity (width >= 3), so it needs no exchange beyond the velocity's:
 *   omega on the owned cells and 2 rings (it differentiates cell velocities 1 cell away),
 *   the force f on the owned cells and 1 ring (it differentiates |omega| 1 cell away),
 *   each face the average of f over its 2 cells.
 * The three are computed plane by plane of B along the slowest axis (z in 3D), each a plane behind
 * the one before it (f on plane k needs omega on k - 1 .. k + 1, a face of plane k the f of cells
 * k - 1 and k), so the scratch is a ring of SF_CONF_PLANES planes of B (one plane, the whole box, in
 * 2D) that stays in cache instead of arrays over the whole box: cell (i,j) of a plane at
 * (i - b0) + bx (j - b1), omega with 3 components (1 in 2D), |omega| (3D only), f with dim. */
typedef struct {
  PetscInt lo[3], hi[3]; /* B */
  PetscInt s1, s2;       /* strides of B in cells */
} Box;

static PetscErrorCode VorticityBox(SF *sf, Box *B)
{
  PetscInt xs[3], xm[3];

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(sf->mac->da, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  for (PetscInt d = 0; d < 3; d++) {
    PetscInt ring = d < sf->mac->dim ? 2 : 0;
    B->lo[d] = PetscMax(xs[d] - ring, 0);
    B->hi[d] = PetscMin(xs[d] + xm[d] + ring, sf->mac->n[d]);
  }
  B->s1 = B->hi[0] - B->lo[0];
  B->s2 = B->s1 * (B->hi[1] - B->lo[1]);
  PetscFunctionReturn(0);
}

/* The ring's planes: omega of planes k - 1 .. k + 1 while f of plane k is computed, and f of
 * planes k - 1 and k while the faces of plane k are updated (one plane later). */
#define SF_CONF_PLANES 3

PetscErrorCode SFVorticitySetUp(SF *sf)
{
  Box B = {{0}, {0}, 0, 0};
  PetscInt cells, planes = sf->mac->dim == 3 ? SF_CONF_PLANES : 1;

  PetscFunctionBegin;
  PetscCall(VorticityBox(sf, &B));
  cells = B.s2 * planes;
  PetscCall(PetscMalloc3(cells * (sf->mac->dim == 3 ? 3 : 1), &sf->omega, cells * (sf->mac->dim == 3 ? 1 : 0), &sf->omega_norm, cells * sf->mac->dim, &sf->conf));
  /* the bytes model counts the entries written and read over the whole box (caches ignored) */
  sf->conf_entries = B.s2 * (B.hi[2] - B.lo[2]) * ((sf->mac->dim == 3 ? 4 : 1) + sf->mac->dim);
  PetscFunctionReturn(0);
}

/* Cell-centred velocity component c of cell (i,j,k) from the ghosted faces U (base: its index). */
#define CELL_U(U, b, c, s) (0.5 * ((U)->a[(b) + (c)] + (U)->a[(b) + (c) + (s)]))

/* Whether cell idx has both neighbours inside the domain along every axis < dim. Such cells (most of
 * them) take the straight-line kernels below, whose arithmetic is the general code's with
 * il = i - 1, ih = i + 1 (so the results are bit for bit the same); the others the general code. */
static inline PetscBool InteriorCell(const PetscInt idx[3], const PetscInt n[3], PetscInt dim)
{
  for (PetscInt d = 0; d < dim; d++)
    if (idx[d] < 1 || idx[d] > n[d] - 2) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The i range [*ilo, *ihi) of the row (j, k) in [lo, hi) whose cells are interior (empty if the row
 * itself is not). */
static inline void InteriorRun(PetscInt j, PetscInt k, PetscInt lo, PetscInt hi, const PetscInt n[3], PetscInt dim, PetscInt *ilo, PetscInt *ihi)
{
  const PetscInt probe[3] = {1, j, k};
  *ilo = *ihi = lo;
  if (n[0] < 3 || !InteriorCell(probe, n, dim)) return;
  *ilo = PetscMax(lo, 1);
  *ihi = PetscMax(*ilo, PetscMin(hi, n[0] - 1));
}

/* 1. omega = curl u at cell (i,j,k), q its index in B: d u_c / d x_a from the cell velocities of the
 * neighbours along a (one-sided at the domain's faces). */
static inline void OmegaCell(const SFField *U, const PetscInt n[3], const PetscInt st[3], PetscReal h, PetscInt i, PetscInt j, PetscInt k,
                             PetscInt q, PetscReal *w, PetscReal *wn, const PetscInt dim)
{
  const PetscInt idx[3] = {i, j, k};
  PetscReal du[3][3] = {{0}}; /* du[c][a] = d u_c / d x_a */
  for (PetscInt c = 0; c < dim; c++)
    for (PetscInt ax = 0; ax < dim; ax++) {
      PetscInt il = PetscMax(idx[ax] - 1, 0), ih = PetscMin(idx[ax] + 1, n[ax] - 1), b = SF_IDX(U, i, j, k);
      if (ax == c) continue;
      du[c][ax] = (CELL_U(U, b + (ih - idx[ax]) * st[ax], c, st[c]) - CELL_U(U, b + (il - idx[ax]) * st[ax], c, st[c])) / ((ih - il) * h);
    }
  if (dim == 2) w[q] = du[1][0] - du[0][1];
  else {
    w[3 * q + 0] = du[2][1] - du[1][2];
    w[3 * q + 1] = du[0][2] - du[2][0];
    w[3 * q + 2] = du[1][0] - du[0][1];
    wn[q] = PetscSqrtReal(w[3 * q] * w[3 * q] + w[3 * q + 1] * w[3 * q + 1] + w[3 * q + 2] * w[3 * q + 2]);
  }
}

/* OmegaCell over a run of interior cells [i0, i1) of row (j, k). */
static inline void OmegaRun(const SFField *U, const PetscInt st[3], PetscReal h, PetscInt i0, PetscInt i1, PetscInt j, PetscInt k, PetscInt q0,
                               PetscReal *restrict w, PetscReal *restrict wn, const PetscInt dim)
{
  const PetscScalar *restrict a = U->a;
  const PetscReal h2 = 2 * h;
  PetscInt b = SF_IDX(U, i0, j, k);
#define D(c, ax) ((0.5 * (a[b + st[ax] + (c)] + a[b + st[ax] + (c) + st[c]]) - 0.5 * (a[b - st[ax] + (c)] + a[b - st[ax] + (c) + st[c]])) / h2)
  if (dim == 2)
    for (PetscInt i = i0, q = q0; i < i1; i++, q++, b += st[0]) w[q] = D(1, 0) - D(0, 1);
  else
    for (PetscInt i = i0, q = q0; i < i1; i++, q++, b += st[0]) {
      w[3 * q + 0] = D(2, 1) - D(1, 2);
      w[3 * q + 1] = D(0, 2) - D(2, 0);
      w[3 * q + 2] = D(1, 0) - D(0, 1);
      wn[q] = PetscSqrtReal(w[3 * q] * w[3 * q] + w[3 * q + 1] * w[3 * q + 1] + w[3 * q + 2] * w[3 * q + 2]);
    }
#undef D
}

/* 2. f = eps h (N x omega) at cell q of B, N = grad|omega| / |grad|omega|| from the |omega| of the
 * neighbours (one-sided at the domain's faces); |omega| in 3D as stage 1 stored it in wn. */
static inline PetscReal OmegaNorm(const PetscReal *w, const PetscReal *wn, PetscInt q, const PetscInt dim)
{
  return dim == 2 ? PetscAbsReal(w[q]) : wn[q];
}

static inline void ForceFromEta(PetscReal eps, PetscReal h, const PetscReal eta[3], const PetscReal *w, PetscInt q, PetscReal *f, const PetscInt dim)
{
  const PetscReal len = PetscSqrtReal(eta[0] * eta[0] + eta[1] * eta[1] + eta[2] * eta[2]);
  PetscReal N[3];
  for (PetscInt d = 0; d < 3; d++) N[d] = len > 1e-12 ? eta[d] / len : 0;
  if (dim == 2) {
    /* omega = (0, 0, w): the 3D cross product with its zero terms kept (the same rounding) */
    f[2 * q + 0] = eps * h * (N[1] * w[q] - 0.0);
    f[2 * q + 1] = eps * h * (0.0 - N[0] * w[q]);
  } else {
    const PetscReal *om = w + 3 * q;
    f[3 * q + 0] = eps * h * (N[1] * om[2] - N[2] * om[1]);
    f[3 * q + 1] = eps * h * (N[2] * om[0] - N[0] * om[2]);
    f[3 * q + 2] = eps * h * (N[0] * om[1] - N[1] * om[0]);
  }
}

/* w, wn: omega and |omega| of the cell's plane; wnb, wnt: |omega| of the planes below and above (3D;
 * the cell's own plane at the domain's faces). */
static inline void ForceCell(const PetscInt n[3], const PetscInt cs[3], PetscReal h, PetscReal eps, PetscInt i, PetscInt j, PetscInt k, PetscInt q,
                             const PetscReal *w, const PetscReal *wn, const PetscReal *wnb, const PetscReal *wnt, PetscReal *f, const PetscInt dim)
{
  const PetscInt idx[3] = {i, j, k};
  PetscReal eta[3] = {0, 0, 0};
  for (PetscInt ax = 0; ax < dim; ax++) {
    PetscInt il = PetscMax(idx[ax] - 1, 0), ih = PetscMin(idx[ax] + 1, n[ax] - 1);
    if (ax < 2) {
      PetscInt ql = q + (il - idx[ax]) * cs[ax], qh = q + (ih - idx[ax]) * cs[ax];
      eta[ax] = (OmegaNorm(w, wn, qh, dim) - OmegaNorm(w, wn, ql, dim)) / ((ih - il) * h);
    } else eta[ax] = ((ih > idx[ax] ? wnt : wn)[q] - (il < idx[ax] ? wnb : wn)[q]) / ((ih - il) * h);
  }
  ForceFromEta(eps, h, eta, w, q, f, dim);
}

static inline void ForceRun(const PetscInt cs[3], PetscReal h, PetscReal eps, PetscInt q0, PetscInt q1, const PetscReal *restrict w,
                            const PetscReal *restrict wn, const PetscReal *restrict wnb, const PetscReal *restrict wnt, PetscReal *restrict f,
                            const PetscInt dim)
{
  const PetscReal h2 = 2 * h, c = eps * h;
  if (dim == 2)
    for (PetscInt q = q0; q < q1; q++) { /* ForceCell's arithmetic, written out (eta[2] = 0 adds +0) */
      const PetscReal e0 = (PetscAbsReal(w[q + 1]) - PetscAbsReal(w[q - 1])) / h2, e1 = (PetscAbsReal(w[q + cs[1]]) - PetscAbsReal(w[q - cs[1]])) / h2;
      const PetscReal len = PetscSqrtReal(e0 * e0 + e1 * e1 + 0.0 * 0.0), den = len > 1e-12 ? len : 1;
      const PetscReal r0 = e0 / den, r1 = e1 / den; /* unconditional (den > 0), so the loop has no branch */
      const PetscReal n0 = len > 1e-12 ? r0 : 0, n1 = len > 1e-12 ? r1 : 0;
      f[2 * q + 0] = c * (n1 * w[q] - 0.0);
      f[2 * q + 1] = c * (0.0 - n0 * w[q]);
    }
  else
    for (PetscInt q = q0; q < q1; q++) {
      const PetscReal e0 = (wn[q + 1] - wn[q - 1]) / h2, e1 = (wn[q + cs[1]] - wn[q - cs[1]]) / h2, e2 = (wnt[q] - wnb[q]) / h2;
      const PetscReal len = PetscSqrtReal(e0 * e0 + e1 * e1 + e2 * e2), den = len > 1e-12 ? len : 1;
      const PetscReal r0 = e0 / den, r1 = e1 / den, r2 = e2 / den; /* unconditional: den > 0 */
      const PetscReal n0 = len > 1e-12 ? r0 : 0, n1 = len > 1e-12 ? r1 : 0, n2 = len > 1e-12 ? r2 : 0;
      const PetscReal *om = w + 3 * q;
      f[3 * q + 0] = c * (n1 * om[2] - n2 * om[1]);
      f[3 * q + 1] = c * (n2 * om[0] - n0 * om[2]);
      f[3 * q + 2] = c * (n0 * om[1] - n1 * om[0]);
    }
}

/* The interior runs as kernels of fixed dimension (SF_KERNEL: also compiled for AVX2). */
SF_KERNEL static void OmegaRun2(const SFField *U, const PetscInt st[3], PetscReal h, PetscInt i0, PetscInt i1, PetscInt j, PetscInt k, PetscInt q0, PetscReal *w, PetscReal *wn)
{
  OmegaRun(U, st, h, i0, i1, j, k, q0, w, wn, 2);
}
SF_KERNEL static void OmegaRun3(const SFField *U, const PetscInt st[3], PetscReal h, PetscInt i0, PetscInt i1, PetscInt j, PetscInt k, PetscInt q0, PetscReal *w, PetscReal *wn)
{
  OmegaRun(U, st, h, i0, i1, j, k, q0, w, wn, 3);
}
SF_KERNEL static void ForceRun2(const PetscInt cs[3], PetscReal h, PetscReal eps, PetscInt q0, PetscInt q1, const PetscReal *w, const PetscReal *wn,
                                const PetscReal *wnb, const PetscReal *wnt, PetscReal *f)
{
  ForceRun(cs, h, eps, q0, q1, w, wn, wnb, wnt, f, 2);
}
SF_KERNEL static void ForceRun3(const PetscInt cs[3], PetscReal h, PetscReal eps, PetscInt q0, PetscInt q1, const PetscReal *w, const PetscReal *wn,
                                const PetscReal *wnb, const PetscReal *wnt, PetscReal *f)
{
  ForceRun(cs, h, eps, q0, q1, w, wn, wnb, wnt, f, 3);
}

/* 3. on a run of interior faces (cells q0..q1 of a plane of B, their faces' velocities from u): each
 * component c gets dt times the mean of f over the cells q - e_c and q (fb: f of the plane below, for
 * the z component). */
static inline void FaceRun(const PetscInt cs[3], PetscReal dt, PetscInt q0, PetscInt q1, const PetscReal *restrict f, const PetscReal *restrict fb,
                           PetscScalar *restrict u, const PetscInt dim)
{
  for (PetscInt q = q0; q < q1; q++, u += dim)
    for (PetscInt c = 0; c < dim; c++) u[c] += dt * 0.5 * ((c < 2 ? f[dim * (q - cs[c]) + c] : fb[dim * q + c]) + f[dim * q + c]);
}
SF_KERNEL static void FaceRun2(const PetscInt cs[3], PetscReal dt, PetscInt q0, PetscInt q1, const PetscReal *f, const PetscReal *fb, PetscScalar *u)
{
  FaceRun(cs, dt, q0, q1, f, fb, u, 2);
}
SF_KERNEL static void FaceRun3(const PetscInt cs[3], PetscReal dt, PetscInt q0, PetscInt q1, const PetscReal *f, const PetscReal *fb, PetscScalar *u)
{
  FaceRun(cs, dt, q0, q1, f, fb, u, 3);
}

/* The confinement on the owned faces: u += dt eps h (N x omega), in three loops over a plane each,
 * a plane apart (see Box). The differences are central, one-sided at the box faces (the cell's own
 * value instead of the one beyond), as in Fedkiw et al. */
static inline void Confinement(const SF *sf, const SFField *U, const Box *B, PetscReal dt, const PetscInt flo[3], const PetscInt fhi[3],
                               PetscScalar *a, const PetscInt dim)
{
  const PetscInt *n = sf->mac->n;
  const PetscInt st[3] = {U->sx, U->sy, U->sz}, cs[3] = {1, B->s1, 0}, nw = dim == 3 ? 3 : 1;
  const PetscInt planes = dim == 3 ? SF_CONF_PLANES : 1;
  const PetscReal h = sf->h, eps = sf->vorticity;
  PetscInt rlo[3], rhi[3], vlo[3], vhi[3];
  PetscBool fixed[3][2];
  /* the ring slots of plane k: omega, |omega| and f */
#define W(k) (sf->omega + nw * B->s2 * ((k) % planes))
#define WN(k) (sf->omega_norm + B->s2 * ((k) % planes))
#define FP(k) (sf->conf + dim * B->s2 * ((k) % planes))

  /* f on the owned cells and one ring; the owned faces: the owned cells' low faces, and the high
   * boundary layer on the last rank */
  for (PetscInt d = 0; d < 3; d++) {
    rlo[d] = PetscMax(flo[d] - (d < dim), B->lo[d]);
    rhi[d] = PetscMin(fhi[d] + (d < dim), B->hi[d]);
    vlo[d] = flo[d], vhi[d] = fhi[d] + (d < dim && fhi[d] == n[d] ? 1 : 0);
  }
  for (PetscInt c = 0; c < dim; c++)
    for (PetscInt side = 0; side < 2; side++) fixed[c][side] = (PetscBool)(sf->prob->face[2 * c + side] != SIM_GRID_OPEN);

  for (PetscInt m = B->lo[2]; m < vhi[2] + 2; m++) {
    /* 1. omega on plane m of B */
    if (m < B->hi[2]) {
      const PetscInt k = m;
      PetscReal *w = W(k), *wn = dim == 3 ? WN(k) : NULL;
      for (PetscInt j = B->lo[1]; j < B->hi[1]; j++) {
        const PetscInt q0 = B->s1 * (j - B->lo[1]) - B->lo[0];
        PetscInt i0, i1;
        InteriorRun(j, k, B->lo[0], B->hi[0], n, dim, &i0, &i1);
        for (PetscInt i = B->lo[0]; i < i0; i++) OmegaCell(U, n, st, h, i, j, k, q0 + i, w, wn, dim);
        (dim == 2 ? OmegaRun2 : OmegaRun3)(U, st, h, i0, i1, j, k, q0 + i0, w, wn);
        for (PetscInt i = i1; i < B->hi[0]; i++) OmegaCell(U, n, st, h, i, j, k, q0 + i, w, wn, dim);
      }
    }
    /* 2. f on plane m - 1 (omega of planes m - 2 .. m: the two beside it clamped to the domain) */
    if (m - 1 >= rlo[2] && m - 1 < rhi[2]) {
      const PetscInt k = m - 1;
      const PetscReal *w = W(k), *wn = dim == 3 ? WN(k) : NULL;
      const PetscReal *wnb = dim == 3 ? WN(PetscMax(k - 1, 0)) : NULL, *wnt = dim == 3 ? WN(PetscMin(k + 1, n[2] - 1)) : NULL;
      PetscReal *f = FP(k);
      for (PetscInt j = rlo[1]; j < rhi[1]; j++) {
        const PetscInt q0 = B->s1 * (j - B->lo[1]) - B->lo[0];
        PetscInt i0, i1;
        InteriorRun(j, k, rlo[0], rhi[0], n, dim, &i0, &i1);
        for (PetscInt i = rlo[0]; i < i0; i++) ForceCell(n, cs, h, eps, i, j, k, q0 + i, w, wn, wnb, wnt, f, dim);
        (dim == 2 ? ForceRun2 : ForceRun3)(cs, h, eps, q0 + i0, q0 + i1, w, wn, wnb, wnt, f);
        for (PetscInt i = i1; i < rhi[0]; i++) ForceCell(n, cs, h, eps, i, j, k, q0 + i, w, wn, wnb, wnt, f, dim);
      }
    }
    /* 3. u += dt f averaged over the two cells beside each owned free face of plane m - 2. A face
     * (i,j,k) of component c lies between cells idx - e_c and idx; it is interior when
     * 1 <= idx[d] <= n[d] - 1 for every d (no padding, no wall), which the fast run assumes. */
    if (m - 2 >= vlo[2] && m - 2 < vhi[2]) {
      const PetscInt k = m - 2;
      const PetscReal *f = FP(k), *fb = dim == 3 ? FP(PetscMax(k - 1, 0)) : NULL;
      PetscInt l0 = (vhi[0] - vlo[0]) * (vhi[1] - vlo[1]) * (k - vlo[2]);
      for (PetscInt j = vlo[1]; j < vhi[1]; j++, l0 += vhi[0] - vlo[0]) {
        const PetscInt q0 = B->s1 * (j - B->lo[1]) - B->lo[0];
        const PetscBool row = (PetscBool)(n[0] >= 2 && j >= 1 && j <= n[1] - 1 && (dim < 3 || (k >= 1 && k <= n[2] - 1)));
        const PetscInt i0 = row ? PetscMax(vlo[0], 1) : vhi[0], i1 = row ? PetscMax(i0, PetscMin(vhi[0], n[0])) : vhi[0];
        for (PetscInt i = vlo[0]; i < vhi[0]; i++) {
          const PetscInt idx[3] = {i, j, k}, l = l0 + i - vlo[0];
          if (i == i0 && i0 < i1) { /* the interior run */
            (dim == 2 ? FaceRun2 : FaceRun3)(cs, dt, q0 + i0, q0 + i1, f, fb, a + l * dim);
            i = i1 - 1;
            continue;
          }
          for (PetscInt c = 0; c < dim; c++) {
            PetscInt lc[3] = {i, j, k}, hc[3] = {i, j, k}, ql, qh;
            PetscBool pad = PETSC_FALSE;
            for (PetscInt d = 0; d < dim; d++) pad = (PetscBool)(pad || (d != c && idx[d] == n[d]));
            if (pad || (idx[c] == 0 && fixed[c][0]) || (idx[c] == n[c] && fixed[c][1])) continue;
            lc[c] = PetscMax(idx[c] - 1, 0);
            hc[c] = PetscMin(idx[c], n[c] - 1);
            ql = (lc[0] - B->lo[0]) + B->s1 * (lc[1] - B->lo[1]);
            qh = (hc[0] - B->lo[0]) + B->s1 * (hc[1] - B->lo[1]);
            a[l * dim + c] += dt * 0.5 * ((lc[2] < k ? fb : f)[dim * ql + c] + (hc[2] < k ? fb : f)[dim * qh + c]);
          }
        }
      }
    }
  }
#undef W
#undef WN
#undef FP
}

PetscErrorCode SFAddVorticityConfinement(SF *sf, Vec ul, PetscReal dt)
{
  PetscInt lo[3], hi[3];
  SFField U;
  Box B = {{0}, {0}, 0, 0};
  PetscScalar *a;

  PetscFunctionBegin;
  if (sf->vorticity == 0) PetscFunctionReturn(0);
  PetscCall(VorticityBox(sf, &B));
  PetscCall(DMDAGetCorners(sf->mac->da, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2]));
  for (PetscInt d = 0; d < 3; d++) hi[d] += lo[d];
  PetscCall(SFFieldGet(sf->dav, ul, &U));
  PetscCall(VecGetArray(sf->u, &a));
  if (sf->mac->dim == 2) Confinement(sf, &U, &B, dt, lo, hi, a, 2);
  else Confinement(sf, &U, &B, dt, lo, hi, a, 3);
  PetscCall(VecRestoreArray(sf->u, &a));
  PetscCall(SFFieldRestore(ul, &U));
  /* read the ghosted velocity; omega and f each written and read over the box; read and write u */
  SFTraffic(sf, sf->ent_ul + 2 * sf->ent_conf + 2 * sf->ent_u);
  PetscFunctionReturn(0);
}
