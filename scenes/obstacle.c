/* Obstacle surfaces for the particle-fluid scenes (shell.h): the built-in box and cylinder, or a
 * mesh file, placed by its bounding box. */
#include "scenes/shell.h"
#include "framework/mesh/mesh.h"

#define SEGMENTS 64 /* around the cylinder: a multiple of 4, so that its bounding box is the circle's */

static PetscErrorCode Alloc(SimShell *s, PetscInt dim, PetscInt nv, PetscInt nf)
{
  PetscFunctionBeginUser;
  s->dim = dim, s->nv = nv, s->nf = nf;
  PetscCall(PetscMalloc1(dim * nv, &s->x));
  PetscCall(PetscMalloc1(dim * nf, &s->face));
  PetscFunctionReturn(0);
}

/* The unit square [-1/2, 1/2]^2 or cube, faces outward (counter-clockwise seen from outside). */
static PetscErrorCode Box(PetscInt dim, SimShell *s)
{
  PetscFunctionBeginUser;
  if (dim == 2) {
    static const PetscInt seg[8] = {0, 1, 1, 3, 3, 2, 2, 0};
    PetscCall(Alloc(s, 2, 4, 4));
    for (PetscInt c = 0; c < 4; c++) s->x[2 * c] = (c & 1) - 0.5, s->x[2 * c + 1] = ((c >> 1) & 1) - 0.5;
    for (PetscInt k = 0; k < 8; k++) s->face[k] = seg[k];
  } else { /* corner c at ((c & 1), (c >> 1) & 1, (c >> 2) & 1) - 1/2; two triangles per side */
    static const PetscInt tri[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    PetscCall(Alloc(s, 3, 8, 12));
    for (PetscInt c = 0; c < 8; c++)
      for (PetscInt d = 0; d < 3; d++) s->x[3 * c + d] = ((c >> d) & 1) - 0.5;
    for (PetscInt k = 0; k < 36; k++) s->face[k] = tri[k];
  }
  PetscFunctionReturn(0);
}

/* The circle of unit diameter (SEGMENTS segments), or the cylinder over it from z = -1/2 to 1/2
 * with its two caps fanned from their centres. */
static PetscErrorCode Cylinder(PetscInt dim, SimShell *s)
{
  const PetscInt N = SEGMENTS;

  PetscFunctionBeginUser;
  if (dim == 2) {
    PetscCall(Alloc(s, 2, N, N));
    for (PetscInt k = 0; k < N; k++) {
      s->x[2 * k] = 0.5 * PetscCosReal(2 * PETSC_PI * k / N), s->x[2 * k + 1] = 0.5 * PetscSinReal(2 * PETSC_PI * k / N);
      s->face[2 * k] = k, s->face[2 * k + 1] = (k + 1) % N;
    }
    PetscFunctionReturn(0);
  }
  /* vertices: ring k at z = -1/2 (k), at z = 1/2 (N + k), the caps' centres 2N and 2N + 1 */
  PetscCall(Alloc(s, 3, 2 * N + 2, 4 * N));
  for (PetscInt k = 0; k < N; k++)
    for (PetscInt e = 0; e < 2; e++) {
      PetscReal *p = s->x + 3 * (e * N + k);
      p[0] = 0.5 * PetscCosReal(2 * PETSC_PI * k / N), p[1] = 0.5 * PetscSinReal(2 * PETSC_PI * k / N), p[2] = e - 0.5;
    }
  for (PetscInt e = 0; e < 2; e++) s->x[3 * (2 * N + e)] = s->x[3 * (2 * N + e) + 1] = 0, s->x[3 * (2 * N + e) + 2] = e - 0.5;
  for (PetscInt k = 0; k < N; k++) {
    const PetscInt k1 = (k + 1) % N;
    const PetscInt t[12] = {k, k1, N + k, k1, N + k1, N + k, 2 * N, k1, k, 2 * N + 1, N + k, N + k1};
    for (PetscInt q = 0; q < 12; q++) s->face[12 * k + q] = t[q];
  }
  PetscFunctionReturn(0);
}

/* The built-in shapes: a name and its unit-size maker. */
static const struct {
  const char *name;
  PetscErrorCode (*make)(PetscInt, SimShell *);
} builtins[] = {
  {"box",      Box     },
  {"cylinder", Cylinder},
};
const char SimObstacleBuiltins[] = "box, cylinder";

/* A mesh file's triangles (or its tetrahedra's boundary faces) as a 3D surface. */
static PetscErrorCode FromFile(const char *option, const char *path, SimShell *s)
{
  SimMesh mesh = {0};
  PetscInt nf, *faces = NULL;

  PetscFunctionBeginUser;
  PetscCall(SimMeshRead(PETSC_COMM_SELF, path, &mesh));
  if (mesh.ntri) {
    nf = mesh.ntri;
    PetscCall(PetscMalloc1(3 * nf, &faces));
    PetscCall(PetscArraycpy(faces, mesh.tri, 3 * nf));
  } else if (mesh.ntet) PetscCall(SimMeshBoundaryFaces(&mesh, &nf, &faces));
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: mesh file '%s' has no triangles or tetrahedra", option, path);
  s->dim = 3, s->nv = mesh.nv, s->nf = nf, s->face = faces;
  s->x = mesh.xyz, mesh.xyz = NULL;
  PetscCall(SimMeshFree(&mesh));
  PetscFunctionReturn(0);
}

PetscErrorCode SimObstacleCreate(const char *option, const char *name, PetscInt dim, const PetscReal center[3], const PetscReal size[3], SimShell *s)
{
  PetscBool found = PETSC_FALSE, closed;
  PetscReal c[3], ext = 0;
  char why[256];

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  for (size_t k = 0; k < sizeof(builtins) / sizeof(builtins[0]); k++)
    if (!strcmp(name, builtins[k].name)) {
      PetscCall(builtins[k].make(dim, s));
      found = PETSC_TRUE;
    }
  if (!found) {
    PetscBool exists;
    PetscCall(PetscTestFile(name, 'r', &exists));
    PetscCheck(exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s: '%s' is neither a built-in obstacle (%s, none) nor a readable mesh file", option, name,
               SimObstacleBuiltins);
    PetscCheck(dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: a mesh file obstacle ('%s') needs a 3D scene (built-in obstacles in 2D: %s)", option, name,
               SimObstacleBuiltins);
    PetscCall(FromFile(option, name, s));
  }
  for (PetscInt d = 0; d < dim; d++)
    PetscCheck(size[d] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s_size: every extent must be > 0 (got %g along axis %" PetscInt_FMT ")", option,
               (double)size[d], d);
  PetscCall(SimShellIsClosed(s, &closed, why, sizeof(why)));
  if (!closed) {
    PetscCall(SimShellFree(s));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the obstacle '%s' is not a closed surface (%s); a fluid obstacle must enclose its inside", option, name, why);
  }
  /* centred on its bounding box, largest extent 1, then size and centre */
  SimShellBounds(s);
  for (PetscInt d = 0; d < dim; d++) c[d] = 0.5 * (s->lo[d] + s->hi[d]), ext = PetscMax(ext, s->hi[d] - s->lo[d]);
  PetscCheck(ext > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the obstacle '%s' has no extent", option, name);
  for (PetscInt i = 0; i < s->nv; i++)
    for (PetscInt d = 0; d < dim; d++) s->x[dim * i + d] = center[d] + size[d] * (s->x[dim * i + d] - c[d]) / ext;
  SimShellBounds(s);
  PetscFunctionReturn(0);
}
