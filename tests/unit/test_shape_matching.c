/* Unit tests of shape matching (energies/shape_matching.c, Müller et al. 2005) and of its use by the
 * pbd solver: a rigidly moved shape is its own goal in every mode, the linear mode reproduces a
 * volume-preserving affine map and the quadratic mode a quadratic map with beta = 1, the projection
 * keeps the linear and angular momentum, one PBD step moves a free cluster onto its goals, and a
 * cluster that cannot determine its fit is refused with a message that says why. */
#include <string.h>
#include "testing.h"
#include "energies/shape_matching.h"

#define NG 27 /* a 3 x 3 x 3 block */

/* A 3 x 3 x 3 block of points 0.1 apart, moved off the lattice by a fixed pattern (general position),
 * with unequal masses. */
static void Block(PetscReal xyz[3 * NG], PetscReal mass[NG])
{
  for (PetscInt i = 0; i < NG; i++) {
    const PetscInt a = i % 3, b = (i / 3) % 3, c = i / 9;
    xyz[3 * i] = 0.1 * a + 0.013 * PetscSinReal(1.7 * i), xyz[3 * i + 1] = 0.1 * b + 0.011 * PetscCosReal(2.3 * i);
    xyz[3 * i + 2] = 0.1 * c + 0.009 * PetscSinReal(0.7 * i + 1);
    mass[i] = 1 + 0.5 * PetscSinReal(3.1 * i) * PetscSinReal(3.1 * i);
  }
}

/* R = exp([axis]x angle) (Rodrigues). */
static void Rotation(const PetscReal axis[3], PetscReal angle, PetscReal R[9])
{
  const PetscReal n = PetscSqrtReal(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]),
                  u[3] = {axis[0] / n, axis[1] / n, axis[2] / n};
  const PetscReal c = PetscCosReal(angle), s = PetscSinReal(angle);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] = (i == j) * c + (1 - c) * u[i] * u[j];
  R[1] -= s * u[2], R[2] += s * u[1], R[3] += s * u[2], R[5] -= s * u[0], R[6] -= s * u[1], R[7] += s * u[0];
}

/* max_i |(A x)_i - p_i| over the term's constraints at x (0: x is its own goal), and the term's
 * energy there. */
static PetscErrorCode GoalGap(SimEnergy term, const PetscReal *x, PetscReal *gap, PetscReal *E)
{
  PetscInt nc, nv, nr;
  PetscInt *vert;
  PetscReal *A, *w, *p;

  PetscFunctionBeginUser;
  PetscCall(term->ops.pd_count(term, &nc, &nv, &nr));
  PetscCall(PetscMalloc4(nc * nv, &vert, nc * nr * nv, &A, nc, &w, 3 * nc * nr, &p));
  PetscCall(term->ops.pd_stencil(term, vert, A, w));
  PetscCall(term->ops.pd_project(term, x, p));
  *gap = 0;
  for (PetscInt c = 0; c < nc; c++)
    for (PetscInt r = 0; r < nr; r++)
      for (int k = 0; k < 3; k++) {
        PetscReal s = -p[3 * (c * nr + r) + k];
        for (PetscInt a = 0; a < nv; a++) s += A[(c * nr + r) * nv + a] * x[3 * vert[c * nv + a] + k];
        *gap = PetscMax(*gap, PetscAbsReal(s));
      }
  PetscCall(term->ops.value(term, x, NULL, E));
  PetscCall(PetscFree4(vert, A, w, p));
  PetscFunctionReturn(0);
}

/* Every mode (rigid, linear with beta 0.5, quadratic with beta 0.5): a rotated and translated copy
 * of the block is its own goal (Müller et al. 2005: the goal of a rigid motion is the motion), so
 * the constraint and the energy vanish; with beta = 1 the linear mode reproduces a shear (an affine
 * map of determinant 1) and the quadratic mode a quadratic map, exactly. */
