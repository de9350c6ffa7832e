/* Rigid bodies by sequential impulses (Catto 2005, "Iterative dynamics with temporal coherence";
 * Guendelman et al. 2003 for the order of the phases): contact against planes and between spheres,
 * boxes and convex hulls with restitution and Coulomb friction, warm started from the previous step; ball,
 * hinge and fixed joints; free rotation that keeps the world angular momentum
 * exactly (the gyroscopic term). docs/rigid.md. */
#include "framework/solver_impl.h"
#include "problems/rigid/rigid.h"
#include "solvers/rigid/contact.h"
#include "solvers/rigid/vec3.h"

/* A contact point between body a and body b (b = -1: a plane): the normal n points from b to a. */
typedef struct {
  PetscInt a, b, key;  /* key: which pair and which feature, for warm starting */
  PetscReal n[3], p[3], pen;
  PetscReal ra[3], rb[3], t1[3], t2[3];
  PetscReal kn, kt[2];      /* effective masses along n, t1, t2 */
  PetscReal ln, lt[2];      /* accumulated impulses */
  PetscReal bias, mu;
} Contact;

typedef struct {
  PetscInt iterations;
  PetscReal slop, beta, beta_joint, rest_threshold;
  PetscBool warm;
  PetscInt nc, cap, nprev;
  Contact *c, *prev;
  SimRigidContactList found; /* the narrow phase's output (contact.h) */
  PetscReal (*jl)[6];   /* accumulated joint impulses (3 linear, 3 angular) */
  PetscReal *jlim;      /* accumulated impulse of each hinge's limit in this step (not warm started) */
} Rigid;

