/* Stable Fluids pressure projection on the MAC grid: divergence after projection, manufactured
 * Poisson convergence, invariance of divergence-free fields, removal of gradients, MGPCG
 * iteration counts across resolutions, and bad input. */
#include "testing.h"
#include "solvers/stablefluids/projection.h"

#define RTOL 1e-8

/* A random face velocity in [-0.5, 0.5) (fixed seed) with zero wall-normal faces. */
static PetscErrorCode RandomVelocity(SimMAC mac, unsigned long seed, Vec u)
{
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)u), &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -0.5, 0.5));
  PetscCall(PetscRandomSetSeed(rnd, seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(u, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(SimMACZeroWallFaces(mac, u));
  PetscFunctionReturn(0);
}

/* ||div_h u||_2 and ||div_h u||_inf over the cells. */
static PetscErrorCode DivergenceNorms(SimMAC mac, Vec u, PetscReal *n2, PetscReal *ninf)
{
  Vec div;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalVector(mac->da, &div));
  PetscCall(SimMACDivergence(mac, u, div));
  PetscCall(VecNorm(div, NORM_2, n2));
  PetscCall(VecNorm(div, NORM_INFINITY, ninf));
  PetscCall(DMRestoreGlobalVector(mac->da, &div));
  PetscFunctionReturn(0);
}

/* Projects a random field on an n^dim unit-box grid, with the given face open (-1: walls
 * everywhere), and checks ||div u||_inf <= rtol ||div u*||_2: the true residual of
 * A p = -h^d (rho/dt) div u* is exactly -h^d (rho/dt) div u, and CG stops on
 * ||r||_2 <= rtol ||b||_2. */
static void CheckDivergenceFree(PetscInt dim, PetscInt n, PetscInt openface)
{
  PetscInt N[3] = {n, n, n}, its;
  SimMAC mac;
  SimProjection proj;
  Vec u;
  PetscReal b2, binf, a2, ainf;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(SimMACCreate(PETSC_COMM_WORLD, dim, N, 1.0 / n, &mac));
  if (openface >= 0) CHECK_PETSC(SimMACSetBoundary(mac, openface / 2, openface % 2, SIM_MAC_OPEN));
  CHECK_PETSC(SimProjectionCreate(mac, NULL, &proj));
  CHECK_PETSC(DMCreateGlobalVector(mac->dav, &u));
  CHECK_PETSC(RandomVelocity(mac, 7 + (unsigned long)openface, u));
  CHECK_PETSC(DivergenceNorms(mac, u, &b2, &binf));
  CHECK_PETSC(SimProjectionApply(proj, 0.01, 1000.0, u, NULL));
  CHECK_PETSC(DivergenceNorms(mac, u, &a2, &ainf));
  CHECK_PETSC(SimProjectionGetIterations(proj, &its));
  CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD,
                          "projection %" PetscInt_FMT "D n=%" PetscInt_FMT " open face %" PetscInt_FMT
                          ": |div u*|_inf %.3e -> |div u|_inf %.3e (%" PetscInt_FMT " its)\n",
                          dim, n, openface, (double)binf, (double)ainf, its));
  ck_assert_msg(binf > 1, "the random field must start divergent (|div u*|_inf = %g)", (double)binf);
  ck_assert_msg(ainf <= 1.01 * RTOL * b2, "|div u|_inf = %g after projection exceeds rtol |div u*|_2 = %g", (double)ainf,
                (double)(RTOL * b2));
  CHECK_PETSC(VecDestroy(&u));
  CHECK_PETSC(SimProjectionDestroy(&proj));
  CHECK_PETSC(SimMACDestroy(&mac));
}

START_TEST(divergence_free_after_projection)
{
  CheckDivergenceFree(2, 64, -1);
  CheckDivergenceFree(2, 64, 3);   /* open top (y high) */
  CheckDivergenceFree(2, 48, 0);   /* open left, 4 levels down to a 6^2 coarse grid */
  CheckDivergenceFree(2, 134, -1); /* 134 = 2 * 67: a 67^2 coarse grid, GAMG coarse solve */
  CheckDivergenceFree(3, 16, -1);
  CheckDivergenceFree(3, 16, 5); /* open top (z high) */
}
END_TEST

