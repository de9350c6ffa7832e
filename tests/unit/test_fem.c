/* FEM elements: derivatives against finite differences for every material, FEM forces equal FVM
 * forces (Teran et al. 2003), the patch test, and a cantilever against Euler-Bernoulli. */
#include <string.h>
#include "testing.h"
#include "framework/scene.h"
#include "framework/solver.h"
#include "framework/material.h"
#include "framework/mesh/mesh.h"
#include "energies/fem.h"
#include "energies/springs.h"
#include "framework/linalg/vec3.h"

/* A 2x2x2-cell box (27 vertices, 48 tets) with an FEM term of material `name`, at rest positions. */
static PetscErrorCode BoxModel(SimRegistry reg, const char *name, PetscInt cells, SimModel *model, SimEnergy *term)
{
  const PetscInt n[3] = {cells, cells, cells};
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  SimMesh mesh;
  SimMaterial mat;

  PetscFunctionBeginUser;
  PetscCall(SimMeshCreateBox(n, lo, hi, &mesh));
  PetscCall(SimMaterialCreateWithParams(reg, name, 1e5, 0.3, 1000, &mat));
  PetscCall(SimModelCreate(PETSC_COMM_SELF, model));
  PetscCall(SimModelSetVertices(*model, mesh.nv, mesh.xyz));
  PetscCall(SimFEMAddLumpedMass(*model, mesh.xyz, mesh.ntet, mesh.tet, 1000));
  PetscCall(SimFEMCreate("elastic", mesh.nv, mesh.xyz, mesh.ntet, mesh.tet, mat, term));
  PetscCall(SimModelAddTerm(*model, *term));
  PetscCall(SimModelFinalize(*model));
  PetscCall(SimMeshFree(&mesh));
  PetscFunctionReturn(0);
}

/* Positions: rest + a smooth large deformation (no inversion) + a small random jitter. */
static PetscErrorCode Deform(SimModel m, unsigned long seed, PetscReal *x)
{
  const PetscScalar *x0;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecGetArrayRead(m->x, &x0));
  for (PetscInt i = 0; i < m->nv; i++) {
    const PetscReal *p = x0 + 3 * i;
    x[3 * i] = 1.1 * p[0] + 0.2 * p[1] * p[1];
    x[3 * i + 1] = 0.9 * p[1] + 0.1 * PetscSinReal(p[2]);
    x[3 * i + 2] = p[2] + 0.15 * p[0] * p[1];
    for (int d = 0; d < 3; d++) {
      PetscReal r;
      PetscCall(PetscRandomGetValueReal(rnd, &r));
      x[3 * i + d] += 0.01 * (r - 0.5);
    }
  }
  PetscCall(VecRestoreArrayRead(m->x, &x0));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* Max relative error of the gradient (vs central differences of E) and of the Hessian (vs
 * central differences of the gradient), over all DOFs; best over a sweep of steps. */
static PetscErrorCode DerivativeErrors(SimModel m, PetscReal *x, PetscReal *gerr, PetscReal *herr)
{
  const PetscInt n = 3 * m->nv;
  PetscReal *g, *gp, *gm, *H, *v, gs = 0, hs = 0;
  const PetscReal steps[3] = {1e-4, 1e-5, 1e-6};
  Mat A;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc5(n, &g, n, &gp, n, &gm, n * n, &H, n, &v));
  PetscCall(SimModelGradient(m, SIM_ENERGY_POTENTIAL, x, v, g));
  PetscCall(SimModelHessianCreate(m, &A));
  PetscCall(SimModelHessianAssemble(m, x, x, v, 0, 1, 0, PETSC_FALSE, A));
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt c = 0; c < n; c++) PetscCall(MatGetValue(A, r, c, &H[r * n + c]));
  PetscCall(MatDestroy(&A));
  for (PetscInt k = 0; k < n; k++) gs = PetscMax(gs, PetscAbsReal(g[k]));
  for (PetscInt k = 0; k < n * n; k++) hs = PetscMax(hs, PetscAbsReal(H[k]));
  *gerr = *herr = PETSC_MAX_REAL;
  for (int s = 0; s < 3; s++) {
    PetscReal eps = steps[s], ge = 0, he = 0;
    for (PetscInt k = 0; k < n; k++) {
      PetscReal save = x[k], Ep, Em;
      x[k] = save + eps;
      PetscCall(SimModelEnergy(m, SIM_ENERGY_POTENTIAL, x, v, &Ep));
      PetscCall(SimModelGradient(m, SIM_ENERGY_POTENTIAL, x, v, gp));
      x[k] = save - eps;
      PetscCall(SimModelEnergy(m, SIM_ENERGY_POTENTIAL, x, v, &Em));
      PetscCall(SimModelGradient(m, SIM_ENERGY_POTENTIAL, x, v, gm));
      x[k] = save;
      ge = PetscMax(ge, PetscAbsReal((Ep - Em) / (2 * eps) - g[k]));
      for (PetscInt r = 0; r < n; r++) he = PetscMax(he, PetscAbsReal((gp[r] - gm[r]) / (2 * eps) - H[r * n + k]));
    }
    *gerr = PetscMin(*gerr, ge / gs);
    *herr = PetscMin(*herr, he / hs);
  }
  PetscCall(PetscFree5(g, gp, gm, H, v));
  PetscFunctionReturn(0);
}

