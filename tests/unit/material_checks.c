/* Per-material conformance checks (see material_checks.h), shared by the material tests. */
#include <stdarg.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_rng.h>
#include "material_checks.h"

void MaterialCheckFail(MaterialCheckReport *r, const char *fmt, ...)
{
  const size_t used = strlen(r->text);
  va_list ap;

  r->failures++;
  if (used + 2 >= sizeof(r->text)) return;
  va_start(ap, fmt);
  vsnprintf(r->text + used, sizeof(r->text) - used, fmt, ap);
  va_end(ap);
  if (strlen(r->text) + 2 < sizeof(r->text)) strcat(r->text, "\n");
}

/* A PETSc error of a check's computation, recorded as a failure with its message. */
static PetscBool Failed(MaterialCheckReport *r, PetscErrorCode ierr, SimMaterial mat, const char *what)
{
  char *msg = NULL;

  if (!ierr) return PETSC_FALSE;
  PetscErrorMessage(ierr, NULL, &msg);
  MaterialCheckFail(r, "%s (E %g, nu %g), %s: PETSc error: %s", mat->name, (double)mat->par.youngs, (double)mat->par.poisson,
                    what, msg ? msg : "(no message)");
  return PETSC_TRUE;
}

/* Runs a check's computation with errors returned (not printed, not aborting). */
#define TRY(ierr, call)                                                                                                          \
  do {                                                                                                                           \
    PetscPushErrorHandler(PetscReturnErrorHandler, NULL);                                                                        \
    ierr = (call);                                                                                                               \
    PetscPopErrorHandler();                                                                                                      \
  } while (0)

/* Asserts that a report is clean, printing what it found. */
static void AssertClean(const MaterialCheckReport *r)
{
  ck_assert_msg(r->failures == 0, "%d conformance failure(s):\n%s", (int)r->failures, r->text);
}

static PetscReal Norm(const PetscReal *a, PetscInt n)
{
  PetscReal s = 0;
  for (PetscInt k = 0; k < n; k++) s += a[k] * a[k];
  return PetscSqrtReal(s);
}

static void MatMul3(const PetscReal A[9], const PetscReal B[9], PetscReal C[9])
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

