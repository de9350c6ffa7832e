/* Contact detection shared by the rigid-body solvers: a table of narrow-phase tests by shape pair
 * (sphere, box, convex hull) and by shape against a plane. Each test appends contact points
 * (contact.h). */
#include "solvers/rigid/contact.h"
#include "solvers/rigid/vec3.h"

static PetscErrorCode Add(SimRigidContactList *L, PetscInt a, PetscInt b, PetscInt key, const PetscReal *n, const PetscReal *p, const PetscReal *pa,
                          const PetscReal *pb, PetscReal pen)
{
  SimRigidContact *c;

  PetscFunctionBeginUser;
  if (L->n == L->cap) {
    L->cap = 2 * L->cap + 64;
    PetscCall(PetscRealloc(L->cap * sizeof(SimRigidContact), &L->c));
  }
  c = &L->c[L->n++];
  c->a = a, c->b = b, c->key = key, c->pen = pen;
  for (int k = 0; k < 3; k++) c->n[k] = n[k], c->p[k] = p[k], c->pa[k] = pa[k], c->pb[k] = pb[k];
  PetscFunctionReturn(0);
}

/* The corners of a box in world coordinates, corner k at signs (k&1, k&2, k&4). */
static void BoxCorners(const SimRigidBody *b, PetscReal xc[8][3])
{
  PetscReal R[9];
  SimQuatToMatrix(b->q, R);
  for (int k = 0; k < 8; k++) {
    const PetscReal l[3] = {(k & 1 ? 1 : -1) * b->size[0], (k & 2 ? 1 : -1) * b->size[1], (k & 4 ? 1 : -1) * b->size[2]};
    MatVec(R, l, xc[k]);
    for (int i = 0; i < 3; i++) xc[k][i] += b->x[i];
  }
}

/* ---- against a plane: the body's points below it ---- */

typedef PetscErrorCode (*PlaneFn)(SimRigidContactList *, const SimRigidBodies *, const SimRigidBody *, PetscInt i, const SimRigidPlane *, PetscInt plane, PetscInt key,
                                  PetscReal margin);

static PetscErrorCode SpherePlane(SimRigidContactList *L, const SimRigidBodies *B, const SimRigidBody *b, PetscInt i, const SimRigidPlane *pl, PetscInt k, PetscInt key, PetscReal margin)
{
  PetscReal dist = 0, pa[3], pb[3];

  PetscFunctionBeginUser;
  for (int e = 0; e < 3; e++) dist += (b->x[e] - pl->point[e]) * pl->normal[e];
  dist -= b->size[0];
  if (dist >= margin) PetscFunctionReturn(0);
  for (int e = 0; e < 3; e++) pa[e] = b->x[e] - b->size[0] * pl->normal[e], pb[e] = pa[e] - dist * pl->normal[e];
  PetscCall(Add(L, i, -1 - k, key, pl->normal, pa, pa, pb, -dist));
  PetscFunctionReturn(0);
}

static PetscErrorCode BoxPlane(SimRigidContactList *L, const SimRigidBodies *B, const SimRigidBody *b, PetscInt i, const SimRigidPlane *pl, PetscInt k, PetscInt key, PetscReal margin)
{
  PetscReal xc[8][3];

  PetscFunctionBeginUser;
  BoxCorners(b, xc);
  for (int c = 0; c < 8; c++) {
    PetscReal dist = 0, pb[3];
    for (int e = 0; e < 3; e++) dist += (xc[c][e] - pl->point[e]) * pl->normal[e];
    if (dist >= margin) continue;
    for (int e = 0; e < 3; e++) pb[e] = xc[c][e] - dist * pl->normal[e];
    PetscCall(Add(L, i, -1 - k, key + c, pl->normal, xc[c], xc[c], pb, -dist));
  }
  PetscFunctionReturn(0);
}

/* The vertices of a hull below the plane. */
static PetscErrorCode HullPlane(SimRigidContactList *L, const SimRigidBodies *B, const SimRigidBody *b, PetscInt i, const SimRigidPlane *pl, PetscInt k, PetscInt key,
                                PetscReal margin)
{
  const SimRigidHull *h = &B->hull[b->hull];
  PetscReal R[9];

  PetscFunctionBeginUser;
  SimQuatToMatrix(b->q, R);
  for (PetscInt c = 0; c < h->nv; c++) {
    PetscReal xc[3], dist = 0, pb[3];
    MatVec(R, h->v + 3 * c, xc);
    for (int e = 0; e < 3; e++) xc[e] += b->x[e], dist += (xc[e] - pl->point[e]) * pl->normal[e];
    if (dist >= margin) continue;
    for (int e = 0; e < 3; e++) pb[e] = xc[e] - dist * pl->normal[e];
    PetscCall(Add(L, i, -1 - k, key + c % SIM_RIGID_KEY_FEATURES, pl->normal, xc, xc, pb, -dist));
  }
  PetscFunctionReturn(0);
}

/* The radius of a sphere that holds the body. */
static PetscReal Reach(const SimRigidBody *b)
{
  return b->shape == SIM_RIGID_SPHERE ? b->size[0] : PetscSqrtReal(Dot(b->size, b->size));
}

/* ---- between two bodies: a before b, the normal from b to a ---- */

typedef PetscErrorCode (*PairFn)(SimRigidContactList *, const SimRigidBodies *, PetscInt a, PetscInt b, PetscInt key, PetscReal margin);