START_TEST(derivatives_every_material)
{
  SimRegistry reg;
  PetscInt nmat;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &nmat));
  ck_assert_int_ge(nmat, 6);
  for (PetscInt i = 0; i < nmat; i++) {
    const SimRegEntry *e;
    SimModel m;
    SimEnergy term;
    PetscReal *x, gerr, herr;

    CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_MATERIAL, i, &e));
    CHECK_PETSC(BoxModel(reg, e->name, 1, &m, &term));
    CHECK_PETSC(PetscMalloc1(3 * m->nv, &x));
    CHECK_PETSC(Deform(m, 17 + i, x));
    CHECK_PETSC(DerivativeErrors(m, x, &gerr, &herr));
    ck_assert_msg(gerr < 1e-6 && herr < 1e-6, "FEM with %s: gradient error %g, Hessian error %g", e->name, gerr, herr);
    CHECK_PETSC(PetscFree(x));
    CHECK_PETSC(SimModelDestroy(&m));
  }
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* A box of `cells`^3 cells with an FEM term of an existing material (taken over), at rest. */
static PetscErrorCode BoxModelWith(SimMaterial mat, PetscInt cells, SimModel *model, SimEnergy *term)
{
  const PetscInt n[3] = {cells, cells, cells};
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  SimMesh mesh;

  PetscFunctionBeginUser;
  PetscCall(SimMeshCreateBox(n, lo, hi, &mesh));
  PetscCall(SimModelCreate(PETSC_COMM_SELF, model));
  PetscCall(SimModelSetVertices(*model, mesh.nv, mesh.xyz));
  PetscCall(SimFEMAddLumpedMass(*model, mesh.xyz, mesh.ntet, mesh.tet, 1000));
  PetscCall(SimFEMCreate("elastic", mesh.nv, mesh.xyz, mesh.ntet, mesh.tet, mat, term));
  PetscCall(SimModelAddTerm(*model, *term));
  PetscCall(SimModelFinalize(*model));
  PetscCall(SimMeshFree(&mesh));
  PetscFunctionReturn(0);
}

/* Issue 21: a fibre direction per body (-<prefix>hgo_fiber) or per element (material frames).
 * (1) frames that all turn the material's x axis into b equal the body direction b; (2) random
 * per-element frames: gradient and Hessian against finite differences, and FVM forces = -gradient. */