PetscErrorCode MaterialTestRotation(PetscRandom rnd, PetscReal R[9])
{
  PetscReal q[4], n;

  PetscFunctionBeginUser;
  do {
    for (int k = 0; k < 4; k++) {
      PetscCall(PetscRandomGetValueReal(rnd, &q[k]));
      q[k] = 2 * q[k] - 1;
    }
    n = Norm(q, 4);
  } while (n < 0.1);
  for (int k = 0; k < 4; k++) q[k] /= n;
  {
    const PetscReal w = q[0], x = q[1], y = q[2], z = q[3];
    const PetscReal M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                            2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                            2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    for (int k = 0; k < 9; k++) R[k] = M[k];
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MaterialTestCompose(PetscRandom rnd, const PetscReal s[3], PetscReal F[9])
{
  PetscReal R1[9], R2[9], D[9] = {s[0], 0, 0, 0, s[1], 0, 0, 0, s[2]}, T[9];

  PetscFunctionBeginUser;
  PetscCall(MaterialTestRotation(rnd, R1));
  PetscCall(MaterialTestRotation(rnd, R2));
  MatMul3(R1, D, T);
  MatMul3(T, R2, F);
  PetscFunctionReturn(0);
}

static PetscErrorCode AddCase(MaterialTestSet *set, PetscRandom rnd, const char *label, PetscReal s0, PetscReal s1, PetscReal s2)
{
  const PetscReal s[3] = {s0, s1, s2};

  PetscFunctionBeginUser;
  PetscCheck(set->n < MC_MAX_F, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Too many test cases");
  PetscCall(MaterialTestCompose(rnd, s, set->F[set->n]));
  PetscCall(PetscSNPrintf(set->label[set->n], sizeof(set->label[0]), "%s, s = (%.10g, %.10g, %.10g)", label, (double)s0,
                          (double)s1, (double)s2));
  set->n++;
  PetscFunctionReturn(0);
}

PetscErrorCode MaterialTestSetCreate(unsigned long seed, PetscBool inverted, MaterialTestSet *set)
{
  PetscRandom rnd;
  PetscReal s[3];

  PetscFunctionBeginUser;
  set->n = 0;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, seed));
  PetscCall(PetscRandomSeed(rnd));
  for (int c = 0; c < 10; c++) {
    for (int k = 0; k < 3; k++) {
      PetscCall(PetscRandomGetValueReal(rnd, &s[k]));
      s[k] = 0.5 + s[k];
    }
    PetscCall(AddCase(set, rnd, "random", s[0], s[1], s[2]));
  }
  PetscCall(AddCase(set, rnd, "rotation", 1, 1, 1));
  PetscCall(AddCase(set, rnd, "scaled rotation", 1.3, 1.3, 1.3));
  PetscCall(AddCase(set, rnd, "repeated pair (largest)", 1.2, 1.2, 0.7));
  PetscCall(AddCase(set, rnd, "repeated pair (smallest)", 1.4, 0.8, 0.8));
  PetscCall(AddCase(set, rnd, "nearly repeated pair", 1.1, 1.1 * (1 + 1e-9), 0.6));
  PetscCall(AddCase(set, rnd, "nearly repeated pair", 1.3, 0.9, 0.9 * (1 - 1e-7)));
  PetscCall(AddCase(set, rnd, "nearly repeated triple", 1.05, 1.05 * (1 + 1e-8), 1.05 * (1 - 1e-8)));
  PetscCall(AddCase(set, rnd, "near rest", 1 + 1e-6, 1 - 2e-6, 1 + 3e-7));
  if (inverted) {
    for (int c = 0; c < 8; c++) {
      do {
        for (int k = 0; k < 3; k++) {
          PetscCall(PetscRandomGetValueReal(rnd, &s[k]));
          s[k] = 0.5 + s[k];
        }
        PetscCall(PetscSortReal(3, s)); /* ascending: s[0] is the one to negate */
      } while (s[1] - s[0] < 0.05);
      PetscCall(AddCase(set, rnd, "inverted", s[2], s[1], -s[0]));
    }
    PetscCall(AddCase(set, rnd, "inverted, repeated pair", 1.1, 1.1, -0.7));
    PetscCall(AddCase(set, rnd, "inverted, nearly repeated pair", 1.0, 1.0 * (1 + 1e-9), -0.6));
    PetscCall(AddCase(set, rnd, "inverted, strongly compressed", 0.9, 0.6, -0.2));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* Best relative errors over the FD step sweep of P (from psi, central) and dP/dF (from P, per column
 * the closest of the central and the two one-sided differences) at one F. */
static PetscErrorCode DerivativeErrors(SimMaterial mat, const PetscReal F[9], PetscReal *perr, PetscReal *herr, PetscReal *hbest)
{
  static const PetscReal steps[] = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7};
  PetscReal P[9], H[81], Fp[18 * 9], psi[18], Pp[18 * 9], pscale, hscale;

  PetscFunctionBeginUser;
  PetscCall(SimMaterialPK1(mat, 1, F, P));
  PetscCall(SimMaterialHessian(mat, 1, F, PETSC_FALSE, H));
  pscale = PetscMax(Norm(P, 9), mat->par.mu);
  hscale = PetscMax(Norm(H, 81), mat->par.mu);
  *perr = *herr = PETSC_INFINITY;
  for (size_t t = 0; t < sizeof(steps) / sizeof(steps[0]); t++) {
    const PetscReal h = steps[t];
    PetscReal pe = 0, he = 0;
    for (int kl = 0; kl < 9; kl++) {
      for (int c = 0; c < 9; c++) Fp[9 * (2 * kl) + c] = Fp[9 * (2 * kl + 1) + c] = F[c];
      Fp[9 * (2 * kl) + kl] += h;
      Fp[9 * (2 * kl + 1) + kl] -= h;
    }
    PetscCall(SimMaterialEnergy(mat, 18, Fp, psi));
    PetscCall(SimMaterialPK1(mat, 18, Fp, Pp));
    for (int kl = 0; kl < 9; kl++) {
      const PetscReal d = (psi[2 * kl] - psi[2 * kl + 1]) / (2 * h) - P[kl];
      PetscReal ec = 0, ef = 0, eb = 0;
      pe += d * d;
      for (int ij = 0; ij < 9; ij++) {
        const PetscReal plus = Pp[9 * (2 * kl) + ij], minus = Pp[9 * (2 * kl + 1) + ij], a = H[9 * ij + kl];
        ec += PetscSqr((plus - minus) / (2 * h) - a);
        ef += PetscSqr((plus - P[ij]) / h - a);
        eb += PetscSqr((P[ij] - minus) / h - a);
      }
      he += PetscMin(ec, PetscMin(ef, eb));
    }
    pe = PetscSqrtReal(pe) / pscale;
    he = PetscSqrtReal(he) / hscale;
    *perr = PetscMin(*perr, pe);
    if (he < *herr) *herr = he, *hbest = h;
  }
  PetscFunctionReturn(0);
}

void MaterialCheckDerivativesReport(SimMaterial mat, const MaterialTestSet *set, MaterialCheckReport *r)
{
  for (PetscInt c = 0; c < set->n; c++) {
    PetscReal perr, herr, h = 0;
    PetscErrorCode ierr;
    TRY(ierr, DerivativeErrors(mat, set->F[c], &perr, &herr, &h));
    if (Failed(r, ierr, mat, set->label[c])) continue;
    if (!(perr < 1e-6))
      MaterialCheckFail(r, "%s (E %g, nu %g), %s: P differs from finite differences of psi by %g (relative, best step)",
                        mat->name, (double)mat->par.youngs, (double)mat->par.poisson, set->label[c], (double)perr);
    if (!(herr < 1e-6))
      MaterialCheckFail(r, "%s (E %g, nu %g), %s: dP/dF differs from finite differences of P by %g (relative, best step %g)",
                        mat->name, (double)mat->par.youngs, (double)mat->par.poisson, set->label[c], (double)herr, (double)h);
  }
}

void MaterialCheckDerivatives(SimMaterial mat, const MaterialTestSet *set)
{
  MaterialCheckReport r = {0};
  MaterialCheckDerivativesReport(mat, set, &r);
  AssertClean(&r);
}

static PetscErrorCode RestValues(SimMaterial mat, unsigned long seed, PetscReal psi[6], PetscReal P[6 * 9])
{
  PetscRandom rnd;
  PetscReal R[6][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 1}};

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, seed));
  PetscCall(PetscRandomSeed(rnd));
  for (int k = 1; k < 6; k++) PetscCall(MaterialTestRotation(rnd, R[k]));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(SimMaterialEnergy(mat, 6, &R[0][0], psi));
  PetscCall(SimMaterialPK1(mat, 6, &R[0][0], P));
  PetscFunctionReturn(0);
}

