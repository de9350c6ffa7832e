/* The MAC grid on two aligned DMDAs (cells and faces), with the discrete divergence (Bridson ch. 5). */
#include "solvers/stablefluids/mac.h"

PetscErrorCode SimMACCreate(MPI_Comm comm, PetscInt dim, const PetscInt n[], PetscReal h, SimMAC *mac)
{
  SimMAC g;
  PetscInt p[3] = {1, 1, 1};
  const PetscInt *own[3] = {NULL, NULL, NULL};
  PetscInt *ownv[3] = {NULL, NULL, NULL};

  PetscFunctionBegin;
  PetscCheck(dim == 2 || dim == 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "MAC grid dimension %" PetscInt_FMT " is not 2 or 3", dim);
  for (PetscInt d = 0; d < dim; d++)
    PetscCheck(n[d] >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "MAC grid needs at least 2 cells per axis, axis %" PetscInt_FMT " has %" PetscInt_FMT, d, n[d]);
  PetscCheck(h > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "MAC grid cell size h = %g must be positive", (double)h);
  PetscCall(PetscNew(&g));
  g->dim = dim;
  g->h = h;
  for (PetscInt d = 0; d < 3; d++) g->n[d] = d < dim ? n[d] : 1;
  for (PetscInt f = 0; f < 6; f++) g->bc[f] = SIM_MAC_WALL;

  /* Cells: dof 1, star stencil (the 5/7-point Laplacian), Q0 so that coarsening halves the cells. */
  if (dim == 2)
    PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, g->n[0], g->n[1], PETSC_DECIDE,
                           PETSC_DECIDE, 1, 1, NULL, NULL, &g->da));
  else
    PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, g->n[0], g->n[1],
                           g->n[2], PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &g->da));
  PetscCall(DMDASetInterpolationType(g->da, DMDA_Q0));
  PetscCall(DMSetUp(g->da));

  /* Faces: the same decomposition, the extra (high boundary) layer on the last rank of each axis. */
  PetscCall(DMDAGetInfo(g->da, NULL, NULL, NULL, NULL, &p[0], &p[1], &p[2], NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(g->da, &own[0], &own[1], &own[2]));
  for (PetscInt d = 0; d < dim; d++) {
    PetscCall(PetscMalloc1(p[d], &ownv[d]));
    for (PetscInt r = 0; r < p[d]; r++) ownv[d][r] = own[d][r];
    ownv[d][p[d] - 1] += 1;
  }
  if (dim == 2)
    PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, g->n[0] + 1, g->n[1] + 1, p[0], p[1], dim,
                           1, ownv[0], ownv[1], &g->dav));
  else
    PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, g->n[0] + 1, g->n[1] + 1,
                           g->n[2] + 1, p[0], p[1], p[2], dim, 1, ownv[0], ownv[1], ownv[2], &g->dav));
  PetscCall(DMSetUp(g->dav));
  for (PetscInt d = 0; d < dim; d++) PetscCall(PetscFree(ownv[d]));
  *mac = g;
  PetscFunctionReturn(0);
}

PetscErrorCode SimMACSetBoundary(SimMAC mac, PetscInt axis, PetscInt side, SimMACBoundary bc)
{
  PetscFunctionBegin;
  PetscCheck(axis >= 0 && axis < mac->dim, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "boundary axis %" PetscInt_FMT " is not in [0, %" PetscInt_FMT ")", axis, mac->dim);
  PetscCheck(side == 0 || side == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "boundary side %" PetscInt_FMT " is not 0 (low) or 1 (high)", side);
  PetscCheck(bc == SIM_MAC_WALL || bc == SIM_MAC_OPEN, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "unknown boundary condition %d",
             (int)bc);
  mac->bc[2 * axis + side] = bc;
  PetscFunctionReturn(0);
}

PetscErrorCode SimMACAllWalls(SimMAC mac, PetscBool *allwalls)
{
  PetscFunctionBegin;
  *allwalls = PETSC_TRUE;
  for (PetscInt f = 0; f < 2 * mac->dim; f++)
    if (mac->bc[f] != SIM_MAC_WALL) *allwalls = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimMACDestroy(SimMAC *mac)
{
  PetscFunctionBegin;
  if (!mac || !*mac) PetscFunctionReturn(0);
  PetscCall(DMDestroy(&(*mac)->da));
  PetscCall(DMDestroy(&(*mac)->dav));
  PetscCall(PetscFree(*mac));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMACGhosted(DM dm, Vec g, Vec l, Vec *r, PetscBool *copied)
{
  PetscMPIInt size;
  PetscInt ng, nl;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  PetscCall(VecGetLocalSize(g, &ng));
  PetscCall(VecGetLocalSize(l, &nl));
  if (size == 1 && ng == nl) *r = g;
  else {
    PetscCall(DMGlobalToLocal(dm, g, INSERT_VALUES, l));
    *r = l;
  }
  if (copied) *copied = (PetscBool)(*r == l);
  PetscFunctionReturn(0);
}

PetscErrorCode SimMACEntries(DM dm, PetscReal *owned, PetscReal *ghosted)
{
  PetscInt dof, m[3] = {1, 1, 1}, g[3] = {1, 1, 1};
  PetscReal loc[2], sum[2];

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(dm, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(dm, NULL, NULL, NULL, &m[0], &m[1], &m[2]));
  PetscCall(DMDAGetGhostCorners(dm, NULL, NULL, NULL, &g[0], &g[1], &g[2]));
  loc[0] = (PetscReal)dof * m[0] * m[1] * m[2];
  loc[1] = (PetscReal)dof * g[0] * g[1] * g[2];
  PetscCallMPI(MPI_Allreduce(loc, sum, 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)dm)));
  if (owned) *owned = sum[0];
  if (ghosted) *ghosted = sum[1];
  PetscFunctionReturn(0);
}