/* Max-norm error of the Poisson solve lap_h p_h = lap p for p = prod_d cos(pi x_d) on the unit
 * box with walls (dp/dn = 0), both fields taken mean-free. */
static PetscErrorCode ManufacturedError(PetscInt dim, PetscInt n, PetscReal *err)
{
  PetscInt N[3] = {n, n, n}, xs, ys, zs, xm, ym, zm, ncell = 1;
  SimMAC mac;
  SimProjection proj;
  Vec f, p, pe;
  PetscScalar *af, *ae, mean;
  PetscReal h = 1.0 / n;

  PetscFunctionBeginUser;
  PetscCall(TestSetOptions(NULL));
  PetscCall(SimMACCreate(PETSC_COMM_WORLD, dim, N, h, &mac));
  PetscCall(SimProjectionCreate(mac, NULL, &proj));
  PetscCall(DMCreateGlobalVector(mac->da, &f));
  PetscCall(VecDuplicate(f, &p));
  PetscCall(VecDuplicate(f, &pe));
  PetscCall(DMDAGetCorners(mac->da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(f, &af));
  PetscCall(VecGetArray(pe, &ae));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        PetscReal x = (i + 0.5) * h, y = (j + 0.5) * h, z = (k + 0.5) * h;
        ae[l] = PetscCosReal(PETSC_PI * x) * PetscCosReal(PETSC_PI * y) * (dim == 3 ? PetscCosReal(PETSC_PI * z) : 1.0);
        af[l] = -dim * PETSC_PI * PETSC_PI * ae[l]; /* lap p */
      }
  PetscCall(VecRestoreArray(f, &af));
  PetscCall(VecRestoreArray(pe, &ae));
  PetscCall(SimProjectionSolveLaplacian(proj, f, p));
  for (PetscInt d = 0; d < dim; d++) ncell *= n;
  PetscCall(VecSum(p, &mean));
  PetscCall(VecShift(p, -mean / ncell));
  PetscCall(VecSum(pe, &mean));
  PetscCall(VecShift(pe, -mean / ncell));
  PetscCall(VecAXPY(p, -1.0, pe));
  PetscCall(VecNorm(p, NORM_INFINITY, err));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&p));
  PetscCall(VecDestroy(&pe));
  PetscCall(SimProjectionDestroy(&proj));
  PetscCall(SimMACDestroy(&mac));
  PetscFunctionReturn(0);
}

static void CheckSecondOrder(PetscInt dim, PetscInt n0)
{
  PetscReal e[3];

  for (PetscInt l = 0; l < 3; l++) CHECK_PETSC(ManufacturedError(dim, n0 << l, &e[l]));
  for (PetscInt l = 0; l < 2; l++) {
    PetscReal order = PetscLog2Real(e[l] / e[l + 1]);
    CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD,
                            "manufactured %" PetscInt_FMT "D: n=%" PetscInt_FMT " err %.3e, n=%" PetscInt_FMT
                            " err %.3e, order %.3f\n",
                            dim, n0 << l, (double)e[l], n0 << (l + 1), (double)e[l + 1], (double)order));
    ck_assert_msg(PetscAbsReal(order - 2) < 0.2, "%dD Poisson convergence order %g between n=%d and n=%d is not 2 +- 0.2",
                  (int)dim, (double)order, (int)(n0 << l), (int)(n0 << (l + 1)));
  }
}

START_TEST(manufactured_poisson_2d)
{
  CheckSecondOrder(2, 32);
}
END_TEST

START_TEST(manufactured_poisson_3d)
{
  CheckSecondOrder(3, 16);
}
END_TEST

/* A discretely divergence-free field, the curl of a node stream function psi = sin(pi x) sin(pi y)
 * (u = dpsi/dy on x-faces, v = -dpsi/dx on y-faces; psi = 0 on the walls so the wall-normal
 * faces are 0), is left unchanged; a discrete gradient of phi = cos(pi x) cos(pi y) (zero on
 * the walls) is removed. */
