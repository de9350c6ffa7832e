/* The per-state cache of the FEM term (energies/fem.c) and the materials' evaluate op that feeds it:
 * values with the cache are bitwise those without it, a changed x (same array, new contents) is
 * never served stale values, and one decomposition shared by psi, P and both Hessians gives what
 * the single ops give. */
#include "testing.h"
#include "framework/material.h"
#include "framework/mesh/mesh.h"
#include "framework/model/model.h"
#include "energies/fem.h"

/* A cells^3 box with an FEM term of material `name`; x0 = a smooth large deformation of the rest. */
static PetscErrorCode Box(SimRegistry reg, const char *name, SimModel *model, SimEnergy *term, PetscReal **x0)
{
  const PetscInt n[3] = {3, 2, 2};
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1.5, 1, 1};
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
  PetscCall(PetscMalloc1(3 * mesh.nv, x0));
  for (PetscInt i = 0; i < mesh.nv; i++) {
    const PetscReal *p = mesh.xyz + 3 * i;
    (*x0)[3 * i] = 1.1 * p[0] + 0.2 * p[1] * p[1];
    (*x0)[3 * i + 1] = 0.9 * p[1] + 0.1 * PetscSinReal(p[2] + p[0]);
    (*x0)[3 * i + 2] = p[2] + 0.15 * p[0] * p[1];
  }
  PetscCall(SimMeshFree(&mesh));
  PetscFunctionReturn(0);
}

/* A Newton-like sequence of calls: value at a trial point, then value, gradient, both Hessians at
 * x0, a trial point again, and the gradient at x0 once more (the cache must follow every change).
 * out receives, in order, every number produced. */
static PetscErrorCode Sequence(SimEnergy t, PetscInt nv, PetscInt ntet, const PetscReal *x0, PetscReal *out)
{
  PetscReal *x, *g, E;
  PetscInt k = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(3 * nv, &x, 3 * nv, &g));
  for (PetscInt i = 0; i < 3 * nv; i++) x[i] = x0[i] + 0.01 * PetscSinReal((PetscReal)i);
  PetscCall(t->ops.value(t, x, NULL, &E));
  out[k++] = E;
  PetscCall(PetscArraycpy(x, x0, 3 * nv)); /* the same array, new contents */
  PetscCall(t->ops.value(t, x, NULL, &E));
  out[k++] = E;
  PetscCall(PetscArrayzero(g, 3 * nv));
  PetscCall(t->ops.gradient(t, x, NULL, g));
  PetscCall(PetscArraycpy(out + k, g, 3 * nv));
  k += 3 * nv;
  PetscCall(t->ops.hessian(t, x, NULL, PETSC_TRUE, out + k));
  k += 144 * ntet;
  PetscCall(t->ops.hessian(t, x, NULL, PETSC_FALSE, out + k));
  k += 144 * ntet;
  x[5] += 1e-3; /* one vertex moves: everything must be recomputed */
  PetscCall(t->ops.value(t, x, NULL, &E));
  out[k++] = E;
  PetscCall(PetscArrayzero(g, 3 * nv));
  PetscCall(t->ops.gradient(t, x, NULL, g));
  PetscCall(PetscArraycpy(out + k, g, 3 * nv));
  k += 3 * nv;
  x[5] -= 1e-3;
  PetscCall(PetscArrayzero(g, 3 * nv));
  PetscCall(t->ops.gradient(t, x0, NULL, g)); /* another array with x0's contents */
  PetscCall(PetscArraycpy(out + k, g, 3 * nv));
  PetscCall(PetscFree2(x, g));
  PetscFunctionReturn(0);
}

