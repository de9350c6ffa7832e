/* Rigid-body scenes (the "rigid" problem type): a free spinning box, a bouncing box, a box on a
 * slope, a stack of boxes, Newton's cradle and a chain of linked bodies. docs/rigid.md. */
#include "scenes/scenes.h"
#include "problems/rigid/rigid.h"

/* -spin_axis major|intermediate|minor: a free box with half extents 1 x 2 x 3 (x is the major
 * axis, y the intermediate, z the minor) spinning at -spin_rate about one principal axis, the
 * others perturbed by -spin_perturbation of it; no gravity. */
static PetscErrorCode Build_Spin(SimScene scene, SimProblem p)
{
  static const char *const axes[] = {"major", "intermediate", "minor"};
  PetscInt axis = 1;
  PetscReal rate = 2, eps = 1e-3, size[3] = {0.1, 0.2, 0.3}, x[3] = {0, 0, 0};
  SimRigidBodies *B;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_SELF, "spin_", "Free spinning box", "");
  PetscCall(PetscOptionsEList("-axis", "principal axis of the spin", "", axes, 3, axes[axis], &axis, NULL));
  PetscCall(PetscOptionsReal("-rate", "angular speed (rad/s)", "", rate, &rate, NULL));
  PetscCall(PetscOptionsReal("-perturbation", "the other components, as a fraction of the rate", "", eps, &eps, NULL));
  PetscOptionsEnd();
  PetscCall(SimRigidProblemAddBody(p, SIM_RIGID_BOX, size, 1000, x, NULL, 0, 0, "spin box", NULL));
  PetscCall(SimRigidProblemGetBodies(p, &B));
  for (int d = 0; d < 3; d++) B->body[0].w[d] = (d == axis ? 1 : eps) * rate;
  B->gravity[0] = B->gravity[1] = B->gravity[2] = 0;
  PetscFunctionReturn(0);
}

/* A box of side 0.2 m dropped flat from -bounce_height (its bottom face) on the ground plane, both
 * with restitution -bounce_restitution. */
static PetscErrorCode Build_Bounce(SimScene scene, SimProblem p)
{
  PetscReal H = 1, e = 0.5, half[3] = {0.1, 0.1, 0.1}, x[3] = {0, 0, 0}, o[3] = {0, 0, 0}, n[3] = {0, 1, 0};

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_SELF, "bounce_", "Bouncing box", "");
  PetscCall(PetscOptionsReal("-height", "drop height of the bottom face (m)", "", H, &H, NULL));
  PetscCall(PetscOptionsReal("-restitution", "coefficient of restitution e of the box and the ground", "", e, &e, NULL));
  PetscOptionsEnd();
  PetscCheck(H > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-bounce_height must be > 0 (got %g m)", (double)H);
  x[1] = H + half[1];
  PetscCall(SimRigidProblemAddBody(p, SIM_RIGID_BOX, half, 500, x, NULL, 0.5, e, "-bounce_restitution", NULL));
  PetscCall(SimRigidProblemAddPlane(p, o, n, 0.5, e));
  PetscFunctionReturn(0);
}

/* A box resting on a plane tilted by -slope_angle degrees about z, Coulomb friction -slope_friction
 * (box and plane). It sticks when tan(angle) < mu and slides with a = g (sin - mu cos) otherwise. */
static PetscErrorCode Build_Slope(SimScene scene, SimProblem p)
{
  PetscReal deg = 20, mu = 0.5, half[3] = {0.2, 0.1, 0.2}, x[3], q[4], o[3] = {0, 0, 0}, n[3], th;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_SELF, "slope_", "Box on a slope", "");
  PetscCall(PetscOptionsReal("-angle", "inclination (degrees, in [0, 80])", "", deg, &deg, NULL));
  PetscCall(PetscOptionsReal("-friction", "Coulomb coefficient mu", "", mu, &mu, NULL));
  PetscOptionsEnd();
  PetscCheck(deg >= 0 && deg <= 80, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-slope_angle must be in [0, 80] degrees (got %g)", (double)deg);
  th = deg * PETSC_PI / 180;
  n[0] = -PetscSinReal(th), n[1] = PetscCosReal(th), n[2] = 0;
  q[0] = PetscCosReal(th / 2), q[1] = q[2] = 0, q[3] = PetscSinReal(th / 2);
  for (int d = 0; d < 3; d++) x[d] = (half[1] + 1e-4) * n[d];
  PetscCall(SimRigidProblemAddBody(p, SIM_RIGID_BOX, half, 500, x, q, mu, 0, "-slope_friction", NULL));
  PetscCall(SimRigidProblemAddPlane(p, o, n, mu, 0));
  PetscFunctionReturn(0);
}

