/* The "rigid" problem type: bodies (x, q, v, omega), planes and joints; energy, linear momentum,
 * .vtu frames and PNG images of the bodies' shapes, the last-good stash and checkpoints. */
#include "framework/problem_impl.h"
#include "framework/model/model.h"
#include "framework/io/vtk.h"
#include "framework/io/png.h"
#include "problems/rigid/rigid.h"
#include "problems/rigid/hull.h"
#include "problems/rigid/mass.h"

typedef struct {
  SimRigidBodies bodies;
  PetscInt cap_body, cap_plane, cap_joint;
  SimRigidBody *stash; /* the last good state (nbody) */
  /* output: the shapes' surfaces as a triangle model (body-frame vertices, placed per frame), plus
   * one square per plane */
  SimModel render;
  PetscReal *local; /* 3 per render vertex: body frame (planes: world) */
  PetscInt *owner;  /* render vertex -> body, -1 for planes */
  PetscReal *xr, *vr;
  SimCamera camera;
} Rigid;

static PetscErrorCode Size_Rigid(SimProblem p, PetscInt *count, const char **unit);

/* ---- quaternions ---- */

void SimQuatToMatrix(const PetscReal q[4], PetscReal R[9])
{
  const PetscReal w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

void SimQuatFromMatrix(const PetscReal R[9], PetscReal q[4])
{
  /* Shepperd's method: the largest of the four candidates keeps the division well conditioned */
  const PetscReal tr = R[0] + R[4] + R[8];
  PetscReal s, n;
  if (tr > 0) {
    s = 2 * PetscSqrtReal(1 + tr);
    q[0] = 0.25 * s, q[1] = (R[7] - R[5]) / s, q[2] = (R[2] - R[6]) / s, q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    s = 2 * PetscSqrtReal(1 + R[0] - R[4] - R[8]);
    q[0] = (R[7] - R[5]) / s, q[1] = 0.25 * s, q[2] = (R[1] + R[3]) / s, q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    s = 2 * PetscSqrtReal(1 + R[4] - R[0] - R[8]);
    q[0] = (R[2] - R[6]) / s, q[1] = (R[1] + R[3]) / s, q[2] = 0.25 * s, q[3] = (R[5] + R[7]) / s;
  } else {
    s = 2 * PetscSqrtReal(1 + R[8] - R[0] - R[4]);
    q[0] = (R[3] - R[1]) / s, q[1] = (R[2] + R[6]) / s, q[2] = (R[5] + R[7]) / s, q[3] = 0.25 * s;
  }
  n = PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; k++) q[k] /= n;
}

void SimQuatMultiply(const PetscReal a[4], const PetscReal b[4], PetscReal c[4])
{
  PetscReal r[4];
  r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  c[0] = r[0], c[1] = r[1], c[2] = r[2], c[3] = r[3];
}

void SimQuatRotate(const PetscReal q[4], const PetscReal v[3], PetscReal out[3])
{
  PetscReal R[9];
  SimQuatToMatrix(q, R);
  for (int i = 0; i < 3; i++) out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

void SimQuatIntegrate(PetscReal q[4], const PetscReal w[3], PetscReal h)
{
  const PetscReal wn = PetscSqrtReal(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), half = 0.5 * h * wn;
  PetscReal dq[4], nrm;
  if (wn == 0) return;
  dq[0] = PetscCosReal(half);
  for (int d = 0; d < 3; d++) dq[d + 1] = PetscSinReal(half) * w[d] / wn;
  SimQuatMultiply(dq, q, q);
  nrm = PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int d = 0; d < 4; d++) q[d] /= nrm;
}

static void WorldTensor(const SimRigidBody *b, const PetscReal diag[3], PetscReal M[9])
{
  PetscReal R[9];
  SimQuatToMatrix(b->q, R);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) M[3 * i + j] = R[3 * i] * diag[0] * R[3 * j] + R[3 * i + 1] * diag[1] * R[3 * j + 1] + R[3 * i + 2] * diag[2] * R[3 * j + 2];
}

void SimRigidInverseInertia(const SimRigidBody *b, PetscReal Iinv[9])
{
  PetscReal d[3] = {0, 0, 0};
  if (b->inv_mass > 0)
    for (int k = 0; k < 3; k++) d[k] = 1.0 / b->Ib[k];
  WorldTensor(b, d, Iinv);
}

void SimRigidInertia(const SimRigidBody *b, PetscReal Iw[9])
{
  WorldTensor(b, b->Ib, Iw);
}

static void MatVec3(const PetscReal M[9], const PetscReal v[3], PetscReal o[3])
{
  for (int i = 0; i < 3; i++) o[i] = M[3 * i] * v[0] + M[3 * i + 1] * v[1] + M[3 * i + 2] * v[2];
}

