/* A convex hull body dropped on a slope (the "rigid" problem type): the hull of a mesh's vertices
 * (-hull_mesh, any format SimMeshRead reads) or, without one, of a fixed set of points on an
 * ellipsoid; its mass, centre and inertia are the hull's (problems/rigid/mass.h). docs/rigid.md. */
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

PetscErrorCode SimSceneCreate_Hull(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_Hull;
  PetscFunctionReturn(0);
}
