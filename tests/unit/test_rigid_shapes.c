/* Unit tests of the rigid bodies' shapes (problems/rigid/hull.c, mass.c, the hull body): the convex
 * hull of a box's corners and of a random point set holds every point, its faces are convex and
 * outward and it satisfies Euler's formula; the mass properties of a box mesh are the analytic
 * box's, and of a prism its analytic volume and centroid; a hull body resting on a plane stays put
 * under both rigid solvers. */
#include "testing.h"
#include "problems/rigid/rigid.h"
#include "problems/rigid/hull.h"
#include "problems/rigid/mass.h"

/* Checks a hull of n points: every point on or below every face's plane (convex, all inside), the
 * faces outward (the volume they bound is positive), Euler's V - E + F = 2 for the vertices they
 * use (E = 3F/2: closed). Returns the number of hull vertices. */
static PetscInt CheckHull(PetscInt n, const PetscReal *x, PetscInt nf, const PetscInt *f, const char *what)
{
  PetscInt nused = 0, *used;
  PetscReal scale = 0, worst = -PETSC_MAX_REAL, mass, com[3], In[9];

  for (PetscInt i = 0; i < 3 * n; i++) scale = PetscMax(scale, PetscAbsReal(x[i]));
  CHECK_PETSC(PetscCalloc1(n, &used));
  for (PetscInt t = 0; t < nf; t++) {
    const PetscReal *a = x + 3 * f[3 * t], *b = x + 3 * f[3 * t + 1], *c = x + 3 * f[3 * t + 2];
    PetscReal e1[3], e2[3], nn[3], len, d;
    for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], used[f[3 * t + k]] = 1;
    nn[0] = e1[1] * e2[2] - e1[2] * e2[1], nn[1] = e1[2] * e2[0] - e1[0] * e2[2], nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
    len = PetscSqrtReal(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
    ck_assert_msg(len > 0, "%s: face %d is degenerate", what, (int)t);
    d = (nn[0] * a[0] + nn[1] * a[1] + nn[2] * a[2]) / len;
    for (PetscInt i = 0; i < n; i++) worst = PetscMax(worst, (nn[0] * x[3 * i] + nn[1] * x[3 * i + 1] + nn[2] * x[3 * i + 2]) / len - d);
  }
  for (PetscInt i = 0; i < n; i++) nused += used[i];
  ck_assert_msg(worst < 1e-9 * scale, "%s: a point is %g outside a face's plane", what, (double)worst);
  ck_assert_msg((3 * nf) % 2 == 0 && nused - 3 * nf / 2 + nf == 2, "%s: V - E + F = %d - %d + %d, not 2", what, (int)nused, (int)(3 * nf / 2), (int)nf);
  CHECK_PETSC(SimMeshMassProperties(n, x, nf, f, 1, &mass, com, In));
  ck_assert_msg(mass > 0, "%s: the faces bound volume %g (inward?)", what, (double)mass);
  CHECK_PETSC(PetscFree(used));
  return nused;
}

/* A deterministic sequence in [0, 1) (a linear congruential generator: the same points everywhere). */
static PetscReal Uniform(unsigned long long *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (PetscReal)((*s >> 11) * (1.0 / 9007199254740992.0));
}

/* The box's 8 corners with 30 points inside it and on its faces: the hull is the 8 corners, 12
 * triangles. */
START_TEST(hull_of_a_box)
{
  PetscReal x[3 * 38];
  PetscInt nf, *f, nv;
  unsigned long long s = 1;
  const PetscReal h[3] = {0.3, 0.2, 0.1};

  for (int k = 0; k < 30; k++)
    for (int d = 0; d < 3; d++) x[3 * k + d] = (2 * Uniform(&s) - 1) * h[d] * (k % 3 ? 1 : 0.5);
  for (int k = 0; k < 10; k++) x[3 * k + k % 3] = h[k % 3]; /* some on the faces */
  for (int c = 0; c < 8; c++)
    for (int d = 0; d < 3; d++) x[3 * (30 + c) + d] = (c >> d & 1 ? 1 : -1) * h[d];
  CHECK_PETSC(SimConvexHull(38, x, &nf, &f));
  nv = CheckHull(38, x, nf, f, "box");
  ck_assert_msg(nv == 8 && nf == 12, "box: the hull has %d vertices and %d faces (8 and 12)", (int)nv, (int)nf);
  for (PetscInt k = 0; k < 3 * nf; k++) ck_assert_msg(f[k] >= 30, "box: hull vertex %d is not a corner", (int)f[k]);
  CHECK_PETSC(PetscFree(f));
}
END_TEST

/* 500 random points in a ball: every point within the hull, convex outward faces, Euler's formula;
 * and the same hull again from the same points (deterministic). */
