/* IPC narrow phase (energies/ipc/distance.h): every distance type and its gradient and Hessian
 * against finite differences, including near-degenerate configurations (nearly parallel edges,
 * a point nearly on an edge or in the plane, nearly degenerate triangles); the classification
 * gives the true distance (against dense sampling of the primitives); the barrier is C2 at dhat and
 * the mollifier C1 at its threshold; the barrier Hessian's PSD projection in the formula's variables
 * equals the projection by a full eigendecomposition (GSL), and the exact Hessian when that is PSD. */
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include "testing.h"
#include "energies/ipc/distance.h"

/* deterministic uniform numbers in [0, 1) (a local LCG, no shared RNG) */
static PetscReal Uniform(unsigned long long *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (PetscReal)((*state >> 11) * (1.0 / 9007199254740992.0));
}

/* The gradient and Hessian of the type chosen at x, against central differences of the same
 * formula (the type held fixed); returns the largest relative errors. */
static void CheckDerivatives(IPCStencil k, const PetscReal *x, PetscReal *gerr, PetscReal *herr)
{
  const int n = 3 * IPCStencilSize[k];
  const IPCDistType t = IPCClassify(k, x);
  PetscReal g[12], H[144], gp[12], gm[12], y[12], gscale = 0, hscale = 0;

  IPCSqDistance(k, x, t, g, H);
  for (int i = 0; i < n; i++) gscale = PetscMax(gscale, PetscAbsReal(g[i]));
  for (int i = 0; i < n * n; i++) hscale = PetscMax(hscale, PetscAbsReal(H[i]));
  *gerr = *herr = PETSC_MAX_REAL;
  /* the step is swept: the check passes on the step where the difference converged (truncation
   * error falls with the step, round-off grows; ill-conditioned configurations need a small one) */
  for (PetscReal h = 1e-4; h >= 1e-9; h *= 0.1) {
    PetscReal ge = 0, he = 0;
    for (int j = 0; j < n; j++) {
      const PetscReal e = h * (1 + PetscAbsReal(x[j]));
      PetscReal sp, sm;
      for (int i = 0; i < n; i++) y[i] = x[i];
      y[j] = x[j] + e;
      sp = IPCSqDistance(k, y, t, gp, NULL);
      y[j] = x[j] - e;
      sm = IPCSqDistance(k, y, t, gm, NULL);
      ge = PetscMax(ge, PetscAbsReal((sp - sm) / (2 * e) - g[j]) / (gscale + 1e-300));
      for (int i = 0; i < n; i++) he = PetscMax(he, PetscAbsReal((gp[i] - gm[i]) / (2 * e) - H[i * n + j]) / (hscale + 1e-300));
    }
    *gerr = PetscMin(*gerr, ge), *herr = PetscMin(*herr, he);
  }
}

START_TEST(derivatives_of_every_type)
{
  unsigned long long seed = 12;
  PetscInt seen[4][4] = {{0}};
  PetscReal worst_g = 0, worst_h = 0;

  for (int k = 0; k < 4; k++)
    for (int trial = 0; trial < 400; trial++) {
      PetscReal x[12], ge, he;
      const int n = 3 * IPCStencilSize[k];
      IPCDistType t;
      for (int i = 0; i < n; i++) x[i] = 2 * Uniform(&seed) - 1;
      t = IPCClassify((IPCStencil)k, x);
      seen[k][t.form]++;
      CheckDerivatives((IPCStencil)k, x, &ge, &he);
      worst_g = PetscMax(worst_g, ge), worst_h = PetscMax(worst_h, he);
      ck_assert_msg(ge < 1e-6 && he < 1e-5, "stencil %d trial %d form %d: gradient error %g, Hessian error %g", k, trial, (int)t.form, ge, he);
    }
  /* every formula was exercised: PT reaches PP, PL and the plane; EE reaches PP, PL and LL */
  ck_assert(seen[IPC_STENCIL_PT][IPC_FORM_PP] && seen[IPC_STENCIL_PT][IPC_FORM_PL] && seen[IPC_STENCIL_PT][IPC_FORM_PPLANE]);
  ck_assert(seen[IPC_STENCIL_EE][IPC_FORM_PP] && seen[IPC_STENCIL_EE][IPC_FORM_PL] && seen[IPC_STENCIL_EE][IPC_FORM_LL]);
  ck_assert(seen[IPC_STENCIL_PE][IPC_FORM_PP] && seen[IPC_STENCIL_PE][IPC_FORM_PL]);
}
END_TEST

