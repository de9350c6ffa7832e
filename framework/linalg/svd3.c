/* 3x3 SVD (one-sided Jacobi, rotation-variant sign convention), polar decomposition and symmetric
 * eigendecomposition (cyclic Jacobi); conventions documented in svd3.h. */
#include <math.h>
#include <immintrin.h>
#include "framework/linalg/svd3.h"
#include "framework/linalg/vec3.h"

#define SVD3_MAX_SWEEPS 40
/* Off-diagonal tolerance in units of machine epsilon: a rotation is skipped once
 * |w_p . w_q| <= SVD3_TOL eps |w_p| |w_q|; the rounding of the dot product itself is a few eps. */
#define SVD3_TOL 4.0
/* Below this length (relative to the largest entry of F, which is scaled to 1) a Gram-Schmidt
 * residual is not normalized; any unit vector orthogonal to u0 completes the frame instead. */
#define SVD3_TINY 1e-280

static const int svd3_pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};

/* t = sgn(z) / (|z| + sqrt(1 + z^2)), the smaller root of t^2 + 2 z t - 1 = 0; for |z| > 1e150
 * (z^2 would overflow) sqrt(1 + z^2) = |z| to machine precision. */
static inline PetscReal JacobiTangent(PetscReal z)
{
  const PetscReal a = PetscAbsReal(z), r = a < 1e150 ? PetscSqrtReal(1 + z * z) : a;
  return (z >= 0 ? 1.0 : -1.0) / (a + r);
}

static PetscBool AllFinite(const PetscReal A[9])
{
  for (int k = 0; k < 9; k++)
    if (!isfinite(A[k])) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Swaps columns a and b of one or two (v may be NULL) column-stored 3x3 matrices (w[k] = column k)
 * and the matching keys n[]. */
static void SwapColumns(PetscReal w[3][3], PetscReal v[3][3], PetscReal n[3], int a, int b)
{
  for (int r = 0; r < 3; r++) {
    PetscReal t = w[a][r];
    w[a][r] = w[b][r], w[b][r] = t;
    if (!v) continue;
    t = v[a][r];
    v[a][r] = v[b][r], v[b][r] = t;
  }
  PetscReal t = n[a];
  n[a] = n[b], n[b] = t;
}

/* Sorts the columns descending by n[] (three compare-swaps) and returns the permutation parity
 * (1 when odd). */
static int SortColumnsDescending(PetscReal w[3][3], PetscReal v[3][3], PetscReal n[3])
{
  int parity = 0;
  if (n[0] < n[1]) SwapColumns(w, v, n, 0, 1), parity ^= 1;
  if (n[1] < n[2]) SwapColumns(w, v, n, 1, 2), parity ^= 1;
  if (n[0] < n[1]) SwapColumns(w, v, n, 0, 1), parity ^= 1;
  return parity;
}

/* A unit vector orthogonal to the unit vector a: a x e_m for the axis e_m least aligned with a. */
static void OrthogonalUnit(const PetscReal a[3], PetscReal b[3])
{
  PetscReal e[3] = {0, 0, 0}, len;
  int m = 0;
  for (int k = 1; k < 3; k++)
    if (PetscAbsReal(a[k]) < PetscAbsReal(a[m])) m = k;
  e[m] = 1;
  Vec3Cross(a, e, b);
  len = Vec3Norm(b);
  for (int k = 0; k < 3; k++) b[k] /= len;
}

/* The end of SimSvd3 after the sweeps: W = F V / scale (w[k] = column k) and V (v[k] = column k)
 * to sigma, U, V in the documented order and signs. */
static void Svd3Finish(PetscReal w[3][3], PetscReal v[3][3], PetscReal scale, PetscReal U[9], PetscReal sigma[3], PetscReal V[9])
{
  PetscReal n[3], u[3][3], r[3], rn, d;

  /* Sort by column length; V is a product of rotations, so an odd permutation is undone in the
   * determinant by negating the last column of both V and W (F V = W still holds). */
  for (int k = 0; k < 3; k++) n[k] = Vec3Norm(w[k]);
  if (SortColumnsDescending(w, v, n))
    for (int i = 0; i < 3; i++) w[2][i] = -w[2][i], v[2][i] = -v[2][i];

  if (!(n[0] > 0)) { /* F = 0: sigma = 0, U = V so that R = U V^T = I */
    for (int k = 0; k < 3; k++) {
      sigma[k] = 0;
      for (int i = 0; i < 3; i++) u[k][i] = v[k][i];
    }
  } else {
    /* U from W = U diag(sigma): u0 = w0 / |w0|; u1 = Gram-Schmidt of w1 against u0 (or any unit
     * vector orthogonal to u0 when F has rank 1); u2 = u0 x u1, so det U = +1 and
     * sigma2 = u2 . w2 takes the sign of det F. */
    sigma[0] = n[0];
    for (int i = 0; i < 3; i++) u[0][i] = w[0][i] / n[0];
    d = Vec3Dot(u[0], w[1]);
    for (int i = 0; i < 3; i++) r[i] = w[1][i] - d * u[0][i];
    rn = Vec3Norm(r);
    if (rn > SVD3_TINY) {
      for (int i = 0; i < 3; i++) u[1][i] = r[i] / rn;
    } else
      OrthogonalUnit(u[0], u[1]);
    sigma[1] = Vec3Dot(u[1], w[1]);
    if (sigma[1] < 0) {
      sigma[1] = -sigma[1];
      for (int i = 0; i < 3; i++) u[1][i] = -u[1][i];
    }
    Vec3Cross(u[0], u[1], u[2]);
    sigma[2] = Vec3Dot(u[2], w[2]);
    for (int k = 0; k < 3; k++) sigma[k] *= scale;
  }
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      U[3 * i + k] = u[k][i];
      V[3 * i + k] = v[k][i];
    }
}