START_TEST(cache_matches_recompute)
{
  SimRegistry reg;
  PetscInt nmat;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &nmat));
  for (PetscInt q = 0; q < nmat; q++) {
    const SimRegEntry *entry;
    SimModel model;
    SimEnergy term;
    PetscReal *x0, *on, *off;
    PetscInt nv, ntet, len;

    CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_MATERIAL, q, &entry));
    CHECK_PETSC(Box(reg, entry->name, &model, &term, &x0));
    nv = model->nv;
    CHECK_PETSC(SimFEMGetDeformation(term, x0, &ntet, NULL, NULL));
    len = 3 + 9 * nv + 288 * ntet;
    CHECK_PETSC(PetscCalloc2(len, &on, len, &off));
    CHECK_PETSC(Sequence(term, nv, ntet, x0, on));
    CHECK_PETSC(SimFEMSetCache(term, PETSC_FALSE));
    CHECK_PETSC(Sequence(term, nv, ntet, x0, off));
    for (PetscInt k = 0; k < len; k++)
      ck_assert_msg(on[k] == off[k] || (on[k] != on[k] && off[k] != off[k]),
                    "material %s: value %d is %.17g with the cache and %.17g without", entry->name, (int)k, on[k], off[k]);
    ck_assert_msg(on[0] != on[1], "material %s: the trial point and x0 gave the same energy (stale cache?)", entry->name);
    CHECK_PETSC(PetscFree2(on, off));
    CHECK_PETSC(PetscFree(x0));
    CHECK_PETSC(SimModelDestroy(&model));
  }
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* SimMaterialEvaluate with one decomposition (computed, then reused) gives bitwise what energy, pk1
 * and hessian give one at a time, for every registered material, at deformed and inverted F. */
START_TEST(evaluate_matches_single_ops)
{
  SimRegistry reg;
  PetscInt nmat;
  const PetscInt n = 40;
  PetscReal F[9 * 40];

  for (PetscInt e = 0; e < n; e++)
    for (int k = 0; k < 9; k++) F[9 * e + k] = (k % 4 == 0 ? 1.0 : 0.0) + 0.3 * PetscSinReal(1.7 * e + 2.3 * k);
  for (int k = 0; k < 9; k += 4) F[9 * 7 + k] *= -1; /* inverted */
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &nmat));
  for (PetscInt q = 0; q < nmat; q++) {
    const SimRegEntry *entry;
    SimMaterial mat;
    PetscReal psi[40], P[9 * 40], H[81 * 40], Hp[81 * 40], psi2[40], P2[9 * 40], H2[81 * 40], Hp2[81 * 40], *dec;
    PetscInt m;

    CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_MATERIAL, q, &entry));
    CHECK_PETSC(SimMaterialCreateWithParams(reg, entry->name, 1e5, 0.3, 1000, &mat));
    m = mat->inversion_safe ? n : 7; /* elements before the inverted one */
    CHECK_PETSC(SimMaterialEnergy(mat, m, F, psi));
    CHECK_PETSC(SimMaterialPK1(mat, m, F, P));
    CHECK_PETSC(SimMaterialHessian(mat, m, F, PETSC_FALSE, H));
    CHECK_PETSC(SimMaterialHessian(mat, m, F, PETSC_TRUE, Hp));
    CHECK_PETSC(PetscMalloc1(PetscMax(1, mat->ndec * m), &dec));
    CHECK_PETSC(SimMaterialEvaluate(mat, m, F, dec, PETSC_FALSE, psi2, NULL, NULL, NULL));
    CHECK_PETSC(SimMaterialEvaluate(mat, m, F, dec, (PetscBool)(mat->ndec > 0), NULL, P2, H2, Hp2));
    for (PetscInt k = 0; k < m; k++) ck_assert_msg(psi[k] == psi2[k], "%s: psi[%d] differs", entry->name, (int)k);
    for (PetscInt k = 0; k < 9 * m; k++) ck_assert_msg(P[k] == P2[k], "%s: P entry %d differs", entry->name, (int)k);
    for (PetscInt k = 0; k < 81 * m; k++)
      ck_assert_msg(H[k] == H2[k] && Hp[k] == Hp2[k], "%s: dP/dF entry %d differs (exact %g vs %g, projected %g vs %g)", entry->name,
                    (int)k, H[k], H2[k], Hp[k], Hp2[k]);
    CHECK_PETSC(PetscFree(dec));
    CHECK_PETSC(SimMaterialDestroy(&mat));
  }
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("state_cache");
  TCase *tc = tcase_create("cache");
  tcase_add_test(tc, cache_matches_recompute);
  tcase_add_test(tc, evaluate_matches_single_ops);
  suite_add_tcase(s, tc);
  return s;
}