START_TEST(fibre_directions_per_element)
{
  SimRegistry reg;
  SimMaterial a, b, c;
  SimModel ma, mb, mc;
  SimEnergy ta, tb, tc;
  const PetscReal ex[3] = {1, 0, 0}, dir[3] = {1, 2, -0.5};
  const PetscInt ntet = 48; /* 2^3 cells */
  PetscReal bn[3], R[9], *frames, *x, *ga, *gb, *f, *v, Ea, Eb, gerr, herr, scale = 0, diff = 0;
  PetscRandom rnd;

  CHECK_PETSC(TestRegistryCreate(&reg));
  for (int d = 0; d < 3; d++) bn[d] = dir[d] / Vec3Norm(dir);
  Vec3RotationBetween(ex, bn, R);
  CHECK_PETSC(SimMaterialCreateWithParams(reg, "hgo", 1e5, 0.3, 1000, &a)); /* fibre x, frames R */
  CHECK_PETSC(SimMaterialCreateWithParams(reg, "hgo", 1e5, 0.3, 1000, &b)); /* fibre b */
  CHECK_PETSC(SimMaterialCreateWithParams(reg, "hgo", 1e5, 0.3, 1000, &c)); /* random fibres */
  CHECK_PETSC(SimMaterialSetParameter(b, "fiber", 3, bn));
  CHECK_PETSC(BoxModelWith(a, 2, &ma, &ta));
  CHECK_PETSC(BoxModelWith(b, 2, &mb, &tb));
  CHECK_PETSC(BoxModelWith(c, 2, &mc, &tc));
  CHECK_PETSC(PetscMalloc1(9 * ntet, &frames));
  for (PetscInt e = 0; e < ntet; e++) CHECK_PETSC(PetscArraycpy(frames + 9 * e, R, 9));
  CHECK_PETSC(SimFEMSetMaterialFrames(ta, frames));
  CHECK_PETSC(PetscCalloc5(3 * ma->nv, &x, 3 * ma->nv, &ga, 3 * ma->nv, &gb, 3 * ma->nv, &f, 3 * ma->nv, &v));
  CHECK_PETSC(Deform(ma, 23, x));
  CHECK_PETSC(ta->ops.value(ta, x, v, &Ea));
  CHECK_PETSC(tb->ops.value(tb, x, v, &Eb));
  CHECK_PETSC(ta->ops.gradient(ta, x, v, ga));
  CHECK_PETSC(tb->ops.gradient(tb, x, v, gb));
  for (PetscInt k = 0; k < 3 * ma->nv; k++) diff = PetscMax(diff, PetscAbsReal(ga[k] - gb[k])), scale = PetscMax(scale, PetscAbsReal(gb[k]));
  ck_assert_msg(PetscAbsReal(Ea - Eb) < 1e-12 * PetscAbsReal(Eb) && diff < 1e-11 * scale,
                "frames R e_x = b differ from the fibre b: energy %.17g vs %.17g, gradient by %g (scale %g)", Ea, Eb, diff, scale);
  /* random per-element fibres b_e */
  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 8));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (PetscInt e = 0; e < ntet; e++) {
    PetscReal be[3], nb;
    for (int d = 0; d < 3; d++) CHECK_PETSC(PetscRandomGetValueReal(rnd, &be[d])), be[d] = 2 * be[d] - 1;
    nb = Vec3Norm(be);
    for (int d = 0; d < 3; d++) be[d] /= nb;
    Vec3RotationBetween(ex, be, frames + 9 * e);
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
  CHECK_PETSC(SimFEMSetMaterialFrames(tc, frames));
  CHECK_PETSC(DerivativeErrors(mc, x, &gerr, &herr));
  ck_assert_msg(gerr < 1e-6 && herr < 1e-6, "hgo with per-element fibres: gradient error %g, Hessian error %g", gerr, herr);
  CHECK_PETSC(PetscArrayzero(ga, 3 * mc->nv));
  CHECK_PETSC(tc->ops.gradient(tc, x, v, ga));
  CHECK_PETSC(SimFEMForcesFVM(tc, x, f));
  diff = scale = 0;
  for (PetscInt k = 0; k < 3 * mc->nv; k++) diff = PetscMax(diff, PetscAbsReal(f[k] + ga[k])), scale = PetscMax(scale, PetscAbsReal(ga[k]));
  ck_assert_msg(diff < 1e-12 * scale, "FVM forces with material frames differ from -gradient by %g (scale %g)", diff, scale);
  CHECK_PETSC(PetscFree5(x, ga, gb, f, v));
  CHECK_PETSC(PetscFree(frames));
  CHECK_PETSC(SimModelDestroy(&ma));
  CHECK_PETSC(SimModelDestroy(&mb));
  CHECK_PETSC(SimModelDestroy(&mc));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* The FEM term's element Hessians four at a time in AVX registers (SimFEMSetAVX, the default where
 * the CPU has AVX) give bit for bit the scalar code's CSR values, for every material with an
 * analytic eigensystem, exact and projected, on a box of 18 tets (four groups of four and a scalar
 * remainder) deformed mildly and, for the inversion-safe materials, so much that elements invert
 * (the projection then clamps eigenvalues and projects the singular-value Hessian). */
