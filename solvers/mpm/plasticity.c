/* The plasticity registry of the mpm solver (one row per return mapping) and the SVD helpers the
 * models share; "none" (purely elastic) is here, the others in snow.c, sand.c, fluid.c. */
#include "solvers/mpm/mpm.h"
#include "framework/text.h"
#include "framework/linalg/svd3.h"
#include <immintrin.h>

extern const MPMPlasticityType MPMPlasticity_Snow, MPMPlasticity_Sand, MPMPlasticity_Fluid;

/* Elastic: F is kept; only its SVD is taken (for the material's stress). */
static void Project_None(const MPMPlasticity pl, PetscInt dim, PetscInt n, PetscReal *F, PetscReal *state, PetscReal *dec, PetscReal *scale)
{
  for (PetscInt p = 0; p < n; p++) {
    MPMSvdDim(dim, F + 9 * p, dec + 21 * p);
    scale[p] = 1;
  }
}

static const MPMPlasticityType MPMPlasticity_None = {
  .name = "none", .help = "elastic: no yield", .state0 = 0, .state_name = "unused (0)", .project = Project_None};

/* The table: one line per model. */
static const MPMPlasticityType *const types[] = {&MPMPlasticity_None, &MPMPlasticity_Snow, &MPMPlasticity_Sand, &MPMPlasticity_Fluid};

PetscErrorCode MPMPlasticityNames(char *buf, size_t len)
{
  PetscFunctionBeginUser;
  buf[0] = 0;
  for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
    if (k) PetscCall(SimStrAppend(buf, ", ", len));
    PetscCall(SimStrAppend(buf, types[k]->name, len));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MPMPlasticityCreate(const char *name, const char *prefix, PetscReal mu, PetscReal lambda, MPMPlasticity *pl)
{
  char names[256];

  PetscFunctionBeginUser;
  for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
    if (!strcmp(types[k]->name, name)) {
      PetscCall(PetscNew(pl));
      (*pl)->type = types[k];
      (*pl)->mu = mu;
      (*pl)->lambda = lambda;
      if (types[k]->setfromoptions) PetscCall(types[k]->setfromoptions(*pl, prefix));
      PetscFunctionReturn(0);
    }
  PetscCall(MPMPlasticityNames(names, sizeof(names)));
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown plasticity '%s' (material prefix '%s'); the mpm solver has: %s", name, prefix, names);
}

PetscErrorCode MPMPlasticityDestroy(MPMPlasticity *pl)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(*pl));
  PetscFunctionReturn(0);
}

void MPMSvd2(const PetscReal F[4], PetscReal dec[21])
{
  PetscReal *U = dec, *s = dec + 9, *V = dec + 12;
  /* polar F = R S: R is the rotation by the angle of (E, H), E = (F00 + F11)/2, H = (F10 - F01)/2 */
  const PetscReal E = 0.5 * (F[0] + F[3]), H = 0.5 * (F[2] - F[1]), q = PetscSqrtReal(E * E + H * H);
  const PetscReal c = q > 0 ? E / q : 1, sn = q > 0 ? H / q : 0;
  /* S = R^T F, symmetric */
  const PetscReal s00 = c * F[0] + sn * F[2], s01 = c * F[1] + sn * F[3], s11 = -sn * F[1] + c * F[3];
  /* eigenpairs of S: lambda = m +- r; the eigenvector of the larger from the better-conditioned row */
  const PetscReal m = 0.5 * (s00 + s11), d = 0.5 * (s00 - s11), r = PetscSqrtReal(d * d + s01 * s01);
  PetscReal vx = 1, vy = 0;
  if (r > 0) {
    if (d >= 0) vx = d + r, vy = s01; /* (S - lambda1 I) columns: (d + r, s01) or (s01, r - d) */
    else vx = s01, vy = r - d;
    const PetscReal l = PetscSqrtReal(vx * vx + vy * vy);
    vx /= l, vy /= l;
  }
  for (int k = 0; k < 9; k++) U[k] = V[k] = 0;
  U[8] = V[8] = 1;
  s[0] = m + r, s[1] = m - r, s[2] = 1;
  V[0] = vx, V[1] = -vy, V[3] = vy, V[4] = vx; /* V = [v, perp(v)] */
  U[0] = c * vx - sn * vy, U[1] = -(c * vy + sn * vx), U[3] = sn * vx + c * vy, U[4] = c * vx - sn * vy; /* U = R V */
}

