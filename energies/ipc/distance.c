/* IPC narrow phase: closest-feature classification and the four squared-distance formulas with
 * analytic gradients and Hessians (energies/ipc/distance.h). */
#include "energies/ipc/distance.h"
#include <string.h>
#include "framework/linalg/vec3.h"
#include "framework/linalg/psd.h"

const int IPCStencilSize[4] = {2, 3, 4, 4};

/* ---- small dense helpers: 3x3 blocks of a Hessian over m vector variables (3m x 3m) ---- */

/* B += s [v]x (the cross-product matrix: [v]x w = v x w) in the (r, c) block of a 3m x 3m matrix */
static inline void AddSkew(PetscReal *H, int m, int r, int c, PetscReal s, const PetscReal *v)
{
  const int ld = 3 * m;
  PetscReal *B = H + 3 * r * ld + 3 * c;
  B[1] -= s * v[2], B[2] += s * v[1];
  B[ld + 0] += s * v[2], B[ld + 2] -= s * v[0];
  B[2 * ld + 0] -= s * v[1], B[2 * ld + 1] += s * v[0];
}

/* B += s (u v^T) + t I in the (r, c) block */
static inline void AddOuter(PetscReal *H, int m, int r, int c, PetscReal s, const PetscReal *u, const PetscReal *v, PetscReal t)
{
  const int ld = 3 * m;
  PetscReal *B = H + 3 * r * ld + 3 * c;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) B[i * ld + j] += s * u[i] * v[j];
    B[i * ld + i] += t;
  }
}

/* The derivatives in the formula's own variables (m 3-vectors: g 3m, H 3m x 3m) mapped to the
 * stencil's n vertices, the variables being u_k = sum_i C[k][i] x_i: g_x[i] = sum_k C[k][i] g_k,
 * H_x[i][j] = sum_{k,l} C[k][i] C[l][j] H_kl (both 3x3-blocked). gx, Hx are 3n and 3n x 3n and are
 * added to (the caller zeroes them). */
static void MapToStencil(int m, int n, const PetscReal *C, const PetscReal *g, const PetscReal *H, const int *v, int ns,
                         PetscReal *gx, PetscReal *Hx)
{
  const int ld = 3 * m, lx = 3 * ns;
  if (gx)
    for (int i = 0; i < n; i++)
      for (int k = 0; k < m; k++) {
        const PetscReal c = C[k * n + i];
        if (c == 0) continue;
        for (int d = 0; d < 3; d++) gx[3 * v[i] + d] += c * g[3 * k + d];
      }
  if (!Hx) return;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < m; k++) {
        const PetscReal ck = C[k * n + i];
        if (ck == 0) continue;
        for (int l = 0; l < m; l++) {
          const PetscReal c = ck * C[l * n + j];
          if (c == 0) continue;
          for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) Hx[(3 * v[i] + a) * lx + 3 * v[j] + b] += c * H[(3 * k + a) * ld + 3 * l + b];
        }
      }
}

/* ---- the formulas, in their own variables ---- */

/* s = (a . (b x c))^2 / |b x c|^2 in the variables (a, b, c): the point-plane and line-line
 * distances. With n = b x c, t = a . n, q = n . n:
 *   grad t = (n, c x a, a x b),  grad q = (0, 2 c x n, 2 n x b),
 *   hess t: (a,b) = -[c]x, (a,c) = [b]x, (b,c) = -[a]x (and transposes), 0 on the diagonal,
 *   hess q: (b,b) = 2(|c|^2 I - c c^T), (c,c) = 2(|b|^2 I - b b^T), (b,c) = 2(b c^T - (b.c) I) - 2[n]x,
 *   grad s = 2t/q grad t - t^2/q^2 grad q,
 *   hess s = 2/q gt gt^T + 2t/q hess t - 2t/q^2 (gt gq^T + gq gt^T) - t^2/q^2 hess q + 2t^2/q^3 gq gq^T. */
