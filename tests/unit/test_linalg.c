/* Linear-algebra kernels of the Newton and PD steps: the warm-started polar rotation of the PD local
 * step, the small symmetric eigensolver, the BLAS thread count pbsim sets itself, and the
 * single-precision Cholesky preconditioner. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_sort.h>
#include <petscksp.h>
#include "testing.h"
#include "framework/linalg/blas_threads.h"
#include "framework/linalg/single_cholesky.h"
#include "framework/linalg/svd3.h"
#include "framework/linalg/symeig.h"
#include "framework/linalg/psd.h"

/* A random rotation (from a random unit quaternion) */
static PetscErrorCode RandomRotation(PetscRandom rnd, PetscReal R[9])
{
  PetscReal q[4], n = 0;

  PetscFunctionBeginUser;
  for (int k = 0; k < 4; k++) {
    PetscCall(PetscRandomGetValueReal(rnd, &q[k]));
    q[k] = 2 * q[k] - 1;
    n += q[k] * q[k];
  }
  n = PetscSqrtReal(n);
  for (int k = 0; k < 4; k++) q[k] /= n;
  R[0] = 1 - 2 * (q[2] * q[2] + q[3] * q[3]), R[1] = 2 * (q[1] * q[2] - q[0] * q[3]), R[2] = 2 * (q[1] * q[3] + q[0] * q[2]);
  R[3] = 2 * (q[1] * q[2] + q[0] * q[3]), R[4] = 1 - 2 * (q[1] * q[1] + q[3] * q[3]), R[5] = 2 * (q[2] * q[3] - q[0] * q[1]);
  R[6] = 2 * (q[1] * q[3] - q[0] * q[2]), R[7] = 2 * (q[2] * q[3] + q[0] * q[1]), R[8] = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
  PetscFunctionReturn(0);
}

static void MatMul3(const PetscReal A[9], const PetscReal B[9], PetscReal C[9])
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* Checks SimPolar3Warm on F from the start q (copied): R must be a rotation and equal SimPolar3's R
 * to 1e-13 cond, cond = max(1, s_0/(s_1 + s_2)) the sensitivity of R to rounding in F;
 * *fb tells whether it fell back to the SVD. */
static void CheckWarm(const PetscReal F[9], const PetscReal q0[4], PetscReal cond, const char *label, PetscBool *fb)
{
  PetscReal q[4] = {q0[0], q0[1], q0[2], q0[3]}, R[9], Rref[9], err = 0, orth = 0, det;

  CHECK_PETSC(SimPolar3Warm(F, q, R, fb));
  CHECK_PETSC(SimPolar3(F, Rref, NULL));
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      PetscReal o = R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j] - (i == j);
      orth += o * o;
      err += (R[3 * i + j] - Rref[3 * i + j]) * (R[3 * i + j] - Rref[3 * i + j]);
    }
  det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]);
  ck_assert_msg(PetscSqrtReal(orth) < 1e-14 && PetscAbsReal(det - 1) < 1e-14, "%s: R is not a rotation (|R^T R - I| = %g, det %g)", label,
                (double)PetscSqrtReal(orth), (double)det);
  ck_assert_msg(PetscSqrtReal(err) < 1e-13 * cond, "%s: |R - R_svd| = %g (fallback %d)", label, (double)PetscSqrtReal(err), (int)*fb);
}

/* The warm-started polar rotation equals the SVD's R: from a cold start (identity) and from a start
 * within 0.05 rad of the answer (then without falling back to the SVD: the fast path is what runs),
 * over stretched, nearly degenerate, inverted, huge and tiny F; zero F gives the identity; a
 * non-finite F is an error. */
