/* Figures of the stablefluids state: kinetic energy, momentum, divergence, CFL number and the
 * error against an exact velocity. Face sums use the trapezoidal weight (1/2 on boundary-normal
 * faces), so smooth integrands are integrated to second order. */
#include "solvers/stablefluids/sf_impl.h"

/* Quadrature weight of face component c at idx (0 for padding). */
static inline PetscReal FaceWeight(const SF *sf, PetscInt c, const PetscInt idx[3])
{
  if (SFFacePadding(sf, c, idx)) return 0;
  return (idx[c] == 0 || idx[c] == sf->mac->n[c]) ? 0.5 : 1.0;
}

/* Sums over the owned faces of w * g(u_face, x, c) for the sums against the exact velocity. */
typedef enum { SUM_EXACT_ENERGY, SUM_ERROR } SumKind;

static PetscErrorCode FaceSums(SF *sf, Vec u, SumKind kind, PetscReal t, PetscReal out[4])
{
  PetscInt xs, ys, zs, xm, ym, zm, dim = sf->mac->dim;
  const PetscScalar *a = NULL;
  PetscReal loc[4] = {0, 0, 0, 0};

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(sf->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  if (u) PetscCall(VecGetArrayRead(u, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < dim; c++) {
          const PetscInt idx[3] = {i, j, k};
          PetscReal w = FaceWeight(sf, c, idx), x[3], ue[3] = {0, 0, 0};
          if (w == 0) continue;
          SFFacePosition(sf, c, i, j, k, x);
          PetscCall(sf->prob->exact_velocity(sf->prob->ctx, x, t, ue));
          if (kind == SUM_EXACT_ENERGY)
            loc[0] += w * ue[c] * ue[c];
          else {
            loc[0] += w * (a[l * dim + c] - ue[c]) * (a[l * dim + c] - ue[c]);
            loc[1] += w;
          }
        }
  if (u) PetscCall(VecRestoreArrayRead(u, &a));
  PetscCallMPI(MPI_Allreduce(loc, out, 4, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)sf->dav)));
  PetscFunctionReturn(0);
}

/* The energy sums without a weight per face: every face at weight 1 (the padding holds 0), minus half
 * of the boundary-normal faces, summed over the boundary planes only. s[0] = sum w u^2,
 * s[1 + c] = sum w u_c. */
static PetscErrorCode EnergySums(SF *sf, Vec u, PetscReal out[4])
{
  PetscInt lo[3], hi[3], dim = sf->mac->dim;
  const PetscInt *n = sf->mac->n;
  const PetscScalar *a;
  PetscReal loc[4] = {0, 0, 0, 0};

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(sf->dav, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2]));
  for (PetscInt d = 0; d < 3; d++) hi[d] += lo[d];
  PetscCall(VecGetArrayRead(u, &a));
  {
    const PetscInt N = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
    for (PetscInt l = 0; l < N; l++)
      for (PetscInt c = 0; c < dim; c++) loc[0] += a[l * dim + c] * a[l * dim + c], loc[1 + c] += a[l * dim + c];
  }
  for (PetscInt c = 0; c < dim; c++)
    for (PetscInt side = 0; side < 2; side++) {
      const PetscInt plane = side ? n[c] : 0;
      PetscInt b[3], e[3];
      if (plane < lo[c] || plane >= hi[c]) continue;
      for (PetscInt d = 0; d < 3; d++) {
        b[d] = d == c ? plane : lo[d];
        e[d] = d == c ? plane + 1 : (d < dim ? PetscMin(hi[d], n[d]) : hi[d]);
      }
      for (PetscInt k = b[2]; k < e[2]; k++)
        for (PetscInt j = b[1]; j < e[1]; j++)
          for (PetscInt i = b[0]; i < e[0]; i++) {
            const PetscReal v = a[((i - lo[0]) + (hi[0] - lo[0]) * ((j - lo[1]) + (hi[1] - lo[1]) * (k - lo[2]))) * dim + c];
            loc[0] -= 0.5 * v * v, loc[1 + c] -= 0.5 * v;
          }
    }
  PetscCall(VecRestoreArrayRead(u, &a));
  PetscCallMPI(MPI_Allreduce(loc, out, 4, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)sf->dav)));
  PetscFunctionReturn(0);
}

PetscErrorCode SFKineticEnergy(SF *sf, Vec u, PetscReal *ke, PetscReal momentum[3])
{
  PetscReal s[4], vol = PetscPowRealInt(sf->h, sf->mac->dim);

  PetscFunctionBegin;
  if (u != sf->u || !sf->ke_valid) {
    PetscCall(EnergySums(sf, u, s));
    if (u == sf->u) { /* the state's: kept until the next change of u (SFStateChanged) */
      for (PetscInt i = 0; i < 4; i++) sf->ke_sums[i] = s[i];
      sf->ke_valid = PETSC_TRUE;
    }
  } else
    for (PetscInt i = 0; i < 4; i++) s[i] = sf->ke_sums[i];
  *ke = 0.5 * sf->rho * vol * s[0];
  if (momentum)
    for (PetscInt d = 0; d < 3; d++) momentum[d] = sf->rho * vol * s[1 + d];
  PetscFunctionReturn(0);
}

PetscErrorCode SFExactKineticEnergy(SF *sf, PetscReal t, PetscReal *ke)
{
  PetscReal s[4];

  PetscFunctionBegin;
  PetscCall(FaceSums(sf, NULL, SUM_EXACT_ENERGY, t, s));
  *ke = 0.5 * sf->rho * PetscPowRealInt(sf->h, sf->mac->dim) * s[0];
  PetscFunctionReturn(0);
}

/* RMS over the faces (trapezoidal weights) of u - u_exact(t) [m/s]. */
PetscErrorCode SFVelocityError(SF *sf, PetscReal t, PetscReal *rms)
{
  PetscReal s[4];

  PetscFunctionBegin;
  PetscCall(FaceSums(sf, sf->u, SUM_ERROR, t, s));
  *rms = PetscSqrtReal(s[0] / s[1]);
  PetscFunctionReturn(0);
}

/* div_h u over the cells: RMS [1/s], max [1/s] and the plain vector 2-norm. */
PetscErrorCode SFDivergenceNorms(SF *sf, Vec u, PetscReal *rms, PetscReal *max, PetscReal *l2)
{
  Vec div;
  PetscInt N;
  PetscReal n2;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalVector(sf->mac->da, &div));
  PetscCall(SimMACDivergence(sf->mac, u, div));
  PetscCall(VecNorm(div, NORM_2, &n2));
  if (max) PetscCall(VecNorm(div, NORM_INFINITY, max));
  PetscCall(VecGetSize(div, &N));
  if (rms) *rms = n2 / PetscSqrtReal((PetscReal)N);
  if (l2) *l2 = n2;
  PetscCall(DMRestoreGlobalVector(sf->mac->da, &div));
  PetscFunctionReturn(0);
}

PetscErrorCode SFMaxVelocity(SF *sf, Vec u, PetscReal *umax)
{
  PetscFunctionBegin;
  PetscCall(VecNorm(u, NORM_INFINITY, umax));
  PetscFunctionReturn(0);
}