PetscErrorCode SimSvd3(const PetscReal F[9], PetscReal U[9], PetscReal sigma[3], PetscReal V[9])
{
  PetscReal w[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, scale = 0, inv;
  const PetscReal tol = SVD3_TOL * PETSC_MACHINE_EPSILON;

  PetscFunctionBeginUser;
  PetscCheck(AllFinite(F), PETSC_COMM_SELF, PETSC_ERR_FP, "SVD of a non-finite F = [%g %g %g; %g %g %g; %g %g %g]", (double)F[0],
             (double)F[1], (double)F[2], (double)F[3], (double)F[4], (double)F[5], (double)F[6], (double)F[7], (double)F[8]);
  /* work on F / max|F_ij| so that squared norms neither overflow nor underflow */
  for (int k = 0; k < 9; k++) scale = PetscMax(scale, PetscAbsReal(F[k]));
  inv = scale > 0 ? 1 / scale : 0;
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++) w[k][i] = inv * F[3 * i + k]; /* w[k] = column k of F / scale */

  /* One-sided Jacobi: rotate column pairs of W = F V until they are mutually orthogonal. For the
   * pair (p, q) with a = |w_p|^2, b = |w_q|^2, g = w_p . w_q, the rotation
   * [w_p w_q] <- [w_p w_q] [[c, s], [-s, c]] zeroes the new dot product when
   * t = s / c solves t^2 + 2 zeta t - 1 = 0, zeta = (b - a) / (2 g); the smaller root is taken. */
  for (int sweep = 0; sweep < SVD3_MAX_SWEEPS; sweep++) {
    PetscBool rotated = PETSC_FALSE;
    for (int k = 0; k < 3; k++) {
      const int p = svd3_pairs[k][0], q = svd3_pairs[k][1];
      PetscReal a = Vec3Dot(w[p], w[p]), b = Vec3Dot(w[q], w[q]), g = Vec3Dot(w[p], w[q]), zeta, t, c, s;
      if (!(PetscAbsReal(g) > tol * PetscSqrtReal(a) * PetscSqrtReal(b))) continue;
      zeta = (b - a) / (2 * g);
      t = JacobiTangent(zeta);
      c = 1 / PetscSqrtReal(1 + t * t);
      s = c * t;
      for (int i = 0; i < 3; i++) {
        PetscReal wp = w[p][i], wq = w[q][i], vp = v[p][i], vq = v[q][i];
        w[p][i] = c * wp - s * wq, w[q][i] = s * wp + c * wq;
        v[p][i] = c * vp - s * vq, v[q][i] = s * vp + c * vq;
      }
      rotated = PETSC_TRUE;
    }
    if (!rotated) break;
  }
  Svd3Finish(w, v, scale, U, sigma, V);
  PetscFunctionReturn(0);
}

