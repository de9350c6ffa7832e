/* Rigid bodies by extended position-based dynamics (Mueller, Macklin, Chentanez, Jeschke & Kim 2020,
 * "Detailed rigid body simulation with extended position based dynamics"): small substeps, each a
 * prediction, one (or a few) Gauss-Seidel passes of positional and angular corrections with
 * generalized inverse masses and compliance, velocities from the positions, then a velocity pass
 * for restitution and friction. Same problem type, contacts (contact.c) and joints as the
 * `rigid` solver. docs/rigid.md, "XPBD". */
#include "framework/solver_impl.h"
#include "problems/rigid/rigid.h"
#include "solvers/rigid/contact.h"
#include "solvers/rigid/vec3.h"

/* What a contact keeps through its substep: the contact points in the bodies' frames (a plane's in
 * the world), so the Gauss-Seidel pass sees the moves of the constraints before it; the normal
 * velocity before the substep (restitution); the normal and friction multipliers. */
typedef struct {
  PetscReal la[3], lb[3]; /* body-frame offsets of pa from x_a and of pb from x_b (plane: pb, world) */
  PetscReal vn0;          /* normal velocity at the start of the substep */
  PetscReal ln;           /* lambda of the normal constraint (its force is ln / h^2) */
  PetscReal cut;          /* friction impulse of the velocity passes so far (<= mu ln / h) */
  PetscReal mu, e;
} XContact;

typedef struct {
  PetscInt substeps, iterations, viterations;
  PetscReal compliance; /* of the joints (m/N and rad/(N m)); 0: hard */
  PetscReal margin;     /* speculative contacts: features closer than this (m) */
  SimRigidContactList found;
  XContact *xc;
  PetscInt cap;
  PetscReal *x0, *v0, *w0, *qp, *wf; /* per body: start of the substep, predicted q, free w */
  PetscInt nb;
  PetscReal *jlam; /* per joint, the substep's multipliers: orientation, axes, limit, anchors (XPBD
                      keeps lambda through the passes of a substep, so compliance does not depend on
                      -xpbd_rigid_iterations) */
  PetscInt njl;
} XRigid;

