/* The matrix-free pressure multigrid: the stencil operator equals the assembled one (2D/3D, walls
 * and open faces, on a fine and a coarsened level, any number of ranks), a red-black sweep solves
 * its last colour exactly, both PCMG variants keep their iteration counts over a grid sweep, and a
 * bad -sf_pressure_mg_operator is an error. Also run on 2 ranks (tests/cli/mpi.cmake). */
#include "testing.h"
#include "solvers/stablefluids/projection.h"
#include "solvers/stablefluids/pressure_stencil.h"

static PetscErrorCode RandomVec(Vec x, unsigned long seed)
{
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)x), &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(PetscRandomSetSeed(rnd, seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* max |a - b| / max |b|. */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *d)
{
  Vec t;
  PetscReal nb;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(a, &t));
  PetscCall(VecWAXPY(t, -1, b, a));
  PetscCall(VecNorm(t, NORM_INFINITY, d));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *d /= nb;
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(0);
}

/* Stencil vs assembled on `da`: A x, b - A x and the diagonal. */
static void CompareOnLevel(SimMAC mac, DM da, const char *what)
{
  Mat S, A;
  Vec x, b, y1, y2;
  PetscReal d[3];
  MatNullSpace ns1, ns2;

  CHECK_PETSC(SimPressureCreateStencil(mac, da, &S));
  CHECK_PETSC(DMCreateMatrix(da, &A));
  CHECK_PETSC(SimPressureAssemble(mac, da, A));
  CHECK_PETSC(DMCreateGlobalVector(da, &x));
  CHECK_PETSC(VecDuplicate(x, &b));
  CHECK_PETSC(VecDuplicate(x, &y1));
  CHECK_PETSC(VecDuplicate(x, &y2));
  CHECK_PETSC(RandomVec(x, 3));
  CHECK_PETSC(RandomVec(b, 5));
  CHECK_PETSC(MatMult(S, x, y1));
  CHECK_PETSC(MatMult(A, x, y2));
  CHECK_PETSC(RelDiff(y1, y2, &d[0]));
  CHECK_PETSC(MatResidual(S, b, x, y1));
  CHECK_PETSC(MatResidual(A, b, x, y2));
  CHECK_PETSC(RelDiff(y1, y2, &d[1]));
  CHECK_PETSC(MatGetDiagonal(S, y1));
  CHECK_PETSC(MatGetDiagonal(A, y2));
  CHECK_PETSC(RelDiff(y1, y2, &d[2]));
  CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "stencil vs assembled, %s: Ax %.1e, b-Ax %.1e, diag %.1e\n", what, (double)d[0],
                          (double)d[1], (double)d[2]));
  ck_assert_msg(d[0] <= 1e-12 && d[1] <= 1e-12 && d[2] <= 1e-12, "%s: stencil differs from the assembled operator (%g, %g, %g)",
                what, (double)d[0], (double)d[1], (double)d[2]);
  CHECK_PETSC(MatGetNullSpace(S, &ns1));
  CHECK_PETSC(MatGetNullSpace(A, &ns2));
  ck_assert_msg((ns1 != NULL) == (ns2 != NULL), "%s: the stencil and the assembled operator disagree on the null space", what);
  CHECK_PETSC(VecDestroy(&x));
  CHECK_PETSC(VecDestroy(&b));
  CHECK_PETSC(VecDestroy(&y1));
  CHECK_PETSC(VecDestroy(&y2));
  CHECK_PETSC(MatDestroy(&S));
  CHECK_PETSC(MatDestroy(&A));
}

/* Boundary sets: all walls; one open face; open faces on two axes (both sides of x, top of y/z). */
static void SetBoundaries(SimMAC mac, PetscInt set)
{
  if (set >= 1) CHECK_PETSC(SimMACSetBoundary(mac, mac->dim - 1, 1, SIM_MAC_OPEN));
  if (set >= 2) {
    CHECK_PETSC(SimMACSetBoundary(mac, 0, 0, SIM_MAC_OPEN));
    CHECK_PETSC(SimMACSetBoundary(mac, 0, 1, SIM_MAC_OPEN));
  }
}

START_TEST(stencil_equals_assembled)
{
  const PetscInt n2[2] = {24, 20}, n3[3] = {12, 8, 16};

  for (PetscInt dim = 2; dim <= 3; dim++)
    for (PetscInt set = 0; set < 3; set++) {
      SimMAC mac;
      DM fine, coarse;
      char what[64];

      CHECK_PETSC(SimMACCreate(PETSC_COMM_WORLD, dim, dim == 2 ? n2 : n3, 0.1, &mac));
      SetBoundaries(mac, set);
      CHECK_PETSC(SimPressureCreateGhostedDA(mac, &fine));
      CHECK_PETSC(PetscSNPrintf(what, sizeof(what), "%dD, boundary set %d, fine", (int)dim, (int)set));
      CompareOnLevel(mac, fine, what);
      CHECK_PETSC(DMCoarsen(fine, PETSC_COMM_WORLD, &coarse));
      CHECK_PETSC(PetscSNPrintf(what, sizeof(what), "%dD, boundary set %d, coarsened", (int)dim, (int)set));
      CompareOnLevel(mac, coarse, what);
      CHECK_PETSC(DMDestroy(&coarse));
      CHECK_PETSC(DMDestroy(&fine));
      CHECK_PETSC(SimMACDestroy(&mac));
    }
}
END_TEST