static PetscErrorCode SetFromOptions_Rigid(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  Rigid *d = (Rigid *)s->data;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, "Rigid bodies by sequential impulses, -solver rigid");
  PetscCall(PetscOptionsInt("-rigid_iterations", "velocity iterations per step (>= 1)", "", d->iterations, &d->iterations, NULL));
  PetscCall(PetscOptionsBool("-rigid_warm_start", "start each step from the previous step's impulses", "", d->warm, &d->warm, NULL));
  PetscCall(PetscOptionsReal("-rigid_slop", "penetration left uncorrected (m, >= 0)", "", d->slop, &d->slop, NULL));
  PetscCall(PetscOptionsReal("-rigid_beta", "fraction of the penetration removed per step, in [0, 1]", "", d->beta, &d->beta, NULL));
  PetscCall(PetscOptionsReal("-rigid_joint_beta", "Baumgarte factor of the joints' drift, in [0, 1]", "", d->beta_joint, &d->beta_joint, NULL));
  PetscCall(PetscOptionsReal("-rigid_restitution_threshold", "approach speed below which contacts do not bounce (m/s, >= 0)", "", d->rest_threshold,
                             &d->rest_threshold, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(d->iterations >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-rigid_iterations %" PetscInt_FMT " is out of range: must be >= 1", d->iterations);
  PetscCheck(d->slop >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-rigid_slop %g is out of range: must be >= 0", (double)d->slop);
  PetscCheck(d->beta >= 0 && d->beta <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-rigid_beta %g is out of range: must be in [0, 1]", (double)d->beta);
  PetscCheck(d->beta_joint >= 0 && d->beta_joint <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-rigid_joint_beta %g is out of range: must be in [0, 1]",
             (double)d->beta_joint);
  PetscCheck(d->rest_threshold >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-rigid_restitution_threshold %g is out of range: must be >= 0",
             (double)d->rest_threshold);
  PetscFunctionReturn(0);
}

/* Inverse of a symmetric positive semi-definite 3x3 (0 where singular). */
static void Inverse3(const PetscReal *A, PetscReal *B)
{
  PetscReal det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
  if (PetscAbsReal(det) < 1e-300) {
    for (int k = 0; k < 9; k++) B[k] = 0;
    return;
  }
  B[0] = (A[4] * A[8] - A[5] * A[7]) / det, B[1] = (A[2] * A[7] - A[1] * A[8]) / det, B[2] = (A[1] * A[5] - A[2] * A[4]) / det;
  B[3] = (A[5] * A[6] - A[3] * A[8]) / det, B[4] = (A[0] * A[8] - A[2] * A[6]) / det, B[5] = (A[2] * A[3] - A[0] * A[5]) / det;
  B[6] = (A[3] * A[7] - A[4] * A[6]) / det, B[7] = (A[1] * A[6] - A[0] * A[7]) / det, B[8] = (A[0] * A[4] - A[1] * A[3]) / det;
}

/* Velocity of body i's material point at offset r (world); a static or absent body has none. */
static inline void PointVelocity(const SimRigidBodies *B, PetscInt i, const PetscReal *r, PetscReal *u)
{
  if (i < 0) {
    u[0] = u[1] = u[2] = 0;
    return;
  }
  Cross(B->body[i].w, r, u);
  for (int k = 0; k < 3; k++) u[k] += B->body[i].v[k];
}

/* Applies the impulse P at offset r to body i (sign +1) or -P (sign -1). */
static inline void ApplyImpulse(SimRigidBodies *B, PetscInt i, const PetscReal *r, const PetscReal *P, PetscReal sign)
{
  SimRigidBody *b;
  PetscReal Iinv[9], tq[3], dw[3];
  if (i < 0) return;
  b = &B->body[i];
  if (b->inv_mass == 0) return;
  for (int k = 0; k < 3; k++) b->v[k] += sign * b->inv_mass * P[k];
  Cross(r, P, tq);
  SimRigidInverseInertia(b, Iinv);
  MatVec(Iinv, tq, dw);
  for (int k = 0; k < 3; k++) b->w[k] += sign * dw[k];
}

/* 1 / (J M^-1 J^T) along a direction t at offsets ra, rb. */
static PetscReal EffectiveMass(const SimRigidBodies *B, PetscInt a, PetscInt b, const PetscReal *ra, const PetscReal *rb, const PetscReal *t)
{
  PetscReal k = 0;
  const PetscInt ids[2] = {a, b};
  const PetscReal *rs[2] = {ra, rb};
  for (int s = 0; s < 2; s++) {
    PetscReal Iinv[9], rt[3], Irt[3], c[3];
    if (ids[s] < 0 || B->body[ids[s]].inv_mass == 0) continue;
    k += B->body[ids[s]].inv_mass;
    SimRigidInverseInertia(&B->body[ids[s]], Iinv);
    Cross(rs[s], t, rt);
    MatVec(Iinv, rt, Irt);
    Cross(Irt, rs[s], c);
    k += Dot(c, t);
  }
  return k > 0 ? 1.0 / k : 0;
}

/* ---- contacts (solvers/rigid/contact.c) ---- */

/* The contacts at the current positions, with the solver's impulse fields cleared. */
static PetscErrorCode Collide(Rigid *d, const SimRigidBodies *B)
{
  PetscFunctionBeginUser;
  PetscCall(SimRigidCollide(B, 0, PETSC_FALSE, &d->found));
  if (d->found.n > d->cap) {
    d->cap = d->found.n;
    PetscCall(PetscRealloc(d->cap * sizeof(Contact), &d->c));
    PetscCall(PetscRealloc(d->cap * sizeof(Contact), &d->prev));
  }
  d->nc = d->found.n;
  for (PetscInt q = 0; q < d->nc; q++) {
    const SimRigidContact *g = &d->found.c[q];
    Contact *c = &d->c[q];
    PetscCall(PetscMemzero(c, sizeof(*c)));
    c->a = g->a, c->b = g->b, c->key = g->key, c->pen = g->pen;
    for (int k = 0; k < 3; k++) c->n[k] = g->n[k], c->p[k] = g->p[k];
  }
  PetscFunctionReturn(0);
}

/* ---- the velocity solve ---- */

static void Tangents(const PetscReal *n, PetscReal *t1, PetscReal *t2)
{
  PetscReal a[3] = {1, 0, 0}, l;
  if (PetscAbsReal(n[0]) > 0.57) a[0] = 0, a[1] = 1;
  Cross(n, a, t1);
  l = PetscSqrtReal(Dot(t1, t1));
  for (int k = 0; k < 3; k++) t1[k] /= l;
  Cross(n, t1, t2);
}

static void BodyOffset(const SimRigidBodies *B, PetscInt i, const PetscReal *p, PetscReal *r)
{
  for (int k = 0; k < 3; k++) r[k] = i >= 0 ? p[k] - B->body[i].x[k] : 0;
}

/* Per contact: offsets, tangents, effective masses, restitution target; the warm start. */
static PetscErrorCode PreStep(Rigid *d, SimRigidBodies *B)
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < d->nc; q++) {
    Contact *c = &d->c[q];
    const PetscInt bb = c->b >= 0 ? c->b : -1;
    PetscReal ua[3], ub[3], vn = 0, e, mu;
    BodyOffset(B, c->a, c->p, c->ra);
    BodyOffset(B, bb, c->p, c->rb);
    Tangents(c->n, c->t1, c->t2);
    c->kn = EffectiveMass(B, c->a, bb, c->ra, c->rb, c->n);
    c->kt[0] = EffectiveMass(B, c->a, bb, c->ra, c->rb, c->t1);
    c->kt[1] = EffectiveMass(B, c->a, bb, c->ra, c->rb, c->t2);
    SimRigidContactMaterial(B, c->a, c->b, &mu, &e);
    c->mu = mu;
    PointVelocity(B, c->a, c->ra, ua);
    PointVelocity(B, bb, c->rb, ub);
    for (int k = 0; k < 3; k++) vn += (ua[k] - ub[k]) * c->n[k];
    c->bias = vn < -d->rest_threshold ? -e * vn : 0;
    /* warm start: the previous step's impulses of the same pair and feature */
    if (d->warm)
      for (PetscInt o = 0; o < d->nprev; o++)
        if (d->prev[o].key == c->key && d->prev[o].a == c->a && d->prev[o].b == c->b) {
          PetscReal P[3];
          c->ln = d->prev[o].ln, c->lt[0] = d->prev[o].lt[0], c->lt[1] = d->prev[o].lt[1];
          for (int k = 0; k < 3; k++) P[k] = c->ln * c->n[k] + c->lt[0] * c->t1[k] + c->lt[1] * c->t2[k];
          ApplyImpulse(B, c->a, c->ra, P, 1);
          ApplyImpulse(B, bb, c->rb, P, -1);
          break;
        }
  }
  PetscFunctionReturn(0);
}

/* One pass over the contacts: normal impulse clamped to >= 0 (accumulated), then friction clamped to
 * the Coulomb disc |lt| <= mu ln. */
static void SolveContacts(Rigid *d, SimRigidBodies *B)
{
  for (PetscInt q = 0; q < d->nc; q++) {
    Contact *c = &d->c[q];
    const PetscInt bb = c->b >= 0 ? c->b : -1;
    PetscReal ua[3], ub[3], du[3], dl, l0, P[3], lt0[2], lt[2], len;
    PointVelocity(B, c->a, c->ra, ua);
    PointVelocity(B, bb, c->rb, ub);
    for (int k = 0; k < 3; k++) du[k] = ua[k] - ub[k];
    dl = c->kn * (-Dot(du, c->n) + c->bias);
    l0 = c->ln;
    c->ln = PetscMax(l0 + dl, 0);
    dl = c->ln - l0;
    for (int k = 0; k < 3; k++) P[k] = dl * c->n[k];
    ApplyImpulse(B, c->a, c->ra, P, 1);
    ApplyImpulse(B, bb, c->rb, P, -1);
    /* friction */
    PointVelocity(B, c->a, c->ra, ua);
    PointVelocity(B, bb, c->rb, ub);
    for (int k = 0; k < 3; k++) du[k] = ua[k] - ub[k];
    lt0[0] = c->lt[0], lt0[1] = c->lt[1];
    lt[0] = lt0[0] - c->kt[0] * Dot(du, c->t1);
    lt[1] = lt0[1] - c->kt[1] * Dot(du, c->t2);
    len = PetscSqrtReal(lt[0] * lt[0] + lt[1] * lt[1]);
    if (len > c->mu * c->ln && len > 0) lt[0] *= c->mu * c->ln / len, lt[1] *= c->mu * c->ln / len;
    c->lt[0] = lt[0], c->lt[1] = lt[1];
    for (int k = 0; k < 3; k++) P[k] = (lt[0] - lt0[0]) * c->t1[k] + (lt[1] - lt0[1]) * c->t2[k];
    ApplyImpulse(B, c->a, c->ra, P, 1);
    ApplyImpulse(B, bb, c->rb, P, -1);
  }
}

/* A hinge's limit, one-sided on the nearer limit: with C the angle's distance to it (>= 0 within),
 * the rate of C is kept >= -C / h within (speculative: this step does not cross the limit) and
 * >= -beta_joint C / h past it (the excess comes back); the accumulated impulse stays >= 0 (it only
 * pushes away from the limit). */
static void HingeLimit(Rigid *d, SimRigidBodies *B, PetscInt q, PetscReal h)
{
  const SimRigidJoint *j = &B->joint[q];
  SimRigidBody *a = &B->body[j->a], *b = j->b >= 0 ? &B->body[j->b] : NULL;
  const PetscReal phi = SimRigidHingeAngle(B, j);
  const PetscReal sgn = phi - j->lo < j->hi - phi ? 1 : -1, C = sgn > 0 ? phi - j->lo : j->hi - phi; /* rate of C = sgn dphi/dt */
  PetscReal axis[3], Ia[9], Ib[9] = {0}, Iax[3], k, rate, l0, dl, bias;
  SimQuatRotate(a->q, j->axis_a, axis);
  SimRigidInverseInertia(a, Ia);
  if (b) SimRigidInverseInertia(b, Ib);
  for (int m = 0; m < 9; m++) Ia[m] += Ib[m];
  MatVec(Ia, axis, Iax);
  k = Dot(axis, Iax);
  if (k <= 0) return;
  rate = sgn * (Dot(a->w, axis) - (b ? Dot(b->w, axis) : 0));
  bias = C >= 0 ? C / h : d->beta_joint * C / h;
  l0 = d->jlim[q];
  d->jlim[q] = PetscMax(l0 + (-rate - bias) / k, 0);
  dl = sgn * (d->jlim[q] - l0);
  for (int s = 0; s < 2; s++) {
    SimRigidBody *bd = s ? b : a;
    PetscReal Iinv[9], dw[3];
    if (!bd || bd->inv_mass == 0) continue;
    SimRigidInverseInertia(bd, Iinv);
    MatVec(Iinv, axis, dw);
    for (int m = 0; m < 3; m++) bd->w[m] += (s ? -1 : 1) * dl * dw[m];
  }
}

/* Joints: the anchors' relative velocity (3 rows, with a Baumgarte term for the drift) and, for
 * fixed joints, the relative angular velocity (3 rows); hinges keep the two axes aligned (the
 * angular velocity across the axis). */
static void SolveJoints(Rigid *d, SimRigidBodies *B, PetscReal h)
{
  for (PetscInt q = 0; q < B->njoint; q++) {
    const SimRigidJoint *j = &B->joint[q];
    SimRigidBody *a = &B->body[j->a], *b = j->b >= 0 ? &B->body[j->b] : NULL;
    PetscReal ra[3], rb[3], pa[3], pb[3], C[3], ua[3], ub[3], K[9] = {0}, Kinv[9], rhs[3], P[3];
    SimQuatRotate(a->q, j->anchor_a, ra);
    if (b) SimQuatRotate(b->q, j->anchor_b, rb);
    else rb[0] = rb[1] = rb[2] = 0;
    for (int k = 0; k < 3; k++) pa[k] = a->x[k] + ra[k], pb[k] = b ? b->x[k] + rb[k] : j->anchor_b[k], C[k] = pa[k] - pb[k];
    PointVelocity(B, j->a, ra, ua);
    PointVelocity(B, j->b, rb, ub);
    /* K = sum over the bodies of (1/m) I - [r]x Iinv [r]x */
    for (int s = 0; s < 2; s++) {
      const SimRigidBody *bd = s ? b : a;
      const PetscReal *r = s ? rb : ra;
      PetscReal Iinv[9], X[9], T[9];
      if (!bd || bd->inv_mass == 0) continue;
      SimRigidInverseInertia(bd, Iinv);
      X[0] = 0, X[1] = -r[2], X[2] = r[1], X[3] = r[2], X[4] = 0, X[5] = -r[0], X[6] = -r[1], X[7] = r[0], X[8] = 0;
      for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) T[3 * i + k] = X[3 * i] * Iinv[k] + X[3 * i + 1] * Iinv[3 + k] + X[3 * i + 2] * Iinv[6 + k];
      for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) K[3 * i + k] += (i == k ? bd->inv_mass : 0) - (T[3 * i] * X[k] + T[3 * i + 1] * X[3 + k] + T[3 * i + 2] * X[6 + k]);
    }
    Inverse3(K, Kinv);
    for (int k = 0; k < 3; k++) rhs[k] = -(ua[k] - ub[k]) - d->beta_joint / h * C[k];
    MatVec(Kinv, rhs, P);
    for (int k = 0; k < 3; k++) d->jl[q][k] += P[k];
    ApplyImpulse(B, j->a, ra, P, 1);
    ApplyImpulse(B, j->b, rb, P, -1);
    if (j->type != SIM_JOINT_BALL) {
      /* angular rows: Ka = Iinv_a + Iinv_b; fixed: all 3 rows of w_a - w_b (+ drift of the relative
       * orientation); hinge: the 2 rows across the axis (+ the axes' misalignment) and the limit */
      PetscReal Ia[9], Ib[9] = {0}, Ka[9], Kainv[9], dw[3], err[3] = {0, 0, 0}, L[3], axis[3];
      SimRigidInverseInertia(a, Ia);
      if (b) SimRigidInverseInertia(b, Ib);
      for (int k = 0; k < 9; k++) Ka[k] = Ia[k] + Ib[k];
      for (int k = 0; k < 3; k++) dw[k] = a->w[k] - (b ? b->w[k] : 0);
      SimQuatRotate(a->q, j->axis_a, axis);
      if (j->type == SIM_JOINT_FIXED) {
        /* orientation error: 2 vec(q_a (q_b qrel)^-1), the small rotation that takes the rest
         * relative orientation to the current one */
        PetscReal qt[4], qb[4] = {1, 0, 0, 0}, qi[4], qe[4];
        if (b) qb[0] = b->q[0], qb[1] = b->q[1], qb[2] = b->q[2], qb[3] = b->q[3];
        SimQuatMultiply(qb, j->qrel, qt);
        qi[0] = qt[0], qi[1] = -qt[1], qi[2] = -qt[2], qi[3] = -qt[3];
        SimQuatMultiply(a->q, qi, qe);
        for (int k = 0; k < 3; k++) err[k] = 2 * (qe[0] >= 0 ? 1 : -1) * qe[k + 1];
        Inverse3(Ka, Kainv);
        for (int k = 0; k < 3; k++) rhs[k] = -dw[k] - d->beta_joint / h * err[k];
        MatVec(Kainv, rhs, L);
      } else {
        /* hinge: remove the angular velocity across the axis and the misalignment of the axes */
        PetscReal axb[3], mis[3], P1[9], KP[9], KPinv[9], r2[3];
        if (b) SimQuatRotate(b->q, j->axis_b, axb);
        else axb[0] = j->axis_b[0], axb[1] = j->axis_b[1], axb[2] = j->axis_b[2];
        Cross(axb, axis, mis); /* the small rotation taking axb to axis */
        for (int i = 0; i < 3; i++)
          for (int k = 0; k < 3; k++) P1[3 * i + k] = (i == k) - axis[i] * axis[k];
        /* on the plane across the axis: K_P = P Ka P + axis axis^T (invertible), solve, project */
        for (int i = 0; i < 3; i++)
          for (int k = 0; k < 3; k++) {
            PetscReal s = 0;
            for (int m = 0; m < 3; m++)
              for (int n = 0; n < 3; n++) s += P1[3 * i + m] * Ka[3 * m + n] * P1[3 * n + k];
            KP[3 * i + k] = s + axis[i] * axis[k];
          }
        Inverse3(KP, KPinv);
        for (int k = 0; k < 3; k++) r2[k] = -(dw[k] - Dot(dw, axis) * axis[k]) - d->beta_joint / h * (mis[k] - Dot(mis, axis) * axis[k]);
        MatVec(KPinv, r2, L);
        {
          const PetscReal along = Dot(L, axis);
          for (int k = 0; k < 3; k++) L[k] -= along * axis[k];
        }
      }
      for (int s = 0; s < 2; s++) {
        SimRigidBody *bd = s ? b : a;
        PetscReal Iinv[9], dwb[3];
        if (!bd || bd->inv_mass == 0) continue;
        SimRigidInverseInertia(bd, Iinv);
        MatVec(Iinv, L, dwb);
        for (int k = 0; k < 3; k++) bd->w[k] += (s ? -1 : 1) * dwb[k];
      }
      for (int k = 0; k < 3; k++) d->jl[q][3 + k] += L[k];
      if (j->type == SIM_JOINT_HINGE && j->limited) HingeLimit(d, B, q, h);
    }
  }
}

