/* IPC narrow phase: closest-feature classification and the four squared-distance formulas with
 * analytic gradients and Hessians (energies/ipc/distance.h). */
#include "energies/ipc/distance.h"
#include <string.h>
#include "framework/linalg/vec3.h"

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

PetscReal IPCSqDistance(IPCStencil k, const PetscReal *x, IPCDistType t, PetscReal *g, PetscReal *H)
{
  const int ns = IPCStencilSize[k];
  const PetscReal *p0 = x + 3 * t.v[0], *p1 = x + 3 * t.v[1];
  PetscReal s, u[3], w[3], z[3], gl[9], Hl[81];

  if (g) memset(g, 0, sizeof(PetscReal) * 3 * ns);
  if (H) memset(H, 0, sizeof(PetscReal) * 9 * ns * ns);
  switch (t.form) {
  case IPC_FORM_PP: {
    static const PetscReal C[2] = {1, -1};
    Vec3Sub(p0, p1, u);
    s = Vec3Dot(u, u);
    if (g) {
      for (int d = 0; d < 3; d++) gl[d] = 2 * u[d];
      if (H) {
        memset(Hl, 0, sizeof(PetscReal) * 9);
        for (int d = 0; d < 3; d++) Hl[4 * d] = 2;
      }
      MapToStencil(1, 2, C, gl, H ? Hl : NULL, t.v, ns, g, H);
    }
    return s;
  }
  case IPC_FORM_PL: {
    static const PetscReal C[6] = {1, -1, 0, 0, -1, 1}; /* a = p - e0, b = e1 - e0 */
    Vec3Sub(p0, p1, u);
    Vec3Sub(x + 3 * t.v[2], p1, w);
    s = PointLine(u, w, g ? gl : NULL, H ? Hl : NULL);
    if (g) MapToStencil(2, 3, C, gl, H ? Hl : NULL, t.v, ns, g, H);
    return s;
  }
  case IPC_FORM_PPLANE: {
    static const PetscReal C[12] = {1, -1, 0, 0, 0, -1, 1, 0, 0, -1, 0, 1}; /* a = p - t0, b = t1 - t0, c = t2 - t0 */
    Vec3Sub(p0, p1, u);
    Vec3Sub(x + 3 * t.v[2], p1, w);
    Vec3Sub(x + 3 * t.v[3], p1, z);
    s = Triple(u, w, z, g ? gl : NULL, H ? Hl : NULL);
    if (g) MapToStencil(3, 4, C, gl, H ? Hl : NULL, t.v, ns, g, H);
    return s;
  }
  default: {
    static const PetscReal C[12] = {-1, 0, 1, 0, -1, 1, 0, 0, 0, 0, -1, 1}; /* a = eb0 - ea0, b = ea1 - ea0, c = eb1 - eb0 */
    Vec3Sub(x + 3 * t.v[2], p0, u);
    Vec3Sub(p1, p0, w);
    Vec3Sub(x + 3 * t.v[3], x + 3 * t.v[2], z);
    s = Triple(u, w, z, g ? gl : NULL, H ? Hl : NULL);
    if (g) MapToStencil(3, 4, C, gl, H ? Hl : NULL, t.v, ns, g, H);
    return s;
  }
  }
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