/* After one red-black sweep the black cells were updated last, each from its (red) neighbours: their
 * residual is zero to round-off, the red cells' is not (what catches a wrong diagonal, a missed
 * boundary term or a stale ghost between the colours). Black-red: the other way round. */
START_TEST(red_black_sweep_solves_last_colour)
{
  const PetscInt n2[2] = {16, 12}, n3[3] = {8, 10, 6};

  for (PetscInt dim = 2; dim <= 3; dim++)
    for (PetscInt reverse = 0; reverse < 2; reverse++) {
      SimMAC mac;
      DM da;
      Mat S;
      PC pc;
      Vec x, b, r;
      const PetscScalar *ra;
      PetscInt xs, ys, zs, xm, ym, zm, outits;
      PetscReal last = 0, other = 0, bn;
      PCRichardsonConvergedReason reason;

      CHECK_PETSC(SimMACCreate(PETSC_COMM_WORLD, dim, dim == 2 ? n2 : n3, 0.1, &mac));
      SetBoundaries(mac, 1 + reverse);
      CHECK_PETSC(SimPressureCreateGhostedDA(mac, &da));
      CHECK_PETSC(SimPressureCreateStencil(mac, da, &S));
      CHECK_PETSC(PCCreate(PETSC_COMM_WORLD, &pc));
      CHECK_PETSC(PCSetOperators(pc, S, S));
      CHECK_PETSC(SimPressureSmootherSetUp(pc, S, (PetscBool)reverse));
      CHECK_PETSC(DMCreateGlobalVector(da, &x));
      CHECK_PETSC(VecDuplicate(x, &b));
      CHECK_PETSC(VecDuplicate(x, &r));
      CHECK_PETSC(RandomVec(b, 9));
      CHECK_PETSC(RandomVec(x, 13));
      CHECK_PETSC(PCApplyRichardson(pc, b, x, r, 0, 0, 0, 1, PETSC_FALSE, &outits, &reason));
      CHECK_PETSC(MatResidual(S, b, x, r));
      CHECK_PETSC(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
      CHECK_PETSC(VecGetArrayRead(r, &ra));
      for (PetscInt k = zs, l = 0; k < zs + zm; k++)
        for (PetscInt j = ys; j < ys + ym; j++)
          for (PetscInt i = xs; i < xs + xm; i++, l++) {
            PetscBool black = (PetscBool)((i + j + k) % 2 == 1);
            if (black != (PetscBool)reverse)
              last = PetscMax(last, PetscAbsScalar(ra[l]));
            else
              other = PetscMax(other, PetscAbsScalar(ra[l]));
          }
      CHECK_PETSC(VecRestoreArrayRead(r, &ra));
      ck_assert_int_eq(MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD), MPI_SUCCESS);
      ck_assert_int_eq(MPI_Allreduce(MPI_IN_PLACE, &other, 1, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD), MPI_SUCCESS);
      CHECK_PETSC(VecNorm(b, NORM_INFINITY, &bn));
      CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "%dD %s sweep: residual on the last colour %.1e, on the first %.1e\n", (int)dim,
                              reverse ? "black-red" : "red-black", (double)last, (double)other));
      ck_assert_msg(last <= 1e-13 * bn, "%dD: residual %g on the colour swept last", (int)dim, (double)last);
      ck_assert_msg(other > 1e-3 * bn, "%dD: the first colour's residual %g is suspiciously small", (int)dim, (double)other);
      ck_assert_int_eq(outits, 1);
      CHECK_PETSC(VecDestroy(&x));
      CHECK_PETSC(VecDestroy(&b));
      CHECK_PETSC(VecDestroy(&r));
      CHECK_PETSC(PCDestroy(&pc));
      CHECK_PETSC(MatDestroy(&S));
      CHECK_PETSC(DMDestroy(&da));
      CHECK_PETSC(SimMACDestroy(&mac));
    }
}
END_TEST