START_TEST(polar_warm_start)
{
  const PetscReal cases[][3] = {{1.5, 1.0, 0.5}, {1.2, 1.2, 0.7}, {1.3, 1.3, 1.3}, {2, 1, -0.5}, {1, 1, -0.3},
                                {1.1, 0.9, 1e-9}, {3, 1e-8, 1e-9}, {1e3, 1, 1e-3}, {1, 1, 1}};
  const PetscReal id[4] = {1, 0, 0, 0}, scales[] = {1, 1e300, 1e-300};
  PetscRandom rnd;
  PetscInt nfast = 0, nwarm = 0;
  char label[160];

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 17));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
    for (size_t sc = 0; sc < sizeof(scales) / sizeof(scales[0]); sc++)
      for (int rep = 0; rep < 20; rep++) {
        PetscReal R1[9], R2[9], D[9] = {0}, T[9], F[9], q[4], Rs[9], dR[9], Rw[9], cond;
        PetscBool fb;
        CHECK_PETSC(RandomRotation(rnd, R1));
        CHECK_PETSC(RandomRotation(rnd, R2));
        for (int k = 0; k < 3; k++) D[4 * k] = cases[c][k];
        MatMul3(R1, D, T);
        for (int i = 0; i < 3; i++) /* F = R1 D R2^T scaled */
          for (int j = 0; j < 3; j++) F[3 * i + j] = scales[sc] * (T[3 * i] * R2[3 * j] + T[3 * i + 1] * R2[3 * j + 1] + T[3 * i + 2] * R2[3 * j + 2]);
        /* conditioning of R: s_0 over the smallest pair sum s_1 + s_2 (rotation-variant s_2) */
        cond = PetscMax(1.0, cases[c][0] / (cases[c][1] + cases[c][2]));
        snprintf(label, sizeof(label), "diag(%g, %g, %g) x %g #%d, cold", (double)cases[c][0], (double)cases[c][1], (double)cases[c][2],
                 (double)scales[sc], rep);
        CheckWarm(F, id, cond, label, &fb);
        /* warm: the answer turned by a random rotation of 0.05 rad */
        CHECK_PETSC(SimPolar3(F, Rs, NULL));
        {
          PetscReal a[3], n = 0, qd[4], qs[4] = {1, 0, 0, 0};
          for (int k = 0; k < 3; k++) {
            CHECK_PETSC(PetscRandomGetValueReal(rnd, &a[k]));
            a[k] = 2 * a[k] - 1, n += a[k] * a[k];
          }
          n = PetscSqrtReal(n);
          qd[0] = PetscCosReal(0.025);
          for (int k = 0; k < 3; k++) qd[k + 1] = PetscSinReal(0.025) * a[k] / n;
          /* q of Rs via a cold call (exact by the check above), then q = qd * q */
          CHECK_PETSC(SimPolar3Warm(F, qs, Rw, &fb));
          q[0] = qd[0] * qs[0] - qd[1] * qs[1] - qd[2] * qs[2] - qd[3] * qs[3];
          q[1] = qd[0] * qs[1] + qd[1] * qs[0] + qd[2] * qs[3] - qd[3] * qs[2];
          q[2] = qd[0] * qs[2] - qd[1] * qs[3] + qd[2] * qs[0] + qd[3] * qs[1];
          q[3] = qd[0] * qs[3] + qd[1] * qs[2] - qd[2] * qs[1] + qd[3] * qs[0];
          (void)dR;
        }
        snprintf(label, sizeof(label), "diag(%g, %g, %g) x %g #%d, warm", (double)cases[c][0], (double)cases[c][1], (double)cases[c][2],
                 (double)scales[sc], rep);
        CheckWarm(F, q, cond, label, &fb);
        if (cond <= 1e3) {
          nwarm++;
          if (!fb) nfast++;
        }
      }
  ck_assert_msg(nfast == nwarm, "the warm start fell back to the SVD in %d of %d well-conditioned cases", (int)(nwarm - nfast), (int)nwarm);
  {
    const PetscReal Z[9] = {0};
    PetscReal q[4] = {1, 0, 0, 0}, R[9];
    PetscBool fb;
    PetscErrorCode ierr;
    PetscReal Fbad[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    CHECK_PETSC(SimPolar3Warm(Z, q, R, &fb));
    for (int k = 0; k < 9; k++) ck_assert_msg(R[k] == (k % 4 == 0), "zero F: R is not the identity");
    Fbad[4] = (PetscReal)NAN;
    CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SimPolar3Warm(Fbad, q, R, &fb);
    CHECK_PETSC(PetscPopErrorHandler());
    ck_assert_msg(ierr == PETSC_ERR_FP, "a NaN F must fail with PETSC_ERR_FP, got %d", (int)ierr);
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* The truncated iteration (pbd/xpbd's local step): from a start 0.1 rad off the polar R of a
 * well-conditioned F, one step leaves an error of the order of the square of the start's (quadratic
 * convergence), R is always a rotation, and repeated single steps stay at the polar R (its fixed
 * point), which is what a converging solver sees. */
START_TEST(polar_warm_steps)
{
  const PetscReal D[9] = {1.5, 0, 0, 0, 1.0, 0, 0, 0, 0.7}, ang = 0.1;
  PetscRandom rnd;

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 23));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (int rep = 0; rep < 50; rep++) {
    PetscReal R1[9], R2[9], T[9], F[9], Rs[9], R[9], qs[4] = {1, 0, 0, 0}, q[4], a[3], n = 0, qd[4], e0 = 0, e1 = 0, e5 = 0, orth = 0;
    PetscBool fb;
    CHECK_PETSC(RandomRotation(rnd, R1));
    CHECK_PETSC(RandomRotation(rnd, R2));
    MatMul3(R1, D, T);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) F[3 * i + j] = T[3 * i] * R2[3 * j] + T[3 * i + 1] * R2[3 * j + 1] + T[3 * i + 2] * R2[3 * j + 2];
    CHECK_PETSC(SimPolar3Warm(F, qs, Rs, &fb));
    for (int k = 0; k < 3; k++) {
      CHECK_PETSC(PetscRandomGetValueReal(rnd, &a[k]));
      a[k] = 2 * a[k] - 1, n += a[k] * a[k];
    }
    n = PetscSqrtReal(n);
    qd[0] = PetscCosReal(ang / 2);
    for (int k = 0; k < 3; k++) qd[k + 1] = PetscSinReal(ang / 2) * a[k] / n;
    q[0] = qd[0] * qs[0] - qd[1] * qs[1] - qd[2] * qs[2] - qd[3] * qs[3];
    q[1] = qd[0] * qs[1] + qd[1] * qs[0] + qd[2] * qs[3] - qd[3] * qs[2];
    q[2] = qd[0] * qs[2] - qd[1] * qs[3] + qd[2] * qs[0] + qd[3] * qs[1];
    q[3] = qd[0] * qs[3] + qd[1] * qs[2] - qd[2] * qs[1] + qd[3] * qs[0];
    /* the start's error: |rot(q) - Rs| = 2 sqrt(2) sin(ang / 2) for a turn by ang */
    e0 = 2 * PetscSqrtReal(2.0) * PetscSinReal(ang / 2);
    CHECK_PETSC(SimPolar3WarmSteps(F, q, 1, R, &fb));
    ck_assert_msg(!fb, "#%d: one step from 0.1 rad fell back to the SVD", rep);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        PetscReal o = R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j] - (i == j);
        orth += o * o;
        e1 += (R[3 * i + j] - Rs[3 * i + j]) * (R[3 * i + j] - Rs[3 * i + j]);
      }
    e1 = PetscSqrtReal(e1);
    ck_assert_msg(PetscSqrtReal(orth) < 1e-14, "#%d: R is not a rotation (|R^T R - I| = %g)", rep, (double)PetscSqrtReal(orth));
    ck_assert_msg(e1 > 0 && e1 < e0 * e0, "#%d: one step from an error %g leaves %g (not quadratic)", rep, (double)e0, (double)e1);
    for (int k = 0; k < 5; k++) CHECK_PETSC(SimPolar3WarmSteps(F, q, 1, R, &fb));
    for (int k = 0; k < 9; k++) e5 += (R[k] - Rs[k]) * (R[k] - Rs[k]);
    ck_assert_msg(PetscSqrtReal(e5) < 1e-13, "#%d: six single steps leave |R - R_svd| = %g", rep, (double)PetscSqrtReal(e5));
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* SimPolar3WarmBatch gives bit for bit the q, R and fallbacks of one SimPolar3Warm per element (its
 * AVX lanes run the scalar operations in the same order): on a mix of well-conditioned, stretched,
 * nearly degenerate, inverted (some near the twist singularity, where it falls back), zero, huge and
 * tiny F, from cold, warm and unusable starts, with a count that leaves a remainder for the scalar
 * tail; and a NaN F in a batch is an error. */