/* SimSvd3 on four F at once in AVX registers: the sweeps lane by lane with the scalar operations in
 * the same order (no fused multiply-add); a lane skips a rotation where the scalar code would (the
 * old columns are kept by a blend, not multiplied by c = 1, s = 0, so even the signs of zeros
 * agree), and a lane whose sweep rotated nothing is unchanged by further sweeps (the same tests
 * give the same answer), so running the sweeps until no lane rotates is the scalar loop per lane.
 * The quantities the skipped lanes would divide by are replaced by 1 first. Then Svd3Finish per lane.
 * The caller has checked that the F are finite. */
static __attribute__((target("avx"))) void Svd3Avx4(const PetscReal *F9, PetscInt stride, PetscReal *U, PetscReal *sigma, PetscReal *V)
{
  __m256d w[3][3], v[3][3], scale, inv;
  const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1), two = _mm256_set1_pd(2), tol = _mm256_set1_pd(SVD3_TOL * PETSC_MACHINE_EPSILON);
  const __m256d sign = _mm256_set1_pd(-0.0), big = _mm256_set1_pd(1e150);

  scale = zero;
  for (int k = 0; k < 9; k++) {
    const __m256d f = _mm256_set_pd(F9[27 + k], F9[18 + k], F9[9 + k], F9[k]);
    scale = _mm256_max_pd(_mm256_andnot_pd(sign, f), scale); /* PetscMax(scale, |F|): F finite, so the same value */
  }
  {
    const __m256d pos = _mm256_cmp_pd(scale, zero, _CMP_GT_OQ);
    inv = _mm256_and_pd(pos, one / _mm256_blendv_pd(one, scale, pos));
  }
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 3; i++) {
      w[k][i] = inv * _mm256_set_pd(F9[27 + 3 * i + k], F9[18 + 3 * i + k], F9[9 + 3 * i + k], F9[3 * i + k]);
      v[k][i] = k == i ? one : zero;
    }
  for (int sweep = 0; sweep < SVD3_MAX_SWEEPS; sweep++) {
    __m256d rotated = zero;
    for (int k = 0; k < 3; k++) {
      const int p = svd3_pairs[k][0], q = svd3_pairs[k][1];
      const __m256d a = w[p][0] * w[p][0] + w[p][1] * w[p][1] + w[p][2] * w[p][2], b = w[q][0] * w[q][0] + w[q][1] * w[q][1] + w[q][2] * w[q][2];
      const __m256d g = w[p][0] * w[q][0] + w[p][1] * w[q][1] + w[p][2] * w[q][2];
      const __m256d rot = _mm256_cmp_pd(_mm256_andnot_pd(sign, g), tol * _mm256_sqrt_pd(a) * _mm256_sqrt_pd(b), _CMP_GT_OQ);
      __m256d zeta, za, zz, r, t, c, s;
      if (!_mm256_movemask_pd(rot)) continue;
      zeta = (b - a) / (two * _mm256_blendv_pd(one, g, rot));
      za = _mm256_andnot_pd(sign, zeta);
      zz = _mm256_blendv_pd(zeta, zero, _mm256_cmp_pd(za, big, _CMP_GE_OQ)); /* |z| >= 1e150: sqrt(1 + z^2) = |z| */
      r = _mm256_blendv_pd(za, _mm256_sqrt_pd(one + zz * zz), _mm256_cmp_pd(za, big, _CMP_LT_OQ));
      t = _mm256_blendv_pd(_mm256_set1_pd(-1.0), one, _mm256_cmp_pd(zeta, zero, _CMP_GE_OQ)) / (za + r);
      c = one / _mm256_sqrt_pd(one + t * t);
      s = c * t;
      for (int i = 0; i < 3; i++) {
        const __m256d wp = w[p][i], wq = w[q][i], vp = v[p][i], vq = v[q][i];
        w[p][i] = _mm256_blendv_pd(wp, c * wp - s * wq, rot), w[q][i] = _mm256_blendv_pd(wq, s * wp + c * wq, rot);
        v[p][i] = _mm256_blendv_pd(vp, c * vp - s * vq, rot), v[q][i] = _mm256_blendv_pd(vq, s * vp + c * vq, rot);
      }
      rotated = _mm256_or_pd(rotated, rot);
    }
    if (!_mm256_movemask_pd(rotated)) break;
  }
  {
    PetscReal wl[3][3][4], vl[3][3][4], sl[4];
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 3; i++) _mm256_storeu_pd(wl[k][i], w[k][i]), _mm256_storeu_pd(vl[k][i], v[k][i]);
    _mm256_storeu_pd(sl, scale);
    for (int l = 0; l < 4; l++) {
      PetscReal ww[3][3], vv[3][3];
      for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++) ww[k][i] = wl[k][i][l], vv[k][i] = vl[k][i][l];
      Svd3Finish(ww, vv, sl[l], U + stride * l, sigma + stride * l, V + stride * l);
    }
  }
}

