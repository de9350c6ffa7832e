/* Body forces of the stablefluids step: a uniform body force and Boussinesq smoke buoyancy
 * f = (-alpha d + beta T) up, up = -g/|g| (Fedkiw, Stam and Jensen 2001, eq. 8), applied to the
 * free faces as u += dt f: one loop over the owned faces, the scalars exchanged once. */
#include "solvers/stablefluids/sf_impl.h"

/* u += dt f on the owned free faces; S: the ghosted scalars (NULL: no buoyancy). */
static inline void AddForces(const SF *sf, const SFField *S, const PetscReal up[3], PetscReal dt, const PetscInt lo[3],
                             const PetscInt hi[3], PetscScalar *a, const PetscInt dim)
{
  const PetscInt *n = sf->mac->n;
  const PetscReal alpha = sf->buoyancy[0], beta = sf->buoyancy[1];
  PetscBool fixed[3][2];

  for (PetscInt c = 0; c < dim; c++)
    for (PetscInt side = 0; side < 2; side++) fixed[c][side] = (PetscBool)(sf->prob->face[2 * c + side] != SIM_GRID_OPEN);
  for (PetscInt k = lo[2], l = 0; k < hi[2]; k++)
    for (PetscInt j = lo[1]; j < hi[1]; j++)
      for (PetscInt i = lo[0]; i < hi[0]; i++, l++) {
        const PetscInt idx[3] = {i, j, k};
        for (PetscInt c = 0; c < dim; c++) {
          PetscReal f = sf->body[c];
          PetscBool pad = PETSC_FALSE;
          for (PetscInt d = 0; d < dim; d++) pad = (PetscBool)(pad || (d != c && idx[d] == n[d]));
          if (pad || (idx[c] == 0 && fixed[c][0]) || (idx[c] == n[c] && fixed[c][1])) continue;
          if (S && up[c] != 0) {
            /* the cells beside the face (a boundary face takes its one interior cell) */
            PetscInt lc[3] = {i, j, k}, hc[3] = {i, j, k}, bl, bh;
            lc[c] = PetscMax(idx[c] - 1, 0);
            hc[c] = PetscMin(idx[c], n[c] - 1);
            bl = SF_IDX(S, lc[0], lc[1], lc[2]);
            bh = SF_IDX(S, hc[0], hc[1], hc[2]);
            f += (-alpha * (0.5 * (S->a[bl + SF_DENSITY] + S->a[bh + SF_DENSITY])) +
                  beta * (0.5 * (S->a[bl + SF_TEMPERATURE] + S->a[bh + SF_TEMPERATURE]))) *
                 up[c];
          }
          a[l * dim + c] += dt * f;
        }
      }
}

PetscErrorCode SFAddForces(SF *sf, PetscReal dt)
{
  const SimGridProblem *p = sf->prob;
  PetscInt lo[3], hi[3], dim = sf->mac->dim;
  PetscReal g = 0, up[3] = {0, 0, 0};
  PetscBool buoyant;
  SFField S;
  PetscScalar *a;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) g += p->gravity[d] * p->gravity[d];
  if (g > 0)
    for (PetscInt d = 0; d < 3; d++) up[d] = -p->gravity[d] / PetscSqrtReal(g);
  buoyant = (PetscBool)(sf->smoke && g > 0 && (sf->buoyancy[0] != 0 || sf->buoyancy[1] != 0));
  if (!buoyant && sf->body[0] == 0 && sf->body[1] == 0 && sf->body[2] == 0) PetscFunctionReturn(0);
  if (buoyant) {
    PetscCall(DMGlobalToLocal(sf->dac, sf->s, INSERT_VALUES, sf->sl));
    PetscCall(SFFieldGet(sf->dac, sf->sl, &S));
    SFTrafficExchange(sf, sf->dac);
    SFTraffic(sf, sf->ent_sl); /* the loop reads the scalars */
  }
  SFTraffic(sf, 2 * sf->ent_u); /* and reads and writes u */
  PetscCall(DMDAGetCorners(sf->dav, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2]));
  for (PetscInt d = 0; d < 3; d++) hi[d] += lo[d];
  PetscCall(VecGetArray(sf->u, &a));
  if (dim == 2) AddForces(sf, buoyant ? &S : NULL, up, dt, lo, hi, a, 2);
  else AddForces(sf, buoyant ? &S : NULL, up, dt, lo, hi, a, 3);
  PetscCall(VecRestoreArray(sf->u, &a));
  if (buoyant) PetscCall(SFFieldRestore(sf->sl, &S));
  PetscFunctionReturn(0);
}