void SimRigidFreeRotate(SimRigidBody *b, PetscReal h)
{
  PetscReal Iw[9], L[3], Iinv[9], wm[3];
  SimRigidBody mid = *b;
  SimRigidInertia(b, Iw);
  MatVec3(Iw, b->w, L);
  SimQuatIntegrate(mid.q, b->w, 0.5 * h);
  SimRigidInverseInertia(&mid, Iinv);
  MatVec3(Iinv, L, wm);
  SimQuatIntegrate(b->q, wm, h);
  SimRigidInverseInertia(b, Iinv);
  MatVec3(Iinv, L, b->w);
}

void SimRigidAngularMomentum(const SimRigidBodies *B, PetscReal L[3])
{
  L[0] = L[1] = L[2] = 0;
  for (PetscInt i = 0; i < B->nbody; i++) {
    const SimRigidBody *b = &B->body[i];
    PetscReal Iw[9];
    if (b->inv_mass == 0) continue;
    SimRigidInertia(b, Iw);
    L[0] += b->mass * (b->x[1] * b->v[2] - b->x[2] * b->v[1]);
    L[1] += b->mass * (b->x[2] * b->v[0] - b->x[0] * b->v[2]);
    L[2] += b->mass * (b->x[0] * b->v[1] - b->x[1] * b->v[0]);
    for (int r = 0; r < 3; r++) L[r] += Iw[3 * r] * b->w[0] + Iw[3 * r + 1] * b->w[1] + Iw[3 * r + 2] * b->w[2];
  }
}

/* ---- building ---- */