static PetscErrorCode SetFromOptions_XRigid(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  XRigid *d = (XRigid *)s->data;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, "Rigid bodies by XPBD (Mueller et al. 2020), -solver xpbd_rigid");
  PetscCall(PetscOptionsInt("-xpbd_rigid_substeps", "substeps per step (>= 1)", "", d->substeps, &d->substeps, NULL));
  PetscCall(PetscOptionsInt("-xpbd_rigid_iterations", "position passes per substep (>= 1)", "", d->iterations, &d->iterations, NULL));
  PetscCall(PetscOptionsInt("-xpbd_rigid_velocity_iterations", "velocity passes per substep (>= 1)", "", d->viterations, &d->viterations, NULL));
  PetscCall(PetscOptionsReal("-xpbd_rigid_margin", "contacts closer than this are solved too (m, >= 0)", "", d->margin, &d->margin, NULL));
  PetscCall(PetscOptionsReal("-xpbd_rigid_compliance", "compliance of the joints (inverse stiffness, >= 0; 0: hard)", "", d->compliance, &d->compliance, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(d->substeps >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-xpbd_rigid_substeps %" PetscInt_FMT " is out of range: must be >= 1", d->substeps);
  PetscCheck(d->iterations >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-xpbd_rigid_iterations %" PetscInt_FMT " is out of range: must be >= 1", d->iterations);
  PetscCheck(d->viterations >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-xpbd_rigid_velocity_iterations %" PetscInt_FMT " is out of range: must be >= 1",
             d->viterations);
  PetscCheck(d->margin >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-xpbd_rigid_margin %g is out of range: must be >= 0", (double)d->margin);
  PetscCheck(d->compliance >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-xpbd_rigid_compliance %g is out of range: must be >= 0", (double)d->compliance);
  PetscFunctionReturn(0);
}

/* ---- the correction primitives (section 3.3 of the paper) ---- */

static inline SimRigidBody *Body(SimRigidBodies *B, PetscInt i)
{
  return i >= 0 && B->body[i].inv_mass > 0 ? &B->body[i] : NULL;
}

/* Generalized inverse mass of body b for a correction along unit n at offset r (r = NULL: a pure
 * rotation about n): 1/m + (r x n) . I^-1 (r x n), or n . I^-1 n. */
static PetscReal GenInvMass(const SimRigidBody *b, const PetscReal *r, const PetscReal *n)
{
  PetscReal Iinv[9], rn[3], t[3];
  if (!b) return 0;
  SimRigidInverseInertia(b, Iinv);
  if (r) Cross(r, n, rn);
  else rn[0] = n[0], rn[1] = n[1], rn[2] = n[2];
  MatVec(Iinv, rn, t);
  return (r ? b->inv_mass : 0) + Dot(rn, t);
}

/* Moves body b by the positional impulse sign * P at offset r (r = NULL: the angular impulse P). */
static void Move(SimRigidBody *b, const PetscReal *r, const PetscReal *P, PetscReal sign)
{
  PetscReal Iinv[9], t[3], dth[3];
  if (!b) return;
  if (r) {
    for (int k = 0; k < 3; k++) b->x[k] += sign * b->inv_mass * P[k];
    Cross(r, P, t);
  } else t[0] = P[0], t[1] = P[1], t[2] = P[2];
  SimRigidInverseInertia(b, Iinv);
  MatVec(Iinv, t, dth);
  for (int k = 0; k < 3; k++) dth[k] *= sign;
  SimQuatIntegrate(b->q, dth, 1.0);
}

/* One compliant correction of the constraint C = c with gradient n (unit) for a at ra and -n for
 * b at rb (ra = rb = NULL: an angular constraint about n): dlambda = (-c - at lambda) / (wa + wb + at),
 * at = compliance / h^2 (XPBD: the stiffness does not depend on the substep). Returns dlambda. */
static PetscReal Correct(SimRigidBody *a, const PetscReal *ra, SimRigidBody *b, const PetscReal *rb, const PetscReal *n, PetscReal c, PetscReal at,
                         PetscReal *lambda)
{
  const PetscReal w = GenInvMass(a, ra, n) + GenInvMass(b, rb, n);
  PetscReal dl, P[3];
  if (w + at <= 0) return 0;
  dl = (-c - at * *lambda) / (w + at);
  *lambda += dl;
  for (int k = 0; k < 3; k++) P[k] = dl * n[k];
  Move(a, ra, P, 1);
  Move(b, rb, P, -1);
  return dl;
}

/* Splits a vector into its length and direction; false when it is zero. */
static PetscBool Direction(const PetscReal *v, PetscReal *n, PetscReal *len)
{
  *len = PetscSqrtReal(Dot(v, v));
  if (*len < 1e-300) return PETSC_FALSE;
  for (int k = 0; k < 3; k++) n[k] = v[k] / *len;
  return PETSC_TRUE;
}

/* World point and offset of a body-frame point (b < 0 or NULL body: world point given). */
static void WorldPoint(const SimRigidBodies *B, PetscInt i, const PetscReal *local, PetscReal *r, PetscReal *p)
{
  if (i < 0) {
    for (int k = 0; k < 3; k++) r[k] = 0, p[k] = local[k];
    return;
  }
  SimQuatRotate(B->body[i].q, local, r);
  for (int k = 0; k < 3; k++) p[k] = B->body[i].x[k] + r[k];
}

/* ---- joints ---- */

static void SolveJoints(XRigid *d, SimRigidBodies *B, PetscReal at)
{
  for (PetscInt q = 0; q < B->njoint; q++) {
    const SimRigidJoint *j = &B->joint[q];
    SimRigidBody *a = Body(B, j->a), *b = Body(B, j->b);
    PetscReal ra[3], rb[3], pa[3], pb[3], dx[3], n[3], c, *lam = d->jlam + 4 * q;
    if (!a && !b) continue;
    if (j->type == SIM_JOINT_FIXED) {
      /* the relative orientation: err = 2 vec(q_a (q_b qrel)^-1), the rotation from the rest */
      PetscReal qt[4], qb[4] = {1, 0, 0, 0}, qi[4], qe[4], err[3];
      if (j->b >= 0) qb[0] = B->body[j->b].q[0], qb[1] = B->body[j->b].q[1], qb[2] = B->body[j->b].q[2], qb[3] = B->body[j->b].q[3];
      SimQuatMultiply(qb, j->qrel, qt);
      qi[0] = qt[0], qi[1] = -qt[1], qi[2] = -qt[2], qi[3] = -qt[3];
      SimQuatMultiply(B->body[j->a].q, qi, qe);
      for (int k = 0; k < 3; k++) err[k] = 2 * (qe[0] >= 0 ? 1 : -1) * qe[k + 1];
      if (Direction(err, n, &c)) Correct(a, NULL, b, NULL, n, c, at, &lam[0]);
    } else if (j->type == SIM_JOINT_HINGE) {
      /* align the axes: the rotation taking b's axis to a's is axb x axa */
      PetscReal axa[3], axb[3], mis[3];
      SimQuatRotate(B->body[j->a].q, j->axis_a, axa);
      if (j->b >= 0) SimQuatRotate(B->body[j->b].q, j->axis_b, axb);
      else axb[0] = j->axis_b[0], axb[1] = j->axis_b[1], axb[2] = j->axis_b[2];
      Cross(axb, axa, mis);
      if (Direction(mis, n, &c)) Correct(a, NULL, b, NULL, n, PetscAsinReal(PetscMin(c, 1.0)), at, &lam[1]);
      if (j->limited) {
        /* the angle about a's axis beyond [lo, hi] turns back (a hard limit) */
        const PetscReal phi = SimRigidHingeAngle(B, j);
        const PetscReal over = phi > j->hi ? phi - j->hi : phi < j->lo ? phi - j->lo : 0;
        SimQuatRotate(B->body[j->a].q, j->axis_a, axa);
        if (over != 0) Correct(a, NULL, b, NULL, axa, over, 0, &lam[2]);
      }
    }
    /* the anchors coincide */
    WorldPoint(B, j->a, j->anchor_a, ra, pa);
    WorldPoint(B, j->b, j->anchor_b, rb, pb);
    for (int k = 0; k < 3; k++) dx[k] = pa[k] - pb[k];
    if (Direction(dx, n, &c)) Correct(a, ra, b, j->b >= 0 ? rb : NULL, n, c, at, &lam[3]);
  }
}

/* ---- contacts ---- */

/* The contacts at the predicted positions: body-frame points, material, normal velocity before the
 * substep (from the start-of-substep velocities v0, w0). */
static PetscErrorCode FindContacts(XRigid *d, SimRigidBodies *B)
{
  PetscFunctionBeginUser;
  PetscCall(SimRigidCollide(B, d->margin, PETSC_TRUE, &d->found));
  if (d->found.n > d->cap) {
    d->cap = d->found.n;
    PetscCall(PetscRealloc(d->cap * sizeof(XContact), &d->xc));
  }
  for (PetscInt q = 0; q < d->found.n; q++) {
    const SimRigidContact *g = &d->found.c[q];
    XContact *x = &d->xc[q];
    PetscReal R[9], r[3], u[3] = {0, 0, 0};
    const SimRigidBody *a = &B->body[g->a];
    SimQuatToMatrix(a->q, R);
    for (int k = 0; k < 3; k++) r[k] = g->pa[k] - a->x[k];
    MatTVec(R, r, x->la);
    Cross(d->w0 + 3 * g->a, r, u);
    for (int k = 0; k < 3; k++) u[k] += d->v0[3 * g->a + k];
    if (g->b >= 0) {
      const SimRigidBody *b = &B->body[g->b];
      PetscReal ub[3];
      SimQuatToMatrix(b->q, R);
      for (int k = 0; k < 3; k++) r[k] = g->pb[k] - b->x[k];
      MatTVec(R, r, x->lb);
      Cross(d->w0 + 3 * g->b, r, ub);
      for (int k = 0; k < 3; k++) u[k] -= ub[k] + d->v0[3 * g->b + k];
    } else
      for (int k = 0; k < 3; k++) x->lb[k] = g->pb[k];
    x->vn0 = Dot(u, g->n);
    x->ln = x->cut = 0;
    SimRigidContactMaterial(B, g->a, g->b, &x->mu, &x->e);
  }
  PetscFunctionReturn(0);
}

/* Non-penetration along n (hard). The paper also corrects static friction here, at the position
 * level: the contact points' tangential move over the substep is undone while lambda_t < mu_s
 * lambda_n. Measured on this code it fights the other corners' normal corrections (each one turns
 * the box and moves the other corners sideways): in the paper's order a 10-box stack fell within
 * 3 s; after all the normal corrections it jittered and rose; before them a box held on a slope
 * above tan(angle) = mu. So friction is all in the velocity pass, where the Coulomb bound holds the
 * impulse: the contact sticks when mu f_n h covers |v_t|. What that leaves is a creep while
 * sticking, the prediction's g_t h^2 per substep, about g_t h per second (docs/rigid.md). */
static void SolveContacts(XRigid *d, SimRigidBodies *B)
{
  for (PetscInt q = 0; q < d->found.n; q++) {
    const SimRigidContact *g = &d->found.c[q];
    XContact *x = &d->xc[q];
    PetscReal ra[3], rb[3], pa[3], pb[3], dp[3], depth;
    WorldPoint(B, g->a, x->la, ra, pa);
    WorldPoint(B, g->b, x->lb, rb, pb);
    for (int k = 0; k < 3; k++) dp[k] = pa[k] - pb[k];
    depth = Dot(dp, g->n); /* < 0: overlapping */
    if (depth < 0) Correct(Body(B, g->a), ra, Body(B, g->b), g->b >= 0 ? rb : NULL, g->n, depth, 0, &x->ln);
  }
}

/* Velocity of body i's material point at offset r. */
static void PointVelocity(const SimRigidBodies *B, PetscInt i, const PetscReal *r, PetscReal *u)
{
  if (i < 0) {
    u[0] = u[1] = u[2] = 0;
    return;
  }
  Cross(B->body[i].w, r, u);
  for (int k = 0; k < 3; k++) u[k] += B->body[i].v[k];
}

/* Applies the impulse P to a at ra and -P to b at rb. */
static void Impulse(SimRigidBody *a, const PetscReal *ra, SimRigidBody *b, const PetscReal *rb, const PetscReal *P)
{
  for (int s = 0; s < 2; s++) {
    SimRigidBody *bd = s ? b : a;
    PetscReal Iinv[9], t[3], dw[3];
    if (!bd) continue;
    for (int k = 0; k < 3; k++) bd->v[k] += (s ? -1 : 1) * bd->inv_mass * P[k];
    Cross(s ? rb : ra, P, t);
    SimRigidInverseInertia(bd, Iinv);
    MatVec(Iinv, t, dw);
    for (int k = 0; k < 3; k++) bd->w[k] += (s ? -1 : 1) * dw[k];
  }
}

/* The relative velocity of the contact points. */
static void RelativeVelocity(const SimRigidBodies *B, const SimRigidContact *g, const PetscReal *ra, const PetscReal *rb, PetscReal *u)
{
  PetscReal ua[3], ub[3];
  PointVelocity(B, g->a, ra, ua);
  PointVelocity(B, g->b, rb, ub);
  for (int k = 0; k < 3; k++) u[k] = ua[k] - ub[k];
}

/* The velocity pass (section 3.6), for the contacts the position pass pushed apart: the normal
 * velocity becomes -e times the one before the substep (0 below 2 |g| h, so resting contacts do
 * not bounce), then friction takes the tangential velocity off by an impulse of at most
 * mu f_n h = mu lambda_n / h (f_n = lambda_n / h^2; all of it, the contact sticks, when the bound
 * covers it). The paper writes the bound as a velocity, min(h mu f_n, |v_t|), which is an impulse:
 * the velocity it allows is that impulse times the generalized inverse mass (with the bound as a
 * velocity a 16 kg box held on a slope at 1.3 atan(mu)). The paper makes one pass; the corners of a
 * face are coupled through the rotation, and one Gauss-Seidel pass leaves a box that lands flat
 * spinning and bouncing low (e = 0.3: a third of e^2 H), so the pass repeats
 * (-xpbd_rigid_velocity_iterations), the friction impulse over the repeats bounded in total, as
 * sequential impulses bound theirs. */
static void SolveVelocities(XRigid *d, SimRigidBodies *B, PetscReal h)
{
  const PetscReal g = PetscSqrtReal(Dot(B->gravity, B->gravity));
  for (PetscInt q = 0; q < d->found.n; q++) {
    const SimRigidContact *g0 = &d->found.c[q];
    XContact *x = &d->xc[q];
    SimRigidBody *a = Body(B, g0->a), *b = Body(B, g0->b);
    const PetscReal *rbp;
    PetscReal ra[3], rb[3], pa[3], pb[3], u[3], vt[3], t[3], P[3], vn, lt, target, e, wn, wt, Pt;
    if (x->ln <= 0) continue;
    WorldPoint(B, g0->a, x->la, ra, pa);
    WorldPoint(B, g0->b, x->lb, rb, pb);
    rbp = g0->b >= 0 ? rb : NULL;
    RelativeVelocity(B, g0, ra, rb, u);
    vn = Dot(u, g0->n);
    e = PetscAbsReal(x->vn0) <= 2 * g * h ? 0 : x->e;
    target = PetscMax(-e * x->vn0, 0);
    wn = GenInvMass(a, ra, g0->n) + GenInvMass(b, rbp, g0->n);
    if (wn > 0) {
      for (int k = 0; k < 3; k++) P[k] = (target - vn) / wn * g0->n[k];
      Impulse(a, ra, b, rbp, P);
    }
    RelativeVelocity(B, g0, ra, rb, u);
    vn = Dot(u, g0->n);
    for (int k = 0; k < 3; k++) vt[k] = u[k] - vn * g0->n[k];
    if (!Direction(vt, t, &lt)) continue;
    wt = GenInvMass(a, ra, t) + GenInvMass(b, rbp, t);
    if (wt <= 0) continue;
    Pt = PetscMin(x->mu * x->ln / h - x->cut, lt / wt);
    x->cut += Pt;
    for (int k = 0; k < 3; k++) P[k] = -Pt * t[k];
    Impulse(a, ra, b, rbp, P);
  }
}

/* ---- the step ---- */

static PetscErrorCode Substep(XRigid *d, SimRigidBodies *B, PetscReal h)
{
  const PetscReal at = d->compliance / (h * h);

  PetscFunctionBeginUser;
  /* predict: gravity, positions, the free rotation that keeps L (gyroscopic term exactly) */
  for (PetscInt i = 0; i < B->nbody; i++) {
    SimRigidBody *b = &B->body[i];
    for (int k = 0; k < 3; k++) d->x0[3 * i + k] = b->x[k], d->v0[3 * i + k] = b->v[k], d->w0[3 * i + k] = b->w[k];
    if (b->inv_mass == 0) continue;
    for (int k = 0; k < 3; k++) b->v[k] += h * B->gravity[k], b->x[k] += h * b->v[k];
    SimRigidFreeRotate(b, h);
    for (int k = 0; k < 4; k++) d->qp[4 * i + k] = b->q[k];
    for (int k = 0; k < 3; k++) d->wf[3 * i + k] = b->w[k];
  }
  PetscCall(FindContacts(d, B));
  for (PetscInt k = 0; k < 4 * B->njoint; k++) d->jlam[k] = 0;
  for (PetscInt it = 0; it < d->iterations; it++) {
    SolveJoints(d, B, at);
    SolveContacts(d, B);
  }
  /* velocities from the positions: v = (x - x0) / h; w = the free rotation's w plus the
   * corrections' turn 2 vec(q qp^-1) / h, so a body no constraint touched keeps L exactly (the
   * paper's 2 vec(q q_start^-1) / h equals it to first order) */
  for (PetscInt i = 0; i < B->nbody; i++) {
    SimRigidBody *b = &B->body[i];
    PetscReal qi[4], dq[4];
    if (b->inv_mass == 0) continue;
    for (int k = 0; k < 3; k++) b->v[k] = (b->x[k] - d->x0[3 * i + k]) / h;
    qi[0] = d->qp[4 * i], qi[1] = -d->qp[4 * i + 1], qi[2] = -d->qp[4 * i + 2], qi[3] = -d->qp[4 * i + 3];
    SimQuatMultiply(b->q, qi, dq);
    for (int k = 0; k < 3; k++) b->w[k] = d->wf[3 * i + k] + 2 * (dq[0] >= 0 ? 1 : -1) * dq[k + 1] / h;
  }
  for (PetscInt it = 0; it < d->viterations; it++) SolveVelocities(d, B, h);
  PetscFunctionReturn(0);
}

static PetscErrorCode Step_XRigid(SimSolver s, PetscReal dt)
{
  XRigid *d = (XRigid *)s->data;
  SimRigidBodies *B;

  PetscFunctionBeginUser;
  PetscCall(SimRigidProblemGetBodies(s->problem, &B));
  if (d->nb != B->nbody) {
    PetscCall(PetscFree5(d->x0, d->v0, d->w0, d->qp, d->wf));
    d->nb = B->nbody;
    PetscCall(PetscCalloc5(3 * d->nb + 1, &d->x0, 3 * d->nb + 1, &d->v0, 3 * d->nb + 1, &d->w0, 4 * d->nb + 1, &d->qp, 3 * d->nb + 1, &d->wf));
  }
  if (d->njl != B->njoint) {
    PetscCall(PetscFree(d->jlam));
    d->njl = B->njoint;
    PetscCall(PetscCalloc1(4 * d->njl + 1, &d->jlam));
  }
  PetscCall(PetscLogEventBegin(s->ev.solve, 0, 0, 0, 0));
  for (PetscInt k = 0; k < d->substeps; k++) PetscCall(Substep(d, B, dt / d->substeps));
  PetscCall(PetscLogEventEnd(s->ev.solve, 0, 0, 0, 0));
  s->stats.outcome = SIM_STEP_OK;
  s->stats.nonlinear_its = d->substeps * d->iterations;
  PetscFunctionReturn(0);
}

static PetscErrorCode Figures_XRigid(SimSolver s, PetscInt *n, const char *names[], PetscReal values[])
{
  XRigid *d = (XRigid *)s->data;

  PetscFunctionBeginUser;
  PetscCall(SimRigidSolverFigures(s->problem, d->found.n, n, names, values));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_XRigid(SimSolver s)
{
  XRigid *d = (XRigid *)s->data;

  PetscFunctionBeginUser;
  PetscCall(SimRigidContactListDestroy(&d->found));
  PetscCall(PetscFree(d->xc));
  PetscCall(PetscFree(d->jlam));
  PetscCall(PetscFree5(d->x0, d->v0, d->w0, d->qp, d->wf));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

/* No save/load: every substep starts from the bodies' x, q, v, w alone (no warm start), so the
 * problem's checkpoint is the whole state and a restart continues bit for bit. */
PetscErrorCode SimSolverCreate_XPBDRigid(SimSolver s)
{
  XRigid *d;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  d->substeps = 20;
  d->iterations = 1;
  d->viterations = 4;
  d->compliance = 0;
  d->margin = 2e-3;
  s->data = d;
  s->ops.setfromoptions = SetFromOptions_XRigid;
  s->ops.step = Step_XRigid;
  s->ops.figures = Figures_XRigid;
  s->ops.destroy = Destroy_XRigid;
  PetscFunctionReturn(0);
}