START_TEST(avx_hessian_equals_scalar)
{
  SimRegistry reg;
  PetscInt nmat, ncompared = 0;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &nmat));
  for (PetscInt i = 0; i < nmat; i++)
    for (int rough = 0; rough < 2; rough++) {
      const SimRegEntry *e;
      const PetscInt n[3] = {1, 1, 3};
      const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1.5};
      SimMesh mesh;
      SimMaterial mat;
      SimModel m;
      SimEnergy fem;
      PetscReal *x;
      PetscRandom rnd;

      CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_MATERIAL, i, &e));
      CHECK_PETSC(SimMaterialCreateWithParams(reg, e->name, 1e5, 0.3, 1000, &mat));
      if (!mat->ops.eigensystem || (rough && !mat->inversion_safe)) {
        CHECK_PETSC(SimMaterialDestroy(&mat));
        continue;
      }
      CHECK_PETSC(SimMeshCreateBox(n, lo, hi, &mesh));
      CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &m));
      CHECK_PETSC(SimModelSetVertices(m, mesh.nv, mesh.xyz));
      CHECK_PETSC(SimFEMAddLumpedMass(m, mesh.xyz, mesh.ntet, mesh.tet, 1000));
      CHECK_PETSC(SimFEMCreate("elastic", mesh.nv, mesh.xyz, mesh.ntet, mesh.tet, mat, &fem));
      CHECK_PETSC(SimModelAddTerm(m, fem));
      CHECK_PETSC(SimModelPin(m, 0, "test"));
      CHECK_PETSC(SimModelFinalize(m));
      CHECK_PETSC(PetscCalloc1(3 * m->nv, &x));
      CHECK_PETSC(Deform(m, 3 + i, x));
      CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
      CHECK_PETSC(PetscRandomSetSeed(rnd, 11 + i));
      CHECK_PETSC(PetscRandomSeed(rnd));
      for (PetscInt k = 0; rough && k < 3 * m->nv; k++) {
        PetscReal r;
        CHECK_PETSC(PetscRandomGetValueReal(rnd, &r));
        x[k] += 0.8 * (r - 0.5);
      }
      CHECK_PETSC(PetscRandomDestroy(&rnd));
      for (int psd = 0; psd < 2; psd++) {
        Mat A, B;
        const PetscScalar *a, *b;
        PetscInt nz;
        CHECK_PETSC(SimModelHessianCreate(m, &A));
        CHECK_PETSC(SimModelHessianCreate(m, &B));
        CHECK_PETSC(SimFEMSetAVX(fem, PETSC_TRUE));
        CHECK_PETSC(SimModelHessianAssemble(m, x, x, NULL, 2.0, 3.0, 0.0, (PetscBool)psd, A));
        CHECK_PETSC(SimFEMSetAVX(fem, PETSC_FALSE));
        CHECK_PETSC(SimModelHessianAssemble(m, x, x, NULL, 2.0, 3.0, 0.0, (PetscBool)psd, B));
        ck_assert_int_eq(m->csr_version, m->pattern_version + 1); /* the CSR path (hessian_add) was taken */
        CHECK_PETSC(MatSeqAIJGetArrayRead(A, &a));
        CHECK_PETSC(MatSeqAIJGetArrayRead(B, &b));
        nz = m->csr_nnz;
        ck_assert_msg(!memcmp(a, b, nz * sizeof(PetscScalar)), "material %s (%s), psd %d: AVX and scalar element Hessians differ", e->name,
                      rough ? "inverted elements" : "mild", psd);
        CHECK_PETSC(MatSeqAIJRestoreArrayRead(A, &a));
        CHECK_PETSC(MatSeqAIJRestoreArrayRead(B, &b));
        CHECK_PETSC(MatDestroy(&A));
        CHECK_PETSC(MatDestroy(&B));
        ncompared++;
      }
      CHECK_PETSC(PetscFree(x));
      CHECK_PETSC(SimModelDestroy(&m));
      CHECK_PETSC(SimMeshFree(&mesh));
    }
  ck_assert_msg(ncompared >= 12, "only %d comparisons ran", (int)ncompared);
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* Teran et al. 2003: the FVM force equals -dE/dx for linear tetrahedra. */
/* The one-rank assembly straight into the CSR values (framework/model/hessian.c, the FEM term's
 * element Hessians from the material's eigensystem) against the COO assembly of a fresh matrix (the
 * path every multi-rank assembly takes, forced by coo_only), for every material, exact and
 * projected, on a box with pinned vertices, FEM and spring terms (both through hessian_add) and a
 * damping term: equal to round-off. */
