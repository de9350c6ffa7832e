/* Materials: the 3x3 SVD and eigensolver, then every registered material against finite
 * differences, rest state, PSD projection and rest tensor; parameter validation; throughput. */
#include <math.h>
#include <time.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include "material_checks.h"
#include "framework/linalg/svd3.h"
#include "framework/linalg/isotropic.h"
#include "framework/linalg/psd.h"

/* What each built-in material satisfies; the conformance loop checks these rows, and a material
 * missing from the table is checked against its own inversion_safe flag and the full linear
 * elastic tensor (mu, lambda) at rest.
 *   rest tensor: dP/dF(I) = mu_f mu (d_ik d_jl + d_il d_jk) + lambda_f lambda d_ij d_kl. */
static const struct {
  const char *name;
  PetscBool inversion_safe;
  PetscReal mu_f, lambda_f;
} expected[] = {
    {"stvk", PETSC_TRUE, 1, 1},              /* polynomial in F, reduces to linear elasticity */
    {"corotated", PETSC_TRUE, 1, 1},         /* rotation-variant SVD, reduces to linear elasticity */
    {"fixed_corotated", PETSC_TRUE, 1, 1},   /* idem */
    {"neohookean", PETSC_FALSE, 1, 1},       /* +inf for J <= 0 */
    {"stable_neohookean", PETSC_TRUE, 1, 1}, /* Lame reparametrized so that it reduces to linear elasticity */
    {"arap", PETSC_TRUE, 1, 0},              /* no volume term: linear elasticity with lambda = 0 */
    {"mooney_rivlin", PETSC_FALSE, 1, 1},    /* C10 + C01 = mu/2, kappa = lambda + 2/3 mu; +inf for J <= 0 */
    {"ogden", PETSC_FALSE, 1, 1},            /* sum mu_p alpha_p / 2 = mu, kappa = lambda + 2/3 mu; +inf for J <= 0 */
    {"fung", PETSC_TRUE, 1, 1},              /* StVK at small strain; a function of F^T F */
    {"hgo", PETSC_TRUE, 1, 1},               /* fibres slack at rest: the stable neo-Hookean matrix's tensor */
};

/* Parameter sets every material is checked with: moderate, nearly incompressible, auxetic; then
 * RANGE_DRAWS random sets over E, nu and its declared parameter ranges (material_checks.h). */
#define RANGE_DRAWS 6
static const PetscReal param_sets[][2] = {{1e5, 0.3}, {2e6, 0.45}, {5e4, -0.3}};

/* ---- SVD ---- */

static PetscReal Det3(const PetscReal A[9])
{
  return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
}

static PetscReal Frob(const PetscReal *A, PetscInt n)
{
  PetscReal s = 0;
  for (PetscInt k = 0; k < n; k++) s += A[k] * A[k];
  return PetscSqrtReal(s);
}

/* |Q^T Q - I| */
static PetscReal OrthoError(const PetscReal Q[9])
{
  PetscReal e = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      PetscReal s = Q[i] * Q[j] + Q[3 + i] * Q[3 + j] + Q[6 + i] * Q[6 + j] - (i == j);
      e += s * s;
    }
  return PetscSqrtReal(e);
}

/* Checks SimSvd3 and SimPolar3 on F; `s_expect` (may be NULL) are the singular values F was built
 * from, in the documented order and sign. Errors are measured on F / max|F_ij| so that F of any
 * magnitude (1e-300 .. 1e300) is checked to the same relative tolerance. */
static void CheckSvd(const PetscReal F[9], const PetscReal *s_expect, const char *label)
{
  PetscReal U[9], s[3], V[9], R[9], S[9], Fs[9], m = 0, inv, fn, det, err = 0;

  for (int k = 0; k < 9; k++) m = PetscMax(m, PetscAbsReal(F[k]));
  inv = m > 0 ? 1 / m : 1;
  for (int k = 0; k < 9; k++) Fs[k] = inv * F[k];
  fn = Frob(Fs, 9), det = Det3(Fs);
  CHECK_PETSC(SimSvd3(F, U, s, V));
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      PetscReal g = U[3 * i] * s[0] * V[3 * j] + U[3 * i + 1] * s[1] * V[3 * j + 1] + U[3 * i + 2] * s[2] * V[3 * j + 2];
      err += (inv * g - Fs[3 * i + j]) * (inv * g - Fs[3 * i + j]);
    }
  err = PetscSqrtReal(err);
  ck_assert_msg(err <= 1e-12 * fn, "SVD of %s: |U S V^T - F| / |F| = %g", label, (double)(fn > 0 ? err / fn : err));
  ck_assert_msg(OrthoError(U) < 1e-12 && OrthoError(V) < 1e-12, "SVD of %s: U or V not orthogonal (%g, %g)", label,
                (double)OrthoError(U), (double)OrthoError(V));
  ck_assert_msg(PetscAbsReal(Det3(U) - 1) < 1e-12 && PetscAbsReal(Det3(V) - 1) < 1e-12, "SVD of %s: det U = %g, det V = %g",
                label, (double)Det3(U), (double)Det3(V));
  ck_assert_msg(s[0] >= 0 && s[1] >= 0, "SVD of %s: sigma = (%g, %g, %g), the first two must be >= 0", label, (double)s[0],
                (double)s[1], (double)s[2]);
  ck_assert_msg(s[0] >= s[1] - 1e-14 * s[0] && s[1] >= PetscAbsReal(s[2]) - 1e-14 * s[0],
                "SVD of %s: sigma = (%g, %g, %g) not sorted by |.|", label, (double)s[0], (double)s[1], (double)s[2]);
  if (PetscAbsReal(det) > 1e-10 * fn * fn * fn)
    ck_assert_msg((s[2] < 0) == (det < 0), "SVD of %s: sign of sigma_2 = %g does not match det F (%s)", label, (double)s[2],
                  det < 0 ? "< 0" : "> 0");
  if (s_expect)
    for (int k = 0; k < 3; k++)
      ck_assert_msg(PetscAbsReal(inv * s[k] - inv * s_expect[k]) <= 1e-12 * fn, "SVD of %s: sigma_%d = %.17g, expected %.17g",
                    label, k, (double)s[k], (double)s_expect[k]);
  /* polar F = R S: R a rotation, S symmetric */
  CHECK_PETSC(SimPolar3(F, R, S));
  ck_assert_msg(OrthoError(R) < 1e-12 && PetscAbsReal(Det3(R) - 1) < 1e-12, "polar of %s: R is not a rotation", label);
  err = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      PetscReal rs = inv * (R[3 * i] * S[j] + R[3 * i + 1] * S[3 + j] + R[3 * i + 2] * S[6 + j]),
                as = inv * (S[3 * i + j] - S[3 * j + i]);
      err += (rs - Fs[3 * i + j]) * (rs - Fs[3 * i + j]) + as * as;
    }
  ck_assert_msg(PetscSqrtReal(err) <= 1e-12 * fn, "polar of %s: |R S - F| or asymmetry of S = %g (relative)", label,
                (double)(fn > 0 ? PetscSqrtReal(err) / fn : PetscSqrtReal(err)));
}

