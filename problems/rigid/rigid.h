/* The "rigid" problem type: rigid bodies (sphere, box) with state x, q, v, omega, analytic planes
 * and joints, for the `rigid` solver (sequential impulses). Replicated on every rank (serial
 * solvers). docs/rigid.md. */
#pragma once
#include "framework/problem.h"
#include "problems/rigid/hull.h"

typedef enum { SIM_RIGID_SPHERE = 0, SIM_RIGID_BOX = 1, SIM_RIGID_HULL = 2 } SimRigidShape;
#define SIM_RIGID_NSHAPES 3
typedef enum { SIM_JOINT_BALL = 0, SIM_JOINT_HINGE = 1, SIM_JOINT_FIXED = 2 } SimJointType;

/* One body. Units SI. A body with mass 0 is static (infinite mass, never moves). */
typedef struct {
  SimRigidShape shape;
  PetscReal size[3];      /* sphere: radius in size[0]; box: half extents along the body axes; hull: of its bounding box */
  PetscReal mass, inv_mass;
  PetscReal Ib[3];        /* principal moments of inertia in the body frame, kg m^2 (diagonal) */
  PetscReal x[3], q[4];   /* centre of mass; orientation as a unit quaternion (w, x, y, z), body to world */
  PetscReal v[3], w[3];   /* linear and angular velocity (world frame) */
  PetscReal friction;     /* Coulomb coefficient mu (pairs combine as sqrt(mu_a mu_b)) */
  PetscReal restitution;  /* e in [0, 1] (pairs take the larger) */
  PetscInt hull;          /* hull shape: its index in SimRigidBodies.hull */
} SimRigidBody;

/* A convex hull's shape in its body's frame (principal axes, the centre of mass at the origin). */
typedef struct {
  PetscInt nv, nf;
  PetscReal *v;         /* 3 * nv */
  PetscInt *f;          /* 3 * nf outward triangles */
  SimHullFeatures feat; /* its faces (polygons, planes) and edges in the same frame, for contact */
} SimRigidHull;

/* The most vertices a face of a hull body may have (contact clips one face against another in
 * fixed buffers): SimRigidProblemAddHull refuses a hull with a larger flat face. */
#define SIM_RIGID_HULL_MAX_FACE 64

/* An infinite plane: the free side is where (x - point) . normal > 0. */
typedef struct {
  PetscReal point[3], normal[3];
  PetscReal friction, restitution;
} SimRigidPlane;

/* A joint between body a and body b (b = -1: the world). anchor_a is in a's body frame, anchor_b in
 * b's (the world frame when b = -1); they coincide. Hinge: axis_a, axis_b (unit, body frames) stay
 * aligned. Fixed: the relative orientation stays that of the set-up. A hinge with limits keeps its
 * angle (a's turn relative to b about the axis, 0 at set-up, radians) within [lo, hi]. */
typedef struct {
  SimJointType type;
  PetscInt a, b;
  PetscReal anchor_a[3], anchor_b[3];
  PetscReal axis_a[3], axis_b[3];
  PetscReal qrel[4]; /* fixed/hinge: q_b^-1 q_a at set-up (the rest relative orientation) */
  PetscBool limited; /* hinge: the angle is kept within [lo, hi] */
  PetscReal lo, hi;
} SimRigidJoint;

/* Transparent: the solver's loops read the arrays directly. */
typedef struct {
  PetscInt nbody, nplane, njoint;
  SimRigidBody *body;
  SimRigidPlane *plane;
  SimRigidJoint *joint;
  PetscReal gravity[3];
  PetscInt nhull;
  SimRigidHull *hull;
} SimRigidBodies;