void MaterialCheckRestReport(SimMaterial mat, unsigned long seed, MaterialCheckReport *r)
{
  PetscReal psi[6], P[6 * 9];
  const PetscReal tol = 1e-10 * (mat->par.mu + PetscAbsReal(mat->par.lambda));
  PetscErrorCode ierr;

  TRY(ierr, RestValues(mat, seed, psi, P));
  if (Failed(r, ierr, mat, "rest state")) return;
  for (int k = 0; k < 6; k++) {
    if (!(PetscAbsReal(psi[k]) < tol))
      MaterialCheckFail(r, "%s (E %g, nu %g): psi(R) = %g at rotation %d, should be 0", mat->name, (double)mat->par.youngs,
                        (double)mat->par.poisson, (double)psi[k], k);
    if (!(Norm(P + 9 * k, 9) < tol))
      MaterialCheckFail(r, "%s (E %g, nu %g): |P(R)| = %g at rotation %d, should be 0", mat->name, (double)mat->par.youngs,
                        (double)mat->par.poisson, (double)Norm(P + 9 * k, 9), k);
  }
}

void MaterialCheckRest(SimMaterial mat, unsigned long seed)
{
  MaterialCheckReport r = {0};
  MaterialCheckRestReport(mat, seed, &r);
  AssertClean(&r);
}

/* Symmetry, smallest eigenvalue of the projection and distance to GSL clamping, all relative to
 * |dP/dF| at one F. */
