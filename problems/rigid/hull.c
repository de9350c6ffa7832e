/* Incremental 3D convex hull. O(n F) (F hull faces): meant for the few hundred vertices of a body's
 * shape, run once at set-up. */
#include <petscsys.h>
#include "problems/rigid/hull.h"

typedef struct {
  PetscInt v[3];
  PetscReal n[3], d; /* unit outward normal, n . x = d on the face */
  PetscBool alive;
} Face;

typedef struct {
  const PetscReal *x;
  Face *f;
  PetscInt nf, cap;
} Hull;

static PetscErrorCode AddFace(Hull *H, PetscInt a, PetscInt b, PetscInt c)
{
  const PetscReal *pa = H->x + 3 * a, *pb = H->x + 3 * b, *pc = H->x + 3 * c;
  PetscReal e1[3], e2[3], len;
  Face *f;

  PetscFunctionBeginUser;
  if (H->nf == H->cap) {
    H->cap = 2 * H->cap + 32;
    PetscCall(PetscRealloc(H->cap * sizeof(Face), &H->f));
  }
  f = &H->f[H->nf++];
  f->v[0] = a, f->v[1] = b, f->v[2] = c, f->alive = PETSC_TRUE;
  for (int k = 0; k < 3; k++) e1[k] = pb[k] - pa[k], e2[k] = pc[k] - pa[k];
  f->n[0] = e1[1] * e2[2] - e1[2] * e2[1], f->n[1] = e1[2] * e2[0] - e1[0] * e2[2], f->n[2] = e1[0] * e2[1] - e1[1] * e2[0];
  len = PetscSqrtReal(f->n[0] * f->n[0] + f->n[1] * f->n[1] + f->n[2] * f->n[2]);
  for (int k = 0; k < 3; k++) f->n[k] = len > 0 ? f->n[k] / len : 0;
  f->d = f->n[0] * pa[0] + f->n[1] * pa[1] + f->n[2] * pa[2];
  PetscFunctionReturn(0);
}

static PetscReal Dist2(const PetscReal *a, const PetscReal *b)
{
  return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
}

/* Whether the alive face holding the directed edge (b, a) is visible. */
static PetscBool TwinVisible(const Hull *H, const PetscBool *vis, PetscInt a, PetscInt b)
{
  for (PetscInt g = 0; g < H->nf; g++) {
    const Face *f = &H->f[g];
    if (!f->alive) continue;
    for (int e = 0; e < 3; e++)
      if (f->v[e] == b && f->v[(e + 1) % 3] == a) return vis[g];
  }
  return PETSC_FALSE;
}