START_TEST(rigid_motion_is_a_fixed_point)
{
  PetscReal x0[3 * NG], m[NG], x[3 * NG], R[9];
  const PetscReal axis[3] = {0.3, -1, 0.6}, t[3] = {0.4, -0.2, 1.1};
  const PetscInt all[NG] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26};
  Block(x0, m);
  Rotation(axis, 0.9, R);
  for (PetscInt i = 0; i < NG; i++)
    for (int r = 0; r < 3; r++)
      x[3 * i + r] = t[r] + R[3 * r] * x0[3 * i] + R[3 * r + 1] * x0[3 * i + 1] + R[3 * r + 2] * x0[3 * i + 2];
  for (PetscInt mode = 0; mode < 3; mode++) {
    SimEnergy term;
    PetscReal gap, E;
    CHECK_PETSC(SimShapeMatchingCreate("shape", NG, x0, m, 1, NG, all, mode, 0.5, 1e3, &term));
    CHECK_PETSC(GoalGap(term, x, &gap, &E));
    ck_assert_msg(gap < 1e-13 && PetscAbsReal(E) < 1e-20, "%s: a rigid motion is %g from its goal (energy %g)",
                  SimShapeModes[mode], (double)gap, (double)E);
    CHECK_PETSC(SimEnergyDestroy(&term));
  }
  { /* shear: x = x0 + 0.4 y e_x (det 1), linear with beta = 1; a quadratic map, quadratic with beta = 1 */
    const PetscReal Q[3][6] = {
        {0.8, -0.3, 0.5, 1.2, 0.2, -0.7}, {-0.4, 0.9, 0.3, 0.1, -1.1, 0.6}, {0.2, 0.5, -0.6, -0.8, 0.4, 0.3}};
    for (int which = 0; which < 2; which++) {
      SimEnergy term;
      PetscReal gap, E;
      for (PetscInt i = 0; i < NG; i++) {
        const PetscReal *p = x0 + 3 * i, mono[6] = {p[0] * p[0], p[1] * p[1], p[2] * p[2], p[0] * p[1], p[1] * p[2], p[2] * p[0]};
        for (int r = 0; r < 3; r++) x[3 * i + r] = p[r] + (which == 0 ? (r == 0 ? 0.4 * p[1] : 0) : 0.1 * p[(r + 1) % 3]);
        if (which == 1)
          for (int r = 0; r < 3; r++)
            for (int j = 0; j < 6; j++) x[3 * i + r] += Q[r][j] * mono[j];
      }
      CHECK_PETSC(SimShapeMatchingCreate("shape", NG, x0, m, 1, NG, all, which == 0 ? SIM_SHAPE_LINEAR : SIM_SHAPE_QUADRATIC, 1.0,
                                         1e3, &term));
      CHECK_PETSC(GoalGap(term, x, &gap, &E));
      ck_assert_msg(gap < 1e-13, "%s with beta = 1: the %s deformation is %g from its goal", which ? "quadratic" : "linear",
                    which ? "quadratic" : "shear", (double)gap);
      CHECK_PETSC(SimEnergyDestroy(&term));
      if (which == 1) { /* the linear mode cannot follow the quadratic map (the test discriminates) */
        CHECK_PETSC(SimShapeMatchingCreate("shape", NG, x0, m, 1, NG, all, SIM_SHAPE_LINEAR, 1.0, 1e3, &term));
        CHECK_PETSC(GoalGap(term, x, &gap, &E));
        ck_assert_msg(gap > 1e-4, "linear: the quadratic map is only %g from its goal", (double)gap);
        CHECK_PETSC(SimEnergyDestroy(&term));
      }
    }
  }
}
END_TEST

/* The projection of a deformed free cluster onto its goals, x_i -> c + T q_i, keeps the linear
 * momentum (sum m_i dx_i = 0: the goals keep the centre) and the angular momentum (sum m_i x_i x
 * dx_i = 0: sum m p (T q)^T is symmetric for the polar rotation and for the fits), in every mode. */
START_TEST(projection_keeps_momentum)
{
  PetscReal x0[3 * NG], m[NG], x[3 * NG], p[3 * NG], sq[NG], M = 0;
  const PetscInt all[NG] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26};
  Block(x0, m);
  for (PetscInt i = 0; i < NG; i++) M += m[i];
  for (PetscInt i = 0; i < NG; i++) sq[i] = PetscSqrtReal(m[i] / M);
  for (PetscInt i = 0; i < 3 * NG; i++) x[i] = 1.3 * x0[i] + 0.04 * PetscSinReal(5.1 * i) + (i % 3 == 1 ? 0.5 : 0);
  for (PetscInt mode = 0; mode < 3; mode++) {
    SimEnergy term;
    PetscReal c[3] = {0, 0, 0}, P[3] = {0, 0, 0}, L[3] = {0, 0, 0}, scale = 0, moved = 0;
    CHECK_PETSC(SimShapeMatchingCreate("shape", NG, x0, m, 1, NG, all, mode, 0.5, 1e3, &term));
    CHECK_PETSC(term->ops.pd_project(term, x, p));
    for (PetscInt i = 0; i < NG; i++)
      for (int k = 0; k < 3; k++) c[k] += m[i] / M * x[3 * i + k];
    for (PetscInt i = 0; i < NG; i++) {
      PetscReal d[3];
      const PetscReal *xi = x + 3 * i;
      for (int k = 0; k < 3; k++) d[k] = c[k] + p[3 * i + k] / sq[i] - xi[k]; /* goal - x */
      for (int k = 0; k < 3; k++) P[k] += m[i] * d[k];
      L[0] += m[i] * (xi[1] * d[2] - xi[2] * d[1]), L[1] += m[i] * (xi[2] * d[0] - xi[0] * d[2]),
          L[2] += m[i] * (xi[0] * d[1] - xi[1] * d[0]);
      scale += m[i] * PetscSqrtReal(xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]) *
               PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      moved += m[i] * PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    ck_assert_msg(moved > 1e-3 * M, "%s: the projection moved nothing (%g)", SimShapeModes[mode], (double)moved);
    for (int k = 0; k < 3; k++) {
      ck_assert_msg(PetscAbsReal(P[k]) < 1e-13 * moved, "%s: linear momentum %g of the correction (|m dx| %g)",
                    SimShapeModes[mode], (double)P[k], (double)moved);
      ck_assert_msg(PetscAbsReal(L[k]) < 1e-13 * scale, "%s: angular momentum %g of the correction (scale %g)",
                    SimShapeModes[mode], (double)L[k], (double)scale);
    }
    CHECK_PETSC(SimEnergyDestroy(&term));
  }
}
END_TEST

