/* The lattice scene: an n^3 spring cube (structural, face-shear and bending springs) dropped on a
 * ground plane; its surface quads are output as triangles. */
#include "scenes/scenes.h"
#include "framework/sizes.h"
#include "energies/springs.h"

/* Appends the 2 triangles of every boundary quad of the n^3 grid, outward-oriented. */
static PetscErrorCode SurfaceTriangles(PetscInt n, PetscInt *ntri, PetscInt **tri)
{
#define V(i, j, k) (((k) * n + (j)) * n + (i))
  PetscInt *t, c = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(6 * 2 * 3 * (n - 1) * (n - 1), &t));
  for (PetscInt a = 0; a + 1 < n; a++)
    for (PetscInt b = 0; b + 1 < n; b++) {
      /* each face: its quad corners q0..q3 in counter-clockwise order seen from outside */
      PetscInt q[6][4] = {
        {V(0, a, b), V(0, a, b + 1), V(0, a + 1, b + 1), V(0, a + 1, b)},                 /* x = 0 */
        {V(n - 1, a, b), V(n - 1, a + 1, b), V(n - 1, a + 1, b + 1), V(n - 1, a, b + 1)}, /* x = 1 */
        {V(a, 0, b), V(a + 1, 0, b), V(a + 1, 0, b + 1), V(a, 0, b + 1)},                 /* y = 0 */
        {V(a, n - 1, b), V(a, n - 1, b + 1), V(a + 1, n - 1, b + 1), V(a + 1, n - 1, b)}, /* y = 1 */
        {V(a, b, 0), V(a, b + 1, 0), V(a + 1, b + 1, 0), V(a + 1, b, 0)},                 /* z = 0 */
        {V(a, b, n - 1), V(a + 1, b, n - 1), V(a + 1, b + 1, n - 1), V(a, b + 1, n - 1)}, /* z = 1 */
      };
      for (int f = 0; f < 6; f++) {
        t[c++] = q[f][0], t[c++] = q[f][1], t[c++] = q[f][2];
        t[c++] = q[f][0], t[c++] = q[f][2], t[c++] = q[f][3];
      }
    }
  *ntri = c / 3;
  *tri = t;
  PetscFunctionReturn(0);
#undef V
}

static PetscErrorCode Build_Lattice(SimScene scene, SimProblem problem)
{
  SimModel model;
  PetscInt n = 6, ntri = 0, *tri = NULL;
  PetscReal size = 0.5, height = 0.5, density = 100, k = 5e3, kd = 0, h;
  PetscReal *xyz;
  SimSpringList springs = {0};

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  PetscCall(SimMeshProblemSetDefaultColliders(problem, "plane"));
  PetscOptionsBegin(model->comm, "lattice_", "Lattice scene", "");
  PetscCall(PetscOptionsInt("-n", "vertices along each side", "", n, &n, NULL));
  PetscCall(PetscOptionsReal("-size", "side length (m)", "", size, &size, NULL));
  PetscCall(PetscOptionsReal("-height", "height of the bottom face above the ground (m)", "", height, &height, NULL));
  PetscCall(PetscOptionsReal("-density", "density (kg/m^3)", "", density, &density, NULL));
  PetscCall(PetscOptionsReal("-k", "structural stiffness (N/m); shear k/2, bending k/4", "", k, &k, NULL));
  PetscCall(PetscOptionsReal("-damping", "damping along every spring (N s/m)", "", kd, &kd, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_n must be >= 2 (got %" PetscInt_FMT ")", n);
  PetscCheck(size > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_size must be > 0 (got %g)", (double)size);
  PetscCheck(density > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_density must be > 0 (got %g)", (double)density);
  PetscCheck(k >= 0 && kd >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-lattice_k and -lattice_damping must be >= 0");

  {
    char opts[64];
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-lattice_n %" PetscInt_FMT, n));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "vertices", (PetscReal)n * n * n, 3));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "surface triangles", 12.0 * (n - 1) * (n - 1), 3));
  }
  h = size / (n - 1);
  PetscCall(PetscMalloc1(3 * n * n * n, &xyz));
#define V(i, j, k) (((k) * n + (j)) * n + (i))
  for (PetscInt c = 0; c < n; c++)
    for (PetscInt b = 0; b < n; b++)
      for (PetscInt a = 0; a < n; a++) {
        PetscReal *p = xyz + 3 * V(a, b, c);
        p[0] = a * h - 0.5 * size, p[1] = height + b * h, p[2] = c * h - 0.5 * size;
      }
  PetscCall(SimModelSetVertices(model, n * n * n, xyz));
  for (PetscInt v = 0; v < n * n * n; v++) PetscCall(SimModelSetVertexMass(model, v, density * size * size * size / (n * n * n)));
  for (PetscInt c = 0; c < n; c++)
    for (PetscInt b = 0; b < n; b++)
      for (PetscInt a = 0; a < n; a++) {
        const PetscInt o[3] = {a, b, c};
        for (int d = 0; d < 3; d++) { /* structural and bending along each axis */
          PetscInt s[3] = {a, b, c}, s2[3] = {a, b, c};
          s[d] += 1, s2[d] += 2;
          if (s[d] < n) PetscCall(SimSpringListAdd(&springs, V(a, b, c), V(s[0], s[1], s[2]), k, kd));
          if (s2[d] < n) PetscCall(SimSpringListAdd(&springs, V(a, b, c), V(s2[0], s2[1], s2[2]), k / 4, kd));
        }
        for (int d = 0; d < 3; d++) { /* both diagonals of each face quad in the plane normal to d */
          int e1 = (d + 1) % 3, e2 = (d + 2) % 3;
          PetscInt p[3] = {o[0], o[1], o[2]}, q[3] = {o[0], o[1], o[2]}, r[3] = {o[0], o[1], o[2]};
          if (o[e1] + 1 >= n || o[e2] + 1 >= n) continue;
          p[e1] += 1, p[e2] += 1; /* (0,0) - (1,1) */
          q[e1] += 1;             /* (1,0) - (0,1) */
          r[e2] += 1;
          PetscCall(SimSpringListAdd(&springs, V(a, b, c), V(p[0], p[1], p[2]), k / 2, kd));
          PetscCall(SimSpringListAdd(&springs, V(q[0], q[1], q[2]), V(r[0], r[1], r[2]), k / 2, kd));
        }
      }
#undef V
  PetscCall(SimSpringListAddToModel(&springs, model, "spring"));
  PetscCall(SurfaceTriangles(n, &ntri, &tri));
  PetscCall(SimModelSetTopology(model, ntri, tri, 0, NULL, 0, NULL));
  PetscCall(SimSpringListFree(&springs));
  PetscCall(PetscFree(tri));
  PetscCall(PetscFree(xyz));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Lattice(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_Lattice;
  PetscFunctionReturn(0);
}