static PetscReal Triple(const PetscReal *a, const PetscReal *b, const PetscReal *c, PetscReal *g, PetscReal *H)
{
  PetscReal n[3], t, q, gt[9], gq[9];

  Vec3Cross(b, c, n);
  t = Vec3Dot(a, n), q = Vec3Dot(n, n);
  if (!g) return t * t / q;
  gt[0] = n[0], gt[1] = n[1], gt[2] = n[2];
  Vec3Cross(c, a, gt + 3);
  Vec3Cross(a, b, gt + 6);
  gq[0] = gq[1] = gq[2] = 0;
  Vec3Cross(c, n, gq + 3);
  Vec3Cross(n, b, gq + 6);
  for (int k = 3; k < 9; k++) gq[k] *= 2;
  for (int k = 0; k < 9; k++) g[k] = 2 * t / q * gt[k] - t * t / (q * q) * gq[k];
  if (!H) return t * t / q;
  {
    const PetscReal q2 = q * q, q3 = q2 * q, bc = Vec3Dot(b, c);
    PetscReal ht[81] = {0}, hq[81] = {0};
    AddSkew(ht, 3, 0, 1, -1, c), AddSkew(ht, 3, 1, 0, 1, c);
    AddSkew(ht, 3, 0, 2, 1, b), AddSkew(ht, 3, 2, 0, -1, b);
    AddSkew(ht, 3, 1, 2, -1, a), AddSkew(ht, 3, 2, 1, 1, a);
    AddOuter(hq, 3, 1, 1, -2, c, c, 2 * Vec3Dot(c, c));
    AddOuter(hq, 3, 2, 2, -2, b, b, 2 * Vec3Dot(b, b));
    AddOuter(hq, 3, 1, 2, 2, b, c, -2 * bc), AddSkew(hq, 3, 1, 2, -2, n);
    AddOuter(hq, 3, 2, 1, 2, c, b, -2 * bc), AddSkew(hq, 3, 2, 1, 2, n);
    for (int i = 0; i < 9; i++)
      for (int j = 0; j < 9; j++)
        H[9 * i + j] = 2 / q * gt[i] * gt[j] + 2 * t / q * ht[9 * i + j] - 2 * t / q2 * (gt[i] * gq[j] + gq[i] * gt[j]) -
                       t * t / q2 * hq[9 * i + j] + 2 * t * t / q3 * gq[i] * gq[j];
  }
  return t * t / q;
}

/* s = |a x b|^2 / |b|^2 in (a, b): the point-line distance. With w = a x b, r = |w|^2, l = |b|^2:
 *   grad r = (2 b x w, 2 w x a), hess r: (a,a) = 2(|b|^2 I - b b^T), (b,b) = 2(|a|^2 I - a a^T),
 *   (a,b) = 2(a b^T - (a.b) I) - 2[w]x;  grad l = (0, 2b), hess l: (b,b) = 2I;
 *   s = r/l: grad s = gr/l - r gl/l^2, hess s = hr/l - (gr gl^T + gl gr^T)/l^2 - r hl/l^2 + 2r gl gl^T/l^3. */
static PetscReal PointLine(const PetscReal *a, const PetscReal *b, PetscReal *g, PetscReal *H)
{
  PetscReal w[3], r, l, gr[6], gl[6];

  Vec3Cross(a, b, w);
  r = Vec3Dot(w, w), l = Vec3Dot(b, b);
  if (!g) return r / l;
  Vec3Cross(b, w, gr);
  Vec3Cross(w, a, gr + 3);
  for (int k = 0; k < 6; k++) gr[k] *= 2;
  gl[0] = gl[1] = gl[2] = 0, gl[3] = 2 * b[0], gl[4] = 2 * b[1], gl[5] = 2 * b[2];
  for (int k = 0; k < 6; k++) g[k] = gr[k] / l - r * gl[k] / (l * l);
  if (!H) return r / l;
  {
    const PetscReal l2 = l * l, l3 = l2 * l, ab = Vec3Dot(a, b);
    PetscReal hr[36] = {0}, hl[36] = {0};
    AddOuter(hr, 2, 0, 0, -2, b, b, 2 * l);
    AddOuter(hr, 2, 1, 1, -2, a, a, 2 * Vec3Dot(a, a));
    AddOuter(hr, 2, 0, 1, 2, a, b, -2 * ab), AddSkew(hr, 2, 0, 1, -2, w);
    AddOuter(hr, 2, 1, 0, 2, b, a, -2 * ab), AddSkew(hr, 2, 1, 0, 2, w);
    for (int d = 0; d < 3; d++) hl[(3 + d) * 6 + 3 + d] = 2;
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++)
        H[6 * i + j] = hr[6 * i + j] / l - (gr[i] * gl[j] + gl[i] * gr[j]) / l2 - r * hl[6 * i + j] / l2 + 2 * r * gl[i] * gl[j] / l3;
  }
  return r / l;
}

