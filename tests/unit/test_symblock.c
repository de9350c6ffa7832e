/* The symmetric 3x3-block product (framework/linalg/symblock.h) against MatMult of the AIJ matrix it
 * copies: random symmetric block patterns, model Hessians, a pattern change, bad input. */
#include <string.h>
#include "testing.h"
#include "framework/linalg/symblock.h"
#include "framework/newton/newton.h"

/* max_i |(S x - A x)_i| / (|A| |x|)_i over random x: the product's error relative to the size of the
 * terms summed in row i (round-off: a few units of eps). */
static PetscErrorCode ProductError(Mat A, Mat S, PetscRandom rnd, PetscReal *err)
{
  Vec x, y, z, ax;
  const PetscScalar *yy, *zz, *aa;
  PetscScalar *v;
  const PetscInt *ia, *ja;
  PetscInt n;
  PetscBool done;
  Mat absA;

  PetscFunctionBeginUser;
  *err = 0;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &ax));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &absA));
  PetscCall(MatGetRowIJ(absA, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatSeqAIJGetArray(absA, &v));
  for (PetscInt k = 0; k < ia[n]; k++) v[k] = PetscAbsScalar(v[k]);
  PetscCall(MatSeqAIJRestoreArray(absA, &v));
  PetscCall(MatRestoreRowIJ(absA, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  for (int rep = 0; rep < 3; rep++) {
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(VecShift(x, -0.5));
    PetscCall(MatMult(A, x, y));
    PetscCall(MatMult(S, x, z));
    PetscCall(VecAbs(x));
    PetscCall(MatMult(absA, x, ax));
    PetscCall(VecGetArrayRead(y, &yy));
    PetscCall(VecGetArrayRead(z, &zz));
    PetscCall(VecGetArrayRead(ax, &aa));
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal d = PetscAbsScalar(yy[i] - zz[i]);
      if (d > 0) *err = PetscMax(*err, aa[i] > 0 ? d / aa[i] : PETSC_MAX_REAL);
    }
    PetscCall(VecRestoreArrayRead(y, &yy));
    PetscCall(VecRestoreArrayRead(z, &zz));
    PetscCall(VecRestoreArrayRead(ax, &aa));
  }
  PetscCall(MatDestroy(&absA));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&ax));
  PetscFunctionReturn(0);
}

/* COO lists (the way the model's Hessian is preallocated) of a random symmetric 3x3-block matrix on nv
 * vertices: each vertex coupled to `deg` random others (block B at (i, j), B^T at (j, i)); the diagonal
 * blocks symmetric; vertex 0 has its 3 diagonal entries only (no block), and the pair (1, 2) one entry
 * of its block and its mirror only (a partly filled block). Values uniform in [-1, 1]. */
static PetscErrorCode RandomSymmetricCOO(PetscRandom rnd, PetscInt nv, PetscInt deg, PetscInt *ncoo, PetscInt **ci, PetscInt **cj,
                                         PetscScalar **cv)
{
  const PetscInt cap = 9 * nv * (2 * deg + 1) + 16;
  PetscInt n = 0, *ri, *rj;
  PetscScalar *V;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(cap, &ri, cap, &rj, cap, &V));
  for (PetscInt d = 0; d < 3; d++) ri[n] = rj[n] = d, V[n++] = 2.0;
  ri[n] = 3, rj[n] = 8, V[n++] = 0.25; /* (1, 2): entry (3, 8) and its mirror (8, 3) only */
  ri[n] = 8, rj[n] = 3, V[n++] = 0.25;
  for (PetscInt i = 1; i < nv; i++) {
    PetscReal D[9];
    for (int k = 0; k < 9; k++) PetscCall(PetscRandomGetValueReal(rnd, &D[k]));
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) ri[n] = 3 * i + r, rj[n] = 3 * i + c, V[n++] = r <= c ? D[3 * r + c] - 0.5 : D[3 * c + r] - 0.5;
    for (PetscInt e = 0; e < deg; e++) {
      PetscReal t;
      PetscInt j;
      PetscCall(PetscRandomGetValueReal(rnd, &t));
      j = 1 + (PetscInt)(t * (nv - 1)) % (nv - 1);
      if (j == i) continue;
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          PetscCall(PetscRandomGetValueReal(rnd, &t));
          ri[n] = 3 * i + r, rj[n] = 3 * j + c, V[n++] = 2 * t - 1; /* duplicates (the same pair twice) add up */
          ri[n] = 3 * j + c, rj[n] = 3 * i + r, V[n++] = 2 * t - 1;
        }
    }
  }
  *ncoo = n, *ci = ri, *cj = rj, *cv = V;
  PetscFunctionReturn(0);
}