static PetscErrorCode SphereSphere(SimRigidContactList *L, const SimRigidBodies *B, PetscInt i, PetscInt j, PetscInt key, PetscReal margin)
{
  const SimRigidBody *a = &B->body[i], *b = &B->body[j];
  PetscReal dx[3], dist, pen, n[3], p[3], pa[3], pb[3];

  PetscFunctionBeginUser;
  for (int e = 0; e < 3; e++) dx[e] = a->x[e] - b->x[e];
  dist = PetscSqrtReal(Dot(dx, dx)), pen = a->size[0] + b->size[0] - dist;
  if (pen <= -margin || dist == 0) PetscFunctionReturn(0);
  for (int e = 0; e < 3; e++) {
    n[e] = dx[e] / dist, p[e] = b->x[e] + (b->size[0] - 0.5 * pen) * n[e];
    pa[e] = a->x[e] - a->size[0] * n[e], pb[e] = b->x[e] + b->size[0] * n[e];
  }
  PetscCall(Add(L, i, j, key, n, p, pa, pb, pen));
  PetscFunctionReturn(0);
}

/* Sphere a against box b: the closest point of the box (or, the centre inside, the face of least
 * penetration). */
static PetscErrorCode SphereBox(SimRigidContactList *L, const SimRigidBodies *B, PetscInt a, PetscInt b, PetscInt key, PetscReal margin)
{
  const SimRigidBody *s = &B->body[a], *bx = &B->body[b];
  PetscReal l[3], cl[3], R[9], cw[3], n[3], pa[3], r[3], dist = 0, pen;
  PetscBool inside = PETSC_TRUE;

  PetscFunctionBeginUser;
  SimQuatToMatrix(bx->q, R);
  for (int i = 0; i < 3; i++) r[i] = s->x[i] - bx->x[i];
  MatTVec(R, r, l);
  for (int i = 0; i < 3; i++) {
    cl[i] = PetscMin(PetscMax(l[i], -bx->size[i]), bx->size[i]);
    if (cl[i] != l[i]) inside = PETSC_FALSE;
  }
  if (inside) {
    PetscReal best = PETSC_MAX_REAL;
    int axis = 0;
    for (int i = 0; i < 3; i++)
      if (bx->size[i] - PetscAbsReal(l[i]) < best) best = bx->size[i] - PetscAbsReal(l[i]), axis = i;
    for (int i = 0; i < 3; i++) n[i] = (l[axis] > 0 ? 1 : -1) * R[3 * i + axis];
    cl[axis] = (l[axis] > 0 ? 1 : -1) * bx->size[axis];
    pen = best + s->size[0];
  } else {
    MatVec(R, cl, cw);
    for (int i = 0; i < 3; i++) cw[i] += bx->x[i], n[i] = s->x[i] - cw[i], dist += n[i] * n[i];
    dist = PetscSqrtReal(dist);
    if (dist >= s->size[0] + margin || dist == 0) PetscFunctionReturn(0);
    for (int i = 0; i < 3; i++) n[i] /= dist;
    pen = s->size[0] - dist;
  }
  MatVec(R, cl, cw);
  for (int i = 0; i < 3; i++) cw[i] += bx->x[i], pa[i] = s->x[i] - s->size[0] * n[i];
  PetscCall(Add(L, a, b, key, n, cw, pa, cw, pen));
  PetscFunctionReturn(0);
}

/* The contacts from n0 on, found with the bodies' roles swapped (sphere first), as contacts of a
 * against b: the normal turned, the deepest points exchanged. */
static void SwapRoles(SimRigidContactList *L, PetscInt n0, PetscInt a, PetscInt b)
{
  for (PetscInt q = n0; q < L->n; q++) {
    SimRigidContact *c = &L->c[q];
    c->a = a, c->b = b;
    for (int e = 0; e < 3; e++) {
      const PetscReal t = c->pa[e];
      c->n[e] = -c->n[e], c->pa[e] = c->pb[e], c->pb[e] = t;
    }
  }
}

/* Box a against sphere b: the sphere-box test with the roles swapped back. */
static PetscErrorCode BoxSphere(SimRigidContactList *L, const SimRigidBodies *B, PetscInt a, PetscInt b, PetscInt key, PetscReal margin)
{
  const PetscInt n0 = L->n;

  PetscFunctionBeginUser;
  PetscCall(SphereBox(L, B, b, a, key, margin));
  SwapRoles(L, n0, a, b);
  PetscFunctionReturn(0);
}

/* The closest points of the segments c1 + s d1 and c2 + t d2, |s| <= h1, |t| <= h2 (d1, d2 unit). */
static void SegmentsClosest(const PetscReal *c1, const PetscReal *d1, PetscReal h1, const PetscReal *c2, const PetscReal *d2, PetscReal h2, PetscReal *p1, PetscReal *p2)
{
  PetscReal r[3], b = Dot(d1, d2), e, f, den, s, t;
  for (int k = 0; k < 3; k++) r[k] = c1[k] - c2[k];
  e = Dot(d1, r), f = Dot(d2, r), den = 1 - b * b;
  s = den > 1e-12 ? (b * f - e) / den : 0;
  s = PetscMin(PetscMax(s, -h1), h1);
  t = PetscMin(PetscMax(b * s + f, -h2), h2);
  s = PetscMin(PetscMax(b * t - e, -h1), h1);
  for (int k = 0; k < 3; k++) p1[k] = c1[k] + s * d1[k], p2[k] = c2[k] + t * d2[k];
}