/* ---- classification ---- */

static IPCDistType Type2(IPCForm f, int a, int b)
{
  IPCDistType t = {f, {a, b, -1, -1}};
  return t;
}
static IPCDistType Type3(IPCForm f, int a, int b, int c)
{
  IPCDistType t = {f, {a, b, c, -1}};
  return t;
}

/* p against the segment (e0, e1): the vertex or the interior its projection falls on */
static IPCDistType PointEdgeType(const PetscReal *p, const PetscReal *e0, const PetscReal *e1, int ip, int i0, int i1)
{
  PetscReal e[3], a[3], t, l;
  Vec3Sub(e1, e0, e);
  Vec3Sub(p, e0, a);
  t = Vec3Dot(a, e), l = Vec3Dot(e, e);
  if (t <= 0 || l == 0) return Type2(IPC_FORM_PP, ip, i0);
  if (t >= l) return Type2(IPC_FORM_PP, ip, i1);
  return Type3(IPC_FORM_PL, ip, i0, i1);
}

/* Ericson's region tests (Real-Time Collision Detection, 5.1.5) for p against triangle (a, b, c) */
static IPCDistType PointTriangleType(const PetscReal *x)
{
  const PetscReal *p = x, *a = x + 3, *b = x + 6, *c = x + 9;
  PetscReal ab[3], ac[3], ap[3], bp[3], cp[3], n[3], d1, d2, d3, d4, d5, d6, va, vb, vc;

  Vec3Sub(b, a, ab), Vec3Sub(c, a, ac), Vec3Sub(p, a, ap);
  Vec3Cross(ab, ac, n);
  if (Vec3Dot(n, n) <= 1e-24 * Vec3Dot(ab, ab) * Vec3Dot(ac, ac)) { /* degenerate triangle: its nearest edge */
    const PetscReal *v[3] = {a, b, c};
    IPCDistType best = Type2(IPC_FORM_PP, 0, 1);
    PetscReal dbest = PETSC_MAX_REAL;
    for (int e = 0; e < 3; e++) {
      IPCDistType t = PointEdgeType(p, v[e], v[(e + 1) % 3], 0, 1 + e, 1 + (e + 1) % 3);
      PetscReal dd = IPCSqDistance(IPC_STENCIL_PT, x, t, NULL, NULL);
      if (dd < dbest) dbest = dd, best = t;
    }
    return best;
  }
  d1 = Vec3Dot(ab, ap), d2 = Vec3Dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return Type2(IPC_FORM_PP, 0, 1);
  Vec3Sub(p, b, bp);
  d3 = Vec3Dot(ab, bp), d4 = Vec3Dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return Type2(IPC_FORM_PP, 0, 2);
  vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return Type3(IPC_FORM_PL, 0, 1, 2);
  Vec3Sub(p, c, cp);
  d5 = Vec3Dot(ab, cp), d6 = Vec3Dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return Type2(IPC_FORM_PP, 0, 3);
  vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return Type3(IPC_FORM_PL, 0, 1, 3);
  va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return Type3(IPC_FORM_PL, 0, 2, 3);
  {
    IPCDistType t = {IPC_FORM_PPLANE, {0, 1, 2, 3}};
    return t;
  }
}