/* Near-degenerate: nearly parallel edges (angle 1e-3), a point 1e-6 off an edge's line, a point
 * 1e-7 off the triangle's plane, a sliver triangle. */
START_TEST(derivatives_near_degenerate)
{
  const PetscReal eps[3] = {1e-2, 1e-3, 1e-4};
  for (int q = 0; q < 3; q++) {
    const PetscReal a = eps[q];
    /* edges along x, the second turned by a in the xz plane, 0.1 above: line-line */
    const PetscReal ee[12] = {-1, 0, 0, 1, 0, 0, -0.5, 0.1, -a, 0.7, 0.1, 1.2 * a};
    const PetscReal pl[9] = {0.3, 1e-2 * a, 0, 0, 0, 0, 1, 0, 0};             /* point near the line of an edge */
    const PetscReal pt[12] = {0.2, 0.25, 1e-3 * a, 0, 0, 0, 1, 0, 0, 0, 1, 0}; /* point near the plane */
    const PetscReal sliver[12] = {0.5, 0.3, 0.2, 0, 0, 0, 1, 0, 0, 0.5, a, 0}; /* thin triangle */
    PetscReal ge, he;
    IPCDistType t;

    t = IPCClassify(IPC_STENCIL_EE, ee);
    ck_assert_int_eq(t.form, IPC_FORM_LL);
    CheckDerivatives(IPC_STENCIL_EE, ee, &ge, &he);
    ck_assert_msg(ge < 1e-5 && he < 1e-4, "nearly parallel edges (%g): errors %g %g", a, ge, he);
    t = IPCClassify(IPC_STENCIL_PE, pl);
    ck_assert_int_eq(t.form, IPC_FORM_PL);
    CheckDerivatives(IPC_STENCIL_PE, pl, &ge, &he);
    ck_assert_msg(ge < 1e-5 && he < 1e-4, "point near an edge line (%g): errors %g %g", a, ge, he);
    t = IPCClassify(IPC_STENCIL_PT, pt);
    ck_assert_int_eq(t.form, IPC_FORM_PPLANE);
    CheckDerivatives(IPC_STENCIL_PT, pt, &ge, &he);
    ck_assert_msg(ge < 1e-5 && he < 1e-4, "point near the plane (%g): errors %g %g", a, ge, he);
    CheckDerivatives(IPC_STENCIL_PT, sliver, &ge, &he);
    ck_assert_msg(ge < 1e-5 && he < 1e-4, "sliver triangle (%g): errors %g %g", a, ge, he);
  }
}
END_TEST

/* The classified distance is the true distance between the primitives: never above the minimum
 * over a dense sampling of them, and within the sampling's resolution below it. */