START_TEST(divergence_free_and_gradient_fields)
{
  const PetscInt n = 64;
  PetscInt N[2] = {n, n}, xs, ys, xm, ym;
  PetscReal h = 1.0 / n, u0, du, d2, dinf;
  SimMAC mac;
  SimProjection proj;
  Vec u, v, p, pe;
  PetscScalar ***a, **q;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(SimMACCreate(PETSC_COMM_WORLD, 2, N, h, &mac));
  CHECK_PETSC(SimProjectionCreate(mac, NULL, &proj));
  CHECK_PETSC(DMCreateGlobalVector(mac->dav, &u));
  CHECK_PETSC(VecDuplicate(u, &v));
  CHECK_PETSC(DMDAGetCorners(mac->dav, &xs, &ys, NULL, &xm, &ym, NULL));

  /* Curl of the stream function. */
  CHECK_PETSC(DMDAVecGetArrayDOF(mac->dav, u, &a));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      PetscReal x = i * h, y = j * h;
      PetscReal psi = PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y);
      a[j][i][0] = (PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * (y + h)) - psi) / h;
      a[j][i][1] = -(PetscSinReal(PETSC_PI * (x + h)) * PetscSinReal(PETSC_PI * y) - psi) / h;
    }
  CHECK_PETSC(DMDAVecRestoreArrayDOF(mac->dav, u, &a));
  CHECK_PETSC(SimMACZeroWallFaces(mac, u));
  CHECK_PETSC(DivergenceNorms(mac, u, &d2, &dinf));
  ck_assert_msg(dinf < 1e-10, "the discrete curl must be divergence-free (|div|_inf = %g)", (double)dinf);
  CHECK_PETSC(VecCopy(u, v));
  CHECK_PETSC(SimProjectionApply(proj, 0.1, 1.0, u, NULL));
  CHECK_PETSC(VecNorm(v, NORM_INFINITY, &u0));
  CHECK_PETSC(VecAXPY(v, -1.0, u));
  CHECK_PETSC(VecNorm(v, NORM_INFINITY, &du));
  CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "divergence-free field: |u| %.3e, change %.3e\n", (double)u0, (double)du));
  ck_assert_msg(u0 > 1 && du <= 1e-10 * u0, "projection changed a divergence-free field by %g (|u| = %g)", (double)du,
                (double)u0);

  /* Discrete gradient of phi at the interior faces, 0 on the walls. */
  CHECK_PETSC(DMDAVecGetArrayDOF(mac->dav, u, &a));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      PetscReal xc = (i + 0.5) * h, yc = (j + 0.5) * h;
      PetscReal phi = PetscCosReal(PETSC_PI * xc) * PetscCosReal(PETSC_PI * yc);
      a[j][i][0] = (phi - PetscCosReal(PETSC_PI * (xc - h)) * PetscCosReal(PETSC_PI * yc)) / h;
      a[j][i][1] = (phi - PetscCosReal(PETSC_PI * xc) * PetscCosReal(PETSC_PI * (yc - h))) / h;
    }
  CHECK_PETSC(DMDAVecRestoreArrayDOF(mac->dav, u, &a));
  CHECK_PETSC(SimMACZeroWallFaces(mac, u));
  CHECK_PETSC(VecNorm(u, NORM_INFINITY, &u0));
  CHECK_PETSC(DMCreateGlobalVector(mac->da, &p));
  CHECK_PETSC(VecDuplicate(p, &pe));
  CHECK_PETSC(SimProjectionApply(proj, 0.1, 2.0, u, p));
  CHECK_PETSC(VecNorm(u, NORM_INFINITY, &du));
  CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "gradient field: |u*| %.3e -> |u| %.3e\n", (double)u0, (double)du));
  ck_assert_msg(u0 > 1 && du <= 1e-6 * u0, "projection left %g of a pure gradient field of size %g", (double)du, (double)u0);
  /* u* = grad phi, so p = (rho/dt) phi + const (sign and dt of the update, seed errata 003); phi has zero mean. */
  CHECK_PETSC(DMDAVecGetArray(mac->da, pe, &q));
  for (PetscInt j = ys; j < PetscMin(ys + ym, n); j++)
    for (PetscInt i = xs; i < PetscMin(xs + xm, n); i++)
      q[j][i] = (2.0 / 0.1) * PetscCosReal(PETSC_PI * (i + 0.5) * h) * PetscCosReal(PETSC_PI * (j + 0.5) * h);
  CHECK_PETSC(DMDAVecRestoreArray(mac->da, pe, &q));
  CHECK_PETSC(VecNorm(pe, NORM_INFINITY, &u0));
  CHECK_PETSC(VecAXPY(pe, -1.0, p));
  CHECK_PETSC(VecNorm(pe, NORM_INFINITY, &du));
  ck_assert_msg(du <= 1e-6 * u0, "pressure of a gradient field differs from (rho/dt) phi by %g (|p| = %g)", (double)du,
                (double)u0);
  CHECK_PETSC(VecDestroy(&p));
  CHECK_PETSC(VecDestroy(&pe));

  CHECK_PETSC(VecDestroy(&u));
  CHECK_PETSC(VecDestroy(&v));
  CHECK_PETSC(SimProjectionDestroy(&proj));
  CHECK_PETSC(SimMACDestroy(&mac));
}
END_TEST