/* Box a against box b by the separating-axis test on the six face axes and the nine cross products
 * of their edges. Face axis of least overlap: the normal and the reference face; the incident box's
 * corners below that face and within its extent (5% tolerance, so the aligned boxes of a stack keep
 * their corners) are the contacts. An edge axis whose overlap is clearly less (below 0.95 of the
 * faces', the usual bias that keeps resting faces on face contacts): one contact between the two
 * supporting edges. Without the edge axes two boxes crossing edge on edge find no corner inside
 * the other and pass through each other (test_rigid.c, edge_on_edge). */
static PetscErrorCode BoxBox(SimRigidContactList *L, const SimRigidBodies *B, PetscInt a, PetscInt b, PetscInt key, PetscReal margin)
{
  const SimRigidBody *A = &B->body[a], *Bb = &B->body[b];
  PetscReal Ra[9], Rb[9], dx[3], best = PETSC_MAX_REAL, n[3] = {0, 0, 0}, ebest = PETSC_MAX_REAL, en[3] = {0, 0, 0};
  int ref = -1, axis = -1, ei = -1, ej = -1; /* ref 0: face of a, 1: face of b; ei, ej: the edges' axes */

  PetscFunctionBeginUser;
  SimQuatToMatrix(A->q, Ra);
  SimQuatToMatrix(Bb->q, Rb);
  for (int k = 0; k < 3; k++) dx[k] = A->x[k] - Bb->x[k];
  for (int s = 0; s < 2; s++)
    for (int ax = 0; ax < 3; ax++) {
      const PetscReal *R = s ? Rb : Ra;
      const PetscReal u[3] = {R[ax], R[3 + ax], R[6 + ax]};
      PetscReal ra = 0, rb = 0, dist = PetscAbsReal(Dot(dx, u)), overlap;
      for (int k = 0; k < 3; k++) {
        ra += A->size[k] * PetscAbsReal(u[0] * Ra[k] + u[1] * Ra[3 + k] + u[2] * Ra[6 + k]);
        rb += Bb->size[k] * PetscAbsReal(u[0] * Rb[k] + u[1] * Rb[3 + k] + u[2] * Rb[6 + k]);
      }
      overlap = ra + rb - dist;
      if (overlap <= -margin) PetscFunctionReturn(0); /* separated */
      if (overlap < best - 1e-12 * (ra + rb)) {
        best = overlap, ref = s, axis = ax;
        for (int k = 0; k < 3; k++) n[k] = (Dot(dx, u) >= 0 ? 1 : -1) * u[k]; /* from b to a */
      }
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const PetscReal ua[3] = {Ra[i], Ra[3 + i], Ra[6 + i]}, ub[3] = {Rb[j], Rb[3 + j], Rb[6 + j]};
      PetscReal u[3], len, ra = 0, rb = 0, overlap;
      Cross(ua, ub, u);
      len = PetscSqrtReal(Dot(u, u));
      if (len < 1e-6) continue; /* parallel edges: the face axes cover them */
      for (int k = 0; k < 3; k++) u[k] /= len;
      for (int k = 0; k < 3; k++) {
        ra += A->size[k] * PetscAbsReal(u[0] * Ra[k] + u[1] * Ra[3 + k] + u[2] * Ra[6 + k]);
        rb += Bb->size[k] * PetscAbsReal(u[0] * Rb[k] + u[1] * Rb[3 + k] + u[2] * Rb[6 + k]);
      }
      overlap = ra + rb - PetscAbsReal(Dot(dx, u));
      if (overlap <= -margin) PetscFunctionReturn(0); /* separated */
      if (overlap < ebest) {
        ebest = overlap, ei = i, ej = j;
        for (int k = 0; k < 3; k++) en[k] = (Dot(dx, u) >= 0 ? 1 : -1) * u[k];
      }
    }
  if (ei >= 0 && ebest < 0.95 * best - 1e-6 * (Reach(A) + Reach(Bb))) {
    /* the supporting edges: a's deepest toward b (along -n), b's deepest toward a (along +n) */
    PetscReal ca[3], cb[3], da[3], db[3], pa[3], pb[3], p[3];
    for (int k = 0; k < 3; k++) ca[k] = A->x[k], cb[k] = Bb->x[k], da[k] = Ra[3 * k + ei], db[k] = Rb[3 * k + ej];
    for (int m = 0; m < 3; m++) {
      const PetscReal ua[3] = {Ra[m], Ra[3 + m], Ra[6 + m]}, ub[3] = {Rb[m], Rb[3 + m], Rb[6 + m]};
      const PetscReal sa = Dot(ua, en) > 0 ? -1 : 1, sb = Dot(ub, en) > 0 ? 1 : -1;
      for (int k = 0; k < 3; k++) {
        if (m != ei) ca[k] += sa * A->size[m] * ua[k];
        if (m != ej) cb[k] += sb * Bb->size[m] * ub[k];
      }
    }
    SegmentsClosest(ca, da, A->size[ei], cb, db, Bb->size[ej], pa, pb);
    {
      PetscReal d[3], pen;
      for (int k = 0; k < 3; k++) d[k] = pb[k] - pa[k], p[k] = 0.5 * (pa[k] + pb[k]);
      pen = Dot(d, en);
      if (pen > -margin) PetscCall(Add(L, a, b, key + 16 + 3 * ei + ej, en, p, pa, pb, pen));
    }
    PetscFunctionReturn(0);
  }
  {
    /* reference box F (face normal fn, outward toward the incident box), incident box I */
    const SimRigidBody *F = ref ? Bb : A, *Inc = ref ? A : Bb;
    const PetscReal *RF = ref ? Rb : Ra;
    PetscReal fn[3], xc[8][3], plane;
    for (int k = 0; k < 3; k++) fn[k] = ref ? n[k] : -n[k];
    plane = Dot(F->x, fn) + F->size[axis];
    BoxCorners(Inc, xc);
    for (int c = 0; c < 8; c++) {
      const PetscReal depth = plane - Dot(xc[c], fn);
      PetscReal r[3], other[3];
      PetscBool within = PETSC_TRUE;
      if (depth <= -margin) continue;
      for (int k = 0; k < 3; k++) r[k] = xc[c][k] - F->x[k];
      for (int t = 0; t < 3; t++) {
        const PetscReal lt = r[0] * RF[t] + r[1] * RF[3 + t] + r[2] * RF[6 + t];
        if (t != axis && PetscAbsReal(lt) > 1.05 * F->size[t]) within = PETSC_FALSE;
      }
      if (!within) continue;
      for (int k = 0; k < 3; k++) other[k] = xc[c][k] + depth * fn[k]; /* on the reference face */
      if (ref) PetscCall(Add(L, a, b, key + 8 * ref + c, n, xc[c], xc[c], other, depth));
      else PetscCall(Add(L, a, b, key + 8 * ref + c, n, xc[c], other, xc[c], depth));
    }
  }
  PetscFunctionReturn(0);
}

