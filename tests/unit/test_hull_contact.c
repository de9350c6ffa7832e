/* Unit tests of the convex hulls' narrow phase (solvers/rigid/contact.c: hull-hull, hull-box,
 * hull-sphere) and of hull bodies under both rigid solvers: contact normals, depths and points
 * against analytic answers (two cubes given as hulls face on face and edge on edge, a sphere over a
 * face, by a vertex and inside an octahedron), separated pairs give none (or speculative ones
 * within the margin), the separating-axis test agrees with a brute-force one over random poses; a
 * cube given as a hull gives the box's contact set and moves as the box does; an irregular prism
 * comes to rest at its analytic height on a box and on a hull without sinking or gaining energy; a
 * stack of three hexagonal prisms stands; a hull with a flat face beyond the clipping buffers is
 * refused with a clear error. */
#include <string.h>
#include "testing.h"
#include "problems/rigid/rigid.h"
#include "solvers/rigid/contact.h"

static const char *const solvers[] = {"rigid", "xpbd_rigid"};
#define NSOLVERS 2

typedef struct {
  SimRegistry reg;
  SimProblem p;
  SimRigidBodies *B;
  SimRigidContactList L;
} Bodies;

static void Open(Bodies *s, const char *opts)
{
  CHECK_PETSC(PetscMemzero(s, sizeof(*s)));
  CHECK_PETSC(TestSetOptions(opts));
  CHECK_PETSC(TestRegistryCreate(&s->reg));
  CHECK_PETSC(SimProblemCreate(s->reg, "rigid", "hulls", PETSC_COMM_SELF, &s->p));
  CHECK_PETSC(SimRigidProblemGetBodies(s->p, &s->B));
}

static void Close(Bodies *s)
{
  CHECK_PETSC(SimRigidContactListDestroy(&s->L));
  CHECK_PETSC(SimProblemDestroy(&s->p));
  CHECK_PETSC(SimRegistryDestroy(&s->reg));
}

/* The corners of a box of half extents h about the origin, corner k at the signs (k&1, k&2, k&4). */
static void CubePoints(const PetscReal h[3], PetscReal x[24])
{
  for (int k = 0; k < 8; k++)
    for (int d = 0; d < 3; d++) x[3 * k + d] = (k >> d & 1 ? 1 : -1) * h[d];
}

/* The regular octahedron of vertex distance 0.3 (face planes n . x = 0.3 / sqrt 3, n = (+-1, +-1, +-1) / sqrt 3). */
static const PetscReal octa[18] = {0.3, 0, 0, -0.3, 0, 0, 0, 0.3, 0, 0, -0.3, 0, 0, 0, 0.3, 0, 0, -0.3};

/* The irregular triangular prism of test_rigid_shapes: the triangle (0, 0), (0.4, 0), (0.1, 0.3)
 * in x, y over z in [-0.1, 0.1]; centroid height 0.1 above its rectangular face y = 0. */
static const PetscReal prism[18] = {0, 0, -0.1, 0.4, 0, -0.1, 0.1, 0.3, -0.1, 0, 0, 0.1, 0.4, 0, 0.1, 0.1, 0.3, 0.1};

/* A hexagonal prism of radius r and half height hh about the origin (12 points). */
static void HexPrism(PetscReal r, PetscReal hh, PetscReal x[36])
{
  for (int k = 0; k < 12; k++) {
    const PetscReal a = PETSC_PI * (k % 6) / 3;
    x[3 * k] = r * PetscCosReal(a), x[3 * k + 1] = k < 6 ? -hh : hh, x[3 * k + 2] = r * PetscSinReal(a);
  }
}

static void QuatAxisAngle(PetscReal ax, PetscReal ay, PetscReal az, PetscReal ang, PetscReal q[4])
{
  const PetscReal n = PetscSqrtReal(ax * ax + ay * ay + az * az);
  q[0] = PetscCosReal(ang / 2), q[1] = PetscSinReal(ang / 2) * ax / n, q[2] = PetscSinReal(ang / 2) * ay / n, q[3] = PetscSinReal(ang / 2) * az / n;
}