/* Position correction (Catto's non-linear Gauss-Seidel lite): each penetrating contact pushes the
 * bodies apart along n by beta (pen - slop), split by their effective masses; velocities untouched. */
static void CorrectPositions(Rigid *d, SimRigidBodies *B)
{
  for (PetscInt q = 0; q < d->nc; q++) {
    Contact *c = &d->c[q];
    const PetscInt bb = c->b >= 0 ? c->b : -1;
    PetscReal k, P, ra[3], rb[3];
    if (c->pen <= d->slop) continue;
    BodyOffset(B, c->a, c->p, ra);
    BodyOffset(B, bb, c->p, rb);
    k = EffectiveMass(B, c->a, bb, ra, rb, c->n);
    P = d->beta * (c->pen - d->slop) * k;
    for (int s = 0; s < 2; s++) {
      const PetscInt i = s ? bb : c->a;
      SimRigidBody *b;
      PetscReal Iinv[9], t[3], dth[3], Pn[3];
      if (i < 0) continue;
      b = &B->body[i];
      if (b->inv_mass == 0) continue;
      for (int e = 0; e < 3; e++) Pn[e] = (s ? -P : P) * c->n[e], b->x[e] += b->inv_mass * Pn[e];
      Cross(s ? rb : ra, Pn, t);
      SimRigidInverseInertia(b, Iinv);
      MatVec(Iinv, t, dth);
      SimQuatIntegrate(b->q, dth, 1.0);
    }
  }
}