START_TEST(csr_assembly_equals_coo)
{
  SimRegistry reg;
  PetscInt nmat;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &nmat));
  for (PetscInt i = 0; i < nmat; i++) {
    const SimRegEntry *e;
    const PetscInt n[3] = {2, 2, 3};
    const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1.5};
    SimMesh mesh;
    SimMaterial mat;
    SimModel m;
    SimEnergy fem;
    SimSpringList springs = {0};
    PetscReal *x, *v;

    CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_MATERIAL, i, &e));
    CHECK_PETSC(SimMeshCreateBox(n, lo, hi, &mesh));
    CHECK_PETSC(SimMaterialCreateWithParams(reg, e->name, 1e5, 0.3, 1000, &mat));
    CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &m));
    CHECK_PETSC(SimModelSetVertices(m, mesh.nv, mesh.xyz));
    CHECK_PETSC(SimFEMAddLumpedMass(m, mesh.xyz, mesh.ntet, mesh.tet, 1000));
    CHECK_PETSC(SimFEMCreate("elastic", mesh.nv, mesh.xyz, mesh.ntet, mesh.tet, mat, &fem));
    CHECK_PETSC(SimModelAddTerm(m, fem));
    for (PetscInt k = 0; k + 5 < mesh.nv; k += 3) CHECK_PETSC(SimSpringListAdd(&springs, k, k + 5, 100.0 * (k + 1), 0.5));
    CHECK_PETSC(SimSpringListAddToModel(&springs, m, "spring"));
    CHECK_PETSC(SimSpringListFree(&springs));
    CHECK_PETSC(SimModelPin(m, 0, "test"));
    CHECK_PETSC(SimModelPin(m, 4, "test"));
    CHECK_PETSC(SimModelFinalize(m));
    CHECK_PETSC(PetscCalloc2(3 * m->nv, &x, 3 * m->nv, &v));
    CHECK_PETSC(Deform(m, 7 + i, x));
    for (PetscInt k = 0; k < 3 * m->nv; k++) v[k] = 0.1 * PetscSinReal((PetscReal)k);
    for (int psd = 0; psd < 2; psd++) {
      Mat A, B;
      PetscReal diff, scale;
      CHECK_PETSC(SimModelHessianCreate(m, &A));
      CHECK_PETSC(SimModelHessianAssemble(m, x, x, v, 1.0, 1.0, 1.0, (PetscBool)!psd, A)); /* other values first */
      CHECK_PETSC(SimModelHessianAssemble(m, x, x, v, 2.0, 3.0, 0.5, (PetscBool)psd, A));
      ck_assert_int_eq(m->csr_version, m->pattern_version + 1); /* the CSR path was taken */
      m->coo_only = PETSC_TRUE;
      CHECK_PETSC(SimModelHessianCreate(m, &B));
      CHECK_PETSC(SimModelHessianAssemble(m, x, x, v, 2.0, 3.0, 0.5, (PetscBool)psd, B));
      m->coo_only = PETSC_FALSE;
      CHECK_PETSC(MatNorm(B, NORM_MAX, &scale));
      CHECK_PETSC(MatAXPY(A, -1.0, B, SAME_NONZERO_PATTERN));
      CHECK_PETSC(MatNorm(A, NORM_MAX, &diff));
      ck_assert_msg(diff <= 1e-12 * scale, "material %s, psd %d: CSR and COO Hessians differ by %g (of %g)", e->name, psd, (double)diff,
                    (double)scale);
      CHECK_PETSC(MatDestroy(&A));
      CHECK_PETSC(MatDestroy(&B));
    }
    CHECK_PETSC(PetscFree2(x, v));
    CHECK_PETSC(SimModelDestroy(&m));
    CHECK_PETSC(SimMeshFree(&mesh));
  }
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

