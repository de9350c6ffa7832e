/* Body forces of the stablefluids step: a uniform body force and Boussinesq smoke buoyancy
 * f = (-alpha d + beta T) up, up = -g/|g| (Fedkiw, Stam and Jensen 2001, eq. 8), applied to the
 * free faces as u += dt f. */
#include "solvers/stablefluids/sf_impl.h"

/* The average of cell scalar S over the two cells beside face component c at idx (a boundary face
 * takes its one interior cell). */
static inline PetscReal FaceAverage(const SF *sf, const SFLocal *S, PetscInt c, const PetscInt idx[3])
{
  PetscInt lo[3] = {idx[0], idx[1], idx[2]}, hi[3] = {idx[0], idx[1], idx[2]};
  lo[c] = PetscMax(idx[c] - 1, 0);
  hi[c] = PetscMin(idx[c], sf->mac->n[c] - 1);
  return 0.5 * (SF_AT(S, lo[0], lo[1], lo[2], 0) + SF_AT(S, hi[0], hi[1], hi[2], 0));
}

PetscErrorCode SFAddForces(SF *sf, PetscReal dt)
{
  const SimGridProblem *p = sf->prob;
  PetscInt xs, ys, zs, xm, ym, zm, dim = sf->mac->dim;
  PetscReal g = 0, up[3] = {0, 0, 0};
  PetscBool buoyant;
  Vec dl = NULL, Tl = NULL;
  SFLocal D, T;
  PetscScalar *a;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) g += p->gravity[d] * p->gravity[d];
  if (g > 0)
    for (PetscInt d = 0; d < 3; d++) up[d] = -p->gravity[d] / PetscSqrtReal(g);
  buoyant = (PetscBool)(sf->smoke && g > 0 && (sf->buoyancy[0] != 0 || sf->buoyancy[1] != 0));
  if (!buoyant && sf->body[0] == 0 && sf->body[1] == 0 && sf->body[2] == 0) PetscFunctionReturn(0);
  if (buoyant) {
    PetscCall(DMGetLocalVector(sf->dac, &dl));
    PetscCall(DMGetLocalVector(sf->dac, &Tl));
    PetscCall(DMGlobalToLocal(sf->dac, sf->d, INSERT_VALUES, dl));
    PetscCall(DMGlobalToLocal(sf->dac, sf->T, INSERT_VALUES, Tl));
    PetscCall(SFLocalGet(sf->dac, dl, &D));
    PetscCall(SFLocalGet(sf->dac, Tl, &T));
  }
  PetscCall(DMDAGetCorners(sf->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(sf->u, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < dim; c++) {
          const PetscInt idx[3] = {i, j, k};
          PetscReal f = sf->body[c];
          if (SFFacePadding(sf, c, idx) || SFFacePrescribed(sf, c, idx)) continue;
          if (buoyant && up[c] != 0)
            f += (-sf->buoyancy[0] * FaceAverage(sf, &D, c, idx) + sf->buoyancy[1] * FaceAverage(sf, &T, c, idx)) * up[c];
          a[l * dim + c] += dt * f;
        }
  PetscCall(VecRestoreArray(sf->u, &a));
  if (buoyant) {
    PetscCall(VecRestoreArrayRead(dl, &D.a));
    PetscCall(VecRestoreArrayRead(Tl, &T.a));
    PetscCall(DMRestoreLocalVector(sf->dac, &dl));
    PetscCall(DMRestoreLocalVector(sf->dac, &Tl));
  }
  PetscFunctionReturn(0);
}