PetscErrorCode SimSvd3Batch(PetscInt n, const PetscReal *F, PetscInt stride, PetscReal *U, PetscReal *sigma, PetscReal *V)
{
  static int avx = -1;
  PetscInt e = 0;

  PetscFunctionBeginUser;
  if (avx < 0) avx = __builtin_cpu_supports("avx") > 0;
  if (avx)
    for (; e + 4 <= n; e += 4) {
      if (!AllFinite(F + 9 * e) || !AllFinite(F + 9 * e + 9) || !AllFinite(F + 9 * e + 18) || !AllFinite(F + 9 * e + 27)) break; /* the scalar code names it */
      Svd3Avx4(F + 9 * e, stride, U + stride * e, sigma + stride * e, V + stride * e);
    }
  for (; e < n; e++) PetscCall(SimSvd3(F + 9 * e, U + stride * e, sigma + stride * e, V + stride * e));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPolar3(const PetscReal F[9], PetscReal R[9], PetscReal S[9])
{
  PetscReal U[9], sigma[3], V[9];

  PetscFunctionBeginUser;
  PetscCall(SimSvd3(F, U, sigma, V));
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      PetscReal rij = 0, sij = 0;
      for (int k = 0; k < 3; k++) {
        rij += U[3 * i + k] * V[3 * j + k];
        sij += V[3 * i + k] * sigma[k] * V[3 * j + k];
      }
      if (R) R[3 * i + j] = rij;
      if (S) S[3 * i + j] = sij;
    }
  PetscFunctionReturn(0);
}

PetscErrorCode SimSymEig3(const PetscReal A[9], PetscReal lambda[3], PetscReal Q[9])
{
  PetscReal a[3][3], q[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, norm2 = 0, l[3];
  const PetscReal eps2 = PETSC_MACHINE_EPSILON * PETSC_MACHINE_EPSILON;

  PetscFunctionBeginUser;
  PetscCheck(AllFinite(A), PETSC_COMM_SELF, PETSC_ERR_FP, "Eigendecomposition of a non-finite symmetric matrix");
  for (int i = 0; i < 3; i++)
    for (int j = i; j < 3; j++) a[i][j] = a[j][i] = A[3 * i + j];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) norm2 += a[i][j] * a[i][j];

  /* Cyclic Jacobi (Golub & Van Loan, Alg. 8.5.3): the rotation in the (p, q) plane with
   * theta = (a_qq - a_pp) / (2 a_pq), t = sgn(theta) / (|theta| + sqrt(theta^2 + 1)) zeroes a_pq. */
  for (int sweep = 0; sweep < SVD3_MAX_SWEEPS; sweep++) {
    PetscReal off2 = 2 * (a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]);
    if (off2 <= eps2 * norm2) break;
    for (int k = 0; k < 3; k++) {
      const int p = svd3_pairs[k][0], qq = svd3_pairs[k][1], o = 3 - p - qq;
      PetscReal apq = a[p][qq], theta, t, c, s, aop, aoq;
      if (apq == 0) continue;
      theta = (a[qq][qq] - a[p][p]) / (2 * apq);
      t = JacobiTangent(theta);
      c = 1 / PetscSqrtReal(1 + t * t);
      s = c * t;
      a[p][p] -= t * apq;
      a[qq][qq] += t * apq;
      a[p][qq] = a[qq][p] = 0;
      aop = a[o][p], aoq = a[o][qq];
      a[o][p] = a[p][o] = c * aop - s * aoq;
      a[o][qq] = a[qq][o] = s * aop + c * aoq;
      for (int i = 0; i < 3; i++) {
        PetscReal qp = q[p][i], qqv = q[qq][i]; /* q[k] = column k of Q */
        q[p][i] = c * qp - s * qqv, q[qq][i] = s * qp + c * qqv;
      }
    }
  }
  for (int k = 0; k < 3; k++) l[k] = a[k][k];
  if (SortColumnsDescending(q, NULL, l)) /* odd permutation: keep det Q = +1 */
    for (int i = 0; i < 3; i++) q[2][i] = -q[2][i];
  for (int i = 0; i < 3; i++) {
    lambda[i] = l[i];
    for (int k = 0; k < 3; k++) Q[3 * i + k] = q[k][i];
  }
  PetscFunctionReturn(0);
}

