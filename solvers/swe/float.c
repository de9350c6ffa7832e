/* A floating box on the shallow-water height field (docs/shallow_water.md, "Wave tank"), coupled both
 * ways by displaced volume. The box (a rigid body of problems/rigid: its mass, half extents and
 * centre; it heaves, i.e. moves along the vertical only) stands over the cells whose centres lie in its
 * footprint. Those cells are an obstacle for the flow (their bed is raised above every water level,
 * so the well-balanced flux passes no mass into them and reflects the waves), and the water under the
 * box is a column whose surface is the box's bottom z_b (or the level around the box, when the box
 * is out of the water). Per substep of length h:
 *   eta_r = the mean surface b + h of the ring of cells next to the footprint (4-neighbours),
 *   F = rho g A clamp(eta_r - z_b, 0, H)     (Archimedes: the weight of the displaced water, A the
 *                                            footprint's area, H the box's height),
 *   v += h (F / M - g), z_b += h v           (symplectic Euler),
 *   the column's level L -> min(z_b, eta_r): the water it gains or loses, A dL, is taken from or given
 *   to the ring cells in equal depths, so the water volume (field plus column) changes by round-off.
 * At rest the box floats at the draft eta_r - z_b = M / (rho A). */
#include "solvers/swe/swe_impl.h"

/* Whether cell (i, j) lies in the footprint / next to it. */
static PetscBool Covered(const SWE *w, PetscInt i, PetscInt j)
{
  const PetscReal x = (i + 0.5) * w->dx, y = (j + 0.5) * w->dx;
  return (PetscBool)(i >= 0 && j >= 0 && i < w->nx && j < w->ny && x > w->box_lo[0] && x < w->box_hi[0] && y > w->box_lo[1] && y < w->box_hi[1]);
}

static PetscBool Ring(const SWE *w, PetscInt i, PetscInt j)
{
  return (PetscBool)(!Covered(w, i, j) && (Covered(w, i - 1, j) || Covered(w, i + 1, j) || Covered(w, i, j - 1) || Covered(w, i, j + 1)));
}

PetscErrorCode SWEBoxSetUp(SWE *w)
{
  PetscReal prm[7], c[3], sz[3], rho = 0;
  PetscBool found[3];

  PetscFunctionBegin;
  PetscCall(SimGridProblemGetParameter(w->prob, "floating_box_at", 3, c, &found[0]));
  PetscCall(SimGridProblemGetParameter(w->prob, "floating_box_size", 3, sz, &found[1]));
  PetscCall(SimGridProblemGetParameter(w->prob, "floating_box_density", 1, &rho, &found[2]));
  w->box = found[0];
  if (!found[0]) PetscFunctionReturn(0);
  PetscCheck(found[1] && found[2], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "shallow_water: a floating box needs floating_box_size and floating_box_density");
  /* (centre x, centre y, length x, length y, height, density, bottom z) */
  prm[0] = c[0], prm[1] = c[1], prm[2] = sz[0], prm[3] = sz[1], prm[4] = sz[2], prm[5] = rho, prm[6] = c[2];
  PetscCheck(prm[2] > 0 && prm[3] > 0 && prm[4] > 0 && prm[5] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "shallow_water: the floating box needs sizes > 0 and a density > 0 (got %g x %g x %g m, %g kg/m^3)", (double)prm[2], (double)prm[3],
             (double)prm[4], (double)prm[5]);
  {
    SimRigidBody *b = &w->body;
    PetscCall(PetscMemzero(b, sizeof(*b)));
    b->shape = SIM_RIGID_BOX;
    b->size[0] = 0.5 * prm[2], b->size[1] = 0.5 * prm[3], b->size[2] = 0.5 * prm[4];
    b->mass = prm[5] * prm[2] * prm[3] * prm[4];
    b->inv_mass = 1 / b->mass;
    b->x[0] = prm[0], b->x[1] = prm[1], b->x[2] = prm[6] + b->size[2];
    b->q[0] = 1;
  }
  w->box_lo[0] = prm[0] - 0.5 * prm[2], w->box_hi[0] = prm[0] + 0.5 * prm[2];
  w->box_lo[1] = prm[1] - 0.5 * prm[3], w->box_hi[1] = prm[1] + 0.5 * prm[3];
  w->ncov = w->nring = 0;
  for (PetscInt j = 0; j < w->ny; j++)
    for (PetscInt i = 0; i < w->nx; i++) w->ncov += Covered(w, i, j), w->nring += Ring(w, i, j);
  PetscCheck(w->ncov > 0 && w->nring > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "shallow_water: the floating box's footprint [%g, %g] x [%g, %g] m covers no cell centre, or the whole tank", (double)w->box_lo[0],
             (double)w->box_hi[0], (double)w->box_lo[1], (double)w->box_hi[1]);
  w->box_area = w->ncov * w->dx * w->dx;
  PetscFunctionReturn(0);
}

/* The ring's mean surface. Collective. */
static PetscErrorCode RingLevel(SWE *w, PetscReal *eta)
{
  PetscInt xs, ys, xm, ym;
  const PetscScalar ***u, **b;
  PetscReal s = 0;

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(w->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOFRead(w->da, w->U, &u));
  PetscCall(DMDAVecGetArrayRead(w->dab, w->bl, &b));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++)
      if (Ring(w, i, j)) s += u[j][i][0] + b[j][i];
  PetscCall(DMDAVecRestoreArrayRead(w->dab, w->bl, &b));
  PetscCall(DMDAVecRestoreArrayDOFRead(w->da, w->U, &u));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &s, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)w->da)));
  *eta = w->box_eta = s / w->nring;
  PetscFunctionReturn(0);
}