/* ---- convex polyhedra: hulls, and boxes as 8-vertex hulls (Gregorius, "The separating axis test
 * between convex polyhedra", GDC 2013, and "Robust contact creation for physics simulations",
 * GDC 2015) ---- */

/* A box's features, its corner k at the signs (k&1, k&2, k&4) of the half extents (BoxCorners):
 * faces +x, -x, +y, -y, +z, -z, counter-clockwise seen from outside; edges u < v with the face
 * holding u -> v and the face holding v -> u (SimHullFeatures). */
static const PetscInt box_start[7] = {0, 4, 8, 12, 16, 20, 24};
static const PetscInt box_loop[24] = {1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3, 0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1};
static const PetscInt box_edge[48] = {1, 3, 0, 5, 3, 7, 0, 2, 0, 4, 1, 3, 4, 6, 1, 4, 2, 6, 2, 1, 6, 7, 2, 4,
                                      0, 1, 3, 5, 1, 5, 3, 0, 4, 5, 4, 3, 5, 7, 4, 0, 0, 2, 5, 1, 2, 3, 5, 2};

/* A body as a polyhedron in the world: vertices, face planes (unit outward normal, offset),
 * the faces' vertex loops and the edges (body-frame topology), the centre of mass. */
typedef struct {
  PetscInt nv, nface, nedge;
  const PetscInt *start, *loop, *edge;
  PetscReal *x;     /* 3 nv */
  PetscReal *plane; /* 4 nface */
  PetscReal c[3];
} Poly;

static void PolySize(const SimRigidBodies *B, PetscInt i, PetscInt *nv, PetscInt *nface)
{
  const SimRigidBody *b = &B->body[i];
  if (b->shape == SIM_RIGID_BOX) *nv = 8, *nface = 6;
  else *nv = B->hull[b->hull].nv, *nface = B->hull[b->hull].feat.nface;
}

/* Body i (a box or a hull) placed in the world, into buf (3 nv + 4 nface reals). */
static void PolyPlace(const SimRigidBodies *B, PetscInt i, PetscReal *buf, Poly *P)
{
  const SimRigidBody *b = &B->body[i];
  PetscReal R[9], box_v[24], box_pl[24];
  const PetscReal *lv, *lp;

  if (b->shape == SIM_RIGID_BOX) {
    for (int k = 0; k < 8; k++)
      for (int d = 0; d < 3; d++) box_v[3 * k + d] = (k >> d & 1 ? 1 : -1) * b->size[d];
    for (int f = 0; f < 6; f++) {
      for (int d = 0; d < 3; d++) box_pl[4 * f + d] = d == f / 2 ? (f % 2 ? -1 : 1) : 0;
      box_pl[4 * f + 3] = b->size[f / 2];
    }
    P->nv = 8, P->nface = 6, P->nedge = 12, P->start = box_start, P->loop = box_loop, P->edge = box_edge, lv = box_v, lp = box_pl;
  } else {
    const SimRigidHull *h = &B->hull[b->hull];
    P->nv = h->nv, P->nface = h->feat.nface, P->nedge = h->feat.nedge, P->start = h->feat.start, P->loop = h->feat.loop, P->edge = h->feat.edge;
    lv = h->v, lp = h->feat.plane;
  }
  P->x = buf, P->plane = buf + 3 * P->nv;
  SimQuatToMatrix(b->q, R);
  for (PetscInt k = 0; k < P->nv; k++) {
    MatVec(R, lv + 3 * k, P->x + 3 * k);
    for (int d = 0; d < 3; d++) P->x[3 * k + d] += b->x[d];
  }
  for (PetscInt f = 0; f < P->nface; f++) {
    MatVec(R, lp + 4 * f, P->plane + 4 * f);
    P->plane[4 * f + 3] = lp[4 * f + 3] + Dot(P->plane + 4 * f, b->x);
  }
  for (int d = 0; d < 3; d++) P->c[d] = b->x[d];
}