/* One step (Guendelman et al. 2003 order): contacts at x_n; gravity; warm start; velocity
 * iterations over joints and contacts; positions by the new velocities (free rotation); position
 * correction of the contacts found again at the new positions. */
static PetscErrorCode Step_Rigid(SimSolver s, PetscReal h)
{
  Rigid *d = (Rigid *)s->data;
  SimRigidBodies *B;

  PetscFunctionBeginUser;
  PetscCall(SimRigidProblemGetBodies(s->problem, &B));
  if (!d->jl) PetscCall(PetscCalloc1(B->njoint + 1, &d->jl));
  if (!d->jlim) PetscCall(PetscCalloc1(B->njoint + 1, &d->jlim));
  for (PetscInt q = 0; q < B->njoint; q++) d->jlim[q] = 0;
  PetscCall(PetscLogEventBegin(s->ev.force, 0, 0, 0, 0));
  PetscCall(Collide(d, B));
  PetscCall(PetscLogEventEnd(s->ev.force, 0, 0, 0, 0));
  for (PetscInt i = 0; i < B->nbody; i++)
    if (B->body[i].inv_mass > 0)
      for (int k = 0; k < 3; k++) B->body[i].v[k] += h * B->gravity[k];
  PetscCall(PetscLogEventBegin(s->ev.solve, 0, 0, 0, 0));
  PetscCall(PreStep(d, B));
  for (PetscInt q = 0; q < B->njoint; q++) {
    /* warm start of the joints */
    SimRigidJoint *j = &B->joint[q];
    PetscReal ra[3], rb[3] = {0, 0, 0};
    if (!d->warm) break;
    SimQuatRotate(B->body[j->a].q, j->anchor_a, ra);
    if (j->b >= 0) SimQuatRotate(B->body[j->b].q, j->anchor_b, rb);
    ApplyImpulse(B, j->a, ra, d->jl[q], 1);
    ApplyImpulse(B, j->b, rb, d->jl[q], -1);
    for (int sd = 0; sd < 2; sd++) {
      const PetscInt i = sd ? j->b : j->a;
      PetscReal Iinv[9], dw[3];
      if (i < 0 || B->body[i].inv_mass == 0) continue;
      SimRigidInverseInertia(&B->body[i], Iinv);
      MatVec(Iinv, d->jl[q] + 3, dw);
      for (int k = 0; k < 3; k++) B->body[i].w[k] += (sd ? -1 : 1) * dw[k];
    }
  }
  if (!d->warm)
    for (PetscInt q = 0; q < B->njoint; q++)
      for (int k = 0; k < 6; k++) d->jl[q][k] = 0;
  for (PetscInt it = 0; it < d->iterations; it++) {
    SolveJoints(d, B, h);
    SolveContacts(d, B);
  }
  PetscCall(PetscLogEventEnd(s->ev.solve, 0, 0, 0, 0));
  for (PetscInt i = 0; i < B->nbody; i++) {
    SimRigidBody *b = &B->body[i];
    if (b->inv_mass == 0) continue;
    for (int k = 0; k < 3; k++) b->x[k] += h * b->v[k];
    SimRigidFreeRotate(b, h);
  }
  /* keep this step's impulses for the next warm start, then correct the positions */
  PetscCall(PetscArraycpy(d->prev, d->c, d->nc));
  d->nprev = d->nc;
  PetscCall(Collide(d, B));
  CorrectPositions(d, B);
  s->stats.outcome = SIM_STEP_OK;
  s->stats.nonlinear_its = d->iterations;
  PetscFunctionReturn(0);
}