static PetscErrorCode RandomSymmetricMat(PetscRandom rnd, PetscInt nv, PetscInt deg, Mat A)
{
  PetscInt n = 0, *ci = NULL, *cj = NULL;
  PetscScalar *cv;

  PetscFunctionBeginUser;
  PetscCall(RandomSymmetricCOO(rnd, nv, deg, &n, &ci, &cj, &cv));
  PetscCall(MatSetPreallocationCOO(A, n, ci, cj));
  PetscCall(MatSetValuesCOO(A, cv, ADD_VALUES));
  PetscCall(PetscFree3(ci, cj, cv));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateSeqAIJ(PetscInt nv, PetscInt bs, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, 3 * nv, 3 * nv, 3 * nv, 3 * nv));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscFunctionReturn(0);
}

/* Random symmetric bs-3 matrices (sizes 3 .. 400 vertices, sparse to dense rows, a vertex with no
 * block, a partly filled block): S x = A x to round-off; the diagonal is A's; S's values follow A
 * only through SimSymBlockUpdate. */
START_TEST(random_matrices)
{
  const PetscInt sizes[][2] = {{3, 1}, {4, 2}, {17, 4}, {50, 12}, {400, 8}, {60, 59}};
  PetscRandom rnd;

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 1234));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++) {
    Mat A, S, A0;
    Vec d1, d2;
    PetscReal err, derr;

    CHECK_PETSC(CreateSeqAIJ(sizes[c][0], 3, &A));
    CHECK_PETSC(RandomSymmetricMat(rnd, sizes[c][0], sizes[c][1], A));
    CHECK_PETSC(SimSymBlockCreate(A, &S));
    CHECK_PETSC(SimSymBlockUpdate(S));
    CHECK_PETSC(ProductError(A, S, rnd, &err));
    ck_assert_msg(err <= 8 * PETSC_MACHINE_EPSILON, "%d vertices, degree %d: |Sx - Ax| = %g of |A||x|", (int)sizes[c][0],
                  (int)sizes[c][1], (double)err);
    CHECK_PETSC(MatCreateVecs(A, &d1, &d2));
    CHECK_PETSC(MatGetDiagonal(A, d1));
    CHECK_PETSC(MatGetDiagonal(S, d2));
    CHECK_PETSC(VecAXPY(d2, -1, d1));
    CHECK_PETSC(VecNorm(d2, NORM_INFINITY, &derr));
    ck_assert_msg(derr == 0, "diagonal differs by %g", (double)derr);
    /* new values, same pattern: S sees them after SimSymBlockUpdate */
    CHECK_PETSC(MatDuplicate(A, MAT_COPY_VALUES, &A0));
    CHECK_PETSC(MatScale(A, -3.0));
    CHECK_PETSC(ProductError(A0, S, rnd, &err));
    ck_assert_msg(err <= 8 * PETSC_MACHINE_EPSILON, "S changed without SimSymBlockUpdate: |Sx - A0 x| = %g of |A0||x|",
                  (double)err);
    CHECK_PETSC(SimSymBlockUpdate(S));
    CHECK_PETSC(ProductError(A, S, rnd, &err));
    ck_assert_msg(err <= 8 * PETSC_MACHINE_EPSILON, "after the update: |Sx - Ax| = %g of |A||x|", (double)err);
    CHECK_PETSC(VecDestroy(&d1));
    CHECK_PETSC(VecDestroy(&d2));
    CHECK_PETSC(MatDestroy(&S));
    CHECK_PETSC(MatDestroy(&A0));
    CHECK_PETSC(MatDestroy(&A));
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* A new nonzero pattern (MatSetPreallocationCOO again, as a contact term's pattern change does in
 * Newton), even with the same number of nonzeros: SimSymBlockUpdate rebuilds the block layout. */
START_TEST(pattern_change_rebuilds)
{
  PetscRandom rnd;
  Mat A, S;
  PetscReal err;
  PetscInt nnz[2];

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 99));
  CHECK_PETSC(PetscRandomSeed(rnd));
  CHECK_PETSC(CreateSeqAIJ(40, 3, &A));
  CHECK_PETSC(RandomSymmetricMat(rnd, 40, 3, A));
  CHECK_PETSC(SimSymBlockCreate(A, &S));
  for (int round = 0; round < 2; round++) {
    MatInfo info;
    CHECK_PETSC(SimSymBlockUpdate(S));
    CHECK_PETSC(ProductError(A, S, rnd, &err));
    ck_assert_msg(err <= 8 * PETSC_MACHINE_EPSILON, "pattern %d: |Sx - Ax| = %g of |A||x|", round, (double)err);
    CHECK_PETSC(MatGetInfo(A, MAT_LOCAL, &info));
    nnz[round] = (PetscInt)info.nz_used;
    if (!round) { /* the same vertices and degree, other couplings */
      CHECK_PETSC(RandomSymmetricMat(rnd, 40, 3, A));
    }
  }
  ck_assert_msg(nnz[0] != 0 && nnz[1] != 0, "empty patterns");
  /* a pattern with exactly the first one's count of nonzeros but other columns: a block (i, j) moved to (i, k) */
  {
    PetscInt n, *ci, *cj, *mi, *mj;
    PetscScalar *cv;
    MatInfo info;
    CHECK_PETSC(RandomSymmetricCOO(rnd, 40, 3, &n, &ci, &cj, &cv));
    CHECK_PETSC(PetscMalloc2(n, &mi, n, &mj)); /* MatSetPreallocationCOO may reorder its index arrays */
    CHECK_PETSC(PetscArraycpy(mi, ci, n));
    CHECK_PETSC(PetscArraycpy(mj, cj, n));
    CHECK_PETSC(MatSetPreallocationCOO(A, n, ci, cj));
    CHECK_PETSC(MatSetValuesCOO(A, cv, ADD_VALUES));
    CHECK_PETSC(MatGetInfo(A, MAT_LOCAL, &info));
    nnz[0] = (PetscInt)info.nz_used;
    for (PetscInt k = 0; k < n; k++) { /* every coupling of vertex 5 to vertex j moves to vertex j + 1 (mod) */
      if (mi[k] / 3 == 5 && mj[k] / 3 != 5)
        mj[k] = 3 * (1 + (mj[k] / 3) % 39) + mj[k] % 3;
      else if (mj[k] / 3 == 5 && mi[k] / 3 != 5)
        mi[k] = 3 * (1 + (mi[k] / 3) % 39) + mi[k] % 3;
    }
    CHECK_PETSC(MatSetPreallocationCOO(A, n, mi, mj));
    CHECK_PETSC(MatSetValuesCOO(A, cv, ADD_VALUES));
    CHECK_PETSC(MatGetInfo(A, MAT_LOCAL, &info));
    nnz[1] = (PetscInt)info.nz_used;
    CHECK_PETSC(SimSymBlockUpdate(S));
    CHECK_PETSC(ProductError(A, S, rnd, &err));
    ck_assert_msg(err <= 8 * PETSC_MACHINE_EPSILON, "moved couplings (%d then %d nonzeros): |Sx - Ax| = %g of |A||x|",
                  (int)nnz[0], (int)nnz[1], (double)err);
    CHECK_PETSC(PetscFree3(ci, cj, cv));
    CHECK_PETSC(PetscFree2(mi, mj));
  }
  CHECK_PETSC(MatDestroy(&S));
  CHECK_PETSC(MatDestroy(&A));
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* The exact (indefinite: positions perturbed) Hessians of two models, assembled as Newton does: the
 * cloth (springs, two pinned corners: identity rows) and an FEM box drop (tets). */