START_TEST(hull_of_random_points)
{
  const PetscInt n = 500;
  PetscReal *x;
  PetscInt nf, *f, nf2, *f2;
  unsigned long long s = 7;

  CHECK_PETSC(PetscMalloc1(3 * n, &x));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal r2;
    do {
      for (int d = 0; d < 3; d++) x[3 * i + d] = 2 * Uniform(&s) - 1;
      r2 = x[3 * i] * x[3 * i] + x[3 * i + 1] * x[3 * i + 1] + x[3 * i + 2] * x[3 * i + 2];
    } while (r2 > 1);
  }
  CHECK_PETSC(SimConvexHull(n, x, &nf, &f));
  ck_assert_msg(CheckHull(n, x, nf, f, "random") > 20, "random: too few hull vertices");
  CHECK_PETSC(SimConvexHull(n, x, &nf2, &f2));
  ck_assert_msg(nf2 == nf, "random: %d then %d faces", (int)nf, (int)nf2);
  for (PetscInt k = 0; k < 3 * nf; k++) ck_assert_msg(f2[k] == f[k], "random: the second hull differs at %d", (int)k);
  CHECK_PETSC(PetscFree(f));
  CHECK_PETSC(PetscFree(f2));
  CHECK_PETSC(PetscFree(x));
}
END_TEST

/* A box of half extents a, b, c, turned and moved, as a hull of its corners: mass rho 8abc, centre
 * its centre, inertia R diag(m/3 (b^2 + c^2), ...) R^T; the principal moments are the diagonal's. */
START_TEST(mass_of_a_box)
{
  const PetscReal h[3] = {0.3, 0.2, 0.1}, c0[3] = {1, -2, 0.5}, rho = 700, q[4] = {0.9, 0.2, -0.3, 0.25};
  PetscReal x[24], R[9], qn[4], nq = 0, mass, com[3], In[9], Ip[3], P[9], m, D[3];
  PetscInt nf, *f;

  for (int k = 0; k < 4; k++) nq += q[k] * q[k];
  for (int k = 0; k < 4; k++) qn[k] = q[k] / PetscSqrtReal(nq);
  SimQuatToMatrix(qn, R);
  for (int c = 0; c < 8; c++) {
    const PetscReal l[3] = {(c & 1 ? 1 : -1) * h[0], (c & 2 ? 1 : -1) * h[1], (c & 4 ? 1 : -1) * h[2]};
    for (int i = 0; i < 3; i++) x[3 * c + i] = c0[i] + R[3 * i] * l[0] + R[3 * i + 1] * l[1] + R[3 * i + 2] * l[2];
  }
  CHECK_PETSC(SimConvexHull(8, x, &nf, &f));
  CHECK_PETSC(SimMeshMassProperties(8, x, nf, f, rho, &mass, com, In));
  m = rho * 8 * h[0] * h[1] * h[2];
  D[0] = m / 3 * (h[1] * h[1] + h[2] * h[2]), D[1] = m / 3 * (h[0] * h[0] + h[2] * h[2]), D[2] = m / 3 * (h[0] * h[0] + h[1] * h[1]);
  ck_assert_msg(PetscAbsReal(mass - m) < 1e-12 * m, "mass %g, analytic %g", (double)mass, (double)m);
  for (int d = 0; d < 3; d++) ck_assert_msg(PetscAbsReal(com[d] - c0[d]) < 1e-12, "centre %d: %g, analytic %g", d, (double)com[d], (double)c0[d]);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const PetscReal a = R[3 * i] * D[0] * R[3 * j] + R[3 * i + 1] * D[1] * R[3 * j + 1] + R[3 * i + 2] * D[2] * R[3 * j + 2];
      ck_assert_msg(PetscAbsReal(In[3 * i + j] - a) < 1e-12 * D[2], "inertia (%d, %d): %g, analytic %g", i, j, (double)In[3 * i + j], (double)a);
    }
  CHECK_PETSC(SimInertiaPrincipal(In, Ip, P));
  /* the principal moments come ascending: sort the analytic ones */
  {
    PetscReal s[3] = {D[0], D[1], D[2]};
    for (int a = 0; a < 3; a++)
      for (int b = a + 1; b < 3; b++)
        if (s[b] < s[a]) {
          const PetscReal t = s[a];
          s[a] = s[b], s[b] = t;
        }
    for (int k = 0; k < 3; k++) ck_assert_msg(PetscAbsReal(Ip[k] - s[k]) < 1e-10 * s[2], "principal moment %d: %g, analytic %g", k, (double)Ip[k], (double)s[k]);
  }
  /* R P diag P^T = In with P a rotation */
  {
    const PetscReal det = P[0] * (P[4] * P[8] - P[5] * P[7]) - P[1] * (P[3] * P[8] - P[5] * P[6]) + P[2] * (P[3] * P[7] - P[4] * P[6]);
    ck_assert_msg(PetscAbsReal(det - 1) < 1e-12, "the principal axes' determinant is %g", (double)det);
  }
  CHECK_PETSC(PetscFree(f));
}
END_TEST