/* R = the rotation of the unit quaternion q = (w, x, y, z), row-major. */
static inline void QuatToRot(const PetscReal q[4], PetscReal R[9])
{
  const PetscReal w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* The unit quaternion of a rotation matrix (Shepperd 1978: from the largest of w, x, y, z, so no
 * cancellation). */
static void RotToQuat(const PetscReal R[9], PetscReal q[4])
{
  const PetscReal t = R[0] + R[4] + R[8];
  PetscReal n;

  if (t >= R[0] && t >= R[4] && t >= R[8]) {
    const PetscReal r = PetscSqrtReal(1 + t);
    q[0] = 0.5 * r, q[1] = 0.5 * (R[7] - R[5]) / r, q[2] = 0.5 * (R[2] - R[6]) / r, q[3] = 0.5 * (R[3] - R[1]) / r;
  } else if (R[0] >= R[4] && R[0] >= R[8]) {
    const PetscReal r = PetscSqrtReal(1 + R[0] - R[4] - R[8]);
    q[1] = 0.5 * r, q[0] = 0.5 * (R[7] - R[5]) / r, q[2] = 0.5 * (R[1] + R[3]) / r, q[3] = 0.5 * (R[2] + R[6]) / r;
  } else if (R[4] >= R[8]) {
    const PetscReal r = PetscSqrtReal(1 - R[0] + R[4] - R[8]);
    q[2] = 0.5 * r, q[0] = 0.5 * (R[2] - R[6]) / r, q[1] = 0.5 * (R[1] + R[3]) / r, q[3] = 0.5 * (R[5] + R[7]) / r;
  } else {
    const PetscReal r = PetscSqrtReal(1 - R[0] - R[4] + R[8]);
    q[3] = 0.5 * r, q[0] = 0.5 * (R[3] - R[1]) / r, q[1] = 0.5 * (R[2] + R[6]) / r, q[2] = 0.5 * (R[5] + R[7]) / r;
  }
  n = PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

/* Newton from q, at most maxit iterations; exact: converge (fall back to the SVD after maxit),
 * otherwise return the rotation reached after maxit steps (still a rotation, closer to the polar one). */
static PetscErrorCode Polar3Newton(const PetscReal F[9], PetscReal q[4], PetscReal R[9], PetscInt maxit, PetscBool exact, PetscBool *fallback)
{
  PetscFunctionBeginUser;
  if (fallback) *fallback = PETSC_FALSE;
  {
    PetscReal n = PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.5 && n < 2)) q[0] = 1, q[1] = q[2] = q[3] = 0, n = 1; /* not a usable start */
    for (int k = 0; k < 4; k++) q[k] /= n;
  }
  for (PetscInt it = 0; it < maxit; it++) {
    PetscReal M[9], g[3], h00, h01, h02, h11, h12, h22, tr, l10, l20, l21, d1, d2, d3, y0, y1, y2, w[3], dq[4], nq, qn[4], ww;

    QuatToRot(q, R);
    /* M = F R^T */
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) M[3 * i + j] = F[3 * i] * R[3 * j] + F[3 * i + 1] * R[3 * j + 1] + F[3 * i + 2] * R[3 * j + 2];
    g[0] = M[7] - M[5], g[1] = M[2] - M[6], g[2] = M[3] - M[1];
    tr = M[0] + M[4] + M[8];
    /* Hs = tr(M) I - sym(M), by Cholesky LDL^T; every pivot must be safely positive */
    h00 = tr - M[0], h11 = tr - M[4], h22 = tr - M[8];
    h01 = -0.5 * (M[1] + M[3]), h02 = -0.5 * (M[2] + M[6]), h12 = -0.5 * (M[5] + M[7]);
    d1 = h00;
    if (!(d1 > 1e-6 * 2 * tr)) break;
    l10 = h01 / d1, l20 = h02 / d1;
    d2 = h11 - l10 * h01;
    if (!(d2 > 1e-6 * 2 * tr)) break;
    l21 = (h12 - l20 * h01) / d2;
    d3 = h22 - l20 * h02 - l21 * l21 * d2;
    if (!(d3 > 1e-6 * 2 * tr)) break;
    y0 = g[0], y1 = g[1] - l10 * y0, y2 = g[2] - l20 * y0 - l21 * y1;
    w[2] = y2 / d3, w[1] = y1 / d2 - l21 * w[2], w[0] = y0 / d1 - l10 * w[1] - l20 * w[2];
    ww = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    if (!(ww < 1)) break; /* a step of more than a radian: not in Newton's region */
    /* R <- rot(w) R with rot(w) the quaternion (1, w/2) normalized (the Cayley map: equal to exp(w)
     * to third order, so the iteration stays quadratic) */
    dq[0] = 1, dq[1] = 0.5 * w[0], dq[2] = 0.5 * w[1], dq[3] = 0.5 * w[2];
    qn[0] = dq[0] * q[0] - dq[1] * q[1] - dq[2] * q[2] - dq[3] * q[3];
    qn[1] = dq[0] * q[1] + dq[1] * q[0] + dq[2] * q[3] - dq[3] * q[2];
    qn[2] = dq[0] * q[2] - dq[1] * q[3] + dq[2] * q[0] + dq[3] * q[1];
    qn[3] = dq[0] * q[3] + dq[1] * q[2] - dq[2] * q[1] + dq[3] * q[0];
    nq = PetscSqrtReal(qn[0] * qn[0] + qn[1] * qn[1] + qn[2] * qn[2] + qn[3] * qn[3]);
    for (int k = 0; k < 4; k++) q[k] = qn[k] / nq;
    if (ww <= 1e-18 || (!exact && it == maxit - 1)) { /* |w| <= 1e-9: the error after this step is ~|w|^2, below rounding */
      QuatToRot(q, R);
      PetscFunctionReturn(0);
    }
  }
  /* not converged, or not safely at the maximizer: the robust SVD */
  if (fallback) *fallback = PETSC_TRUE;
  PetscCall(SimPolar3(F, R, NULL));
  RotToQuat(R, q);
  PetscFunctionReturn(0);
}

