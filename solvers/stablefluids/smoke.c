/* Smoke: the problem's sources (e.g. a heated inflow) and vorticity confinement (Fedkiw, Stam and
 * Jensen 2001, sec. 4: f = eps h (N x omega), N = grad|omega| / |grad|omega||). */
#include "solvers/stablefluids/sf_impl.h"

/* The source of scalar field `index` (if any) on the owned rows of q, one call per row. */
static PetscErrorCode ApplySource(SF *sf, PetscInt index, PetscReal t, Vec q)
{
  const SimGridProblem *p = sf->prob;
  SimGridSourceFn source = index >= 0 ? p->scalar[index].source : NULL;
  PetscInt xs, ys, zs, xm, ym, zm;
  PetscReal *xc;
  PetscScalar *a;

  PetscFunctionBegin;
  if (!source) PetscFunctionReturn(0);
  PetscCall(DMDAGetCorners(sf->dac, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(PetscMalloc1(xm, &xc));
  for (PetscInt i = 0; i < xm; i++) xc[i] = (xs + i + 0.5) * sf->h;
  PetscCall(VecGetArray(q, &a));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      PetscCall(source(p->ctx, xm, xc, (j + 0.5) * sf->h, sf->mac->dim == 3 ? (k + 0.5) * sf->h : 0, t,
                       a + xm * ((j - ys) + ym * (k - zs))));
  PetscCall(VecRestoreArray(q, &a));
  PetscCall(PetscFree(xc));
  PetscFunctionReturn(0);
}

PetscErrorCode SFApplySources(SF *sf, PetscReal t)
{
  PetscFunctionBegin;
  if (!sf->smoke) PetscFunctionReturn(0);
  PetscCall(ApplySource(sf, sf->density, t, sf->d));
  PetscCall(ApplySource(sf, sf->temperature, t, sf->T));
  PetscFunctionReturn(0);
}

/* Cell-centred velocity component c of cell idx from the ghosted faces U. */
static inline PetscReal CellVelocity(const SFLocal *U, PetscInt c, const PetscInt idx[3])
{
  PetscInt hi[3] = {idx[0], idx[1], idx[2]};
  hi[c]++;
  return 0.5 * (SF_AT(U, idx[0], idx[1], idx[2], c) + SF_AT(U, hi[0], hi[1], hi[2], c));
}

/* Central difference along axis a of f(cell) at idx (one-sided at the box), divided by h. */
#define CENTRAL(expr_at, a, idx, n, h, out)                                                                                      \
  do {                                                                                                                           \
    PetscInt lo_[3] = {idx[0], idx[1], idx[2]}, hi_[3] = {idx[0], idx[1], idx[2]};                                               \
    lo_[a] = PetscMax(idx[a] - 1, 0);                                                                                            \
    hi_[a] = PetscMin(idx[a] + 1, n[a] - 1);                                                                                     \
    out = (expr_at(hi_) - expr_at(lo_)) / ((hi_[a] - lo_[a]) * (h));                                                             \
  } while (0)

PetscErrorCode SFAddVorticityConfinement(SF *sf, PetscReal dt)
{
  const PetscInt *n = sf->mac->n, dim = sf->mac->dim;
  PetscInt xs, ys, zs, xm, ym, zm;
  Vec w, wl, f, fl;
  SFLocal U, W, F;
  PetscScalar *a;
  PetscReal h = sf->h;

  PetscFunctionBegin;
  if (sf->vorticity == 0) PetscFunctionReturn(0);
  PetscCall(DMGlobalToLocal(sf->dav, sf->u, INSERT_VALUES, sf->ul));
  PetscCall(SFLocalGet(sf->dav, sf->ul, &U));
  PetscCall(DMGetGlobalVector(sf->dac3, &w));
  PetscCall(DMGetGlobalVector(sf->dac3, &f));
  PetscCall(DMGetLocalVector(sf->dac3, &wl));
  PetscCall(DMGetLocalVector(sf->dac3, &fl));
  PetscCall(DMDAGetCorners(sf->dac3, &xs, &ys, &zs, &xm, &ym, &zm));

  /* 1. omega = curl u at the owned cell centres */
  PetscCall(VecGetArray(w, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        const PetscInt idx[3] = {i, j, k};
        PetscReal du[3][3] = {{0}}; /* du[c][a] = d u_c / d x_a */
        for (PetscInt c = 0; c < dim; c++)
          for (PetscInt ax = 0; ax < dim; ax++) {
            if (ax == c) continue;
#define UC_AT(q) CellVelocity(&U, c, q)
            CENTRAL(UC_AT, ax, idx, n, h, du[c][ax]);
#undef UC_AT
          }
        a[3 * l + 0] = du[2][1] - du[1][2];
        a[3 * l + 1] = du[0][2] - du[2][0];
        a[3 * l + 2] = du[1][0] - du[0][1];
      }
  PetscCall(VecRestoreArray(w, &a));
  PetscCall(DMGlobalToLocal(sf->dac3, w, INSERT_VALUES, wl));
  PetscCall(SFLocalGet(sf->dac3, wl, &W));

  /* 2. f = eps h (N x omega) at the owned cells */
  PetscCall(VecGetArray(f, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        const PetscInt idx[3] = {i, j, k};
        PetscReal eta[3] = {0, 0, 0}, len, N[3], om[3];
        for (PetscInt ax = 0; ax < dim; ax++) {
#define MAG_AT(q)                                                                                                                \
  PetscSqrtReal(SF_AT(&W, q[0], q[1], q[2], 0) * SF_AT(&W, q[0], q[1], q[2], 0) +                                                \
                SF_AT(&W, q[0], q[1], q[2], 1) * SF_AT(&W, q[0], q[1], q[2], 1) +                                                \
                SF_AT(&W, q[0], q[1], q[2], 2) * SF_AT(&W, q[0], q[1], q[2], 2))
          CENTRAL(MAG_AT, ax, idx, n, h, eta[ax]);
#undef MAG_AT
        }
        len = PetscSqrtReal(eta[0] * eta[0] + eta[1] * eta[1] + eta[2] * eta[2]);
        for (PetscInt d = 0; d < 3; d++) N[d] = len > 1e-12 ? eta[d] / len : 0, om[d] = SF_AT(&W, i, j, k, d);
        a[3 * l + 0] = sf->vorticity * h * (N[1] * om[2] - N[2] * om[1]);
        a[3 * l + 1] = sf->vorticity * h * (N[2] * om[0] - N[0] * om[2]);
        a[3 * l + 2] = sf->vorticity * h * (N[0] * om[1] - N[1] * om[0]);
      }
  PetscCall(VecRestoreArray(f, &a));
  PetscCall(VecRestoreArrayRead(wl, &W.a));
  PetscCall(VecRestoreArrayRead(sf->ul, &U.a));
  PetscCall(DMGlobalToLocal(sf->dac3, f, INSERT_VALUES, fl));
  PetscCall(SFLocalGet(sf->dac3, fl, &F));

  /* 3. u += dt f averaged to the free faces */
  PetscCall(DMDAGetCorners(sf->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(sf->u, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < dim; c++) {
          const PetscInt idx[3] = {i, j, k};
          PetscInt lo[3] = {i, j, k}, hi[3] = {i, j, k};
          if (SFFacePadding(sf, c, idx) || SFFacePrescribed(sf, c, idx)) continue;
          lo[c] = PetscMax(idx[c] - 1, 0);
          hi[c] = PetscMin(idx[c], n[c] - 1);
          a[l * dim + c] += dt * 0.5 * (SF_AT(&F, lo[0], lo[1], lo[2], c) + SF_AT(&F, hi[0], hi[1], hi[2], c));
        }
  PetscCall(VecRestoreArray(sf->u, &a));
  PetscCall(VecRestoreArrayRead(fl, &F.a));
  PetscCall(DMRestoreLocalVector(sf->dac3, &wl));
  PetscCall(DMRestoreLocalVector(sf->dac3, &fl));
  PetscCall(DMRestoreGlobalVector(sf->dac3, &w));
  PetscCall(DMRestoreGlobalVector(sf->dac3, &f));
  PetscFunctionReturn(0);
}