PetscErrorCode MPMSvd(PetscInt dim, const PetscReal F[9], PetscReal dec[21])
{
  PetscFunctionBeginUser;
  if (dim == 2) {
    const PetscReal F2[4] = {F[0], F[1], F[3], F[4]};
    MPMSvd2(F2, dec);
  } else PetscCall(SimSvd3(F, dec, dec + 9, dec + 12));
  PetscFunctionReturn(0);
}

void MPMComposeSvd(const PetscReal dec[21], PetscReal F[9])
{
  const PetscReal *U = dec, *s = dec + 9, *V = dec + 12;

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) F[3 * i + j] = U[3 * i] * s[0] * V[3 * j] + U[3 * i + 1] * s[1] * V[3 * j + 1] + U[3 * i + 2] * s[2] * V[3 * j + 2];
}

PetscBool MPMPolarNewton(const PetscReal F[9], PetscReal R[9])
{
  PetscReal X[9];
  PetscBool scaled = PETSC_TRUE;

  for (int k = 0; k < 9; k++) X[k] = F[k];
  for (int it = 0; it < 30; it++) {
    /* X^-T = cof(X) / det X */
    const PetscReal c[9] = {X[4] * X[8] - X[5] * X[7], X[5] * X[6] - X[3] * X[8], X[3] * X[7] - X[4] * X[6],
                            X[2] * X[7] - X[1] * X[8], X[0] * X[8] - X[2] * X[6], X[1] * X[6] - X[0] * X[7],
                            X[1] * X[5] - X[2] * X[4], X[2] * X[3] - X[0] * X[5], X[0] * X[4] - X[1] * X[3]};
    const PetscReal det = X[0] * c[0] + X[1] * c[1] + X[2] * c[2];
    PetscReal g = 1, a, b, d2 = 0;

    if (!(det > 0)) return PETSC_FALSE;
    if (scaled) { /* g = (|X^-1|_F / |X|_F)^(1/2) */
      PetscReal nx = 0, nc = 0;
      for (int k = 0; k < 9; k++) nx += X[k] * X[k], nc += c[k] * c[k];
      g = PetscSqrtReal(PetscSqrtReal(nc / (nx * det * det)));
    }
    a = 0.5 * g, b = 0.5 / (g * det);
    for (int k = 0; k < 9; k++) {
      const PetscReal y = a * X[k] + b * c[k], e = y - X[k];
      d2 += e * e;
      X[k] = y;
    }
    if (d2 < 1e-4) scaled = PETSC_FALSE; /* near R: unscaled steps converge quadratically */
    if (d2 <= 1e-18) {
      for (int k = 0; k < 9; k++) R[k] = X[k];
      return PETSC_TRUE;
    }
  }
  return PETSC_FALSE;
}

