/* TetGen .node/.ele reader: 3D points and 4-node (or the corners of 10-node) tetrahedra. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "framework/mesh/mesh_impl.h"

/* Next line with data: '#' starts a comment, blank lines are skipped. *s points into r->line. */
static PetscErrorCode NextDataLine(SimMeshLineReader *r, const char **s, PetscBool *more)
{
  PetscFunctionBeginUser;
  for (;;) {
    char *hash;
    const char *p;

    PetscCall(SimMeshLineReaderNext(r, more));
    if (!*more) PetscFunctionReturn(0);
    hash = strchr(r->line, '#');
    if (hash) *hash = 0;
    p = r->line;
    while (isspace((unsigned char)*p))
      p++;
    if (*p) {
      *s = p;
      PetscFunctionReturn(0);
    }
  }
}

/* Reads one integer field `what` at *s and advances past it. */
static PetscErrorCode ReadInt(SimMeshLineReader *r, const char **s, const char *what, PetscInt *val)
{
  char *end;
  long long v;

  PetscFunctionBeginUser;
  while (isspace((unsigned char)**s)) (*s)++;
  errno = 0;
  v = strtoll(*s, &end, 10);
  PetscCheck(end != *s && (!*end || isspace((unsigned char)*end)), PETSC_COMM_SELF,
             PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt_FMT ": expected %s (an integer)", r->path,
             r->lineno, what);
  PetscCheck(errno != ERANGE && v >= PETSC_MIN_INT && v <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%" PetscInt_FMT ": %s %.*s is out of range", r->path, r->lineno, what, (int)PetscMin(end - *s, 40), *s);
  *val = (PetscInt)v;
  *s = end;
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadReal(SimMeshLineReader *r, const char **s, const char *what,
                               PetscReal *val)
{
  char *end;

  PetscFunctionBeginUser;
  *val = strtod(*s, &end);
  PetscCheck(end != *s && (!*end || isspace((unsigned char)*end)), PETSC_COMM_SELF,
             PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt_FMT ": expected %s (a number)", r->path,
             r->lineno, what);
  PetscCheck(isfinite(*val), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%" PetscInt_FMT ": %s is not finite", r->path, r->lineno, what);
  *s = end;
  PetscFunctionReturn(0);
}

static PetscErrorCode ExpectMore(SimMeshLineReader *r, PetscBool more, const char *what)
{
  PetscFunctionBeginUser;
  PetscCheck(more, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%" PetscInt_FMT ": file ends before %s", r->path, r->lineno, what);
  PetscFunctionReturn(0);
}

/* A header count the rest of the file cannot hold (each record takes at least `bytes` bytes with
 * its newline, which the last may lack) is an error before anything is allocated for it. */
static PetscErrorCode CheckRoom(SimMeshLineReader *r, PetscInt n, size_t bytes, const char *what)
{
  size_t left;

  PetscFunctionBeginUser;
  PetscCall(SimMeshLineReaderRemaining(r, &left));
  PetscCheck((size_t)n <= (left + 1) / bytes && n <= PETSC_MAX_INT / 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%" PetscInt_FMT ": the header announces %" PetscInt_FMT " %s, more than the rest of the file can hold", r->path, r->lineno, n,
             what);
  PetscFunctionReturn(0);
}

/* .node: "<#points> <dim = 3> <#attributes> <#markers>", then "<id> x y z [attributes] [marker]".
 * The first id sets the numbering base (0 or 1) that the .ele file uses too. */
static PetscErrorCode ParseNode(SimMeshLineReader *r, SimMesh *mesh, PetscInt *base)
{
  const char *s;
  PetscBool more;
  PetscInt n, dim;

  PetscFunctionBeginUser;
  PetscCall(NextDataLine(r, &s, &more));
  PetscCall(
      ExpectMore(r, more, "the header line '<#points> <dimension> <#attributes> <#markers>'"));
  PetscCall(ReadInt(r, &s, "the number of points", &n));
  PetscCall(ReadInt(r, &s, "the dimension", &dim));
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%" PetscInt_FMT ": %" PetscInt_FMT
             " points (points kept in a .poly file are not supported)",
             r->path, r->lineno, n);
  PetscCheck(dim == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%" PetscInt_FMT ": dimension %" PetscInt_FMT ", only 3 is supported", r->path,
             r->lineno, dim);
  PetscCall(CheckRoom(r, n, 8, "points"));
  PetscCall(PetscMalloc1(3 * n, &mesh->xyz));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt id;

    PetscCall(NextDataLine(r, &s, &more));
    PetscCall(ExpectMore(r, more, "all points are read"));
    PetscCall(ReadInt(r, &s, "the point number", &id));
    if (i == 0) {
      PetscCheck(id == 0 || id == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s:%" PetscInt_FMT ": first point number is %" PetscInt_FMT ", expected 0 or 1",
                 r->path, r->lineno, id);
      *base = id;
    }
    PetscCheck(id == *base + i, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "%s:%" PetscInt_FMT ": point number %" PetscInt_FMT ", expected %" PetscInt_FMT
               " (points must be numbered consecutively)",
               r->path, r->lineno, id, *base + i);
    PetscCall(ReadReal(r, &s, "x", &mesh->xyz[3 * i]));
    PetscCall(ReadReal(r, &s, "y", &mesh->xyz[3 * i + 1]));
    PetscCall(ReadReal(r, &s, "z", &mesh->xyz[3 * i + 2]));
    mesh->nv = i + 1;
  }
  PetscFunctionReturn(0);
}

/* .ele: "<#tets> <nodes per tet: 4 or 10> <#attributes>", then "<id> n1 n2 n3 n4 [...]".
 * For 10-node tets the first four are the corners. */
static PetscErrorCode ParseEle(SimMeshLineReader *r, SimMesh *mesh, PetscInt base)
{
  const char *s;
  PetscBool more;
  PetscInt n, per;

  PetscFunctionBeginUser;
  PetscCall(NextDataLine(r, &s, &more));
  PetscCall(
      ExpectMore(r, more, "the header line '<#tetrahedra> <nodes per tetrahedron> <#attributes>'"));
  PetscCall(ReadInt(r, &s, "the number of tetrahedra", &n));
  PetscCall(ReadInt(r, &s, "the number of nodes per tetrahedron", &per));
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%" PetscInt_FMT ": no tetrahedra", r->path, r->lineno);
  PetscCheck(per == 4 || per == 10, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s:%" PetscInt_FMT ": %" PetscInt_FMT " nodes per tetrahedron, expected 4 or 10",
             r->path, r->lineno, per);
  PetscCall(CheckRoom(r, n, 10, "tetrahedra"));
  PetscCall(PetscMalloc1(4 * n, &mesh->tet));
  for (PetscInt e = 0; e < n; e++) {
    PetscInt id;

    PetscCall(NextDataLine(r, &s, &more));
    PetscCall(ExpectMore(r, more, "all tetrahedra are read"));
    PetscCall(ReadInt(r, &s, "the tetrahedron number", &id));
    for (int k = 0; k < 4; k++) {
      PetscInt v;

      PetscCall(ReadInt(r, &s, "a point number", &v));
      PetscCheck(v >= base && v - base < mesh->nv, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s:%" PetscInt_FMT ": point number %" PetscInt_FMT " out of range [%" PetscInt_FMT
                 ", %" PetscInt_FMT "]",
                 r->path, r->lineno, v, base, base + mesh->nv - 1);
      mesh->tet[4 * e + k] = v - base;
    }
    mesh->ntet = e + 1;
  }
  PetscFunctionReturn(0);
}

/* Each file is closed whether or not parsing succeeded. */
static PetscErrorCode ReadNodeFile(const char *path, SimMesh *mesh, PetscInt *base)
{
  SimMeshLineReader r;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(SimMeshLineReaderOpen(path, &r));
  ierr = ParseNode(&r, mesh, base);
  PetscCall(SimMeshLineReaderClose(&r));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadEleFile(const char *path, SimMesh *mesh, PetscInt base)
{
  SimMeshLineReader r;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(SimMeshLineReaderOpen(path, &r));
  ierr = ParseEle(&r, mesh, base);
  PetscCall(SimMeshLineReaderClose(&r));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshRead_TetGen(const char *path, SimMesh *mesh)
{
  char stem[PETSC_MAX_PATH_LEN], node[PETSC_MAX_PATH_LEN + 8], ele[PETSC_MAX_PATH_LEN + 8];
  const char *dot = strrchr(path, '.');
  PetscInt base = 0;

  PetscFunctionBeginUser;
  /* Either file may be named; the other one has the same stem. */
  PetscCheck(dot && (size_t)(dot - path) < sizeof(stem), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "TetGen file name '%s' is too long", path);
  memcpy(stem, path, (size_t)(dot - path));
  stem[dot - path] = 0;
  PetscCall(PetscSNPrintf(node, sizeof(node), "%s.node", stem));
  PetscCall(PetscSNPrintf(ele, sizeof(ele), "%s.ele", stem));
  for (int k = 0; k < 2; k++) {
    const char *f = k ? ele : node;
    FILE *fp = fopen(f, "r");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN,
               "Cannot open mesh file '%s': %s (a TetGen mesh is the pair %s, %s)", f,
               strerror(errno), node, ele);
    (void)fclose(fp);
  }
  PetscCall(ReadNodeFile(node, mesh, &base));
  PetscCall(ReadEleFile(ele, mesh, base));
  PetscFunctionReturn(0);
}