START_TEST(classification_gives_the_distance)
{
  unsigned long long seed = 99;
  const int N = 60;
  for (int trial = 0; trial < 60; trial++) {
    PetscReal x[12], s, best = PETSC_MAX_REAL, h2;
    for (int i = 0; i < 12; i++) x[i] = 2 * Uniform(&seed) - 1;
    /* PT: samples of the triangle */
    s = IPCSqDistance(IPC_STENCIL_PT, x, IPCClassify(IPC_STENCIL_PT, x), NULL, NULL);
    for (int i = 0; i <= N; i++)
      for (int j = 0; i + j <= N; j++) {
        const PetscReal u = (PetscReal)i / N, v = (PetscReal)j / N;
        PetscReal d2 = 0;
        for (int c = 0; c < 3; c++) {
          const PetscReal q = x[3 + c] + u * (x[6 + c] - x[3 + c]) + v * (x[9 + c] - x[3 + c]) - x[c];
          d2 += q * q;
        }
        best = PetscMin(best, d2);
      }
    h2 = 4.0 / N; /* the sampling's spacing times the size, a bound on the squared-distance gap */
    ck_assert_msg(s <= best * (1 + 1e-12) + 1e-14 && s >= best - h2 * PetscSqrtReal(best) - h2 * h2, "PT trial %d: %g vs sampled %g", trial, s, best);
    /* EE: samples of both segments */
    best = PETSC_MAX_REAL;
    s = IPCSqDistance(IPC_STENCIL_EE, x, IPCClassify(IPC_STENCIL_EE, x), NULL, NULL);
    for (int i = 0; i <= 4 * N; i++)
      for (int j = 0; j <= 4 * N; j++) {
        const PetscReal u = (PetscReal)i / (4 * N), v = (PetscReal)j / (4 * N);
        PetscReal d2 = 0;
        for (int c = 0; c < 3; c++) {
          const PetscReal q = x[c] + u * (x[3 + c] - x[c]) - x[6 + c] - v * (x[9 + c] - x[6 + c]);
          d2 += q * q;
        }
        best = PetscMin(best, d2);
      }
    ck_assert_msg(s <= best * (1 + 1e-12) + 1e-14 && s >= best - h2 * PetscSqrtReal(best) - h2 * h2, "EE trial %d: %g vs sampled %g", trial, s, best);
    /* PE: samples of the segment (x1, x2) against the point x0 */
    best = PETSC_MAX_REAL;
    s = IPCSqDistance(IPC_STENCIL_PE, x, IPCClassify(IPC_STENCIL_PE, x), NULL, NULL);
    for (int i = 0; i <= 4 * N; i++) {
      const PetscReal u = (PetscReal)i / (4 * N);
      PetscReal d2 = 0;
      for (int c = 0; c < 3; c++) {
        const PetscReal q = x[3 + c] + u * (x[6 + c] - x[3 + c]) - x[c];
        d2 += q * q;
      }
      best = PetscMin(best, d2);
    }
    ck_assert_msg(s <= best * (1 + 1e-12) + 1e-14 && s >= best - h2 * PetscSqrtReal(best) - h2 * h2, "PE trial %d: %g vs sampled %g", trial, s, best);
  }
  { /* exactly parallel edges, overlapping: the distance between the lines */
    const PetscReal x[12] = {0, 0, 0, 1, 0, 0, 0.5, 0.3, 0, 2, 0.3, 0};
    ck_assert(PetscAbsReal(IPCSqDistance(IPC_STENCIL_EE, x, IPCClassify(IPC_STENCIL_EE, x), NULL, NULL) - 0.09) < 1e-14);
  }
  { /* a vertex exactly on an edge: distance 0 */
    const PetscReal x[9] = {0.5, 0, 0, 0, 0, 0, 1, 0, 0};
    ck_assert(IPCSqDistance(IPC_STENCIL_PE, x, IPCClassify(IPC_STENCIL_PE, x), NULL, NULL) == 0);
  }
}
END_TEST

/* b(s) = -(s - sh)^2 ln(s/sh): b, b' and b'' vanish as s -> sh (C2 with the zero beyond); b' and b''
 * match differences of b and b'; +inf at s <= 0. */