static PetscErrorCode ProjectionErrors(SimMaterial mat, const PetscReal F[9], PetscReal *asym, PetscReal *minev, PetscReal *clamp)
{
  PetscReal H[81], Hp[81], Hc[81] = {0}, A[81], hn, d = 0, a = 0;
  gsl_matrix_view Av = gsl_matrix_view_array(A, 9, 9);
  gsl_vector *eval = gsl_vector_alloc(9);
  gsl_matrix *evec = gsl_matrix_alloc(9, 9);
  gsl_eigen_symmv_workspace *wv = gsl_eigen_symmv_alloc(9);
  gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(9);

  PetscFunctionBeginUser;
  PetscCall(SimMaterialHessian(mat, 1, F, PETSC_FALSE, H));
  PetscCall(SimMaterialHessian(mat, 1, F, PETSC_TRUE, Hp));
  hn = PetscMax(Norm(H, 81), mat->par.mu);
  for (int r = 0; r < 9; r++)
    for (int c = 0; c < 9; c++) a += (H[9 * r + c] - H[9 * c + r]) * (H[9 * r + c] - H[9 * c + r]);
  *asym = PetscSqrtReal(a) / hn;
  /* numerical clamping: H = Q diag(l) Q^T by GSL, Hc = Q diag(max(l, 0)) Q^T */
  for (int k = 0; k < 81; k++) A[k] = H[k];
  PetscCheck(!gsl_eigen_symmv(&Av.matrix, eval, evec, wv), PETSC_COMM_SELF, PETSC_ERR_LIB, "gsl_eigen_symmv failed");
  for (int m = 0; m < 9; m++) {
    const PetscReal l = PetscMax(gsl_vector_get(eval, m), 0.0);
    for (int r = 0; r < 9; r++)
      for (int c = 0; c < 9; c++) Hc[9 * r + c] += l * gsl_matrix_get(evec, r, m) * gsl_matrix_get(evec, c, m);
  }
  for (int k = 0; k < 81; k++) d += (Hp[k] - Hc[k]) * (Hp[k] - Hc[k]);
  *clamp = PetscSqrtReal(d) / hn;
  for (int k = 0; k < 81; k++) A[k] = Hp[k];
  PetscCheck(!gsl_eigen_symm(&Av.matrix, eval, w), PETSC_COMM_SELF, PETSC_ERR_LIB, "gsl_eigen_symm failed");
  *minev = gsl_vector_min(eval) / hn;
  gsl_eigen_symm_free(w);
  gsl_eigen_symmv_free(wv);
  gsl_matrix_free(evec);
  gsl_vector_free(eval);
  PetscFunctionReturn(0);
}

void MaterialCheckProjectionReport(SimMaterial mat, const MaterialTestSet *set, MaterialCheckReport *r)
{
  for (PetscInt c = 0; c < set->n; c++) {
    PetscReal asym, minev, clamp;
    PetscErrorCode ierr;
    TRY(ierr, ProjectionErrors(mat, set->F[c], &asym, &minev, &clamp));
    if (Failed(r, ierr, mat, set->label[c])) continue;
    if (!(asym < 1e-12))
      MaterialCheckFail(r, "%s (E %g, nu %g), %s: dP/dF is not symmetric (relative asymmetry %g)", mat->name,
                        (double)mat->par.youngs, (double)mat->par.poisson, set->label[c], (double)asym);
    if (!(minev > -1e-8))
      MaterialCheckFail(r, "%s (E %g, nu %g), %s: projected dP/dF has eigenvalue %g (relative) < 0", mat->name,
                        (double)mat->par.youngs, (double)mat->par.poisson, set->label[c], (double)minev);
    if (!(clamp < 1e-8))
      MaterialCheckFail(r, "%s (E %g, nu %g), %s: projected dP/dF differs from GSL eigenvalue clamping by %g (relative)",
                        mat->name, (double)mat->par.youngs, (double)mat->par.poisson, set->label[c], (double)clamp);
  }
}

void MaterialCheckProjection(SimMaterial mat, const MaterialTestSet *set)
{
  MaterialCheckReport r = {0};
  MaterialCheckProjectionReport(mat, set, &r);
  AssertClean(&r);
}

