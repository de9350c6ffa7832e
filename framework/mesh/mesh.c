/* Mesh dispatch by file extension, and the derived topology (edges, bending pairs, boundary faces).
 */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include "framework/mesh/mesh_impl.h"
#include "framework/linalg/vec3.h"

typedef struct {
  const char *ext;
  PetscErrorCode (*read)(const char *, SimMesh *);
} SimMeshReaderEntry;

/* One row per format; the error for an unknown extension lists them. */
static const SimMeshReaderEntry mesh_readers[] = {
    {".obj", SimMeshRead_Obj},
    {".msh", SimMeshRead_Gmsh},
    {".node", SimMeshRead_TetGen},
    {".ele", SimMeshRead_TetGen},
};
#define SIM_MESH_SUPPORTED "supported are .obj (Wavefront), .msh (Gmsh), .node/.ele (TetGen)"

/* Every format (and DMPlex, which inverts Gmsh tets) has its own orientation convention; the
 * model's FEM terms assume positive volume, so fix it once here by swapping two vertices. */
static PetscErrorCode OrientTetsPositive(SimMesh *mesh)
{
  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < mesh->ntet; e++) {
    PetscInt *t = mesh->tet + 4 * e;
    if (Vec3TetVolume(mesh->xyz, t) < 0) {
      PetscInt s = t[2];
      t[2] = t[3];
      t[3] = s;
    }
  }
  PetscFunctionReturn(0);
}

/* What every reader promises, checked once more for all of them before anyone indexes with it:
 * vertices, finite coordinates, and every corner of every element a vertex. */
