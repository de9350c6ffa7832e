/* The IPC contact term (Li et al. 2020): a log barrier on the squared distances of every close pair
 * of surface primitives (point-triangle, edge-edge with the parallel-edge mollifier) and of surface
 * vertices against analytic obstacles (a plane, a sphere), with adaptive stiffness; lagged smoothed
 * Coulomb friction; the CCD step bound (energy op max_step) so that no Newton iterate ever
 * intersects; a Hessian whose blocks follow the contact set (update_pattern); the admissibility test
 * of an accepted state (no intersection, every distance > 0, no inverted tetrahedron).
 * Options under the prefix (-colliders ipc: "ipc_"): see SimEnergyCreate_IPC. docs/ipc.md. */
#include "energies/ipc/ipc.h"
#include "energies/ipc/broad_phase.h"
#include "energies/ipc/ccd.h"
#include "framework/linalg/psd.h"
#include "framework/linalg/vec3.h"
#include "framework/events.h"

/* -log_view: IPCBuild (the constraint set: broad + narrow phase), IPCValue, IPCGradient, IPCHessian
 * (barrier and friction), IPCCCD (the step bound) */
static PetscLogEvent ev_build = -1, ev_value, ev_gradient, ev_hessian, ev_ccd;

/* A constraint: stencil kind (PT, EE) on surface vertices v[], or (obstacle >= 0) vertex v[0]
 * against obstacle 0 (plane) or 1 (sphere). */
typedef struct {
  PetscInt v[4];
  IPCStencil k;
  PetscInt obstacle; /* -1: a surface pair */
  PetscReal eps_x;   /* EE: the mollifier threshold (0: none) */
} Cons;

typedef struct {
  PetscInt n, cap;
  Cons *c;
} ConsList;

/* A lagged friction contact: the relative tangential displacement of the closest points is
 * u = T^T sum_a w[a] (x_a - x_a^t), T (3x2, row-major) orthonormal across the contact normal. */
typedef struct {
  PetscInt v[4], nv;
  PetscReal w[4], T[6], lambda;
} Fric;

typedef struct {
  SimModel model;
  const SimSurface *surf;
  PetscBool ready;
  PetscInt nv;
  /* options */
  PetscReal dhat_rel, dhat, sh; /* activation distance (relative, absolute, squared) */
  PetscReal kappa, kappa_min, kappa_max, kappa_opt;
  PetscBool kappa_from_contact, self;
  PetscBool plane, sphere;
  PetscReal plane_o[3], plane_n[3], sphere_c[3], sphere_r;
  PetscReal eta; /* additive CCD: the distance may shrink to (1 - eta) of its value per bound */
  PetscReal mu, eps_v;
  PetscInt fric_its;
  IPCBroadMethod broad;
  PetscBool check, monitor;
  PetscInt checks;
  /* scratch */
  IPCBroad bp;
  IPCPairs pairs;
  PetscReal *lo, *hi, *lo2, *hi2; /* boxes: up to max(nvert, nedge, ntri) each */
  PetscReal *rest;                /* 3*nv rest positions (mollifier, orientation of tets) */
  PetscReal *xcache;              /* the positions `cons` was built at */
  PetscBool cache_ok;
  ConsList cons;                  /* at xcache */
  ConsList pcons;                 /* the Hessian pattern's constraints */
  PetscInt nfric, fric_cap, fric_version, pattern_fric_version;
  Fric *fric;
  PetscReal *xt;                  /* 3*nv: the state the friction displacement is measured from */
  PetscReal beta;
  PetscInt *vmark;                /* nv: a vertex's position in surf->vert, or -1 */
  /* stats */
  PetscReal dmin_prev;
  SimIPCStats stats;
} IPC;

static PetscErrorCode ConsPush(ConsList *l, const Cons *c)
{
  PetscFunctionBeginUser;
  if (l->n == l->cap) {
    Cons *nc;
    PetscInt cap = l->cap ? 2 * l->cap : 256;
    PetscCall(PetscMalloc1(cap, &nc));
    if (l->n) PetscCall(PetscArraycpy(nc, l->c, l->n));
    PetscCall(PetscFree(l->c));
    l->c = nc, l->cap = cap;
  }
  l->c[l->n++] = *c;
  PetscFunctionReturn(0);
}

static inline int ConsSize(const Cons *c) { return c->obstacle >= 0 ? 1 : IPCStencilSize[c->k]; }

static inline void Gather(const Cons *c, const PetscReal *x, PetscReal *xs)
{
  const int n = ConsSize(c);
  for (int a = 0; a < n; a++)
    for (int d = 0; d < 3; d++) xs[3 * a + d] = x[3 * c->v[a] + d];
}

/* Signed distance of a point to an obstacle, with the unit normal n and the curvature across it. */
static inline PetscReal ObstacleDistance(const IPC *ipc, PetscInt o, const PetscReal *x, PetscReal *n, PetscReal *curv)
{
  PetscReal r[3], len;
  if (o == 0) {
    Vec3Sub(x, ipc->plane_o, r);
    n[0] = ipc->plane_n[0], n[1] = ipc->plane_n[1], n[2] = ipc->plane_n[2];
    *curv = 0;
    return Vec3Dot(r, n);
  }
  Vec3Sub(x, ipc->sphere_c, r);
  len = Vec3Norm(r);
  if (len == 0) {
    n[0] = 0, n[1] = 1, n[2] = 0, *curv = 0;
    return -ipc->sphere_r;
  }
  for (int d = 0; d < 3; d++) n[d] = r[d] / len;
  *curv = 1 / len;
  return len - ipc->sphere_r;
}

/* Squared distance of a constraint at its stencil positions xs, with gradient g (3n) and Hessian H
 * (3n x 3n), both optional (H needs g). */
static PetscReal ConsSqDistance(const IPC *ipc, const Cons *c, const PetscReal *xs, PetscReal *g, PetscReal *H)
{
  if (c->obstacle >= 0) {
    PetscReal n[3], curv, phi = ObstacleDistance(ipc, c->obstacle, xs, n, &curv);
    if (g)
      for (int d = 0; d < 3; d++) g[d] = 2 * phi * n[d];
    if (H) /* d2(phi^2) = 2 n n^T + 2 phi curv (I - n n^T) */
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) H[3 * a + b] = 2 * n[a] * n[b] + 2 * phi * curv * ((a == b) - n[a] * n[b]);
    return phi > 0 ? phi * phi : 0; /* on the wrong side: no distance (the barrier is +inf) */
  }
  return IPCSqDistance(c->k, xs, IPCClassify(c->k, xs), g, H);
}