START_TEST(barrier_is_c2_at_dhat)
{
  const PetscReal sh = 1e-6;
  PetscReal db, d2b, b;
  for (int k = 1; k <= 6; k++) {
    const PetscReal s = sh * (1 - PetscPowReal(10.0, -k));
    b = IPCBarrier(s, sh, &db, &d2b);
    /* b ~ (sh - s)^3 / sh, b' ~ (sh - s)^2 / sh, b'' ~ (sh - s) / sh near sh */
    ck_assert_msg(b > 0 && PetscAbsReal(b) < 2 * PetscPowReal(sh - s, 3) / sh, "b(%g) = %g", s, b);
    ck_assert_msg(db < 0 && PetscAbsReal(db) < 4 * PetscPowReal(sh - s, 2) / sh, "b'(%g) = %g", s, db);
    ck_assert_msg(d2b > 0 && PetscAbsReal(d2b) < 8 * (sh - s) / sh, "b''(%g) = %g", s, d2b);
  }
  b = IPCBarrier(sh, sh, &db, &d2b);
  ck_assert(b == 0 && db == 0 && d2b == 0);
  b = IPCBarrier(2 * sh, sh, &db, &d2b);
  ck_assert(b == 0 && db == 0 && d2b == 0);
  ck_assert(PetscIsInfReal(IPCBarrier(0, sh, NULL, NULL)) && PetscIsInfReal(IPCBarrier(-1e-9, sh, NULL, NULL)));
  for (int k = 1; k < 20; k++) {
    const PetscReal s = sh * k / 20.0, e = 1e-6 * s;
    PetscReal dbp, dbm, d2bp, d2bm;
    const PetscReal bp = IPCBarrier(s + e, sh, &dbp, &d2bp), bm = IPCBarrier(s - e, sh, &dbm, &d2bm);
    IPCBarrier(s, sh, &db, &d2b);
    ck_assert_msg(PetscAbsReal((bp - bm) / (2 * e) - db) <= 1e-6 * PetscAbsReal(db) + 1e-12 * sh, "b' at %g", s);
    ck_assert_msg(PetscAbsReal((dbp - dbm) / (2 * e) - d2b) <= 1e-6 * PetscAbsReal(d2b) + 1e-9, "b'' at %g", s);
  }
}
END_TEST

/* The mollifier: m(eps) = 1 with m'(eps) = 0 (C1 onto the constant), m(0) = 0, and |u x v|^2's
 * derivatives against differences. */
START_TEST(mollifier_and_edge_cross)
{
  unsigned long long seed = 5;
  PetscReal dm, d2m, x[12], g[12], H[144], gp[12], gm[12];
  ck_assert(PetscAbsReal(IPCMollifier(0.5, 0.5, &dm, &d2m) - 1) < 1e-15 && dm == 0);
  ck_assert(PetscAbsReal(IPCMollifier(0.5 * (1 - 1e-9), 0.5, &dm, &d2m) - 1) < 1e-15 && PetscAbsReal(dm) < 1e-8);
  ck_assert(IPCMollifier(0, 0.5, &dm, &d2m) == 0 && dm == 4);
  for (int i = 0; i < 12; i++) x[i] = 2 * Uniform(&seed) - 1;
  IPCEdgeCross(x, g, H);
  for (int j = 0; j < 12; j++) {
    const PetscReal e = 1e-6, x0 = x[j];
    PetscReal cp, cm;
    x[j] = x0 + e, cp = IPCEdgeCross(x, gp, NULL);
    x[j] = x0 - e, cm = IPCEdgeCross(x, gm, NULL);
    x[j] = x0;
    ck_assert(PetscAbsReal((cp - cm) / (2 * e) - g[j]) < 1e-7);
    for (int i = 0; i < 12; i++) ck_assert(PetscAbsReal((gp[i] - gm[i]) / (2 * e) - H[12 * i + j]) < 1e-6);
  }
}
END_TEST

/* The PSD projection of a symmetric n x n matrix by GSL's eigendecomposition (P, may be NULL) and its
 * smallest eigenvalue. */