/* The 3D analogue: u = curl_h A with the edge potential A = (1, 2, 3) S, S = sin(pi x) sin(pi y)
 * sin(pi z) (A_x at x-edges ((i+1/2)h, jh, kh), etc.; curl_h on the faces, so div_h u = 0 up
 * to round-off for any edge values, and S = 0 on the boundary makes the wall faces 0); the
 * z-high face is open. Projection must leave u unchanged. */
static PetscReal S3(PetscReal x, PetscReal y, PetscReal z)
{
  return PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * PetscSinReal(PETSC_PI * z);
}

START_TEST(divergence_free_3d_open)
{
  const PetscInt n = 16;
  PetscInt N[3] = {n, n, n}, xs, ys, zs, xm, ym, zm;
  PetscReal h = 1.0 / n, u0, du, d2, dinf;
  SimMAC mac;
  SimProjection proj;
  Vec u, v;
  PetscScalar ****a;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(SimMACCreate(PETSC_COMM_WORLD, 3, N, h, &mac));
  CHECK_PETSC(SimMACSetBoundary(mac, 2, 1, SIM_MAC_OPEN));
  CHECK_PETSC(SimProjectionCreate(mac, NULL, &proj));
  CHECK_PETSC(DMCreateGlobalVector(mac->dav, &u));
  CHECK_PETSC(VecDuplicate(u, &v));
  CHECK_PETSC(DMDAGetCorners(mac->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  CHECK_PETSC(DMDAVecGetArrayDOF(mac->dav, u, &a));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        PetscReal x = i * h, y = j * h, z = k * h, c = 0.5 * h;
        /* u_x = dAz/dy - dAy/dz at (x, y+c, z+c) */
        a[k][j][i][0] = (3 * S3(x, y + h, z + c) - 3 * S3(x, y, z + c) - 2 * S3(x, y + c, z + h) + 2 * S3(x, y + c, z)) / h;
        /* u_y = dAx/dz - dAz/dx at (x+c, y, z+c) */
        a[k][j][i][1] = (S3(x + c, y, z + h) - S3(x + c, y, z) - 3 * S3(x + h, y, z + c) + 3 * S3(x, y, z + c)) / h;
        /* u_z = dAy/dx - dAx/dy at (x+c, y+c, z) */
        a[k][j][i][2] = (2 * S3(x + h, y + c, z) - 2 * S3(x, y + c, z) - S3(x + c, y + h, z) + S3(x + c, y, z)) / h;
      }
  CHECK_PETSC(DMDAVecRestoreArrayDOF(mac->dav, u, &a));
  CHECK_PETSC(SimMACZeroWallFaces(mac, u));
  CHECK_PETSC(DivergenceNorms(mac, u, &d2, &dinf));
  ck_assert_msg(dinf < 1e-10, "the discrete curl must be divergence-free (|div|_inf = %g)", (double)dinf);
  CHECK_PETSC(VecCopy(u, v));
  CHECK_PETSC(SimProjectionApply(proj, 0.1, 1.0, u, NULL));
  CHECK_PETSC(VecNorm(v, NORM_INFINITY, &u0));
  CHECK_PETSC(VecAXPY(v, -1.0, u));
  CHECK_PETSC(VecNorm(v, NORM_INFINITY, &du));
  CHECK_PETSC(
      PetscPrintf(PETSC_COMM_WORLD, "3D divergence-free field, open top: |u| %.3e, change %.3e\n", (double)u0, (double)du));
  ck_assert_msg(u0 > 1 && du <= 1e-10 * u0, "projection changed a divergence-free field by %g (|u| = %g)", (double)du,
                (double)u0);
  CHECK_PETSC(VecDestroy(&u));
  CHECK_PETSC(VecDestroy(&v));
  CHECK_PETSC(SimProjectionDestroy(&proj));
  CHECK_PETSC(SimMACDestroy(&mac));
}
END_TEST

/* A smooth face field (independent of the parallel layout), wall-normal faces zeroed. */
static PetscErrorCode SmoothVelocity(SimMAC mac, Vec u)
{
  PetscInt xs, ys, zs, xm, ym, zm;
  PetscReal h = mac->h;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(mac->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(u, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < mac->dim; c++) {
          PetscReal x = (i + (c == 0 ? 0 : 0.5)) * h, y = (j + (c == 1 ? 0 : 0.5)) * h, z = (k + (c == 2 ? 0 : 0.5)) * h;
          a[l * mac->dim + c] = PetscSinReal(2 * PETSC_PI * x + c) * PetscCosReal(3 * PETSC_PI * y) + x * y * (1 + c) +
                                PetscCosReal(PETSC_PI * z * (c + 1));
        }
  PetscCall(VecRestoreArray(u, &a));
  PetscCall(SimMACZeroWallFaces(mac, u));
  PetscFunctionReturn(0);
}

/* The projection on PETSC_COMM_WORLD matches the same projection done on one process
 * (PETSC_COMM_SELF, the whole grid on every rank) within the solver tolerance: the ghost
 * exchange and the aligned face/cell decompositions are right. Trivial on one rank; run the
 * binary under mpirun -np 2 to exercise it. */
static void CheckParallelMatchesSerial(PetscInt dim, PetscInt n, PetscInt openface)
{
  PetscInt N[3] = {n, n, n}, xs, ys, zs, xm, ym, zm, dof = dim;
  SimMAC mw, ms;
  SimProjection pw, ps;
  Vec uw, us;
  const PetscScalar *aw, *as;
  PetscReal diff = 0, scale;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(SimMACCreate(PETSC_COMM_WORLD, dim, N, 1.0 / n, &mw));
  CHECK_PETSC(SimMACCreate(PETSC_COMM_SELF, dim, N, 1.0 / n, &ms));
  if (openface >= 0) {
    CHECK_PETSC(SimMACSetBoundary(mw, openface / 2, openface % 2, SIM_MAC_OPEN));
    CHECK_PETSC(SimMACSetBoundary(ms, openface / 2, openface % 2, SIM_MAC_OPEN));
  }
  CHECK_PETSC(SimProjectionCreate(mw, NULL, &pw));
  CHECK_PETSC(SimProjectionCreate(ms, NULL, &ps));
  CHECK_PETSC(DMCreateGlobalVector(mw->dav, &uw));
  CHECK_PETSC(DMCreateGlobalVector(ms->dav, &us));
  CHECK_PETSC(SmoothVelocity(mw, uw));
  CHECK_PETSC(SmoothVelocity(ms, us));
  CHECK_PETSC(SimProjectionApply(pw, 0.01, 1.0, uw, NULL));
  CHECK_PETSC(SimProjectionApply(ps, 0.01, 1.0, us, NULL));
  CHECK_PETSC(VecNorm(us, NORM_INFINITY, &scale));
  CHECK_PETSC(DMDAGetCorners(mw->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  CHECK_PETSC(VecGetArrayRead(uw, &aw));
  CHECK_PETSC(VecGetArrayRead(us, &as));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < dof; c++) {
          PetscInt g = ((k * (n + 1) + j) * (n + 1) + i) * dof + c; /* natural index on the serial grid */
          diff = PetscMax(diff, PetscAbsScalar(aw[l * dof + c] - as[g]));
        }
  CHECK_PETSC(VecRestoreArrayRead(uw, &aw));
  CHECK_PETSC(VecRestoreArrayRead(us, &as));
  ck_assert(MPI_Allreduce(MPI_IN_PLACE, &diff, 1, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD) == MPI_SUCCESS);
  CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD,
                          "parallel vs serial %" PetscInt_FMT "D n=%" PetscInt_FMT ": |u_p - u_1|_inf %.3e (|u| %.3e)\n", dim, n,
                          (double)diff, (double)scale));
  ck_assert_msg(scale > 0.1 && diff <= 1e-6 * scale, "parallel projection differs from the serial one by %g (|u| = %g)",
                (double)diff, (double)scale);
  CHECK_PETSC(VecDestroy(&uw));
  CHECK_PETSC(VecDestroy(&us));
  CHECK_PETSC(SimProjectionDestroy(&pw));
  CHECK_PETSC(SimProjectionDestroy(&ps));
  CHECK_PETSC(SimMACDestroy(&mw));
  CHECK_PETSC(SimMACDestroy(&ms));
}

START_TEST(parallel_matches_serial)
{
  CheckParallelMatchesSerial(2, 64, -1);
  CheckParallelMatchesSerial(2, 64, 1);
  CheckParallelMatchesSerial(3, 16, 5);
}
END_TEST

/* Projects a random field on an n x n all-wall grid with `opts` in the options database; returns
 * the iterations and the solve time (the first, setup-including projection is not timed). */
static PetscErrorCode TimedProjection(PetscInt dim, PetscInt n, const char *opts, PetscInt *its, PetscReal *seconds)
{
  PetscInt N[3] = {n, n, n};
  SimMAC mac;
  SimProjection proj;
  Vec u, u0;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(TestSetOptions(opts));
  PetscCall(SimMACCreate(PETSC_COMM_WORLD, dim, N, 1.0 / n, &mac));
  PetscCall(SimProjectionCreate(mac, NULL, &proj));
  PetscCall(DMCreateGlobalVector(mac->dav, &u));
  PetscCall(VecDuplicate(u, &u0));
  PetscCall(RandomVelocity(mac, 11, u0));
  PetscCall(VecCopy(u0, u));
  PetscCall(SimProjectionApply(proj, 0.01, 1.0, u, NULL));
  PetscCall(VecCopy(u0, u));
  PetscCall(PetscTime(&t0));
  PetscCall(SimProjectionApply(proj, 0.01, 1.0, u, NULL));
  PetscCall(PetscTime(&t1));
  PetscCall(SimProjectionGetIterations(proj, its));
  *seconds = t1 - t0;
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&u0));
  PetscCall(SimProjectionDestroy(&proj));
  PetscCall(SimMACDestroy(&mac));
  PetscCall(TestSetOptions(NULL));
  PetscFunctionReturn(0);
}