START_TEST(svd_special)
{
  const PetscReal Id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, Z[9] = {0}, refl[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1};
  const PetscReal rank1[9] = {1 * 0.3, 1 * -0.2, 1 * 0.5, 2 * 0.3, 2 * -0.2, 2 * 0.5, -1 * 0.3, -1 * -0.2, -1 * 0.5};
  const PetscReal diag[9] = {0.5, 0, 0, 0, -2, 0, 0, 0, 1}, perm[9] = {0, 1, 0, 1, 0, 0, 0, 0, 1};
  const PetscReal e1[3] = {1, 1, 1}, e0[3] = {0, 0, 0}, er[3] = {1, 1, -1}, ed[3] = {2, 1, -0.5}, ep[3] = {1, 1, -1};
  const PetscReal perm3[9] = {0, 0.5, 0.1, -2, 0, 0.3, 0.2, 0, 1};
  PetscReal big[9], tiny[9];

  CheckSvd(Id, e1, "identity");
  CheckSvd(Z, e0, "zero");
  CheckSvd(refl, er, "reflection diag(1, 1, -1)");
  CheckSvd(rank1, NULL, "rank 1 (a b^T)");
  CheckSvd(diag, ed, "diag(0.5, -2, 1)");
  CheckSvd(perm, ep, "permutation (odd)");
  for (int k = 0; k < 9; k++) big[k] = 1e300 * perm3[k], tiny[k] = 1e-300 * perm3[k];
  CheckSvd(big, NULL, "1e300 (permuted diag(0.5, -2, 1) + off-diagonal)");
  CheckSvd(tiny, NULL, "1e-300 (permuted diag(0.5, -2, 1) + off-diagonal)");
}
END_TEST