START_TEST(fvm_equals_fem)
{
  SimRegistry reg;
  SimModel m;
  SimEnergy term;
  PetscReal *x, *g, *f, *v, err = 0, scale = 0;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(BoxModel(reg, "stable_neohookean", 2, &m, &term));
  CHECK_PETSC(PetscCalloc4(3 * m->nv, &x, 3 * m->nv, &g, 3 * m->nv, &f, 3 * m->nv, &v));
  CHECK_PETSC(Deform(m, 5, x));
  CHECK_PETSC(term->ops.gradient(term, x, v, g));
  CHECK_PETSC(SimFEMForcesFVM(term, x, f));
  for (PetscInt k = 0; k < 3 * m->nv; k++) {
    err = PetscMax(err, PetscAbsReal(f[k] + g[k]));
    scale = PetscMax(scale, PetscAbsReal(g[k]));
  }
  ck_assert_msg(scale > 1 && err < 1e-12 * scale, "FVM and FEM forces differ by %g (scale %g)", err, scale);
  CHECK_PETSC(PetscFree4(x, g, f, v));
  CHECK_PETSC(SimModelDestroy(&m));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* Patch test: x = A X + b gives F = A in every element, P = P(A), and no net force on interior
 * vertices (the element forces of a uniform stress cancel). */
START_TEST(patch_test)
{
  SimRegistry reg;
  SimModel m;
  SimEnergy term;
  const PetscReal A[9] = {1.2, 0.1, -0.05, 0.02, 0.9, 0.1, 0.0, -0.1, 1.05}, b[3] = {0.3, -0.2, 0.1};
  PetscReal *x, *g, *v, *F, P[9], PA[9], scale = 0, Ferr = 0, ferr = 0;
  const PetscScalar *x0;
  PetscInt ntet;
  const PetscReal *vol;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(BoxModel(reg, "neohookean", 3, &m, &term));
  CHECK_PETSC(PetscCalloc4(3 * m->nv, &x, 3 * m->nv, &g, 3 * m->nv, &v, 9 * 6 * 27, &F));
  CHECK_PETSC(VecGetArrayRead(m->x, &x0));
  for (PetscInt i = 0; i < m->nv; i++)
    for (int r = 0; r < 3; r++) x[3 * i + r] = A[3 * r] * x0[3 * i] + A[3 * r + 1] * x0[3 * i + 1] + A[3 * r + 2] * x0[3 * i + 2] + b[r];
  CHECK_PETSC(SimFEMGetDeformation(term, x, &ntet, F, &vol));
  ck_assert_int_eq(ntet, 6 * 27);
  for (PetscInt e = 0; e < ntet; e++)
    for (int k = 0; k < 9; k++) Ferr = PetscMax(Ferr, PetscAbsReal(F[9 * e + k] - A[k]));
  ck_assert_msg(Ferr < 1e-12, "F differs from A by %g", Ferr);
  {
    SimMaterial mat;
    CHECK_PETSC(SimMaterialCreateWithParams(reg, "neohookean", 1e5, 0.3, 1000, &mat));
    CHECK_PETSC(SimMaterialPK1(mat, 1, A, PA));
    CHECK_PETSC(SimMaterialPK1(mat, 1, F + 9 * 40, P));
    for (int k = 0; k < 9; k++) ck_assert_double_eq_tol(P[k], PA[k], 1e-9 * 1e5);
    CHECK_PETSC(SimMaterialDestroy(&mat));
  }
  CHECK_PETSC(term->ops.gradient(term, x, v, g));
  for (PetscInt i = 0; i < m->nv; i++) {
    const PetscReal *p = x0 + 3 * i;
    PetscBool interior = PETSC_TRUE;
    for (int d = 0; d < 3; d++) {
      scale = PetscMax(scale, PetscAbsReal(g[3 * i + d]));
      if (p[d] < 1e-12 || p[d] > 1 - 1e-12) interior = PETSC_FALSE;
    }
    if (interior)
      for (int d = 0; d < 3; d++) ferr = PetscMax(ferr, PetscAbsReal(g[3 * i + d]));
  }
  CHECK_PETSC(VecRestoreArrayRead(m->x, &x0));
  ck_assert_msg(scale > 1 && ferr < 1e-10 * scale, "interior vertices carry a net force %g (boundary scale %g)", ferr, scale);
  CHECK_PETSC(PetscFree4(x, g, v, F));
  CHECK_PETSC(SimModelDestroy(&m));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* Static tip deflection of the cantilever under its own weight (quasi-static: implicit Euler with
 * a step so long that inertia vanishes), relative to Euler-Bernoulli q L^4 / (8 E I). */
static PetscErrorCode BeamTipError(PetscInt n, PetscReal *rel_err)
{
  SimRegistry reg;
  SimScene scene;
  SimModel model;
  SimProblem problem;
  SimSolver s;
  const PetscScalar *x, *x0;
  Vec rest;
  char opts[256];
  PetscReal L = 1, w = 0.1, E = 1e8, rho = 1000, g = 9.81, tip = 0, exact;
  PetscInt count = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-beam_n %" PetscInt_FMT " -beam_youngs %g -beam_poisson 0 -beam_density %g -newton_rtol 1e-10", n, (double)E, (double)rho));
  PetscCall(TestSetOptions(opts));
  PetscCall(TestRegistryCreate(&reg));
  PetscCall(SimSceneCreate(reg, "beam", &scene));
  PetscCall(SimSceneBuild(scene, PETSC_COMM_SELF, &problem));
  model = SimMeshModel(problem);
  PetscCall(VecDuplicate(model->x, &rest));
  PetscCall(VecCopy(model->x, rest));
  PetscCall(SimSolverCreate(reg, "implicit_euler", problem, &s));
  PetscCall(SimSolverSetFromOptions(s));
  for (int k = 0; k < 3; k++) PetscCall(SimSolverStep(s, 1e3, NULL));
  PetscCall(VecGetArrayRead(model->x, &x));
  PetscCall(VecGetArrayRead(rest, &x0));
  for (PetscInt i = 0; i < model->nv; i++)
    if (PetscAbsReal(x0[3 * i] - L) < 1e-12) tip += x0[3 * i + 1] - x[3 * i + 1], count++;
  PetscCall(VecRestoreArrayRead(rest, &x0));
  PetscCall(VecRestoreArrayRead(model->x, &x));
  tip /= count;
  exact = rho * g * w * w * PetscPowReal(L, 4) / (8 * E * w * w * w * w / 12);
  *rel_err = PetscAbsReal(tip - exact) / exact;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  beam n = %3" PetscInt_FMT ": tip deflection %.6e m, Euler-Bernoulli %.6e m, relative error %.4f\n", n, (double)tip,
                        (double)exact, (double)*rel_err));
  PetscCall(VecDestroy(&rest));
  PetscCall(SimSolverDestroy(&s));
  PetscCall(SimProblemDestroy(&problem));
  PetscCall(SimSceneDestroy(&scene));
  PetscCall(SimRegistryDestroy(&reg));
  PetscCall(TestSetOptions(NULL));
  PetscFunctionReturn(0);
}