START_TEST(model_hessians)
{
  const char *scenes[][2] = {{"cloth", "-cloth_n 12"}, {"drop", "-drop_n 3"}};
  PetscRandom rnd;

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 7));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (int c = 0; c < 2; c++) {
    TestSim t;
    Mat H, S;
    PetscReal *x, err;
    const PetscScalar *x0;
    SimModel m;

    CHECK_PETSC(TestSimCreate(scenes[c][0], NULL, scenes[c][1], &t));
    m = t.model;
    ck_assert_msg(m != NULL, "scene %s has no model", scenes[c][0]);
    CHECK_PETSC(PetscMalloc1(3 * m->nv, &x));
    CHECK_PETSC(VecGetArrayRead(m->x, &x0));
    for (PetscInt k = 0; k < 3 * m->nv; k++) {
      PetscReal r;
      CHECK_PETSC(PetscRandomGetValueReal(rnd, &r));
      x[k] = x0[k] + 0.02 * (r - 0.5);
    }
    CHECK_PETSC(VecRestoreArrayRead(m->x, &x0));
    CHECK_PETSC(SimModelHessianCreate(m, &H));
    CHECK_PETSC(SimModelHessianAssemble(m, x, x, NULL, 3600.0, 1.0, 0.0, PETSC_FALSE, H));
    CHECK_PETSC(SimSymBlockCreate(H, &S));
    CHECK_PETSC(SimSymBlockUpdate(S));
    CHECK_PETSC(ProductError(H, S, rnd, &err));
    ck_assert_msg(err <= 8 * PETSC_MACHINE_EPSILON, "%s Hessian: |Sx - Hx| = %g of |H||x|", scenes[c][0], (double)err);
    CHECK_PETSC(MatDestroy(&S));
    CHECK_PETSC(MatDestroy(&H));
    CHECK_PETSC(PetscFree(x));
    CHECK_PETSC(TestSimDestroy(&t));
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* Newton-CG with -newton_symmetric_product minimizes to the same point as with the AIJ operator: a
 * 10 x 10 cloth (two pinned corners) pulled toward a random target y, with a contact-free model, to
 * rtol 1e-10; the minimizers agree to 1e-9 m and both converge. */
START_TEST(newton_same_minimizer)
{
  TestSim t;
  SimModel m;
  SimNewton nt[2];
  SimStepStats st[2];
  Vec x[2];
  PetscReal *y, diff;
  const PetscScalar *x0;
  PetscRandom rnd;
  const PetscReal h = 1.0 / 60;

  CHECK_PETSC(TestSimCreate("cloth", NULL, "-cloth_n 10 -a_rtol 1e-10 -b_rtol 1e-10 -b_symmetric_product", &t));
  m = t.model;
  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 5));
  CHECK_PETSC(PetscRandomSeed(rnd));
  CHECK_PETSC(PetscMalloc1(3 * m->nv, &y));
  CHECK_PETSC(VecGetArrayRead(m->x, &x0));
  for (PetscInt k = 0; k < 3 * m->nv; k++) {
    PetscReal r;
    CHECK_PETSC(PetscRandomGetValueReal(rnd, &r));
    y[k] = x0[k] + (m->pinned[k / 3] ? 0.0 : 0.02 * (r - 0.5));
  }
  for (int v = 0; v < 2; v++) {
    CHECK_PETSC(SimNewtonCreate(m, v ? "b_" : "a_", &nt[v]));
    CHECK_PETSC(SimNewtonSetFromOptions(nt[v]));
    CHECK_PETSC(VecDuplicate(m->x, &x[v]));
    CHECK_PETSC(VecCopy(m->x, x[v]));
    CHECK_PETSC(SimNewtonMinimize(nt[v], h, y, x0, x0, x[v], &st[v]));
    ck_assert_msg(st[v].outcome == SIM_STEP_OK, "%s: outcome %d after %d iterations, |g| = %g", v ? "symmetric product" : "AIJ",
                  (int)st[v].outcome, (int)st[v].nonlinear_its, (double)st[v].residual);
    { /* the Krylov operator is the shell with the option, the AIJ Hessian without */
      KSP ksp;
      Mat op;
      PetscBool shell;
      CHECK_PETSC(SimNewtonGetKSP(nt[v], &ksp));
      CHECK_PETSC(KSPGetOperators(ksp, &op, NULL));
      CHECK_PETSC(PetscObjectTypeCompare((PetscObject)op, MATSHELL, &shell));
      ck_assert_msg(shell == (PetscBool)v, "variant %d: the operator is%s a shell", v, shell ? "" : " not");
    }
  }
  CHECK_PETSC(VecRestoreArrayRead(m->x, &x0));
  CHECK_PETSC(VecAXPY(x[1], -1, x[0]));
  CHECK_PETSC(VecNorm(x[1], NORM_INFINITY, &diff));
  ck_assert_msg(diff <= 1e-9, "minimizers differ by %g m (%d and %d Newton iterations)", (double)diff, (int)st[0].nonlinear_its,
                (int)st[1].nonlinear_its);
  for (int v = 0; v < 2; v++) {
    CHECK_PETSC(VecDestroy(&x[v]));
    CHECK_PETSC(SimNewtonDestroy(&nt[v]));
  }
  CHECK_PETSC(PetscFree(y));
  CHECK_PETSC(PetscRandomDestroy(&rnd));
  CHECK_PETSC(TestSimDestroy(&t));
}
END_TEST