/* Through the solver: a soft box of shape matching alone (3 x 3 x 3 vertices, one cluster), deformed
 * and at rest without gravity; one PBD step (stiffness 1, one sweep) solves the cluster's block
 * exactly (the pseudo-inverse of A W A^T with the mass-weighted centring), which is Müller's
 * x_i <- g_i: the positions reach the goals, the linear and angular momentum stay 0. Then XPBD with
 * overlapping clusters (one per tet) from random velocities keeps the linear momentum. */
START_TEST(pbd_step_reaches_the_goals)
{
  const char *box = "-drop_n 2 -drop_size 0.2 -drop_elastic 0 -drop_shape 1e3 -drop_shape_mode quadratic -drop_shape_beta 0.7 "
                    "-drop_shape_spacing 1 "
                    "-gravity 0,0,0 -colliders none -pbd_iterations 1";
  TestSim t;
  PetscReal *x, *v, *g, h = 0.01;
  const PetscScalar *mass;
  PetscInt nv;
  CHECK_PETSC(TestSimCreate("drop", "pbd", box, &t));
  nv = t.model->nv;
  ck_assert_int_eq(nv, 27);
  CHECK_PETSC(PetscMalloc1(3 * nv, &g));
  CHECK_PETSC(VecGetArray(t.model->x, &x));
  for (PetscInt i = 0; i < 3 * nv; i++) x[i] = 1.2 * x[i] + 0.02 * PetscSinReal(4.3 * i);
  { /* the goals at the deformed state, from the term (the model's last term) */
    SimEnergy term = t.model->term[t.model->nterms - 1];
    PetscReal p[3 * NG], c[3] = {0, 0, 0}, M = 0;
    ck_assert_str_eq(term->name, "shape_matching");
    CHECK_PETSC(VecGetArrayRead(t.model->mass, &mass));
    for (PetscInt i = 0; i < nv; i++) M += mass[3 * i];
    for (PetscInt i = 0; i < nv; i++)
      for (int k = 0; k < 3; k++) c[k] += mass[3 * i] / M * x[3 * i + k];
    CHECK_PETSC(term->ops.pd_project(term, x, p));
    for (PetscInt i = 0; i < nv; i++)
      for (int k = 0; k < 3; k++) g[3 * i + k] = c[k] + p[3 * i + k] / PetscSqrtReal(mass[3 * i] / M);
    CHECK_PETSC(VecRestoreArrayRead(t.model->mass, &mass));
  }
  CHECK_PETSC(VecRestoreArray(t.model->x, &x));
  CHECK_PETSC(SimSolverStep(t.solver, h, NULL));
  {
    PetscReal gap = 0, P[3] = {0, 0, 0}, L[3] = {0, 0, 0}, vmax = 0;
    CHECK_PETSC(VecGetArray(t.model->x, &x));
    CHECK_PETSC(VecGetArray(t.model->v, &v));
    CHECK_PETSC(VecGetArrayRead(t.model->mass, &mass));
    for (PetscInt i = 0; i < nv; i++) {
      const PetscReal mi = mass[3 * i], *xi = x + 3 * i, *vi = v + 3 * i;
      for (int k = 0; k < 3; k++)
        gap = PetscMax(gap, PetscAbsReal(xi[k] - g[3 * i + k])), P[k] += mi * vi[k],
        vmax = PetscMax(vmax, mi * PetscAbsReal(vi[k]));
      L[0] += mi * (xi[1] * vi[2] - xi[2] * vi[1]), L[1] += mi * (xi[2] * vi[0] - xi[0] * vi[2]),
          L[2] += mi * (xi[0] * vi[1] - xi[1] * vi[0]);
    }
    ck_assert_msg(gap < 1e-12, "one PBD step left the positions %g from the goals", (double)gap);
    ck_assert_msg(vmax > 1e-3, "the step moved nothing (largest |m v| %g)", (double)vmax);
    for (int k = 0; k < 3; k++)
      ck_assert_msg(PetscAbsReal(P[k]) < 1e-12 * vmax && PetscAbsReal(L[k]) < 1e-12 * vmax, "momentum (%g, %g) after the step",
                    (double)P[k], (double)L[k]);
    CHECK_PETSC(VecRestoreArrayRead(t.model->mass, &mass));
    CHECK_PETSC(VecRestoreArray(t.model->v, &v));
    CHECK_PETSC(VecRestoreArray(t.model->x, &x));
  }
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(PetscFree(g));

  CHECK_PETSC(TestSimCreate("drop", "xpbd",
                            "-drop_n 3 -drop_size 0.3 -drop_elastic 0 -drop_shape 1e3 -gravity 0,0,0 -colliders none", &t));
  {
    PetscReal P0[3] = {0, 0, 0}, P[3] = {0, 0, 0}, vmax = 0;
    nv = t.model->nv;
    CHECK_PETSC(VecGetArray(t.model->v, &v));
    CHECK_PETSC(VecGetArrayRead(t.model->mass, &mass));
    for (PetscInt i = 0; i < 3 * nv; i++)
      v[i] = PetscSinReal(2.9 * i), P0[i % 3] += mass[i] * v[i], vmax = PetscMax(vmax, mass[i]);
    CHECK_PETSC(VecRestoreArrayRead(t.model->mass, &mass));
    CHECK_PETSC(VecRestoreArray(t.model->v, &v));
    for (int s = 0; s < 5; s++) CHECK_PETSC(SimSolverStep(t.solver, 0.01, NULL));
    CHECK_PETSC(VecGetArray(t.model->v, &v));
    CHECK_PETSC(VecGetArrayRead(t.model->mass, &mass));
    for (PetscInt i = 0; i < 3 * nv; i++) P[i % 3] += mass[i] * v[i];
    CHECK_PETSC(VecRestoreArrayRead(t.model->mass, &mass));
    CHECK_PETSC(VecRestoreArray(t.model->v, &v));
    for (int k = 0; k < 3; k++)
      ck_assert_msg(PetscAbsReal(P[k] - P0[k]) < 1e-12 * vmax * nv, "XPBD with tet clusters: momentum %g -> %g", (double)P0[k],
                    (double)P[k]);
  }
  CHECK_PETSC(TestSimDestroy(&t));
}
END_TEST