PetscErrorCode MPMCorotatedStress(PetscInt dim, PetscInt n, const PetscReal *F9, const PetscReal *vol, PetscReal mu, PetscReal lambda, PetscReal *tau,
                                  PetscReal *J)
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    const PetscReal *F = F9 + 9 * q;
    if (dim == 2) { /* R: the rotation by the angle of (F00 + F11, F10 - F01) (MPMSvd2) */
      const PetscReal E = 0.5 * (F[0] + F[4]), H = 0.5 * (F[3] - F[1]), r = PetscSqrtReal(E * E + H * H), cs = r > 0 ? E / r : 1, sn = r > 0 ? H / r : 0;
      const PetscReal Jq = F[0] * F[4] - F[1] * F[3], iso = lambda * (Jq - 1) * Jq, m2 = 2 * mu, v = vol[q];
      /* (F - R) F^T, R = [c -s; s c] */
      const PetscReal D0 = F[0] - cs, D1 = F[1] + sn, D3 = F[3] - sn, D4 = F[4] - cs;
      tau[3 * q] = v * (m2 * (D0 * F[0] + D1 * F[1]) + iso);
      tau[3 * q + 1] = v * (m2 * (D3 * F[3] + D4 * F[4]) + iso);
      tau[3 * q + 2] = v * m2 * (D0 * F[3] + D1 * F[4]);
      J[q] = Jq;
    } else {
      PetscReal R[9], Dm[9], T[3][3];
      const PetscReal Jq = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) + F[2] * (F[3] * F[7] - F[4] * F[6]);
      const PetscReal iso = lambda * (Jq - 1) * Jq, m2 = 2 * mu, v = vol[q];
      if (!MPMPolarNewton(F, R)) PetscCall(SimPolar3(F, R, NULL));
      for (int k = 0; k < 9; k++) Dm[k] = F[k] - R[k];
      for (int r = 0; r < 3; r++)
        for (int e = r; e < 3; e++) T[r][e] = v * (m2 * (Dm[3 * r] * F[3 * e] + Dm[3 * r + 1] * F[3 * e + 1] + Dm[3 * r + 2] * F[3 * e + 2]) + (r == e ? iso : 0));
      PetscReal *t = tau + 6 * q;
      t[0] = T[0][0], t[1] = T[1][1], t[2] = T[2][2], t[3] = T[0][1], t[4] = T[1][2], t[5] = T[0][2];
      J[q] = Jq;
    }
  }
  PetscFunctionReturn(0);
}

void MPMCorotatedStressSvd(PetscInt dim, PetscInt n, const PetscReal *dec, const PetscReal *vol, const PetscReal *scale, PetscReal mu, PetscReal lambda,
                           PetscReal *tau)
{
  for (PetscInt q = 0; q < n; q++) {
    const PetscReal *U = dec + SIM_ISOTROPIC_NDEC * q, *s = U + 9, c = vol[q] * scale[q], J = s[0] * s[1] * s[2], iso = lambda * (J - 1) * J, m2 = 2 * mu;
    const PetscReal a[3] = {m2 * s[0] * (s[0] - 1), m2 * s[1] * (s[1] - 1), m2 * s[2] * (s[2] - 1)};
    if (dim == 2) { /* U's 2 x 2 block; s[2] = 1 */
      tau[3 * q] = c * (U[0] * U[0] * a[0] + U[1] * U[1] * a[1] + iso);
      tau[3 * q + 1] = c * (U[3] * U[3] * a[0] + U[4] * U[4] * a[1] + iso);
      tau[3 * q + 2] = c * (U[0] * U[3] * a[0] + U[1] * U[4] * a[1]);
    } else {
      PetscReal T[3][3], *t = tau + 6 * q;
      for (int r = 0; r < 3; r++)
        for (int e = r; e < 3; e++) T[r][e] = c * (U[3 * r] * U[3 * e] * a[0] + U[3 * r + 1] * U[3 * e + 1] * a[1] + U[3 * r + 2] * U[3 * e + 2] * a[2] + (r == e ? iso : 0));
      t[0] = T[0][0], t[1] = T[1][1], t[2] = T[2][2], t[3] = T[0][1], t[4] = T[1][2], t[5] = T[0][2];
    }
  }
}