START_TEST(polar_warm_batch_bitwise)
{
  const PetscReal cases[][3] = {{1.5, 1.0, 0.5}, {1.2, 1.2, 0.7}, {1, 1, 1}, {2, 1, -0.5}, {1, 1, -0.999999}, {1.1, 0.9, 1e-9},
                                {3, 1e-8, 1e-9}, {1e3, 1, 1e-3}, {1, 0.2, -0.2}, {0, 0, 0}};
  const PetscReal scales[] = {1, 1e300, 1e-300, 0.3};
  enum { N = 4 * 50 + 3 };
  PetscReal *F, *q, *qs, *R, *Rs;
  PetscInt nfb, nfs = 0, nbad = 0;
  PetscRandom rnd;

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 41));
  CHECK_PETSC(PetscRandomSeed(rnd));
  CHECK_PETSC(PetscMalloc5(9 * N, &F, 4 * N, &q, 4 * N, &qs, 9 * N, &R, 9 * N, &Rs));
  for (PetscInt e = 0; e < N; e++) {
    PetscReal R1[9], R2[9], D[9] = {0}, T[9], u;
    const size_t c = (size_t)e % (sizeof(cases) / sizeof(cases[0])), sc = (size_t)(e / 7) % (sizeof(scales) / sizeof(scales[0]));
    CHECK_PETSC(RandomRotation(rnd, R1));
    CHECK_PETSC(RandomRotation(rnd, R2));
    for (int k = 0; k < 3; k++) D[4 * k] = cases[c][k];
    MatMul3(R1, D, T);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) F[9 * e + 3 * i + j] = scales[sc] * (T[3 * i] * R2[3 * j] + T[3 * i + 1] * R2[3 * j + 1] + T[3 * i + 2] * R2[3 * j + 2]);
    CHECK_PETSC(PetscRandomGetValueReal(rnd, &u));
    if (u < 0.3) q[4 * e] = 1, q[4 * e + 1] = q[4 * e + 2] = q[4 * e + 3] = 0; /* cold */
    else if (u < 0.4) q[4 * e] = 5, q[4 * e + 1] = q[4 * e + 2] = q[4 * e + 3] = 0; /* not a unit quaternion: reset */
    else { /* near R1 R2^T (the polar R of the positive cases), or anywhere */
      PetscReal Rp[9], qq[4];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Rp[3 * i + j] = R1[3 * i] * R2[3 * j] + R1[3 * i + 1] * R2[3 * j + 1] + R1[3 * i + 2] * R2[3 * j + 2];
      qq[0] = 0.5 * PetscSqrtReal(PetscMax(0.0, 1 + Rp[0] + Rp[4] + Rp[8]));
      qq[1] = 0.5 * PetscSqrtReal(PetscMax(0.0, 1 + Rp[0] - Rp[4] - Rp[8])) * (Rp[7] >= Rp[5] ? 1 : -1);
      qq[2] = 0.5 * PetscSqrtReal(PetscMax(0.0, 1 - Rp[0] + Rp[4] - Rp[8])) * (Rp[2] >= Rp[6] ? 1 : -1);
      qq[3] = 0.5 * PetscSqrtReal(PetscMax(0.0, 1 - Rp[0] - Rp[4] + Rp[8])) * (Rp[3] >= Rp[1] ? 1 : -1);
      for (int k = 0; k < 4; k++) {
        PetscReal r;
        CHECK_PETSC(PetscRandomGetValueReal(rnd, &r));
        q[4 * e + k] = qq[k] + (u < 0.8 ? 0.01 : 1.0) * (2 * r - 1);
      }
    }
  }
  CHECK_PETSC(PetscArraycpy(qs, q, 4 * N));
  for (PetscInt e = 0; e < N; e++) {
    PetscBool fb;
    CHECK_PETSC(SimPolar3Warm(F + 9 * e, qs + 4 * e, Rs + 9 * e, &fb));
    nfs += fb;
    nbad += !PetscIsNormalReal(Rs[9 * e]) && Rs[9 * e] != 0;
  }
  CHECK_PETSC(SimPolar3WarmBatch(N, F, q, R, &nfb));
  ck_assert_msg(!memcmp(R, Rs, 9 * N * sizeof(PetscReal)) && !memcmp(q, qs, 4 * N * sizeof(PetscReal)),
                "the batch differs from one SimPolar3Warm per element");
  /* both paths ran: the AVX lanes' own Newton iteration and the scalar redo with its SVD fallback */
  ck_assert_msg(nfb == nfs && nfs > 0 && N - nfs >= 20, "fallbacks: batch %d, one by one %d (of %d)", (int)nfb, (int)nfs, (int)N);
  ck_assert_int_eq(nbad, 0);
  F[9 * 5 + 4] = (PetscReal)NAN;
  {
    PetscErrorCode ierr;
    CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SimPolar3WarmBatch(N, F, q, R, NULL);
    CHECK_PETSC(PetscPopErrorHandler());
    ck_assert_msg(ierr == PETSC_ERR_FP, "a NaN F in a batch must fail with PETSC_ERR_FP, got %d", (int)ierr);
  }
  CHECK_PETSC(PetscFree5(F, q, qs, R, Rs));
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* SimSvd3Batch gives bit for bit one SimSvd3 per matrix (its AVX lanes run the scalar sweeps in the
 * same order): rotated diagonal matrices with distinct, repeated, inverted, tiny, zero singular values,
 * random and rank-2 matrices, special ones (identity, zero, a permutation, rank 1), huge and tiny
 * scales, a count that leaves a scalar remainder; the outputs at a stride (U, sigma, V in one array of
 * 21 per matrix, as the materials keep them); a NaN is an error. */