START_TEST(cantilever_euler_bernoulli)
{
  PetscReal e[3];
  const PetscInt n[3] = {20, 40, 80};
  for (int r = 0; r < 3; r++) CHECK_PETSC(BeamTipError(n[r], &e[r]));
  ck_assert_msg(e[1] < e[0] && e[2] < e[1], "the error must decrease under refinement (%g, %g, %g)", e[0], e[1], e[2]);
  /* linear tets lock in bending: only a refined mesh (80 x 8 x 8 cells) gets within 5% */
  ck_assert_msg(e[2] < 0.05, "tip deflection on the refined mesh is %.1f%% off Euler-Bernoulli", 100 * e[2]);
}
END_TEST

/* Regression: on this stiff beam (E = 1e8 Pa) Newton used to give up at a gradient of 2e-4 N
 * because Phi could no longer resolve the step's decrease (round-off); every step must converge. */
START_TEST(newton_converges_on_stiff_neohookean_beam)
{
  TestSim t;

  CHECK_PETSC(TestSimCreate("beam", "implicit_euler", "-beam_n 40 -beam_nw 4 -beam_material neohookean -newton_rtol 1e-8 -newton_atol 1e-10", &t));
  for (int k = 0; k < 10; k++) {
    SimStepOutcome outcome;
    CHECK_PETSC(SimSolverStep(t.solver, 0.01, &outcome));
    ck_assert_msg(outcome == SIM_STEP_OK, "step %d: Newton did not converge", k);
  }
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* det of the edge matrix [x1 - x0, x2 - x0, x3 - x0] of tet t: 6 times its signed volume. */
static PetscReal TetDet(const PetscReal *x, const PetscInt *t)
{
  PetscReal d[3][3];

  for (int a = 0; a < 3; a++)
    for (int i = 0; i < 3; i++) d[a][i] = x[3 * t[a + 1] + i] - x[3 * t[0] + i];
  return d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) - d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0]) +
         d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0]);
}

