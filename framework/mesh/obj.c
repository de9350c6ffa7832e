/* Wavefront .obj reader: `v` vertices and `f` faces (polygons fan-triangulated); all else ignored.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "framework/mesh/mesh_impl.h"

typedef struct {
  SimMeshLineReader r;
  PetscInt vcap, tcap; /* allocated vertices in mesh->xyz and triangles in mesh->tri */
  PetscInt *poly;      /* vertex indices of the current face */
  PetscInt pcap;
} ObjReader;

static const char *SkipSpace(const char *s)
{
  while (*s && isspace((unsigned char)*s))
    s++;
  return s;
}

/* Length of the token at s (up to the next white space). */
static int TokenLength(const char *s)
{
  int n = 0;
  while (s[n] && !isspace((unsigned char)s[n]))
    n++;
  return n;
}

/* Doubles *cap until it holds `need` items of `size` bytes; *a keeps its content. */
static PetscErrorCode Grow(void **a, PetscInt *cap, PetscInt need, size_t size)
{
  PetscFunctionBeginUser;
  if (need <= *cap) PetscFunctionReturn(0);
  while (*cap < need)
    *cap = *cap ? 2 * *cap : 64;
  PetscCall(PetscRealloc((size_t)*cap * size, a));
  PetscFunctionReturn(0);
}

/* `v x y z [w]`: extra values (w, or the vertex colors some exporters append) are ignored. */
static PetscErrorCode ParseVertex(ObjReader *o, const char *s, SimMesh *mesh)
{
  PetscReal x[3];

  PetscFunctionBeginUser;
  for (int k = 0; k < 3; k++) {
    char *end;
    s = SkipSpace(s);
    x[k] = strtod(s, &end);
    PetscCheck(end != s && (!*end || isspace((unsigned char)*end)), PETSC_COMM_SELF,
               PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt_FMT ": expected 3 coordinates after 'v'",
               o->r.path, o->r.lineno);
    PetscCheck(isfinite(x[k]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s:%" PetscInt_FMT ": vertex coordinate is not finite", o->r.path, o->r.lineno);
    s = end;
  }
  PetscCall(Grow((void **)&mesh->xyz, &o->vcap, mesh->nv + 1, 3 * sizeof(PetscReal)));
  for (int k = 0; k < 3; k++)
    mesh->xyz[3 * mesh->nv + k] = x[k];
  mesh->nv++;
  PetscFunctionReturn(0);
}

/* `f a b c ...` with each corner `a`, `a/t`, `a//n` or `a/t/n`: only the vertex index is used.
 * Indices are 1-based, negative ones count back from the last vertex read so far. */
static PetscErrorCode ParseFace(ObjReader *o, const char *s, SimMesh *mesh)
{
  PetscInt n = 0;

  PetscFunctionBeginUser;
  for (s = SkipSpace(s); *s; s = SkipSpace(s)) {
    const int len = TokenLength(s);
    char *end;
    long id = strtol(s, &end, 10);

    PetscCheck(end != s && (!*end || *end == '/' || isspace((unsigned char)*end)), PETSC_COMM_SELF,
               PETSC_ERR_FILE_UNEXPECTED,
               "%s:%" PetscInt_FMT
               ": bad face vertex '%.*s' (expected an index, e.g. 12 or 12/5/7)",
               o->r.path, o->r.lineno, len, s);
    PetscCheck(id != 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s:%" PetscInt_FMT
               ": face index 0 is invalid (indices start at 1, negative ones count back)",
               o->r.path, o->r.lineno);
    if (id > 0) {
      PetscCheck(id <= mesh->nv, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s:%" PetscInt_FMT ": face index %ld out of range (file has %" PetscInt_FMT
                 " vertices so far)",
                 o->r.path, o->r.lineno, id, mesh->nv);
      id -= 1;
    } else {
      PetscCheck(id >= -(long)mesh->nv, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s:%" PetscInt_FMT
                 ": relative face index %ld out of range (file has %" PetscInt_FMT
                 " vertices so far)",
                 o->r.path, o->r.lineno, id, mesh->nv);
      id += mesh->nv;
    }
    PetscCall(Grow((void **)&o->poly, &o->pcap, n + 1, sizeof(PetscInt)));
    o->poly[n++] = (PetscInt)id;
    s += len;
  }
  PetscCheck(n >= 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%" PetscInt_FMT ": face has %" PetscInt_FMT " vertices, at least 3 are needed",
             o->r.path, o->r.lineno, n);
  /* Fan triangulation (p0, pk, pk+1): exact for the convex polygons exporters write. */
  PetscCall(Grow((void **)&mesh->tri, &o->tcap, mesh->ntri + n - 2, 3 * sizeof(PetscInt)));
  for (PetscInt k = 1; k + 1 < n; k++) {
    PetscInt *t = mesh->tri + 3 * mesh->ntri++;
    t[0] = o->poly[0];
    t[1] = o->poly[k];
    t[2] = o->poly[k + 1];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ParseObj(ObjReader *o, SimMesh *mesh)
{
  PetscBool more;

  PetscFunctionBeginUser;
  for (;;) {
    const char *s;
    int len;

    PetscCall(SimMeshLineReaderNext(&o->r, &more));
    if (!more) break;
    s = SkipSpace(o->r.line);
    len = TokenLength(s);
    if (len == 1 && s[0] == 'v')
      PetscCall(ParseVertex(o, s + 1, mesh));
    else if (len == 1 && s[0] == 'f')
      PetscCall(ParseFace(o, s + 1, mesh));
  }
  PetscCheck(mesh->ntri > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: no faces", o->r.path);
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshRead_Obj(const char *path, SimMesh *mesh)
{
  ObjReader o;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&o, sizeof(o)));
  PetscCall(SimMeshLineReaderOpen(path, &o.r));
  /* Parse, then close the file and free the scratch whether or not parsing succeeded. */
  ierr = ParseObj(&o, mesh);
  PetscCall(SimMeshLineReaderClose(&o.r));
  PetscCall(PetscFree(o.poly));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}