START_TEST(svd_batch_bitwise)
{
  const PetscReal cases[][3] = {{1.5, 1.0, 0.5}, {1.2, 1.2, 0.7}, {1.3, 1.3, 1.3}, {2, 1, -0.5}, {1, 1, -1},      {1.1, 0.9, -1e-12},
                                {1.1, 0.9, 0},   {1.1, 0, 0},     {3, 1e-8, 1e-9}, {1e3, 1, 1e-3}, {1.2, 1.2, -1.2}, {0.7 * (1 + 1e-9), 0.7, -0.3}};
  const PetscReal special[][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0}, {0, 1, 0, 1, 0, 0, 0, 0, 1}, {0.3, -0.2, 0.5, 0.6, -0.4, 1.0, -0.3, 0.2, -0.5}};
  const PetscReal scales[] = {1, 1e300, 1e-300, 7.5};
  enum { N = 4 * 120 + 1 };
  PetscReal *F, *A, *B;
  PetscRandom rnd;

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 5));
  CHECK_PETSC(PetscRandomSeed(rnd));
  CHECK_PETSC(PetscMalloc3(9 * N, &F, 21 * N, &A, 21 * N, &B));
  for (PetscInt e = 0; e < N; e++) {
    const PetscReal sc = scales[(e / 5) % 4];
    PetscReal *Fe = F + 9 * e;
    if (e % 3 == 0) { /* rotated diagonal */
      const PetscReal *c = cases[(e / 3) % (sizeof(cases) / sizeof(cases[0]))];
      PetscReal R1[9], R2[9], D[9] = {0}, T[9];
      CHECK_PETSC(RandomRotation(rnd, R1));
      CHECK_PETSC(RandomRotation(rnd, R2));
      for (int k = 0; k < 3; k++) D[4 * k] = c[k];
      MatMul3(R1, D, T);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Fe[3 * i + j] = sc * (T[3 * i] * R2[3 * j] + T[3 * i + 1] * R2[3 * j + 1] + T[3 * i + 2] * R2[3 * j + 2]);
    } else if (e % 3 == 1) { /* random, every other one of rank 2 */
      for (int k = 0; k < 9; k++) {
        CHECK_PETSC(PetscRandomGetValueReal(rnd, &Fe[k]));
        Fe[k] = sc * (2 * Fe[k] - 1);
      }
      if (e % 2)
        for (int r = 0; r < 3; r++) Fe[3 * r + 2] = 0.3 * Fe[3 * r] - 2 * Fe[3 * r + 1];
    } else
      for (int k = 0; k < 9; k++) Fe[k] = sc * special[(e / 3) % 4][k];
  }
  for (PetscInt e = 0; e < N; e++) CHECK_PETSC(SimSvd3(F + 9 * e, A + 21 * e, A + 21 * e + 9, A + 21 * e + 12));
  CHECK_PETSC(SimSvd3Batch(N, F, 21, B, B + 9, B + 12));
  for (PetscInt e = 0; e < N; e++)
    ck_assert_msg(!memcmp(A + 21 * e, B + 21 * e, 21 * sizeof(PetscReal)), "matrix %d: the batch's SVD differs from SimSvd3's", (int)e);
  F[9 * 6 + 2] = (PetscReal)NAN;
  {
    PetscErrorCode ierr;
    CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SimSvd3Batch(N, F, 21, B, B + 9, B + 12);
    CHECK_PETSC(PetscPopErrorHandler());
    ck_assert_msg(ierr == PETSC_ERR_FP, "a NaN F in a batch must fail with PETSC_ERR_FP, got %d", (int)ierr);
  }
  CHECK_PETSC(PetscFree3(F, A, B));
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* pbsim sets the BLAS threads through the library's own call: the count reads back (where the
 * library reports it), and an out-of-range count is refused naming the option. */