/* -stack_n boxes of side 0.2 m stacked on the ground with 1 mm gaps. */
static PetscErrorCode Build_Stack(SimScene scene, SimProblem p)
{
  PetscInt n = 10;
  PetscReal half[3] = {0.1, 0.1, 0.1}, o[3] = {0, 0, 0}, up[3] = {0, 1, 0}, mu = 0.6;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_SELF, "stack_", "Stack of boxes", "");
  PetscCall(PetscOptionsInt("-n", "number of boxes (>= 1)", "", n, &n, NULL));
  PetscCall(PetscOptionsReal("-friction", "Coulomb coefficient mu", "", mu, &mu, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 1 && n <= 1000, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-stack_n must be in [1, 1000] (got %" PetscInt_FMT ")", n);
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal x[3] = {0, half[1] + i * (2 * half[1] + 1e-3) + 1e-3, 0};
    PetscCall(SimRigidProblemAddBody(p, SIM_RIGID_BOX, half, 500, x, NULL, mu, 0, "stack box", NULL));
  }
  PetscCall(SimRigidProblemAddPlane(p, o, up, mu, 0));
  PetscFunctionReturn(0);
}

/* Newton's cradle: -cradle_n steel spheres (radius 0.05 m, restitution 1, no friction) hanging on
 * rigid rods (ball joints to the world, 0.5 m above their centres), 0.1 mm apart; the first one
 * swings in at -cradle_speed. */
static PetscErrorCode Build_Cradle(SimScene scene, SimProblem p)
{
  PetscInt n = 5;
  PetscReal r = 0.05, L = 0.5, gap = 1e-4, speed = 1, size[3], anchor[3] = {0, 0, 0}, world[3];
  SimRigidBodies *B;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_SELF, "cradle_", "Newton's cradle", "");
  PetscCall(PetscOptionsInt("-n", "number of spheres (>= 2)", "", n, &n, NULL));
  PetscCall(PetscOptionsReal("-speed", "speed of the first sphere at the bottom (m/s)", "", speed, &speed, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 2 && n <= 100, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cradle_n must be in [2, 100] (got %" PetscInt_FMT ")", n);
  size[0] = size[1] = size[2] = r;
  anchor[1] = L;
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal x[3] = {i * (2 * r + gap), 0, 0};
    PetscInt id;
    PetscCall(SimRigidProblemAddBody(p, SIM_RIGID_SPHERE, size, 7800, x, NULL, 0, 1, "cradle sphere", &id));
    world[0] = x[0], world[1] = L, world[2] = 0;
    PetscCall(SimRigidProblemAddJoint(p, SIM_JOINT_BALL, id, -1, anchor, world, NULL, NULL));
  }
  PetscCall(SimRigidProblemGetBodies(p, &B));
  B->body[0].v[0] = speed;
  B->body[0].w[2] = speed / L; /* the rod turns with the sphere: v = w x (0, -L, 0) */
  PetscFunctionReturn(0);
}

/* A chain of -chain_n links (boxes 0.2 x 0.04 x 0.04 m) joined end to end by -chain_joint joints
 * (ball, hinges about z, or fixed), the first one joined to the world; it starts horizontal and
 * swings down. -chain_limit: each hinge turns at most that many degrees from the start. */
static PetscErrorCode Build_Chain(SimScene scene, SimProblem p)
{
  static const char *const types[] = {"ball", "hinge", "fixed"};
  PetscInt n = 20, type = 0;
  PetscReal half[3] = {0.1, 0.02, 0.02}, zaxis[3] = {0, 0, 1}, limit = 0;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_SELF, "chain_", "Chain of linked bodies", "");
  PetscCall(PetscOptionsInt("-n", "number of links (>= 1)", "", n, &n, NULL));
  PetscCall(PetscOptionsEList("-joint", "joint between links", "", types, 3, types[type], &type, NULL));
  PetscCall(PetscOptionsReal("-limit", "hinges: each turns at most this far either way (degrees, in (0, 180); 0: no limit)", "", limit, &limit, NULL));
  PetscOptionsEnd();
  PetscCheck(limit >= 0 && limit < 180, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-chain_limit must be in [0, 180) degrees (got %g)", (double)limit);
  PetscCheck(n >= 1 && n <= 10000, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-chain_n must be in [1, 10000] (got %" PetscInt_FMT ")", n);
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal x[3] = {(2 * i + 1) * half[0], 0, 0};
    const PetscReal left[3] = {-half[0], 0, 0}, right[3] = {half[0], 0, 0}, origin[3] = {0, 0, 0};
    PetscInt id;
    PetscCall(SimRigidProblemAddBody(p, SIM_RIGID_BOX, half, 500, x, NULL, 0.3, 0, "chain link", &id));
    if (i == 0) PetscCall(SimRigidProblemAddJoint(p, (SimJointType)type, id, -1, left, origin, zaxis, zaxis));
    else PetscCall(SimRigidProblemAddJoint(p, (SimJointType)type, id, id - 1, left, right, zaxis, zaxis));
    if (limit > 0 && type == SIM_JOINT_HINGE) PetscCall(SimRigidProblemSetHingeLimits(p, i, -limit * PETSC_PI / 180, limit * PETSC_PI / 180));
  }
  PetscFunctionReturn(0);
}

#define SCENE(Name)                                   \
  PetscErrorCode SimSceneCreate_##Name(SimScene scene) \
  {                                                   \
    PetscFunctionBeginUser;                           \
    scene->ops.build = Build_##Name;                  \
    PetscFunctionReturn(0);                           \
  }
SCENE(Spin)
SCENE(Bounce)
SCENE(Slope)
SCENE(Stack)
SCENE(Cradle)
SCENE(Chain)