/* Both bodies of a pair as polyhedra, in the list's scratch. */
static PetscErrorCode PolyPair(SimRigidContactList *L, const SimRigidBodies *B, PetscInt a, PetscInt b, Poly P[2])
{
  PetscInt nv[2], nf[2], need;

  PetscFunctionBeginUser;
  PolySize(B, a, &nv[0], &nf[0]);
  PolySize(B, b, &nv[1], &nf[1]);
  need = 3 * (nv[0] + nv[1]) + 4 * (nf[0] + nf[1]);
  if (need > L->nwork) {
    L->nwork = need;
    PetscCall(PetscFree(L->work));
    PetscCall(PetscMalloc1(need, &L->work));
  }
  PolyPlace(B, a, L->work, &P[0]);
  PolyPlace(B, b, L->work + 3 * nv[0] + 4 * nf[0], &P[1]);
  PetscFunctionReturn(0);
}

/* The face of A that separates B the most: max over A's faces f of min over B's vertices of
 * n_f . x - d_f (the gap along n_f; < 0: overlap). */
static void FaceQuery(const Poly *A, const Poly *Bp, PetscReal *sep, PetscInt *face)
{
  *sep = -PETSC_MAX_REAL, *face = -1;
  for (PetscInt f = 0; f < A->nface; f++) {
    const PetscReal *n = A->plane + 4 * f;
    PetscReal m = PETSC_MAX_REAL;
    for (PetscInt k = 0; k < Bp->nv; k++) m = PetscMin(m, Dot(n, Bp->x + 3 * k));
    if (m - n[3] > *sep) *sep = m - n[3], *face = f;
  }
}

/* Whether the arcs a-b and c-d of the Gauss map cross (unit normals; bxa = b x a, dxc = d x c):
 * the two edges then build a face of the Minkowski difference, the only edge pairs whose cross
 * product can separate (Gregorius 2013). */
static PetscBool MinkowskiFace(const PetscReal *a, const PetscReal *b, const PetscReal *bxa, const PetscReal *c, const PetscReal *d, const PetscReal *dxc)
{
  const PetscReal cba = Dot(c, bxa), dba = Dot(d, bxa), adc = Dot(a, dxc), bdc = Dot(b, dxc);
  return (PetscBool)(cba * dba < 0 && adc * bdc < 0 && cba * bdc > 0);
}

/* The edge pair that separates the most: over the pairs that build a face of the Minkowski
 * difference A - B, the gap along n = e_A x e_B (turned out of A) between the edges; parallel
 * pairs are left to the face axes. n: from A toward B. */
static void EdgeQuery(const Poly *A, const Poly *Bp, PetscReal *sep, PetscInt *ea, PetscInt *eb, PetscReal *nbest)
{
  *sep = -PETSC_MAX_REAL, *ea = *eb = -1;
  for (PetscInt i = 0; i < A->nedge; i++) {
    const PetscInt *E = A->edge + 4 * i;
    const PetscReal *pa = A->x + 3 * E[0], *a = A->plane + 4 * E[2], *b = A->plane + 4 * E[3];
    PetscReal bxa[3], eA[3], la;
    Cross(b, a, bxa);
    for (int k = 0; k < 3; k++) eA[k] = A->x[3 * E[1] + k] - pa[k];
    la = Dot(eA, eA);
    for (PetscInt j = 0; j < Bp->nedge; j++) {
      const PetscInt *F = Bp->edge + 4 * j;
      const PetscReal *pb = Bp->x + 3 * F[0];
      PetscReal c[3], d[3], dxc[3], eB[3], n[3], len, r[3], s;
      for (int k = 0; k < 3; k++) c[k] = -Bp->plane[4 * F[2] + k], d[k] = -Bp->plane[4 * F[3] + k];
      Cross(d, c, dxc);
      if (!MinkowskiFace(a, b, bxa, c, d, dxc)) continue;
      for (int k = 0; k < 3; k++) eB[k] = Bp->x[3 * F[1] + k] - pb[k];
      Cross(eA, eB, n);
      len = Dot(n, n);
      if (len < 1e-12 * la * Dot(eB, eB)) continue; /* parallel */
      len = PetscSqrtReal(len);
      for (int k = 0; k < 3; k++) n[k] /= len, r[k] = pa[k] - A->c[k];
      if (Dot(n, r) < 0)
        for (int k = 0; k < 3; k++) n[k] = -n[k];
      for (int k = 0; k < 3; k++) r[k] = pb[k] - pa[k];
      s = Dot(n, r);
      if (s > *sep) {
        *sep = s, *ea = i, *eb = j;
        for (int k = 0; k < 3; k++) nbest[k] = n[k];
      }
    }
  }
}

/* A free key in [base, base + width) of this manifold, from tag (the slots taken are marked in used). */
static PetscInt TakeKey(PetscBool used[SIM_RIGID_KEY_FEATURES], PetscInt base, PetscInt width, PetscInt tag)
{
  PetscInt t = ((tag % width) + width) % width;
  for (PetscInt k = 0; k < width && used[base + t]; k++) t = (t + 1) % width;
  used[base + t] = PETSC_TRUE;
  return base + t;
}

#define CLIP_MAX (2 * SIM_RIGID_HULL_MAX_FACE + 8)

