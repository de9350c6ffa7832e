/* The model's surface from its output topology: boundary faces of the tetrahedra (or the triangles
 * of a shell), their edges and the segments, and the vertices on them. */
#include "framework/model/model.h"
#include "framework/mesh/mesh.h"

static int ComparePair(const void *a, const void *b)
{
  const PetscInt *x = (const PetscInt *)a, *y = (const PetscInt *)b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

PetscErrorCode SimModelGetSurface(SimModel m, const SimSurface **surface)
{
  SimSurface *s;
  PetscInt ntri, *tri = NULL, npair = 0, *pair, *vert, nvert = 0;
  const PetscScalar *x;

  PetscFunctionBeginUser;
  if (m->surface) {
    *surface = m->surface;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscNew(&s));
  /* triangles: the tets' boundary faces (oriented outward at the current positions), else the model's own */
  if (m->ntet) {
    SimMesh mesh = {0};
    PetscCall(VecGetArrayRead(m->x, &x));
    mesh.nv = m->nv, mesh.xyz = (PetscReal *)x, mesh.ntet = m->ntet, mesh.tet = m->tet;
    PetscCall(SimMeshBoundaryFaces(&mesh, &ntri, &tri));
    PetscCall(VecRestoreArrayRead(m->x, &x));
  } else {
    ntri = m->ntri;
    PetscCall(PetscMalloc1(3 * ntri + 1, &tri));
    PetscCall(PetscArraycpy(tri, m->tri, 3 * ntri));
  }
  /* edges: three per triangle and the segments, each as (min, max), sorted and made unique */
  PetscCall(PetscMalloc1(2 * (3 * ntri + m->nseg) + 2, &pair));
  for (PetscInt t = 0; t < ntri; t++)
    for (int k = 0; k < 3; k++) {
      const PetscInt a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3];
      pair[2 * npair] = PetscMin(a, b), pair[2 * npair + 1] = PetscMax(a, b), npair++;
    }
  for (PetscInt e = 0; e < m->nseg; e++) {
    const PetscInt a = m->seg[2 * e], b = m->seg[2 * e + 1];
    pair[2 * npair] = PetscMin(a, b), pair[2 * npair + 1] = PetscMax(a, b), npair++;
  }
  if (npair) qsort(pair, (size_t)npair, 2 * sizeof(PetscInt), ComparePair);
  s->nedge = 0;
  for (PetscInt k = 0; k < npair; k++)
    if (!s->nedge || ComparePair(&pair[2 * k], &pair[2 * (s->nedge - 1)])) {
      pair[2 * s->nedge] = pair[2 * k], pair[2 * s->nedge + 1] = pair[2 * k + 1];
      s->nedge++;
    }
  /* vertices: those of the edges, or all of them for a point set */
  PetscCall(PetscMalloc1(m->nv + 1, &vert));
  if (s->nedge) {
    PetscBool *on;
    PetscCall(PetscCalloc1(m->nv, &on));
    for (PetscInt k = 0; k < 2 * s->nedge; k++) on[pair[k]] = PETSC_TRUE;
    for (PetscInt i = 0; i < m->nv; i++)
      if (on[i]) vert[nvert++] = i;
    PetscCall(PetscFree(on));
  } else
    for (PetscInt i = 0; i < m->nv; i++) vert[nvert++] = i;
  s->ntri = ntri, s->tri = tri, s->edge = pair, s->nvert = nvert, s->vert = vert;
  m->surface = s;
  *surface = s;
  PetscFunctionReturn(0);
}
