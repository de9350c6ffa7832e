/* Energy terms against finite differences: springs (stretched and compressed), spring damping,
 * gravity, plane and sphere colliders; exact PSD projection checked with GSL eigenvalues. */
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include "testing.h"
#include "framework/model/model.h"
#include "energies/springs.h"
#include "energies/energies.h"
#include "energies/attachments.h"
#include "energies/triangles.h"
#include "energies/bending.h"

#define NV 6

/* A model of NV vertices at random positions (fixed seed) with random velocities, masses 1..2. */
static PetscErrorCode RandomModel(unsigned long seed, SimModel *m, PetscReal *x, PetscReal *v)
{
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, seed));
  PetscCall(PetscRandomSeed(rnd));
  for (int k = 0; k < 3 * NV; k++) {
    PetscCall(PetscRandomGetValueReal(rnd, &x[k]));
    PetscCall(PetscRandomGetValueReal(rnd, &v[k]));
    v[k] -= 0.5;
  }
  PetscCall(SimModelCreate(PETSC_COMM_SELF, m));
  PetscCall(SimModelSetVertices(*m, NV, x));
  for (int i = 0; i < NV; i++) {
    PetscReal r;
    PetscCall(PetscRandomGetValueReal(rnd, &r));
    PetscCall(SimModelSetVertexMass(*m, i, 1 + r));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* All pairs as springs; rest = scale * current length, so scale > 1 compresses every spring. */
static PetscErrorCode AddAllSprings(SimModel m, const PetscReal *x, PetscReal scale, PetscBool damping)
{
  PetscInt pair[2 * NV * NV], n = 0;
  PetscReal rest[NV * NV], k[NV * NV];
  SimEnergy term;

  PetscFunctionBeginUser;
  for (int i = 0; i < NV; i++)
    for (int j = i + 1; j < NV; j++) {
      PetscReal d[3] = {x[3 * i] - x[3 * j], x[3 * i + 1] - x[3 * j + 1], x[3 * i + 2] - x[3 * j + 2]};
      pair[2 * n] = i, pair[2 * n + 1] = j;
      rest[n] = scale * PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * (n % 2 ? 1.1 : 0.9);
      k[n] = 10 + n;
      n++;
    }
  PetscCall(SimSpringsCreate("spring", n, pair, rest, k, &term));
  PetscCall(SimModelAddTerm(m, term));
  if (damping) {
    PetscCall(SimSpringDampingCreate("spring_damping", n, pair, k, &term));
    PetscCall(SimModelAddTerm(m, term));
  }
  PetscFunctionReturn(0);
}

/* Dense copy of the assembled Hessian (cM = 0) of one kind of term. */
static PetscErrorCode DenseHessian(SimModel m, SimEnergyKind kind, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *Hd)
{
  Mat H;

  PetscFunctionBeginUser;
  PetscCall(SimModelHessianCreate(m, &H));
  PetscCall(SimModelHessianAssemble(m, x, x, v, 0.0, kind == SIM_ENERGY_POTENTIAL ? 1.0 : 0.0,
                                    kind == SIM_ENERGY_DISSIPATION ? 1.0 : 0.0, psd, H));
  for (PetscInt r = 0; r < 3 * NV; r++)
    for (PetscInt c = 0; c < 3 * NV; c++) PetscCall(MatGetValue(H, r, c, &Hd[r * 3 * NV + c]));
  PetscCall(MatDestroy(&H));
  PetscFunctionReturn(0);
}

/* Central differences: gradient of the value and Hessian from the gradient, with respect to x for
 * potentials and to v for dissipation. Returns the largest relative errors. */
static PetscErrorCode FDCheck(SimModel m, SimEnergyKind kind, const PetscReal *x0, const PetscReal *v0, PetscReal *gerr, PetscReal *herr)
{
  const PetscInt n = 3 * NV;
  PetscReal x[3 * NV], v[3 * NV], g[3 * NV], gp[3 * NV], gm[3 * NV], Hd[9 * NV * NV], eps = 1e-6;
  PetscReal gscale = 0, hscale = 0, gmax = 0, hmax = 0;
  PetscBool wrt_v = (PetscBool)(kind == SIM_ENERGY_DISSIPATION);

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(x, x0, n));
  PetscCall(PetscArraycpy(v, v0, n));
  PetscCall(SimModelGradient(m, kind, x, v, g));
  PetscCall(DenseHessian(m, kind, x, v, PETSC_FALSE, Hd));
  for (PetscInt k = 0; k < n; k++) gscale = PetscMax(gscale, PetscAbsReal(g[k]));
  for (PetscInt k = 0; k < n * n; k++) hscale = PetscMax(hscale, PetscAbsReal(Hd[k]));
  for (PetscInt k = 0; k < n; k++) {
    PetscReal *z = wrt_v ? v : x, save = z[k], Ep, Em;
    z[k] = save + eps;
    PetscCall(SimModelEnergy(m, kind, x, v, &Ep));
    PetscCall(SimModelGradient(m, kind, x, v, gp));
    z[k] = save - eps;
    PetscCall(SimModelEnergy(m, kind, x, v, &Em));
    PetscCall(SimModelGradient(m, kind, x, v, gm));
    z[k] = save;
    gmax = PetscMax(gmax, PetscAbsReal((Ep - Em) / (2 * eps) - g[k]));
    for (PetscInt r = 0; r < n; r++) hmax = PetscMax(hmax, PetscAbsReal((gp[r] - gm[r]) / (2 * eps) - Hd[r * n + k]));
  }
  *gerr = gmax / PetscMax(gscale, 1e-12);
  *herr = hmax / PetscMax(hscale, 1e-12);
  PetscFunctionReturn(0);
}