/* Iterations of one all-wall projection of a random field, and its true relative residual. */
static PetscErrorCode ProjectRandom(PetscInt dim, PetscInt n, const char *opts, PetscInt *its, PetscReal *relres)
{
  PetscInt N[3] = {n, n, n};
  SimMAC mac;
  SimProjection proj;
  Vec u, div, div0;
  PetscReal n0, n1;

  PetscFunctionBeginUser;
  PetscCall(TestSetOptions(opts));
  PetscCall(SimMACCreate(PETSC_COMM_WORLD, dim, N, 1.0 / n, &mac));
  PetscCall(SimProjectionCreate(mac, NULL, &proj));
  PetscCall(DMCreateGlobalVector(mac->dav, &u));
  PetscCall(DMCreateGlobalVector(mac->da, &div));
  PetscCall(VecDuplicate(div, &div0));
  PetscCall(RandomVec(u, 17));
  PetscCall(SimMACZeroWallFaces(mac, u)); /* all walls: a compatible divergence */
  PetscCall(SimMACDivergence(mac, u, div0));
  PetscCall(SimProjectionApply(proj, 0.01, 1.0, u, NULL));
  PetscCall(SimProjectionGetIterations(proj, its));
  PetscCall(SimMACDivergence(mac, u, div));
  PetscCall(VecNorm(div0, NORM_2, &n0));
  PetscCall(VecNorm(div, NORM_2, &n1));
  *relres = n1 / n0; /* the true residual of A p = -h^d (rho/dt) div u*, relative */
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&div));
  PetscCall(VecDestroy(&div0));
  PetscCall(SimProjectionDestroy(&proj));
  PetscCall(SimMACDestroy(&mac));
  PetscCall(TestSetOptions(NULL));
  PetscFunctionReturn(0);
}

/* The matrix-free pre-smoothers take a nonzero guess, so that KSPSolve does not zero x again after the
 * cycle did (pressure_mg.c): they still start from zero (x's cached norm is 0), and the projection is
 * bit for bit the one with KSPSolve's zeroing (guess zero), in 2D and 3D on ragged sizes. */
START_TEST(presmoothing_without_second_zeroing)
{
  for (PetscInt dim = 2; dim <= 3; dim++) {
    const PetscInt n = dim == 2 ? 45 : 19, N[3] = {n, n, n};
    Vec u[2];
    PetscInt its[2];

    for (PetscInt v = 0; v < 2; v++) {
      SimMAC mac;
      SimProjection proj;
      KSP ksp, down;
      PC pc;
      PetscInt levels;
      CHECK_PETSC(TestSetOptions(NULL));
      CHECK_PETSC(SimMACCreate(PETSC_COMM_WORLD, dim, N, 1.0 / n, &mac));
      CHECK_PETSC(SimProjectionCreate(mac, NULL, &proj));
      CHECK_PETSC(SimProjectionGetKSP(proj, &ksp));
      CHECK_PETSC(KSPGetPC(ksp, &pc));
      CHECK_PETSC(PCMGGetLevels(pc, &levels));
      ck_assert_msg(levels > 2, "%dD n = %d: %d levels", (int)dim, (int)n, (int)levels);
      for (PetscInt l = 1; l < levels; l++) {
        PetscBool nonzero;
        CHECK_PETSC(PCMGGetSmootherDown(pc, l, &down));
        CHECK_PETSC(KSPGetInitialGuessNonzero(down, &nonzero));
        ck_assert_msg(nonzero, "%dD level %d: the pre-smoother zeroes x itself", (int)dim, (int)l);
        if (v == 1) CHECK_PETSC(KSPSetInitialGuessNonzero(down, PETSC_FALSE)); /* KSPSolve zeroes x again */
      }
      CHECK_PETSC(DMCreateGlobalVector(mac->dav, &u[v]));
      CHECK_PETSC(RandomVec(u[v], 23));
      CHECK_PETSC(SimMACZeroWallFaces(mac, u[v]));
      CHECK_PETSC(SimProjectionApply(proj, 0.01, 1.0, u[v], NULL));
      CHECK_PETSC(SimProjectionGetIterations(proj, &its[v]));
      CHECK_PETSC(SimProjectionDestroy(&proj));
      CHECK_PETSC(SimMACDestroy(&mac));
    }
    {
      const PetscScalar *a, *b;
      PetscInt m, differ = 0;
      CHECK_PETSC(VecGetLocalSize(u[0], &m));
      CHECK_PETSC(VecGetArrayRead(u[0], &a));
      CHECK_PETSC(VecGetArrayRead(u[1], &b));
      for (PetscInt i = 0; i < m; i++) differ += a[i] != b[i];
      CHECK_PETSC(VecRestoreArrayRead(u[1], &b));
      CHECK_PETSC(VecRestoreArrayRead(u[0], &a));
      ck_assert_msg(its[0] == its[1] && its[0] > 0 && differ == 0, "%dD: %d and %d iterations, %d faces differ", (int)dim, (int)its[0],
                    (int)its[1], (int)differ);
    }
    CHECK_PETSC(VecDestroy(&u[0]));
    CHECK_PETSC(VecDestroy(&u[1]));
  }
}
END_TEST