/* Face contact: face fr of the reference polyhedron P[r] against the face of the other (incident)
 * one most opposed to it; the incident face's polygon clipped by the reference face's side planes
 * (Sutherland-Hodgman), its points below the reference plane (down to -margin) are the contacts,
 * each with its projection on the reference face. Keys: the reference side's half of the slots,
 * from the point's features (an incident vertex, or a clip plane and the edge it cut). */
static PetscErrorCode FaceContacts(SimRigidContactList *L, PetscInt a, PetscInt b, PetscInt key, PetscReal margin, const Poly P[2], int r, PetscInt fr, PetscReal scale)
{
  const Poly *R = &P[r], *Inc = &P[1 - r];
  const PetscReal *nr = R->plane + 4 * fr;
  PetscReal buf[2][CLIP_MAX][3], best = PETSC_MAX_REAL, eps = 1e-6 * scale;
  PetscInt fid[2][CLIP_MAX], fi = -1, nin = 0, cur = 0;
  PetscBool used[SIM_RIGID_KEY_FEATURES] = {PETSC_FALSE};

  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < Inc->nface; f++)
    if (Dot(Inc->plane + 4 * f, nr) < best) best = Dot(Inc->plane + 4 * f, nr), fi = f;
  for (PetscInt k = Inc->start[fi]; k < Inc->start[fi + 1]; k++, nin++) {
    for (int d = 0; d < 3; d++) buf[0][nin][d] = Inc->x[3 * Inc->loop[k] + d];
    fid[0][nin] = Inc->loop[k];
  }
  for (PetscInt e = R->start[fr]; e < R->start[fr + 1] && nin > 0; e++) {
    const PetscReal *q0 = R->x + 3 * R->loop[e], *q1 = R->x + 3 * R->loop[e + 1 < R->start[fr + 1] ? e + 1 : R->start[fr]];
    PetscReal t[3], s[3], ls;
    PetscInt nout = 0;
    for (int d = 0; d < 3; d++) t[d] = q1[d] - q0[d];
    Cross(t, nr, s); /* out of the face across this edge */
    ls = PetscSqrtReal(Dot(s, s));
    if (ls == 0) continue;
    for (int d = 0; d < 3; d++) s[d] /= ls;
    for (PetscInt k = 0; k < nin; k++) {
      const PetscReal *p = buf[cur][k], *q = buf[cur][(k + 1) % nin];
      PetscReal dp = 0, dq = 0;
      for (int d = 0; d < 3; d++) dp += s[d] * (p[d] - q0[d]), dq += s[d] * (q[d] - q0[d]);
      if (dp <= eps && nout < CLIP_MAX) { /* within eps of the side plane: kept where it is */
        for (int d = 0; d < 3; d++) buf[1 - cur][nout][d] = p[d];
        fid[1 - cur][nout++] = fid[cur][k];
      }
      if ((dp <= eps) != (dq <= eps) && dp * dq < 0 && nout < CLIP_MAX) { /* crossing: the point on the plane */
        const PetscReal u = dp / (dp - dq);
        for (int d = 0; d < 3; d++) buf[1 - cur][nout][d] = p[d] + u * (q[d] - p[d]);
        fid[1 - cur][nout++] = Inc->nv + (31 * (fid[cur][k] % 1000003) + 7 * (e - R->start[fr]) + 5) % 1000003;
      }
    }
    nin = nout, cur = 1 - cur;
  }
  for (PetscInt k = 0; k < nin; k++) {
    const PetscReal *x = buf[cur][k], depth = nr[3] - Dot(nr, x);
    PetscReal on[3], n[3];
    PetscInt kk;
    if (depth <= -margin) continue;
    for (int d = 0; d < 3; d++) on[d] = x[d] + depth * nr[d], n[d] = r ? nr[d] : -nr[d]; /* n: from b to a */
    kk = TakeKey(used, 30 * r, 30, fid[cur][k] + 11 * fr + 5 * fi);
    if (r) PetscCall(Add(L, a, b, key + kk, n, x, x, on, depth)); /* incident a */
    else PetscCall(Add(L, a, b, key + kk, n, x, on, x, depth)); /* incident b */
  }
  PetscFunctionReturn(0);
}

/* Two convex polyhedra (hulls, or a hull and a box) by the separating-axis test on the faces of
 * both and the edge pairs that build faces of the Minkowski difference. The axis that separates
 * the most: separated (beyond margin), no contact; an edge pair clearly better than the faces
 * (beyond 0.95 of the faces' overlap, the bias of BoxBox that keeps resting faces on face
 * contacts): one contact between the closest points of the two edges; else face contacts, the
 * reference face a's unless b's is clearly better (0.98: the reference stays put while resting). */
