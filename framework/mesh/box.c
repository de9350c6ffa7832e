/* The box generator: a structured hexahedral grid split into Kuhn tetrahedra. */
#include "framework/mesh/mesh.h"
#include "framework/sizes.h"
#include "framework/linalg/vec3.h"

/* The 6 tets of the unit cube sharing the diagonal from corner 0 to corner 7 (corner c has
 * offsets (c & 1, (c >> 1) & 1, (c >> 2) & 1)); each path 0 -> 7 along the edges is one tet,
 * ordered so its volume is positive. */
static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};

PetscErrorCode SimMeshCreateBox(const PetscInt n[3], const PetscReal lo[3], const PetscReal hi[3], SimMesh *mesh)
{
  const PetscInt nx = n[0] + 1, ny = n[1] + 1, nz = n[2] + 1;
  PetscInt c = 0;

  PetscFunctionBeginUser;
  for (int d = 0; d < 3; d++) {
    PetscCheck(n[d] >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A box needs at least one cell per side (got %" PetscInt_FMT " along axis %d)", n[d], d);
    PetscCheck(hi[d] > lo[d], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A box needs a positive extent along axis %d (got %g)", d, (double)(hi[d] - lo[d]));
  }
  {
    char what[96];
    PetscCall(PetscSNPrintf(what, sizeof(what), "A box of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells", n[0], n[1], n[2]));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, what, "vertices", (n[0] + 1.0) * (n[1] + 1.0) * (n[2] + 1.0), 3));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, what, "tetrahedra", 6.0 * n[0] * n[1] * n[2], 4));
  }
  PetscCall(PetscMemzero(mesh, sizeof(*mesh)));
  mesh->nv = nx * ny * nz;
  mesh->ntet = 6 * n[0] * n[1] * n[2];
  PetscCall(PetscMalloc1(3 * mesh->nv, &mesh->xyz));
  PetscCall(PetscMalloc1(4 * mesh->ntet, &mesh->tet));
  for (PetscInt k = 0; k < nz; k++)
    for (PetscInt j = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++) {
        PetscReal *p = mesh->xyz + 3 * ((k * ny + j) * nx + i);
        p[0] = lo[0] + (hi[0] - lo[0]) * i / n[0];
        p[1] = lo[1] + (hi[1] - lo[1]) * j / n[1];
        p[2] = lo[2] + (hi[2] - lo[2]) * k / n[2];
      }
  for (PetscInt k = 0; k < n[2]; k++)
    for (PetscInt j = 0; j < n[1]; j++)
      for (PetscInt i = 0; i < n[0]; i++) {
        PetscInt corner[8];
        for (int q = 0; q < 8; q++) corner[q] = ((k + ((q >> 2) & 1)) * ny + j + ((q >> 1) & 1)) * nx + i + (q & 1);
        for (int t = 0; t < 6; t++) {
          PetscInt *tet = mesh->tet + 4 * c++;
          for (int v = 0; v < 4; v++) tet[v] = corner[kuhn[t][v]];
          if (Vec3TetVolume(mesh->xyz, tet) < 0) { /* orient every tet positively */
            PetscInt s = tet[2];
            tet[2] = tet[3], tet[3] = s;
          }
        }
      }
  PetscFunctionReturn(0);
}