/* Both PCMG variants: iterations within +-3 over 64^2..512^2 and 16^3..64^3, true residual <= 1e-8. */
START_TEST(iterations_both_variants)
{
  const char *variants[2] = {"-sf_pressure_mg_operator matfree", "-sf_pressure_mg_operator assembled"};

  for (PetscInt v = 0; v < 2; v++)
    for (PetscInt dim = 2; dim <= 3; dim++) {
      PetscInt lo = PETSC_MAX_INT, hi = 0, its;
      PetscReal res;
      for (PetscInt s = 0; s < (dim == 2 ? 4 : 3); s++) {
        PetscInt n = (dim == 2 ? 64 : 16) << s;
        CHECK_PETSC(ProjectRandom(dim, n, variants[v], &its, &res));
        CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "%s %dD n=%d: %d its, true relative residual %.2e\n", variants[v], (int)dim,
                                (int)n, (int)its, (double)res));
        ck_assert_msg(res <= 1e-8, "%s, n = %d: true relative residual %g > 1e-8", variants[v], (int)n, (double)res);
        lo = PetscMin(lo, its);
        hi = PetscMax(hi, its);
      }
      ck_assert_msg(hi - lo <= 3, "%s %dD: iterations range from %d to %d (spread > 3)", variants[v], (int)dim, (int)lo, (int)hi);
    }
}
END_TEST

/* Any grid size (odd, prime, few factors of 2): the hierarchy halves in pairs with a ragged last
 * cell, so MGPCG takes 6 +- 1 iterations to a 1e-8 true residual on every size, 2D 16..257 and
 * 3D 16..45 here (one rank; on two a few of them, where the aggregates straddle ranks and the
 * transfers are AIJ). The sweep up to 1024^2 and 128^3 is benchmarks/fluids_step.yaml (sizes2d,
 * sizes3d): too slow for a unit test on a loaded machine. */
START_TEST(iterations_any_size)
{
  const PetscInt n2[] = {16, 17, 31, 33, 45, 50, 63, 97, 127, 250, 251, 257}, n2mpi[] = {45};
  const PetscInt n3[] = {16, 17, 24, 33, 45}, n3mpi[] = {17};
  PetscMPIInt size;

  CHECK_PETSC(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (PetscInt dim = 2; dim <= 3; dim++) {
    const PetscInt *n = dim == 2 ? (size > 1 ? n2mpi : n2) : (size > 1 ? n3mpi : n3);
    const PetscInt count = dim == 2 ? (size > 1 ? 1 : (PetscInt)PETSC_STATIC_ARRAY_LENGTH(n2)) : (size > 1 ? 1 : (PetscInt)PETSC_STATIC_ARRAY_LENGTH(n3));
    for (PetscInt s = 0; s < count; s++) {
      PetscInt its;
      PetscReal res;
      CHECK_PETSC(ProjectRandom(dim, n[s], NULL, &its, &res));
      CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "MGPCG %dD n=%d: %d its, true relative residual %.2e\n", (int)dim, (int)n[s], (int)its, (double)res));
      ck_assert_msg(res <= 1e-8, "%dD n = %d: true relative residual %g > 1e-8", (int)dim, (int)n[s], (double)res);
      ck_assert_msg(its >= 5 && its <= 7, "%dD n = %d: %d CG iterations, not 6 +- 1", (int)dim, (int)n[s], (int)its);
    }
  }
}
END_TEST

START_TEST(bad_operator_option)
{
  PetscInt N[2] = {16, 16};
  SimMAC mac;
  SimProjection proj = NULL;
  TestErrorCapture cap = {""};
  PetscErrorCode ierr;

  CHECK_PETSC(TestSetOptions("-sf_pressure_mg_operator sparse"));
  CHECK_PETSC(SimMACCreate(PETSC_COMM_WORLD, 2, N, 1.0 / 16, &mac));
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimProjectionCreate(mac, NULL, &proj);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0, "an unknown -sf_pressure_mg_operator was accepted");
  ck_assert_msg(strstr(cap.msg, "sparse") != NULL, "the error does not name the bad value: %s", cap.msg);
  CHECK_PETSC(SimMACDestroy(&mac));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("pressure_mg");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, stencil_equals_assembled);
  tcase_add_test(tc, red_black_sweep_solves_last_colour);
  tcase_add_test(tc, presmoothing_without_second_zeroing);
  tcase_add_test(tc, iterations_both_variants);
  tcase_add_test(tc, iterations_any_size);
  tcase_add_test(tc, bad_operator_option);
  suite_add_tcase(s, tc);
  return s;
}