/* MGPCG iterations to a 1e-8 relative residual are (nearly) independent of the grid size
 * (McAdams et al. 2010), 64^2..512^2 and 16^3..64^3; the other preconditioners are printed
 * for comparison at 256^2 (timings are printed, never asserted). */
START_TEST(mgpcg_iterations)
{
  const PetscInt sizes[4] = {64, 128, 256, 512};
  const char *others[4] = {"-sf_pressure_pc_type gamg", "-sf_pressure_pc_type icc", "-sf_pressure_pc_type jacobi",
                           "-sf_pressure_pc_type hypre"};
  PetscInt its, lo = PETSC_MAX_INT, hi = 0;
  PetscReal t;
  PetscMPIInt size;

  CHECK_PETSC(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size > 1) others[1] = "-sf_pressure_pc_type bjacobi -sf_pressure_sub_pc_type icc"; /* ICC is sequential */

  for (PetscInt s = 0; s < 4; s++) {
    CHECK_PETSC(TimedProjection(2, sizes[s], NULL, &its, &t));
    CHECK_PETSC(
        PetscPrintf(PETSC_COMM_WORLD, "MGPCG %4" PetscInt_FMT "^2: %3" PetscInt_FMT " its, %.4f s\n", sizes[s], its, (double)t));
    lo = PetscMin(lo, its);
    hi = PetscMax(hi, its);
  }
  ck_assert_msg(hi - lo <= 3, "MGPCG iterations range from %d to %d over 64^2..512^2 (spread > 3)", (int)lo, (int)hi);
  lo = PETSC_MAX_INT, hi = 0;
  for (PetscInt s = 0; s < 3; s++) {
    CHECK_PETSC(TimedProjection(3, 16 << s, NULL, &its, &t));
    CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "MGPCG %4d^3: %3" PetscInt_FMT " its, %.4f s\n", 16 << s, its, (double)t));
    lo = PetscMin(lo, its);
    hi = PetscMax(hi, its);
  }
  ck_assert_msg(hi - lo <= 3, "MGPCG iterations range from %d to %d over 16^3..64^3 (spread > 3)", (int)lo, (int)hi);
  for (PetscInt o = 0; o < 4; o++) {
    CHECK_PETSC(TimedProjection(2, 256, others[o], &its, &t));
    CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "CG %-32s 256^2: %4" PetscInt_FMT " its, %.4f s\n", others[o], its, (double)t));
    ck_assert_msg(its > 0, "%s did no iterations", others[o]);
  }
}
END_TEST