static PetscReal GSLProject(int n, const PetscReal *H, PetscReal *P)
{
  double a[144];
  gsl_matrix_view A = gsl_matrix_view_array(a, n, n);
  gsl_matrix *V = gsl_matrix_alloc(n, n);
  gsl_vector *ev = gsl_vector_alloc(n);
  gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(n);
  PetscReal lmin = PETSC_MAX_REAL;

  for (int i = 0; i < n * n; i++) a[i] = H[i];
  gsl_eigen_symmv(&A.matrix, ev, V, w);
  for (int k = 0; k < n; k++) lmin = PetscMin(lmin, gsl_vector_get(ev, k));
  if (P)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        P[i * n + j] = 0;
        for (int k = 0; k < n; k++)
          P[i * n + j] += PetscMax(0, gsl_vector_get(ev, k)) * gsl_matrix_get(V, i, k) * gsl_matrix_get(V, j, k);
      }
  gsl_eigen_symmv_free(w);
  gsl_vector_free(ev);
  gsl_matrix_free(V);
  return lmin;
}

/* IPCBarrierHessianPSD against the exact Hessian b'' g g^T + b' Hs projected by GSL, on random
 * configurations of every stencil and type, near-degenerate ones too, with the barrier's own b', b''
 * at s < sh (indefinite), b' = 0 (b'' g g^T: PSD already) and 0 < b' (either). The result (the
 * projection, or the exact Hessian when the function says it is PSD already) equals GSL's projection
 * within 1e-9 |H|, is PSD (smallest eigenvalue >= -1e-12 |H|) and, when the exact Hessian is PSD,
 * equals it within 1e-9 |H|. */
START_TEST(barrier_hessian_projection_is_exact)
{
  unsigned long long seed = 31;
  PetscInt projected_seen[4] = {0}, psd_seen[4] = {0}, untouched = 0;

  for (int k = 0; k < 4; k++)
    for (int trial = 0; trial < 600; trial++) {
      const int n = 3 * IPCStencilSize[k];
      PetscReal x[12], g[12], Hs[144], H[144], P[144], Hp[144], s, sh, db, d2b, scale = 0, err = 0, lmin, lmin_exact;
      PetscBool projected;
      IPCDistType t;
      for (int i = 0; i < n; i++) x[i] = 2 * Uniform(&seed) - 1;
      if (trial % 10 == 9) /* near-degenerate: the last vertex 1e-4 from the first */
        for (int d = 0; d < 3; d++) x[n - 3 + d] = x[d] + 1e-4 * (2 * Uniform(&seed) - 1);
      t = IPCClassify((IPCStencil)k, x);
      s = IPCSqDistance((IPCStencil)k, x, t, g, Hs);
      if (!(s > 0)) continue;
      sh = s * (1.05 + 4 * Uniform(&seed));
      (void)IPCBarrier(s, sh, &db, &d2b);
      if (trial % 3 == 1) db = 0;
      else if (trial % 3 == 2) db = PetscAbsReal(db) * Uniform(&seed);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) H[i * n + j] = d2b * g[i] * g[j] + db * Hs[i * n + j];
      for (int i = 0; i < n * n; i++) scale = PetscMax(scale, PetscAbsReal(H[i]));
      for (int i = 0; i < n * n; i++) Hp[i] = -12345; /* untouched unless projected */
      CHECK_PETSC(IPCBarrierHessianPSD((IPCStencil)k, x, t, db, d2b, Hp, &projected));
      lmin_exact = GSLProject(n, H, P);
      if (projected) projected_seen[t.form]++;
      else {
        for (int i = 0; i < n * n; i++) ck_assert_msg(Hp[i] == -12345, "not projected, yet H was written");
        for (int i = 0; i < n * n; i++) Hp[i] = H[i];
        untouched++;
      }
      for (int i = 0; i < n * n; i++) err = PetscMax(err, PetscAbsReal(Hp[i] - P[i]));
      ck_assert_msg(err <= 1e-9 * scale, "stencil %d trial %d form %d: differs from GSL's projection by %g (|H| %g)", k, trial, (int)t.form, err, scale);
      lmin = GSLProject(n, Hp, NULL);
      ck_assert_msg(lmin >= -1e-12 * scale, "stencil %d trial %d form %d: eigenvalue %g (|H| %g)", k, trial, (int)t.form, lmin, scale);
      if (db == 0 || lmin_exact >= 0) {
        psd_seen[t.form] += db == 0;
        err = 0;
        for (int i = 0; i < n * n; i++) err = PetscMax(err, PetscAbsReal(Hp[i] - H[i]));
        ck_assert_msg(err <= 1e-9 * scale, "stencil %d trial %d form %d: PSD Hessian changed by %g (|H| %g)", k, trial, (int)t.form, err, scale);
      }
    }
  for (int f = 0; f < 4; f++) ck_assert_msg(projected_seen[f] > 0 && psd_seen[f] > 0, "form %d: %d projected, %d PSD", f, (int)projected_seen[f], (int)psd_seen[f]);
  ck_assert_msg(untouched > 0, "no Hessian was found PSD as it was");
}
END_TEST