START_TEST(blas_threads)
{
  const char *lib;
  PetscInt n;
  PetscErrorCode ierr;

  CHECK_PETSC(SimBLASSetThreads(2, &lib));
  CHECK_PETSC(SimBLASGetThreads(&n));
  if (lib[0]) ck_assert_msg(n == 2 || n == -1, "%s(2): the BLAS reports %d threads", lib, (int)n);
  CHECK_PETSC(SimBLASSetThreads(1, &lib));
  CHECK_PETSC(SimBLASGetThreads(&n));
  if (lib[0]) ck_assert_msg(n == 1 || n == -1, "%s(1): the BLAS reports %d threads", lib, (int)n);
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimBLASSetThreads(0, &lib);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE, "0 BLAS threads must be refused, got %d", (int)ierr);
}
END_TEST

/* OpenMP regions of the linked libraries: serial with 1 (max-active-levels 0, which a region's
 * num_threads clause cannot override), n threads with n, read back through the runtime; 0 refused.
 * Without an OpenMP runtime in the process both calls report that nothing was set. */
START_TEST(omp_threads)
{
  const char *lib;
  PetscInt n;
  PetscErrorCode ierr;

  CHECK_PETSC(SimOpenMPSetThreads(2, &lib));
  CHECK_PETSC(SimOpenMPGetThreads(&n));
  if (lib[0]) ck_assert_msg(n == 2, "%s: 2 OpenMP threads set, the runtime reports %d", lib, (int)n);
  else ck_assert_int_eq(n, -1);
  CHECK_PETSC(SimOpenMPSetThreads(1, &lib));
  CHECK_PETSC(SimOpenMPGetThreads(&n));
  if (lib[0]) ck_assert_msg(n == 1, "%s: serial regions set, the runtime reports %d threads", lib, (int)n);
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimOpenMPSetThreads(0, &lib);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE, "0 OpenMP threads must be refused, got %d", (int)ierr);
}
END_TEST

/* PT-Scotch's threads are set through its environment variable (it reads it at each partitioning);
 * 0 refused. */
START_TEST(partitioner_threads)
{
  PetscErrorCode ierr;
  const char *v;

  CHECK_PETSC(SimPartitionerSetThreads(3));
  v = getenv("SCOTCH_PTHREAD_NUMBER");
  ck_assert_msg(v && !strcmp(v, "3"), "SCOTCH_PTHREAD_NUMBER is %s after 3 threads were set", v ? v : "(unset)");
  CHECK_PETSC(SimPartitionerSetThreads(1));
  v = getenv("SCOTCH_PTHREAD_NUMBER");
  ck_assert_msg(v && !strcmp(v, "1"), "SCOTCH_PTHREAD_NUMBER is %s after 1 thread was set", v ? v : "(unset)");
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimPartitionerSetThreads(0);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE, "0 partitioner threads must be refused, got %d", (int)ierr);
}
END_TEST

/* SimSymEig on random symmetric matrices of n = 1 .. 32 (some singular, with repeated eigenvalues):
 * A Q = Q diag(lambda) and Q^T Q = I to round-off, the eigenvalues those of GSL's gsl_eigen_symm; and
 * n out of range and a non-finite entry are refused. */
START_TEST(symmetric_eigen)
{
  const PetscInt sizes[] = {1, 2, 3, 5, 9, 12, 27, 32};
  PetscRandom rnd;
  PetscErrorCode ierr;
  PetscReal A[SIM_SYMEIG_MAX * SIM_SYMEIG_MAX], Q[SIM_SYMEIG_MAX * SIM_SYMEIG_MAX], lam[SIM_SYMEIG_MAX];

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 17));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
    for (int rep = 0; rep < 3; rep++) {
      const PetscInt n = sizes[si];
      PetscReal B[SIM_SYMEIG_MAX * SIM_SYMEIG_MAX], res = 0, orth = 0, ev = 0, norm = 0, ref[SIM_SYMEIG_MAX];
      for (PetscInt i = 0; i < n; i++)
        for (PetscInt j = i; j < n; j++) {
          PetscReal r;
          CHECK_PETSC(PetscRandomGetValueReal(rnd, &r));
          A[i * n + j] = A[j * n + i] = 2 * r - 1;
        }
      if (rep == 2) /* a rank-2 matrix: n - 2 zero eigenvalues (a shape-matching block's kind of singularity) */
        for (PetscInt i = 0; i < n; i++)
          for (PetscInt j = 0; j < n; j++) A[i * n + j] = PetscSinReal(i + 1.0) * PetscSinReal(j + 1.0) + 0.5 * PetscCosReal(2.0 * i) * PetscCosReal(2.0 * j);
      for (PetscInt k = 0; k < n * n; k++) B[k] = A[k], norm += A[k] * A[k];
      norm = PetscSqrtReal(norm);
      CHECK_PETSC(SimSymEig(n, A, lam, Q));
      for (PetscInt i = 0; i < n; i++)
        for (PetscInt m = 0; m < n; m++) {
          PetscReal aq = 0, qq = 0;
          for (PetscInt k = 0; k < n; k++) aq += B[i * n + k] * Q[k * n + m], qq += Q[k * n + i] * Q[k * n + m];
          res = PetscMax(res, PetscAbsReal(aq - lam[m] * Q[i * n + m]));
          orth = PetscMax(orth, PetscAbsReal(qq - (i == m)));
        }
      {
        gsl_matrix_view Bv = gsl_matrix_view_array(B, n, n);
        gsl_vector *eval = gsl_vector_alloc(n);
        gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(n);
        gsl_eigen_symm(&Bv.matrix, eval, w);
        for (PetscInt m = 0; m < n; m++) ref[m] = gsl_vector_get(eval, m);
        gsl_eigen_symm_free(w);
        gsl_vector_free(eval);
      }
      gsl_sort(ref, 1, n);
      gsl_sort(lam, 1, n);
      for (PetscInt m = 0; m < n; m++) ev = PetscMax(ev, PetscAbsReal(lam[m] - ref[m]));
      ck_assert_msg(res < 1e-13 * norm && orth < 1e-13 && ev < 1e-13 * norm, "n = %d: |A Q - Q L| %g, |Q^T Q - I| %g, eigenvalues vs GSL %g (|A| %g)",
                    (int)n, (double)res, (double)orth, (double)ev, (double)norm);
    }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimSymEig(SIM_SYMEIG_MAX + 1, A, lam, Q);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE, "n = %d must be refused, got %d", SIM_SYMEIG_MAX + 1, (int)ierr);
  A[0] = 0, A[1] = A[2] = INFINITY, A[3] = 1;
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimSymEig(2, A, lam, Q);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_FP, "a non-finite entry must be refused, got %d", (int)ierr);
}
END_TEST