/* Bad grids and bad projection arguments give errors. */
/* SimMACGhosted: on one rank (PETSC_COMM_SELF) it hands back the global vector itself, without a
 * copy, and the exchange it skips would have produced exactly those values (the local vector of a
 * DMDA without ghost points is the global one entry for entry), for the faces and the cells in 2D and
 * 3D; on all ranks of PETSC_COMM_WORLD (several in the mpi run) it exchanges when there are ghosts,
 * and the values it returns are the exchange's. */
START_TEST(ghosted_read_without_copy)
{
  MPI_Comm comms[2] = {PETSC_COMM_SELF, PETSC_COMM_WORLD};

  CHECK_PETSC(TestSetOptions(NULL));
  for (PetscInt c = 0; c < 2; c++)
    for (PetscInt dim = 2; dim <= 3; dim++) {
      const PetscInt N[3] = {6, 5, 4};
      PetscMPIInt size;
      SimMAC mac;
      CHECK_PETSC(MPI_Comm_size(comms[c], &size));
      CHECK_PETSC(SimMACCreate(comms[c], dim, N, 0.25, &mac));
      for (PetscInt f = 0; f < 2; f++) {
        DM dm = f ? mac->dav : mac->da;
        Vec g, l, want, r;
        PetscBool copied, same;
        PetscInt nl, ng;
        CHECK_PETSC(DMCreateGlobalVector(dm, &g));
        CHECK_PETSC(DMCreateLocalVector(dm, &l));
        CHECK_PETSC(DMCreateLocalVector(dm, &want));
        {
          PetscRandom rnd;
          CHECK_PETSC(PetscRandomCreate(comms[c], &rnd));
          CHECK_PETSC(PetscRandomSetSeed(rnd, 11 + (unsigned long)(4 * dim + f)));
          CHECK_PETSC(PetscRandomSeed(rnd));
          CHECK_PETSC(VecSetRandom(g, rnd));
          CHECK_PETSC(PetscRandomDestroy(&rnd));
        }
        CHECK_PETSC(VecSet(l, -7.0)); /* what a skipped exchange leaves in l */
        CHECK_PETSC(DMGlobalToLocal(dm, g, INSERT_VALUES, want));
        CHECK_PETSC(SimMACGhosted(dm, g, l, &r, &copied));
        CHECK_PETSC(VecGetLocalSize(g, &ng));
        CHECK_PETSC(VecGetLocalSize(l, &nl));
        if (size == 1) ck_assert_msg(r == g && !copied && ng == nl, "dim %d, %s: one rank copied", (int)dim, f ? "faces" : "cells");
        else ck_assert_msg(r == l && copied, "dim %d, %s: %d ranks did not exchange", (int)dim, f ? "faces" : "cells", (int)size);
        {
          PetscInt nr;
          const PetscScalar *a, *b;
          CHECK_PETSC(VecGetLocalSize(r, &nr));
          ck_assert_int_eq(nr, nl);
          CHECK_PETSC(VecGetArrayRead(r, &a));
          CHECK_PETSC(VecGetArrayRead(want, &b));
          same = PETSC_TRUE;
          for (PetscInt i = 0; i < nl; i++) same = (PetscBool)(same && a[i] == b[i]);
          CHECK_PETSC(VecRestoreArrayRead(want, &b));
          CHECK_PETSC(VecRestoreArrayRead(r, &a));
        }
        ck_assert_msg(same, "dim %d, %s: the values read differ from the exchange's", (int)dim, f ? "faces" : "cells");
        CHECK_PETSC(VecDestroy(&want));
        CHECK_PETSC(VecDestroy(&l));
        CHECK_PETSC(VecDestroy(&g));
      }
      CHECK_PETSC(SimMACDestroy(&mac));
    }
}
END_TEST