/* Closest points of the segments ea0 + s u and eb0 + t v, s, t in [0, 1] (Eberly's clamping); the
 * type says which parameters ended on an end point. Nearly parallel segments: the nearest of the
 * four point-edge configurations. */
static IPCDistType EdgeEdgeType(const PetscReal *x)
{
  const PetscReal *a0 = x, *a1 = x + 3, *b0 = x + 6, *b1 = x + 9;
  PetscReal u[3], v[3], w[3], a, b, c, d, e, D, sN, sD, tN, tD;
  int s_end = -1, t_end = -1; /* -1: interior, 0 or 1: the end point */

  Vec3Sub(a1, a0, u), Vec3Sub(b1, b0, v), Vec3Sub(a0, b0, w);
  a = Vec3Dot(u, u), b = Vec3Dot(u, v), c = Vec3Dot(v, v), d = Vec3Dot(u, w), e = Vec3Dot(v, w);
  D = a * c - b * b;
  if (D <= 1e-10 * a * c) { /* parallel: the point-edge configurations */
    const int pe[4][3] = {{0, 2, 3}, {1, 2, 3}, {2, 0, 1}, {3, 0, 1}};
    IPCDistType best = Type2(IPC_FORM_PP, 0, 2);
    PetscReal dbest = PETSC_MAX_REAL;
    for (int k = 0; k < 4; k++) {
      IPCDistType t = PointEdgeType(x + 3 * pe[k][0], x + 3 * pe[k][1], x + 3 * pe[k][2], pe[k][0], pe[k][1], pe[k][2]);
      PetscReal dd = IPCSqDistance(IPC_STENCIL_EE, x, t, NULL, NULL);
      if (dd < dbest) dbest = dd, best = t;
    }
    return best;
  }
  sD = tD = D;
  sN = b * e - c * d;
  tN = a * e - b * d;
  if (sN <= 0) {
    sN = 0, tN = e, tD = c, s_end = 0;
  } else if (sN >= sD) {
    sN = sD, tN = e + b, tD = c, s_end = 1;
  }
  if (tN <= 0) {
    t_end = 0;
    s_end = -d <= 0 ? 0 : (-d >= a ? 1 : -1);
  } else if (tN >= tD) {
    t_end = 1;
    s_end = -d + b <= 0 ? 0 : (-d + b >= a ? 1 : -1);
  }
  if (s_end >= 0 && t_end >= 0) return Type2(IPC_FORM_PP, s_end, 2 + t_end);
  if (s_end >= 0) return Type3(IPC_FORM_PL, s_end, 2, 3);
  if (t_end >= 0) return Type3(IPC_FORM_PL, 2 + t_end, 0, 1);
  {
    IPCDistType t = {IPC_FORM_LL, {0, 1, 2, 3}};
    return t;
  }
}

IPCDistType IPCClassify(IPCStencil k, const PetscReal *x)
{
  switch (k) {
  case IPC_STENCIL_PP:
    return Type2(IPC_FORM_PP, 0, 1);
  case IPC_STENCIL_PE:
    return PointEdgeType(x, x + 3, x + 6, 0, 1, 2);
  case IPC_STENCIL_PT:
    return PointTriangleType(x);
  default:
    return EdgeEdgeType(x);
  }
}

/* ---- evaluation ---- */

/* The formula of type t at x in its own variables u_k = sum_i C[k][i] x_{t.v[i]} (k < m, i < nsub; C
 * row-major m x nsub, constant per form): s, and when gl its gradient (3m) and when Hl its Hessian
 * (3m x 3m) with respect to the u_k. */
typedef struct {
  int m, nsub;
  const PetscReal *C;
} FormVars;

