/* Boundary and initial conditions of the stablefluids solver, sampled from the grid problem. */
#include "solvers/stablefluids/sf_impl.h"

/* The velocity the problem prescribes on boundary face `face` at x and t (0 for slip walls and
 * for walls without a boundary_velocity). */
static PetscErrorCode BoundaryVelocity(SF *sf, PetscInt face, const PetscReal x[3], PetscReal t, PetscReal w[3])
{
  const SimGridProblem *p = sf->prob;

  PetscFunctionBegin;
  w[0] = w[1] = w[2] = 0;
  if ((p->face[face] == SIM_GRID_WALL || p->face[face] == SIM_GRID_INFLOW) && p->boundary_velocity)
    PetscCall(p->boundary_velocity(p->ctx, face, x, t, w));
  PetscFunctionReturn(0);
}

PetscErrorCode SFApplyBoundary(SF *sf, PetscReal t, Vec u)
{
  PetscInt lo[3], hi[3], dim = sf->mac->dim;
  const PetscInt *n = sf->mac->n;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(sf->dav, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2]));
  for (PetscInt d = 0; d < 3; d++) hi[d] += lo[d];
  PetscCall(VecGetArray(u, &a));
  /* the owned faces of the boundary planes idx[c] = 0 and idx[c] = n[c] of each component c whose
   * normal velocity is prescribed (not the padding at idx[d] = n[d] of the other axes) */
  for (PetscInt c = 0; c < dim; c++)
    for (PetscInt side = 0; side < 2; side++) {
      const PetscInt plane = side ? n[c] : 0;
      PetscInt b[3], e[3];
      if (sf->prob->face[2 * c + side] == SIM_GRID_OPEN || plane < lo[c] || plane >= hi[c]) continue;
      for (PetscInt d = 0; d < 3; d++) {
        b[d] = d == c ? plane : lo[d];
        e[d] = d == c ? plane + 1 : (d < dim ? PetscMin(hi[d], n[d]) : hi[d]);
      }
      for (PetscInt k = b[2]; k < e[2]; k++)
        for (PetscInt j = b[1]; j < e[1]; j++)
          for (PetscInt i = b[0]; i < e[0]; i++) {
            const PetscInt l = (i - lo[0]) + (hi[0] - lo[0]) * ((j - lo[1]) + (hi[1] - lo[1]) * (k - lo[2]));
            PetscReal x[3], w[3];
            SFFacePosition(sf, c, i, j, k, x);
            PetscCall(BoundaryVelocity(sf, 2 * c + side, x, t, w));
            a[l * dim + c] = w[c];
          }
    }
  PetscCall(VecRestoreArray(u, &a));
  PetscFunctionReturn(0);
}

/* Samples the initial values of the problem's scalar fields at the owned cell centres into the
 * interleaved scalars (global on sf->dac); a field the problem lacks, or one without an initial
 * value, starts at 0. */
static PetscErrorCode SampleScalars(SF *sf)
{
  PetscInt xs, ys, zs, xm, ym, zm;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecSet(sf->s, 0));
  PetscCall(DMDAGetCorners(sf->dac, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(sf->s, &a));
  for (PetscInt c = 0; c < SF_NSCALARS; c++) {
    SimGridScalarFn fn = sf->scalar_index[c] >= 0 ? sf->prob->scalar[sf->scalar_index[c]].initial : NULL;
    if (!fn) continue;
    for (PetscInt k = zs, l = 0; k < zs + zm; k++)
      for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++, l++) {
          PetscReal x[3], v;
          SFCellPosition(sf, i, j, k, x);
          PetscCall(fn(sf->prob->ctx, x, 0.0, &v));
          a[SF_NSCALARS * l + c] = v;
        }
  }
  PetscCall(VecRestoreArray(sf->s, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode SFInitialFields(SF *sf)
{
  const SimGridProblem *p = sf->prob;
  PetscInt xs, ys, zs, xm, ym, zm, dim = sf->mac->dim;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecSet(sf->u, 0));
  if (p->velocity) {
    PetscCall(DMDAGetCorners(sf->dav, &xs, &ys, &zs, &xm, &ym, &zm));
    PetscCall(VecGetArray(sf->u, &a));
    for (PetscInt k = zs, l = 0; k < zs + zm; k++)
      for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++, l++)
          for (PetscInt c = 0; c < dim; c++) {
            const PetscInt idx[3] = {i, j, k};
            PetscReal x[3], v[3] = {0, 0, 0};
            if (SFFacePadding(sf, c, idx)) continue;
            SFFacePosition(sf, c, i, j, k, x);
            PetscCall(p->velocity(p->ctx, x, 0.0, v));
            a[l * dim + c] = v[c];
          }
    PetscCall(VecRestoreArray(sf->u, &a));
  }
  PetscCall(SFApplyBoundary(sf, 0.0, sf->u));
  if (sf->smoke) PetscCall(SampleScalars(sf));
  PetscFunctionReturn(0);
}