/* MPMCorotatedStress in 3D on four particles at once in AVX registers: the same Newton iteration per
 * lane (a lane stops where the scalar loop would return: converged, det X <= 0 or 30 iterations; a
 * converged lane's X is its R), the same operations in the same order, so without fused multiply-add
 * bit for bit the scalar results; a lane that fails takes SimPolar3 as the scalar code does. The
 * stresses go back to the particles by a 4 x 4 transpose (moves only). Inlined into an AVX and an
 * AVX2 + FMA function (where GCC contracts a * b + c: round-off apart). */
static inline __attribute__((always_inline, target("avx"))) PetscErrorCode CorotatedStress3Lanes(const PetscReal *F9, const PetscReal *vol, PetscReal mu,
                                                                                                  PetscReal lambda, PetscReal *tau, PetscReal *J)
{
  __m256d F[9], X[9];
  const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1), half = _mm256_set1_pd(0.5);
  __m256d active = _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), scaled = active, failed = zero;
  int fail;

  PetscFunctionBeginUser;
  for (int k = 0; k < 9; k++) F[k] = X[k] = _mm256_set_pd(F9[27 + k], F9[18 + k], F9[9 + k], F9[k]);
  for (int it = 0; it < 30 && _mm256_movemask_pd(active); it++) {
    const __m256d c[9] = {X[4] * X[8] - X[5] * X[7], X[5] * X[6] - X[3] * X[8], X[3] * X[7] - X[4] * X[6],
                          X[2] * X[7] - X[1] * X[8], X[0] * X[8] - X[2] * X[6], X[1] * X[6] - X[0] * X[7],
                          X[1] * X[5] - X[2] * X[4], X[2] * X[3] - X[0] * X[5], X[0] * X[4] - X[1] * X[3]};
    const __m256d det = X[0] * c[0] + X[1] * c[1] + X[2] * c[2], bad = _mm256_andnot_pd(_mm256_cmp_pd(det, zero, _CMP_GT_OQ), active);
    __m256d g = one, a, b, d2 = zero, conv;
    failed = _mm256_or_pd(failed, bad);
    active = _mm256_andnot_pd(bad, active);
    if (_mm256_movemask_pd(_mm256_and_pd(scaled, active))) { /* some lane still scales: g = (|X^-1|_F / |X|_F)^(1/2) there */
      __m256d nx = zero, nc = zero;
      for (int k = 0; k < 9; k++) nx += X[k] * X[k], nc += c[k] * c[k];
      g = _mm256_blendv_pd(one, _mm256_sqrt_pd(_mm256_sqrt_pd(nc / (nx * det * det))), scaled);
    }
    a = half * g, b = half / (g * det);
    for (int k = 0; k < 9; k++) {
      const __m256d y = a * X[k] + b * c[k], e = y - X[k];
      d2 += e * e;
      X[k] = _mm256_blendv_pd(X[k], y, active);
    }
    scaled = _mm256_andnot_pd(_mm256_cmp_pd(d2, _mm256_set1_pd(1e-4), _CMP_LT_OQ), scaled);
    conv = _mm256_and_pd(_mm256_cmp_pd(d2, _mm256_set1_pd(1e-18), _CMP_LE_OQ), active);
    active = _mm256_andnot_pd(conv, active);
  }
  fail = _mm256_movemask_pd(_mm256_or_pd(failed, active));
  if (fail) { /* the scalar code's fallback, lane by lane */
    PetscReal r4[9][4];
    for (int k = 0; k < 9; k++) _mm256_storeu_pd(r4[k], X[k]);
    for (int l = 0; l < 4; l++)
      if (fail & (1 << l)) {
        PetscReal Rl[9];
        PetscCall(SimPolar3(F9 + 9 * l, Rl, NULL));
        for (int k = 0; k < 9; k++) r4[k][l] = Rl[k];
      }
    for (int k = 0; k < 9; k++) X[k] = _mm256_loadu_pd(r4[k]);
  }
  {
    const __m256d Jq = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) + F[2] * (F[3] * F[7] - F[4] * F[6]);
    const __m256d iso = _mm256_set1_pd(lambda) * (Jq - one) * Jq, m2 = _mm256_set1_pd(2 * mu), v = _mm256_loadu_pd(vol);
    const int rr[6] = {0, 1, 2, 0, 1, 0}, ee[6] = {0, 1, 2, 1, 2, 2};
    __m256d Dm[9], t[6];
    for (int k = 0; k < 9; k++) Dm[k] = F[k] - X[k];
    for (int q = 0; q < 6; q++) {
      const int r = rr[q], e = ee[q];
      t[q] = v * (m2 * (Dm[3 * r] * F[3 * e] + Dm[3 * r + 1] * F[3 * e + 1] + Dm[3 * r + 2] * F[3 * e + 2]) + (r == e ? iso : zero));
    }
    { /* lanes to particles: t[0..3] by a 4 x 4 transpose, t[4..5] by pairs */
      const __m256d u0 = _mm256_unpacklo_pd(t[0], t[1]), u1 = _mm256_unpackhi_pd(t[0], t[1]), u2 = _mm256_unpacklo_pd(t[2], t[3]), u3 = _mm256_unpackhi_pd(t[2], t[3]);
      const __m256d w0 = _mm256_unpacklo_pd(t[4], t[5]), w1 = _mm256_unpackhi_pd(t[4], t[5]);
      _mm256_storeu_pd(tau, _mm256_permute2f128_pd(u0, u2, 0x20));
      _mm256_storeu_pd(tau + 6, _mm256_permute2f128_pd(u1, u3, 0x20));
      _mm256_storeu_pd(tau + 12, _mm256_permute2f128_pd(u0, u2, 0x31));
      _mm256_storeu_pd(tau + 18, _mm256_permute2f128_pd(u1, u3, 0x31));
      _mm_storeu_pd(tau + 4, _mm256_castpd256_pd128(w0));
      _mm_storeu_pd(tau + 10, _mm256_castpd256_pd128(w1));
      _mm_storeu_pd(tau + 16, _mm256_extractf128_pd(w0, 1));
      _mm_storeu_pd(tau + 22, _mm256_extractf128_pd(w1, 1));
    }
    _mm256_storeu_pd(J, Jq);
  }
  PetscFunctionReturn(0);
}

