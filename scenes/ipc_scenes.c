/* IPC contact scenes (docs/ipc.md), by generator: elastic bodies dropped on an IPC ground plane with
 * self contact between them. squishy_ball: one soft ball; ipc_stack: a column of bodies (balls, or
 * copies of a tet mesh file such as ../shared/meshes/armadillo_4k.msh) that land on each other.
 * Both default to -colliders ipc with -ipc_plane on and the neo-Hookean material. */
#include "scenes/scenes.h"
#include "scenes/fem_body.h"

/* Sets an option unless the user did. */
static PetscErrorCode Default(const char *name, const char *value)
{
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, name, value));
  PetscFunctionReturn(0);
}

/* A ball of radius r centred at c: an n^3 box of Kuhn tets mapped onto the ball (the cube-to-sphere
 * map x sqrt(1 - y^2/2 - z^2/2 + y^2 z^2 / 3), smooth and one-to-one, keeps every tet positive for
 * the n used here; checked below). */
static PetscErrorCode Ball(PetscInt n, PetscReal r, const PetscReal c[3], SimMesh *mesh)
{
  const PetscInt cells[3] = {n, n, n};
  const PetscReal lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};

  PetscFunctionBeginUser;
  PetscCall(SimMeshCreateBox(cells, lo, hi, mesh));
  for (PetscInt i = 0; i < mesh->nv; i++) {
    PetscReal *p = mesh->xyz + 3 * i, x = p[0], y = p[1], z = p[2];
    p[0] = c[0] + r * x * PetscSqrtReal(1 - y * y / 2 - z * z / 2 + y * y * z * z / 3);
    p[1] = c[1] + r * y * PetscSqrtReal(1 - z * z / 2 - x * x / 2 + z * z * x * x / 3);
    p[2] = c[2] + r * z * PetscSqrtReal(1 - x * x / 2 - y * y / 2 + x * x * y * y / 3);
  }
  for (PetscInt t = 0; t < mesh->ntet; t++) {
    const PetscInt *v = mesh->tet + 4 * t;
    PetscReal a[3], b[3], e[3], det;
    for (int d = 0; d < 3; d++)
      a[d] = mesh->xyz[3 * v[1] + d] - mesh->xyz[3 * v[0] + d], b[d] = mesh->xyz[3 * v[2] + d] - mesh->xyz[3 * v[0] + d],
      e[d] = mesh->xyz[3 * v[3] + d] - mesh->xyz[3 * v[0] + d];
    det = a[0] * (b[1] * e[2] - b[2] * e[1]) - a[1] * (b[0] * e[2] - b[2] * e[0]) + a[2] * (b[0] * e[1] - b[1] * e[0]);
    PetscCheck(det > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ball tet %" PetscInt_FMT " is inverted by the cube-to-ball map", t);
  }
  PetscFunctionReturn(0);
}

/* Appends b to a (vertices and tets; triangles are dropped: the FEM body takes its boundary). */
static PetscErrorCode Append(SimMesh *a, const SimMesh *b)
{
  PetscReal *xyz;
  PetscInt *tet;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(3 * (a->nv + b->nv), &xyz));
  PetscCall(PetscMalloc1(4 * (a->ntet + b->ntet), &tet));
  if (a->nv) PetscCall(PetscArraycpy(xyz, a->xyz, 3 * a->nv));
  PetscCall(PetscArraycpy(xyz + 3 * a->nv, b->xyz, 3 * b->nv));
  if (a->ntet) PetscCall(PetscArraycpy(tet, a->tet, 4 * a->ntet));
  for (PetscInt k = 0; k < 4 * b->ntet; k++) tet[4 * a->ntet + k] = b->tet[k] + a->nv;
  PetscCall(PetscFree(a->xyz));
  PetscCall(PetscFree(a->tet));
  PetscCall(PetscFree(a->tri));
  a->xyz = xyz, a->tet = tet, a->ntri = 0;
  a->nv += b->nv, a->ntet += b->ntet;
  PetscFunctionReturn(0);
}