static PetscErrorCode PolyPoly(SimRigidContactList *L, const SimRigidBodies *B, PetscInt a, PetscInt b, PetscInt key, PetscReal margin)
{
  Poly P[2];
  PetscReal fsep[2], esep, en[3];
  PetscInt face[2], ea, eb;
  const PetscReal scale = Reach(&B->body[a]) + Reach(&B->body[b]), tol = 1e-6 * scale;

  PetscFunctionBeginUser;
  PetscCall(PolyPair(L, B, a, b, P));
  FaceQuery(&P[0], &P[1], &fsep[0], &face[0]);
  if (fsep[0] >= margin) PetscFunctionReturn(0);
  FaceQuery(&P[1], &P[0], &fsep[1], &face[1]);
  if (fsep[1] >= margin) PetscFunctionReturn(0);
  EdgeQuery(&P[0], &P[1], &esep, &ea, &eb, en);
  if (esep >= margin) PetscFunctionReturn(0);
  if (ea >= 0 && esep > 0.95 * PetscMax(fsep[0], fsep[1]) + tol) {
    const PetscInt *E = P[0].edge + 4 * ea, *F = P[1].edge + 4 * eb;
    PetscReal ca[3], da[3], cb[3], db[3], ha, hb, pa[3], pb[3], p[3], n[3], dd[3], pen;
    for (int k = 0; k < 3; k++) {
      ca[k] = 0.5 * (P[0].x[3 * E[0] + k] + P[0].x[3 * E[1] + k]), da[k] = P[0].x[3 * E[1] + k] - P[0].x[3 * E[0] + k];
      cb[k] = 0.5 * (P[1].x[3 * F[0] + k] + P[1].x[3 * F[1] + k]), db[k] = P[1].x[3 * F[1] + k] - P[1].x[3 * F[0] + k];
    }
    ha = PetscSqrtReal(Dot(da, da)), hb = PetscSqrtReal(Dot(db, db));
    for (int k = 0; k < 3; k++) da[k] /= ha, db[k] /= hb;
    SegmentsClosest(ca, da, 0.5 * ha, cb, db, 0.5 * hb, pa, pb);
    for (int k = 0; k < 3; k++) n[k] = -en[k], dd[k] = pb[k] - pa[k], p[k] = 0.5 * (pa[k] + pb[k]);
    pen = Dot(dd, n);
    if (pen > -margin) PetscCall(Add(L, a, b, key + 60 + (ea * P[1].nedge + eb) % 4, n, p, pa, pb, pen));
    PetscFunctionReturn(0);
  }
  {
    const int r = fsep[1] > 0.98 * fsep[0] + tol ? 1 : 0;
    PetscCall(FaceContacts(L, a, b, key, margin, P, r, face[r], scale));
  }
  PetscFunctionReturn(0);
}

/* The closest point of the triangle abc to p (Ericson, "Real-Time Collision Detection", 5.1.5). */
static void ClosestOnTriangle(const PetscReal *p, const PetscReal *a, const PetscReal *b, const PetscReal *c, PetscReal *q)
{
  PetscReal ab[3], ac[3], ap[3], bp[3], cp[3], d1, d2, d3, d4, d5, d6, va, vb, vc, v, w, den;
  for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k], bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
  d1 = Dot(ab, ap), d2 = Dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) {
    for (int k = 0; k < 3; k++) q[k] = a[k];
    return;
  }
  d3 = Dot(ab, bp), d4 = Dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) {
    for (int k = 0; k < 3; k++) q[k] = b[k];
    return;
  }
  vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    v = d1 / (d1 - d3);
    for (int k = 0; k < 3; k++) q[k] = a[k] + v * ab[k];
    return;
  }
  d5 = Dot(ab, cp), d6 = Dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) {
    for (int k = 0; k < 3; k++) q[k] = c[k];
    return;
  }
  vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    w = d2 / (d2 - d6);
    for (int k = 0; k < 3; k++) q[k] = a[k] + w * ac[k];
    return;
  }
  va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int k = 0; k < 3; k++) q[k] = b[k] + w * (c[k] - b[k]);
    return;
  }
  den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
  for (int k = 0; k < 3; k++) q[k] = a[k] + ab[k] * v + ac[k] * w;
}

/* Sphere a against hull b, in the hull's frame: the face whose plane the centre is farthest above;
 * at or below every plane (the centre inside), that face is the normal and the depth is the
 * radius plus the centre's depth below it; above, the closest point of the hull's triangles. */
static PetscErrorCode SphereHull(SimRigidContactList *L, const SimRigidBodies *B, PetscInt a, PetscInt b, PetscInt key, PetscReal margin)
{
  const SimRigidBody *s = &B->body[a], *hb = &B->body[b];
  const SimRigidHull *h = &B->hull[hb->hull];
  const PetscReal rad = s->size[0];
  PetscReal R[9], r[3], l[3], cl[3], nl[3], n[3], cw[3], pa[3], best = -PETSC_MAX_REAL, pen;
  PetscInt fb = -1;

  PetscFunctionBeginUser;
  SimQuatToMatrix(hb->q, R);
  for (int k = 0; k < 3; k++) r[k] = s->x[k] - hb->x[k];
  MatTVec(R, r, l);
  for (PetscInt f = 0; f < h->feat.nface; f++) {
    const PetscReal *pl = h->feat.plane + 4 * f, sd = Dot(pl, l) - pl[3];
    if (sd > best) best = sd, fb = f;
  }
  if (best >= rad + margin) PetscFunctionReturn(0);
  if (best <= 0) {
    for (int k = 0; k < 3; k++) nl[k] = h->feat.plane[4 * fb + k], cl[k] = l[k] - best * nl[k];
    pen = rad - best;
  } else {
    PetscReal d2 = PETSC_MAX_REAL, dist;
    for (PetscInt t = 0; t < h->nf; t++) {
      PetscReal q[3], e[3];
      ClosestOnTriangle(l, h->v + 3 * h->f[3 * t], h->v + 3 * h->f[3 * t + 1], h->v + 3 * h->f[3 * t + 2], q);
      for (int k = 0; k < 3; k++) e[k] = l[k] - q[k];
      if (Dot(e, e) < d2) {
        d2 = Dot(e, e);
        for (int k = 0; k < 3; k++) cl[k] = q[k];
      }
    }
    dist = PetscSqrtReal(d2);
    if (dist >= rad + margin || dist == 0) PetscFunctionReturn(0);
    for (int k = 0; k < 3; k++) nl[k] = (l[k] - cl[k]) / dist;
    pen = rad - dist;
  }
  MatVec(R, nl, n);
  MatVec(R, cl, cw);
  for (int k = 0; k < 3; k++) cw[k] += hb->x[k], pa[k] = s->x[k] - rad * n[k];
  PetscCall(Add(L, a, b, key, n, cw, pa, cw, pen));
  PetscFunctionReturn(0);
}

