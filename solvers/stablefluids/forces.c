/* Body forces of the stablefluids step: a uniform body force and Boussinesq smoke buoyancy
 * f = (-alpha d + beta T) up, up = -g/|g| (Fedkiw, Stam and Jensen 2001, eq. 8), applied to the
 * free faces as u += dt f: one loop over the owned faces, the scalars exchanged once. */
#include "solvers/stablefluids/sf_impl.h"

/* The force on a face of component c from the scalars of its two cells at bl and bh (indices in S)
 * (a boundary face takes its one interior cell twice). */
#define SF_BUOYANT(f, S, bl, bh) \
  ((f) + (-alpha * (0.5 * ((S)->a[(bl) + SF_DENSITY] + (S)->a[(bh) + SF_DENSITY])) + \
          beta * (0.5 * ((S)->a[(bl) + SF_TEMPERATURE] + (S)->a[(bh) + SF_TEMPERATURE]))) * up[c])

/* u += dt f on the owned free faces; S: the ghosted scalars (NULL: no buoyancy). A component with
 * no force is left alone (u + dt 0 = u). Components c > 0 go row by row: along a row of faces the
 * two cells beside each face are the row's cells shifted along c, the same two rows of cells for the
 * whole row; component 0 (cells i - 1 and i, clamped at the box) face by face. */
static inline void AddForces(const SF *sf, const SFField *S, const PetscReal up[3], PetscReal dt, const PetscInt lo[3], const PetscInt hi[3],
                             PetscScalar *a, const PetscInt dim)
{
  const PetscInt *n = sf->mac->n, xm = hi[0] - lo[0], ym = hi[1] - lo[1];
  const PetscReal alpha = sf->buoyancy[0], beta = sf->buoyancy[1];

  for (PetscInt c = 0; c < dim; c++) {
    const PetscBool fixed[2] = {(PetscBool)(sf->prob->face[2 * c] != SIM_GRID_OPEN), (PetscBool)(sf->prob->face[2 * c + 1] != SIM_GRID_OPEN)};
    const PetscBool buoyant = (PetscBool)(S && up[c] != 0);
    const PetscReal body = sf->body[c];

    if (!buoyant && body == 0) continue;
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++) {
        const PetscInt idx[3] = {0, j, k};
        PetscScalar *row = a + dim * xm * ((j - lo[1]) + ym * (k - lo[2])) + c - dim * lo[0];
        PetscBool pad = PETSC_FALSE;
        for (PetscInt d = 1; d < dim; d++) pad = (PetscBool)(pad || (d != c && idx[d] == n[d]));
        if (pad) continue;
        if (c == 0) {
          for (PetscInt i = lo[0]; i < hi[0]; i++) {
            PetscReal f = body;
            if ((i == 0 && fixed[0]) || (i == n[0] && fixed[1])) continue;
            if (buoyant) {
              const PetscInt bl = SF_IDX(S, PetscMax(i - 1, 0), j, k), bh = SF_IDX(S, PetscMin(i, n[0] - 1), j, k);
              f = SF_BUOYANT(f, S, bl, bh);
            }
            row[dim * i] += dt * f;
          }
        } else {
          const PetscInt iend = PetscMin(hi[0], n[0]); /* the face at i = n[0] is padding */
          if ((idx[c] == 0 && fixed[0]) || (idx[c] == n[c] && fixed[1])) continue;
          if (buoyant) {
            PetscInt lc[3] = {0, j, k}, hc[3] = {0, j, k};
            lc[c] = PetscMax(idx[c] - 1, 0);
            hc[c] = PetscMin(idx[c], n[c] - 1);
            {
              const PetscInt bl = SF_IDX(S, 0, lc[1], lc[2]), bh = SF_IDX(S, 0, hc[1], hc[2]);
              for (PetscInt i = lo[0]; i < iend; i++) row[dim * i] += dt * SF_BUOYANT(body, S, bl + i * SF_NSCALARS, bh + i * SF_NSCALARS);
            }
          } else
            for (PetscInt i = lo[0]; i < iend; i++) row[dim * i] += dt * body;
        }
      }
  }
}
#undef SF_BUOYANT

PetscErrorCode SFAddForces(SF *sf, PetscReal dt)
{
  const SimGridProblem *p = sf->prob;
  PetscInt lo[3], hi[3], dim = sf->mac->dim;
  PetscReal g = 0, up[3] = {0, 0, 0};
  PetscBool buoyant;
  SFField S;
  PetscScalar *a;
  Vec sl = NULL;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) g += p->gravity[d] * p->gravity[d];
  if (g > 0)
    for (PetscInt d = 0; d < 3; d++) up[d] = -p->gravity[d] / PetscSqrtReal(g);
  buoyant = (PetscBool)(sf->smoke && g > 0 && (sf->buoyancy[0] != 0 || sf->buoyancy[1] != 0));
  if (!buoyant && sf->body[0] == 0 && sf->body[1] == 0 && sf->body[2] == 0) PetscFunctionReturn(0);
  if (buoyant) {
    PetscCall(SFExchange(sf, sf->dac, sf->s, sf->sl, &sl));
    PetscCall(SFFieldGet(sf->dac, sl, &S));
    SFTraffic(sf, sf->ent_sl); /* the loop reads the scalars */
  }
  SFTraffic(sf, 2 * sf->ent_u); /* and reads and writes u */
  PetscCall(DMDAGetCorners(sf->dav, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2]));
  for (PetscInt d = 0; d < 3; d++) hi[d] += lo[d];
  PetscCall(VecGetArray(sf->u, &a));
  if (dim == 2) AddForces(sf, buoyant ? &S : NULL, up, dt, lo, hi, a, 2);
  else AddForces(sf, buoyant ? &S : NULL, up, dt, lo, hi, a, 3);
  PetscCall(VecRestoreArray(sf->u, &a));
  if (buoyant) PetscCall(SFFieldRestore(sl, &S));
  PetscFunctionReturn(0);
}