/* count bodies in a column: body k's lowest point at gap + k (size + gap) above the ground. */
static PetscErrorCode BuildColumn(SimScene scene, SimProblem problem, const char *prefix, PetscInt count, PetscReal size, PetscReal gap,
                                  PetscInt n, const char *file)
{
  SimModel model;
  SimMesh all = {0}, body = {0};
  char opt[64];

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  PetscCall(SimMeshProblemSetDefaultColliders(problem, "ipc"));
  model->replicated_state = PETSC_TRUE; /* IPC's contact terms need every vertex on every rank */
  PetscCall(Default("-ipc_plane", "1"));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%smaterial", prefix));
  PetscCall(Default(opt, "neohookean"));
  PetscCall(Default("-newton_vtol_rel", "1e-2"));
  for (PetscInt k = 0; k < count; k++) {
    PetscReal lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL}, s, c[3];
    if (file[0]) {
      PetscCall(SimMeshRead(model->comm, file, &body));
      PetscCheck(body.ntet > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-%smesh %s: a tetrahedral mesh is needed", prefix, file);
    } else {
      const PetscReal o[3] = {0, 0, 0};
      PetscCall(Ball(n, 1, o, &body));
    }
    for (PetscInt i = 0; i < body.nv; i++)
      for (int d = 0; d < 3; d++) lo[d] = PetscMin(lo[d], body.xyz[3 * i + d]), hi[d] = PetscMax(hi[d], body.xyz[3 * i + d]);
    s = size / PetscMax(hi[0] - lo[0], PetscMax(hi[1] - lo[1], hi[2] - lo[2]));
    /* centred over the origin, alternately turned a little so that the bodies do not land flush */
    c[0] = 0.5 * (lo[0] + hi[0]), c[1] = lo[1], c[2] = 0.5 * (lo[2] + hi[2]);
    for (PetscInt i = 0; i < body.nv; i++) {
      PetscReal *p = body.xyz + 3 * i, x = s * (p[0] - c[0]), y = s * (p[1] - c[1]), z = s * (p[2] - c[2]);
      const PetscReal th = 0.3 * k, ct = PetscCosReal(th), st = PetscSinReal(th);
      p[0] = ct * x + st * z, p[1] = y + gap + k * (size + gap), p[2] = -st * x + ct * z;
    }
    PetscCall(Append(&all, &body));
    PetscCall(SimMeshFree(&body));
  }
  PetscCall(SimSceneAddFEMBody(scene, model, &all, prefix, "neohookean", 1e5));
  PetscCall(SimMeshFree(&all));
  PetscFunctionReturn(0);
}

static PetscErrorCode Build_SquishyBall(SimScene scene, SimProblem problem)
{
  SimModel model;
  PetscReal radius = 0.1, height = 0.05;
  PetscInt n = 4;

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  PetscOptionsBegin(model->comm, "squishy_ball_", "Squishy ball scene", "");
  PetscCall(PetscOptionsReal("-radius", "radius (m)", "", radius, &radius, NULL));
  PetscCall(PetscOptionsReal("-height", "height of its lowest point above the ground (m)", "", height, &height, NULL));
  PetscCall(PetscOptionsInt("-n", "cells across (of the cube mapped onto the ball)", "", n, &n, NULL));
  PetscOptionsEnd();
  PetscCheck(radius > 0 && height > 0 && n >= 1 && n <= 40, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-squishy_ball_radius and -squishy_ball_height must be > 0, -squishy_ball_n in [1, 40]");
  PetscCall(BuildColumn(scene, problem, "squishy_ball_", 1, 2 * radius, height, n, ""));
  PetscFunctionReturn(0);
}

static PetscErrorCode Build_Stack(SimScene scene, SimProblem problem)
{
  SimModel model;
  PetscReal size = 0.2, gap = 0.02;
  PetscInt count = 3, n = 3;
  char file[PETSC_MAX_PATH_LEN] = "";

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  PetscOptionsBegin(model->comm, "ipc_stack_", "IPC stack scene", "");
  PetscCall(PetscOptionsInt("-count", "bodies in the column", "", count, &count, NULL));
  PetscCall(PetscOptionsReal("-size", "each body's largest extent (m)", "", size, &size, NULL));
  PetscCall(PetscOptionsReal("-gap", "the gap under each body (m)", "", gap, &gap, NULL));
  PetscCall(PetscOptionsInt("-n", "cells across a generated ball", "", n, &n, NULL));
  PetscCall(PetscOptionsString("-mesh", "a tet mesh for every body (e.g. ../shared/meshes/armadillo_4k.msh); default: balls", "", file, file,
                               sizeof(file), NULL));
  PetscOptionsEnd();
  PetscCheck(count >= 1 && count <= 100 && size > 0 && gap > 0 && n >= 1 && n <= 40, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-ipc_stack_count in [1, 100], -ipc_stack_size and -ipc_stack_gap > 0, -ipc_stack_n in [1, 40]");
  PetscCall(BuildColumn(scene, problem, "ipc_stack_", count, size, gap, n, file));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_SquishyBall(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_SquishyBall;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_IPCStack(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_Stack;
  PetscFunctionReturn(0);
}