START_TEST(svd_random)
{
  PetscRandom rnd;
  /* singular values (documented order and sign), composed with random rotations */
  const PetscReal cases[][3] = {{1.5, 1.0, 0.5},
                                {1.2, 1.2, 0.7},
                                {1.2, 0.7, 0.7},
                                {1.3, 1.3, 1.3},
                                {2, 1, -0.5},
                                {2, 1, -1},
                                {1, 1, -1},
                                {1.1, 0.9, -1e-12},
                                {1.1, 0.9, 1e-12},
                                {1.1, 0.9, 0},
                                {1.1, 0, 0},
                                {3, 1e-8, 1e-9},
                                {1 + 1e-14, 1, 1 - 1e-14},
                                {1e3, 1, 1e-3},
                                {1.2, 1.2, -1.2},
                                {0.7 * (1 + 1e-9), 0.7, -0.3}};
  char label[128];

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 99));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
    for (int rep = 0; rep < 20; rep++) {
      PetscReal F[9];
      CHECK_PETSC(MaterialTestCompose(rnd, cases[c], F));
      snprintf(label, sizeof(label), "R1 diag(%g, %g, %g) R2 #%d", (double)cases[c][0], (double)cases[c][1], (double)cases[c][2],
               rep);
      CheckSvd(F, cases[c], label);
    }
  /* general random matrices, and rank 2 ones (one column a combination of the others) */
  for (int rep = 0; rep < 500; rep++) {
    PetscReal F[9];
    for (int k = 0; k < 9; k++) {
      CHECK_PETSC(PetscRandomGetValueReal(rnd, &F[k]));
      F[k] = 2 * F[k] - 1;
    }
    snprintf(label, sizeof(label), "random entries #%d", rep);
    CheckSvd(F, NULL, label);
    for (int r = 0; r < 3; r++) F[3 * r + 2] = 0.3 * F[3 * r] - 2 * F[3 * r + 1];
    snprintf(label, sizeof(label), "random rank 2 #%d", rep);
    CheckSvd(F, NULL, label);
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

START_TEST(svd_nonfinite)
{
  PetscReal F[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, U[9], s[3], V[9];
  PetscErrorCode ierr;

  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  F[4] = (PetscReal)INFINITY;
  ierr = SimSvd3(F, U, s, V);
  ck_assert_msg(ierr == PETSC_ERR_FP, "SVD of an infinite F must fail with PETSC_ERR_FP, got %d", (int)ierr);
  F[4] = (PetscReal)NAN;
  ierr = SimSvd3(F, U, s, V);
  ck_assert_msg(ierr == PETSC_ERR_FP, "SVD of a NaN F must fail with PETSC_ERR_FP, got %d", (int)ierr);
  CHECK_PETSC(PetscPopErrorHandler());
}
END_TEST

START_TEST(symeig3_random)
{
  PetscRandom rnd;
  gsl_vector *eval = gsl_vector_alloc(3);
  gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(3);

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 5));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (int rep = 0; rep < 300; rep++) {
    PetscReal A[9], l[3], Q[9], B[9], err = 0, ref[3];
    gsl_matrix_view Bv = gsl_matrix_view_array(B, 3, 3);
    for (int i = 0; i < 3; i++)
      for (int j = i; j < 3; j++) {
        CHECK_PETSC(PetscRandomGetValueReal(rnd, &A[3 * i + j]));
        A[3 * i + j] = A[3 * j + i] = 2 * A[3 * i + j] - 1;
      }
    if (rep % 3 == 1) A[1] = A[3] = 0, A[2] = A[6] = 0, A[4] = A[0]; /* a repeated eigenvalue */
    if (rep % 3 == 2) A[1] = A[2] = A[3] = A[5] = A[6] = A[7] = 0;   /* already diagonal */
    CHECK_PETSC(SimSymEig3(A, l, Q));
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        PetscReal s =
            Q[3 * i] * l[0] * Q[3 * j] + Q[3 * i + 1] * l[1] * Q[3 * j + 1] + Q[3 * i + 2] * l[2] * Q[3 * j + 2] - A[3 * i + j];
        err += s * s;
      }
    ck_assert_msg(PetscSqrtReal(err) < 1e-13 * PetscMax(Frob(A, 9), 1e-300), "SymEig3 #%d: |Q L Q^T - A| = %g", rep,
                  (double)PetscSqrtReal(err));
    ck_assert_msg(OrthoError(Q) < 1e-13 && PetscAbsReal(Det3(Q) - 1) < 1e-13, "SymEig3 #%d: Q is not a rotation", rep);
    ck_assert_msg(l[0] >= l[1] && l[1] >= l[2], "SymEig3 #%d: eigenvalues not sorted descending", rep);
    for (int k = 0; k < 9; k++) B[k] = A[k];
    gsl_eigen_symm(&Bv.matrix, eval, w);
    for (int k = 0; k < 3; k++) ref[k] = gsl_vector_get(eval, k);
    CHECK_PETSC(PetscSortReal(3, ref));
    for (int k = 0; k < 3; k++)
      ck_assert_msg(PetscAbsReal(l[k] - ref[2 - k]) < 1e-13 * Frob(A, 9), "SymEig3 #%d: eigenvalue %g, GSL %g", rep, (double)l[k],
                    (double)ref[2 - k]);
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
  gsl_eigen_symm_free(w);
  gsl_vector_free(eval);
}
END_TEST

/* ---- conformance: every registered material ---- */

START_TEST(materials_registered)
{
  SimRegistry reg;
  PetscInt n;
  const SimRegEntry *e;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &n));
  ck_assert_msg(n >= (PetscInt)(sizeof(expected) / sizeof(expected[0])), "only %d materials registered", (int)n);
  for (size_t k = 0; k < sizeof(expected) / sizeof(expected[0]); k++) {
    CHECK_PETSC(SimRegistryLookup(reg, SIM_KIND_MATERIAL, expected[k].name, &e));
    ck_assert_msg(e && e->help[0], "material '%s' is not registered (or has no help line)", expected[k].name);
  }
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