START_TEST(bad_inputs)
{
  PetscInt small[2] = {1, 8}, ok[3] = {8, 8, 8};
  SimMAC mac = NULL;
  SimProjection proj, bad = NULL;
  Vec u;
  PetscErrorCode ierr;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimMACCreate(PETSC_COMM_WORLD, 2, small, 0.1, &mac);
  ck_assert_msg(ierr != 0 && !mac, "a grid with 1 cell along x must fail");
  ierr = SimMACCreate(PETSC_COMM_WORLD, 4, ok, 0.1, &mac);
  ck_assert_msg(ierr != 0 && !mac, "a 4D grid must fail");
  ierr = SimMACCreate(PETSC_COMM_WORLD, 3, ok, -0.1, &mac);
  ck_assert_msg(ierr != 0 && !mac, "a negative cell size must fail");
  CHECK_PETSC(PetscPopErrorHandler());

  CHECK_PETSC(SimMACCreate(PETSC_COMM_WORLD, 2, ok, 0.1, &mac));
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ck_assert_msg(SimMACSetBoundary(mac, 2, 0, SIM_MAC_OPEN) != 0, "axis 2 of a 2D grid must fail");
  CHECK_PETSC(PetscPopErrorHandler());
  CHECK_PETSC(SimProjectionCreate(mac, NULL, &proj));
  CHECK_PETSC(DMCreateGlobalVector(mac->dav, &u));
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ck_assert_msg(SimProjectionApply(proj, -0.01, 1.0, u, NULL) != 0, "a negative dt must fail");
  ck_assert_msg(SimProjectionApply(proj, 0.01, 0.0, u, NULL) != 0, "a zero density must fail");
  CHECK_PETSC(TestSetOptions("-sf_pressure_pc_type no_such_pc"));
  ierr = SimProjectionCreate(mac, NULL, &bad);
  ck_assert_msg(ierr != 0, "an unknown -sf_pressure_pc_type must fail");
  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(PetscPopErrorHandler());
  CHECK_PETSC(VecDestroy(&u));
  CHECK_PETSC(SimProjectionDestroy(&proj));
  CHECK_PETSC(SimMACDestroy(&mac));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("projection");
  TCase *tc = tcase_create("projection");

  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, divergence_free_after_projection);
  tcase_add_test(tc, manufactured_poisson_2d);
  tcase_add_test(tc, manufactured_poisson_3d);
  tcase_add_test(tc, divergence_free_and_gradient_fields);
  tcase_add_test(tc, divergence_free_3d_open);
  tcase_add_test(tc, parallel_matches_serial);
  tcase_add_test(tc, mgpcg_iterations);
  tcase_add_test(tc, ghosted_read_without_copy);
  tcase_add_test(tc, bad_inputs);
  suite_add_tcase(s, tc);
  return s;
}