/* SimSymProjectPSD answers a clearly positive definite matrix without the eigendecomposition; the
 * answer must be the one of the eigendecomposition path, bit for bit: A = Q diag(lambda) Q^T for a
 * random orthogonal Q and lambda_min from |A| down to 1e-16 |A|, zero and negative (the shortcut's
 * margin is 1e-9 |A|), n = 2, 3, 9, 12, against SimSymEig and the rebuild from the clamped
 * eigenvalues written out here; plus asymmetric (by one ulp) and non-finite matrices, which the
 * shortcut must leave to the eigendecomposition (its error for the non-finite one). */
START_TEST(psd_projection_shortcut_bitwise)
{
  const PetscInt sizes[] = {2, 3, 9, 12};
  const PetscReal lmin[] = {1, 0.3, 1e-3, 1e-7, 1e-9, 2e-9, 1e-10, 1e-12, 1e-16, 0, -1e-16, -1e-12, -1e-3};
  PetscRandom rnd;
  PetscErrorCode ierr;
  PetscInt nskip = 0, nproj = 0;

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 29));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
    for (size_t li = 0; li < sizeof(lmin) / sizeof(lmin[0]); li++)
      for (int rep = 0; rep < 4; rep++) {
        const PetscInt n = sizes[si];
        PetscReal R[144], Q[144], lam[12], A[144], B[144], C[144], mu[12], scale;
        PetscBool negative = PETSC_FALSE, same;
        for (PetscInt i = 0; i < n; i++)
          for (PetscInt j = i; j < n; j++) {
            PetscReal r;
            CHECK_PETSC(PetscRandomGetValueReal(rnd, &r));
            R[i * n + j] = R[j * n + i] = 2 * r - 1;
          }
        CHECK_PETSC(SimSymEig(n, R, mu, Q)); /* Q: a random orthogonal matrix */
        CHECK_PETSC(PetscRandomGetValueReal(rnd, &scale));
        scale = PetscPowReal(10.0, 8 * scale - 4);
        for (PetscInt m = 0; m < n; m++) {
          PetscReal r;
          CHECK_PETSC(PetscRandomGetValueReal(rnd, &r));
          mu[m] = scale * (m == 0 ? lmin[li] : 0.1 + r);
        }
        for (PetscInt i = 0; i < n; i++)
          for (PetscInt j = i; j < n; j++) {
            PetscReal a = 0;
            for (PetscInt m = 0; m < n; m++) a += mu[m] * Q[i * n + m] * Q[j * n + m];
            A[i * n + j] = A[j * n + i] = a;
          }
        /* the eigendecomposition path (psd.c before the shortcut) */
        CHECK_PETSC(PetscArraycpy(C, A, n * n));
        CHECK_PETSC(SimSymEig(n, A, lam, R));
        for (PetscInt m = 0; m < n; m++) negative = (PetscBool)(negative || lam[m] < 0);
        if (negative)
          for (PetscInt i = 0; i < n; i++)
            for (PetscInt j = i; j < n; j++) {
              PetscReal sum = 0;
              for (PetscInt m = 0; m < n; m++)
                if (lam[m] > 0) sum += lam[m] * R[i * n + m] * R[j * n + m];
              C[i * n + j] = C[j * n + i] = sum;
            }
        nproj += negative, nskip += !negative && lmin[li] >= 1e-7;
        CHECK_PETSC(PetscArraycpy(B, A, n * n));
        CHECK_PETSC(SimSymProjectPSD(n, B));
        CHECK_PETSC(PetscArraycmp(B, C, n * n, &same));
        ck_assert_msg(same, "n = %d, lambda_min = %g |A|: the projection differs from the eigendecomposition path's", (int)n,
                      (double)lmin[li]);
        if (lmin[li] >= 1e-7)
          ck_assert_msg(!negative, "n = %d: a clearly positive definite matrix got a negative eigenvalue", (int)n);
      }
  ck_assert_msg(nskip > 0 && nproj > 0, "the sweep must hold positive definite (%d) and projected (%d) matrices", (int)nskip,
                (int)nproj);
  { /* one ulp of asymmetry: the eigendecomposition path (which reads the whole matrix) decides */
    PetscReal A[9] = {2, 0.5, 0, 0.5, 2, 0, 0, 0, 2}, B[9], lam[3], Q[9];
    PetscBool same;
    A[1] = nextafter(0.5, 1.0);
    CHECK_PETSC(PetscArraycpy(B, A, 9));
    CHECK_PETSC(SimSymEig(3, A, lam, Q));
    ck_assert_msg(lam[0] > 0 && lam[1] > 0 && lam[2] > 0, "the test matrix is positive definite");
    CHECK_PETSC(SimSymProjectPSD(3, B));
    CHECK_PETSC(PetscArraycmp(A, B, 9, &same));
    ck_assert_msg(same, "a positive definite matrix (one ulp asymmetric) must come back unchanged");
    B[4] = NAN;
    CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SimSymProjectPSD(3, B);
    CHECK_PETSC(PetscPopErrorHandler());
    ck_assert_msg(ierr == PETSC_ERR_FP, "a non-finite entry must be refused, got %d", (int)ierr);
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* The 7-point Laplacian of an m^3 grid plus shift * I (SPD, condition number ~ 12 / shift), 3 unknowns
 * per node coupled like a vertex's 3 coordinates (block size 3, the layout of a Hessian), with the
 * coordinate blocks [2 -1/2 0; -1/2 2 -1/2; 0 -1/2 2] (SPD) instead of scalars. */
static PetscErrorCode GridMatrix(PetscInt m, PetscReal shift, Mat *A)
{
  const PetscInt nn = m * m * m, n = 3 * nn;
  const PetscReal B[9] = {2, -0.5, 0, -0.5, 2, -0.5, 0, -0.5, 2};

  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 21, NULL, A));
  PetscCall(MatSetBlockSize(*A, 3));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++)
      for (PetscInt k = 0; k < m; k++) {
        const PetscInt v = (i * m + j) * m + k, nb[6][3] = {{i - 1, j, k}, {i + 1, j, k}, {i, j - 1, k}, {i, j + 1, k}, {i, j, k - 1}, {i, j, k + 1}};
        PetscReal D[9], O[9];
        for (int e = 0; e < 9; e++) D[e] = 6 * B[e] + (e % 4 == 0 ? shift : 0), O[e] = -B[e];
        PetscCall(MatSetValuesBlocked(*A, 1, &v, 1, &v, D, INSERT_VALUES));
        for (int q = 0; q < 6; q++) {
          PetscInt w;
          if (nb[q][0] < 0 || nb[q][0] >= m || nb[q][1] < 0 || nb[q][1] >= m || nb[q][2] < 0 || nb[q][2] >= m) continue;
          w = (nb[q][0] * m + nb[q][1]) * m + nb[q][2];
          PetscCall(MatSetValuesBlocked(*A, 1, &v, 1, &w, O, INSERT_VALUES));
        }
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* |x_single - x_double|_inf / |x_double|_inf and |A x_single - b|_2 / |b|_2 for a random b, x_double
 * from PETSc's CHOLMOD Cholesky (double) */
static void CompareSolves(Mat A, SimSingleCholesky c, PetscRandom rnd, PetscReal *dx, PetscReal *res)
{
  KSP ksp;
  PC pc;
  Vec b, xd, xs, r;
  const PetscScalar *pb;
  PetscScalar *ps;
  PetscReal nd, nb;

  CHECK_PETSC(MatCreateVecs(A, &xd, &b));
  CHECK_PETSC(VecDuplicate(b, &xs));
  CHECK_PETSC(VecDuplicate(b, &r));
  CHECK_PETSC(VecSetRandom(b, rnd));
  CHECK_PETSC(KSPCreate(PETSC_COMM_SELF, &ksp));
  CHECK_PETSC(KSPSetOperators(ksp, A, A));
  CHECK_PETSC(KSPSetType(ksp, KSPPREONLY));
  CHECK_PETSC(KSPGetPC(ksp, &pc));
  CHECK_PETSC(PCSetType(pc, PCCHOLESKY));
  CHECK_PETSC(PCFactorSetMatSolverType(pc, MATSOLVERCHOLMOD));
  CHECK_PETSC(KSPSolve(ksp, b, xd));
  CHECK_PETSC(VecGetArrayRead(b, &pb));
  CHECK_PETSC(VecGetArray(xs, &ps));
  CHECK_PETSC(SimSingleCholeskySolve(c, pb, ps));
  CHECK_PETSC(VecRestoreArray(xs, &ps));
  CHECK_PETSC(VecRestoreArrayRead(b, &pb));
  CHECK_PETSC(VecNorm(xd, NORM_INFINITY, &nd));
  CHECK_PETSC(MatMult(A, xs, r));
  CHECK_PETSC(VecAXPY(r, -1.0, b));
  CHECK_PETSC(VecNorm(r, NORM_2, res));
  CHECK_PETSC(VecNorm(b, NORM_2, &nb));
  *res /= nb;
  CHECK_PETSC(VecAXPY(xs, -1.0, xd));
  CHECK_PETSC(VecNorm(xs, NORM_INFINITY, dx));
  *dx /= nd;
  CHECK_PETSC(KSPDestroy(&ksp));
  CHECK_PETSC(VecDestroy(&b));
  CHECK_PETSC(VecDestroy(&xd));
  CHECK_PETSC(VecDestroy(&xs));
  CHECK_PETSC(VecDestroy(&r));
}

/* The single-precision Cholesky solve agrees with CHOLMOD's double one to the float factor's
 * rounding: |dx|/|x| <= 64 * 2^-24 * cond (cond ~ 12/shift), and it is not the double solve (the
 * float values are what is read: |dx|/|x| > 1e-12); through supernodes with rows below their
 * diagonal blocks (fewer supernodes than columns, several of them); after new values (numeric
 * refactorization) and after a new pattern (a new symbolic analysis: the grid's size changes). */
START_TEST(single_cholesky_solve)
{
  const PetscReal shift[2] = {1.0, 0.01};
  const PetscInt sizes[3] = {9, 9, 7};
  SimSingleCholesky c;
  PetscRandom rnd;

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetFromOptions(rnd));
  CHECK_PETSC(SimSingleCholeskyCreate(&c));
  for (int t = 0; t < 3; t++)
    for (int k = 0; k < 2; k++) {
      const PetscReal bound = 64 * PetscPowReal(2.0, -24) * 12 / shift[k];
      PetscInt n, ns;
      PetscInt64 nv;
      PetscBool posdef;
      PetscReal dx, res;
      Mat A;

      CHECK_PETSC(GridMatrix(sizes[t], shift[k] * (t == 1 ? 2 : 1), &A));
      CHECK_PETSC(SimSingleCholeskyFactor(c, A, &posdef));
      ck_assert_msg(posdef, "grid %d, shift %g: not positive definite", (int)sizes[t], (double)shift[k]);
      CHECK_PETSC(SimSingleCholeskyGetInfo(c, &n, &ns, &nv));
      ck_assert_int_eq(n, 3 * sizes[t] * sizes[t] * sizes[t]);
      ck_assert_msg(ns > 1 && ns < n / 3 && nv > n, "grid %d: %d supernodes, %lld values for %d rows", (int)sizes[t], (int)ns,
                    (long long)nv, (int)n);
      CompareSolves(A, c, rnd, &dx, &res);
      ck_assert_msg(dx <= bound && dx > 1e-12, "grid %d, shift %g: |x_single - x_double| / |x| = %g (bound %g)", (int)sizes[t],
                    (double)shift[k], (double)dx, (double)bound);
      ck_assert_msg(res <= bound, "grid %d, shift %g: residual %g (bound %g)", (int)sizes[t], (double)shift[k], (double)res,
                    (double)bound);
      CHECK_PETSC(MatDestroy(&A));
    }
  CHECK_PETSC(SimSingleCholeskyDestroy(&c));
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* An indefinite matrix is reported (posdef false) and its factor refused by the solve; as a CG
 * preconditioner (SimPCSetSingleCholesky) the KSP stops with a failure reason, as with PCCHOLESKY.
 * A matrix that is not sequential AIJ is refused with a message. */
START_TEST(single_cholesky_bad_input)
{
  SimSingleCholesky c;
  PetscBool posdef, is;
  PetscErrorCode ierr;
  PetscReal x[3 * 125], b[3 * 125];
  Mat A, D;
  KSP ksp;
  PC pc;
  Vec vb, vx;
  KSPConvergedReason reason;

  CHECK_PETSC(GridMatrix(5, -3.0, &A)); /* the 5^3 grid operator's smallest eigenvalue is ~1.0: indefinite */
  CHECK_PETSC(SimSingleCholeskyCreate(&c));
  CHECK_PETSC(SimSingleCholeskyFactor(c, A, &posdef));
  ck_assert_msg(!posdef, "an indefinite matrix was factored as positive definite");
  for (int i = 0; i < 3 * 125; i++) b[i] = 1;
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimSingleCholeskySolve(c, b, x);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_ORDER, "a solve with the factor of an indefinite matrix must be refused, got %d", (int)ierr);
  CHECK_PETSC(MatConvert(A, MATDENSE, MAT_INITIAL_MATRIX, &D));
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimSingleCholeskyFactor(c, D, &posdef);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_SUP, "a dense matrix must be refused, got %d", (int)ierr);
  CHECK_PETSC(SimSingleCholeskyDestroy(&c));

  CHECK_PETSC(KSPCreate(PETSC_COMM_SELF, &ksp));
  CHECK_PETSC(KSPSetOperators(ksp, A, A));
  CHECK_PETSC(KSPSetType(ksp, KSPCG));
  CHECK_PETSC(KSPGetPC(ksp, &pc));
  CHECK_PETSC(SimPCSetSingleCholesky(pc));
  CHECK_PETSC(SimPCIsSingleCholesky(pc, &is));
  ck_assert_msg(is, "SimPCIsSingleCholesky does not recognize the preconditioner");
  CHECK_PETSC(MatCreateVecs(A, &vx, &vb));
  CHECK_PETSC(VecSet(vb, 1.0));
  CHECK_PETSC(KSPSolve(ksp, vb, vx));
  CHECK_PETSC(KSPGetConvergedReason(ksp, &reason));
  ck_assert_msg(reason < 0, "CG preconditioned by the factor of an indefinite matrix: reason %s", KSPConvergedReasons[reason]);
  CHECK_PETSC(KSPDestroy(&ksp));
  CHECK_PETSC(VecDestroy(&vb));
  CHECK_PETSC(VecDestroy(&vx));
  CHECK_PETSC(MatDestroy(&A));
  CHECK_PETSC(MatDestroy(&D));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("linalg");
  TCase *tc = tcase_create("blas");
  tcase_add_test(tc, blas_threads);
  tcase_add_test(tc, omp_threads);
  tcase_add_test(tc, partitioner_threads);
  tcase_add_test(tc, polar_warm_start);
  tcase_add_test(tc, polar_warm_steps);
  tcase_add_test(tc, polar_warm_batch_bitwise);
  tcase_add_test(tc, svd_batch_bitwise);
  tcase_add_test(tc, symmetric_eigen);
  tcase_add_test(tc, psd_projection_shortcut_bitwise);
  tcase_add_test(tc, single_cholesky_solve);
  tcase_add_test(tc, single_cholesky_bad_input);
  suite_add_tcase(s, tc);
  return s;
}