/* The admissibility check's crossing test: clear crossings and misses, and the coplanar pair of the
 * armadillo mesh (edge 33-866, triangle 810-568-586 of armadillo_4k: 0.059 apart in the mesh's
 * units, orientations of ~1e-18 with no meaningful sign) that the exact-sign test took for a
 * crossing at step 2 of the ipc_stack fall, with the triangle's vertices in every order. */
START_TEST(segment_crosses_triangle_robust)
{
  const PetscReal t[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const PetscReal a[3] = {0.2, 0.2, -1}, b[3] = {0.2, 0.2, 1}, c[3] = {1.2, 1.2, -1}, d[3] = {1.2, 1.2, 1}, e[3] = {0.2, 0.2, 0.5};
  /* edge 33-866 and triangle 810-568-586 of the first armadillo of ipc_stack at step 2 (hex floats,
   * as the failing run had them) */
  const PetscReal arma[15] = {0x1.476944447ba68p-5, 0x1.1c81b616a16c4p-5, 0x1.09ec75b092d2p-5, 0x1.416332840d27ap-5, 0x1.73bdfd9b82c58p-5,
                              0x1.0f67b9bbaee8ap-5, 0x1.56e53ba16c0efp-5, 0x1.7292c8c187f8ep-5, 0x1.e3857933b09ffp-6, 0x1.666132fe5c776p-5,
                              0x1.c8a3db6c6e85ap-5, 0x1.b33207063b9bep-6, 0x1.3b5d20c39ea8cp-5, 0x1.cafa4520641ecp-5, 0x1.14e2fdc6caff4p-5};
  const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};

  ck_assert(IPCSegmentCrossesTriangle(a, b, t, t + 3, t + 6));
  ck_assert(IPCSegmentCrossesTriangle(b, a, t + 6, t + 3, t));
  ck_assert(!IPCSegmentCrossesTriangle(c, d, t, t + 3, t + 6)); /* passes the plane outside the triangle */
  ck_assert(!IPCSegmentCrossesTriangle(e, b, t, t + 3, t + 6)); /* above the triangle */
  for (int p = 0; p < 6; p++) {
    const PetscReal *x = arma;
    ck_assert_msg(!IPCSegmentCrossesTriangle(x, x + 3, x + 6 + 3 * perm[p][0], x + 6 + 3 * perm[p][1], x + 6 + 3 * perm[p][2]),
                  "the coplanar armadillo pair taken for a crossing, triangle order %d", p);
    ck_assert(!IPCSegmentCrossesTriangle(x + 3, x, x + 6 + 3 * perm[p][0], x + 6 + 3 * perm[p][1], x + 6 + 3 * perm[p][2]));
  }
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("ipc_distance");
  TCase *tc = tcase_create("distance");
  tcase_add_test(tc, derivatives_of_every_type);
  tcase_add_test(tc, derivatives_near_degenerate);
  tcase_add_test(tc, classification_gives_the_distance);
  tcase_add_test(tc, barrier_is_c2_at_dhat);
  tcase_add_test(tc, mollifier_and_edge_cross);
  tcase_add_test(tc, barrier_hessian_projection_is_exact);
  tcase_add_test(tc, segment_crosses_triangle_robust);
  suite_add_tcase(s, tc);
  return s;
}
