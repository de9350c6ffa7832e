/* IPC narrow phase (energies/ipc/distance.h): every distance type and its gradient and Hessian
 * against finite differences, including near-degenerate configurations (nearly parallel edges,
 * a point nearly on an edge or in the plane, nearly degenerate triangles); the classification
 * gives the true distance (against dense sampling of the primitives); the barrier is C2 at dhat and
 * the mollifier C1 at its threshold. */
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

Suite *test_suite(void)
{
  Suite *s = suite_create("ipc_distance");
  TCase *tc = tcase_create("distance");
  tcase_add_test(tc, derivatives_of_every_type);
  tcase_add_test(tc, derivatives_near_degenerate);
  tcase_add_test(tc, classification_gives_the_distance);
  tcase_add_test(tc, barrier_is_c2_at_dhat);
  tcase_add_test(tc, mollifier_and_edge_cross);
  suite_add_tcase(s, tc);
  return s;
}
