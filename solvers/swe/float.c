/* A floating box on the shallow-water height field (docs/shallow_water.md, "Wave tank"), coupled both
 * ways by displaced volume per column. The box is a rigid body of problems/rigid (its mass, half
 * extents, centre x, orientation q, velocity v and angular velocity w; its inertia by
 * SimRigidInertia): it heaves (x, v along z) and pitches (q, w about the y axis, across the tank).
 * It stands over the cells whose centres lie in its footprint at rest (fixed: small angles). Those
 * cells are an obstacle for the flow (their bed is raised above every water level, so the
 * well-balanced flux passes no mass into them and reflects the waves), and under the box each of
 * them is a column of water. Per substep of length h:
 *   eta_ij = the surface next to the footprint, interpolated along x in row j between the ring cells
 *            left and right of it (so that a wave on one side tilts the box),
 *   d_ij   = the part of the vertical line through the cell centre inside the box that lies below
 *            eta_ij (the tilted box's bottom, or a side near its ends),
 *   F = rho g dA sum d_ij,  tau_y = -rho g dA sum (x_i - x_c) d_ij  (Archimedes per column: the
 *            buoyancy acts through the centre of the displaced water, so the torque about the centre
 *            of mass is exact up to the footprint's cells),
 *   v_z += h (F / M - g), w_y += h tau_y / I_yy, x_z += h v_z, q <- exp(h w / 2) q  (symplectic Euler),
 *   the column's level L_ij -> min(bottom_ij, eta_ij): the water the columns gain or lose, dA sum
 *   dL_ij, is taken from or given to the ring cells in equal depths, so the water volume (field plus
 *   columns) changes by round-off.
 * At rest the box floats at the draft eta - z_b = M / (rho A), level. */
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
  PetscReal prm[7], c[3], sz[3], rho = 0, pitch = 0;
  PetscBool found[4];

  PetscFunctionBegin;
  PetscCall(SimGridProblemGetParameter(w->prob, "floating_box_at", 3, c, &found[0]));
  PetscCall(SimGridProblemGetParameter(w->prob, "floating_box_size", 3, sz, &found[1]));
  PetscCall(SimGridProblemGetParameter(w->prob, "floating_box_density", 1, &rho, &found[2]));
  PetscCall(SimGridProblemGetParameter(w->prob, "floating_box_pitch", 1, &pitch, &found[3]));
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
    b->q[0] = PetscCosReal(0.5 * pitch), b->q[2] = PetscSinReal(0.5 * pitch); /* about y, through the centre */
    /* a box's principal moments, as SimRigidProblemAddBody gives them: m/3 (b^2 + c^2), ... */
    for (PetscInt k = 0; k < 3; k++) b->Ib[k] = b->mass / 3 * (PetscSqr(b->size[(k + 1) % 3]) + PetscSqr(b->size[(k + 2) % 3]));
  }
  PetscCheck(PetscAbsReal(pitch) < 0.5, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "shallow_water: the floating box's pitch must be below 0.5 rad (its footprint is that at rest; got %g)", (double)pitch);
  w->box_lo[0] = prm[0] - 0.5 * prm[2], w->box_hi[0] = prm[0] + 0.5 * prm[2];
  w->box_lo[1] = prm[1] - 0.5 * prm[3], w->box_hi[1] = prm[1] + 0.5 * prm[3];
  w->ncov = w->nring = 0;
  w->box_i0 = w->box_j0 = PETSC_MAX_INT, w->box_i1 = w->box_j1 = -1;
  for (PetscInt j = 0; j < w->ny; j++)
    for (PetscInt i = 0; i < w->nx; i++) {
      w->ncov += Covered(w, i, j), w->nring += Ring(w, i, j);
      if (Covered(w, i, j))
        w->box_i0 = PetscMin(w->box_i0, i), w->box_i1 = PetscMax(w->box_i1, i), w->box_j0 = PetscMin(w->box_j0, j), w->box_j1 = PetscMax(w->box_j1, j);
    }
  PetscCheck(w->ncov > 0 && w->nring > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "shallow_water: the floating box's footprint [%g, %g] x [%g, %g] m covers no cell centre, or the whole tank", (double)w->box_lo[0],
             (double)w->box_hi[0], (double)w->box_lo[1], (double)w->box_hi[1]);
  PetscCheck(w->box_i0 >= 1 && w->box_i1 <= w->nx - 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "shallow_water: the floating box's footprint [%g, %g] m must leave a cell of water at both ends of the tank", (double)w->box_lo[0],
             (double)w->box_hi[0]);
  w->box_area = w->ncov * w->dx * w->dx;
  PetscCall(PetscMalloc1(2 * (w->box_j1 - w->box_j0 + 1), &w->box_rows));
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

/* The surface b + h of the ring cells left (i0 - 1) and right (i1 + 1) of the footprint in each of its
 * rows j0 .. j1: e[2 (j - j0)] and e[2 (j - j0) + 1]. Collective. */