static PetscErrorCode CheckMesh(const char *path, const SimMesh *mesh)
{
  PetscFunctionBeginUser;
  PetscCheck(mesh->nv > 0 && mesh->ntri + mesh->ntet > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Mesh file '%s' has no vertices or no elements",
             path);
  for (PetscInt i = 0; i < 3 * mesh->nv; i++)
    PetscCheck(isfinite(mesh->xyz[i]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Mesh file '%s': vertex %" PetscInt_FMT " has a coordinate that is not finite", path, i / 3);
  for (PetscInt i = 0; i < 3 * mesh->ntri; i++)
    PetscCheck(mesh->tri[i] >= 0 && mesh->tri[i] < mesh->nv, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Mesh file '%s': triangle %" PetscInt_FMT " refers to vertex %" PetscInt_FMT " of %" PetscInt_FMT, path, i / 3, mesh->tri[i], mesh->nv);
  for (PetscInt i = 0; i < 4 * mesh->ntet; i++)
    PetscCheck(mesh->tet[i] >= 0 && mesh->tet[i] < mesh->nv, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Mesh file '%s': tetrahedron %" PetscInt_FMT " refers to vertex %" PetscInt_FMT " of %" PetscInt_FMT, path, i / 4, mesh->tet[i], mesh->nv);
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshRead(MPI_Comm comm, const char *path, SimMesh *mesh)
{
  const SimMeshReaderEntry *reader = NULL;
  const char *base, *ext;
  FILE *fp;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(mesh, sizeof(*mesh)));
  PetscCheck(path && path[0], comm, PETSC_ERR_ARG_NULL, "No mesh file name given (%s)",
             SIM_MESH_SUPPORTED);
  /* The extension is taken from the file name only: "run.v2/cube" has none. */
  base = strrchr(path, '/');
  base = base ? base + 1 : path;
  ext = strrchr(base, '.');
  for (size_t i = 0; ext && i < sizeof(mesh_readers) / sizeof(mesh_readers[0]); i++) {
    if (!strcmp(ext, mesh_readers[i].ext)) reader = &mesh_readers[i];
  }
  PetscCheck(reader, comm, PETSC_ERR_ARG_WRONG, "Mesh file '%s' has an unknown extension '%s': %s",
             path, ext ? ext : "", SIM_MESH_SUPPORTED);
  fp = fopen(path, "r");
  PetscCheck(fp, comm, PETSC_ERR_FILE_OPEN, "Cannot open mesh file '%s': %s", path,
             strerror(errno));
  {
    struct stat st;
    PetscBool regular = (PetscBool)(!fstat(fileno(fp), &st) && S_ISREG(st.st_mode));
    (void)fclose(fp);
    PetscCheck(regular, comm, PETSC_ERR_FILE_OPEN, "Mesh file '%s' is not a regular file (a directory?)", path);
  }

  /* A failed reader leaves partial arrays in *mesh: free them so the caller has nothing to undo. */
  ierr = reader->read(path, mesh);
  if (!ierr) ierr = CheckMesh(path, mesh);
  if (ierr) PetscCall(SimMeshFree(mesh));
  PetscCall(ierr);
  PetscCall(OrientTetsPositive(mesh));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshFree(SimMesh *mesh)
{
  PetscFunctionBeginUser;
  if (!mesh) PetscFunctionReturn(0);
  PetscCall(PetscFree(mesh->xyz));
  PetscCall(PetscFree(mesh->tri));
  PetscCall(PetscFree(mesh->tet));
  PetscCall(PetscMemzero(mesh, sizeof(*mesh)));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshEdges(const SimMesh *mesh, PetscInt *nedge, PetscInt **edges)
{
  /* Local edges of a triangle and of a tetrahedron, by corner. */
  static const int tri_edge[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  static const int tet_edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  const PetscInt64 nv = mesh->nv;
  PetscInt64 *key;
  PetscInt n = 0, m = 0;

  PetscFunctionBeginUser;
  /* Key i*nv + j (i < j) sorts edges lexicographically; duplicates become neighbours. */
  PetscCall(PetscMalloc1(3 * mesh->ntri + 6 * mesh->ntet, &key));
  for (PetscInt e = 0; e < mesh->ntri; e++) {
    for (int k = 0; k < 3; k++) {
      PetscInt64 a = mesh->tri[3 * e + tri_edge[k][0]], b = mesh->tri[3 * e + tri_edge[k][1]];
      if (a != b) key[n++] = a < b ? a * nv + b : b * nv + a;
    }
  }
  for (PetscInt e = 0; e < mesh->ntet; e++) {
    for (int k = 0; k < 6; k++) {
      PetscInt64 a = mesh->tet[4 * e + tet_edge[k][0]], b = mesh->tet[4 * e + tet_edge[k][1]];
      if (a != b) key[n++] = a < b ? a * nv + b : b * nv + a;
    }
  }
  PetscCall(PetscSortInt64(n, key));
  for (PetscInt i = 0; i < n; i++) {
    if (i == 0 || key[i] != key[i - 1]) key[m++] = key[i];
  }
  PetscCall(PetscMalloc1(2 * m, edges));
  for (PetscInt i = 0; i < m; i++) {
    (*edges)[2 * i] = (PetscInt)(key[i] / nv);
    (*edges)[2 * i + 1] = (PetscInt)(key[i] % nv);
  }
  *nedge = m;
  PetscCall(PetscFree(key));
  PetscFunctionReturn(0);
}

/* A triangle edge (i < j) with the triangle's third vertex; tri breaks ties so the sort is
 * deterministic. */
typedef struct {
  PetscInt i, j, opp, tri;
} SimHalfEdge;

static int CompareHalfEdge(const void *pa, const void *pb)
{
  const SimHalfEdge *a = pa, *b = pb;
  if (a->i != b->i) return a->i < b->i ? -1 : 1;
  if (a->j != b->j) return a->j < b->j ? -1 : 1;
  if (a->tri != b->tri) return a->tri < b->tri ? -1 : 1;
  return 0;
}

PetscErrorCode SimMeshHinges(PetscInt ntri, const PetscInt *tri, PetscInt *nhinge, PetscInt **hinges)
{
  SimHalfEdge *he;
  PetscInt n = 0, nh = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(3 * ntri, &he));
  for (PetscInt e = 0; e < ntri; e++) {
    const PetscInt *t = tri + 3 * e;
    for (int k = 0; k < 3; k++) {
      PetscInt a = t[k], b = t[(k + 1) % 3];
      he[n].i = PetscMin(a, b);
      he[n].j = PetscMax(a, b);
      he[n].opp = t[(k + 2) % 3];
      he[n].tri = e;
      n++;
    }
  }
  if (n > 1) qsort(he, (size_t)n, sizeof(*he), CompareHalfEdge);
  /* Runs of equal (i, j): interior manifold edges have exactly two; boundary edges have one and
   * non-manifold edges more, and neither is a hinge. */
  PetscCall(PetscMalloc1(4 * (n / 2) + 1, hinges));
  for (PetscInt s = 0; s < n;) {
    PetscInt r = s + 1;
    while (r < n && he[r].i == he[s].i && he[r].j == he[s].j)
      r++;
    if (r - s == 2 && he[s].opp != he[s + 1].opp) {
      PetscInt *h = *hinges + 4 * nh++;
      h[0] = he[s].i, h[1] = he[s].j, h[2] = he[s].opp, h[3] = he[s + 1].opp;
    }
    s = r;
  }
  *nhinge = nh;
  PetscCall(PetscFree(he));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshBendingPairs(const SimMesh *mesh, PetscInt *npairs, PetscInt **pairs)
{
  PetscInt *hinges;

  PetscFunctionBeginUser;
  PetscCall(SimMeshHinges(mesh->ntri, mesh->tri, npairs, &hinges));
  PetscCall(PetscMalloc1(2 * *npairs + 1, pairs));
  for (PetscInt h = 0; h < *npairs; h++) (*pairs)[2 * h] = hinges[4 * h + 2], (*pairs)[2 * h + 1] = hinges[4 * h + 3];
  PetscCall(PetscFree(hinges));
  PetscFunctionReturn(0);
}

/* A tet face: sorted corners as the key, and the corners oriented outward. */
typedef struct {
  PetscInt key[3];
  PetscInt f[3];
} SimTetFace;

static int CompareTetFace(const void *pa, const void *pb)
{
  const SimTetFace *a = pa, *b = pb;
  for (int k = 0; k < 3; k++) {
    if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
  }
  return 0;
}

static void SortThree(const PetscInt in[3], PetscInt out[3])
{
  PetscInt a = in[0], b = in[1], c = in[2], s;
  if (a > b) {
    s = a;
    a = b;
    b = s;
  }
  if (b > c) {
    s = b;
    b = c;
    c = s;
  }
  if (a > b) {
    s = a;
    a = b;
    b = s;
  }
  out[0] = a;
  out[1] = b;
  out[2] = c;
}

PetscErrorCode SimMeshBoundaryFaces(const SimMesh *mesh, PetscInt *nface, PetscInt **faces)
{
  /* Face k of a tet is the one opposite corner k. */
  static const int tet_face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  SimTetFace *tf;
  PetscInt n = 0, nb = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(4 * mesh->ntet, &tf));
  for (PetscInt e = 0; e < mesh->ntet; e++) {
    const PetscInt *t = mesh->tet + 4 * e;
    for (int k = 0; k < 4; k++) {
      SimTetFace *F = &tf[n++];
      PetscInt cone[4] = {t[tet_face[k][0]], t[tet_face[k][1]], t[tet_face[k][2]], t[k]};

      /* Outward means the normal points away from the opposite corner t[k], i.e. the tet (face,
       * t[k]) is negative. Checked geometrically so any tet orientation gives outward faces. */
      if (Vec3TetVolume(mesh->xyz, cone) > 0) {
        PetscInt s = cone[1];
        cone[1] = cone[2];
        cone[2] = s;
      }
      for (int c = 0; c < 3; c++)
        F->f[c] = cone[c];
      SortThree(F->f, F->key);
    }
  }
  if (n > 1) qsort(tf, (size_t)n, sizeof(*tf), CompareTetFace);
  PetscCall(PetscMalloc1(3 * n + 1, faces));
  for (PetscInt s = 0; s < n;) {
    PetscInt r = s + 1;
    while (r < n && !CompareTetFace(&tf[r], &tf[s]))
      r++;
    if (r - s == 1) {
      for (int c = 0; c < 3; c++)
        (*faces)[3 * nb + c] = tf[s].f[c];
      nb++;
    }
    s = r;
  }
  *nface = nb;
  PetscCall(PetscFree(tf));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshLineReaderOpen(const char *path, SimMeshLineReader *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->path = path;
  r->fp = fopen(path, "r");
  PetscCheck(r->fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open mesh file '%s': %s", path,
             strerror(errno));
  /* getline (re)allocates the line with malloc: it is freed with free */
  r->line = NULL;
  r->cap = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshLineReaderNext(SimMeshLineReader *r, PetscBool *more)
{
  ssize_t len;

  PetscFunctionBeginUser;
  *more = PETSC_FALSE;
  errno = 0;
  len = getline(&r->line, &r->cap, r->fp);
  if (len < 0) {
    PetscCheck(errno != ENOMEM, PETSC_COMM_SELF, PETSC_ERR_MEM, "%s:%" PetscInt_FMT ": a line too long to hold in memory", r->path, r->lineno + 1);
    PetscCheck(!ferror(r->fp), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Error reading mesh file '%s' after line %" PetscInt_FMT ": %s", r->path,
               r->lineno, strerror(errno));
    if (r->line) r->line[0] = 0;
    PetscFunctionReturn(0);
  }
  r->lineno++;
  PetscCheck(!memchr(r->line, 0, (size_t)len), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt_FMT ": contains a NUL byte: not a text file",
             r->path, r->lineno);
  while (len > 0 && (r->line[len - 1] == '\n' || r->line[len - 1] == '\r')) r->line[--len] = 0;
  *more = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshLineReaderRemaining(SimMeshLineReader *r, size_t *bytes)
{
  struct stat st;
  long at = ftell(r->fp);

  PetscFunctionBeginUser;
  *bytes = 0;
  if (at >= 0 && !fstat(fileno(r->fp), &st) && st.st_size > at) *bytes = (size_t)(st.st_size - at);
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshLineReaderClose(SimMeshLineReader *r)
{
  PetscFunctionBeginUser;
  if (r->fp) (void)fclose(r->fp);
  free(r->line);
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscFunctionReturn(0);
}
