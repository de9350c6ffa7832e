/* Convex hull bodies (the "rigid" problem type). `hull`: a hull dropped on a slope, the hull of a
 * mesh's vertices (-hull_mesh, any format SimMeshRead reads) or, without one, of a fixed set of
 * points on an ellipsoid; its mass, centre and inertia are the hull's (problems/rigid/mass.h).
 * `hulls`: five hulls tumbling onto a static box ramp and the ground. docs/rigid.md. */
#include "scenes/scenes.h"
#include "problems/rigid/rigid.h"
#include "framework/mesh/mesh.h"

/* 40 points on the ellipsoid of semi-axes 0.25, 0.15, 0.1 m along a Fibonacci spiral (an irregular
 * hull: its principal axes are turned from the mesh frame by the points' spacing). */
static void Ellipsoid(PetscInt n, PetscReal *x)
{
  const PetscReal ax[3] = {0.25, 0.15, 0.1}, golden = PETSC_PI * (3 - PetscSqrtReal(5));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal y = 1 - 2 * (i + 0.5) / n, r = PetscSqrtReal(1 - y * y), th = golden * i;
    x[3 * i] = ax[0] * r * PetscCosReal(th), x[3 * i + 1] = ax[1] * y, x[3 * i + 2] = ax[2] * r * PetscSinReal(th);
  }
}