static PetscErrorCode RowLevels(SWE *w, PetscReal *e)
{
  const PetscInt nr = w->box_j1 - w->box_j0 + 1;
  PetscInt xs, ys, xm, ym;
  const PetscScalar ***u, **b;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < 2 * nr; k++) e[k] = 0;
  PetscCall(DMDAGetCorners(w->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOFRead(w->da, w->U, &u));
  PetscCall(DMDAVecGetArrayRead(w->dab, w->bl, &b));
  for (PetscInt j = PetscMax(ys, w->box_j0); j < PetscMin(ys + ym, w->box_j1 + 1); j++)
    for (PetscInt side = 0; side < 2; side++) {
      const PetscInt i = side ? w->box_i1 + 1 : w->box_i0 - 1;
      if (i >= xs && i < xs + xm) e[2 * (j - w->box_j0) + side] = u[j][i][0] + b[j][i];
    }
  PetscCall(DMDAVecRestoreArrayRead(w->dab, w->bl, &b));
  PetscCall(DMDAVecRestoreArrayDOFRead(w->da, w->U, &u));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, e, (PetscMPIInt)(2 * nr), MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)w->da)));
  PetscFunctionReturn(0);
}

/* The heights [zlo, zhi] where the vertical line through (px, py) is inside the box (R its rotation,
 * body to world); false if it misses the box. In the body frame the line is c + z r, inside where
 * |c_k + z r_k| <= half extent k on every axis. */
static PetscBool ColumnSpan(const SimRigidBody *B, const PetscReal R[9], PetscReal px, PetscReal py, PetscReal *zlo, PetscReal *zhi)
{
  const PetscReal d[3] = {px - B->x[0], py - B->x[1], -B->x[2]};
  PetscReal lo = -PETSC_MAX_REAL, hi = PETSC_MAX_REAL;

  for (PetscInt k = 0; k < 3; k++) {
    const PetscReal c = R[0 + k] * d[0] + R[3 + k] * d[1] + R[6 + k] * d[2], r = R[6 + k];
    if (PetscAbsReal(r) < 1e-14) {
      if (PetscAbsReal(c) > B->size[k]) return PETSC_FALSE;
      continue;
    }
    lo = PetscMax(lo, PetscMin((-B->size[k] - c) / r, (B->size[k] - c) / r));
    hi = PetscMin(hi, PetscMax((-B->size[k] - c) / r, (B->size[k] - c) / r));
  }
  *zlo = lo, *zhi = hi;
  return (PetscBool)(hi > lo);
}

/* Clips the convex polygon (x, z)[n] to the half-plane a x + b z + c <= 0 (Sutherland-Hodgman), in place;
 * returns the new count (at most n + 1). */
static PetscInt Clip(PetscReal (*p)[2], PetscInt n, PetscReal a, PetscReal b, PetscReal c)
{
  PetscReal q[8][2];
  PetscInt m = 0;

  for (PetscInt k = 0; k < n; k++) {
    const PetscReal *u = p[k], *v = p[(k + 1) % n];
    const PetscReal fu = a * u[0] + b * u[1] + c, fv = a * v[0] + b * v[1] + c;
    if (fu <= 0) q[m][0] = u[0], q[m][1] = u[1], m++;
    if ((fu < 0 && fv > 0) || (fu > 0 && fv < 0)) {
      const PetscReal t = fu / (fu - fv);
      q[m][0] = u[0] + t * (v[0] - u[0]), q[m][1] = u[1] + t * (v[1] - u[1]), m++;
    }
  }
  for (PetscInt k = 0; k < m; k++) p[k][0] = q[k][0], p[k][1] = q[k][1];
  return m;
}

/* Area and area-weighted x of a polygon (shoelace). */
static void AreaMoment(const PetscReal (*p)[2], PetscInt n, PetscReal *A, PetscReal *Ax)
{
  *A = *Ax = 0;
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal *u = p[k], *v = p[(k + 1) % n], cr = u[0] * v[1] - v[0] * u[1];
    *A += 0.5 * cr, *Ax += cr * (u[0] + v[0]) / 6;
  }
  if (*A < 0) *A = -*A, *Ax = -*Ax;
}

/* Over the footprint's columns, from the row levels e (the surface along each row a line between its
 * two ring cells): the buoyancy F and the torque about y of the displaced water, and the columns'
 * water under the box (their levels min(bottom at the centre, surface) over the bed) and the lowest
 * such level. The displaced water of column (i, j) is the box's cross-section in the x-z plane (its
 * rotation is about y) below the row's surface line and within the column's x-range (the end columns
 * open outward, so that the part of a tilted box beyond the footprint counts), times the row's width:
 * summed, exactly Archimedes' force and moment for that surface, the weight's lever about the centre
 * of the displaced water included (the metacentric height GM = BM - BG, not only the waterplane). */