/* The PSD projection of an obstacle constraint's barrier Hessian: with s = phi^2, b'' g g^T + b' Hs =
 * (4 b'' phi^2 + 2 b') n n^T + 2 b' phi curv (I - n n^T), eigenvalues in closed form. *projected
 * false: already PSD, H untouched. */
static void ObstacleHessianPSD(const IPC *ipc, const Cons *c, const PetscReal *xs, PetscReal db, PetscReal d2b, PetscReal *H, PetscBool *projected)
{
  PetscReal n[3], curv, phi = ObstacleDistance(ipc, c->obstacle, xs, n, &curv);
  const PetscReal along = 4 * d2b * phi * phi + 2 * db, across = 2 * db * phi * curv;

  *projected = (PetscBool)!(along >= 0 && across >= 0);
  if (!*projected) return;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) H[3 * a + b] = PetscMax(0, along) * n[a] * n[b] + PetscMax(0, across) * ((a == b) - n[a] * n[b]);
}

/* One constraint's energy kappa m(c) b(s) with its gradient (g += , 3n) and Hessian (H = , 3n x 3n,
 * PSD-projected when psd); returns +inf at s <= 0. The projection: in the distance formula's own
 * variables (IPCBarrierHessianPSD) or in closed form for obstacles; a mollified edge-edge pair (its
 * Hessian also has the mollifier's terms) by the 12 x 12 eigendecomposition. A Hessian that is already
 * PSD is the exact one, computed as without the projection. */
static PetscErrorCode ConsEnergy(const IPC *ipc, const Cons *c, const PetscReal *xs, PetscReal *E, PetscReal *g, PetscReal *H,
                                 PetscBool psd)
{
  const int n = ConsSize(c), N = 3 * n;
  PetscReal gs[12], Hs[144], s, db, d2b, b, m = 1, dm = 0, d2m = 0, gc[12], Hc[144], cr = 0;
  PetscBool reduced, exact = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (c->eps_x > 0) {
    cr = IPCEdgeCross(xs, NULL, NULL);
    m = IPCMollifier(cr, c->eps_x, &dm, &d2m);
  }
  reduced = (PetscBool)(H && psd && m == 1);
  s = ConsSqDistance(ipc, c, xs, (g || (H && !reduced)) ? gs : NULL, (H && !reduced) ? Hs : NULL);
  b = IPCBarrier(s, ipc->sh, &db, &d2b);
  if (c->eps_x > 0 && (g || (H && !reduced))) {
    cr = IPCEdgeCross(xs, gc, (H && !reduced) ? Hc : NULL);
    m = IPCMollifier(cr, c->eps_x, &dm, &d2m);
  }
  *E = ipc->kappa * m * b;
  if (s >= ipc->sh) {
    if (H) PetscCall(PetscArrayzero(H, N * N));
    PetscFunctionReturn(0);
  }
  if (PetscIsInfReal(b)) {
    if (H) PetscCall(PetscArrayzero(H, N * N));
    PetscFunctionReturn(0);
  }
  if (g)
    for (int i = 0; i < N; i++) g[i] += ipc->kappa * (m * db * gs[i] + (c->eps_x > 0 ? dm * b * gc[i] : 0));
  if (H && reduced) {
    PetscBool projected;
    if (c->obstacle >= 0) ObstacleHessianPSD(ipc, c, xs, db, d2b, H, &projected);
    else PetscCall(IPCBarrierHessianPSD(c->k, xs, IPCClassify(c->k, xs), db, d2b, H, &projected));
    if (projected)
      for (int i = 0; i < N * N; i++) H[i] *= ipc->kappa;
    else { /* already PSD: the exact Hessian */
      (void)ConsSqDistance(ipc, c, xs, gs, Hs);
      exact = PETSC_TRUE;
    }
  }
  if (H && (!reduced || exact)) {
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        PetscReal h = m * (d2b * gs[i] * gs[j] + db * Hs[i * N + j]);
        if (c->eps_x > 0 && m < 1) h += d2m * b * gc[i] * gc[j] + dm * b * Hc[i * N + j] + dm * db * (gc[i] * gs[j] + gs[i] * gc[j]);
        H[i * N + j] = ipc->kappa * h;
      }
  }
  if (H)
    for (int i = 0; i < N * N; i++)
      PetscCheck(!PetscIsInfOrNanReal(H[i]), PETSC_COMM_SELF, PETSC_ERR_FP, "IPC Hessian not finite: s %g sh %g b %g db %g d2b %g m %g obstacle %d k %d", (double)s, (double)ipc->sh, (double)b, (double)db, (double)d2b, (double)m, (int)c->obstacle, (int)c->k);
  if (H && psd && !reduced) PetscCall(SimSymProjectPSD(N, H));
  PetscFunctionReturn(0);
}

/* ---- the constraint set at x: every pair within dhat ---- */

static void Box(const PetscReal *x, const PetscInt *v, int n, PetscReal pad, PetscReal *lo, PetscReal *hi)
{
  for (int d = 0; d < 3; d++) lo[d] = PETSC_MAX_REAL, hi[d] = -PETSC_MAX_REAL;
  for (int a = 0; a < n; a++)
    for (int d = 0; d < 3; d++) lo[d] = PetscMin(lo[d], x[3 * v[a] + d]), hi[d] = PetscMax(hi[d], x[3 * v[a] + d]);
  for (int d = 0; d < 3; d++) lo[d] -= pad, hi[d] += pad;
}

/* Boxes of the surface's vertices, edges and triangles at x, or swept over x + [0, alpha] p when p. */
static void SweptBox(const PetscReal *x, const PetscReal *p, PetscReal alpha, const PetscInt *v, int n, PetscReal pad, PetscReal *lo,
                     PetscReal *hi)
{
  Box(x, v, n, pad, lo, hi);
  if (!p) return;
  for (int a = 0; a < n; a++)
    for (int d = 0; d < 3; d++) {
      const PetscReal y = x[3 * v[a] + d] + alpha * p[3 * v[a] + d];
      lo[d] = PetscMin(lo[d], y - pad), hi[d] = PetscMax(hi[d], y + pad);
    }
}

/* Candidate pairs: (vertex, triangle) with the vertex not on the triangle as PT, (edge, edge) without
 * a shared vertex as EE, appended to pt and ee (as index pairs into surf->vert/tri and surf->edge). */
