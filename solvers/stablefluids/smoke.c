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
 * Both scratch arrays are laid out on the 2-ring box B (clipped to the domain): cell (i,j,k) at
 * (i - b0) + bx ((j - b1) + by (k - b2)), omega with 3 components (1 in 2D), f with dim. */
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

PetscErrorCode SFVorticitySetUp(SF *sf)
{
  Box B = {{0}, {0}, 0, 0};
  PetscInt cells;

  PetscFunctionBegin;
  PetscCall(VorticityBox(sf, &B));
  cells = B.s2 * (B.hi[2] - B.lo[2]);
  PetscCall(PetscMalloc2(cells * (sf->mac->dim == 3 ? 3 : 1), &sf->omega, cells * sf->mac->dim, &sf->conf));
  sf->conf_entries = cells * ((sf->mac->dim == 3 ? 3 : 1) + sf->mac->dim);
  PetscFunctionReturn(0);
}

/* Cell-centred velocity component c of cell (i,j,k) from the ghosted faces U (base: its index). */
#define CELL_U(U, b, c, s) (0.5 * ((U)->a[(b) + (c)] + (U)->a[(b) + (c) + (s)]))

/* The confinement on the owned faces: u += dt eps h (N x omega), in three loops (see Box). The
 * differences are central, one-sided at the box faces (the cell's own value instead of the one
 * beyond), as in Fedkiw et al. */
static inline void Confinement(const SF *sf, const SFField *U, const Box *B, PetscReal dt, const PetscInt flo[3], const PetscInt fhi[3],
                               PetscScalar *a, const PetscInt dim)
{
  const PetscInt *n = sf->mac->n;
  const PetscInt st[3] = {U->sx, U->sy, U->sz}, cs[3] = {1, B->s1, B->s2};
  const PetscReal h = sf->h, eps = sf->vorticity;
  PetscReal *w = sf->omega, *f = sf->conf;
  PetscInt rlo[3], rhi[3];

  /* 1. omega = curl u on B: d u_c / d x_a from the cell velocities of the neighbours along a */
  for (PetscInt k = B->lo[2]; k < B->hi[2]; k++)
    for (PetscInt j = B->lo[1]; j < B->hi[1]; j++)
      for (PetscInt i = B->lo[0]; i < B->hi[0]; i++) {
        const PetscInt idx[3] = {i, j, k}, q = (i - B->lo[0]) + B->s1 * (j - B->lo[1]) + B->s2 * (k - B->lo[2]);
        PetscReal du[3][3] = {{0}}; /* du[c][a] = d u_c / d x_a */
        for (PetscInt c = 0; c < dim; c++)
          for (PetscInt ax = 0; ax < dim; ax++) {
            PetscInt il = PetscMax(idx[ax] - 1, 0), ih = PetscMin(idx[ax] + 1, n[ax] - 1), b = SF_IDX(U, i, j, k);
            if (ax == c) continue;
            du[c][ax] = (CELL_U(U, b + (ih - idx[ax]) * st[ax], c, st[c]) - CELL_U(U, b + (il - idx[ax]) * st[ax], c, st[c])) /
                        ((ih - il) * h);
          }
        if (dim == 2) w[q] = du[1][0] - du[0][1];
        else {
          w[3 * q + 0] = du[2][1] - du[1][2];
          w[3 * q + 1] = du[0][2] - du[2][0];
          w[3 * q + 2] = du[1][0] - du[0][1];
        }
      }

  /* 2. f = eps h (N x omega) on the owned cells and one ring, N = grad|omega| / |grad|omega|| */
  for (PetscInt d = 0; d < 3; d++) {
    rlo[d] = PetscMax(flo[d] - (d < dim), B->lo[d]);
    rhi[d] = PetscMin(fhi[d] + (d < dim), B->hi[d]);
  }
  for (PetscInt k = rlo[2]; k < rhi[2]; k++)
    for (PetscInt j = rlo[1]; j < rhi[1]; j++)
      for (PetscInt i = rlo[0]; i < rhi[0]; i++) {
        const PetscInt idx[3] = {i, j, k}, q = (i - B->lo[0]) + B->s1 * (j - B->lo[1]) + B->s2 * (k - B->lo[2]);
        PetscReal eta[3] = {0, 0, 0}, len, N[3];
        for (PetscInt ax = 0; ax < dim; ax++) {
          PetscInt il = PetscMax(idx[ax] - 1, 0), ih = PetscMin(idx[ax] + 1, n[ax] - 1);
          PetscInt ql = q + (il - idx[ax]) * cs[ax], qh = q + (ih - idx[ax]) * cs[ax];
          PetscReal ml, mh;
          if (dim == 2) ml = PetscAbsReal(w[ql]), mh = PetscAbsReal(w[qh]);
          else {
            ml = PetscSqrtReal(w[3 * ql] * w[3 * ql] + w[3 * ql + 1] * w[3 * ql + 1] + w[3 * ql + 2] * w[3 * ql + 2]);
            mh = PetscSqrtReal(w[3 * qh] * w[3 * qh] + w[3 * qh + 1] * w[3 * qh + 1] + w[3 * qh + 2] * w[3 * qh + 2]);
          }
          eta[ax] = (mh - ml) / ((ih - il) * h);
        }
        len = PetscSqrtReal(eta[0] * eta[0] + eta[1] * eta[1] + eta[2] * eta[2]);
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

  /* 3. u += dt f averaged over the two cells beside each owned free face */
  {
    PetscBool fixed[3][2];
    PetscInt vlo[3], vhi[3];
    for (PetscInt c = 0; c < dim; c++)
      for (PetscInt side = 0; side < 2; side++) fixed[c][side] = (PetscBool)(sf->prob->face[2 * c + side] != SIM_GRID_OPEN);
    /* the owned faces: the owned cells' low faces, and the high boundary layer on the last rank */
    for (PetscInt d = 0; d < 3; d++) vlo[d] = flo[d], vhi[d] = fhi[d] + (d < dim && fhi[d] == n[d] ? 1 : 0);
    for (PetscInt k = vlo[2], l = 0; k < vhi[2]; k++)
      for (PetscInt j = vlo[1]; j < vhi[1]; j++)
        for (PetscInt i = vlo[0]; i < vhi[0]; i++, l++) {
          const PetscInt idx[3] = {i, j, k};
          for (PetscInt c = 0; c < dim; c++) {
            PetscInt lc[3] = {i, j, k}, hc[3] = {i, j, k}, ql, qh;
            PetscBool pad = PETSC_FALSE;
            for (PetscInt d = 0; d < dim; d++) pad = (PetscBool)(pad || (d != c && idx[d] == n[d]));
            if (pad || (idx[c] == 0 && fixed[c][0]) || (idx[c] == n[c] && fixed[c][1])) continue;
            lc[c] = PetscMax(idx[c] - 1, 0);
            hc[c] = PetscMin(idx[c], n[c] - 1);
            ql = (lc[0] - B->lo[0]) + B->s1 * (lc[1] - B->lo[1]) + B->s2 * (lc[2] - B->lo[2]);
            qh = (hc[0] - B->lo[0]) + B->s1 * (hc[1] - B->lo[1]) + B->s2 * (hc[2] - B->lo[2]);
            a[l * dim + c] += dt * 0.5 * (f[dim * ql + c] + f[dim * qh + c]);
          }
        }
  }
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