static void Columns(const SWE *w, const PetscReal *e, PetscReal *F, PetscReal *tau, PetscReal *water, PetscReal *lowest)
{
  const SimRigidBody *B = &w->body;
  const PetscReal dx = w->dx, dA = dx * dx, xl = (w->box_i0 - 0.5) * dx, xr = (w->box_i1 + 1.5) * dx;
  PetscReal R[9], corner[4][2];

  SimQuatToMatrix(B->q, R);
  for (PetscInt k = 0; k < 4; k++) { /* the cross-section's corners (+-a, +-c), counter-clockwise */
    const PetscReal u = (k == 1 || k == 2) ? B->size[0] : -B->size[0], v = k >= 2 ? B->size[2] : -B->size[2];
    corner[k][0] = B->x[0] + R[0] * u + R[2] * v, corner[k][1] = B->x[2] + R[6] * u + R[8] * v;
  }
  *F = *tau = *water = 0, *lowest = PETSC_MAX_REAL;
  for (PetscInt j = w->box_j0; j <= w->box_j1; j++) {
    const PetscReal eL = e[2 * (j - w->box_j0)], eR = e[2 * (j - w->box_j0) + 1], slope = (eR - eL) / (xr - xl);
    for (PetscInt i = w->box_i0; i <= w->box_i1; i++) {
      const PetscReal x = (i + 0.5) * dx, y = (j + 0.5) * dx, eta = eL + slope * (x - xl);
      PetscReal poly[8][2], A, Ax, zlo, zhi, level = eta;
      PetscInt n = 4;
      for (PetscInt k = 0; k < 4; k++) poly[k][0] = corner[k][0], poly[k][1] = corner[k][1];
      n = Clip(poly, n, -slope, 1, -(eL - slope * xl)); /* z <= eL + slope (x - xl) */
      if (i > w->box_i0) n = Clip(poly, n, -1, 0, x - 0.5 * dx);
      if (i < w->box_i1) n = Clip(poly, n, 1, 0, -(x + 0.5 * dx));
      AreaMoment((const PetscReal(*)[2])poly, n, &A, &Ax);
      *F += w->rho * w->g * dx * A;
      *tau -= w->rho * w->g * dx * (Ax - A * B->x[0]);
      if (ColumnSpan(B, R, x, y, &zlo, &zhi)) level = PetscMin(zlo, eta);
      *water += dA * (level - w->box_bed);
      *lowest = PetscMin(*lowest, level);
    }
  }
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
  {
    PetscReal water, lowest;
    PetscCall(RowLevels(w, w->box_rows));
    Columns(w, w->box_rows, &w->box_force, &w->box_torque, &water, &lowest);
    w->level = w->box_bed + water / w->box_area;
    PetscCheck(lowest > w->box_bed, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "shallow_water: the floating box starts on the bed (bottom %g m, bed %g m)",
               (double)(w->body.x[2] - w->body.size[2]), (double)w->box_bed);
  }
  PetscCall(RingLevel(w, &eta));
  PetscFunctionReturn(0);
}

PetscReal SWEBoxWater(const SWE *w)
{
  return w->box ? w->box_area * (w->level - w->box_bed) : 0;
}

PetscErrorCode SWEBoxStep(SWE *w, PetscReal h, PetscBool *failed, char *reason, size_t len)
{
  SimRigidBody *B = &w->body;
  const PetscReal dA = w->dx * w->dx;
  PetscReal eta, Iw[9], F, tau, water, lowest, dh, hmin = PETSC_MAX_REAL;
  PetscInt xs, ys, xm, ym;
  PetscScalar ***u;

  PetscFunctionBegin;
  *failed = PETSC_FALSE;
  if (!w->box) PetscFunctionReturn(0);
  /* buoyancy and its torque from the columns, then heave and pitch */
  PetscCall(RingLevel(w, &eta));
  PetscCall(RowLevels(w, w->box_rows));
  Columns(w, w->box_rows, &F, &w->box_torque, &water, &lowest);
  w->box_force = F;
  SimRigidInertia(B, Iw);
  B->v[2] += h * (F * B->inv_mass - w->g);
  B->w[1] += h * w->box_torque / Iw[4];
  B->x[2] += h * B->v[2];
  SimQuatIntegrate(B->q, B->w, h);
  /* the columns follow the box's bottom (or the surface next to them, out of the water); the ring
     gives or takes the difference */
  Columns(w, w->box_rows, &F, &tau, &water, &lowest); /* at the new pose: only the water counts */
  dh = (water - w->box_area * (w->level - w->box_bed)) / (w->nring * dA);
  PetscCall(DMDAGetCorners(w->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOF(w->da, w->U, &u));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++)
      if (Ring(w, i, j)) {
        u[j][i][0] -= dh;
        hmin = PetscMin(hmin, u[j][i][0]);
      }
  PetscCall(DMDAVecRestoreArrayDOF(w->da, w->U, &u));
  w->level = w->box_bed + water / w->box_area;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &hmin, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)w->da)));
  if (hmin < 0 || lowest <= w->box_bed) {
    *failed = PETSC_TRUE;
    PetscCall(PetscSNPrintf(reason, len, "shallow_water: the floating box %s (bottom at %g m)", lowest <= w->box_bed ? "grounded" : "drew the water around it dry",
                            (double)(B->x[2] - B->size[2])));
  }
  PetscFunctionReturn(0);
}

PetscReal SWEBoxPitch(const SWE *w)
{
  return 2 * PetscAtan2Real(w->body.q[2], w->body.q[0]);
}