static PetscErrorCode Build_Hull(SimScene scene, SimProblem p)
{
  char path[PETSC_MAX_PATH_LEN] = "";
  PetscReal deg = 20, mu = 0.5, height = 0.3, scale = 1, o[3] = {0, 0, 0}, n[3], th, x[3] = {0, 0, 0}, pts[3 * 40];
  PetscBool set;
  SimMesh mesh = {0};

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_SELF, "hull_", "Convex hull on a slope", "");
  PetscCall(PetscOptionsString("-mesh", "mesh whose vertices' hull is the body (.obj, .msh, .node); none: points on an ellipsoid", "", path, path, sizeof(path), &set));
  PetscCall(PetscOptionsReal("-scale", "scale of the mesh's coordinates (m per unit)", "", scale, &scale, NULL));
  PetscCall(PetscOptionsReal("-slope", "inclination of the ground (degrees, in [0, 80])", "", deg, &deg, NULL));
  PetscCall(PetscOptionsReal("-friction", "Coulomb coefficient mu of the body and the ground", "", mu, &mu, NULL));
  PetscCall(PetscOptionsReal("-height", "drop height of the mesh frame's origin above the ground (m)", "", height, &height, NULL));
  PetscOptionsEnd();
  PetscCheck(deg >= 0 && deg <= 80, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hull_slope must be in [0, 80] degrees (got %g)", (double)deg);
  PetscCheck(scale > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hull_scale must be > 0 (got %g)", (double)scale);
  th = deg * PETSC_PI / 180;
  n[0] = -PetscSinReal(th), n[1] = PetscCosReal(th), n[2] = 0;
  for (int d = 0; d < 3; d++) x[d] = height * n[d];
  if (set && path[0]) {
    PetscCall(SimMeshRead(PETSC_COMM_SELF, path, &mesh));
    for (PetscInt k = 0; k < 3 * mesh.nv; k++) mesh.xyz[k] *= scale;
    PetscCall(SimRigidProblemAddHull(p, mesh.nv, mesh.xyz, 500, x, NULL, mu, 0.2, "-hull_mesh", NULL));
    PetscCall(SimMeshFree(&mesh));
  } else {
    Ellipsoid(40, pts);
    PetscCall(SimRigidProblemAddHull(p, 40, pts, 500, x, NULL, mu, 0.2, "hull", NULL));
  }
  PetscCall(SimRigidProblemAddPlane(p, o, n, mu, 0.2));
  PetscFunctionReturn(0);
}

/* -hulls: a tetrahedron, an octahedron, a hexagonal prism, a cube and the ellipsoid's hull, each
 * turned, dropped onto a static box tilted by -hulls_ramp degrees over the ground: they land on the
 * ramp and on each other and tumble off onto the ground (every hull pair of the narrow phase:
 * hull-hull, hull-box, hull-plane). */
static PetscErrorCode Build_Hulls(SimScene scene, SimProblem p)
{
  const PetscReal s3 = 1 / PetscSqrtReal(3.0);
  const PetscReal tet[12] = {0.12 * s3, 0.12 * s3, 0.12 * s3, 0.12 * s3, -0.12 * s3, -0.12 * s3, -0.12 * s3, 0.12 * s3, -0.12 * s3, -0.12 * s3, -0.12 * s3, 0.12 * s3};
  const PetscReal oct[18] = {0.12, 0, 0, -0.12, 0, 0, 0, 0.12, 0, 0, -0.12, 0, 0, 0, 0.12, 0, 0, -0.12};
  const PetscReal ramp[3] = {0.6, 0.05, 0.4}, o[3] = {0, 0, 0}, up[3] = {0, 1, 0};
  PetscReal deg = 20, mu = 0.4, e = 0.2, prism[36], cube[24], ell[3 * 40], th, q[4], x[3];
  const PetscReal *pts[5] = {tet, oct, prism, cube, ell};
  const PetscInt np[5] = {4, 6, 12, 8, 40};
  const char *const what[5] = {"tetrahedron", "octahedron", "hexagonal prism", "cube", "ellipsoid hull"};

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_SELF, "hulls_", "Convex hulls onto a ramp", "");
  PetscCall(PetscOptionsReal("-ramp", "inclination of the static box ramp (degrees, in [0, 60])", "", deg, &deg, NULL));
  PetscCall(PetscOptionsReal("-friction", "Coulomb coefficient mu of the bodies, the ramp and the ground", "", mu, &mu, NULL));
  PetscCall(PetscOptionsReal("-restitution", "coefficient of restitution e of the bodies, the ramp and the ground", "", e, &e, NULL));
  PetscOptionsEnd();
  PetscCheck(deg >= 0 && deg <= 60, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hulls_ramp must be in [0, 60] degrees (got %g)", (double)deg);
  for (int k = 0; k < 12; k++) {
    const PetscReal a = PETSC_PI * (k % 6) / 3;
    prism[3 * k] = 0.1 * PetscCosReal(a), prism[3 * k + 1] = k < 6 ? -0.06 : 0.06, prism[3 * k + 2] = 0.1 * PetscSinReal(a);
  }
  for (int k = 0; k < 8; k++)
    for (int d = 0; d < 3; d++) cube[3 * k + d] = (k >> d & 1 ? 0.08 : -0.08);
  Ellipsoid(40, ell);
  for (int k = 0; k < 3 * 40; k++) ell[k] *= 0.6;
  th = deg * PETSC_PI / 180;
  q[0] = PetscCosReal(th / 2), q[1] = q[2] = 0, q[3] = PetscSinReal(th / 2);
  x[0] = 0, x[1] = 0.35, x[2] = 0;
  PetscCall(SimRigidProblemAddBody(p, SIM_RIGID_BOX, ramp, 0, x, q, mu, e, "ramp", NULL));
  for (int b = 0; b < 5; b++) {
    /* over the ramp's upper half, 0.2 m apart in height, each turned about its own axis */
    const PetscReal ax[3] = {PetscCosReal(1.3 * b), 0.7, PetscSinReal(1.3 * b)}, ang = 0.4 + 0.5 * b;
    const PetscReal na = PetscSqrtReal(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    PetscReal qb[4], xb[3];
    qb[0] = PetscCosReal(ang / 2);
    for (int d = 0; d < 3; d++) qb[d + 1] = PetscSinReal(ang / 2) * ax[d] / na;
    xb[0] = 0.3 - 0.12 * (b % 3), xb[1] = 0.7 + 0.2 * b, xb[2] = 0.15 * ((b % 2) ? 1 : -1);
    PetscCall(SimRigidProblemAddHull(p, np[b], pts[b], 500, xb, qb, mu, e, what[b], NULL));
  }
  PetscCall(SimRigidProblemAddPlane(p, o, up, mu, e));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Hulls(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_Hulls;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Hull(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_Hull;
  PetscFunctionReturn(0);
}