/* The smallest J = det F over the tets of positions x (rest edge determinants det0). */
static PetscReal MinJ(SimModel m, const PetscReal *x, const PetscReal *det0)
{
  PetscReal J = PETSC_MAX_REAL;

  for (PetscInt e = 0; e < m->ntet; e++) J = PetscMin(J, TetDet(x, m->tet + 4 * e) / det0[e]);
  return J;
}

/* Issue 21: a soft neo-Hookean box (E = 2e3 Pa, +inf energy for J <= 0) dropped with dt = 0.03 s.
 * Its inertial guess y = x_n + h v_n inverts elements at the impact; Newton must start from a
 * feasible point (pulled back toward x_n) and keep every iterate feasible, so the run reaches the
 * end with every element's J > 0 (it used to abort: "Energy 'neohookean' is undefined ..."). */
START_TEST(soft_neohookean_drop_stays_feasible)
{
  TestSim t;
  PetscReal *det0, *y;
  const PetscReal h = 0.03;
  PetscInt inverted_guesses = 0, nsteps = 30;

  CHECK_PETSC(TestSimCreate("drop", "implicit_euler", "-drop_material neohookean -drop_youngs 2e3 -drop_height 0.3", &t));
  CHECK_PETSC(PetscMalloc2(t.model->ntet, &det0, 3 * t.model->nv, &y));
  {
    const PetscReal *x;
    CHECK_PETSC(VecGetArrayRead(t.model->x, &x));
    for (PetscInt e = 0; e < t.model->ntet; e++) det0[e] = TetDet(x, t.model->tet + 4 * e);
    CHECK_PETSC(VecRestoreArrayRead(t.model->x, &x));
  }
  for (PetscInt k = 0; k < nsteps; k++) {
    const PetscReal *x, *v;
    SimStepOutcome outcome;
    PetscReal J;

    CHECK_PETSC(VecGetArrayRead(t.model->x, &x));
    CHECK_PETSC(VecGetArrayRead(t.model->v, &v));
    for (PetscInt i = 0; i < 3 * t.model->nv; i++) y[i] = x[i] + h * v[i]; /* implicit Euler's guess */
    CHECK_PETSC(VecRestoreArrayRead(t.model->v, &v));
    CHECK_PETSC(VecRestoreArrayRead(t.model->x, &x));
    if (MinJ(t.model, y, det0) <= 0) inverted_guesses++;
    CHECK_PETSC(SimSolverStep(t.solver, h, &outcome));
    ck_assert_msg(outcome != SIM_STEP_NONFINITE, "step %d: non-finite state", (int)k);
    CHECK_PETSC(VecGetArrayRead(t.model->x, &x));
    J = MinJ(t.model, x, det0);
    CHECK_PETSC(VecRestoreArrayRead(t.model->x, &x));
    ck_assert_msg(J > 0, "step %d: an element is inverted (min J = %g)", (int)k, (double)J);
  }
  ck_assert_msg(inverted_guesses > 0, "no step had an inverted guess y: the test does not exercise the pull-back");
  CHECK_PETSC(PetscFree2(det0, y));
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("fem");
  TCase *tc = tcase_create("elements");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, derivatives_every_material);
  tcase_add_test(tc, fvm_equals_fem);
  tcase_add_test(tc, csr_assembly_equals_coo);
  tcase_add_test(tc, avx_hessian_equals_scalar);
  tcase_add_test(tc, fibre_directions_per_element);
  tcase_add_test(tc, patch_test);
  tcase_add_test(tc, cantilever_euler_bernoulli);
  tcase_add_test(tc, newton_converges_on_stiff_neohookean_beam);
  tcase_add_test(tc, soft_neohookean_drop_stays_feasible);
  suite_add_tcase(s, tc);
  return s;
}