/* Constructor of the registration (problems/register.c). */
PetscErrorCode SimProblemCreate_Rigid(SimProblem problem);
/* The bodies of a rigid problem (borrowed); an error for any other type. */
PetscErrorCode SimRigidProblemGetBodies(SimProblem problem, SimRigidBodies **bodies);
/* Adds a body at rest at x with orientation q (NULL: identity) from its shape, size and density
 * (kg/m^3; 0: static); mass and inertia are the shape's (sphere 2/5 m r^2, box m/3 (b^2 + c^2)
 * with half extents). *id (may be NULL) is its index. Bad sizes or density are errors naming `what`. */
PetscErrorCode SimRigidProblemAddBody(SimProblem problem, SimRigidShape shape, const PetscReal size[3], PetscReal density, const PetscReal x[3],
                                      const PetscReal q[4], PetscReal friction, PetscReal restitution, const char *what, PetscInt *id);
/* Adds the convex hull of n points (xyz, in the frame of the mesh they come from) as a body of the
 * given density (0: static), the mesh frame placed at x with orientation q (NULL: identity): its
 * mass, centre of mass and inertia are the hull's (problems/rigid/mass.h), its body frame the
 * principal axes at the centre of mass. */
PetscErrorCode SimRigidProblemAddHull(SimProblem problem, PetscInt n, const PetscReal *xyz, PetscReal density, const PetscReal x[3], const PetscReal q[4],
                                      PetscReal friction, PetscReal restitution, const char *what, PetscInt *id);
PetscErrorCode SimRigidProblemAddPlane(SimProblem problem, const PetscReal point[3], const PetscReal normal[3], PetscReal friction,
                                       PetscReal restitution);
/* Adds a joint (see SimRigidJoint); the world anchor of b = -1 is given in anchor_b. */
PetscErrorCode SimRigidProblemAddJoint(SimProblem problem, SimJointType type, PetscInt a, PetscInt b, const PetscReal anchor_a[3],
                                       const PetscReal anchor_b[3], const PetscReal axis_a[3], const PetscReal axis_b[3]);

/* Limits [lo, hi] (radians, lo <= 0 <= hi: the set-up angle is 0) on the angle of hinge `joint`. */
PetscErrorCode SimRigidProblemSetHingeLimits(SimProblem problem, PetscInt joint, PetscReal lo, PetscReal hi);
/* The angle of hinge j (a's turn relative to b about a's axis since set-up), in (-pi, pi]. */
PetscReal SimRigidHingeAngle(const SimRigidBodies *bodies, const SimRigidJoint *j);

/* Quaternion and frame helpers (q = (w, x, y, z), unit). */
void SimQuatFromMatrix(const PetscReal R[9], PetscReal q[4]); /* R a rotation (row-major) */
void SimQuatToMatrix(const PetscReal q[4], PetscReal R[9]);                /* row-major rotation, body to world */
void SimQuatMultiply(const PetscReal a[4], const PetscReal b[4], PetscReal c[4]); /* c = a b */
void SimQuatRotate(const PetscReal q[4], const PetscReal v[3], PetscReal out[3]);
/* q <- exp(h w / 2) q, the exact rotation by angle h |w| about w (world frame), normalized. */
void SimQuatIntegrate(PetscReal q[4], const PetscReal w[3], PetscReal h);
/* The world inverse inertia R Ib^-1 R^T (0 for a static body) and the world inertia R Ib R^T. */
void SimRigidInverseInertia(const SimRigidBody *b, PetscReal Iinv[9]);
void SimRigidInertia(const SimRigidBody *b, PetscReal Iw[9]);
/* Free rotation over h that keeps the world angular momentum L = I(q) w exactly: q turns by the
 * midpoint angular velocity I(q_mid)^-1 L, then w = I(q_{n+1})^-1 L. The gyroscopic term w x I w
 * is in it (a body spinning about its intermediate axis tumbles). */
void SimRigidFreeRotate(SimRigidBody *b, PetscReal h);
/* Total angular momentum about the origin, sum x_i x m_i v_i + I_i w_i (kg m^2/s). */
void SimRigidAngularMomentum(const SimRigidBodies *bodies, PetscReal L[3]);