static PetscReal FormEval(const PetscReal *x, IPCDistType t, FormVars *fv, PetscReal *gl, PetscReal *Hl)
{
  static const PetscReal Cpp[2] = {1, -1};
  static const PetscReal Cpl[6] = {1, -1, 0, 0, -1, 1};                           /* a = p - e0, b = e1 - e0 */
  static const PetscReal Cpt[12] = {1, -1, 0, 0, 0, -1, 1, 0, 0, -1, 0, 1};        /* a = p - t0, b = t1 - t0, c = t2 - t0 */
  static const PetscReal Cll[12] = {-1, 0, 1, 0, -1, 1, 0, 0, 0, 0, -1, 1};        /* a = eb0 - ea0, b = ea1 - ea0, c = eb1 - eb0 */
  const PetscReal *p0 = x + 3 * t.v[0], *p1 = x + 3 * t.v[1];
  PetscReal s, u[3], w[3], z[3];

  switch (t.form) {
  case IPC_FORM_PP:
    fv->m = 1, fv->nsub = 2, fv->C = Cpp;
    Vec3Sub(p0, p1, u);
    s = Vec3Dot(u, u);
    if (gl) {
      for (int d = 0; d < 3; d++) gl[d] = 2 * u[d];
      if (Hl) {
        memset(Hl, 0, sizeof(PetscReal) * 9);
        for (int d = 0; d < 3; d++) Hl[4 * d] = 2;
      }
    }
    return s;
  case IPC_FORM_PL:
    fv->m = 2, fv->nsub = 3, fv->C = Cpl;
    Vec3Sub(p0, p1, u);
    Vec3Sub(x + 3 * t.v[2], p1, w);
    return PointLine(u, w, gl, gl ? Hl : NULL);
  case IPC_FORM_PPLANE:
    fv->m = 3, fv->nsub = 4, fv->C = Cpt;
    Vec3Sub(p0, p1, u);
    Vec3Sub(x + 3 * t.v[2], p1, w);
    Vec3Sub(x + 3 * t.v[3], p1, z);
    return Triple(u, w, z, gl, gl ? Hl : NULL);
  default:
    fv->m = 3, fv->nsub = 4, fv->C = Cll;
    Vec3Sub(x + 3 * t.v[2], p0, u);
    Vec3Sub(p1, p0, w);
    Vec3Sub(x + 3 * t.v[3], x + 3 * t.v[2], z);
    return Triple(u, w, z, gl, gl ? Hl : NULL);
  }
}

PetscReal IPCSqDistance(IPCStencil k, const PetscReal *x, IPCDistType t, PetscReal *g, PetscReal *H)
{
  const int ns = IPCStencilSize[k];
  FormVars fv;
  PetscReal s, gl[9], Hl[81];

  if (g) memset(g, 0, sizeof(PetscReal) * 3 * ns);
  if (H) memset(H, 0, sizeof(PetscReal) * 9 * ns * ns);
  s = FormEval(x, t, &fv, g ? gl : NULL, H ? Hl : NULL);
  if (g) MapToStencil(fv.m, fv.nsub, fv.C, gl, H ? Hl : NULL, t.v, ns, g, H);
  return s;
}

/* The projection is done where the Hessian lives. With C the form's m x nsub map (x -> u), the
 * barrier's Hessian is C^T Hb C (blocks times I_3), Hb = b'' g g^T + b' Hs in the u variables (3m).
 * With C C^T = L L^T (Cholesky, m x m), Q = C^T L^-T has orthonormal columns and C^T Hb C = Q A Q^T,
 * A = L^T Hb L, so the nearest PSD matrix is Q P(A) Q^T = C^T (L^-T P(A) L^-1) C: an eigenproblem
 * of size 3m (3, 6, 9) in place of 3n (up to 12), exact. For m = 1 (point-point) Hb = 4b'' u u^T +
 * 2b' I has the eigenvalues 4b''s + 2b' (along u) and 2b' (twice, across): closed form. */