static PetscErrorCode Figures_Rigid(SimSolver s, PetscInt *n, const char *names[], PetscReal values[])
{
  Rigid *d = (Rigid *)s->data;

  PetscFunctionBeginUser;
  PetscCall(SimRigidSolverFigures(s->problem, d->nprev, n, names, values));
  PetscFunctionReturn(0);
}

/* Checkpoint: what the next step's warm start reads — the last step's contacts (pair, feature,
 * accumulated impulses) and the joints' accumulated impulses — so a restart continues bit for bit. */
static PetscErrorCode Save_Rigid(SimSolver s, PetscViewer viewer)
{
  Rigid *d = (Rigid *)s->data;
  SimRigidBodies *B;
  PetscInt n[2];

  PetscFunctionBeginUser;
  PetscCall(SimRigidProblemGetBodies(s->problem, &B));
  n[0] = d->nprev, n[1] = d->jl ? B->njoint : 0;
  PetscCall(PetscViewerBinaryWrite(viewer, n, 2, PETSC_INT));
  for (PetscInt o = 0; o < d->nprev; o++) {
    const Contact *c = &d->prev[o];
    PetscInt id[3] = {c->a, c->b, c->key};
    PetscReal l[3] = {c->ln, c->lt[0], c->lt[1]};
    PetscCall(PetscViewerBinaryWrite(viewer, id, 3, PETSC_INT));
    PetscCall(PetscViewerBinaryWrite(viewer, l, 3, PETSC_REAL));
  }
  if (n[1]) PetscCall(PetscViewerBinaryWrite(viewer, d->jl, 6 * n[1], PETSC_REAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_Rigid(SimSolver s, PetscViewer viewer)
{
  Rigid *d = (Rigid *)s->data;
  SimRigidBodies *B;
  PetscInt n[2];

  PetscFunctionBeginUser;
  PetscCall(SimRigidProblemGetBodies(s->problem, &B));
  PetscCall(PetscViewerBinaryRead(viewer, n, 2, NULL, PETSC_INT));
  PetscCheck(n[0] >= 0 && (n[1] == 0 || n[1] == B->njoint), s->comm, PETSC_ERR_FILE_UNEXPECTED,
             "Rigid checkpoint: %" PetscInt_FMT " contacts and %" PetscInt_FMT " joints, but the scene has %" PetscInt_FMT " joints", n[0], n[1], B->njoint);
  if (n[0] > d->cap) {
    d->cap = n[0];
    PetscCall(PetscRealloc(d->cap * sizeof(Contact), &d->c));
    PetscCall(PetscRealloc(d->cap * sizeof(Contact), &d->prev));
  }
  d->nprev = n[0];
  for (PetscInt o = 0; o < d->nprev; o++) {
    Contact *c = &d->prev[o];
    PetscInt id[3];
    PetscReal l[3];
    PetscCall(PetscViewerBinaryRead(viewer, id, 3, NULL, PETSC_INT));
    PetscCall(PetscViewerBinaryRead(viewer, l, 3, NULL, PETSC_REAL));
    PetscCall(PetscMemzero(c, sizeof(*c)));
    c->a = id[0], c->b = id[1], c->key = id[2];
    c->ln = l[0], c->lt[0] = l[1], c->lt[1] = l[2];
  }
  if (!d->jl) PetscCall(PetscCalloc1(B->njoint + 1, &d->jl));
  if (n[1]) PetscCall(PetscViewerBinaryRead(viewer, d->jl, 6 * n[1], NULL, PETSC_REAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Rigid(SimSolver s)
{
  Rigid *d = (Rigid *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(d->c));
  PetscCall(PetscFree(d->prev));
  PetscCall(PetscFree(d->jl));
  PetscCall(PetscFree(d->jlim));
  PetscCall(SimRigidContactListDestroy(&d->found));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_Rigid(SimSolver s)
{
  Rigid *d;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  d->iterations = 20;
  d->warm = PETSC_TRUE;
  d->slop = 1e-3;
  d->beta = 0.2;
  d->beta_joint = 0.2;
  d->rest_threshold = 0.2;
  s->data = d;
  s->ops.setfromoptions = SetFromOptions_Rigid;
  s->ops.step = Step_Rigid;
  s->ops.figures = Figures_Rigid;
  s->ops.destroy = Destroy_Rigid;
  s->ops.save = Save_Rigid;
  s->ops.load = Load_Rigid;
  PetscFunctionReturn(0);
}