/* Hull a against sphere b: the sphere-hull test with the roles swapped back. */
static PetscErrorCode HullSphere(SimRigidContactList *L, const SimRigidBodies *B, PetscInt a, PetscInt b, PetscInt key, PetscReal margin)
{
  const PetscInt n0 = L->n;

  PetscFunctionBeginUser;
  PetscCall(SphereHull(L, B, b, a, key, margin));
  SwapRoles(L, n0, a, b);
  PetscFunctionReturn(0);
}

/* The narrow phase by shape: pair[shape of a][shape of b], plane[shape]; NULL: not yet (an error
 * when such a pair comes close). A box against a hull is the hull test with the box as an
 * 8-vertex hull; two boxes keep their own test (BoxBox). */
static const PairFn pair_fn[SIM_RIGID_NSHAPES][SIM_RIGID_NSHAPES] = {
  {SphereSphere, SphereBox,  SphereHull},
  {BoxSphere,    BoxBox,     PolyPoly  },
  {HullSphere,   PolyPoly,   PolyPoly  }
};
static const PlaneFn plane_fn[SIM_RIGID_NSHAPES] = {SpherePlane, BoxPlane, HullPlane};
static const char *const shape_name[SIM_RIGID_NSHAPES] = {"sphere", "box", "hull"};


static PetscBool Joined(const SimRigidBodies *B, PetscInt i, PetscInt j)
{
  for (PetscInt q = 0; q < B->njoint; q++)
    if ((B->joint[q].a == i && B->joint[q].b == j) || (B->joint[q].a == j && B->joint[q].b == i)) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode SimRigidCollide(const SimRigidBodies *B, PetscReal margin, PetscBool skip_joined, SimRigidContactList *L)
{
  const PetscInt nb = B->nbody, stride = nb + B->nplane;

  PetscFunctionBeginUser;
  L->n = 0;
  for (PetscInt i = 0; i < nb; i++) {
    const SimRigidBody *b = &B->body[i];
    if (b->inv_mass == 0) continue;
    for (PetscInt k = 0; k < B->nplane; k++) PetscCall(plane_fn[b->shape](L, B, b, i, &B->plane[k], k, (i * stride + nb + k) * SIM_RIGID_KEY_FEATURES, margin));
  }
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt j = i + 1; j < nb; j++) {
      const SimRigidBody *a = &B->body[i], *b = &B->body[j];
      PetscReal dx[3], reach = 1.0001 * (Reach(a) + Reach(b)) + margin;
      if (a->inv_mass == 0 && b->inv_mass == 0) continue;
      for (int e = 0; e < 3; e++) dx[e] = a->x[e] - b->x[e];
      if (Dot(dx, dx) >= reach * reach) continue; /* bounding spheres apart */
      if (skip_joined && Joined(B, i, j)) continue;
      PetscCheck(pair_fn[a->shape][b->shape], PETSC_COMM_SELF, PETSC_ERR_SUP, "Rigid contact between a %s (body %" PetscInt_FMT ") and a %s (body %" PetscInt_FMT "): not yet (docs/rigid.md)",
                 shape_name[a->shape], i, shape_name[b->shape], j);
      PetscCall(pair_fn[a->shape][b->shape](L, B, i, j, (i * stride + j) * SIM_RIGID_KEY_FEATURES, margin));
    }
  PetscFunctionReturn(0);
}

PetscErrorCode SimRigidContactListDestroy(SimRigidContactList *L)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(L->c));
  PetscCall(PetscFree(L->work));
  L->n = L->cap = L->nwork = 0;
  PetscFunctionReturn(0);
}

void SimRigidContactMaterial(const SimRigidBodies *B, PetscInt a, PetscInt b, PetscReal *mu, PetscReal *e)
{
  const PetscReal fb = b >= 0 ? B->body[b].friction : B->plane[-1 - b].friction, eb = b >= 0 ? B->body[b].restitution : B->plane[-1 - b].restitution;
  *e = PetscMax(B->body[a].restitution, eb);
  *mu = PetscSqrtReal(B->body[a].friction * fb);
}

PetscErrorCode SimRigidSolverFigures(SimProblem problem, PetscInt ncontacts, PetscInt *n, const char *names[], PetscReal values[])
{
  SimRigidBodies *B;
  PetscReal L[3];

  PetscFunctionBeginUser;
  PetscCall(SimRigidProblemGetBodies(problem, &B));
  SimRigidAngularMomentum(B, L);
  names[0] = "Lx", values[0] = L[0];
  names[1] = "Ly", values[1] = L[1];
  names[2] = "Lz", values[2] = L[2];
  names[3] = "contacts", values[3] = (PetscReal)ncontacts;
  *n = 4;
  PetscFunctionReturn(0);
}