PetscErrorCode SimPolar3Warm(const PetscReal F[9], PetscReal q[4], PetscReal R[9], PetscBool *fallback)
{
  PetscFunctionBeginUser;
  PetscCall(Polar3Newton(F, q, R, 12, PETSC_TRUE, fallback));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPolar3WarmSteps(const PetscReal F[9], PetscReal q[4], PetscInt nsteps, PetscReal R[9], PetscBool *fallback)
{
  PetscFunctionBeginUser;
  PetscCheck(nsteps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SimPolar3WarmSteps: %" PetscInt_FMT " steps, need >= 1", nsteps);
  PetscCall(Polar3Newton(F, q, R, nsteps, PETSC_FALSE, fallback));
  PetscFunctionReturn(0);
}

/* ---- SimPolar3WarmBatch: Polar3Newton (exact) on four elements at once in AVX registers ----
 * Each lane runs the scalar iteration's operations in the same order, without fused multiply-add,
 * and stops where the scalar loop would return (|w|^2 <= 1e-18 after a step), so its q and R are
 * bit for bit SimPolar3Warm's. A lane whose pivot or step fails the scalar tests, or that has not
 * converged after 12 iterations, is redone by the scalar code (which falls back to the SVD there as
 * SimPolar3Warm does). Pivots that failed are replaced by 1 before dividing, so no lane divides by
 * zero (the scalar code breaks before the division). */
static __attribute__((target("avx"))) PetscErrorCode Polar3WarmAvx4(const PetscReal *F9, PetscReal *q4, PetscReal *R9, PetscInt *nfallback)
{
  __m256d F[9], q[4], R[9];
  const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1), two = _mm256_set1_pd(2), half = _mm256_set1_pd(0.5);
  const __m256d mhalf = _mm256_set1_pd(-0.5), piv = _mm256_set1_pd(1e-6 * 2), tol = _mm256_set1_pd(1e-18);
  __m256d active = _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), failed = zero;
  PetscReal q0[4][4];
  int redo;

  PetscFunctionBeginUser;
  for (int l = 0; l < 4; l++)
    for (int k = 0; k < 4; k++) q0[l][k] = q4[4 * l + k];
  for (int k = 0; k < 9; k++) F[k] = _mm256_set_pd(F9[27 + k], F9[18 + k], F9[9 + k], F9[k]);
  for (int k = 0; k < 4; k++) q[k] = _mm256_set_pd(q4[12 + k], q4[8 + k], q4[4 + k], q4[k]);
  { /* the start, normalized; (1, 0, 0, 0) when not usable */
    __m256d n = _mm256_sqrt_pd(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const __m256d ok = _mm256_and_pd(_mm256_cmp_pd(n, _mm256_set1_pd(0.5), _CMP_GT_OQ), _mm256_cmp_pd(n, two, _CMP_LT_OQ));
    q[0] = _mm256_blendv_pd(one, q[0], ok);
    for (int k = 1; k < 4; k++) q[k] = _mm256_blendv_pd(zero, q[k], ok);
    n = _mm256_blendv_pd(one, n, ok);
    for (int k = 0; k < 4; k++) q[k] = q[k] / n;
  }
  for (int it = 0; it < 12 && _mm256_movemask_pd(active); it++) {
    const __m256d w = q[0], x = q[1], y = q[2], z = q[3];
    __m256d M[9], Rt[9], g0, g1, g2, tr, h00, h01, h02, h11, h12, h22, d1, d2, d3, l10, l20, l21, y0, y1, y2, w0, w1, w2, ww, ok, t;
    __m256d dq1, dq2, dq3, qn[4], nq, conv;

    Rt[0] = one - two * (y * y + z * z), Rt[1] = two * (x * y - w * z), Rt[2] = two * (x * z + w * y);
    Rt[3] = two * (x * y + w * z), Rt[4] = one - two * (x * x + z * z), Rt[5] = two * (y * z - w * x);
    Rt[6] = two * (x * z - w * y), Rt[7] = two * (y * z + w * x), Rt[8] = one - two * (x * x + y * y);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) M[3 * i + j] = F[3 * i] * Rt[3 * j] + F[3 * i + 1] * Rt[3 * j + 1] + F[3 * i + 2] * Rt[3 * j + 2];
    g0 = M[7] - M[5], g1 = M[2] - M[6], g2 = M[3] - M[1];
    tr = M[0] + M[4] + M[8];
    h00 = tr - M[0], h11 = tr - M[4], h22 = tr - M[8];
    h01 = mhalf * (M[1] + M[3]), h02 = mhalf * (M[2] + M[6]), h12 = mhalf * (M[5] + M[7]);
    t = piv * tr;
    d1 = h00;
    ok = _mm256_cmp_pd(d1, t, _CMP_GT_OQ);
    d1 = _mm256_blendv_pd(one, d1, ok);
    l10 = h01 / d1, l20 = h02 / d1;
    d2 = h11 - l10 * h01;
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(d2, t, _CMP_GT_OQ));
    d2 = _mm256_blendv_pd(one, d2, ok);
    l21 = (h12 - l20 * h01) / d2;
    d3 = h22 - l20 * h02 - l21 * l21 * d2;
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(d3, t, _CMP_GT_OQ));
    d3 = _mm256_blendv_pd(one, d3, ok);
    y0 = g0, y1 = g1 - l10 * y0, y2 = g2 - l20 * y0 - l21 * y1;
    w2 = y2 / d3, w1 = y1 / d2 - l21 * w2, w0 = y0 / d1 - l10 * w1 - l20 * w2;
    ww = w0 * w0 + w1 * w1 + w2 * w2;
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(ww, one, _CMP_LT_OQ));
    failed = _mm256_or_pd(failed, _mm256_andnot_pd(ok, active));
    active = _mm256_and_pd(active, ok);
    dq1 = half * w0, dq2 = half * w1, dq3 = half * w2;
    qn[0] = one * w - dq1 * x - dq2 * y - dq3 * z;
    qn[1] = one * x + dq1 * w + dq2 * z - dq3 * y;
    qn[2] = one * y - dq1 * z + dq2 * w + dq3 * x;
    qn[3] = one * z + dq1 * y - dq2 * x + dq3 * w;
    nq = _mm256_sqrt_pd(qn[0] * qn[0] + qn[1] * qn[1] + qn[2] * qn[2] + qn[3] * qn[3]);
    for (int k = 0; k < 4; k++) q[k] = _mm256_blendv_pd(q[k], qn[k] / nq, active);
    conv = _mm256_and_pd(active, _mm256_cmp_pd(ww, tol, _CMP_LE_OQ));
    active = _mm256_andnot_pd(conv, active);
  }
  {
    const __m256d w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = one - two * (y * y + z * z), R[1] = two * (x * y - w * z), R[2] = two * (x * z + w * y);
    R[3] = two * (x * y + w * z), R[4] = one - two * (x * x + z * z), R[5] = two * (y * z - w * x);
    R[6] = two * (x * z - w * y), R[7] = two * (y * z + w * x), R[8] = one - two * (x * x + y * y);
  }
  {
    PetscReal r4[9][4], qq[4][4];
    for (int k = 0; k < 9; k++) _mm256_storeu_pd(r4[k], R[k]);
    for (int k = 0; k < 4; k++) _mm256_storeu_pd(qq[k], q[k]);
    for (int l = 0; l < 4; l++)
      for (int k = 0; k < 9; k++) R9[9 * l + k] = r4[k][l];
    for (int l = 0; l < 4; l++)
      for (int k = 0; k < 4; k++) q4[4 * l + k] = qq[k][l];
  }
  redo = _mm256_movemask_pd(_mm256_or_pd(failed, active));
  for (int l = 0; l < 4; l++)
    if (redo & (1 << l)) { /* the scalar code from the same start: its fallback */
      PetscBool fb;
      for (int k = 0; k < 4; k++) q4[4 * l + k] = q0[l][k];
      PetscCall(Polar3Newton(F9 + 9 * l, q4 + 4 * l, R9 + 9 * l, 12, PETSC_TRUE, &fb));
      if (fb) (*nfallback)++;
    }
  PetscFunctionReturn(0);
}

PetscErrorCode SimPolar3WarmBatch(PetscInt n, const PetscReal *F, PetscReal *q, PetscReal *R, PetscInt *nfallback)
{
  static int avx = -1;
  PetscInt e = 0, nfb = 0;

  PetscFunctionBeginUser;
  if (avx < 0) avx = __builtin_cpu_supports("avx") > 0;
  if (avx)
    for (; e + 4 <= n; e += 4) PetscCall(Polar3WarmAvx4(F + 9 * e, q + 4 * e, R + 9 * e, &nfb));
  for (; e < n; e++) {
    PetscBool fb;
    PetscCall(Polar3Newton(F + 9 * e, q + 4 * e, R + 9 * e, 12, PETSC_TRUE, &fb));
    if (fb) nfb++;
  }
  if (nfallback) *nfallback = nfb;
  PetscFunctionReturn(0);
}