static PetscErrorCode GetRigid(SimProblem p, Rigid **r)
{
  PetscFunctionBeginUser;
  PetscCheck(p->ops.size == Size_Rigid, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Problem '%s' is a %s problem, not rigid", p->name, p->type);
  *r = (Rigid *)p->data;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRigidProblemGetBodies(SimProblem p, SimRigidBodies **bodies)
{
  Rigid *r = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetRigid(p, &r));
  *bodies = &r->bodies;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRigidProblemAddBody(SimProblem p, SimRigidShape shape, const PetscReal size[3], PetscReal density, const PetscReal x[3],
                                      const PetscReal q[4], PetscReal friction, PetscReal restitution, const char *what, PetscInt *id)
{
  Rigid *r = NULL;
  SimRigidBody *b;
  PetscReal nq = 0;

  PetscFunctionBeginUser;
  PetscCall(GetRigid(p, &r));
  PetscCheck(shape == SIM_RIGID_SPHERE || shape == SIM_RIGID_BOX, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: unknown shape %d", what, (int)shape);
  for (int d = 0; d < (shape == SIM_RIGID_SPHERE ? 1 : 3); d++)
    PetscCheck(size[d] > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: size %g must be > 0 (m)", what, (double)size[d]);
  PetscCheck(density >= 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: density %g must be >= 0 (0: static)", what, (double)density);
  PetscCheck(friction >= 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: friction %g must be >= 0", what, (double)friction);
  PetscCheck(restitution >= 0 && restitution <= 1, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: restitution %g must be in [0, 1]", what, (double)restitution);
  if (r->bodies.nbody == r->cap_body) {
    r->cap_body = 2 * r->cap_body + 8;
    PetscCall(PetscRealloc(r->cap_body * sizeof(SimRigidBody), &r->bodies.body));
  }
  b = &r->bodies.body[r->bodies.nbody];
  PetscCall(PetscMemzero(b, sizeof(*b)));
  b->shape = shape;
  for (int d = 0; d < 3; d++) b->size[d] = shape == SIM_RIGID_SPHERE ? size[0] : size[d], b->x[d] = x[d];
  if (shape == SIM_RIGID_SPHERE) {
    b->mass = density * 4.0 / 3.0 * PETSC_PI * size[0] * size[0] * size[0];
    b->Ib[0] = b->Ib[1] = b->Ib[2] = 0.4 * b->mass * size[0] * size[0];
  } else {
    const PetscReal *h = b->size;
    b->mass = density * 8 * h[0] * h[1] * h[2];
    b->Ib[0] = b->mass / 3 * (h[1] * h[1] + h[2] * h[2]);
    b->Ib[1] = b->mass / 3 * (h[0] * h[0] + h[2] * h[2]);
    b->Ib[2] = b->mass / 3 * (h[0] * h[0] + h[1] * h[1]);
  }
  b->inv_mass = b->mass > 0 ? 1.0 / b->mass : 0;
  b->q[0] = 1;
  if (q) {
    for (int d = 0; d < 4; d++) nq += q[d] * q[d];
    PetscCheck(nq > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: orientation quaternion is zero", what);
    for (int d = 0; d < 4; d++) b->q[d] = q[d] / PetscSqrtReal(nq);
  }
  b->friction = friction, b->restitution = restitution;
  if (id) *id = r->bodies.nbody;
  r->bodies.nbody++;
  PetscFunctionReturn(0);
}

/* The hull's faces, its vertices compacted (only those on the hull), the mass properties of the
 * solid at density 1 (its shape; the density scales them), then the body: a box of the hull's
 * bounding extents for AddBody's checks, given the hull's mass, inertia and frame. */
PetscErrorCode SimRigidProblemAddHull(SimProblem p, PetscInt n, const PetscReal *xyz, PetscReal density, const PetscReal x[3], const PetscReal q[4],
                                      PetscReal friction, PetscReal restitution, const char *what, PetscInt *id)
{
  Rigid *r = NULL;
  PetscInt nf, *f, *map, nv = 0, bid;
  PetscReal m, com[3], In[9], Ip[3], R[9], qp[4], q0[4] = {1, 0, 0, 0}, half[3] = {0, 0, 0}, xc[3], *v;
  SimRigidHull *h;
  SimRigidBody *b;

  PetscFunctionBeginUser;
  PetscCall(GetRigid(p, &r));
  PetscCheck(density >= 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: density %g must be >= 0 (0: static)", what, (double)density);
  PetscCall(SimConvexHull(n, xyz, &nf, &f));
  PetscCall(PetscMalloc2(n, &map, 3 * n, &v));
  for (PetscInt i = 0; i < n; i++) map[i] = -1;
  for (PetscInt k = 0; k < 3 * nf; k++) {
    if (map[f[k]] < 0) {
      for (int d = 0; d < 3; d++) v[3 * nv + d] = xyz[3 * f[k] + d];
      map[f[k]] = nv++;
    }
    f[k] = map[f[k]];
  }
  PetscCall(SimMeshMassProperties(nv, v, nf, f, 1.0, &m, com, In));
  PetscCall(SimInertiaPrincipal(In, Ip, R));
  /* vertices in the principal frame about the centre of mass: R^T (v - com) */
  for (PetscInt i = 0; i < nv; i++) {
    PetscReal t[3];
    for (int d = 0; d < 3; d++) t[d] = v[3 * i + d] - com[d];
    for (int d = 0; d < 3; d++) v[3 * i + d] = R[d] * t[0] + R[3 + d] * t[1] + R[6 + d] * t[2], half[d] = PetscMax(half[d], PetscAbsReal(v[3 * i + d]));
  }
  /* the body: q_body = q R (mesh frame to world after principal to mesh), x = x + q com */
  if (q) {
    PetscReal nq = PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    PetscCheck(nq > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: orientation quaternion is zero", what);
    for (int d = 0; d < 4; d++) q0[d] = q[d] / nq;
  }
  SimQuatFromMatrix(R, qp);
  SimQuatMultiply(q0, qp, qp);
  SimQuatRotate(q0, com, xc);
  for (int d = 0; d < 3; d++) xc[d] += x[d];
  PetscCall(SimRigidProblemAddBody(p, SIM_RIGID_BOX, half, density, xc, qp, friction, restitution, what, &bid));
  b = &r->bodies.body[bid];
  b->shape = SIM_RIGID_HULL;
  b->mass = density * m, b->inv_mass = b->mass > 0 ? 1.0 / b->mass : 0;
  for (int d = 0; d < 3; d++) b->Ib[d] = density * Ip[d];
  PetscCall(PetscRealloc((r->bodies.nhull + 1) * sizeof(SimRigidHull), &r->bodies.hull));
  h = &r->bodies.hull[r->bodies.nhull];
  h->nv = nv, h->nf = nf;
  PetscCall(PetscMalloc1(3 * nv, &h->v));
  PetscCall(PetscArraycpy(h->v, v, 3 * nv));
  h->f = f;
  PetscCall(SimHullFeaturesCreate(nv, h->v, nf, f, &h->feat));
  b->hull = r->bodies.nhull++;
  PetscCall(PetscFree2(map, v));
  PetscCheck(h->feat.maxloop <= SIM_RIGID_HULL_MAX_FACE, p->comm, PETSC_ERR_SUP,
             "%s: a flat face of its convex hull has %" PetscInt_FMT " vertices; hull contact supports faces of at most %d (coarsen the mesh's flat faces)", what,
             h->feat.maxloop, SIM_RIGID_HULL_MAX_FACE);
  if (id) *id = bid;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRigidProblemAddPlane(SimProblem p, const PetscReal point[3], const PetscReal normal[3], PetscReal friction, PetscReal restitution)
{
  Rigid *r = NULL;
  SimRigidPlane *pl;
  PetscReal n = PetscSqrtReal(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);

  PetscFunctionBeginUser;
  PetscCall(GetRigid(p, &r));
  PetscCheck(n > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Plane normal is zero");
  PetscCheck(friction >= 0 && restitution >= 0 && restitution <= 1, p->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Plane friction %g must be >= 0 and restitution %g in [0, 1]", (double)friction, (double)restitution);
  if (r->bodies.nplane == r->cap_plane) {
    r->cap_plane = 2 * r->cap_plane + 4;
    PetscCall(PetscRealloc(r->cap_plane * sizeof(SimRigidPlane), &r->bodies.plane));
  }
  pl = &r->bodies.plane[r->bodies.nplane++];
  for (int d = 0; d < 3; d++) pl->point[d] = point[d], pl->normal[d] = normal[d] / n;
  pl->friction = friction, pl->restitution = restitution;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRigidProblemAddJoint(SimProblem p, SimJointType type, PetscInt a, PetscInt b, const PetscReal anchor_a[3], const PetscReal anchor_b[3],
                                       const PetscReal axis_a[3], const PetscReal axis_b[3])
{
  Rigid *r = NULL;
  SimRigidJoint *j;

  PetscFunctionBeginUser;
  PetscCall(GetRigid(p, &r));
  PetscCheck(a >= 0 && a < r->bodies.nbody && b >= -1 && b < r->bodies.nbody && a != b, p->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Joint between bodies %" PetscInt_FMT " and %" PetscInt_FMT ": a must be a body (0 .. %" PetscInt_FMT "), b a body or -1 (world), a != b", a, b,
             r->bodies.nbody - 1);
  if (r->bodies.njoint == r->cap_joint) {
    r->cap_joint = 2 * r->cap_joint + 8;
    PetscCall(PetscRealloc(r->cap_joint * sizeof(SimRigidJoint), &r->bodies.joint));
  }
  j = &r->bodies.joint[r->bodies.njoint++];
  PetscCall(PetscMemzero(j, sizeof(*j)));
  j->type = type, j->a = a, j->b = b;
  for (int d = 0; d < 3; d++) {
    j->anchor_a[d] = anchor_a[d], j->anchor_b[d] = anchor_b[d];
    j->axis_a[d] = axis_a ? axis_a[d] : (d == 2), j->axis_b[d] = axis_b ? axis_b[d] : (d == 2);
  }
  {
    /* qrel = q_b^-1 q_a at set-up (q_b = identity for the world) */
    const PetscReal *qa = r->bodies.body[a].q;
    PetscReal qbinv[4] = {1, 0, 0, 0};
    if (b >= 0) {
      const PetscReal *qb = r->bodies.body[b].q;
      qbinv[0] = qb[0], qbinv[1] = -qb[1], qbinv[2] = -qb[2], qbinv[3] = -qb[3];
    }
    SimQuatMultiply(qbinv, qa, j->qrel);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimRigidProblemSetHingeLimits(SimProblem p, PetscInt joint, PetscReal lo, PetscReal hi)
{
  Rigid *r = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetRigid(p, &r));
  PetscCheck(joint >= 0 && joint < r->bodies.njoint, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Hinge limits on joint %" PetscInt_FMT ": there are %" PetscInt_FMT " joints",
             joint, r->bodies.njoint);
  PetscCheck(r->bodies.joint[joint].type == SIM_JOINT_HINGE, p->comm, PETSC_ERR_ARG_WRONG, "Hinge limits on joint %" PetscInt_FMT ", which is not a hinge", joint);
  PetscCheck(lo <= 0 && hi >= 0 && lo > -PETSC_PI && hi < PETSC_PI, p->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Hinge limits [%g, %g] rad: need -pi < lo <= 0 <= hi < pi (the set-up angle is 0)", (double)lo, (double)hi);
  r->bodies.joint[joint].limited = PETSC_TRUE;
  r->bodies.joint[joint].lo = lo, r->bodies.joint[joint].hi = hi;
  PetscFunctionReturn(0);
}

/* A unit vector across the unit vector a. */
static void Across(const PetscReal a[3], PetscReal u[3])
{
  const PetscReal e[3] = {PetscAbsReal(a[0]) > 0.57 ? 0 : 1, PetscAbsReal(a[0]) > 0.57 ? 1 : 0, 0};
  PetscReal n;
  u[0] = a[1] * e[2] - a[2] * e[1], u[1] = a[2] * e[0] - a[0] * e[2], u[2] = a[0] * e[1] - a[1] * e[0];
  n = PetscSqrtReal(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for (int d = 0; d < 3; d++) u[d] /= n;
}

/* A reference vector u across a's axis turns with a; its rest image in b's frame is qrel u (q_a u =
 * q_b qrel u at set-up). The angle from the second to the first about a's axis. */
PetscReal SimRigidHingeAngle(const SimRigidBodies *B, const SimRigidJoint *j)
{
  const SimRigidBody *a = &B->body[j->a];
  PetscReal u[3], ub[3], wa[3], wb[3], n[3], c[3], s;
  Across(j->axis_a, u);
  SimQuatRotate(j->qrel, u, ub);
  SimQuatRotate(a->q, u, wa);
  if (j->b >= 0) SimQuatRotate(B->body[j->b].q, ub, wb);
  else wb[0] = ub[0], wb[1] = ub[1], wb[2] = ub[2];
  SimQuatRotate(a->q, j->axis_a, n);
  c[0] = wb[1] * wa[2] - wb[2] * wa[1], c[1] = wb[2] * wa[0] - wb[0] * wa[2], c[2] = wb[0] * wa[1] - wb[1] * wa[0];
  s = c[0] * n[0] + c[1] * n[1] + c[2] * n[2];
  return PetscAtan2Real(s, wa[0] * wb[0] + wa[1] * wb[1] + wa[2] * wb[2]);
}

/* ---- output: the shapes as triangles ---- */

#define SPHERE_NU 12 /* longitude segments */
#define SPHERE_NV 7  /* latitude rings, poles included */

static PetscErrorCode BuildRender(SimProblem p, Rigid *r)
{
  const SimRigidBodies *B = &r->bodies;
  PetscInt nv = 0, nt = 0, *tri, iv = 0, it = 0;
  PetscReal *xyz, lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL}, ext = 0, c[3];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < B->nbody; i++) {
    const SimRigidShape sh = B->body[i].shape;
    nv += sh == SIM_RIGID_BOX ? 8 : sh == SIM_RIGID_HULL ? B->hull[B->body[i].hull].nv : SPHERE_NU * (SPHERE_NV - 2) + 2;
    nt += sh == SIM_RIGID_BOX ? 12 : sh == SIM_RIGID_HULL ? B->hull[B->body[i].hull].nf : 2 * SPHERE_NU * (SPHERE_NV - 2);
    for (int d = 0; d < 3; d++) {
      const PetscReal rad = PetscMax(PetscMax(B->body[i].size[0], B->body[i].size[1]), B->body[i].size[2]);
      lo[d] = PetscMin(lo[d], B->body[i].x[d] - rad), hi[d] = PetscMax(hi[d], B->body[i].x[d] + rad);
    }
  }
  nv += 4 * B->nplane, nt += 2 * B->nplane;
  PetscCheck(nv > 0, p->comm, PETSC_ERR_ARG_WRONG, "Rigid problem '%s' has no bodies", p->name);
  PetscCall(PetscMalloc2(3 * nv, &xyz, 3 * nt, &tri));
  PetscCall(PetscMalloc3(3 * nv, &r->local, nv, &r->owner, 3 * nv, &r->xr));
  PetscCall(PetscCalloc1(3 * nv, &r->vr));
  for (int d = 0; d < 3; d++) c[d] = 0.5 * (lo[d] + hi[d]), ext = PetscMax(ext, hi[d] - lo[d]);
  if (!B->nbody) ext = 1, c[0] = c[1] = c[2] = 0;
  for (PetscInt i = 0; i < B->nbody; i++) {
    const SimRigidBody *b = &B->body[i];
    const PetscInt v0 = iv;
    if (b->shape == SIM_RIGID_HULL) {
      const SimRigidHull *h = &B->hull[b->hull];
      for (PetscInt k = 0; k < h->nv; k++, iv++) {
        for (int d = 0; d < 3; d++) r->local[3 * iv + d] = h->v[3 * k + d];
        r->owner[iv] = i;
      }
      for (PetscInt k = 0; k < 3 * h->nf; k++) tri[3 * it + k] = v0 + h->f[k];
      it += h->nf;
    } else if (b->shape == SIM_RIGID_BOX) {
      static const int quad[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
      for (int k = 0; k < 8; k++, iv++) {
        r->local[3 * iv] = (k & 1 ? 1 : -1) * b->size[0], r->local[3 * iv + 1] = (k & 2 ? 1 : -1) * b->size[1], r->local[3 * iv + 2] = (k & 4 ? 1 : -1) * b->size[2];
        r->owner[iv] = i;
      }
      for (int f = 0; f < 6; f++) {
        tri[3 * it] = v0 + quad[f][0], tri[3 * it + 1] = v0 + quad[f][1], tri[3 * it + 2] = v0 + quad[f][2], it++;
        tri[3 * it] = v0 + quad[f][0], tri[3 * it + 1] = v0 + quad[f][2], tri[3 * it + 2] = v0 + quad[f][3], it++;
      }
    } else {
      const PetscReal rad = b->size[0];
      r->local[3 * iv] = 0, r->local[3 * iv + 1] = rad, r->local[3 * iv + 2] = 0, r->owner[iv++] = i; /* north pole */
      for (int ring = 1; ring < SPHERE_NV - 1; ring++)
        for (int s = 0; s < SPHERE_NU; s++, iv++) {
          const PetscReal th = PETSC_PI * ring / (SPHERE_NV - 1), ph = 2 * PETSC_PI * s / SPHERE_NU;
          r->local[3 * iv] = rad * PetscSinReal(th) * PetscCosReal(ph), r->local[3 * iv + 1] = rad * PetscCosReal(th);
          r->local[3 * iv + 2] = rad * PetscSinReal(th) * PetscSinReal(ph), r->owner[iv] = i;
        }
      r->local[3 * iv] = 0, r->local[3 * iv + 1] = -rad, r->local[3 * iv + 2] = 0, r->owner[iv++] = i; /* south pole */
      for (int s = 0; s < SPHERE_NU; s++) {
        const PetscInt s1 = (s + 1) % SPHERE_NU, last = v0 + 1 + SPHERE_NU * (SPHERE_NV - 2);
        tri[3 * it] = v0, tri[3 * it + 1] = v0 + 1 + s1, tri[3 * it + 2] = v0 + 1 + s, it++;
        for (int ring = 1; ring < SPHERE_NV - 2; ring++) {
          const PetscInt a = v0 + 1 + (ring - 1) * SPHERE_NU, bb = a + SPHERE_NU;
          tri[3 * it] = a + s, tri[3 * it + 1] = a + s1, tri[3 * it + 2] = bb + s1, it++;
          tri[3 * it] = a + s, tri[3 * it + 1] = bb + s1, tri[3 * it + 2] = bb + s, it++;
        }
        tri[3 * it] = last, tri[3 * it + 1] = last - SPHERE_NU + s, tri[3 * it + 2] = last - SPHERE_NU + s1, it++;
      }
    }
  }
  for (PetscInt k = 0; k < B->nplane; k++) {
    /* a square of side 1.5 x the bodies' extent, centred at the projection of their centre */
    const SimRigidPlane *pl = &B->plane[k];
    PetscReal t1[3], t2[3], a[3] = {1, 0, 0}, o[3], dist = 0, nn;
    const PetscInt v0 = iv;
    if (PetscAbsReal(pl->normal[0]) > 0.9) a[0] = 0, a[1] = 1;
    t1[0] = pl->normal[1] * a[2] - pl->normal[2] * a[1], t1[1] = pl->normal[2] * a[0] - pl->normal[0] * a[2], t1[2] = pl->normal[0] * a[1] - pl->normal[1] * a[0];
    nn = PetscSqrtReal(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    for (int d = 0; d < 3; d++) t1[d] /= nn;
    t2[0] = pl->normal[1] * t1[2] - pl->normal[2] * t1[1], t2[1] = pl->normal[2] * t1[0] - pl->normal[0] * t1[2], t2[2] = pl->normal[0] * t1[1] - pl->normal[1] * t1[0];
    for (int d = 0; d < 3; d++) dist += (c[d] - pl->point[d]) * pl->normal[d];
    for (int d = 0; d < 3; d++) o[d] = c[d] - dist * pl->normal[d];
    for (int k2 = 0; k2 < 4; k2++, iv++) {
      const PetscReal s1 = (k2 & 1 ? 0.75 : -0.75) * ext, s2 = (k2 & 2 ? 0.75 : -0.75) * ext;
      for (int d = 0; d < 3; d++) r->local[3 * iv + d] = o[d] + s1 * t1[d] + s2 * t2[d];
      r->owner[iv] = -1;
    }
    tri[3 * it] = v0, tri[3 * it + 1] = v0 + 1, tri[3 * it + 2] = v0 + 3, it++;
    tri[3 * it] = v0, tri[3 * it + 1] = v0 + 3, tri[3 * it + 2] = v0 + 2, it++;
  }
  PetscCall(SimModelCreate(PETSC_COMM_SELF, &r->render));
  for (PetscInt k = 0; k < 3 * nv; k++) xyz[k] = r->local[k];
  PetscCall(SimModelSetVertices(r->render, nv, xyz));
  for (PetscInt k = 0; k < nv; k++) PetscCall(SimModelSetVertexMass(r->render, k, 1));
  PetscCall(SimModelSetTopology(r->render, nt, tri, 0, NULL, 0, NULL));
  PetscCall(SimModelFinalize(r->render));
  PetscCall(PetscFree2(xyz, tri));
  PetscFunctionReturn(0);
}

/* The render vertices at the bodies' current placement. */
static void PlaceRender(Rigid *r)
{
  for (PetscInt k = 0; k < r->render->nv; k++) {
    const PetscInt i = r->owner[k];
    if (i < 0) {
      for (int d = 0; d < 3; d++) r->xr[3 * k + d] = r->local[3 * k + d];
      continue;
    }
    SimQuatRotate(r->bodies.body[i].q, r->local + 3 * k, r->xr + 3 * k);
    for (int d = 0; d < 3; d++) r->xr[3 * k + d] += r->bodies.body[i].x[d];
  }
}

/* ---- ops ---- */

static PetscErrorCode SetUp_Rigid(SimProblem p)
{
  Rigid *r = (Rigid *)p->data;
  PetscInt n = 3;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-gravity", r->bodies.gravity, &n, &set));
  PetscCheck(!set || n == 3, p->comm, PETSC_ERR_ARG_WRONG, "-gravity takes 3 values gx,gy,gz (got %" PetscInt_FMT ")", n);
  PetscCall(BuildRender(p, r));
  PlaceRender(r);
  {
    /* one view for the run: the initial shapes plus the same moved down (along gravity) by their
     * diameter, the space a hanging chain or a falling body swings into */
    const PetscInt nv = r->render->nv;
    PetscReal *both, lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL}, diam = 0, g = 0;
    for (int d = 0; d < 3; d++) g += r->bodies.gravity[d] * r->bodies.gravity[d];
    g = PetscSqrtReal(g);
    for (PetscInt k = 0; k < nv; k++)
      if (r->owner[k] >= 0)
        for (int d = 0; d < 3; d++) lo[d] = PetscMin(lo[d], r->xr[3 * k + d]), hi[d] = PetscMax(hi[d], r->xr[3 * k + d]);
    for (int d = 0; d < 3; d++) diam += (hi[d] - lo[d]) * (hi[d] - lo[d]);
    diam = PetscSqrtReal(diam);
    PetscCall(PetscMalloc1(6 * nv, &both));
    for (PetscInt k = 0; k < 3 * nv; k++) both[k] = r->xr[k], both[3 * nv + k] = r->xr[k] + (g > 0 && r->owner[k / 3] >= 0 && !r->bodies.nplane ? diam * r->bodies.gravity[k % 3] / g : 0);
    PetscCall(SimCameraFit(2 * nv, both, 0.1, &r->camera));
    PetscCall(PetscFree(both));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Size_Rigid(SimProblem p, PetscInt *count, const char **unit)
{
  PetscFunctionBeginUser;
  *count = ((Rigid *)p->data)->bodies.nbody;
  *unit = "bodies";
  PetscFunctionReturn(0);
}

static PetscErrorCode Summary_Rigid(SimProblem p, char *buf, size_t len)
{
  const SimRigidBodies *B = &((Rigid *)p->data)->bodies;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(buf, len, "%" PetscInt_FMT " bodies, %" PetscInt_FMT " planes, %" PetscInt_FMT " joints", B->nbody, B->nplane, B->njoint));
  PetscFunctionReturn(0);
}

/* kinetic 1/2 m v^2 + 1/2 w . I w, gravity -m g . x, momentum sum m v. */
static PetscErrorCode Report_Rigid(SimProblem p, SimEnergyReport *rep)
{
  const SimRigidBodies *B = &((Rigid *)p->data)->bodies;
  PetscReal K = 0, U = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(rep, sizeof(*rep)));
  for (PetscInt i = 0; i < B->nbody; i++) {
    const SimRigidBody *b = &B->body[i];
    PetscReal Iw[9];
    if (b->inv_mass == 0) continue;
    SimRigidInertia(b, Iw);
    for (int d = 0; d < 3; d++) {
      K += 0.5 * b->mass * b->v[d] * b->v[d] + 0.5 * b->w[d] * (Iw[3 * d] * b->w[0] + Iw[3 * d + 1] * b->w[1] + Iw[3 * d + 2] * b->w[2]);
      U -= b->mass * B->gravity[d] * b->x[d];
      rep->momentum[d] += b->mass * b->v[d];
    }
  }
  rep->kinetic = K, rep->potential = U, rep->total = K + U;
  rep->nterms = 1, rep->term_name[0] = "gravity", rep->term[0] = U;
  PetscFunctionReturn(0);
}

static PetscErrorCode IsFinite_Rigid(SimProblem p, PetscBool *finite)
{
  const SimRigidBodies *B = &((Rigid *)p->data)->bodies;

  PetscFunctionBeginUser;
  *finite = PETSC_TRUE;
  for (PetscInt i = 0; i < B->nbody; i++)
    for (int d = 0; d < 3; d++)
      if (PetscIsInfOrNanReal(B->body[i].x[d]) || PetscIsInfOrNanReal(B->body[i].v[d]) || PetscIsInfOrNanReal(B->body[i].w[d]) ||
          PetscIsInfOrNanReal(B->body[i].q[d]))
        *finite = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode Stash_Rigid(SimProblem p, PetscBool restore)
{
  Rigid *r = (Rigid *)p->data;
  const size_t bytes = r->bodies.nbody * sizeof(SimRigidBody);

  PetscFunctionBeginUser;
  if (!r->stash) PetscCall(PetscMalloc(bytes + 1, &r->stash));
  if (restore) PetscCall(PetscMemcpy(r->bodies.body, r->stash, bytes));
  else PetscCall(PetscMemcpy(r->stash, r->bodies.body, bytes));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteFrame_Rigid(SimProblem p, const char *path)
{
  Rigid *r = (Rigid *)p->data;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  if (rank) PetscFunctionReturn(0);
  PlaceRender(r);
  PetscCall(SimVTKWriteFrame(r->render, r->xr, r->vr, path));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteImage_Rigid(SimProblem p, const char *caption, const char *path)
{
  Rigid *r = (Rigid *)p->data;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  if (rank) PetscFunctionReturn(0);
  PlaceRender(r);
  PetscCall(SimPNGWrite(r->render, r->xr, &r->camera, caption, path));
  PetscFunctionReturn(0);
}

/* Checkpoint: the body count, then x, q, v, w of every body (13 reals each). */
static PetscErrorCode Save_Rigid(SimProblem p, PetscViewer viewer)
{
  const SimRigidBodies *B = &((Rigid *)p->data)->bodies;
  PetscReal *a;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryWrite(viewer, &B->nbody, 1, PETSC_INT));
  PetscCall(PetscMalloc1(13 * B->nbody + 1, &a));
  for (PetscInt i = 0; i < B->nbody; i++) {
    const SimRigidBody *b = &B->body[i];
    PetscCall(PetscArraycpy(a + 13 * i, b->x, 3));
    PetscCall(PetscArraycpy(a + 13 * i + 3, b->q, 4));
    PetscCall(PetscArraycpy(a + 13 * i + 7, b->v, 3));
    PetscCall(PetscArraycpy(a + 13 * i + 10, b->w, 3));
  }
  PetscCall(PetscViewerBinaryWrite(viewer, a, 13 * B->nbody, PETSC_REAL));
  PetscCall(PetscFree(a));
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_Rigid(SimProblem p, PetscViewer viewer)
{
  SimRigidBodies *B = &((Rigid *)p->data)->bodies;
  PetscReal *a;
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryRead(viewer, &n, 1, NULL, PETSC_INT));
  PetscCheck(n == B->nbody, p->comm, PETSC_ERR_ARG_INCOMP, "The checkpoint has %" PetscInt_FMT " bodies; scene '%s' built %" PetscInt_FMT " (restart with the same scene options)", n,
             p->name, B->nbody);
  PetscCall(PetscMalloc1(13 * n + 1, &a));
  PetscCall(PetscViewerBinaryRead(viewer, a, 13 * n, NULL, PETSC_REAL));
  for (PetscInt i = 0; i < n; i++) {
    SimRigidBody *b = &B->body[i];
    PetscCall(PetscArraycpy(b->x, a + 13 * i, 3));
    PetscCall(PetscArraycpy(b->q, a + 13 * i + 3, 4));
    PetscCall(PetscArraycpy(b->v, a + 13 * i + 7, 3));
    PetscCall(PetscArraycpy(b->w, a + 13 * i + 10, 3));
  }
  PetscCall(PetscFree(a));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Rigid(SimProblem p)
{
  Rigid *r = (Rigid *)p->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(r->bodies.body));
  PetscCall(PetscFree(r->bodies.plane));
  PetscCall(PetscFree(r->bodies.joint));
  for (PetscInt k = 0; k < r->bodies.nhull; k++) {
    PetscCall(PetscFree(r->bodies.hull[k].v));
    PetscCall(PetscFree(r->bodies.hull[k].f));
    PetscCall(SimHullFeaturesDestroy(&r->bodies.hull[k].feat));
  }
  PetscCall(PetscFree(r->bodies.hull));
  PetscCall(PetscFree(r->stash));
  PetscCall(SimModelDestroy(&r->render));
  if (r->owner) PetscCall(PetscFree3(r->local, r->owner, r->xr));
  PetscCall(PetscFree(r->vr));
  PetscCall(PetscFree(p->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemCreate_Rigid(SimProblem p)
{
  static const SimProblemOps ops = {.setup = SetUp_Rigid,
                                    .size = Size_Rigid,
                                    .summary = Summary_Rigid,
                                    .report = Report_Rigid,
                                    .is_finite = IsFinite_Rigid,
                                    .stash = Stash_Rigid,
                                    .write_frame = WriteFrame_Rigid,
                                    .write_image = WriteImage_Rigid,
                                    .save = Save_Rigid,
                                    .load = Load_Rigid,
                                    .destroy = Destroy_Rigid};
  Rigid *r = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&r));
  r->bodies.gravity[1] = -9.81;
  p->data = r;
  p->ops = ops;
  PetscCall(PetscStrncpy(p->frame_ext, "vtu", sizeof(p->frame_ext)));
  PetscFunctionReturn(0);
}