static PetscReal Dist3(const PetscReal *a, const PetscReal *b)
{
  return PetscSqrtReal((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* Every contact's own consistency: pen = (pb - pa) . n, |n| = 1, keys distinct. */
static void CheckContacts(const SimRigidContactList *L, const char *what)
{
  for (PetscInt q = 0; q < L->n; q++) {
    const SimRigidContact *c = &L->c[q];
    PetscReal dn = 0, nn = 0;
    for (int d = 0; d < 3; d++) dn += (c->pb[d] - c->pa[d]) * c->n[d], nn += c->n[d] * c->n[d];
    ck_assert_msg(PetscAbsReal(dn - c->pen) < 1e-12 && PetscAbsReal(nn - 1) < 1e-12, "%s: contact %d has pen %g, (pb - pa) . n %g, |n|^2 %g", what, (int)q, (double)c->pen, (double)dn,
                  (double)nn);
    for (PetscInt o = 0; o < q; o++) ck_assert_msg(L->c[o].key != c->key, "%s: contacts %d and %d share key %d", what, (int)o, (int)q, (int)c->key);
  }
}

/* Two unit cubes given as hulls, b over a overlapping it by 0.1 and shifted (0.2, 0.1) sideways:
 * four contacts at the corners of the faces' overlap [-0.3, 0.5] x [-0.4, 0.5], normal (0, -1, 0)
 * (from b to a), depth 0.1. b turned 30 degrees about y and overlapping by 0.05: the two squares
 * overlap in an octagon, eight contacts of depth 0.05, each within both squares. */
START_TEST(cube_hulls_face_on_face)
{
  Bodies s;
  const PetscReal h[3] = {0.5, 0.5, 0.5}, xa[3] = {0, 0, 0}, xb[3] = {0.2, 0.9, 0.1}, xc[3] = {0, 0.95, 0};
  PetscReal pts[24], q30[4];
  int seen[4] = {0, 0, 0, 0};

  CubePoints(h, pts);
  Open(&s, NULL);
  CHECK_PETSC(SimRigidProblemAddHull(s.p, 8, pts, 1, xa, NULL, 0.5, 0, "a", NULL));
  CHECK_PETSC(SimRigidProblemAddHull(s.p, 8, pts, 1, xb, NULL, 0.5, 0, "b", NULL));
  ck_assert_msg(s.B->hull[0].feat.nface == 6 && s.B->hull[0].feat.nedge == 12 && s.B->hull[0].feat.maxloop == 4, "the cube's hull has %d faces, %d edges, faces of %d (6, 12, 4)",
                (int)s.B->hull[0].feat.nface, (int)s.B->hull[0].feat.nedge, (int)s.B->hull[0].feat.maxloop);
  CHECK_PETSC(SimRigidCollide(s.B, 0, PETSC_FALSE, &s.L));
  CheckContacts(&s.L, "face on face");
  ck_assert_msg(s.L.n == 4, "face on face: %d contacts (4)", (int)s.L.n);
  for (PetscInt q = 0; q < s.L.n; q++) {
    const SimRigidContact *c = &s.L.c[q];
    const int ix = PetscAbsReal(c->p[0] + 0.3) < 1e-12 ? 0 : PetscAbsReal(c->p[0] - 0.5) < 1e-12 ? 1 : -1;
    const int iz = PetscAbsReal(c->p[2] + 0.4) < 1e-12 ? 0 : PetscAbsReal(c->p[2] - 0.5) < 1e-12 ? 1 : -1;
    ck_assert_msg(c->a == 0 && c->b == 1, "face on face: contact between %d and %d", (int)c->a, (int)c->b);
    ck_assert_msg(PetscAbsReal(c->n[0]) < 1e-12 && PetscAbsReal(c->n[1] + 1) < 1e-12 && PetscAbsReal(c->n[2]) < 1e-12, "face on face: normal (%g, %g, %g), not (0, -1, 0)", (double)c->n[0],
                  (double)c->n[1], (double)c->n[2]);
    ck_assert_msg(PetscAbsReal(c->pen - 0.1) < 1e-12, "face on face: depth %g (0.1)", (double)c->pen);
    ck_assert_msg(PetscAbsReal(c->pa[1] - 0.5) < 1e-12 && PetscAbsReal(c->pb[1] - 0.4) < 1e-12, "face on face: pa on y = %g (a's top 0.5), pb on y = %g (b's bottom 0.4)", (double)c->pa[1],
                  (double)c->pb[1]);
    ck_assert_msg(ix >= 0 && iz >= 0, "face on face: a contact at (%g, %g) is not a corner of the overlap", (double)c->p[0], (double)c->p[2]);
    seen[2 * ix + iz]++;
  }
  for (int k = 0; k < 4; k++) ck_assert_msg(seen[k] == 1, "face on face: corner %d of the overlap has %d contacts", k, seen[k]);
  /* turned 30 degrees about y */
  QuatAxisAngle(0, 1, 0, PETSC_PI / 6, q30);
  Close(&s);
  Open(&s, NULL);
  CHECK_PETSC(SimRigidProblemAddHull(s.p, 8, pts, 1, xa, NULL, 0.5, 0, "a", NULL));
  CHECK_PETSC(SimRigidProblemAddHull(s.p, 8, pts, 1, xc, q30, 0.5, 0, "b", NULL));
  CHECK_PETSC(SimRigidCollide(s.B, 0, PETSC_FALSE, &s.L));
  CheckContacts(&s.L, "turned face on face");
  ck_assert_msg(s.L.n == 8, "turned face on face: %d contacts (8, the octagon)", (int)s.L.n);
  for (PetscInt q = 0; q < s.L.n; q++) {
    const SimRigidContact *c = &s.L.c[q];
    const PetscReal u = PetscCosReal(PETSC_PI / 6) * c->p[0] - PetscSinReal(PETSC_PI / 6) * c->p[2], w = PetscSinReal(PETSC_PI / 6) * c->p[0] + PetscCosReal(PETSC_PI / 6) * c->p[2];
    ck_assert_msg(PetscAbsReal(c->n[1] + 1) < 1e-12 && PetscAbsReal(c->pen - 0.05) < 1e-12, "turned face on face: normal y %g, depth %g (-1, 0.05)", (double)c->n[1], (double)c->pen);
    ck_assert_msg(PetscAbsReal(c->p[0]) < 0.5 + 1e-9 && PetscAbsReal(c->p[2]) < 0.5 + 1e-9 && PetscAbsReal(u) < 0.5 + 1e-9 && PetscAbsReal(w) < 0.5 + 1e-9,
                  "turned face on face: contact (%g, %g) outside a square", (double)c->p[0], (double)c->p[2]);
  }
  Close(&s);
}
END_TEST

/* Cubes of half side 0.1 edge on edge (test_rigid's edge_on_edge, as hulls): a turned 45 degrees
 * about z (an edge along z on top), b turned 45 degrees about x (an edge along x below) 1 cm into
 * it. One contact where the edges cross, normal (0, -1, 0), depth 0.01; a box primitive in place of
 * either hull (the box as an 8-vertex hull) and two box primitives (BoxBox) give the same contact. */
START_TEST(cube_hulls_edge_on_edge)
{
  const PetscReal h[3] = {0.1, 0.1, 0.1}, c = PetscCosReal(PETSC_PI / 8), sn = PetscSinReal(PETSC_PI / 8);
  const PetscReal qa[4] = {c, 0, 0, sn}, qb[4] = {c, sn, 0, 0}, xa[3] = {0, 0, 0}, xb[3] = {0, 0.2 * PETSC_SQRT2 - 0.01, 0};
  PetscReal pts[24], ref[3] = {0, 0, 0};

  CubePoints(h, pts);
  for (int mode = 0; mode < 4; mode++) { /* bit 0: a is a box, bit 1: b is a box */
    Bodies s;
    const SimRigidContact *k;
    Open(&s, NULL);
    if (mode & 1) CHECK_PETSC(SimRigidProblemAddBody(s.p, SIM_RIGID_BOX, h, 1, xa, qa, 0.5, 0, "a", NULL));
    else CHECK_PETSC(SimRigidProblemAddHull(s.p, 8, pts, 1, xa, qa, 0.5, 0, "a", NULL));
    if (mode & 2) CHECK_PETSC(SimRigidProblemAddBody(s.p, SIM_RIGID_BOX, h, 1, xb, qb, 0.5, 0, "b", NULL));
    else CHECK_PETSC(SimRigidProblemAddHull(s.p, 8, pts, 1, xb, qb, 0.5, 0, "b", NULL));
    CHECK_PETSC(SimRigidCollide(s.B, 0, PETSC_FALSE, &s.L));
    CheckContacts(&s.L, "edge on edge");
    ck_assert_msg(s.L.n == 1, "edge on edge (mode %d): %d contacts (1)", mode, (int)s.L.n);
    k = &s.L.c[0];
    ck_assert_msg(PetscAbsReal(k->n[0]) < 1e-12 && PetscAbsReal(k->n[1] + 1) < 1e-12 && PetscAbsReal(k->n[2]) < 1e-12, "edge on edge (mode %d): normal (%g, %g, %g), not (0, -1, 0)", mode,
                  (double)k->n[0], (double)k->n[1], (double)k->n[2]);
    ck_assert_msg(PetscAbsReal(k->pen - 0.01) < 1e-12, "edge on edge (mode %d): depth %g (0.01)", mode, (double)k->pen);
    ck_assert_msg(PetscAbsReal(k->pa[1] - 0.1 * PETSC_SQRT2) < 1e-12 && PetscAbsReal(k->pa[0]) < 1e-12 && PetscAbsReal(k->pa[2]) < 1e-12, "edge on edge (mode %d): a's point (%g, %g, %g)",
                  mode, (double)k->pa[0], (double)k->pa[1], (double)k->pa[2]);
    if (mode == 0)
      for (int d = 0; d < 3; d++) ref[d] = k->p[d];
    else ck_assert_msg(Dist3(ref, k->p) < 1e-12, "edge on edge (mode %d): the contact point is %g from the hulls'", mode, (double)Dist3(ref, k->p));
    Close(&s);
  }
}
END_TEST

/* A sphere (radius 0.1) against the octahedron (vertex distance 0.3), both orders (sphere first:
 * sphere-hull; hull first: hull-sphere): 2 cm over the centre of the face (+, +, +): normal
 * (1, 1, 1)/sqrt 3, depth 0.02, the hull's point the face's centre (0.1, 0.1, 0.1); 2 cm into the
 * vertex (0.3, 0, 0) from the direction d = (1, 0.2, 0.1)/|.| of its normal cone: normal d, the hull's
 * point the vertex; centre inside at (0.05, 0.02, 0.01): the nearest face (+, +, +), depth
 * r + (0.3 - 0.08)/sqrt 3; 1 mm off the face: none, and with a 2 mm margin one of depth -1 mm. */
START_TEST(sphere_and_hull)
{
  const PetscReal r[3] = {0.1, 0.1, 0.1}, o[3] = {0, 0, 0}, s3 = PetscSqrtReal(3.0), nf[3] = {1 / s3, 1 / s3, 1 / s3};
  const PetscReal dv0[3] = {1, 0.2, 0.1}, ldv = PetscSqrtReal(1 + 0.04 + 0.01);
  PetscReal dv[3], cf[3], cv[3], ci[3] = {0.05, 0.02, 0.01}, cs[3], vtx[3] = {0.3, 0, 0}, fc[3] = {0.1, 0.1, 0.1};

  for (int d = 0; d < 3; d++) {
    dv[d] = dv0[d] / ldv;
    cf[d] = fc[d] + (0.1 - 0.02) * nf[d];
    cv[d] = vtx[d] + (0.1 - 0.02) * dv[d];
    cs[d] = fc[d] + (0.1 + 0.001) * nf[d];
  }
  for (int order = 0; order < 2; order++) {
    const PetscReal *centres[4] = {cf, cv, ci, cs}, *normals[3] = {nf, dv, nf};
    const PetscReal *hullpt[2] = {fc, vtx};
    const PetscReal depth[3] = {0.02, 0.02, 0.1 + (0.3 - 0.08) / s3};
    for (int c = 0; c < 4; c++) {
      Bodies s;
      const PetscInt is = order ? 1 : 0; /* the sphere's index */
      Open(&s, NULL);
      if (order) CHECK_PETSC(SimRigidProblemAddHull(s.p, 6, octa, 1, o, NULL, 0.5, 0, "octahedron", NULL));
      CHECK_PETSC(SimRigidProblemAddBody(s.p, SIM_RIGID_SPHERE, r, 1, centres[c], NULL, 0.5, 0, "sphere", NULL));
      if (!order) CHECK_PETSC(SimRigidProblemAddHull(s.p, 6, octa, 1, o, NULL, 0.5, 0, "octahedron", NULL));
      CHECK_PETSC(SimRigidCollide(s.B, 0, PETSC_FALSE, &s.L));
      CheckContacts(&s.L, "sphere and hull");
      if (c == 3) {
        ck_assert_msg(s.L.n == 0, "sphere 1 mm off the face (order %d): %d contacts", order, (int)s.L.n);
        CHECK_PETSC(SimRigidCollide(s.B, 2e-3, PETSC_FALSE, &s.L));
        ck_assert_msg(s.L.n == 1 && PetscAbsReal(s.L.c[0].pen + 1e-3) < 1e-12, "sphere 1 mm off, margin 2 mm (order %d): %d contacts, depth %g (-1e-3)", order, (int)s.L.n,
                      s.L.n ? (double)s.L.c[0].pen : 0.0);
      } else {
        const SimRigidContact *k = &s.L.c[0];
        const PetscReal sg = order ? -1 : 1; /* n points from b to a: toward the sphere when it is a */
        const PetscReal *hp = order ? k->pa : k->pb;
        ck_assert_msg(s.L.n == 1, "sphere case %d (order %d): %d contacts (1)", c, order, (int)s.L.n);
        ck_assert_msg(k->a == 0 && k->b == 1, "sphere case %d (order %d): contact between %d and %d", c, order, (int)k->a, (int)k->b);
        for (int d = 0; d < 3; d++)
          ck_assert_msg(PetscAbsReal(k->n[d] - sg * normals[c][d]) < 1e-12, "sphere case %d (order %d): normal (%g, %g, %g)", c, order, (double)k->n[0], (double)k->n[1], (double)k->n[2]);
        ck_assert_msg(PetscAbsReal(k->pen - depth[c]) < 1e-12, "sphere case %d (order %d): depth %g (%g)", c, order, (double)k->pen, (double)depth[c]);
        if (c < 2) ck_assert_msg(Dist3(hp, hullpt[c]) < 1e-12, "sphere case %d (order %d): the hull's point is %g from the analytic one", c, order, (double)Dist3(hp, hullpt[c]));
        ck_assert_msg(s.B->body[is].shape == SIM_RIGID_SPHERE, "setup");
      }
      Close(&s);
    }
  }
}
END_TEST

/* Separated pairs: two cube hulls 1 cm apart face to face, the edge-on-edge cubes 5 mm apart, an
 * octahedron 1 cm beside a box: no contact; with a margin beyond the gap, speculative contacts of
 * depth minus the gap (4 face contacts; 1 edge contact). */
START_TEST(separated_pairs)
{
  const PetscReal h[3] = {0.5, 0.5, 0.5}, hs[3] = {0.1, 0.1, 0.1}, c = PetscCosReal(PETSC_PI / 8), sn = PetscSinReal(PETSC_PI / 8);
  const PetscReal qa[4] = {c, 0, 0, sn}, qb[4] = {c, sn, 0, 0}, o[3] = {0, 0, 0}, up[3] = {0, 1.01, 0}, eb[3] = {0, 0.2 * PETSC_SQRT2 + 0.005, 0}, side[3] = {0.5 + 0.3 + 0.01, 0, 0};
  PetscReal pts[24], small[24];
  Bodies s;

  CubePoints(h, pts);
  CubePoints(hs, small);
  Open(&s, NULL);
  CHECK_PETSC(SimRigidProblemAddHull(s.p, 8, pts, 1, o, NULL, 0.5, 0, "a", NULL));
  CHECK_PETSC(SimRigidProblemAddHull(s.p, 8, pts, 1, up, NULL, 0.5, 0, "b", NULL));
  CHECK_PETSC(SimRigidCollide(s.B, 0, PETSC_FALSE, &s.L));
  ck_assert_msg(s.L.n == 0, "cubes 1 cm apart: %d contacts", (int)s.L.n);
  CHECK_PETSC(SimRigidCollide(s.B, 0.02, PETSC_FALSE, &s.L));
  ck_assert_msg(s.L.n == 4, "cubes 1 cm apart, margin 2 cm: %d contacts (4)", (int)s.L.n);
  for (PetscInt q = 0; q < s.L.n; q++) ck_assert_msg(PetscAbsReal(s.L.c[q].pen + 0.01) < 1e-12, "cubes 1 cm apart: speculative depth %g (-0.01)", (double)s.L.c[q].pen);
  Close(&s);
  Open(&s, NULL);
  CHECK_PETSC(SimRigidProblemAddHull(s.p, 8, small, 1, o, qa, 0.5, 0, "a", NULL));
  CHECK_PETSC(SimRigidProblemAddHull(s.p, 8, small, 1, eb, qb, 0.5, 0, "b", NULL));
  CHECK_PETSC(SimRigidCollide(s.B, 0, PETSC_FALSE, &s.L));
  ck_assert_msg(s.L.n == 0, "edges 5 mm apart: %d contacts", (int)s.L.n);
  CHECK_PETSC(SimRigidCollide(s.B, 0.01, PETSC_FALSE, &s.L));
  ck_assert_msg(s.L.n == 1 && PetscAbsReal(s.L.c[0].pen + 0.005) < 1e-12, "edges 5 mm apart, margin 1 cm: %d contacts, depth %g (-0.005)", (int)s.L.n, s.L.n ? (double)s.L.c[0].pen : 0.0);
  Close(&s);
  Open(&s, NULL);
  CHECK_PETSC(SimRigidProblemAddBody(s.p, SIM_RIGID_BOX, h, 1, o, NULL, 0.5, 0, "box", NULL));
  CHECK_PETSC(SimRigidProblemAddHull(s.p, 6, octa, 1, side, NULL, 0.5, 0, "octahedron", NULL));
  CHECK_PETSC(SimRigidCollide(s.B, 0, PETSC_FALSE, &s.L));
  ck_assert_msg(s.L.n == 0, "octahedron 1 cm beside a box: %d contacts", (int)s.L.n);
  Close(&s);
}
END_TEST

/* A deterministic sequence in [0, 1). */
static PetscReal Uniform(unsigned long long *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (PetscReal)((*s >> 11) * (1.0 / 9007199254740992.0));
}

/* The largest gap between the two bodies' vertex sets over the axes of every face normal of their
 * triangles and every cross product of two of their triangle edges (a superset of the separating
 * axis test's): > 0 separated, < 0 overlapping by at least its size. */
static PetscReal BruteGap(const SimRigidBodies *B)
{
  PetscReal *x[2], *ax, best = -PETSC_MAX_REAL;
  PetscInt nv[2], na = 0, ne[2];
  PetscReal *e[2];

  for (int s = 0; s < 2; s++) {
    const SimRigidBody *b = &B->body[s];
    const SimRigidHull *h = &B->hull[b->hull];
    PetscReal R[9];
    nv[s] = h->nv, ne[s] = 3 * h->nf;
    CHECK_PETSC(PetscMalloc2(3 * nv[s], &x[s], 3 * ne[s], &e[s]));
    SimQuatToMatrix(b->q, R);
    for (PetscInt k = 0; k < nv[s]; k++)
      for (int i = 0; i < 3; i++) x[s][3 * k + i] = b->x[i] + R[3 * i] * h->v[3 * k] + R[3 * i + 1] * h->v[3 * k + 1] + R[3 * i + 2] * h->v[3 * k + 2];
    for (PetscInt t = 0; t < h->nf; t++)
      for (int m = 0; m < 3; m++)
        for (int i = 0; i < 3; i++) e[s][3 * (3 * t + m) + i] = x[s][3 * h->f[3 * t + (m + 1) % 3] + i] - x[s][3 * h->f[3 * t + m] + i];
  }
  CHECK_PETSC(PetscMalloc1(3 * (ne[0] * ne[1] + ne[0] + ne[1]), &ax));
  for (int s = 0; s < 2; s++)
    for (PetscInt t = 0; t < ne[s] / 3; t++) {
      const PetscReal *u = e[s] + 9 * t, *v = e[s] + 9 * t + 3;
      ax[3 * na] = u[1] * v[2] - u[2] * v[1], ax[3 * na + 1] = u[2] * v[0] - u[0] * v[2], ax[3 * na + 2] = u[0] * v[1] - u[1] * v[0], na++;
    }
  for (PetscInt i = 0; i < ne[0]; i++)
    for (PetscInt j = 0; j < ne[1]; j++) {
      const PetscReal *u = e[0] + 3 * i, *v = e[1] + 3 * j;
      ax[3 * na] = u[1] * v[2] - u[2] * v[1], ax[3 * na + 1] = u[2] * v[0] - u[0] * v[2], ax[3 * na + 2] = u[0] * v[1] - u[1] * v[0], na++;
    }
  for (PetscInt k = 0; k < na; k++) {
    PetscReal *n = ax + 3 * k, l = PetscSqrtReal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), lo[2] = {PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[2] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL};
    if (l < 1e-9) continue;
    for (int s = 0; s < 2; s++)
      for (PetscInt v = 0; v < nv[s]; v++) {
        const PetscReal pr = (n[0] * x[s][3 * v] + n[1] * x[s][3 * v + 1] + n[2] * x[s][3 * v + 2]) / l;
        lo[s] = PetscMin(lo[s], pr), hi[s] = PetscMax(hi[s], pr);
      }
    best = PetscMax(best, PetscMax(lo[1] - hi[0], lo[0] - hi[1]));
  }
  for (int s = 0; s < 2; s++) CHECK_PETSC(PetscFree2(x[s], e[s]));
  CHECK_PETSC(PetscFree(ax));
  return best;
}

/* 240 random poses of two hulls (the octahedron, the irregular prism, a hexagonal prism) near each
 * other: contacts exactly when a brute-force separating axis test over all face normals and edge
 * cross products finds no gap (clearer than 1e-9 either way), and then the deepest contact at most
 * the brute force's overlap over the biases (0.95 edge against face, 0.98 b's face against a's). */
START_TEST(sat_against_brute_force)
{
  PetscReal hex[36];
  const PetscReal *shapes[3] = {octa, prism, hex};
  const PetscInt np[3] = {6, 6, 12};
  unsigned long long seed = 3;
  PetscInt overl = 0, sep = 0;

  HexPrism(0.15, 0.05, hex);
  for (int trial = 0; trial < 240; trial++) {
    Bodies s;
    const int i = trial % 3, j = (trial / 3) % 3;
    PetscReal q[2][4], x[3], gap, deepest = -PETSC_MAX_REAL;
    for (int b = 0; b < 2; b++) {
      PetscReal nq = 0;
      for (int d = 0; d < 4; d++) q[b][d] = 2 * Uniform(&seed) - 1, nq += q[b][d] * q[b][d];
      for (int d = 0; d < 4; d++) q[b][d] /= PetscSqrtReal(nq);
    }
    for (int d = 0; d < 3; d++) x[d] = 0.45 * (2 * Uniform(&seed) - 1);
    Open(&s, NULL);
    CHECK_PETSC(SimRigidProblemAddHull(s.p, np[i], shapes[i], 1, (PetscReal[3]){0, 0, 0}, q[0], 0.5, 0, "a", NULL));
    CHECK_PETSC(SimRigidProblemAddHull(s.p, np[j], shapes[j], 1, x, q[1], 0.5, 0, "b", NULL));
    CHECK_PETSC(SimRigidCollide(s.B, 0, PETSC_FALSE, &s.L));
    CheckContacts(&s.L, "random pose");
    gap = BruteGap(s.B);
    for (PetscInt k = 0; k < s.L.n; k++) deepest = PetscMax(deepest, s.L.c[k].pen);
    if (gap > 1e-9) {
      ck_assert_msg(s.L.n == 0, "trial %d: separated by %g, but %d contacts", trial, (double)gap, (int)s.L.n);
      sep++;
    }
    if (gap < -1e-9) {
      ck_assert_msg(s.L.n > 0, "trial %d: overlapping by %g, but no contact", trial, (double)-gap);
      ck_assert_msg(deepest <= -gap / (0.95 * 0.98) + 1e-5, "trial %d: a contact %g deep, the overlap is %g", trial, (double)deepest, (double)-gap);
      overl++;
    }
    Close(&s);
  }
  ck_assert_msg(overl > 40 && sep > 40, "the random poses gave %d overlapping and %d separated pairs: the test does not exercise both", (int)overl, (int)sep);
}
END_TEST

/* Contact sets equal as sets (point, normal, depth, the two bodies' points within 1e-12). */
static void SameContacts(const SimRigidContactList *A, const SimRigidContactList *Bl, const char *what)
{
  ck_assert_msg(A->n == Bl->n, "%s: %d contacts against %d", what, (int)A->n, (int)Bl->n);
  for (PetscInt q = 0; q < A->n; q++) {
    const SimRigidContact *c = &A->c[q];
    PetscBool found = PETSC_FALSE;
    for (PetscInt o = 0; o < Bl->n && !found; o++) {
      const SimRigidContact *k = &Bl->c[o];
      found = (PetscBool)(Dist3(c->p, k->p) < 1e-12 && Dist3(c->n, k->n) < 1e-12 && Dist3(c->pa, k->pa) < 1e-12 && Dist3(c->pb, k->pb) < 1e-12 && PetscAbsReal(c->pen - k->pen) < 1e-12);
    }
    ck_assert_msg(found, "%s: contact %d at (%g, %g, %g), depth %g, has no match", what, (int)q, (double)c->p[0], (double)c->p[1], (double)c->p[2], (double)c->pen);
  }
}

/* A cube (half side 0.1) over a static box slab (half 0.5 x 0.1 x 0.5), 3 mm into it, turned 10
 * degrees about y, then also tilted 5 degrees about x (two corners in): the cube given as a hull
 * gives the box primitive's contact set (BoxBox), and as a static hull slab under a box too. */
START_TEST(cube_hull_contacts_like_box)
{
  const PetscReal h[3] = {0.1, 0.1, 0.1}, slab[3] = {0.5, 0.1, 0.5}, o[3] = {0, 0, 0};
  PetscReal pts[24], spts[24], qy[4], qx[4], qt[4];

  CubePoints(h, pts);
  CubePoints(slab, spts);
  QuatAxisAngle(0, 1, 0, PETSC_PI / 18, qy);
  QuatAxisAngle(1, 0, 0, PETSC_PI / 36, qx);
  SimQuatMultiply(qy, qx, qt); /* tilted about its own x: two corners lowest */
  for (int pose = 0; pose < 2; pose++) {
    const PetscReal *q = pose ? qt : qy;
    PetscReal R[9], low = PETSC_MAX_REAL, x[3] = {0.1, 0, 0.05};
    Bodies s[3];
    SimQuatToMatrix(q, R);
    for (int k = 0; k < 8; k++) low = PetscMin(low, R[3] * pts[3 * k] + R[4] * pts[3 * k + 1] + R[5] * pts[3 * k + 2]);
    x[1] = 0.1 - low - 0.003;
    for (int m = 0; m < 3; m++) { /* 0: two boxes; 1: cube hull on the box slab; 2: box on a hull slab */
      Open(&s[m], NULL);
      if (m == 2) CHECK_PETSC(SimRigidProblemAddHull(s[m].p, 8, spts, 0, o, NULL, 0.5, 0, "slab", NULL));
      else CHECK_PETSC(SimRigidProblemAddBody(s[m].p, SIM_RIGID_BOX, slab, 0, o, NULL, 0.5, 0, "slab", NULL));
      if (m == 1) CHECK_PETSC(SimRigidProblemAddHull(s[m].p, 8, pts, 500, x, q, 0.5, 0, "cube", NULL));
      else CHECK_PETSC(SimRigidProblemAddBody(s[m].p, SIM_RIGID_BOX, h, 500, x, q, 0.5, 0, "cube", NULL));
      CHECK_PETSC(SimRigidCollide(s[m].B, 0, PETSC_FALSE, &s[m].L));
      CheckContacts(&s[m].L, "cube on slab");
    }
    ck_assert_msg(s[0].L.n == (pose ? 2 : 4), "pose %d: BoxBox gives %d contacts", pose, (int)s[0].L.n);
    SameContacts(&s[1].L, &s[0].L, pose ? "tilted cube hull on a box" : "cube hull on a box");
    SameContacts(&s[2].L, &s[0].L, pose ? "tilted box on a hull slab" : "box on a hull slab");
    for (int m = 0; m < 3; m++) Close(&s[m]);
  }
}
END_TEST

/* Builds the drop of a cube (half side 0.1, as a box or as a hull) turned 20 degrees about
 * (1, 0, 1), from 5 cm over a static box slab, e = 0.3. */
static void DropCube(Bodies *s, const char *solver, PetscBool hull, SimSolver *sv)
{
  const PetscReal h[3] = {0.1, 0.1, 0.1}, slab[3] = {0.5, 0.1, 0.5}, o[3] = {0, 0, 0}, x[3] = {0.05, 0.1 + 0.1 * PETSC_SQRT2 + 0.05, -0.03};
  PetscReal pts[24], q[4];

  CubePoints(h, pts);
  QuatAxisAngle(1, 0, 1, PETSC_PI / 9, q);
  Open(s, NULL);
  CHECK_PETSC(SimRigidProblemAddBody(s->p, SIM_RIGID_BOX, slab, 0, o, NULL, 0.5, 0.3, "slab", NULL));
  if (hull) CHECK_PETSC(SimRigidProblemAddHull(s->p, 8, pts, 500, x, q, 0.5, 0.3, "cube", NULL));
  else CHECK_PETSC(SimRigidProblemAddBody(s->p, SIM_RIGID_BOX, h, 500, x, q, 0.5, 0.3, "cube", NULL));
  CHECK_PETSC(SimProblemSetUp(s->p));
  CHECK_PETSC(SimSolverCreate(s->reg, solver, s->p, sv));
  CHECK_PETSC(SimSolverSetFromOptions(*sv));
}

/* The cube's 8 corners in the world (a box's, or the hull's vertices). */
static void Corners(const SimRigidBodies *B, PetscInt i, PetscReal c[24])
{
  const SimRigidBody *b = &B->body[i];
  PetscReal R[9], l[24];
  if (b->shape == SIM_RIGID_BOX) CubePoints(b->size, l);
  else
    for (int k = 0; k < 24; k++) l[k] = B->hull[b->hull].v[k];
  SimQuatToMatrix(b->q, R);
  for (int k = 0; k < 8; k++)
    for (int d = 0; d < 3; d++) c[3 * k + d] = b->x[d] + R[3 * d] * l[3 * k] + R[3 * d + 1] * l[3 * k + 1] + R[3 * d + 2] * l[3 * k + 2];
}

/* The cube as a hull and as a box dropped alike (DropCube) for 1 s at 1/120 s: at every step each
 * box corner is near a hull vertex (the same motion: landing on a corner, tipping onto its face,
 * bounce and rest), and both came to rest on a face at 0.2 m within 1 mm. Near: the contact sets are
 * the same (cube_hull_contacts_like_box) but come in another order (the box's corner order, the
 * hull's face loop), and the Gauss-Seidel passes depend on the order: measured 1.4 mm apart at most
 * by sequential impulses (20 iterations, their impulses far from converged on the landing step)
 * and 17 um by XPBD (20 substeps); the tolerances are 5 mm and 0.1 mm. A wrong normal, depth or
 * point of the hull test moves it by centimetres. */
START_TEST(cube_hull_moves_like_box)
{
  Bodies s[2];
  SimSolver sv[2];
  PetscReal worst = 0;
  const PetscReal tol[NSOLVERS] = {5e-3, 1e-4};

  for (int m = 0; m < 2; m++) DropCube(&s[m], solvers[_i], (PetscBool)m, &sv[m]);
  for (int step = 0; step < 120; step++) {
    PetscReal cb[24], ch[24];
    for (int m = 0; m < 2; m++) CHECK_PETSC(SimSolverStep(sv[m], 1.0 / 120, NULL));
    Corners(s[0].B, 1, cb);
    Corners(s[1].B, 1, ch);
    for (int k = 0; k < 8; k++) {
      PetscReal near = PETSC_MAX_REAL;
      for (int j = 0; j < 8; j++) near = PetscMin(near, Dist3(cb + 3 * k, ch + 3 * j));
      worst = PetscMax(worst, near);
    }
  }
  ck_assert_msg(worst < tol[_i], "%s: the hull cube's corners were up to %g m from the box's (%g)", solvers[_i], (double)worst, (double)tol[_i]);
  for (int m = 0; m < 2; m++)
    ck_assert_msg(PetscAbsReal(s[m].B->body[1].x[1] - 0.2) < 1e-3, "%s: the %s rests at %g m (0.2 on its face)", solvers[_i], m ? "hull" : "box", (double)s[m].B->body[1].x[1]);
  for (int m = 0; m < 2; m++) {
    CHECK_PETSC(SimSolverDestroy(&sv[m]));
    Close(&s[m]);
  }
}
END_TEST

/* The irregular prism (hull), tilted 3 degrees about x, dropped 3 cm onto a static floor whose top
 * is y = 0.1 (a box slab, or the hull of a hexagonal slab), e = 0, for 1.25 s at 1/120 s: it comes to
 * rest on its rectangular face, its centre at 0.1 + 0.1 = 0.2 m within 1.5 mm (the solvers leave
 * up to their slop: 1 mm, XPBD's margin 2 mm); it never sinks more than 3 mm below that; the
 * energy never grows by more than m g 0.1 mm in a step (sequential impulses' position correction
 * lifts a resting body by at most beta (pen - slop)) nor above its start, and at the end it is at
 * rest (kinetic energy < 1e-6 J). */
START_TEST(prism_rests_at_analytic_height)
{
  const PetscReal slab[3] = {0.6, 0.1, 0.6}, o[3] = {0, 0, 0}, x[3] = {-0.1, 0.1 + 0.03, 0.05};
  PetscReal hex[36], q[4];

  HexPrism(0.6, 0.1, hex);
  QuatAxisAngle(1, 0, 0, PETSC_PI / 60, q);
  for (int floor = 0; floor < 2; floor++) {
    Bodies s;
    SimSolver sv;
    SimEnergyReport r0, r, rp;
    PetscReal lowest = PETSC_MAX_REAL, rise = 0, mg;
    Open(&s, NULL);
    if (floor) CHECK_PETSC(SimRigidProblemAddHull(s.p, 12, hex, 0, o, NULL, 0.5, 0, "floor", NULL));
    else CHECK_PETSC(SimRigidProblemAddBody(s.p, SIM_RIGID_BOX, slab, 0, o, NULL, 0.5, 0, "floor", NULL));
    CHECK_PETSC(SimRigidProblemAddHull(s.p, 6, prism, 500, x, q, 0.5, 0, "prism", NULL));
    CHECK_PETSC(SimProblemSetUp(s.p));
    CHECK_PETSC(SimSolverCreate(s.reg, solvers[_i], s.p, &sv));
    CHECK_PETSC(SimSolverSetFromOptions(sv));
    mg = s.B->body[1].mass * 9.81;
    CHECK_PETSC(SimSolverEnergy(sv, &r0));
    rp = r0;
    for (int step = 0; step < 150; step++) {
      CHECK_PETSC(SimSolverStep(sv, 1.0 / 120, NULL));
      CHECK_PETSC(SimSolverEnergy(sv, &r));
      rise = PetscMax(rise, r.total - rp.total);
      ck_assert_msg(r.total <= r0.total + 1e-9, "%s, floor %d: the energy %g J rose above its start %g J at step %d", solvers[_i], floor, (double)r.total, (double)r0.total, step);
      lowest = PetscMin(lowest, s.B->body[1].x[1]);
      rp = r;
    }
    ck_assert_msg(PetscAbsReal(s.B->body[1].x[1] - 0.2) < 1.5e-3, "%s, floor %d: the prism rests at %g m (0.2 on its face)", solvers[_i], floor, (double)s.B->body[1].x[1]);
    ck_assert_msg(lowest > 0.2 - 3e-3, "%s, floor %d: the prism sank to %g m (resting at 0.2)", solvers[_i], floor, (double)lowest);
    if (_i == 0) /* sequential impulses' position correction lifts by at most beta (pen - slop) */
      ck_assert_msg(rise <= mg * 0.2 * (0.2 - lowest - 1e-3) + 1e-9, "%s, floor %d: the energy rose %g J in a step, more than m g beta (pen - slop) = %g J", solvers[_i], floor, (double)rise,
                    (double)(mg * 0.2 * (0.2 - lowest - 1e-3)));
    else ck_assert_msg(rise < 1e-9, "%s, floor %d: the energy rose %g J in a step", solvers[_i], floor, (double)rise);
    ck_assert_msg(r.kinetic < 1e-6, "%s, floor %d: kinetic energy %g J after 1.25 s", solvers[_i], floor, (double)r.kinetic);
    CHECK_PETSC(SimSolverDestroy(&sv));
    Close(&s);
  }
}
END_TEST

/* Three hexagonal prisms (radius 0.1, height 0.12), each turned about y from the one below (their
 * faces meet as 12-gons), stacked on a static box with 1 mm gaps, stand for 2 s at 1/120 s (after 0.25 s of settling): the top
 * one moves less than 1 cm and stays at 0.30 m within 5 mm. */
START_TEST(hull_stack_stands)
{
  const PetscReal floor[3] = {1, 0.1, 1}, fx[3] = {0, -0.1, 0};
  PetscReal hex[36], x0[3], drift = 0;
  Bodies s;
  SimSolver sv;

  HexPrism(0.1, 0.06, hex);
  Open(&s, NULL);
  CHECK_PETSC(SimRigidProblemAddBody(s.p, SIM_RIGID_BOX, floor, 0, fx, NULL, 0.6, 0, "floor", NULL));
  for (int k = 0; k < 3; k++) {
    const PetscReal x[3] = {0.01 * k, 0.06 + k * 0.121 + 0.001, 0};
    PetscReal q[4];
    QuatAxisAngle(0, 1, 0, 0.3 * k, q);
    CHECK_PETSC(SimRigidProblemAddHull(s.p, 12, hex, 500, x, q, 0.6, 0, "prism", NULL));
  }
  CHECK_PETSC(SimProblemSetUp(s.p));
  CHECK_PETSC(SimSolverCreate(s.reg, solvers[_i], s.p, &sv));
  CHECK_PETSC(SimSolverSetFromOptions(sv));
  for (int step = 0; step < 30; step++) CHECK_PETSC(SimSolverStep(sv, 1.0 / 120, NULL));
  for (int d = 0; d < 3; d++) x0[d] = s.B->body[3].x[d];
  for (int step = 0; step < 240; step++) CHECK_PETSC(SimSolverStep(sv, 1.0 / 120, NULL));
  for (int d = 0; d < 3; d++) drift = PetscMax(drift, PetscAbsReal(s.B->body[3].x[d] - x0[d]));
  ck_assert_msg(drift < 0.01, "%s: the top prism moved %g m in 2 s", solvers[_i], (double)drift);
  ck_assert_msg(PetscAbsReal(s.B->body[3].x[1] - 0.30) < 5e-3, "%s: the top prism is at %g m (standing: 0.30)", solvers[_i], (double)s.B->body[3].x[1]);
  CHECK_PETSC(SimSolverDestroy(&sv));
  Close(&s);
}
END_TEST

/* What hull contact does not support: a hull with a flat face of more than SIM_RIGID_HULL_MAX_FACE
 * vertices (a 70-gon prism) is refused at set-up, the message naming the body and the limit; points
 * in a plane are no body. */
START_TEST(bad_hulls)
{
  Bodies s;
  TestErrorCapture cap;
  PetscReal pts[3 * 140], flat[12] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1};
  const PetscReal o[3] = {0, 0, 0};
  PetscErrorCode ierr;

  for (int k = 0; k < 140; k++) {
    const PetscReal a = 2 * PETSC_PI * (k % 70) / 70;
    pts[3 * k] = 0.3 * PetscCosReal(a), pts[3 * k + 1] = k < 70 ? -0.05 : 0.05, pts[3 * k + 2] = 0.3 * PetscSinReal(a);
  }
  Open(&s, NULL);
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  CHECK_PETSC(PetscMemzero(&cap, sizeof(cap)));
  ierr = SimRigidProblemAddHull(s.p, 140, pts, 500, o, NULL, 0.5, 0, "coin", NULL);
  ck_assert_msg(ierr && strstr(cap.msg, "coin") && strstr(cap.msg, "70 vertices") && strstr(cap.msg, "at most 64"), "a 70-gon face: %s", cap.msg);
  CHECK_PETSC(PetscMemzero(&cap, sizeof(cap)));
  ierr = SimRigidProblemAddHull(s.p, 4, flat, 500, o, NULL, 0.5, 0, "sheet", NULL);
  ck_assert_msg(ierr && strstr(cap.msg, "plane"), "coplanar points: %s", cap.msg);
  CHECK_PETSC(PetscPopErrorHandler());
  Close(&s);
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("hull_contact");
  TCase *tc = tcase_create("hull_contact");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, cube_hulls_face_on_face);
  tcase_add_test(tc, cube_hulls_edge_on_edge);
  tcase_add_test(tc, sphere_and_hull);
  tcase_add_test(tc, separated_pairs);
  tcase_add_test(tc, sat_against_brute_force);
  tcase_add_test(tc, cube_hull_contacts_like_box);
  tcase_add_loop_test(tc, cube_hull_moves_like_box, 0, NSOLVERS);
  tcase_add_loop_test(tc, prism_rests_at_analytic_height, 0, NSOLVERS);
  tcase_add_loop_test(tc, hull_stack_stands, 0, NSOLVERS);
  tcase_add_test(tc, bad_hulls);
  suite_add_tcase(s, tc);
  return s;
}