PetscErrorCode SimConvexHull(PetscInt n, const PetscReal *x, PetscInt *nf, PetscInt **faces)
{
  Hull H = {x, NULL, 0, 0};
  PetscInt i0 = 0, i1 = -1, i2 = -1, i3 = -1, nh = 0, *hor = NULL, caph = 0, *order;
  PetscReal lo[3], hi[3], eps = 0, best, c[3], *key;
  PetscBool *vis = NULL;

  PetscFunctionBeginUser;
  PetscCheck(n >= 4, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "A convex hull needs at least 4 points (got %" PetscInt_FMT ")", n);
  for (int k = 0; k < 3; k++) lo[k] = hi[k] = x[k];
  for (PetscInt i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) lo[k] = PetscMin(lo[k], x[3 * i + k]), hi[k] = PetscMax(hi[k], x[3 * i + k]);
  for (int k = 0; k < 3; k++) eps += (hi[k] - lo[k]) * (hi[k] - lo[k]);
  eps = 1e-10 * PetscSqrtReal(eps);
  /* the first tetrahedron: the lowest x (first of ties), the farthest from it, the farthest from
   * their line, the farthest from their plane */
  for (PetscInt i = 1; i < n; i++)
    if (x[3 * i] < x[3 * i0]) i0 = i;
  best = 0;
  for (PetscInt i = 0; i < n; i++)
    if (Dist2(x + 3 * i, x + 3 * i0) > best) best = Dist2(x + 3 * i, x + 3 * i0), i1 = i;
  PetscCheck(i1 >= 0 && best > eps * eps, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Convex hull: all %" PetscInt_FMT " points coincide", n);
  best = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal u[3], w[3], cr[3], l;
    for (int k = 0; k < 3; k++) u[k] = x[3 * i1 + k] - x[3 * i0 + k], w[k] = x[3 * i + k] - x[3 * i0 + k];
    cr[0] = u[1] * w[2] - u[2] * w[1], cr[1] = u[2] * w[0] - u[0] * w[2], cr[2] = u[0] * w[1] - u[1] * w[0];
    l = cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2];
    if (l > best) best = l, i2 = i;
  }
  PetscCheck(i2 >= 0 && best > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Convex hull: all %" PetscInt_FMT " points lie on a line", n);
  PetscCall(AddFace(&H, i0, i1, i2));
  best = 0;
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal dd = PetscAbsReal(H.f[0].n[0] * x[3 * i] + H.f[0].n[1] * x[3 * i + 1] + H.f[0].n[2] * x[3 * i + 2] - H.f[0].d);
    if (dd > best) best = dd, i3 = i;
  }
  if (!(i3 >= 0 && best > eps)) PetscCall(PetscFree(H.f)); /* the first face's, before the error */
  PetscCheck(i3 >= 0 && best > eps, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Convex hull: all %" PetscInt_FMT " points lie in a plane (a body needs volume)", n);
  H.nf = 0;
  /* orient the tetrahedron's faces away from its centroid */
  for (int k = 0; k < 3; k++) c[k] = 0.25 * (x[3 * i0 + k] + x[3 * i1 + k] + x[3 * i2 + k] + x[3 * i3 + k]);
  {
    const PetscInt t[4][3] = {{i0, i1, i2}, {i0, i3, i1}, {i1, i3, i2}, {i2, i3, i0}};
    for (int f = 0; f < 4; f++) {
      PetscCall(AddFace(&H, t[f][0], t[f][1], t[f][2]));
      if (H.f[f].n[0] * c[0] + H.f[f].n[1] * c[1] + H.f[f].n[2] * c[2] > H.f[f].d) {
        H.nf--;
        PetscCall(AddFace(&H, t[f][0], t[f][2], t[f][1]));
      }
    }
  }
  /* add the points farthest from the centroid first (ties by index): the corners of a box come
   * before the points on its faces, which then lie on the hull's faces and stay out (in index order
   * they would stay on as vertices of flat faces) */
  PetscCall(PetscMalloc2(n, &order, n, &key));
  for (PetscInt i = 0; i < n; i++) order[i] = i, key[i] = -Dist2(x + 3 * i, c);
  PetscCall(PetscSortRealWithArrayInt(n, key, order));
  for (PetscInt o = 0; o < n; o++) {
    const PetscInt p = order[o];
    const PetscReal *xp = x + 3 * p;
    PetscInt nvis = 0;
    if (p == i0 || p == i1 || p == i2 || p == i3) continue;
    PetscCall(PetscRealloc((H.nf + 1) * sizeof(PetscBool), &vis));
    for (PetscInt g = 0; g < H.nf; g++) {
      vis[g] = (PetscBool)(H.f[g].alive && H.f[g].n[0] * xp[0] + H.f[g].n[1] * xp[1] + H.f[g].n[2] * xp[2] - H.f[g].d > eps);
      nvis += vis[g];
    }
    if (!nvis) continue; /* inside */
    /* the horizon: edges of visible faces whose twin is not visible, in the visible face's order */
    nh = 0;
    for (PetscInt g = 0; g < H.nf; g++) {
      if (!vis[g]) continue;
      for (int e = 0; e < 3; e++) {
        const PetscInt a = H.f[g].v[e], b = H.f[g].v[(e + 1) % 3];
        if (TwinVisible(&H, vis, a, b)) continue;
        if (nh == caph) {
          caph = 2 * caph + 32;
          PetscCall(PetscRealloc(2 * caph * sizeof(PetscInt), &hor));
        }
        hor[2 * nh] = a, hor[2 * nh + 1] = b, nh++;
      }
    }
    for (PetscInt g = 0; g < H.nf; g++)
      if (vis[g]) H.f[g].alive = PETSC_FALSE;
    for (PetscInt e = 0; e < nh; e++) PetscCall(AddFace(&H, hor[2 * e], hor[2 * e + 1], p));
    {
      /* drop the dead faces, so the searches run over the hull only */
      PetscInt m = 0;
      for (PetscInt g = 0; g < H.nf; g++)
        if (H.f[g].alive) H.f[m++] = H.f[g];
      H.nf = m;
    }
  }
  {
    PetscCall(PetscMalloc1(3 * H.nf + 1, faces));
    for (PetscInt g = 0; g < H.nf; g++)
      for (int k = 0; k < 3; k++) (*faces)[3 * g + k] = H.f[g].v[k];
    *nf = H.nf;
  }
  PetscCall(PetscFree(H.f));
  PetscCall(PetscFree(vis));
  PetscCall(PetscFree(hor));
  PetscCall(PetscFree2(order, key));
  PetscFunctionReturn(0);
}