PetscErrorCode IPCBarrierHessianPSD(IPCStencil k, const PetscReal *x, IPCDistType t, PetscReal db, PetscReal d2b, PetscReal *H, PetscBool *projected)
{
  const int ns = IPCStencilSize[k];
  FormVars fv;
  PetscReal s, gl[9], Hl[81], Hb[81], A[81], A0[81], L[9] = {0}, Li[9] = {0}, G[9];
  int m, M;

  PetscFunctionBeginUser;
  s = FormEval(x, t, &fv, gl, Hl);
  m = fv.m, M = 3 * m;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) Hb[i * M + j] = d2b * gl[i] * gl[j] + db * Hl[i * M + j];
  *projected = PETSC_FALSE;
  if (m == 1) {
    const PetscReal along = 4 * d2b * s + 2 * db, across = 2 * db;
    if (along >= 0 && across >= 0) PetscFunctionReturn(0);
    *projected = PETSC_TRUE;
    PetscCheck(s > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "IPCBarrierHessianPSD: point-point distance %g must be > 0", (double)s);
    for (int i = 0; i < 3; i++) /* gl = 2u: u u^T / s = gl gl^T / (4 s) */
      for (int j = 0; j < 3; j++) {
        const PetscReal uu = gl[i] * gl[j] / (4 * s);
        Hb[3 * i + j] = PetscMax(0, along) * uu + PetscMax(0, across) * ((i == j) - uu);
      }
  } else {
    /* L: Cholesky of C C^T; Li = L^-1 (both m x m lower triangular) */
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) {
        G[i * m + j] = 0;
        for (int q = 0; q < fv.nsub; q++) G[i * m + j] += fv.C[i * fv.nsub + q] * fv.C[j * fv.nsub + q];
      }
    for (int j = 0; j < m; j++) {
      PetscReal d = G[j * m + j];
      for (int q = 0; q < j; q++) d -= L[j * m + q] * L[j * m + q];
      L[j * m + j] = PetscSqrtReal(d);
      for (int i = j + 1; i < m; i++) {
        PetscReal v = G[i * m + j];
        for (int q = 0; q < j; q++) v -= L[i * m + q] * L[j * m + q];
        L[i * m + j] = v / L[j * m + j];
      }
    }
    for (int j = 0; j < m; j++) {
      Li[j * m + j] = 1 / L[j * m + j];
      for (int i = j + 1; i < m; i++) {
        PetscReal v = 0;
        for (int q = j; q < i; q++) v -= L[i * m + q] * Li[q * m + j];
        Li[i * m + j] = v / L[i * m + i];
      }
    }
    /* A = (L^T x I) Hb (L x I): A[(k,a),(l,b)] = sum_ij L[i][k] Hb[(i,a),(j,b)] L[j][l] */
    for (int kk = 0; kk < m; kk++)
      for (int l = 0; l < m; l++)
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) {
            PetscReal v = 0;
            for (int i = kk; i < m; i++)
              for (int j = l; j < m; j++) v += L[i * m + kk] * Hb[(3 * i + a) * M + 3 * j + b] * L[j * m + l];
            A[(3 * kk + a) * M + 3 * l + b] = v;
          }
    memcpy(A0, A, sizeof(PetscReal) * M * M);
    PetscCall(SimSymProjectPSD(M, A));
    if (!memcmp(A, A0, sizeof(PetscReal) * M * M)) PetscFunctionReturn(0); /* already PSD: left as it was */
    *projected = PETSC_TRUE;
    /* Hb = (L^-T x I) P(A) (L^-1 x I): Hb[(i,a),(j,b)] = sum_kl Li[k][i] A[(k,a),(l,b)] Li[l][j] */
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++)
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) {
            PetscReal v = 0;
            for (int kk = i; kk < m; kk++)
              for (int l = j; l < m; l++) v += Li[kk * m + i] * A[(3 * kk + a) * M + 3 * l + b] * Li[l * m + j];
            Hb[(3 * i + a) * M + 3 * j + b] = v;
          }
  }
  memset(H, 0, sizeof(PetscReal) * 9 * ns * ns);
  MapToStencil(m, fv.nsub, fv.C, NULL, Hb, t.v, ns, NULL, H);
  PetscFunctionReturn(0);
}