/* A cluster that cannot determine its fit is refused with a message that says why. */
START_TEST(bad_clusters)
{
  const PetscReal plane[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, m[4] = {1, 1, 1, 1};
  const PetscInt four[4] = {0, 1, 2, 3};
  PetscReal x0[3 * NG], mg[NG];
  PetscInt all[NG];
  const struct {
    PetscInt n, mode;
    const char *expect;
  } cases[] = {{4, SIM_SHAPE_LINEAR, "coplanar"},
               {3, SIM_SHAPE_LINEAR, "needs at least 4"},
               {4, SIM_SHAPE_QUADRATIC, "needs at least 10"},
               {NG, SIM_SHAPE_QUADRATIC, "common quadric"}};
  Block(x0, mg);
  for (PetscInt i = 0; i < NG; i++) all[i] = i, x0[3 * i + 2] = 0; /* flattened: every point on the plane z = 0 */
  for (int c = 0; c < 4; c++) {
    SimEnergy term = NULL;
    TestErrorCapture cap = {{0}};
    PetscErrorCode ierr;
    CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
    if (c < 3)
      ierr = SimShapeMatchingCreate("shape", 4, plane, m, 1, cases[c].n, four, cases[c].mode, 0.5, 1e3, &term);
    else
      ierr = SimShapeMatchingCreate("shape", NG, x0, mg, 1, NG, all, cases[c].mode, 0.5, 1e3, &term);
    CHECK_PETSC(PetscPopErrorHandler());
    ck_assert_msg(ierr != 0 && strstr(cap.msg, cases[c].expect), "case %d: message '%s' (expected '%s')", c, cap.msg,
                  cases[c].expect);
    CHECK_PETSC(SimEnergyDestroy(&term));
  }
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("shape_matching");
  TCase *tc = tcase_create("shape_matching");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, rigid_motion_is_a_fixed_point);
  tcase_add_test(tc, projection_keeps_momentum);
  tcase_add_test(tc, pbd_step_reaches_the_goals);
  tcase_add_test(tc, bad_clusters);
  suite_add_tcase(s, tc);
  return s;
}