static PetscReal MinEigenvalue(PetscReal *Hd, PetscInt n)
{
  gsl_matrix_view A = gsl_matrix_view_array(Hd, n, n);
  gsl_vector *eval = gsl_vector_alloc(n);
  gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(n);
  PetscReal lo;
  gsl_eigen_symm(&A.matrix, eval, w);
  lo = gsl_vector_min(eval);
  gsl_eigen_symm_free(w);
  gsl_vector_free(eval);
  return lo;
}

static void CheckSprings(PetscReal scale)
{
  SimModel m;
  PetscReal x[3 * NV], v[3 * NV], gerr, herr, Hd[9 * NV * NV], Hp[9 * NV * NV];

  CHECK_PETSC(RandomModel(7, &m, x, v));
  CHECK_PETSC(AddAllSprings(m, x, scale, PETSC_TRUE));
  CHECK_PETSC(SimModelFinalize(m));
  CHECK_PETSC(FDCheck(m, SIM_ENERGY_POTENTIAL, x, v, &gerr, &herr));
  ck_assert_msg(gerr < 1e-6 && herr < 1e-6, "springs (rest scale %g): gradient error %g, Hessian error %g", scale, gerr, herr);
  CHECK_PETSC(FDCheck(m, SIM_ENERGY_DISSIPATION, x, v, &gerr, &herr));
  ck_assert_msg(gerr < 1e-6 && herr < 1e-6, "spring damping: gradient error %g, Hessian error %g", gerr, herr);
  /* the projected Hessian is PSD; with every spring compressed the true one is not */
  CHECK_PETSC(DenseHessian(m, SIM_ENERGY_POTENTIAL, x, v, PETSC_TRUE, Hp));
  ck_assert_msg(MinEigenvalue(Hp, 3 * NV) > -1e-9, "projected spring Hessian has a negative eigenvalue");
  CHECK_PETSC(DenseHessian(m, SIM_ENERGY_POTENTIAL, x, v, PETSC_FALSE, Hd));
  if (scale > 1) ck_assert_msg(MinEigenvalue(Hd, 3 * NV) < -1e-3, "compressed springs should have an indefinite Hessian");
  CHECK_PETSC(SimModelDestroy(&m));
}

START_TEST(springs_stretched)
{
  CheckSprings(0.5);
}
END_TEST

START_TEST(springs_compressed)
{
  CheckSprings(2.0);
}
END_TEST

