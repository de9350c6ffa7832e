/* Contact detection shared by the rigid-body solvers: a table of narrow-phase tests by shape pair
 * (sphere, box) and by shape against a plane. Each test appends contact points (contact.h). */
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

/* Box a against sphere b: the sphere-box test with the roles swapped back. */
static PetscErrorCode BoxSphere(SimRigidContactList *L, const SimRigidBodies *B, PetscInt a, PetscInt b, PetscInt key, PetscReal margin)
{
  const PetscInt n0 = L->n;

  PetscFunctionBeginUser;
  PetscCall(SphereBox(L, B, b, a, key, margin));
  for (PetscInt q = n0; q < L->n; q++) {
    SimRigidContact *c = &L->c[q];
    c->a = a, c->b = b;
    for (int e = 0; e < 3; e++) {
      const PetscReal t = c->pa[e];
      c->n[e] = -c->n[e], c->pa[e] = c->pb[e], c->pb[e] = t;
    }
  }
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

/* The narrow phase by shape: pair[shape of a][shape of b], plane[shape]; NULL: not yet (an error
 * when such a pair comes close). */
static const PairFn pair_fn[SIM_RIGID_NSHAPES][SIM_RIGID_NSHAPES] = {{SphereSphere, SphereBox, NULL}, {BoxSphere, BoxBox, NULL}, {NULL, NULL, NULL}};
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
  L->n = L->cap = 0;
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