/* c = |u x v|^2 with u = ea1 - ea0, v = eb1 - eb0 (the q of Triple, in (u, v)) */
PetscReal IPCEdgeCross(const PetscReal *x, PetscReal *g, PetscReal *H)
{
  static const PetscReal C[8] = {-1, 1, 0, 0, 0, 0, -1, 1};
  static const int v4[4] = {0, 1, 2, 3};
  PetscReal u[3], v[3], n[3], c, gl[6], Hl[36] = {0};

  Vec3Sub(x + 3, x, u), Vec3Sub(x + 9, x + 6, v);
  Vec3Cross(u, v, n);
  c = Vec3Dot(n, n);
  if (!g) return c;
  memset(g, 0, sizeof(PetscReal) * 12);
  Vec3Cross(v, n, gl);
  Vec3Cross(n, u, gl + 3);
  for (int k = 0; k < 6; k++) gl[k] *= 2;
  if (H) {
    const PetscReal uv = Vec3Dot(u, v);
    memset(H, 0, sizeof(PetscReal) * 144);
    AddOuter(Hl, 2, 0, 0, -2, v, v, 2 * Vec3Dot(v, v));
    AddOuter(Hl, 2, 1, 1, -2, u, u, 2 * Vec3Dot(u, u));
    AddOuter(Hl, 2, 0, 1, 2, u, v, -2 * uv), AddSkew(Hl, 2, 0, 1, -2, n);
    AddOuter(Hl, 2, 1, 0, 2, v, u, -2 * uv), AddSkew(Hl, 2, 1, 0, 2, n);
  }
  MapToStencil(2, 4, C, gl, H ? Hl : NULL, v4, 4, g, H);
  return c;
}

/* orient(a, b, c, d) = ((b - a) x (c - a)) . (d - a) with a bound on its round-off: the products of
 * the three edge lengths times a few ulps (each of the 3 subtractions, the cross product and the
 * dot product contribute an error of at most a few eps relative to that product). */
static inline PetscReal OrientWithTol(const PetscReal *a, const PetscReal *b, const PetscReal *c, const PetscReal *d, PetscReal *tol)
{
  PetscReal u[3], v[3], w[3], n[3];
  Vec3Sub(b, a, u), Vec3Sub(c, a, v), Vec3Sub(d, a, w);
  Vec3Cross(u, v, n);
  *tol = 16 * PETSC_MACHINE_EPSILON * Vec3Norm(u) * Vec3Norm(v) * Vec3Norm(w);
  return Vec3Dot(n, w);
}

PetscBool IPCSegmentCrossesTriangle(const PetscReal *a, const PetscReal *b, const PetscReal *t0, const PetscReal *t1, const PetscReal *t2)
{
  PetscReal ta, tb, t[3], s[3];
  const PetscReal sa = OrientWithTol(t0, t1, t2, a, &ta), sb = OrientWithTol(t0, t1, t2, b, &tb);

  /* strictly on both sides of the triangle's plane, beyond round-off: an edge (nearly) in the plane
   * only meets the triangle where a point-triangle or edge-edge distance is ~0, which the distance
   * check sees (a coplanar edge far from the triangle gave orientations of 1e-18 with random signs
   * on the armadillo mesh and was taken for a crossing) */
  if (!((sa > ta && sb < -tb) || (sa < -ta && sb > tb))) return PETSC_FALSE;
  s[0] = OrientWithTol(a, b, t0, t1, &t[0]), s[1] = OrientWithTol(a, b, t1, t2, &t[1]), s[2] = OrientWithTol(a, b, t2, t0, &t[2]);
  /* through the triangle: the segment's line passes each edge on the same side (within round-off) */
  return (PetscBool)((s[0] >= -t[0] && s[1] >= -t[1] && s[2] >= -t[2]) || (s[0] <= t[0] && s[1] <= t[1] && s[2] <= t[2]));
}