/* Runs f under TestCaptureError: the PETSc error code and message. */
static PetscErrorCode Capture(PetscErrorCode (*f)(void *), void *ctx, PetscErrorCode *ierr, TestErrorCapture *cap)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(cap, sizeof(*cap)));
  PetscCall(PetscPushErrorHandler(TestCaptureError, cap));
  *ierr = f(ctx);
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(0);
}

typedef struct {
  Mat A, S;
  Vec x, y;
} BadCase;

static PetscErrorCode CreateAndUpdate(void *ctx)
{
  BadCase *b = (BadCase *)ctx;

  PetscFunctionBeginUser;
  PetscCall(SimSymBlockCreate(b->A, &b->S));
  PetscCall(SimSymBlockUpdate(b->S));
  PetscFunctionReturn(0);
}

static PetscErrorCode MultBeforeUpdate(void *ctx)
{
  BadCase *b = (BadCase *)ctx;

  PetscFunctionBeginUser;
  PetscCall(SimSymBlockCreate(b->A, &b->S));
  PetscCall(MatCreateVecs(b->A, &b->x, &b->y));
  PetscCall(VecSet(b->x, 1.0));
  PetscCall(MatMult(b->S, b->x, b->y));
  PetscFunctionReturn(0);
}

/* Bad input, each with a message that names the problem: block size 1, an MPIAIJ matrix, an entry
 * without its mirror in the pattern, unequal mirror values, a product before the first update. */