static PetscErrorCode RestTensorErrors(SimMaterial mat, PetscReal mu_f, PetscReal lambda_f, PetscReal *e0, PetscReal *e1)
{
  const PetscReal mu = mu_f * mat->par.mu, lambda = lambda_f * mat->par.lambda;
  PetscReal C[81], CR[81], F[2][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 1}}, H[2 * 81], cn, a0 = 0, a1 = 0;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++)
          C[9 * (3 * i + j) + 3 * k + l] = mu * ((i == k && j == l) + (i == l && j == k)) + lambda * (i == j && k == l);
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 11));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(MaterialTestRotation(rnd, F[1]));
  PetscCall(PetscRandomDestroy(&rnd));
  /* frame indifference: dP/dF(R)_ijkl = sum_ac R_ia R_kc C_ajcl */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) {
          PetscReal s = 0;
          for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++) s += F[1][3 * i + a] * F[1][3 * k + c] * C[9 * (3 * a + j) + 3 * c + l];
          CR[9 * (3 * i + j) + 3 * k + l] = s;
        }
  PetscCall(SimMaterialHessian(mat, 2, &F[0][0], PETSC_FALSE, H));
  for (int k = 0; k < 81; k++) {
    a0 += (H[k] - C[k]) * (H[k] - C[k]);
    a1 += (H[81 + k] - CR[k]) * (H[81 + k] - CR[k]);
  }
  cn = Norm(C, 81);
  *e0 = PetscSqrtReal(a0) / cn;
  *e1 = PetscSqrtReal(a1) / cn;
  PetscFunctionReturn(0);
}

void MaterialCheckRestTensorReport(SimMaterial mat, PetscReal mu_f, PetscReal lambda_f, MaterialCheckReport *r)
{
  PetscReal e0, e1;
  PetscErrorCode ierr;

  TRY(ierr, RestTensorErrors(mat, mu_f, lambda_f, &e0, &e1));
  if (Failed(r, ierr, mat, "rest tensor")) return;
  if (!(e0 < 1e-10))
    MaterialCheckFail(
        r, "%s (E %g, nu %g): dP/dF(I) differs from the linear elastic tensor (mu = %g mu, lambda = %g lambda) by %g (relative)",
        mat->name, (double)mat->par.youngs, (double)mat->par.poisson, (double)mu_f, (double)lambda_f, (double)e0);
  if (!(e1 < 1e-10))
    MaterialCheckFail(r, "%s (E %g, nu %g): dP/dF(R) differs from the rotated linear elastic tensor by %g (relative)", mat->name,
                      (double)mat->par.youngs, (double)mat->par.poisson, (double)e1);
}

void MaterialCheckRestTensor(SimMaterial mat, PetscReal mu_f, PetscReal lambda_f)
{
  MaterialCheckReport r = {0};
  MaterialCheckRestTensorReport(mat, mu_f, lambda_f, &r);
  AssertClean(&r);
}

void MaterialCheckAllReport(SimMaterial mat, PetscReal mu_f, PetscReal lambda_f, MaterialCheckReport *r)
{
  MaterialTestSet set;

  CHECK_PETSC(MaterialTestSetCreate(2024, mat->inversion_safe, &set));
  MaterialCheckDerivativesReport(mat, &set, r);
  MaterialCheckProjectionReport(mat, &set, r);
  MaterialCheckRestReport(mat, 7, r);
  MaterialCheckRestTensorReport(mat, mu_f, lambda_f, r);
}

void MaterialCheckAll(SimMaterial mat, PetscReal mu_f, PetscReal lambda_f)
{
  MaterialCheckReport r = {0};
  MaterialCheckAllReport(mat, mu_f, lambda_f, &r);
  AssertClean(&r);
}

/* ---- draws over the declared parameter ranges ---- */

/* One parameter set drawn into mat (see material_checks.h); *ierr is the material's answer (0, or a
 * refusal by its setup); `desc` receives the drawn values. */