/* The triangular prism of the scenes: the triangle (0, 0), (0.4, 0), (0.1, 0.3) in x, y, extruded over
 * z in [-0.1, 0.1]: volume 0.012, centroid (0.5/3, 0.1, 0). */
static const PetscReal prism[18] = {0, 0, -0.1, 0.4, 0, -0.1, 0.1, 0.3, -0.1, 0, 0, 0.1, 0.4, 0, 0.1, 0.1, 0.3, 0.1};

START_TEST(mass_of_a_prism)
{
  PetscReal mass, com[3], In[9];
  PetscInt nf, *f;

  CHECK_PETSC(SimConvexHull(6, prism, &nf, &f));
  CheckHull(6, prism, nf, f, "prism");
  CHECK_PETSC(SimMeshMassProperties(6, prism, nf, f, 1, &mass, com, In));
  ck_assert_msg(PetscAbsReal(mass - 0.012) < 1e-14, "prism volume %g (0.012)", (double)mass);
  ck_assert_msg(PetscAbsReal(com[0] - 0.5 / 3) < 1e-14 && PetscAbsReal(com[1] - 0.1) < 1e-14 && PetscAbsReal(com[2]) < 1e-14, "prism centroid (%g, %g, %g)",
                (double)com[0], (double)com[1], (double)com[2]);
  ck_assert_msg(PetscAbsReal(In[1]) > 1e-6, "the prism's inertia should couple x and y (%g): the test would not exercise the principal frame", (double)In[1]);
  CHECK_PETSC(PetscFree(f));
}
END_TEST

/* The prism as a hull body resting on its rectangular face 0.1 mm above the ground, 2 s at 1/120 s:
 * its centre moves less than 1 mm and it does not turn (its principal frame is not the mesh's, so a
 * wrong frame or centre would tip it or sink it). */
START_TEST(hull_rests_on_plane)
{
  static const char *const solvers[] = {"rigid", "xpbd_rigid"};
  SimRegistry reg;
  SimProblem p;
  SimSolver s;
  SimRigidBodies *B;
  const PetscReal at[3] = {0, 1e-4, 0}, o[3] = {0, 0, 0}, up[3] = {0, 1, 0};
  PetscReal x0[3], q0[4], dx = 0, dq = 0;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimProblemCreate(reg, "rigid", "hull", PETSC_COMM_SELF, &p));
  CHECK_PETSC(SimRigidProblemAddHull(p, 6, prism, 500, at, NULL, 0.5, 0, "prism", NULL));
  CHECK_PETSC(SimRigidProblemAddPlane(p, o, up, 0.5, 0));
  CHECK_PETSC(SimProblemSetUp(p));
  CHECK_PETSC(SimRigidProblemGetBodies(p, &B));
  ck_assert_msg(PetscAbsReal(B->body[0].x[1] - 0.1 - 1e-4) < 1e-12, "the hull's centre is at height %g (0.1001)", (double)B->body[0].x[1]);
  CHECK_PETSC(SimSolverCreate(reg, solvers[_i], p, &s));
  CHECK_PETSC(SimSolverSetFromOptions(s));
  for (int k = 0; k < 12; k++) CHECK_PETSC(SimSolverStep(s, 1.0 / 120, NULL)); /* lands */
  for (int d = 0; d < 3; d++) x0[d] = B->body[0].x[d];
  for (int d = 0; d < 4; d++) q0[d] = B->body[0].q[d];
  for (int k = 0; k < 240; k++) CHECK_PETSC(SimSolverStep(s, 1.0 / 120, NULL));
  for (int d = 0; d < 3; d++) dx = PetscMax(dx, PetscAbsReal(B->body[0].x[d] - x0[d]));
  for (int d = 0; d < 4; d++) dq = PetscMax(dq, PetscAbsReal(B->body[0].q[d] - q0[d]));
  ck_assert_msg(dx < 1e-3 && dq < 1e-3, "%s: the resting prism moved %g m and its quaternion %g in 2 s", solvers[_i], (double)dx, (double)dq);
  ck_assert_msg(PetscAbsReal(B->body[0].x[1] - 0.1) < 2e-3, "%s: the prism's centre is at %g m (on its face: 0.1)", solvers[_i], (double)B->body[0].x[1]);
  CHECK_PETSC(SimSolverDestroy(&s));
  CHECK_PETSC(SimProblemDestroy(&p));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("rigid_shapes");
  TCase *tc = tcase_create("rigid_shapes");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, hull_of_a_box);
  tcase_add_test(tc, hull_of_random_points);
  tcase_add_test(tc, mass_of_a_box);
  tcase_add_test(tc, mass_of_a_prism);
  tcase_add_loop_test(tc, hull_rests_on_plane, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}