START_TEST(bad_input)
{
  const struct {
    const char *what, *expect;
  } cases[] = {{"block size 1", "block size 3"},
               {"mpiaij", "needs a MATSEQAIJ"},
               {"structure", "not structurally symmetric: entry (0, 3)"},
               {"values", "not symmetric: A(0, 3) = 1"},
               {"no update", "call SimSymBlockUpdate"}};

  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    BadCase b = {NULL, NULL, NULL, NULL};
    PetscErrorCode ierr;
    TestErrorCapture cap;
    const char *w = cases[c].what;

    if (!strcmp(w, "mpiaij")) {
      CHECK_PETSC(MatCreate(PETSC_COMM_SELF, &b.A));
      CHECK_PETSC(MatSetSizes(b.A, 6, 6, 6, 6));
      CHECK_PETSC(MatSetType(b.A, MATMPIAIJ));
      CHECK_PETSC(MatSetBlockSize(b.A, 3));
      CHECK_PETSC(MatMPIAIJSetPreallocation(b.A, 3, NULL, 0, NULL));
    } else {
      CHECK_PETSC(CreateSeqAIJ(2, !strcmp(w, "block size 1") ? 1 : 3, &b.A));
      CHECK_PETSC(MatSeqAIJSetPreallocation(b.A, 3, NULL));
    }
    for (PetscInt k = 0; k < 6; k++) CHECK_PETSC(MatSetValue(b.A, k, k, 4.0, INSERT_VALUES));
    CHECK_PETSC(MatSetValue(b.A, 0, 3, 1.0, INSERT_VALUES));
    if (strcmp(w, "structure")) CHECK_PETSC(MatSetValue(b.A, 3, 0, !strcmp(w, "values") ? 1.5 : 1.0, INSERT_VALUES));
    CHECK_PETSC(MatAssemblyBegin(b.A, MAT_FINAL_ASSEMBLY));
    CHECK_PETSC(MatAssemblyEnd(b.A, MAT_FINAL_ASSEMBLY));
    CHECK_PETSC(Capture(!strcmp(w, "no update") ? MultBeforeUpdate : CreateAndUpdate, &b, &ierr, &cap));
    ck_assert_msg(ierr != 0, "%s: no error", w);
    ck_assert_msg(strstr(cap.msg, cases[c].expect) != NULL, "%s: message '%s' lacks '%s'", w, cap.msg, cases[c].expect);
    CHECK_PETSC(VecDestroy(&b.x));
    CHECK_PETSC(VecDestroy(&b.y));
    CHECK_PETSC(MatDestroy(&b.S));
    CHECK_PETSC(MatDestroy(&b.A));
  }
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("symblock");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, random_matrices);
  tcase_add_test(tc, pattern_change_rebuilds);
  tcase_add_test(tc, model_hessians);
  tcase_add_test(tc, newton_same_minimizer);
  tcase_add_test(tc, bad_input);
  suite_add_tcase(s, tc);
  return s;
}