static PetscErrorCode DrawParameters(SimMaterial mat, gsl_rng *rng, char *desc, size_t len, PetscErrorCode *ierr)
{
  PetscInt counts[16][2], ncounts = 0; /* count_offset -> drawn count */
  size_t used;

  PetscFunctionBeginUser;
  *ierr = 0;
  used = strlen(desc);
  for (PetscInt k = 0; k < mat->nparams && !*ierr; k++) {
    const SimMaterialParam *p = &mat->params[k];
    PetscReal v[SIM_MATERIAL_PARAM_MAX];
    PetscInt n = p->n;

    if (p->count) { /* one count per count_offset */
      PetscInt found = -1;
      for (PetscInt j = 0; j < ncounts; j++)
        if (counts[j][0] == (PetscInt)p->count_offset) found = j;
      if (found < 0) {
        PetscCheck(ncounts < 16, PETSC_COMM_SELF, PETSC_ERR_SUP, "too many counted parameters");
        counts[ncounts][0] = (PetscInt)p->count_offset,
        counts[ncounts][1] = 1 + (PetscInt)gsl_rng_uniform_int(rng, (unsigned long)p->n);
        found = ncounts++;
      }
      n = counts[found][1];
    }
    for (PetscInt i = 0; i < n; i++) v[i] = p->lo + (p->hi - p->lo) * gsl_rng_uniform(rng);
    for (PetscInt i = 0; i < n && used + 40 < len; i++) {
      snprintf(desc + used, len - used, "%s%s%s%.6g", i ? "," : " ", i ? "" : p->name, i ? "" : " ", (double)v[i]);
      used = strlen(desc);
    }
    TRY(*ierr, SimMaterialSetParameter(mat, p->name, n, v));
  }
  PetscFunctionReturn(0);
}

void MaterialCheckRangesReport(SimRegistry reg, const char *name, PetscReal mu_f, PetscReal lambda_f, unsigned long seed,
                               PetscInt ndraws, MaterialCheckReport *r)
{
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

  gsl_rng_set(rng, seed);
  for (PetscInt d = 0; d < ndraws; d++) {
    SimMaterial mat = NULL;
    MaterialTestSet set;
    MaterialCheckReport one = {0};
    char desc[512];
    PetscInt tries;

    for (tries = 0; tries < 20; tries++) {
      const PetscReal E = PetscPowReal(10.0, 3 + 5 * gsl_rng_uniform(rng)), nu = -0.5 + 0.99 * gsl_rng_uniform(rng);
      PetscErrorCode ierr;

      CHECK_PETSC(SimMaterialDestroy(&mat));
      TRY(ierr, SimMaterialCreateWithParams(reg, name, E, nu, 1000, &mat));
      if (ierr) continue; /* refused at creation (e.g. a constant the setup checks) */
      snprintf(desc, sizeof(desc), "E %.6g nu %.6g", (double)E, (double)nu);
      if (mat->strain_limits) {
        mat->par.strain_min = 0.5 + 0.5 * gsl_rng_uniform(rng);
        mat->par.strain_max = 1 + 0.5 * gsl_rng_uniform(rng);
        snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), " strain limits [%.6g, %.6g]", (double)mat->par.strain_min,
                 (double)mat->par.strain_max);
      }
      CHECK_PETSC(DrawParameters(mat, rng, desc, sizeof(desc), &ierr));
      if (!ierr) break;
    }
    if (tries == 20) {
      MaterialCheckFail(r, "%s: 20 parameter draws in a row were refused (last: %s)", name, mat ? desc : "at creation");
      CHECK_PETSC(SimMaterialDestroy(&mat));
      continue;
    }
    CHECK_PETSC(MaterialTestSetCreate(seed + 1000 * (unsigned long)d, mat->inversion_safe, &set));
    MaterialCheckDerivativesReport(mat, &set, &one);
    MaterialCheckProjectionReport(mat, &set, &one);
    MaterialCheckRestReport(mat, seed + d, &one);
    if (!mat->strain_limits) MaterialCheckRestTensorReport(mat, mu_f, lambda_f, &one); /* inside a band dP/dF(I) = 0 */
    if (one.failures)
      MaterialCheckFail(r, "%s at the drawn parameters %s: %d failure(s):\n%s", name, desc, (int)one.failures, one.text);
    r->failures += one.failures - (one.failures ? 1 : 0); /* MaterialCheckFail counted the draw once */
    CHECK_PETSC(SimMaterialDestroy(&mat));
  }
  gsl_rng_free(rng);
}

void MaterialCheckRanges(SimRegistry reg, const char *name, PetscReal mu_f, PetscReal lambda_f, unsigned long seed,
                         PetscInt ndraws)
{
  MaterialCheckReport r = {0};
  MaterialCheckRangesReport(reg, name, mu_f, lambda_f, seed, ndraws, &r);
  AssertClean(&r);
}