/* Cell divergence, Bridson eq. 5.4: (div u)_c = sum_axes (u(low face of the next cell) - u(low face)) / h. */
PetscErrorCode SimMACDivergence(SimMAC mac, Vec u, Vec div)
{
  Vec ull, ul;
  PetscInt xs, ys, zs, xm, ym, zm, gxs, gys, gzs, gxm, gym;
  PetscReal ih = 1.0 / mac->h;
  const PetscScalar *v;
  PetscScalar *d;

  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(mac->dav, &ull));
  PetscCall(SimMACGhosted(mac->dav, u, ull, &ul, NULL));
  PetscCall(DMDAGetCorners(mac->da, &xs, &ys, &zs, &xm, &ym, &zm));
  /* flat indices into the faces' ghosted array (on one rank the global one: the same layout), no
   * DMDAVecGetArrayDOF (its pointer table has an entry per point: 34 MB per call at 128^3) */
  PetscCall(DMDAGetGhostCorners(mac->dav, &gxs, &gys, &gzs, &gxm, &gym, NULL));
  PetscCall(VecGetArrayRead(ul, &v));
  PetscCall(VecGetArrayWrite(div, &d));
  {
    const PetscInt sx = mac->dim, sy = sx * gxm, sz = sy * gym;
    for (PetscInt k = zs; k < zs + zm; k++)
      for (PetscInt j = ys; j < ys + ym; j++) {
        const PetscScalar *c = v + (xs - gxs) * sx + (j - gys) * sy + (k - gzs) * sz;
        PetscScalar *dr = d + xm * ((j - ys) + ym * (k - zs));
        if (mac->dim == 2)
          for (PetscInt i = 0; i < xm; i++, c += sx) dr[i] = ih * (c[sx] - c[0] + c[sy + 1] - c[1]);
        else
          for (PetscInt i = 0; i < xm; i++, c += sx) dr[i] = ih * (c[sx] - c[0] + c[sy + 1] - c[1] + c[sz + 2] - c[2]);
      }
  }
  PetscCall(VecRestoreArrayWrite(div, &d));
  PetscCall(VecRestoreArrayRead(ul, &v));
  PetscCall(DMRestoreLocalVector(mac->dav, &ull));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMACZeroPadding(SimMAC mac, Vec u)
{
  PetscInt xs, ys, zs, xm, ym, zm;

  PetscFunctionBegin;
  PetscCall(DMDAGetCorners(mac->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  if (mac->dim == 2) {
    PetscScalar ***v;
    PetscCall(DMDAVecGetArrayDOF(mac->dav, u, &v));
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        if (j == mac->n[1]) v[j][i][0] = 0;
        if (i == mac->n[0]) v[j][i][1] = 0;
      }
    PetscCall(DMDAVecRestoreArrayDOF(mac->dav, u, &v));
  } else {
    PetscScalar ****v;
    PetscCall(DMDAVecGetArrayDOF(mac->dav, u, &v));
    for (PetscInt k = zs; k < zs + zm; k++)
      for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++) {
          if (j == mac->n[1] || k == mac->n[2]) v[k][j][i][0] = 0;
          if (i == mac->n[0] || k == mac->n[2]) v[k][j][i][1] = 0;
          if (i == mac->n[0] || j == mac->n[1]) v[k][j][i][2] = 0;
        }
    PetscCall(DMDAVecRestoreArrayDOF(mac->dav, u, &v));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimMACZeroWallFaces(SimMAC mac, Vec u)
{
  PetscInt xs, ys, zs, xm, ym, zm;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(SimMACZeroPadding(mac, u));
  PetscCall(DMDAGetCorners(mac->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(u, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        const PetscInt idx[3] = {i, j, k};
        for (PetscInt c = 0; c < mac->dim; c++) {
          if (idx[c] == 0 && mac->bc[2 * c] == SIM_MAC_WALL) a[l * mac->dim + c] = 0;
          if (idx[c] == mac->n[c] && mac->bc[2 * c + 1] == SIM_MAC_WALL) a[l * mac->dim + c] = 0;
        }
      }
  PetscCall(VecRestoreArray(u, &a));
  PetscFunctionReturn(0);
}