static PetscErrorCode Candidates(IPC *ipc, const PetscReal *x, const PetscReal *p, PetscReal alpha, PetscReal pad, IPCPairs *pt,
                                 IPCPairs *ee)
{
  const SimSurface *S = ipc->surf;

  PetscFunctionBeginUser;
  pt->n = ee->n = 0;
  if (!ipc->self) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < S->nvert; i++) SweptBox(x, p, alpha, S->vert + i, 1, pad, ipc->lo + 3 * i, ipc->hi + 3 * i);
  for (PetscInt t = 0; t < S->ntri; t++) SweptBox(x, p, alpha, S->tri + 3 * t, 3, 0, ipc->lo2 + 3 * t, ipc->hi2 + 3 * t);
  if (S->ntri) PetscCall(IPCBroadPairs(ipc->bp, S->nvert, ipc->lo, ipc->hi, S->ntri, ipc->lo2, ipc->hi2, PETSC_FALSE, pt));
  { /* drop a vertex of its own triangle */
    PetscInt k = 0;
    for (PetscInt q = 0; q < pt->n; q++) {
      const PetscInt v = S->vert[pt->pair[2 * q]], *t = S->tri + 3 * pt->pair[2 * q + 1];
      if (v == t[0] || v == t[1] || v == t[2]) continue;
      pt->pair[2 * k] = pt->pair[2 * q], pt->pair[2 * k + 1] = pt->pair[2 * q + 1], k++;
    }
    pt->n = k;
  }
  for (PetscInt e = 0; e < S->nedge; e++) SweptBox(x, p, alpha, S->edge + 2 * e, 2, pad / 2, ipc->lo + 3 * e, ipc->hi + 3 * e);
  if (S->nedge) PetscCall(IPCBroadPairs(ipc->bp, S->nedge, ipc->lo, ipc->hi, S->nedge, ipc->lo, ipc->hi, PETSC_TRUE, ee));
  {
    PetscInt k = 0;
    for (PetscInt q = 0; q < ee->n; q++) {
      const PetscInt *a = S->edge + 2 * ee->pair[2 * q], *b = S->edge + 2 * ee->pair[2 * q + 1];
      if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1]) continue;
      ee->pair[2 * k] = ee->pair[2 * q], ee->pair[2 * k + 1] = ee->pair[2 * q + 1], k++;
    }
    ee->n = k;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Build(IPC *ipc, const PetscReal *x, ConsList *out)
{
  const SimSurface *S = ipc->surf;
  IPCPairs ee = {0};
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(ev_build, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  out->n = 0;
  PetscCall(Candidates(ipc, x, NULL, 0, ipc->dhat, &ipc->pairs, &ee));
  for (PetscInt q = 0; q < ipc->pairs.n; q++) {
    const PetscInt *t = S->tri + 3 * ipc->pairs.pair[2 * q + 1];
    Cons c = {{S->vert[ipc->pairs.pair[2 * q]], t[0], t[1], t[2]}, IPC_STENCIL_PT, -1, 0};
    PetscReal xs[12];
    Gather(&c, x, xs);
    if (ConsSqDistance(ipc, &c, xs, NULL, NULL) < ipc->sh) PetscCall(ConsPush(out, &c));
  }
  for (PetscInt q = 0; q < ee.n; q++) {
    const PetscInt *a = S->edge + 2 * ee.pair[2 * q], *b = S->edge + 2 * ee.pair[2 * q + 1];
    Cons c = {{a[0], a[1], b[0], b[1]}, IPC_STENCIL_EE, -1, 0};
    PetscReal xs[12];
    Gather(&c, x, xs);
    if (ConsSqDistance(ipc, &c, xs, NULL, NULL) < ipc->sh) {
      PetscReal la = 0, lb = 0;
      for (int d = 0; d < 3; d++) {
        la += PetscSqr(ipc->rest[3 * a[1] + d] - ipc->rest[3 * a[0] + d]);
        lb += PetscSqr(ipc->rest[3 * b[1] + d] - ipc->rest[3 * b[0] + d]);
      }
      c.eps_x = 1e-3 * la * lb;
      PetscCall(ConsPush(out, &c));
    }
  }
  for (PetscInt o = 0; o < 2; o++) {
    if ((o == 0 && !ipc->plane) || (o == 1 && !ipc->sphere)) continue;
    for (PetscInt i = 0; i < S->nvert; i++) {
      Cons c = {{S->vert[i], 0, 0, 0}, IPC_STENCIL_PP, o, 0};
      PetscReal n[3], curv, phi = ObstacleDistance(ipc, o, x + 3 * S->vert[i], n, &curv);
      if (phi < ipc->dhat) PetscCall(ConsPush(out, &c));
    }
  }
  PetscCall(IPCPairsFree(&ee));
  PetscCall(PetscTime(&t1));
  ipc->stats.build_s += t1 - t0;
  ipc->stats.builds++;
  PetscCall(PetscLogEventEnd(ev_build, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode Ready(IPC *ipc)
{
  SimModel m = ipc->model;
  const PetscScalar *x;
  PetscReal lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL};
  PetscInt nbox;

  PetscFunctionBeginUser;
  if (ipc->ready) PetscFunctionReturn(0);
  PetscCall(SimModelGetSurface(m, &ipc->surf));
  ipc->nv = m->nv;
  PetscCall(PetscMalloc3(3 * m->nv, &ipc->rest, 3 * m->nv, &ipc->xcache, 3 * m->nv, &ipc->xt));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(PetscArraycpy(ipc->rest, x, 3 * m->nv));
  PetscCall(PetscArraycpy(ipc->xt, x, 3 * m->nv));
  for (PetscInt i = 0; i < m->nv; i++)
    for (int d = 0; d < 3; d++) lo[d] = PetscMin(lo[d], x[3 * i + d]), hi[d] = PetscMax(hi[d], x[3 * i + d]);
  PetscCall(VecRestoreArrayRead(m->x, &x));
  ipc->stats.diameter = PetscSqrtReal(PetscSqr(hi[0] - lo[0]) + PetscSqr(hi[1] - lo[1]) + PetscSqr(hi[2] - lo[2]));
  ipc->dhat = ipc->dhat_rel * ipc->stats.diameter;
  ipc->sh = ipc->dhat * ipc->dhat;
  nbox = PetscMax(ipc->surf->nvert, PetscMax(ipc->surf->nedge, ipc->surf->ntri)) + 1;
  PetscCall(PetscMalloc4(3 * nbox, &ipc->lo, 3 * nbox, &ipc->hi, 3 * nbox, &ipc->lo2, 3 * nbox, &ipc->hi2));
  PetscCall(IPCBroadCreate(ipc->broad, &ipc->bp));
  { /* kappa_min: the barrier at d = dhat/2 holds the weight of the whole model (at least 1 m/s^2 of
     * it) at one constraint: kappa |b'(s0)| 2 d0 = M max(|g|, 1); kappa_max = 100 kappa_min */
    const PetscScalar *mass;
    PetscReal mtot = 0, s0 = 0.25 * ipc->sh, db, gn;
    PetscCall(VecGetArrayRead(m->mass, &mass));
    for (PetscInt i = 0; i < m->nv; i++) mtot += mass[3 * i];
    PetscCall(VecRestoreArrayRead(m->mass, &mass));
    gn = PetscMax(1, PetscSqrtReal(PetscSqr(m->gravity[0]) + PetscSqr(m->gravity[1]) + PetscSqr(m->gravity[2])));
    (void)IPCBarrier(s0, ipc->sh, &db, NULL);
    ipc->stats.mass_avg = mtot / PetscMax(1, m->nv);
    ipc->kappa_min = mtot * gn / (-db * 2 * PetscSqrtReal(s0));
    ipc->kappa_max = 100 * ipc->kappa_min;
  }
  ipc->kappa = ipc->kappa_opt > 0 ? ipc->kappa_opt : ipc->kappa_min;
  ipc->dmin_prev = PETSC_MAX_REAL;
  ipc->ready = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The constraint set at x (cached: the line search evaluates value and gradient at the same x). */
static PetscErrorCode At(IPC *ipc, const PetscReal *x)
{
  PetscFunctionBeginUser;
  PetscCall(Ready(ipc));
  if (ipc->cache_ok && !memcmp(x, ipc->xcache, 3 * ipc->nv * sizeof(PetscReal))) PetscFunctionReturn(0);
  PetscCall(Build(ipc, x, &ipc->cons));
  PetscCall(PetscArraycpy(ipc->xcache, x, 3 * ipc->nv));
  ipc->cache_ok = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* ---- friction (Li et al. 2020, Sec. 5): D = mu lambda f0(|u|), f0' = f1 ---- */
static inline PetscReal F0(PetscReal y, PetscReal e) { return y >= e ? y : -y * y * y / (3 * e * e) + y * y / e + e / 3; }
static inline PetscReal F1OverY(PetscReal y, PetscReal e) { return y >= e ? 1 / y : -y / (e * e) + 2 / e; }

static inline void FricU(const Fric *f, const PetscReal *x, const PetscReal *xt, PetscReal u[2])
{
  PetscReal r[3] = {0, 0, 0};
  for (int a = 0; a < f->nv; a++)
    for (int d = 0; d < 3; d++) r[d] += f->w[a] * (x[3 * f->v[a] + d] - xt[3 * f->v[a] + d]);
  u[0] = f->T[0] * r[0] + f->T[2] * r[1] + f->T[4] * r[2];
  u[1] = f->T[1] * r[0] + f->T[3] * r[1] + f->T[5] * r[2];
}

/* The lagged friction set from the contacts at x: normal force, closest-point weights, tangent basis. */
static PetscErrorCode LagFriction(IPC *ipc, const PetscReal *x)
{
  PetscFunctionBeginUser;
  if (ipc->mu <= 0) PetscFunctionReturn(0);
  ipc->nfric = 0;
  ipc->fric_version++;
  PetscCall(At(ipc, x));
  if (ipc->fric_cap < ipc->cons.n) {
    PetscCall(PetscFree(ipc->fric));
    ipc->fric_cap = ipc->cons.n + 64;
    PetscCall(PetscMalloc1(ipc->fric_cap, &ipc->fric));
  }
  for (PetscInt q = 0; q < ipc->cons.n; q++) {
    const Cons *c = &ipc->cons.c[q];
    const int n = ConsSize(c), first = c->obstacle >= 0 ? 1 : (c->k == IPC_STENCIL_EE ? 2 : 1);
    PetscReal xs[12], g[12], s, db, r[3] = {0, 0, 0}, rr, nrm[3], t1[3], t2[3];
    Fric *f = &ipc->fric[ipc->nfric];

    Gather(c, x, xs);
    s = ConsSqDistance(ipc, c, xs, g, NULL);
    if (!(s > 0 && s < ipc->sh)) continue;
    (void)IPCBarrier(s, ipc->sh, &db, NULL);
    /* r = closest point of the first primitive minus that of the second (gradients of s: 2 w_a r) */
    for (int a = 0; a < first; a++)
      for (int d = 0; d < 3; d++) r[d] += 0.5 * g[3 * a + d];
    rr = Vec3Dot(r, r);
    if (!(rr > 0)) continue;
    f->nv = n;
    for (int a = 0; a < n; a++) f->v[a] = c->v[a], f->w[a] = Vec3Dot(g + 3 * a, r) / (2 * rr);
    for (int d = 0; d < 3; d++) nrm[d] = r[d] / PetscSqrtReal(rr);
    /* a tangent basis: t1 across the normal's smallest component, t2 = n x t1 */
    {
      PetscReal e[3] = {0, 0, 0}, l;
      int im = 0;
      for (int d = 1; d < 3; d++)
        if (PetscAbsReal(nrm[d]) < PetscAbsReal(nrm[im])) im = d;
      e[im] = 1;
      Vec3Cross(nrm, e, t1);
      l = Vec3Norm(t1);
      for (int d = 0; d < 3; d++) t1[d] /= l;
      Vec3Cross(nrm, t1, t2);
    }
    for (int d = 0; d < 3; d++) f->T[2 * d] = t1[d], f->T[2 * d + 1] = t2[d];
    f->lambda = ipc->kappa * -db * 2 * PetscSqrtReal(s); /* |dB/dd| */
    ipc->nfric++;
  }
  PetscFunctionReturn(0);
}

/* ---- energy ops ---- */

static PetscErrorCode Value_IPC(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  IPC *ipc = (IPC *)e->data;
  PetscReal sum = 0, eps = ipc->eps_v * ipc->beta;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(At(ipc, x));
  PetscCall(PetscLogEventBegin(ev_value, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  for (PetscInt q = 0; q < ipc->cons.n && !PetscIsInfReal(sum); q++) {
    PetscReal xs[12], Ec;
    Gather(&ipc->cons.c[q], x, xs);
    PetscCall(ConsEnergy(ipc, &ipc->cons.c[q], xs, &Ec, NULL, NULL, PETSC_FALSE));
    sum += Ec;
  }
  for (PetscInt q = 0; q < ipc->nfric; q++) {
    PetscReal u[2];
    FricU(&ipc->fric[q], x, ipc->xt, u);
    sum += ipc->mu * ipc->fric[q].lambda * F0(PetscSqrtReal(u[0] * u[0] + u[1] * u[1]), eps);
  }
  *E = PetscIsInfReal(sum) ? PETSC_INFINITY : sum;
  PetscCall(PetscTime(&t1));
  ipc->stats.barrier_s += t1 - t0;
  PetscCall(PetscLogEventEnd(ev_value, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode Gradient_IPC(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *g)
{
  IPC *ipc = (IPC *)e->data;
  const PetscReal eps = ipc->eps_v * ipc->beta;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(At(ipc, x));
  PetscCall(PetscLogEventBegin(ev_gradient, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  for (PetscInt q = 0; q < ipc->cons.n; q++) {
    const Cons *c = &ipc->cons.c[q];
    const int n = ConsSize(c);
    PetscReal xs[12], gl[12] = {0}, Ec;
    Gather(c, x, xs);
    PetscCall(ConsEnergy(ipc, c, xs, &Ec, gl, NULL, PETSC_FALSE));
    for (int a = 0; a < n; a++)
      for (int d = 0; d < 3; d++) g[3 * c->v[a] + d] += gl[3 * a + d];
  }
  for (PetscInt q = 0; q < ipc->nfric; q++) {
    const Fric *f = &ipc->fric[q];
    PetscReal u[2], y, s, t[3];
    FricU(f, x, ipc->xt, u);
    y = PetscSqrtReal(u[0] * u[0] + u[1] * u[1]);
    s = ipc->mu * f->lambda * F1OverY(y, eps);
    for (int d = 0; d < 3; d++) t[d] = s * (f->T[2 * d] * u[0] + f->T[2 * d + 1] * u[1]);
    for (int a = 0; a < f->nv; a++)
      for (int d = 0; d < 3; d++) g[3 * f->v[a] + d] += f->w[a] * t[d];
  }
  PetscCall(PetscTime(&t1));
  ipc->stats.barrier_s += t1 - t0;
  PetscCall(PetscLogEventEnd(ev_gradient, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* Blocks: n^2 per pattern constraint, then n^2 per friction contact, (a, b) row-major. */
static PetscErrorCode Pattern_IPC(SimEnergy e, PetscInt *nb, PetscInt *brow, PetscInt *bcol)
{
  IPC *ipc = (IPC *)e->data;
  PetscInt k = 0;

  PetscFunctionBeginUser;
  PetscCall(Ready(ipc));
  for (PetscInt q = 0; q < ipc->pcons.n; q++) {
    const Cons *c = &ipc->pcons.c[q];
    const int n = ConsSize(c);
    for (int a = 0; a < n; a++)
      for (int b = 0; b < n; b++, k++)
        if (brow) brow[k] = c->v[a], bcol[k] = c->v[b];
  }
  for (PetscInt q = 0; q < ipc->nfric; q++) {
    const Fric *f = &ipc->fric[q];
    for (int a = 0; a < f->nv; a++)
      for (int b = 0; b < f->nv; b++, k++)
        if (brow) brow[k] = f->v[a], bcol[k] = f->v[b];
  }
  *nb = k;
  PetscFunctionReturn(0);
}

static PetscErrorCode Hessian_IPC(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals)
{
  IPC *ipc = (IPC *)e->data;
  const PetscReal eps = ipc->eps_v * ipc->beta;
  PetscLogDouble t0, t1;
  PetscInt k = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(ev_hessian, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  for (PetscInt q = 0; q < ipc->pcons.n; q++) {
    const Cons *c = &ipc->pcons.c[q];
    const int n = ConsSize(c), N = 3 * n;
    PetscReal xs[12], H[144], Ec;
    Gather(c, x, xs);
    PetscCall(ConsEnergy(ipc, c, xs, &Ec, NULL, H, psd));
    for (int a = 0; a < n; a++)
      for (int b = 0; b < n; b++, k++)
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) vals[9 * k + 3 * i + j] = PetscIsInfOrNanReal(H[(3 * a + i) * N + 3 * b + j]) ? 0 : H[(3 * a + i) * N + 3 * b + j];
  }
  for (PetscInt q = 0; q < ipc->nfric; q++) {
    const Fric *f = &ipc->fric[q];
    PetscReal u[2], y, h2[4], B[9], c0;
    FricU(f, x, ipc->xt, u);
    y = PetscSqrtReal(u[0] * u[0] + u[1] * u[1]);
    c0 = ipc->mu * f->lambda;
    if (y >= eps) { /* f1/y^3 (u_perp u_perp^T): the PSD part (exact: the same, sliding) */
      const PetscReal s = c0 / (y * y * y);
      h2[0] = s * u[1] * u[1], h2[1] = h2[2] = -s * u[0] * u[1], h2[3] = s * u[0] * u[0];
    } else { /* (f1/y) I - u u^T / (eps^2 y), PSD for y < eps; at y = 0, (2/eps) I */
      const PetscReal a = c0 * F1OverY(y, eps), b = y > 0 ? c0 / (eps * eps * y) : 0;
      h2[0] = a - b * u[0] * u[0], h2[1] = h2[2] = -b * u[0] * u[1], h2[3] = a - b * u[1] * u[1];
    }
    for (int i = 0; i < 3; i++) /* B = T h2 T^T */
      for (int j = 0; j < 3; j++)
        B[3 * i + j] = f->T[2 * i] * (h2[0] * f->T[2 * j] + h2[1] * f->T[2 * j + 1]) + f->T[2 * i + 1] * (h2[2] * f->T[2 * j] + h2[3] * f->T[2 * j + 1]);
    for (int a = 0; a < f->nv; a++)
      for (int b = 0; b < f->nv; b++, k++)
        for (int i = 0; i < 9; i++) vals[9 * k + i] = f->w[a] * f->w[b] * B[i];
  }
  PetscCall(PetscTime(&t1));
  ipc->stats.barrier_s += t1 - t0;
  PetscCall(PetscLogEventEnd(ev_hessian, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

static PetscBool SameCons(const ConsList *a, const ConsList *b)
{
  if (a->n != b->n) return PETSC_FALSE;
  for (PetscInt q = 0; q < a->n; q++)
    if (a->c[q].obstacle != b->c[q].obstacle || a->c[q].v[0] != b->c[q].v[0] || a->c[q].v[1] != b->c[q].v[1] || a->c[q].v[2] != b->c[q].v[2] ||
        a->c[q].v[3] != b->c[q].v[3])
      return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscErrorCode UpdatePattern_IPC(SimEnergy e, const PetscReal *x, PetscBool *changed)
{
  IPC *ipc = (IPC *)e->data;

  PetscFunctionBeginUser;
  PetscCall(At(ipc, x));
  *changed = (PetscBool)(!SameCons(&ipc->cons, &ipc->pcons) || ipc->pattern_fric_version != ipc->fric_version);
  if (*changed) {
    ipc->pcons.n = 0;
    for (PetscInt q = 0; q < ipc->cons.n; q++) PetscCall(ConsPush(&ipc->pcons, &ipc->cons.c[q]));
    ipc->pattern_fric_version = ipc->fric_version;
  }
  PetscFunctionReturn(0);
}

/* The CCD bound: every vertex-triangle and edge-edge pair whose swept boxes meet, and the obstacles. */
static PetscErrorCode MaxStep_IPC(SimEnergy e, const PetscReal *x, const PetscReal *p, PetscReal *alpha)
{
  IPC *ipc = (IPC *)e->data;
  const SimSurface *S;
  IPCPairs ee = {0};
  PetscLogDouble t0, t1;
  PetscReal a = *alpha;

  PetscFunctionBeginUser;
  PetscCall(Ready(ipc));
  PetscCall(PetscLogEventBegin(ev_ccd, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  S = ipc->surf;
  PetscCall(Candidates(ipc, x, p, a, 0, &ipc->pairs, &ee));
  for (PetscInt q = 0; q < ipc->pairs.n && a > 0; q++) {
    const PetscInt *t = S->tri + 3 * ipc->pairs.pair[2 * q + 1];
    Cons c = {{S->vert[ipc->pairs.pair[2 * q]], t[0], t[1], t[2]}, IPC_STENCIL_PT, -1, 0};
    PetscReal xs[12], ps[12];
    Gather(&c, x, xs), Gather(&c, p, ps);
    a = PetscMin(a, IPCAdditiveCCD(IPC_STENCIL_PT, xs, ps, ipc->eta, 0, a, 1000000, NULL));
  }
  for (PetscInt q = 0; q < ee.n && a > 0; q++) {
    const PetscInt *ea = S->edge + 2 * ee.pair[2 * q], *eb = S->edge + 2 * ee.pair[2 * q + 1];
    Cons c = {{ea[0], ea[1], eb[0], eb[1]}, IPC_STENCIL_EE, -1, 0};
    PetscReal xs[12], ps[12];
    Gather(&c, x, xs), Gather(&c, p, ps);
    a = PetscMin(a, IPCAdditiveCCD(IPC_STENCIL_EE, xs, ps, ipc->eta, 0, a, 1000000, NULL));
  }
  for (PetscInt i = 0; i < S->nvert && a > 0; i++) {
    const PetscInt v = S->vert[i];
    if (ipc->plane) a = PetscMin(a, IPCPlaneCCD(x + 3 * v, p + 3 * v, ipc->plane_o, ipc->plane_n, ipc->eta, a));
    if (ipc->sphere) a = PetscMin(a, IPCSphereCCD(x + 3 * v, p + 3 * v, ipc->sphere_c, ipc->sphere_r, ipc->eta, a, 1000000));
  }
  PetscCall(IPCPairsFree(&ee));
  *alpha = PetscMax(0, a);
  PetscCall(PetscTime(&t1));
  ipc->stats.ccd_s += t1 - t0;
  ipc->stats.ccds++;
  PetscCall(PetscLogEventEnd(ev_ccd, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode MinDistance(IPC *ipc, const PetscReal *x, PetscReal *dmin)
{
  PetscFunctionBeginUser;
  PetscCall(At(ipc, x));
  *dmin = PETSC_MAX_REAL;
  for (PetscInt q = 0; q < ipc->cons.n; q++) {
    PetscReal xs[12];
    Gather(&ipc->cons.c[q], x, xs);
    *dmin = PetscMin(*dmin, PetscSqrtReal(PetscMax(0, ConsSqDistance(ipc, &ipc->cons.c[q], xs, NULL, NULL))));
  }
  PetscFunctionReturn(0);
}

/* k = 0: adaptive stiffness from the gradients at the state, friction lagged from it; k >= 1: the
 * friction set again from the minimizer, -ipc_friction_its times. */
static PetscErrorCode Lag_IPC(SimEnergy e, const PetscReal *x, const PetscReal *grad, PetscReal beta, PetscInt k, PetscBool *again)
{
  IPC *ipc = (IPC *)e->data;

  PetscFunctionBeginUser;
  PetscCall(Ready(ipc));
  if (k == 0) {
    PetscReal dmin;
    ipc->beta = beta;
    ipc->stats.lags++;
    PetscCall(PetscArraycpy(ipc->xt, x, 3 * ipc->nv));
    PetscCall(MinDistance(ipc, x, &dmin));
    if (ipc->kappa_opt <= 0 && ipc->cons.n > 0) {
      const PetscReal kmin = ipc->kappa_min, kmax = ipc->kappa_max;
      if (!ipc->kappa_from_contact) { /* first contact: balance the barrier's gradient against the rest */
        PetscReal *gb, gbgb = 0, gbge = 0;
        PetscReal kap = ipc->kappa;
        PetscCall(PetscCalloc1(3 * ipc->nv, &gb));
        ipc->kappa = 1, ipc->nfric = 0;
        PetscCall(Gradient_IPC(e, x, NULL, gb));
        ipc->kappa = kap;
        for (PetscInt i = 0; i < 3 * ipc->nv; i++)
          if (!ipc->model->pinned[i / 3]) gbgb += gb[i] * gb[i], gbge += gb[i] * (grad[i] - kap * gb[i]);
        PetscCall(PetscFree(gb));
        ipc->kappa = gbgb > 0 ? -gbge / gbgb : kmin;
        ipc->kappa = PetscMin(kmax, PetscMax(kmin, ipc->kappa));
        ipc->kappa_from_contact = PETSC_TRUE;
      } else if (dmin < 1e-2 * ipc->dhat && dmin < ipc->dmin_prev) ipc->kappa = PetscMin(kmax, 2 * ipc->kappa); /* still closing */
    }
    ipc->dmin_prev = ipc->cons.n ? dmin : PETSC_MAX_REAL;
    PetscCall(PetscInfo(NULL, "ipc: dmin %g (dhat %g) kappa %g [%g, %g] cons %d beta %g\n", (double)dmin, (double)ipc->dhat, (double)ipc->kappa, (double)ipc->kappa_min, (double)ipc->kappa_max, (int)ipc->cons.n, (double)beta));
    PetscCall(LagFriction(ipc, x));
    PetscFunctionReturn(0);
  }
  if (ipc->mu > 0 && k <= ipc->fric_its) {
    PetscCall(LagFriction(ipc, x));
    if (ipc->nfric) *again = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* Segment (a, b) against triangle (t0, t1, t2): a proper crossing by orientation signs. */
static inline PetscReal Orient(const PetscReal *a, const PetscReal *b, const PetscReal *c, const PetscReal *d)
{
  PetscReal u[3], v[3], w[3], n[3];
  Vec3Sub(b, a, u), Vec3Sub(c, a, v), Vec3Sub(d, a, w);
  Vec3Cross(u, v, n);
  return Vec3Dot(n, w);
}

static PetscErrorCode Admissible_IPC(SimEnergy e, const PetscReal *x, char *why, size_t len)
{
  IPC *ipc = (IPC *)e->data;
  const SimSurface *S;
  SimModel m = ipc->model;
  IPCPairs et = {0};
  PetscReal dmin;

  PetscFunctionBeginUser;
  PetscCall(Ready(ipc));
  S = ipc->surf;
  if (!ipc->check) PetscFunctionReturn(0);
  PetscCall(MinDistance(ipc, x, &dmin));
  ipc->stats.dmin = dmin, ipc->stats.contacts = ipc->cons.n;
  ipc->checks++;
  if (ipc->monitor)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "ipc: step %" PetscInt_FMT ": %" PetscInt_FMT " contacts, min distance %.6g m (dhat %.6g), kappa %.6g, %" PetscInt_FMT " friction contacts\n",
                          ipc->checks, ipc->cons.n, (double)(ipc->cons.n ? dmin : -1), (double)ipc->dhat, (double)ipc->kappa, ipc->nfric));
  if (!(dmin > 0)) {
    PetscCall(PetscSNPrintf(why, len, "a contact distance is %g (must be > 0)", (double)dmin));
    PetscFunctionReturn(0);
  }
  for (PetscInt t = 0; t < m->ntet; t++) { /* orientation as at rest */
    const PetscInt *v = m->tet + 4 * t;
    const PetscReal o = Orient(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]);
    const PetscReal o0 = Orient(ipc->rest + 3 * v[0], ipc->rest + 3 * v[1], ipc->rest + 3 * v[2], ipc->rest + 3 * v[3]);
    if (!(o * o0 > 0)) {
      PetscCall(PetscSNPrintf(why, len, "tetrahedron %" PetscInt_FMT " is inverted (volume ratio %g)", t, (double)(o / o0)));
      PetscFunctionReturn(0);
    }
  }
  for (PetscInt i = 0; i < S->nvert; i++) {
    PetscReal n[3], curv;
    for (PetscInt o = 0; o < 2; o++)
      if (((o == 0 && ipc->plane) || (o == 1 && ipc->sphere)) && !(ObstacleDistance(ipc, o, x + 3 * S->vert[i], n, &curv) > 0)) {
        PetscCall(PetscSNPrintf(why, len, "vertex %" PetscInt_FMT " is inside the %s", S->vert[i], o ? "sphere" : "plane"));
        PetscFunctionReturn(0);
      }
  }
  if (ipc->self && S->ntri) { /* no edge crosses a triangle */
    for (PetscInt q = 0; q < S->nedge; q++) Box(x, S->edge + 2 * q, 2, 0, ipc->lo + 3 * q, ipc->hi + 3 * q);
    for (PetscInt t = 0; t < S->ntri; t++) Box(x, S->tri + 3 * t, 3, 0, ipc->lo2 + 3 * t, ipc->hi2 + 3 * t);
    PetscCall(IPCBroadPairs(ipc->bp, S->nedge, ipc->lo, ipc->hi, S->ntri, ipc->lo2, ipc->hi2, PETSC_FALSE, &et));
    for (PetscInt q = 0; q < et.n; q++) {
      const PetscInt *a = S->edge + 2 * et.pair[2 * q], *t = S->tri + 3 * et.pair[2 * q + 1];
      if (a[0] == t[0] || a[0] == t[1] || a[0] == t[2] || a[1] == t[0] || a[1] == t[1] || a[1] == t[2]) continue;
      if (IPCSegmentCrossesTriangle(x + 3 * a[0], x + 3 * a[1], x + 3 * t[0], x + 3 * t[1], x + 3 * t[2])) {
        PetscCall(PetscSNPrintf(why, len, "edge (%" PetscInt_FMT ", %" PetscInt_FMT ") crosses triangle (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ")",
                                a[0], a[1], t[0], t[1], t[2]));
        break;
      }
    }
    PetscCall(IPCPairsFree(&et));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_IPC(SimEnergy e)
{
  IPC *ipc = (IPC *)e->data;

  PetscFunctionBeginUser;
  if (ipc->ready) {
    PetscCall(PetscFree3(ipc->rest, ipc->xcache, ipc->xt));
    PetscCall(PetscFree4(ipc->lo, ipc->hi, ipc->lo2, ipc->hi2));
  }
  PetscCall(IPCBroadDestroy(&ipc->bp));
  PetscCall(IPCPairsFree(&ipc->pairs));
  PetscCall(PetscFree(ipc->cons.c));
  PetscCall(PetscFree(ipc->pcons.c));
  PetscCall(PetscFree(ipc->fric));
  PetscCall(PetscFree(e->data));
  PetscFunctionReturn(0);
}

static const SimEnergyOps ipc_ops = {.value = Value_IPC,
                                     .gradient = Gradient_IPC,
                                     .hessian = Hessian_IPC,
                                     .pattern = Pattern_IPC,
                                     .destroy = Destroy_IPC,
                                     .max_step = MaxStep_IPC,
                                     .update_pattern = UpdatePattern_IPC,
                                     .lag = Lag_IPC,
                                     .admissible = Admissible_IPC};

PetscErrorCode SimEnergyCreate_IPC(SimModel model, const char *prefix, SimEnergy *term)
{
  IPC *ipc;
  PetscInt n3 = 3, m3 = 3, c3 = 3;
  PetscBool pset = PETSC_FALSE, nset = PETSC_FALSE, cset = PETSC_FALSE;
  PetscReal len;

  PetscFunctionBeginUser;
  if (ev_build < 0) {
    SimEvents ev;
    PetscCall(SimEventsGet(&ev));
    PetscCall(PetscLogEventRegister("IPCBuild", ev.classid, &ev_build));
    PetscCall(PetscLogEventRegister("IPCValue", ev.classid, &ev_value));
    PetscCall(PetscLogEventRegister("IPCGradient", ev.classid, &ev_gradient));
    PetscCall(PetscLogEventRegister("IPCHessian", ev.classid, &ev_hessian));
    PetscCall(PetscLogEventRegister("IPCCCD", ev.classid, &ev_ccd));
  }
  PetscCall(PetscNew(&ipc));
  ipc->model = model;
  ipc->dhat_rel = 1e-3;
  ipc->self = PETSC_TRUE;
  ipc->plane_n[1] = 1;
  ipc->eta = 0.9;
  ipc->eps_v = 1e-3;
  ipc->fric_its = 3;
  ipc->broad = IPC_BROAD_HASH;
  ipc->check = PETSC_TRUE;
  ipc->beta = 1.0 / 60;
  PetscOptionsBegin(model->comm, prefix, "IPC contact (barrier, CCD, friction)", "");
  PetscCall(PetscOptionsReal("-dhat", "barrier activation distance relative to the bounding-box diagonal, in (0, 1)", "", ipc->dhat_rel, &ipc->dhat_rel, NULL));
  PetscCall(PetscOptionsReal("-kappa", "barrier stiffness in the objective's units (0: adaptive)", "", ipc->kappa_opt, &ipc->kappa_opt, NULL));
  PetscCall(PetscOptionsBool("-self", "self contact between the model's surface primitives", "", ipc->self, &ipc->self, NULL));
  PetscCall(PetscOptionsBool("-plane", "a ground plane obstacle (-ipc_plane_point, -ipc_plane_normal)", "", ipc->plane, &ipc->plane, NULL));
  PetscCall(PetscOptionsRealArray("-plane_point", "a point on the plane (m)", "", ipc->plane_o, &m3, &pset));
  PetscCall(PetscOptionsRealArray("-plane_normal", "the plane's normal, toward the free side", "", ipc->plane_n, &n3, &nset));
  PetscCall(PetscOptionsReal("-sphere_radius", "a sphere obstacle's radius (m; 0: none)", "", ipc->sphere_r, &ipc->sphere_r, NULL));
  PetscCall(PetscOptionsRealArray("-sphere_center", "the sphere's center (m)", "", ipc->sphere_c, &c3, &cset));
  PetscCall(PetscOptionsReal("-ccd_eta", "additive CCD: a bound lets a distance shrink to (1 - eta) of itself, in (0, 1)", "", ipc->eta, &ipc->eta, NULL));
  PetscCall(PetscOptionsReal("-mu", "friction coefficient (0: frictionless)", "", ipc->mu, &ipc->mu, NULL));
  PetscCall(PetscOptionsReal("-eps_v", "friction's static-to-dynamic velocity, m/s, > 0", "", ipc->eps_v, &ipc->eps_v, NULL));
  PetscCall(PetscOptionsInt("-friction_its", "lagged friction updates per step, >= 0", "", ipc->fric_its, &ipc->fric_its, NULL));
  PetscCall(PetscOptionsEnum("-broad", "broad phase", "", IPCBroadMethods, (PetscEnum)ipc->broad, (PetscEnum *)&ipc->broad, NULL));
  PetscCall(PetscOptionsBool("-monitor", "print the contacts and the minimum distance after every step", "", ipc->monitor, &ipc->monitor, NULL));
  PetscCall(PetscOptionsBool("-check", "check every accepted state: distances > 0, no crossing, no inverted tet", "", ipc->check, &ipc->check, NULL));
  PetscOptionsEnd();
  PetscCheck((!pset || m3 == 3) && (!nset || n3 == 3) && (!cset || c3 == 3), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "-%splane_point, -%splane_normal and -%ssphere_center take 3 values x,y,z", prefix, prefix, prefix);
  PetscCheck(ipc->dhat_rel > 0 && ipc->dhat_rel < 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sdhat %g must be in (0, 1)", prefix, (double)ipc->dhat_rel);
  PetscCheck(ipc->kappa_opt >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%skappa %g must be >= 0", prefix, (double)ipc->kappa_opt);
  PetscCheck(ipc->eta > 0 && ipc->eta < 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sccd_eta %g must be in (0, 1)", prefix, (double)ipc->eta);
  PetscCheck(ipc->mu >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%smu %g must be >= 0", prefix, (double)ipc->mu);
  PetscCheck(ipc->eps_v > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%seps_v %g must be > 0", prefix, (double)ipc->eps_v);
  PetscCheck(ipc->fric_its >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sfriction_its must be >= 0", prefix);
  PetscCheck(ipc->sphere_r >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%ssphere_radius %g must be >= 0", prefix, (double)ipc->sphere_r);
  ipc->sphere = (PetscBool)(ipc->sphere_r > 0);
  len = Vec3Norm(ipc->plane_n);
  PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%splane_normal must be non-zero", prefix);
  for (int d = 0; d < 3; d++) ipc->plane_n[d] /= len;
  PetscCall(SimEnergyCreate("ipc", SIM_ENERGY_POTENTIAL, &ipc_ops, ipc, term));
  PetscFunctionReturn(0);
}

PetscErrorCode SimIPCGetStats(SimEnergy term, SimIPCStats *stats)
{
  IPC *ipc = (IPC *)term->data;

  PetscFunctionBeginUser;
  PetscCheck(term->ops.max_step == MaxStep_IPC, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "term '%s' is not the IPC term", term->name);
  *stats = ipc->stats;
  stats->kappa = ipc->kappa;
  stats->dhat = ipc->dhat;
  stats->friction_contacts = ipc->nfric;
  PetscFunctionReturn(0);
}

PetscErrorCode SimIPCSetStep(SimEnergy term, PetscReal beta)
{
  PetscFunctionBeginUser;
  ((IPC *)term->data)->beta = beta;
  PetscFunctionReturn(0);
}