START_TEST(materials_conformance)
{
  SimRegistry reg;
  PetscInt n;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &n));
  for (PetscInt i = 0; i < n; i++) {
    const SimRegEntry *e;
    PetscReal mu_f = 1, lambda_f = 1;
    PetscBool listed = PETSC_FALSE, safe = PETSC_FALSE;

    CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_MATERIAL, i, &e));
    for (size_t k = 0; k < sizeof(expected) / sizeof(expected[0]); k++)
      if (!strcmp(expected[k].name, e->name))
        listed = PETSC_TRUE, safe = expected[k].inversion_safe, mu_f = expected[k].mu_f, lambda_f = expected[k].lambda_f;
    for (size_t p = 0; p < sizeof(param_sets) / sizeof(param_sets[0]); p++) {
      SimMaterial mat;
      CHECK_PETSC(SimMaterialCreateWithParams(reg, e->name, param_sets[p][0], param_sets[p][1], 1000, &mat));
      ck_assert_msg(!strcmp(mat->name, e->name), "material name '%s' for '%s'", mat->name, e->name);
      if (listed)
        ck_assert_msg(mat->inversion_safe == safe, "%s: inversion_safe is %d, expected %d", e->name, (int)mat->inversion_safe,
                      (int)safe);
      MaterialCheckAll(mat, mu_f, lambda_f);
      CHECK_PETSC(SimMaterialDestroy(&mat));
    }
    /* and over its declared parameter ranges, not only the defaults */
    MaterialCheckRanges(reg, e->name, mu_f, lambda_f, 4242 + (unsigned long)i, RANGE_DRAWS);
  }
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* the batched ops give the same results as one F at a time, and n = 0 is a no-op */
START_TEST(materials_batched)
{
  SimRegistry reg;
  PetscInt n;
  MaterialTestSet set;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(MaterialTestSetCreate(3, PETSC_FALSE, &set));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &n));
  for (PetscInt i = 0; i < n; i++) {
    const SimRegEntry *e;
    SimMaterial mat;
    PetscReal psi[MC_MAX_F], P[9 * MC_MAX_F], H[81 * MC_MAX_F], psi1, P1[9], H1[81];

    CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_MATERIAL, i, &e));
    CHECK_PETSC(SimMaterialCreateWithParams(reg, e->name, 1e5, 0.3, 1000, &mat));
    CHECK_PETSC(SimMaterialEnergy(mat, 0, NULL, NULL));
    CHECK_PETSC(SimMaterialEnergy(mat, set.n, &set.F[0][0], psi));
    CHECK_PETSC(SimMaterialPK1(mat, set.n, &set.F[0][0], P));
    CHECK_PETSC(SimMaterialHessian(mat, set.n, &set.F[0][0], PETSC_TRUE, H));
    for (PetscInt c = 0; c < set.n; c++) {
      CHECK_PETSC(SimMaterialEnergy(mat, 1, set.F[c], &psi1));
      CHECK_PETSC(SimMaterialPK1(mat, 1, set.F[c], P1));
      CHECK_PETSC(SimMaterialHessian(mat, 1, set.F[c], PETSC_TRUE, H1));
      ck_assert_msg(psi1 == psi[c], "%s: batched energy differs", e->name);
      for (int k = 0; k < 9; k++) ck_assert_msg(P1[k] == P[9 * c + k], "%s: batched P differs", e->name);
      for (int k = 0; k < 81; k++) ck_assert_msg(H1[k] == H[81 * c + k], "%s: batched dP/dF differs", e->name);
    }
    CHECK_PETSC(SimMaterialDestroy(&mat));
  }
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* ---- neo-Hookean outside its domain ---- */

START_TEST(neohookean_inverted)
{
  SimRegistry reg;
  SimMaterial mat;
  PetscReal F[3][9] = {{1, 0, 0, 0, 1, 0, 0, 0, -0.5}, {0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}}, psi[3], P[9];
  PetscErrorCode ierr;
  const char *text;
  char *msg;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimMaterialCreateWithParams(reg, "neohookean", 1e5, 0.3, 1000, &mat));
  CHECK_PETSC(SimMaterialEnergy(mat, 3, &F[0][0], psi)); /* J < 0, J = 0, J = 1 */
  ck_assert_msg(PetscIsInfReal(psi[0]) && psi[0] > 0, "neo-Hookean energy at J < 0 is %g, expected +inf", (double)psi[0]);
  ck_assert_msg(PetscIsInfReal(psi[1]) && psi[1] > 0, "neo-Hookean energy at J = 0 is %g, expected +inf", (double)psi[1]);
  ck_assert_msg(PetscAbsReal(psi[2]) < 1e-12, "neo-Hookean energy at rest is %g", (double)psi[2]);
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimMaterialPK1(mat, 1, F[0], P);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr, "neo-Hookean P at J < 0 must be an error");
  CHECK_PETSC(PetscErrorMessage(ierr, &text, &msg));
  ck_assert_msg(msg && strstr(msg, "J = det F"), "error message should name J: %s", msg ? msg : "(none)");
  CHECK_PETSC(SimMaterialDestroy(&mat));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* ---- parameters ---- */

/* Creates `name` with an options string (prefix "bunny_") or explicit parameters, expects an
 * error whose message contains every string in `want` (NULL-terminated). */
static void ExpectBadParams(SimRegistry reg, const char *opts, PetscReal E, PetscReal nu, PetscReal rho, const char *const *want)
{
  SimMaterial mat = NULL;
  PetscErrorCode ierr;
  char *msg = NULL;

  if (opts) CHECK_PETSC(TestSetOptions(opts));
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = opts ? SimMaterialCreate(reg, "stvk", "bunny_", &mat) : SimMaterialCreateWithParams(reg, "stvk", E, nu, rho, &mat);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr && !mat, "bad parameters (%s / E %g nu %g rho %g) were accepted", opts ? opts : "explicit", (double)E,
                (double)nu, (double)rho);
  CHECK_PETSC(PetscErrorMessage(ierr, NULL, &msg));
  for (int k = 0; want[k]; k++)
    ck_assert_msg(msg && strstr(msg, want[k]), "message for %s (E %g nu %g rho %g) should contain '%s': %s",
                  opts ? opts : "explicit", (double)E, (double)nu, (double)rho, want[k], msg ? msg : "(none)");
  CHECK_PETSC(TestSetOptions(NULL));
}