/* For one spring the projection is exact: the projected Hessian equals the eigen-clamped true one. */
START_TEST(spring_projection_is_eigen_clamp)
{
  SimModel m;
  PetscReal x[3 * NV], v[3 * NV], Hd[9 * NV * NV], Hp[9 * NV * NV], err = 0;
  PetscInt pair[2] = {0, 1};
  PetscReal rest = 3.0, k = 5.0;
  SimEnergy term;
  gsl_matrix *Q;
  gsl_vector *eval;
  gsl_eigen_symmv_workspace *w;
  const PetscInt n = 3 * NV;

  CHECK_PETSC(RandomModel(3, &m, x, v));
  CHECK_PETSC(SimSpringsCreate("spring", 1, pair, &rest, &k, &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimModelFinalize(m));
  CHECK_PETSC(DenseHessian(m, SIM_ENERGY_POTENTIAL, x, v, PETSC_FALSE, Hd));
  CHECK_PETSC(DenseHessian(m, SIM_ENERGY_POTENTIAL, x, v, PETSC_TRUE, Hp));
  /* clamp the eigenvalues of the true Hessian with GSL and compare */
  Q = gsl_matrix_alloc(n, n);
  eval = gsl_vector_alloc(n);
  w = gsl_eigen_symmv_alloc(n);
  {
    gsl_matrix_view A = gsl_matrix_view_array(Hd, n, n);
    gsl_eigen_symmv(&A.matrix, eval, Q, w);
  }
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt c = 0; c < n; c++) {
      PetscReal s = 0;
      for (PetscInt e = 0; e < n; e++) s += gsl_matrix_get(Q, r, e) * PetscMax(gsl_vector_get(eval, e), 0.0) * gsl_matrix_get(Q, c, e);
      err = PetscMax(err, PetscAbsReal(s - Hp[r * n + c]));
    }
  ck_assert_msg(err < 1e-10 * k, "projected spring Hessian differs from the eigen-clamped one by %g", err);
  gsl_eigen_symmv_free(w);
  gsl_vector_free(eval);
  gsl_matrix_free(Q);
  CHECK_PETSC(SimModelDestroy(&m));
}
END_TEST

/* The one-rank CSR assembly of springs and spring damping through their hessian_add (the blocks
 * added straight into the matrix) against the same assembly through `hessian` (a block array the
 * model scatters): the same values in the same order, so bit-identical, exact and projected, with
 * half the springs compressed and a pinned vertex. */
START_TEST(springs_hessian_add_is_bit_identical)
{
  SimModel m;
  PetscReal x[3 * NV], v[3 * NV];

  CHECK_PETSC(RandomModel(11, &m, x, v));
  CHECK_PETSC(AddAllSprings(m, x, 1.0, PETSC_TRUE));
  CHECK_PETSC(SimModelPin(m, 2, "test"));
  CHECK_PETSC(SimModelFinalize(m));
  for (PetscInt k = 0; k < 3 * NV; k++) x[k] += 0.05 * PetscSinReal(1.0 + k); /* off the rest state */
  for (int psd = 0; psd < 2; psd++) {
    Mat A, B;
    const PetscScalar *a, *b;
    PetscInt nnz;
    PetscBool same;
    MatInfo info;
    const SimEnergyOps ops[2] = {m->term[0]->ops, m->term[1]->ops};

    ck_assert_msg(ops[0].hessian_add && ops[1].hessian_add, "springs and spring damping have hessian_add");
    CHECK_PETSC(SimModelHessianCreate(m, &A));
    CHECK_PETSC(SimModelHessianCreate(m, &B));
    CHECK_PETSC(SimModelHessianAssemble(m, x, x, v, 2.0, 3.0, 0.7, (PetscBool)psd, A));
    ck_assert_int_eq(m->csr_version, m->pattern_version + 1); /* the CSR path was taken */
    m->term[0]->ops.hessian_add = m->term[1]->ops.hessian_add = NULL;
    CHECK_PETSC(SimModelHessianAssemble(m, x, x, v, 2.0, 3.0, 0.7, (PetscBool)psd, B));
    m->term[0]->ops = ops[0], m->term[1]->ops = ops[1];
    CHECK_PETSC(MatGetInfo(A, MAT_LOCAL, &info));
    nnz = (PetscInt)info.nz_used;
    CHECK_PETSC(MatSeqAIJGetArrayRead(A, &a));
    CHECK_PETSC(MatSeqAIJGetArrayRead(B, &b));
    CHECK_PETSC(PetscArraycmp(a, b, nnz, &same));
    ck_assert_msg(same, "psd %d: the springs' hessian_add and hessian assemblies differ", psd);
    CHECK_PETSC(MatSeqAIJRestoreArrayRead(A, &a));
    CHECK_PETSC(MatSeqAIJRestoreArrayRead(B, &b));
    CHECK_PETSC(MatDestroy(&A));
    CHECK_PETSC(MatDestroy(&B));
  }
  CHECK_PETSC(SimModelDestroy(&m));
}
END_TEST