/* The footprint's cells as an obstacle: h = 0, no momentum, the bed `pillar` (above every water
 * level); the column under the box starts at the level min(z_b, eta_r) over the scene's bed there,
 * which must be flat. Collective. */
PetscErrorCode SWEBoxPlace(SWE *w)
{
  PetscInt xs, ys, xm, ym;
  PetscScalar ***u, **b;
  PetscReal top = -PETSC_MAX_REAL, bed[2] = {PETSC_MAX_REAL, -PETSC_MAX_REAL}, eta;
  Vec bg;

  PetscFunctionBegin;
  if (!w->box) PetscFunctionReturn(0);
  PetscCall(RingLevel(w, &eta));
  PetscCall(DMGetGlobalVector(w->dab, &bg));
  PetscCall(DMLocalToGlobal(w->dab, w->bl, INSERT_VALUES, bg));
  PetscCall(DMDAGetCorners(w->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOF(w->da, w->U, &u));
  PetscCall(DMDAVecGetArray(w->dab, bg, &b));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      top = PetscMax(top, u[j][i][0] + b[j][i]);
      if (Covered(w, i, j)) bed[0] = PetscMin(bed[0], b[j][i]), bed[1] = PetscMax(bed[1], b[j][i]);
    }
  {
    PetscReal mx[3] = {top, -bed[0], bed[1]};
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, mx, 3, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)w->da)));
    top = mx[0], bed[0] = -mx[1], bed[1] = mx[2];
  }
  PetscCheck(bed[1] - bed[0] <= 1e-12 * (1 + PetscAbsReal(bed[0])), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "shallow_water: the bed under the floating box must be flat (it spans %g to %g m)", (double)bed[0], (double)bed[1]);
  w->box_bed = bed[0];
  w->pillar = PetscMax(top, w->body.x[2] + w->body.size[2]) + 2 * w->body.size[2] + 1;
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++)
      if (Covered(w, i, j)) u[j][i][0] = u[j][i][1] = u[j][i][2] = 0, b[j][i] = w->pillar;
  PetscCall(DMDAVecRestoreArray(w->dab, bg, &b));
  PetscCall(DMDAVecRestoreArrayDOF(w->da, w->U, &u));
  PetscCall(DMGlobalToLocal(w->dab, bg, INSERT_VALUES, w->bl));
  PetscCall(SWEFillGhosts(w, w->bl, PETSC_TRUE));
  PetscCall(DMRestoreGlobalVector(w->dab, &bg));
  w->level = PetscMin(w->body.x[2] - w->body.size[2], eta);
  PetscCheck(w->level > w->box_bed, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "shallow_water: the floating box starts on the bed (bottom %g m, bed %g m)",
             (double)(w->body.x[2] - w->body.size[2]), (double)w->box_bed);
  PetscCall(RingLevel(w, &eta));
  w->box_force = w->rho * w->g * w->box_area * PetscMin(PetscMax(eta - (w->body.x[2] - w->body.size[2]), 0), 2 * w->body.size[2]);
  PetscFunctionReturn(0);
}

PetscReal SWEBoxWater(const SWE *w)
{
  return w->box ? w->box_area * (w->level - w->box_bed) : 0;
}

PetscErrorCode SWEBoxStep(SWE *w, PetscReal h, PetscBool *failed, char *reason, size_t len)
{
  SimRigidBody *B = &w->body;
  const PetscReal H = 2 * B->size[2], dA = w->dx * w->dx;
  PetscReal eta, zb, L, dW, dh, hmin = PETSC_MAX_REAL;
  PetscInt xs, ys, xm, ym;
  PetscScalar ***u;

  PetscFunctionBegin;
  *failed = PETSC_FALSE;
  if (!w->box) PetscFunctionReturn(0);
  /* buoyancy from the ring's level, then the heave */
  PetscCall(RingLevel(w, &eta));
  zb = B->x[2] - B->size[2];
  w->box_force = w->rho * w->g * w->box_area * PetscMin(PetscMax(eta - zb, 0), H);
  B->v[2] += h * (w->box_force * B->inv_mass - w->g);
  B->x[2] += h * B->v[2];
  zb = B->x[2] - B->size[2];
  /* the column follows the box's bottom (or the ring, out of the water); the ring gives or takes the difference */
  L = PetscMin(zb, eta);
  dW = w->box_area * (L - w->level);
  dh = dW / (w->nring * dA);
  PetscCall(DMDAGetCorners(w->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOF(w->da, w->U, &u));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++)
      if (Ring(w, i, j)) {
        u[j][i][0] -= dh;
        hmin = PetscMin(hmin, u[j][i][0]);
      }
  PetscCall(DMDAVecRestoreArrayDOF(w->da, w->U, &u));
  w->level = L;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &hmin, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)w->da)));
  if (hmin < 0 || L <= w->box_bed) {
    *failed = PETSC_TRUE;
    PetscCall(PetscSNPrintf(reason, len, "shallow_water: the floating box %s (bottom at %g m)", L <= w->box_bed ? "grounded" : "drew the water around it dry",
                            (double)zb));
  }
  PetscFunctionReturn(0);
}