static __attribute__((target("avx"))) PetscErrorCode CorotatedStress3Avx4(const PetscReal *F9, const PetscReal *vol, PetscReal mu, PetscReal lambda,
                                                                          PetscReal *tau, PetscReal *J)
{
  return CorotatedStress3Lanes(F9, vol, mu, lambda, tau, J);
}

static __attribute__((target("avx2,fma"))) PetscErrorCode CorotatedStress3Fma4(const PetscReal *F9, const PetscReal *vol, PetscReal mu, PetscReal lambda,
                                                                              PetscReal *tau, PetscReal *J)
{
  return CorotatedStress3Lanes(F9, vol, mu, lambda, tau, J);
}

PetscErrorCode MPMCorotatedStress3Avx(PetscInt n, const PetscReal *F9, const PetscReal *vol, PetscReal mu, PetscReal lambda, PetscReal *tau, PetscReal *J,
                                      PetscBool fma)
{
  PetscInt q = 0;

  PetscFunctionBeginUser;
  if (fma)
    for (; q + 4 <= n; q += 4) PetscCall(CorotatedStress3Fma4(F9 + 9 * q, vol + q, mu, lambda, tau + 6 * q, J + q));
  else
    for (; q + 4 <= n; q += 4) PetscCall(CorotatedStress3Avx4(F9 + 9 * q, vol + q, mu, lambda, tau + 6 * q, J + q));
  if (q < n) PetscCall(MPMCorotatedStress(3, n - q, F9 + 9 * q, vol + q, mu, lambda, tau + 6 * q, J + q));
  PetscFunctionReturn(0);
}