/* Gravity, a tilted plane and a sphere with vertices inside both. */
START_TEST(colliders_and_gravity)
{
  SimModel m;
  SimEnergy term;
  PetscReal x[3 * NV], v[3 * NV], gerr, herr, Hp[9 * NV * NV];

  CHECK_PETSC(TestSetOptions("-gravity 0.3,-9.81,0.1 -plane_point 0,0.5,0 -plane_normal 0.2,1,0.1 -plane_stiffness 100 "
                             "-sphere_center 0.5,0.5,0.5 -sphere_radius 0.4 -sphere_stiffness 50"));
  CHECK_PETSC(RandomModel(11, &m, x, v));
  CHECK_PETSC(VecAssemblyBegin(m->mass));
  CHECK_PETSC(VecAssemblyEnd(m->mass));
  CHECK_PETSC(SimEnergyCreate_Gravity(m, NULL, &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimEnergyCreate_Plane(m, "plane_", &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimEnergyCreate_Sphere(m, "sphere_", &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimModelFinalize(m));
  {
    PetscReal E;
    CHECK_PETSC(SimModelEnergy(m, SIM_ENERGY_POTENTIAL, x, v, &E));
    ck_assert_msg(PetscIsNormalReal(E), "energy not finite");
  }
  CHECK_PETSC(FDCheck(m, SIM_ENERGY_POTENTIAL, x, v, &gerr, &herr));
  ck_assert_msg(gerr < 1e-6 && herr < 1e-5, "gravity+colliders: gradient error %g, Hessian error %g", gerr, herr);
  CHECK_PETSC(DenseHessian(m, SIM_ENERGY_POTENTIAL, x, v, PETSC_TRUE, Hp));
  ck_assert_msg(MinEigenvalue(Hp, 3 * NV) > -1e-9, "projected collider Hessian has a negative eigenvalue");
  CHECK_PETSC(SimModelDestroy(&m));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* Gravity's gradient is -m g exactly; a tilted plane pushes a vertex below it out along its normal
 * with the force k * depth and leaves the others alone; a sphere pushes a vertex inside it outward
 * along the radius with k (r - |x - c|). The PD projection puts a penetrating vertex on the surface,
 * on the free side. */
START_TEST(gravity_and_plane_values)
{
  SimModel m;
  SimEnergy term, plane, sphere;
  PetscReal x[3 * NV], v[3 * NV], g[3 * NV], p[3 * NV];
  const PetscReal n[3] = {0.6, 0.8, 0}, c[3] = {0.5, 0.5, 0.5}, kp = 100, ks = 50, r = 0.4;
  const PetscScalar *mass;
  PetscInt below = 0, above = 0, inside = 0, outside = 0;

  CHECK_PETSC(TestSetOptions("-gravity 0,-9.81,0 -plane_point 0,0.5,0 -plane_normal 3,4,0 -plane_stiffness 100 "
                             "-sphere_center 0.5,0.5,0.5 -sphere_radius 0.4 -sphere_stiffness 50"));
  CHECK_PETSC(RandomModel(5, &m, x, v));
  CHECK_PETSC(VecAssemblyBegin(m->mass));
  CHECK_PETSC(VecAssemblyEnd(m->mass));
  CHECK_PETSC(SimEnergyCreate_Gravity(m, NULL, &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimModelFinalize(m));
  CHECK_PETSC(SimModelGradient(m, SIM_ENERGY_POTENTIAL, x, v, g));
  CHECK_PETSC(VecGetArrayRead(m->mass, &mass));
  for (int i = 0; i < NV; i++) {
    ck_assert_double_eq_tol(g[3 * i + 1], 9.81 * mass[3 * i], 1e-12);
    ck_assert_double_eq_tol(g[3 * i], 0, 1e-15);
  }
  CHECK_PETSC(VecRestoreArrayRead(m->mass, &mass));

  CHECK_PETSC(SimEnergyCreate_Plane(m, "plane_", &plane));
  CHECK_PETSC(SimEnergyCreate_Sphere(m, "sphere_", &sphere));
  /* the plane: signed distance phi = (x - (0, 0.5, 0)).n, force -dE/dx = -k min(0, phi) n */
  CHECK_PETSC(PetscArrayzero(g, 3 * NV));
  CHECK_PETSC(plane->ops.gradient(plane, x, v, g));
  CHECK_PETSC(plane->ops.pd_project(plane, x, p));
  for (int i = 0; i < NV; i++) {
    const PetscReal *xi = x + 3 * i, phi = xi[0] * n[0] + (xi[1] - 0.5) * n[1] + xi[2] * n[2];
    for (int d = 0; d < 3; d++) {
      const PetscReal f = -g[3 * i + d];
      if (phi < 0)
        ck_assert_msg(PetscAbsReal(f - kp * (-phi) * n[d]) < 1e-12,
                      "plane: vertex %d at depth %g gets force[%d] = %g, expected %g (out along the normal)", i, (double)-phi, d,
                      (double)f, (double)(kp * -phi * n[d]));
      else
        ck_assert_msg(f == 0, "plane: vertex %d on the free side (phi = %g) gets force[%d] = %g", i, (double)phi, d, (double)f);
      ck_assert_msg(PetscAbsReal(p[3 * i + d] - (xi[d] - PetscMin(phi, 0) * n[d])) < 1e-14, "plane: PD projection of vertex %d",
                    i);
    }
    if (phi < 0)
      below++;
    else
      above++;
  }
  ck_assert_msg(below > 0 && above > 0, "the random vertices should lie on both sides of the plane (%d below, %d above)",
                (int)below, (int)above);
  /* the sphere: phi = |x - c| - r, force k (r - |x - c|) (x - c)/|x - c| inside */
  CHECK_PETSC(PetscArrayzero(g, 3 * NV));
  CHECK_PETSC(sphere->ops.gradient(sphere, x, v, g));
  CHECK_PETSC(sphere->ops.pd_project(sphere, x, p));
  for (int i = 0; i < NV; i++) {
    const PetscReal *xi = x + 3 * i, dx[3] = {xi[0] - c[0], xi[1] - c[1], xi[2] - c[2]};
    const PetscReal dist = PetscSqrtReal(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]), phi = dist - r;
    for (int d = 0; d < 3; d++) {
      const PetscReal f = -g[3 * i + d];
      if (phi < 0)
        ck_assert_msg(PetscAbsReal(f - ks * (r - dist) * dx[d] / dist) < 1e-12,
                      "sphere: vertex %d at depth %g gets force[%d] = %g, expected %g (outward)", i, (double)-phi, d, (double)f,
                      (double)(ks * (r - dist) * dx[d] / dist));
      else
        ck_assert_msg(f == 0, "sphere: vertex %d outside (phi = %g) gets force[%d] = %g", i, (double)phi, d, (double)f);
      ck_assert_msg(PetscAbsReal(p[3 * i + d] - (phi < 0 ? c[d] + r * dx[d] / dist : xi[d])) < 1e-14,
                    "sphere: PD projection of vertex %d", i);
    }
    if (phi < 0)
      inside++;
    else
      outside++;
  }
  ck_assert_msg(inside > 0 && outside > 0, "the random vertices should lie inside and outside the sphere (%d inside, %d outside)",
                (int)inside, (int)outside);
  CHECK_PETSC(SimEnergyDestroy(&plane));
  CHECK_PETSC(SimEnergyDestroy(&sphere));
  CHECK_PETSC(SimModelDestroy(&m));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* The projective-dynamics form of a term (energy.h): sum_c w_c/2 |A_c x_c - p_c(x)|^2 over every
 * constraint, which must equal the term's value exactly (inactive collider constraints project
 * onto themselves and add 0). */
static PetscErrorCode PDEnergy(SimEnergy e, const PetscReal *x, PetscReal *E)
{
  PetscInt nc, nv, nr;
  PetscInt *vert;
  PetscReal *A, *w, *p, sum = 0;

  PetscFunctionBeginUser;
  PetscCall(e->ops.pd_count(e, &nc, &nv, &nr));
  PetscCall(PetscMalloc4(nc * nv, &vert, nc * nr * nv, &A, nc, &w, 3 * nc * nr, &p));
  PetscCall(e->ops.pd_stencil(e, vert, A, w));
  PetscCall(e->ops.pd_project(e, x, p));
  for (PetscInt c = 0; c < nc; c++)
    for (PetscInt r = 0; r < nr; r++)
      for (int k = 0; k < 3; k++) {
        PetscReal ax = 0;
        for (PetscInt a = 0; a < nv; a++) ax += A[(c * nr + r) * nv + a] * x[3 * vert[c * nv + a] + k];
        sum += 0.5 * w[c] * (ax - p[3 * (c * nr + r) + k]) * (ax - p[3 * (c * nr + r) + k]);
      }
  *E = sum;
  PetscCall(PetscFree4(vert, A, w, p));
  PetscFunctionReturn(0);
}

/* Attachments against finite differences, and the PD form of every term that has one equal to its
 * value: springs (stretched and compressed), attachments, plane and sphere colliders with some
 * vertices inside. pd_active marks exactly the penetrating vertices. */
START_TEST(attachments_and_pd_forms)
{
  SimModel m;
  SimEnergy term;
  PetscReal x[3 * NV], v[3 * NV], gerr, herr, target[3 * NV], k[NV];
  PetscInt vert[NV];

  CHECK_PETSC(TestSetOptions("-plane_point 0,0.5,0 -plane_normal 0.2,1,0.1 -plane_stiffness 100 "
                             "-sphere_center 0.5,0.5,0.5 -sphere_radius 0.4 -sphere_stiffness 50"));
  CHECK_PETSC(RandomModel(13, &m, x, v));
  for (int i = 0; i < NV; i++) {
    vert[i] = (i + 2) % NV, k[i] = 10 + i;
    for (int d = 0; d < 3; d++) target[3 * i + d] = 0.1 * (i + d);
  }
  CHECK_PETSC(SimAttachmentsCreate("attachment", NV, 4, vert, target, k, &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimModelFinalize(m));
  CHECK_PETSC(FDCheck(m, SIM_ENERGY_POTENTIAL, x, v, &gerr, &herr));
  ck_assert_msg(gerr < 1e-6 && herr < 1e-6, "attachments: gradient error %g, Hessian error %g", gerr, herr);
  CHECK_PETSC(SimModelDestroy(&m));
  CHECK_PETSC(RandomModel(13, &m, x, v));
  CHECK_PETSC(SimAttachmentsCreate("attachment", NV, 4, vert, target, k, &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(AddAllSprings(m, x, 0.9, PETSC_FALSE));
  CHECK_PETSC(SimEnergyCreate_Plane(m, "plane_", &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimEnergyCreate_Sphere(m, "sphere_", &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimModelFinalize(m));
  for (PetscInt t = 0; t < m->nterms; t++) {
    PetscReal E, Epd;
    SimEnergy e = m->term[t];
    ck_assert_msg(e->ops.pd_count != NULL, "term '%s' has no PD form", e->name);
    CHECK_PETSC(e->ops.value(e, x, v, &E));
    CHECK_PETSC(PDEnergy(e, x, &Epd));
    ck_assert_msg(E > 0, "term '%s': the test configuration gives it no energy", e->name);
    ck_assert_msg(PetscAbsReal(E - Epd) <= 1e-13 * E, "term '%s': value %.17g, PD form %.17g", e->name, E, Epd);
    if (e->ops.pd_active) {
      PetscBool active[NV] = {PETSC_FALSE};
      PetscInt nactive = 0;
      CHECK_PETSC(e->ops.pd_active(e, x, active));
      for (int i = 0; i < NV; i++) {
        PetscReal grad[3 * NV] = {0};
        CHECK_PETSC(e->ops.gradient(e, x, v, grad));
        nactive += active[i];
        ck_assert_msg(active[i] == (grad[3 * i] != 0 || grad[3 * i + 1] != 0 || grad[3 * i + 2] != 0),
                      "term '%s', vertex %d: active %d disagrees with its force", e->name, i, (int)active[i]);
      }
      ck_assert_msg(nactive > 0 && nactive < NV, "term '%s': %d of %d vertices active; the test wants some of each", e->name,
                    (int)nactive, NV);
    }
  }
  CHECK_PETSC(SimModelDestroy(&m));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* Triangle strain and quadratic bending on a flat 3 x 2 grid (NV = 6 vertices, 4 triangles, 3
 * interior edges) at a random deformed state: derivatives against finite differences, the
 * projected Hessian PSD, the PD forms equal to the values, the bending zero on any flat placement
 * (a rigid motion of the rest state) and the membrane zero on a rigid motion. */
START_TEST(triangles_and_bending)
{
  SimModel m;
  SimEnergy term;
  const PetscInt tri[12] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4};
  PetscReal rest[3 * NV], x[3 * NV], v[3 * NV] = {0}, gerr, herr, Hp[9 * NV * NV], rigid[3 * NV];
  PetscRandom rnd;

  for (int j = 0; j < 2; j++)
    for (int i = 0; i < 3; i++) {
      PetscReal *p = rest + 3 * (3 * j + i);
      p[0] = 0.3 * i + 0.05 * j, p[1] = 0.1, p[2] = 0.25 * j;
    }
  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 21));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (int k = 0; k < 3 * NV; k++) {
    PetscReal r;
    CHECK_PETSC(PetscRandomGetValueReal(rnd, &r));
    x[k] = rest[k] + 0.1 * (r - 0.5);
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
  /* a rotation about (1, 2, 2)/3 by 0.7 rad and a shift */
  {
    const PetscReal a[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, c = PetscCosReal(0.7), sn = PetscSinReal(0.7);
    for (int i = 0; i < NV; i++) {
      const PetscReal *p = rest + 3 * i;
      const PetscReal d = a[0] * p[0] + a[1] * p[1] + a[2] * p[2];
      const PetscReal cr[3] = {a[1] * p[2] - a[2] * p[1], a[2] * p[0] - a[0] * p[2], a[0] * p[1] - a[1] * p[0]};
      for (int k = 0; k < 3; k++) rigid[3 * i + k] = p[k] * c + cr[k] * sn + a[k] * d * (1 - c) + 0.3 * (k + 1);
    }
  }
  CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &m));
  CHECK_PETSC(SimModelSetVertices(m, NV, rest));
  for (int i = 0; i < NV; i++) CHECK_PETSC(SimModelSetVertexMass(m, i, 1));
  CHECK_PETSC(SimTrianglesCreate("triangles", NV, rest, 4, tri, 30, &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimBendingCreate("bending", NV, rest, 4, tri, 0.5, &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimModelFinalize(m));
  CHECK_PETSC(FDCheck(m, SIM_ENERGY_POTENTIAL, x, v, &gerr, &herr));
  ck_assert_msg(gerr < 1e-6 && herr < 1e-6, "triangles + bending: gradient error %g, Hessian error %g", gerr, herr);
  CHECK_PETSC(DenseHessian(m, SIM_ENERGY_POTENTIAL, x, v, PETSC_TRUE, Hp));
  ck_assert_msg(MinEigenvalue(Hp, 3 * NV) > -1e-9, "projected triangle/bending Hessian has a negative eigenvalue");
  for (PetscInt t = 0; t < m->nterms; t++) {
    SimEnergy e = m->term[t];
    PetscReal E, Epd, Er;
    PetscInt nc, nvert, nrows;
    CHECK_PETSC(e->ops.value(e, x, v, &E));
    CHECK_PETSC(PDEnergy(e, x, &Epd));
    ck_assert_msg(E > 0 && PetscAbsReal(E - Epd) <= 1e-13 * E, "term '%s': value %.17g, PD form %.17g", e->name, E, Epd);
    CHECK_PETSC(e->ops.value(e, rigid, v, &Er));
    ck_assert_msg(PetscAbsReal(Er) < 1e-12 * E, "term '%s': energy %g after a rigid motion of the rest state", e->name, Er);
    CHECK_PETSC(e->ops.pd_count(e, &nc, &nvert, &nrows));
    ck_assert_msg(nc == (t == 0 ? 4 : 3), "term '%s': %d constraints", e->name, (int)nc);
  }
  CHECK_PETSC(SimModelDestroy(&m));
}
END_TEST

/* Bad inputs to the model and the springs give errors, not silent garbage. */
START_TEST(bad_inputs)
{
  SimModel m;
  SimEnergy term = NULL;
  PetscReal x[6] = {0, 0, 0, 1, 0, 0}, k = -1, rest = 1;
  PetscInt pair[2] = {0, 1};
  PetscErrorCode ierr;

  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &m));
  CHECK_PETSC(SimModelSetVertices(m, 2, x));
  ierr = SimModelPin(m, 2, "-cloth_pin_vertices");
  ck_assert_msg(ierr != 0, "pinning vertex 2 of 2 must fail");
  ierr = SimSpringsCreate("spring", 1, pair, &rest, &k, &term);
  ck_assert_msg(ierr != 0, "a negative stiffness must fail");
  {
    PetscInt v2 = 2, v0 = 0;
    PetscReal t[3] = {0, 0, 0}, k0 = 0, k1 = 1;
    ierr = SimAttachmentsCreate("attachment", 2, 1, &v2, t, &k1, &term);
    ck_assert_msg(ierr != 0, "attaching vertex 2 of 2 must fail");
    ierr = SimAttachmentsCreate("attachment", 2, 1, &v0, t, &k0, &term);
    ck_assert_msg(ierr != 0, "a zero attachment stiffness must fail");
  }
  {
    /* a degenerate rest triangle, and a bent rest hinge for the quadratic bending */
    const PetscReal line[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0}, bent[12] = {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -1, 0.5};
    const PetscInt t1[3] = {0, 1, 2}, t2[6] = {0, 1, 2, 1, 0, 3};
    ierr = SimTrianglesCreate("triangles", 3, line, 1, t1, 1, &term);
    ck_assert_msg(ierr != 0, "a degenerate rest triangle must fail");
    ierr = SimBendingCreate("bending", 4, bent, 2, t2, 1, &term);
    ck_assert_msg(ierr != 0, "a bent rest hinge must fail");
  }
  CHECK_PETSC(SimModelSetVertexMass(m, 0, 1.0));
  CHECK_PETSC(SimModelSetVertexMass(m, 1, -2.0));
  ierr = SimModelFinalize(m);
  ck_assert_msg(ierr != 0, "a negative mass must fail");
  CHECK_PETSC(PetscPopErrorHandler());
  CHECK_PETSC(SimModelDestroy(&m));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("energy");
  TCase *tc = tcase_create("derivatives");
  tcase_add_test(tc, springs_stretched);
  tcase_add_test(tc, springs_compressed);
  tcase_add_test(tc, spring_projection_is_eigen_clamp);
  tcase_add_test(tc, springs_hessian_add_is_bit_identical);
  tcase_add_test(tc, colliders_and_gravity);
  tcase_add_test(tc, gravity_and_plane_values);
  tcase_add_test(tc, attachments_and_pd_forms);
  tcase_add_test(tc, triangles_and_bending);
  tcase_add_test(tc, bad_inputs);
  suite_add_tcase(s, tc);
  return s;
}
