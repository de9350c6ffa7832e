/* dU/dt of the shallow-water state on the DMDA: ghost cells beyond the box (mirrored at walls,
 * copied at open faces), then one sweep per row (x fluxes) and per column (y fluxes). Every cell's
 * value depends only on its own neighbourhood, so p ranks compute the same numbers as one. */
#include "solvers/swe/swe_impl.h"

/* Ghost cells beyond the box on the local vector Ul (the state, dof 3, or the bottom, dof 1): cell
 * -k mirrors cell k - 1. At a wall the normal momentum changes sign (the mirror image of the flow:
 * no mass crosses); at an open face the ghosts copy the boundary cell (zero gradient). */
PetscErrorCode SWEFillGhosts(SWE *w, Vec Ul, PetscBool bottom)
{
  DM dm = bottom ? w->dab : w->da;
  const PetscInt dof = bottom ? 1 : 3, nx = w->nx, ny = w->ny;
  PetscInt xs, ys, xm, ym;
  PetscScalar ***a;

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(dm, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOF(dm, Ul, &a));
  for (PetscInt k = 1; k <= 2; k++) {
    for (PetscInt j = ys; j < ys + ym; j++) {
      if (xs == 0) {
        const PetscInt src = PetscMin(k - 1, nx - 1);
        for (PetscInt c = 0; c < dof; c++) a[j][-k][c] = w->wall[0] ? a[j][src][c] : a[j][0][c];
        if (!bottom && w->wall[0]) a[j][-k][1] = -a[j][src][1];
      }
      if (xs + xm == nx) {
        const PetscInt src = PetscMax(nx - k, 0);
        for (PetscInt c = 0; c < dof; c++) a[j][nx - 1 + k][c] = w->wall[1] ? a[j][src][c] : a[j][nx - 1][c];
        if (!bottom && w->wall[1]) a[j][nx - 1 + k][1] = -a[j][src][1];
      }
    }
    for (PetscInt i = xs; i < xs + xm; i++) {
      if (ys == 0) {
        const PetscInt src = PetscMin(k - 1, ny - 1);
        for (PetscInt c = 0; c < dof; c++) a[-k][i][c] = w->wall[2] ? a[src][i][c] : a[0][i][c];
        if (!bottom && w->wall[2]) a[-k][i][2] = -a[src][i][2];
      }
      if (ys + ym == ny) {
        const PetscInt src = PetscMax(ny - k, 0);
        for (PetscInt c = 0; c < dof; c++) a[ny - 1 + k][i][c] = w->wall[3] ? a[src][i][c] : a[ny - 1][i][c];
        if (!bottom && w->wall[3]) a[ny - 1 + k][i][2] = -a[src][i][2];
      }
    }
  }
  PetscCall(DMDAVecRestoreArrayDOF(dm, Ul, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode SWERHS(SWE *w, Vec U, Vec R, PetscReal *rate)
{
  PetscInt xs, ys, xm, ym;
  const PetscScalar ***u, **b;
  PetscScalar ***r;
  PetscReal rx = 0, ry = 0, rl, rates[2];
  SWELine line;

  PetscFunctionBegin;
  PetscCall(DMGlobalToLocal(w->da, U, INSERT_VALUES, w->Ul));
  PetscCall(SWEFillGhosts(w, w->Ul, PETSC_FALSE));
  PetscCall(VecSet(R, 0));
  PetscCall(DMDAGetCorners(w->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOFRead(w->da, w->Ul, &u));
  PetscCall(DMDAVecGetArrayRead(w->dab, w->bl, &b));
  PetscCall(DMDAVecGetArrayDOF(w->da, R, &r));
  line.h = w->line[0], line.qn = w->line[1], line.qt = w->line[2], line.b = w->line[3];
  /* x fluxes, row by row: normal momentum hu, tangential hv */
  line.m = xm;
  for (PetscInt j = ys; j < ys + ym; j++) {
    for (PetscInt i = xs - 2, l = 0; i < xs + xm + 2; i++, l++)
      line.h[l] = u[j][i][0], line.qn[l] = u[j][i][1], line.qt[l] = u[j][i][2], line.b[l] = b[j][i];
    PetscCall(PetscArrayzero(w->dline, 3 * xm));
    SWESweep(&line, w->order, w->flux, w->g, w->dx, w->dry, (PetscBool)(xs == 0 && w->wall[0]), (PetscBool)(xs + xm == w->nx && w->wall[1]),
             w->work, w->dline, &rl);
    rx = PetscMax(rx, rl);
    for (PetscInt i = xs, l = 0; i < xs + xm; i++, l++)
      for (PetscInt c = 0; c < 3; c++) r[j][i][c] += w->dline[3 * l + c];
  }
  /* y fluxes, column by column: normal momentum hv, tangential hu */
  line.m = ym;
  for (PetscInt i = xs; i < xs + xm; i++) {
    for (PetscInt j = ys - 2, l = 0; j < ys + ym + 2; j++, l++)
      line.h[l] = u[j][i][0], line.qn[l] = u[j][i][2], line.qt[l] = u[j][i][1], line.b[l] = b[j][i];
    PetscCall(PetscArrayzero(w->dline, 3 * ym));
    SWESweep(&line, w->order, w->flux, w->g, w->dx, w->dry, (PetscBool)(ys == 0 && w->wall[2]), (PetscBool)(ys + ym == w->ny && w->wall[3]),
             w->work, w->dline, &rl);
    ry = PetscMax(ry, rl);
    for (PetscInt j = ys, l = 0; j < ys + ym; j++, l++) {
      r[j][i][0] += w->dline[3 * l];
      r[j][i][2] += w->dline[3 * l + 1];
      r[j][i][1] += w->dline[3 * l + 2];
    }
  }
  PetscCall(DMDAVecRestoreArrayDOF(w->da, R, &r));
  PetscCall(DMDAVecRestoreArrayRead(w->dab, w->bl, &b));
  PetscCall(DMDAVecRestoreArrayDOFRead(w->da, w->Ul, &u));
  rates[0] = rx, rates[1] = ry;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, rates, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)w->da)));
  *rate = rates[0] + rates[1];
  PetscFunctionReturn(0);
}

/* Volume = sum h dx^2 over the cells, summed per rank in cell order, then over the ranks. */
PetscErrorCode SWEVolume(SWE *w, Vec U, PetscReal *volume)
{
  const PetscScalar *a;
  PetscInt n;
  PetscReal v = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(U, &n));
  PetscCall(VecGetArrayRead(U, &a));
  for (PetscInt l = 0; l < n; l += 3) v += a[l];
  PetscCall(VecRestoreArrayRead(U, &a));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &v, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)U)));
  *volume = v * w->dx * w->dx + SWEBoxWater(w);
  PetscFunctionReturn(0);
}