START_TEST(material_bad_params)
{
  SimRegistry reg;
  const char *const poisson_opt[] = {"-bunny_poisson 0.5 is out of range: must be in (-1, 0.5)", "incompressible", NULL};
  const char *const poisson_opt_m1[] = {"-bunny_poisson -1", "is out of range: must be in (-1, 0.5)", NULL};
  const char *const youngs_opt[] = {"-bunny_youngs -3", "> 0", NULL};
  const char *const density_opt[] = {"-bunny_density 0", "> 0", NULL};
  const char *const poisson[] = {"poisson", "(-1, 0.5)", NULL};
  const char *const youngs[] = {"youngs", NULL};
  const char *const density[] = {"density", NULL};
  const char *const unknown[] = {"Unknown material 'rubber'", "stable_neohookean", NULL};
  SimMaterial mat = NULL;
  PetscErrorCode ierr;
  char *msg = NULL;

  CHECK_PETSC(TestRegistryCreate(&reg));
  ExpectBadParams(reg, "-bunny_poisson 0.5", 0, 0, 0, poisson_opt);
  ExpectBadParams(reg, "-bunny_poisson -1", 0, 0, 0, poisson_opt_m1);
  ExpectBadParams(reg, "-bunny_youngs -3", 0, 0, 0, youngs_opt);
  ExpectBadParams(reg, "-bunny_density 0", 0, 0, 0, density_opt);
  ExpectBadParams(reg, NULL, 1e5, 0.5, 1000, poisson);
  ExpectBadParams(reg, NULL, 1e5, -1, 1000, poisson);
  ExpectBadParams(reg, NULL, 1e5, 0.7, 1000, poisson);
  ExpectBadParams(reg, NULL, 0, 0.3, 1000, youngs);
  ExpectBadParams(reg, NULL, -1e5, 0.3, 1000, youngs);
  ExpectBadParams(reg, NULL, 1e5, 0.3, 0, density);
  ExpectBadParams(reg, NULL, 1e5, 0.3, -1, density);
  /* an unknown name lists the valid ones */
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimMaterialCreateWithParams(reg, "rubber", 1e5, 0.3, 1000, &mat);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert(ierr && !mat);
  CHECK_PETSC(PetscErrorMessage(ierr, NULL, &msg));
  for (int k = 0; unknown[k]; k++)
    ck_assert_msg(msg && strstr(msg, unknown[k]), "unknown material message: %s", msg ? msg : "(none)");
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

START_TEST(material_options)
{
  SimRegistry reg;
  SimMaterial mat;
  const PetscReal E = 2e6, nu = 0.4;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(TestSetOptions("-bunny_youngs 2e6 -bunny_poisson 0.4 -bunny_density 1100"));
  CHECK_PETSC(SimMaterialCreate(reg, "stable_neohookean", "bunny_", &mat));
  ck_assert(mat->par.youngs == E && mat->par.poisson == nu && mat->par.density == 1100);
  ck_assert(PetscAbsReal(mat->par.mu - E / (2 * (1 + nu))) < 1e-9 * E);
  ck_assert(PetscAbsReal(mat->par.lambda - E * nu / ((1 + nu) * (1 - 2 * nu))) < 1e-9 * E);
  CHECK_PETSC(SimMaterialDestroy(&mat));
  /* defaults without options: E = 1e5, nu = 0.3, density 1000 */
  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(SimMaterialCreate(reg, "arap", NULL, &mat));
  ck_assert(mat->par.youngs == 1e5 && mat->par.poisson == 0.3 && mat->par.density == 1000);
  CHECK_PETSC(SimMaterialDestroy(&mat));
  CHECK_PETSC(SimMaterialDestroy(NULL));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* ARAP with strain limits (Bouaziz et al. 2014): psi = mu sum (s_i - clamp(s_i))^2; derivatives
 * against finite differences, exact PSD projection, zero energy inside the band and the limits
 * [1, 1] reproducing ARAP exactly; options and their errors. */
START_TEST(arap_strain_limits)
{
  SimRegistry reg;
  SimMaterial lim, plain;
  MaterialTestSet set;
  const char *const wrong_material[] = {"'stvk' has no strain limits", "-bunny_strain_min", "arap", NULL};
  PetscReal F[9], Fin[9], psi, psi0, P[9], P0[9];
  const PetscReal s_out[3] = {1.27, 1.0, 0.73}, s_in[3] = {1.15, 1.0, 0.85};

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(TestSetOptions("-bunny_strain_min 0.83 -bunny_strain_max 1.17 -bunny_youngs 2e5"));
  CHECK_PETSC(SimMaterialCreate(reg, "arap", "bunny_", &lim));
  ck_assert(lim->par.strain_min == 0.83 && lim->par.strain_max == 1.17);
  CHECK_PETSC(SimMaterialCreateWithParams(reg, "arap", 2e5, 0.3, 1000, &plain));
  ck_assert(plain->par.strain_min == 1 && plain->par.strain_max == 1);
  CHECK_PETSC(MaterialTestSetCreate(5, PETSC_TRUE, &set));
  MaterialCheckDerivatives(lim, &set);
  MaterialCheckProjection(lim, &set);
  MaterialCheckRest(lim, 5);
  /* the value: distance to the band; zero inside it */
  {
    PetscRandom rnd;
    CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    CHECK_PETSC(MaterialTestCompose(rnd, s_out, F));
    CHECK_PETSC(MaterialTestCompose(rnd, s_in, Fin));
    CHECK_PETSC(PetscRandomDestroy(&rnd));
  }
  CHECK_PETSC(SimMaterialEnergy(lim, 1, F, &psi));
  ck_assert_msg(PetscAbsReal(psi - lim->par.mu * (0.1 * 0.1 + 0.1 * 0.1)) < 1e-10 * lim->par.mu, "psi %g, expected %g", psi,
                lim->par.mu * 0.02);
  CHECK_PETSC(SimMaterialEnergy(lim, 1, Fin, &psi));
  ck_assert_msg(PetscAbsReal(psi) < 1e-12 * lim->par.mu, "psi %g inside the band", psi);
  /* [1, 1] is ARAP: the same energy and stress as the plain material */
  lim->par.strain_min = lim->par.strain_max = 1;
  CHECK_PETSC(SimMaterialEnergy(lim, 1, F, &psi));
  CHECK_PETSC(SimMaterialEnergy(plain, 1, F, &psi0));
  CHECK_PETSC(SimMaterialPK1(lim, 1, F, P));
  CHECK_PETSC(SimMaterialPK1(plain, 1, F, P0));
  ck_assert_msg(psi == psi0, "limits [1, 1]: psi %.17g, arap %.17g", psi, psi0);
  for (int k = 0; k < 9; k++) ck_assert_msg(P[k] == P0[k], "limits [1, 1]: P[%d] %.17g, arap %.17g", k, P[k], P0[k]);
  CHECK_PETSC(SimMaterialDestroy(&lim));
  CHECK_PETSC(SimMaterialDestroy(&plain));
  /* errors: limits on a material without them, and limits that exclude the rest shape */
  ExpectBadParams(reg, "-bunny_strain_min 0.9", 0, 0, 0, wrong_material);
  {
    const char *bad[] = {"-bunny_strain_min 1.1", "-bunny_strain_max 0.9", "-bunny_strain_min -0.1"};
    for (int k = 0; k < 3; k++) {
      PetscErrorCode ierr;
      SimMaterial mat = NULL;
      char *msg = NULL;
      CHECK_PETSC(TestSetOptions(bad[k]));
      CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = SimMaterialCreate(reg, "arap", "bunny_", &mat);
      CHECK_PETSC(PetscPopErrorHandler());
      ck_assert_msg(ierr && !mat, "%s was accepted", bad[k]);
      CHECK_PETSC(PetscErrorMessage(ierr, NULL, &msg));
      ck_assert_msg(msg && strstr(msg, "0 <= strain_min <= 1 <= strain_max") && strstr(msg, "-bunny_strain_min"), "%s: %s",
                    bad[k], msg ? msg : "(none)");
    }
  }
  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* ---- the pieces the anisotropic material needs ---- */

/* SimSymProjectPSD (cyclic Jacobi) against GSL's eigenvalue clamping, random symmetric n x n. */
START_TEST(psd_projection)
{
  PetscRandom rnd;

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 41));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (int rep = 0; rep < 200; rep++) {
    const PetscInt n = rep % 3 == 0 ? 12 : rep % 3 == 1 ? 9 : 4;
    PetscReal A[144], B[144], C[144] = {0}, err = 0, norm = 0;
    gsl_matrix_view Bv = gsl_matrix_view_array(B, n, n);
    gsl_vector *eval = gsl_vector_alloc(n);
    gsl_matrix *evec = gsl_matrix_alloc(n, n);
    gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(n);

    for (PetscInt i = 0; i < n; i++)
      for (PetscInt j = i; j < n; j++) {
        CHECK_PETSC(PetscRandomGetValueReal(rnd, &A[i * n + j]));
        A[i * n + j] = A[j * n + i] = 2 * A[i * n + j] - 1 + (i == j && rep % 5 == 0 ? (PetscReal)n : 0); /* some are PSD */
      }
    for (PetscInt k = 0; k < n * n; k++) B[k] = A[k], norm += A[k] * A[k];
    gsl_eigen_symmv(&Bv.matrix, eval, evec, w);
    for (PetscInt m = 0; m < n; m++)
      for (PetscInt i = 0; i < n; i++)
        for (PetscInt j = 0; j < n; j++)
          C[i * n + j] += PetscMax(gsl_vector_get(eval, m), 0.0) * gsl_matrix_get(evec, i, m) * gsl_matrix_get(evec, j, m);
    CHECK_PETSC(SimSymProjectPSD(n, A));
    for (PetscInt k = 0; k < n * n; k++) err += (A[k] - C[k]) * (A[k] - C[k]);
    ck_assert_msg(PetscSqrtReal(err / norm) < 1e-12, "projection #%d (n = %d) differs from GSL clamping by %g (relative)", rep,
                  (int)n, (double)PetscSqrtReal(err / norm));
    gsl_eigen_symmv_free(w);
    gsl_matrix_free(evec);
    gsl_vector_free(eval);
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* I4 = |F a|^2 and the fibre term: P_f against central differences of psi_f(I4) and dP_f/dF against
 * central differences of P_f, for psi_f = I4^2 (d1 = 2 I4, d2 = 2); and the fibre tangent's
 * eigenvalues 2 d1 (twice), 2 d1 + 4 d2 I4 and 0 (six times), by GSL. */
START_TEST(fibre_invariant)
{
  PetscRandom rnd;

  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 43));
  CHECK_PETSC(PetscRandomSeed(rnd));
  for (int rep = 0; rep < 20; rep++) {
    PetscReal F[9], a[3], na = 0, I4, P[9] = {0}, H[81] = {0}, perr = 0, herr = 0, pn = 0, hn = 0, ev[9], ex[9];
    const PetscReal h = 1e-6;
    gsl_vector *eval = gsl_vector_alloc(9);
    gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(9);
    PetscReal A[81];
    gsl_matrix_view Av = gsl_matrix_view_array(A, 9, 9);

    for (int k = 0; k < 9; k++) CHECK_PETSC(PetscRandomGetValueReal(rnd, &F[k])), F[k] = 2 * F[k] - 1 + (k % 4 == 0);
    for (int k = 0; k < 3; k++) CHECK_PETSC(PetscRandomGetValueReal(rnd, &a[k])), a[k] = 2 * a[k] - 1, na += a[k] * a[k];
    for (int k = 0; k < 3; k++) a[k] /= PetscSqrtReal(na);
    I4 = SimFibreI4(F, a);
    SimFibreAddPK1(F, a, 2 * I4, P);
    SimFibreAddHessian(F, a, 2 * I4, 2, H);
    for (int kl = 0; kl < 9; kl++) {
      PetscReal Fp[9], Fm[9], Pp[9] = {0}, Pm[9] = {0}, ip, im;
      for (int c = 0; c < 9; c++) Fp[c] = Fm[c] = F[c];
      Fp[kl] += h, Fm[kl] -= h;
      ip = SimFibreI4(Fp, a), im = SimFibreI4(Fm, a);
      SimFibreAddPK1(Fp, a, 2 * ip, Pp);
      SimFibreAddPK1(Fm, a, 2 * im, Pm);
      perr += PetscSqr((ip * ip - im * im) / (2 * h) - P[kl]), pn += P[kl] * P[kl];
      for (int ij = 0; ij < 9; ij++)
        herr += PetscSqr((Pp[ij] - Pm[ij]) / (2 * h) - H[9 * ij + kl]), hn += H[9 * ij + kl] * H[9 * ij + kl];
    }
    ck_assert_msg(PetscSqrtReal(perr / pn) < 1e-8 && PetscSqrtReal(herr / hn) < 1e-7, "fibre #%d: P error %g, dP/dF error %g",
                  rep, (double)PetscSqrtReal(perr / pn), (double)PetscSqrtReal(herr / hn));
    for (int k = 0; k < 81; k++) A[k] = H[k];
    gsl_eigen_symm(&Av.matrix, eval, w);
    for (int k = 0; k < 9; k++) ev[k] = gsl_vector_get(eval, k);
    for (int k = 0; k < 6; k++) ex[k] = 0;
    ex[6] = ex[7] = 4 * I4, ex[8] = 4 * I4 + 8 * I4; /* 2 d1 and 2 d1 + 4 d2 I4 with d1 = 2 I4, d2 = 2 */
    CHECK_PETSC(PetscSortReal(9, ev));
    CHECK_PETSC(PetscSortReal(9, ex));
    for (int k = 0; k < 9; k++)
      ck_assert_msg(PetscAbsReal(ev[k] - ex[k]) < 1e-10 * ex[8], "fibre #%d: eigenvalue %g, expected %g", rep, (double)ev[k],
                    (double)ex[k]);
    gsl_eigen_symm_free(w);
    gsl_vector_free(eval);
  }
  CHECK_PETSC(PetscRandomDestroy(&rnd));
}
END_TEST

/* ---- throughput (printed; timings are not asserted): PBSIM_MATERIAL_BENCH_N deformation gradients.
 * The big batches are checked: every value finite, a sample of entries (spread over the whole batch,
 * so a blocking or offset error anywhere shows) equal to the one-F evaluation, the Hessians
 * symmetric and the projected ones without negative eigenvalues. ---- */

/* out[e*m .. e*m + m) of a batch against the one-F evaluation, for every 997th e and the last
 * (plain loops find the first bad entry: a ck_assert per entry costs a system call). */
static void CheckBatch(SimMaterial mat, const char *name, const char *what, PetscInt n, PetscInt m, const PetscReal *F,
                       const PetscReal *out, PetscErrorCode (*one)(SimMaterial, const PetscReal *, PetscReal *))
{
  PetscReal ref[81];
  PetscInt bad = -1;
  for (PetscInt k = 0; k < n * m && bad < 0; k++)
    if (!PetscIsNormalReal(out[k]) && out[k] != 0) bad = k;
  ck_assert_msg(bad < 0, "%s %s: entry %d of the batch is %g", name, what, (int)bad, bad < 0 ? 0.0 : (double)out[bad]);
  for (PetscInt e = 0;; e = PetscMin(e + 997, n - 1)) {
    PetscReal scale = 0;
    CHECK_PETSC(one(mat, F + 9 * e, ref));
    for (PetscInt k = 0; k < m; k++) scale = PetscMax(scale, PetscAbsReal(ref[k]));
    for (PetscInt k = 0; k < m && bad < 0; k++)
      if (PetscAbsReal(out[e * m + k] - ref[k]) > 1e-12 * scale) bad = k;
    ck_assert_msg(bad < 0, "%s %s: F number %d of %d, entry %d: batched %.17g, alone %.17g", name, what, (int)e, (int)n, (int)bad,
                  bad < 0 ? 0.0 : (double)out[e * m + bad], bad < 0 ? 0.0 : (double)ref[bad]);
    if (e == n - 1) break;
  }
}
static PetscErrorCode OneEnergy(SimMaterial mat, const PetscReal *F, PetscReal *out)
{
  return SimMaterialEnergy(mat, 1, F, out);
}
static PetscErrorCode OnePK1(SimMaterial mat, const PetscReal *F, PetscReal *out)
{
  return SimMaterialPK1(mat, 1, F, out);
}
static PetscErrorCode OneHessian(SimMaterial mat, const PetscReal *F, PetscReal *out)
{
  return SimMaterialHessian(mat, 1, F, PETSC_FALSE, out);
}
static PetscErrorCode OneHessianPSD(SimMaterial mat, const PetscReal *F, PetscReal *out)
{
  return SimMaterialHessian(mat, 1, F, PETSC_TRUE, out);
}

/* Symmetric 9x9 blocks; with psd, the smallest eigenvalue of the first 200 is >= -1e-8 |H|. */
static void CheckHessians(const char *name, PetscInt n, const PetscReal *H, PetscBool psd)
{
  gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(9);
  gsl_vector *eval = gsl_vector_alloc(9);
  PetscInt asym = -1;
  for (PetscInt e = 0; e < n && asym < 0; e++) {
    const PetscReal *A = H + 81 * e;
    PetscReal scale = 0;
    for (int k = 0; k < 81; k++) scale = PetscMax(scale, PetscAbsReal(A[k]));
    for (int r = 0; r < 9; r++)
      for (int c = 0; c < r; c++)
        if (PetscAbsReal(A[9 * r + c] - A[9 * c + r]) > 1e-12 * scale) asym = e;
  }
  ck_assert_msg(asym < 0, "%s: Hessian %d of the batch is not symmetric", name, (int)asym);
  for (PetscInt e = 0; psd && e < PetscMin(n, 200); e++) {
    const PetscReal *A = H + 81 * e;
    PetscReal scale = 0;
    double a[81];
    gsl_matrix_view M = gsl_matrix_view_array(a, 9, 9);
    for (int k = 0; k < 81; k++) a[k] = A[k], scale = PetscMax(scale, PetscAbsReal(A[k]));
    gsl_eigen_symm(&M.matrix, eval, w);
    if (gsl_vector_min(eval) < -1e-8 * scale)
      ck_abort_msg("%s: projected Hessian %d has eigenvalue %g (scale %g)", name, (int)e, gsl_vector_min(eval), (double)scale);
  }
  gsl_vector_free(eval);
  gsl_eigen_symm_free(w);
}

START_TEST(material_throughput)
{
  SimRegistry reg;
  PetscRandom rnd;
  PetscInt n = 100000, nmat;
  const char *env = getenv("PBSIM_MATERIAL_BENCH_N");
  PetscReal *F, *out;

  if (env) n = atoi(env);
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  CHECK_PETSC(PetscRandomSetSeed(rnd, 17));
  CHECK_PETSC(PetscRandomSeed(rnd));
  CHECK_PETSC(PetscMalloc2(9 * n, &F, 81 * n, &out));
  CHECK_PETSC(PetscArrayzero(out, 81 * n)); /* fault the pages in before timing */
  for (PetscInt e = 0; e < n; e++) {
    PetscReal s[3];
    for (int k = 0; k < 3; k++) {
      CHECK_PETSC(PetscRandomGetValueReal(rnd, &s[k]));
      s[k] += 0.5;
    }
    CHECK_PETSC(MaterialTestCompose(rnd, s, F + 9 * e));
  }
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &nmat));
  CHECK_PETSC(PetscPrintf(PETSC_COMM_SELF,
                          "material throughput, %" PetscInt_FMT " random F (evaluations per CPU second, one thread):\n", n));
  CHECK_PETSC(
      PetscPrintf(PETSC_COMM_SELF, "  %-18s %12s %12s %12s %12s\n", "material", "energy", "pk1", "hessian", "hessian+psd"));
  for (PetscInt i = 0; i < nmat; i++) {
    const SimRegEntry *e;
    SimMaterial mat;
    double t[4], dt[4]; /* process CPU time (s), robust to other load on the machine */

    CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_MATERIAL, i, &e));
    CHECK_PETSC(SimMaterialCreateWithParams(reg, e->name, 1e5, 0.3, 1000, &mat));
    /* each batch is timed alone, then checked */
    t[0] = (double)clock() / CLOCKS_PER_SEC;
    CHECK_PETSC(SimMaterialEnergy(mat, n, F, out));
    dt[0] = (double)clock() / CLOCKS_PER_SEC - t[0];
    CheckBatch(mat, e->name, "energy", n, 1, F, out, OneEnergy);
    t[1] = (double)clock() / CLOCKS_PER_SEC;
    CHECK_PETSC(SimMaterialPK1(mat, n, F, out));
    dt[1] = (double)clock() / CLOCKS_PER_SEC - t[1];
    CheckBatch(mat, e->name, "PK1", n, 9, F, out, OnePK1);
    t[2] = (double)clock() / CLOCKS_PER_SEC;
    CHECK_PETSC(SimMaterialHessian(mat, n, F, PETSC_FALSE, out));
    dt[2] = (double)clock() / CLOCKS_PER_SEC - t[2];
    CheckBatch(mat, e->name, "Hessian", n, 81, F, out, OneHessian);
    CheckHessians(e->name, n, out, PETSC_FALSE);
    t[3] = (double)clock() / CLOCKS_PER_SEC;
    CHECK_PETSC(SimMaterialHessian(mat, n, F, PETSC_TRUE, out));
    dt[3] = (double)clock() / CLOCKS_PER_SEC - t[3];
    CheckBatch(mat, e->name, "projected Hessian", n, 81, F, out, OneHessianPSD);
    CheckHessians(e->name, n, out, PETSC_TRUE);
    CHECK_PETSC(PetscPrintf(PETSC_COMM_SELF, "  %-18s %12.3e %12.3e %12.3e %12.3e\n", e->name, n / dt[0], n / dt[1], n / dt[2],
                            n / dt[3]));
    CHECK_PETSC(SimMaterialDestroy(&mat));
  }
  CHECK_PETSC(PetscFree2(F, out));
  CHECK_PETSC(PetscRandomDestroy(&rnd));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("materials");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, svd_special);
  tcase_add_test(tc, svd_random);
  tcase_add_test(tc, svd_nonfinite);
  tcase_add_test(tc, symeig3_random);
  tcase_add_test(tc, materials_registered);
  tcase_add_test(tc, materials_conformance);
  tcase_add_test(tc, materials_batched);
  tcase_add_test(tc, neohookean_inverted);
  tcase_add_test(tc, material_bad_params);
  tcase_add_test(tc, material_options);
  tcase_add_test(tc, arap_strain_limits);
  tcase_add_test(tc, psd_projection);
  tcase_add_test(tc, fibre_invariant);
  tcase_add_test(tc, material_throughput);
  suite_add_tcase(s, tc);
  return s;
}