/* Whether the directed edge u -> v is an edge of one of the triangles in list[0 .. n). */
static PetscBool HasEdge(const PetscInt *tri, const PetscInt *list, PetscInt n, PetscInt u, PetscInt v)
{
  for (PetscInt k = 0; k < n; k++)
    for (int e = 0; e < 3; e++)
      if (tri[3 * list[k] + e] == u && tri[3 * list[k] + (e + 1) % 3] == v) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Faces: the triangles grouped by their unit normal (a triangle joins the first group whose seed's
 * normal it matches within 1e-9); each group's boundary (its triangles' directed edges whose twins
 * are not in it) chained into one loop; the plane of the group's largest triangle, its offset the
 * largest over the loop's vertices (every vertex on or below every plane). Edges: the loop edges
 * u -> v with u < v and the face whose loop holds v -> u. O(nf^2): set-up only. */
PetscErrorCode SimHullFeaturesCreate(PetscInt nv, const PetscReal *x, PetscInt nf, const PetscInt *tri, SimHullFeatures *F)
{
  PetscReal *tn, *area;
  PetscInt *grp, *members, *bu, *bv, ng = 0, nl = 0, ne = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(F, sizeof(*F)));
  PetscCheck(nf >= 4, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Hull features: %" PetscInt_FMT " triangles do not close a solid", nf);
  PetscCall(PetscMalloc6(3 * nf, &tn, nf, &area, nf, &grp, nf, &members, 3 * nf, &bu, 3 * nf, &bv));
  for (PetscInt t = 0; t < nf; t++) {
    const PetscReal *a = x + 3 * tri[3 * t], *b = x + 3 * tri[3 * t + 1], *c = x + 3 * tri[3 * t + 2];
    PetscReal e1[3], e2[3], *n = tn + 3 * t, len;
    for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    len = PetscSqrtReal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Hull features: triangle %" PetscInt_FMT " is degenerate", t);
    for (int k = 0; k < 3; k++) n[k] /= len;
    area[t] = 0.5 * len, grp[t] = -1;
  }
  for (PetscInt t = 0; t < nf; t++) {
    if (grp[t] >= 0) continue;
    grp[t] = ng;
    for (PetscInt s = t + 1; s < nf; s++)
      if (grp[s] < 0 && tn[3 * s] * tn[3 * t] + tn[3 * s + 1] * tn[3 * t + 1] + tn[3 * s + 2] * tn[3 * t + 2] > 1 - 1e-9) grp[s] = ng;
    ng++;
  }
  F->nface = ng;
  PetscCall(PetscMalloc3(4 * ng, &F->plane, ng + 1, &F->start, 3 * nf, &F->loop));
  F->start[0] = 0;
  for (PetscInt g = 0; g < ng; g++) {
    PetscInt nm = 0, nb = 0, big = -1, cur, first;
    for (PetscInt t = 0; t < nf; t++)
      if (grp[t] == g) {
        members[nm++] = t;
        if (big < 0 || area[t] > area[big]) big = t;
      }
    for (PetscInt k = 0; k < nm; k++)
      for (int e = 0; e < 3; e++) {
        const PetscInt u = tri[3 * members[k] + e], v = tri[3 * members[k] + (e + 1) % 3];
        if (!HasEdge(tri, members, nm, v, u)) bu[nb] = u, bv[nb] = v, nb++;
      }
    /* chain the boundary: from the first edge's start, always the edge leaving the current vertex */
    first = cur = bu[0];
    for (PetscInt k = 0; k < nb; k++) {
      PetscInt next = -1;
      for (PetscInt m = 0; m < nb; m++)
        if (bu[m] == cur) {
          PetscCheck(next < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Hull features: face %" PetscInt_FMT " passes vertex %" PetscInt_FMT " twice (not a convex hull's face)", g, cur);
          next = bv[m];
        }
      PetscCheck(next >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Hull features: face %" PetscInt_FMT " is open at vertex %" PetscInt_FMT, g, cur);
      F->loop[nl++] = cur;
      cur = next;
      PetscCheck(cur != first || k == nb - 1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Hull features: face %" PetscInt_FMT " of coplanar triangles is not one disc (not a convex hull's face)", g);
    }
    PetscCheck(cur == first, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Hull features: face %" PetscInt_FMT " does not close", g);
    F->start[g + 1] = nl;
    F->maxloop = PetscMax(F->maxloop, nb);
    {
      PetscReal *pl = F->plane + 4 * g, d = -PETSC_MAX_REAL;
      for (int k = 0; k < 3; k++) pl[k] = tn[3 * big + k];
      for (PetscInt k = F->start[g]; k < nl; k++) d = PetscMax(d, pl[0] * x[3 * F->loop[k]] + pl[1] * x[3 * F->loop[k] + 1] + pl[2] * x[3 * F->loop[k] + 2]);
      pl[3] = d;
    }
  }
  PetscCheck(nl % 2 == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Hull features: %" PetscInt_FMT " face edges, an odd number (not closed)", nl);
  PetscCall(PetscMalloc1(2 * nl, &F->edge));
  for (PetscInt g = 0; g < ng; g++)
    for (PetscInt k = F->start[g]; k < F->start[g + 1]; k++) {
      const PetscInt u = F->loop[k], v = F->loop[k + 1 < F->start[g + 1] ? k + 1 : F->start[g]];
      PetscInt twin = -1;
      if (u > v) continue;
      for (PetscInt h = 0; h < ng && twin < 0; h++)
        for (PetscInt m = F->start[h]; m < F->start[h + 1]; m++)
          if (F->loop[m] == v && F->loop[m + 1 < F->start[h + 1] ? m + 1 : F->start[h]] == u) {
            twin = h;
            break;
          }
      PetscCheck(twin >= 0 && twin != g, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Hull features: edge %" PetscInt_FMT " - %" PetscInt_FMT " has no second face", u, v);
      F->edge[4 * ne] = u, F->edge[4 * ne + 1] = v, F->edge[4 * ne + 2] = g, F->edge[4 * ne + 3] = twin, ne++;
    }
  F->nedge = ne;
  PetscCheck(2 * ne == nl, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Hull features: %" PetscInt_FMT " edges for %" PetscInt_FMT " face edges (not closed)", ne, nl);
  PetscCall(PetscFree6(tn, area, grp, members, bu, bv));
  (void)nv;
  PetscFunctionReturn(0);
}

PetscErrorCode SimHullFeaturesDestroy(SimHullFeatures *F)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(F->plane, F->start, F->loop));
  PetscCall(PetscFree(F->edge));
  F->nface = F->nedge = F->maxloop = 0;
  PetscFunctionReturn(0);
}
