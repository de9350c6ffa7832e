/* Gmsh .msh reader: MSH 2.2 and 4.1 (ASCII or binary) and 4.0 (ASCII). Keeps tetrahedra, or the
 * triangles and quadrilaterals of a surface mesh; high-order elements contribute their corners.
 * pbsim parses the file itself so that every count and index is checked before it is used: a count
 * larger than the rest of the file is an error before any allocation, an element naming a node the
 * file does not define is an error naming both (PETSc's DMPlexCreateGmsh crashes on it). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "framework/mesh/mesh_impl.h"

/* What pbsim does with each Gmsh element type (the numbering of Gmsh's documentation). */
typedef enum { KIND_UNKNOWN, KIND_IGNORED, KIND_TRI, KIND_QUAD, KIND_TET, KIND_SOLID } ElementKind;

static const struct {
  int type, nodes;
  ElementKind kind;
  const char *name;
} element_types[] = {
    {1, 2, KIND_IGNORED, "line"},       {2, 3, KIND_TRI, "triangle"},       {3, 4, KIND_QUAD, "quadrilateral"},
    {4, 4, KIND_TET, "tetrahedron"},    {5, 8, KIND_SOLID, "hexahedron"},   {6, 6, KIND_SOLID, "prism"},
    {7, 5, KIND_SOLID, "pyramid"},      {8, 3, KIND_IGNORED, "line"},       {9, 6, KIND_TRI, "triangle"},
    {10, 9, KIND_QUAD, "quadrilateral"}, {11, 10, KIND_TET, "tetrahedron"}, {12, 27, KIND_SOLID, "hexahedron"},
    {13, 18, KIND_SOLID, "prism"},      {14, 14, KIND_SOLID, "pyramid"},    {15, 1, KIND_IGNORED, "point"},
    {16, 8, KIND_QUAD, "quadrilateral"}, {17, 20, KIND_SOLID, "hexahedron"}, {18, 15, KIND_SOLID, "prism"},
    {19, 13, KIND_SOLID, "pyramid"},    {20, 9, KIND_TRI, "triangle"},      {21, 10, KIND_TRI, "triangle"},
    {22, 12, KIND_TRI, "triangle"},     {23, 15, KIND_TRI, "triangle"},     {24, 15, KIND_TRI, "triangle"},
    {25, 21, KIND_TRI, "triangle"},     {26, 4, KIND_IGNORED, "line"},      {27, 5, KIND_IGNORED, "line"},
    {28, 6, KIND_IGNORED, "line"},      {29, 20, KIND_TET, "tetrahedron"},  {30, 35, KIND_TET, "tetrahedron"},
    {31, 56, KIND_TET, "tetrahedron"},
};

typedef struct {
  const char *path;
  const char *buf; /* the whole file, NUL-terminated */
  size_t len, pos;
  int line; /* of pos, counted in the ASCII parts */
  int version; /* 22, 40 or 41 */
  PetscBool binary;
  /* nodes, in file order */
  PetscInt nv;
  PetscReal *xyz;
  PetscInt64 *tag;
  PetscInt64 *sorted; /* (tag, index) pairs sorted by tag, for lookups */
  /* elements: corners as node indices */
  PetscInt ntri, tricap, ntet, tetcap;
  PetscInt *tri, *tet;
} Reader;

static PetscErrorCode Fail(Reader *r, const char *fmt, ...);

/* ---- ASCII tokens ---- */

static void SkipSpace(Reader *r)
{
  while (r->pos < r->len && isspace((unsigned char)r->buf[r->pos])) {
    if (r->buf[r->pos] == '\n') r->line++;
    r->pos++;
  }
}

/* Where an error is: "path:line" in ASCII, "path (byte N)" in binary data. */
static void Where(Reader *r, char *buf, size_t len)
{
  if (r->binary && r->version) snprintf(buf, len, "%s (byte %zu)", r->path, r->pos);
  else snprintf(buf, len, "%s:%d", r->path, r->line);
}

#define GMSH_CHECK(cond, ...) \
  do { \
    if (!(cond)) return Fail(r, __VA_ARGS__); \
  } while (0)

static PetscErrorCode Fail(Reader *r, const char *fmt, ...)
{
  char where[PETSC_MAX_PATH_LEN + 32], msg[1024];
  va_list ap;

  Where(r, where, sizeof(where));
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_UNEXPECTED, PETSC_ERROR_INITIAL, "%s: %s",
                    where, msg);
}

static PetscErrorCode ReadInt(Reader *r, const char *what, PetscInt64 lo, PetscInt64 hi, PetscInt64 *v)
{
  char *end;
  long long x;

  PetscFunctionBeginUser;
  SkipSpace(r);
  GMSH_CHECK(r->pos < r->len, "file ends where %s is expected", what);
  errno = 0;
  x = strtoll(r->buf + r->pos, &end, 10);
  GMSH_CHECK(end != r->buf + r->pos && (!*end || isspace((unsigned char)*end)), "expected %s (an integer)", what);
  GMSH_CHECK(errno != ERANGE && x >= lo && x <= hi, "%s %.*s is out of range [%lld, %lld]", what, (int)PetscMin(end - (r->buf + r->pos), 40),
             r->buf + r->pos, (long long)lo, (long long)hi);
  r->pos = (size_t)(end - r->buf);
  *v = x;
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadReal(Reader *r, const char *what, PetscReal *v)
{
  char *end;

  PetscFunctionBeginUser;
  SkipSpace(r);
  GMSH_CHECK(r->pos < r->len, "file ends where %s is expected", what);
  *v = strtod(r->buf + r->pos, &end);
  GMSH_CHECK(end != r->buf + r->pos && (!*end || isspace((unsigned char)*end)), "expected %s (a number)", what);
  GMSH_CHECK(isfinite(*v), "%s is not finite", what);
  r->pos = (size_t)(end - r->buf);
  PetscFunctionReturn(0);
}

/* The next word (up to white space), into buf. */
static PetscErrorCode ReadWord(Reader *r, char *buf, size_t len)
{
  size_t n = 0;

  PetscFunctionBeginUser;
  SkipSpace(r);
  while (r->pos < r->len && !isspace((unsigned char)r->buf[r->pos]) && n + 1 < len) buf[n++] = r->buf[r->pos++];
  buf[n] = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode Expect(Reader *r, const char *word)
{
  char w[64];

  PetscFunctionBeginUser;
  PetscCall(ReadWord(r, w, sizeof(w)));
  GMSH_CHECK(!strcmp(w, word), "expected %s, found '%.40s'", word, w);
  PetscFunctionReturn(0);
}

/* ---- binary values (native byte order, checked by the file's "1") ---- */

static PetscErrorCode ReadBytes(Reader *r, size_t n, void *dst, const char *what)
{
  PetscFunctionBeginUser;
  GMSH_CHECK(n <= r->len - r->pos, "file ends inside %s", what);
  memcpy(dst, r->buf + r->pos, n);
  r->pos += n;
  PetscFunctionReturn(0);
}

/* An integer of `size` bytes (4: int, 8: size_t) in [lo, hi]. */
static PetscErrorCode ReadBinInt(Reader *r, int size, const char *what, PetscInt64 lo, PetscInt64 hi, PetscInt64 *v)
{
  PetscFunctionBeginUser;
  if (size == 4) {
    int32_t x = 0;
    PetscCall(ReadBytes(r, 4, &x, what));
    *v = x;
  } else {
    uint64_t x = 0;
    PetscCall(ReadBytes(r, 8, &x, what));
    GMSH_CHECK(x <= (uint64_t)INT64_MAX, "%s %llu is out of range [%lld, %lld]", what, (unsigned long long)x, (long long)lo, (long long)hi);
    *v = (PetscInt64)x;
  }
  GMSH_CHECK(*v >= lo && *v <= hi, "%s %lld is out of range [%lld, %lld]", what, (long long)*v, (long long)lo, (long long)hi);
  PetscFunctionReturn(0);
}

/* An integer in ASCII, or of `size` bytes in binary. */
static PetscErrorCode ReadCount(Reader *r, int size, const char *what, PetscInt64 lo, PetscInt64 hi, PetscInt64 *v)
{
  PetscFunctionBeginUser;
  if (r->binary) PetscCall(ReadBinInt(r, size, what, lo, hi, v));
  else PetscCall(ReadInt(r, what, lo, hi, v));
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadCoordinate(Reader *r, const char *what, PetscReal *v)
{
  PetscFunctionBeginUser;
  if (!r->binary) PetscCall(ReadReal(r, what, v));
  else {
    double x;
    PetscCall(ReadBytes(r, 8, &x, what));
    GMSH_CHECK(isfinite(x), "%s is not finite", what);
    *v = x;
  }
  PetscFunctionReturn(0);
}

/* At most how many records of at least `bytes` bytes fit in the rest of the file: a count from a
 * header larger than that is an error, before anything is allocated for it. */
static PetscErrorCode CheckRoom(Reader *r, PetscInt64 count, size_t bytes, const char *what)
{
  PetscFunctionBeginUser;
  GMSH_CHECK((size_t)count <= (r->len - r->pos) / bytes, "the header announces %lld %s, more than the rest of the file can hold", (long long)count,
             what);
  GMSH_CHECK(count <= PETSC_MAX_INT / 4, "%lld %s are more than pbsim can index", (long long)count, what);
  PetscFunctionReturn(0);
}

/* ---- sections ---- */

/* "$MeshFormat\n<version> <0|1> <8>\n[int 1]\n$EndMeshFormat" */
static PetscErrorCode ReadFormat(Reader *r)
{
  char word[64];
  PetscReal version;
  PetscInt64 type, size;

  PetscFunctionBeginUser;
  PetscCall(ReadWord(r, word, sizeof(word)));
  GMSH_CHECK(!strcmp(word, "$MeshFormat"), "not a valid Gmsh file: it must start with $MeshFormat");
  PetscCall(ReadReal(r, "the format version", &version));
  PetscCall(ReadInt(r, "the file type (0 = ASCII, 1 = binary)", 0, 1, &type));
  PetscCall(ReadInt(r, "the data size", 0, 64, &size));
  if (version >= 2 - 1e-9 && version < 3) r->version = 22;
  else if (PetscAbsReal(version - 4.0) < 1e-9) r->version = 40;
  else if (PetscAbsReal(version - 4.1) < 1e-9) r->version = 41;
  GMSH_CHECK(r->version, "Gmsh format version %g is not supported (2.2, 4.0 and 4.1 are)", (double)version);
  GMSH_CHECK(size == 8, "data size %lld: pbsim reads 8-byte (double) coordinates", (long long)size);
  r->binary = (PetscBool)(type == 1);
  GMSH_CHECK(!(r->binary && r->version == 40), "binary MSH 4.0 is not supported (save it as 4.1 or 2.2)");
  if (r->binary) {
    int32_t one = 0;
    /* the rest of the line, then the int 1 that shows the byte order */
    while (r->pos < r->len && r->buf[r->pos] != '\n') r->pos++;
    GMSH_CHECK(r->pos < r->len, "file ends in $MeshFormat");
    r->pos++, r->line++;
    PetscCall(ReadBytes(r, 4, &one, "$MeshFormat"));
    GMSH_CHECK(one == 1, "binary file of the other byte order (or damaged): its check value is %d, not 1", (int)one);
  }
  PetscCall(Expect(r, "$EndMeshFormat"));
  PetscFunctionReturn(0);
}

static int CompareTagPairs(const void *a, const void *b)
{
  const PetscInt64 *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sorts the node tags once all nodes are read; a tag given twice is an error. */
static PetscErrorCode IndexTags(Reader *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2 * (size_t)r->nv + 2, &r->sorted));
  for (PetscInt i = 0; i < r->nv; i++) r->sorted[2 * i] = r->tag[i], r->sorted[2 * i + 1] = i;
  qsort(r->sorted, (size_t)r->nv, 2 * sizeof(PetscInt64), CompareTagPairs);
  for (PetscInt i = 1; i < r->nv; i++)
    GMSH_CHECK(r->sorted[2 * i] != r->sorted[2 * i - 2], "node tag %lld is defined twice", (long long)r->sorted[2 * i]);
  PetscFunctionReturn(0);
}

/* The index of the node with this tag, or an error naming the element and the tag. */
static PetscErrorCode NodeIndex(Reader *r, PetscInt64 element, PetscInt64 tag, PetscInt *index)
{
  PetscInt lo = 0, hi = r->nv;

  PetscFunctionBeginUser;
  while (lo < hi) {
    PetscInt mid = lo + (hi - lo) / 2;
    if (r->sorted[2 * mid] < tag) lo = mid + 1;
    else hi = mid;
  }
  GMSH_CHECK(lo < r->nv && r->sorted[2 * lo] == tag, "element %lld refers to node %lld, which $Nodes does not define", (long long)element,
             (long long)tag);
  *index = (PetscInt)r->sorted[2 * lo + 1];
  PetscFunctionReturn(0);
}

/* Room for n nodes (n checked against the file size by the caller). */
static PetscErrorCode AllocateNodes(Reader *r, PetscInt64 n)
{
  PetscFunctionBeginUser;
  GMSH_CHECK(!r->xyz, "a second $Nodes section");
  PetscCall(PetscMalloc1(3 * (size_t)n + 3, &r->xyz));
  PetscCall(PetscMalloc1((size_t)n + 1, &r->tag));
  PetscFunctionReturn(0);
}

static PetscErrorCode AddNode(Reader *r, PetscInt64 tag, const PetscReal x[3])
{
  PetscFunctionBeginUser;
  for (int k = 0; k < 3; k++) r->xyz[3 * r->nv + k] = x[k];
  r->tag[r->nv++] = tag;
  PetscFunctionReturn(0);
}

/* MSH 2.2: "N" then N x (tag x y z); binary: N x (int tag, 3 doubles). */
static PetscErrorCode ReadNodes2(Reader *r)
{
  PetscInt64 n, tag = 0; /* set by ReadCount (initialized for -O3 -Wmaybe-uninitialized) */
  PetscReal x[3];

  PetscFunctionBeginUser;
  PetscCall(ReadInt(r, "the number of nodes", 0, INT64_MAX, &n));
  if (r->binary) r->pos += r->pos < r->len && r->buf[r->pos] == '\n', r->line++;
  PetscCall(CheckRoom(r, n, r->binary ? 28 : 8, "nodes"));
  PetscCall(AllocateNodes(r, n));
  for (PetscInt64 i = 0; i < n; i++) {
    PetscCall(ReadCount(r, 4, "a node tag", 1, INT64_MAX, &tag));
    for (int k = 0; k < 3; k++) PetscCall(ReadCoordinate(r, k == 0 ? "x" : k == 1 ? "y" : "z", &x[k]));
    PetscCall(AddNode(r, tag, x));
  }
  PetscCall(Expect(r, "$EndNodes"));
  PetscCall(IndexTags(r));
  PetscFunctionReturn(0);
}

/* MSH 4.x: blocks of nodes; 4.1 lists a block's tags, then its coordinates; 4.0 "tag x y z" lines. */
static PetscErrorCode ReadNodes4(Reader *r)
{
  PetscInt64 nblocks, n, dummy;
  const int sz = 8; /* size_t in binary 4.1 */

  PetscFunctionBeginUser;
  PetscCall(ReadCount(r, sz, "the number of node blocks", 0, INT64_MAX, &nblocks));
  PetscCall(ReadCount(r, sz, "the number of nodes", 0, INT64_MAX, &n));
  if (r->version == 41) {
    PetscCall(ReadCount(r, sz, "the smallest node tag", 0, INT64_MAX, &dummy));
    PetscCall(ReadCount(r, sz, "the largest node tag", 0, INT64_MAX, &dummy));
  }
  PetscCall(CheckRoom(r, n, r->binary ? 32 : 8, "nodes"));
  PetscCall(CheckRoom(r, nblocks, r->binary ? 20 : 8, "node blocks"));
  PetscCall(AllocateNodes(r, n));
  for (PetscInt64 b = 0; b < nblocks; b++) {
    PetscInt64 dim, param, count;
    PetscReal x[3], u;
    if (r->version == 41) {
      PetscCall(ReadCount(r, 4, "the entity dimension", 0, 3, &dim));
      PetscCall(ReadCount(r, 4, "the entity tag", INT32_MIN, INT32_MAX, &dummy));
    } else {
      PetscCall(ReadInt(r, "the entity tag", INT32_MIN, INT32_MAX, &dummy));
      PetscCall(ReadInt(r, "the entity dimension", 0, 3, &dim));
    }
    PetscCall(ReadCount(r, 4, "the parametric flag", 0, 1, &param));
    PetscCall(ReadCount(r, sz, "the number of nodes in the block", 0, n - r->nv, &count));
    if (r->version == 41) {
      PetscInt first = r->nv;
      for (PetscInt64 i = 0; i < count; i++) PetscCall(ReadCount(r, sz, "a node tag", 1, INT64_MAX, &r->tag[first + i]));
      for (PetscInt64 i = 0; i < count; i++) {
        for (int k = 0; k < 3; k++) PetscCall(ReadCoordinate(r, k == 0 ? "x" : k == 1 ? "y" : "z", &x[k]));
        for (int k = 0; param && k < dim; k++) PetscCall(ReadCoordinate(r, "a parametric coordinate", &u));
        PetscCall(AddNode(r, r->tag[first + i], x));
      }
    } else {
      for (PetscInt64 i = 0; i < count; i++) {
        PetscInt64 tag = 0;
        PetscCall(ReadInt(r, "a node tag", 1, INT64_MAX, &tag));
        for (int k = 0; k < 3; k++) PetscCall(ReadReal(r, k == 0 ? "x" : k == 1 ? "y" : "z", &x[k]));
        for (int k = 0; param && k < dim; k++) PetscCall(ReadReal(r, "a parametric coordinate", &u));
        PetscCall(AddNode(r, tag, x));
      }
    }
  }
  GMSH_CHECK(r->nv == n, "the header announces %lld nodes, the blocks hold %" PetscInt_FMT, (long long)n, r->nv);
  PetscCall(Expect(r, "$EndNodes"));
  PetscCall(IndexTags(r));
  PetscFunctionReturn(0);
}

static PetscErrorCode Grow(PetscInt **a, PetscInt *cap, PetscInt need)
{
  PetscFunctionBeginUser;
  if (need <= *cap) PetscFunctionReturn(0);
  while (*cap < need) *cap = *cap ? 2 * *cap : 256;
  PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)*cap, a));
  PetscFunctionReturn(0);
}

static int FindType(PetscInt64 type)
{
  for (size_t i = 0; i < sizeof(element_types) / sizeof(element_types[0]); i++)
    if (element_types[i].type == type) return (int)i;
  return -1;
}

/* The node tags of one element whose tag was read (ASCII, or binary integers of `size` bytes); the
 * element is kept by its kind: tetrahedra and surface elements by their corners. */
static PetscErrorCode ReadElementNodes(Reader *r, int t, PetscInt64 tag, int size)
{
  PetscInt64 node[64];
  PetscInt c[4];
  const int nn = element_types[t].nodes;

  PetscFunctionBeginUser;
  for (int k = 0; k < nn; k++) PetscCall(ReadCount(r, size, "a node tag of an element", INT64_MIN, INT64_MAX, &node[k]));
  for (int k = 0; k < nn; k++) PetscCall(NodeIndex(r, tag, node[k], &c[k < 4 ? k : 3]));
  switch (element_types[t].kind) {
  case KIND_TET:
    PetscCall(Grow(&r->tet, &r->tetcap, 4 * (r->ntet + 1)));
    for (int k = 0; k < 4; k++) r->tet[4 * r->ntet + k] = c[k];
    r->ntet++;
    break;
  case KIND_TRI:
  case KIND_QUAD: {
    const int n = element_types[t].kind == KIND_TRI ? 3 : 4;
    /* a quadrilateral's corners are cyclic: the fan (0,1,2), (0,2,3) splits it */
    PetscCall(Grow(&r->tri, &r->tricap, 3 * (r->ntri + n - 2)));
    for (int k = 1; k + 1 < n; k++) {
      PetscInt *tri = r->tri + 3 * r->ntri++;
      tri[0] = c[0], tri[1] = c[k], tri[2] = c[k + 1];
    }
  } break;
  case KIND_SOLID:
    GMSH_CHECK(PETSC_FALSE, "element %lld is a %s; pbsim reads tetrahedra only (no hexahedra, prisms or pyramids)", (long long)tag,
               element_types[t].name);
    break;
  default: /* points and lines: checked, not kept */
    break;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ElementType(Reader *r, PetscInt64 type, int *t)
{
  PetscFunctionBeginUser;
  *t = FindType(type);
  GMSH_CHECK(*t >= 0, "element type %lld is not one pbsim reads (points, lines, triangles, quadrilaterals, tetrahedra)", (long long)type);
  PetscFunctionReturn(0);
}

/* MSH 2.2: "M" then M x (tag type ntags tags... nodes...); binary: blocks "type count ntags" (ints)
 * of count x (tag, ntags tags, nodes) (ints). */
static PetscErrorCode ReadElements2(Reader *r)
{
  PetscInt64 m, done = 0, dummy;

  PetscFunctionBeginUser;
  GMSH_CHECK(r->sorted, "$Elements comes before $Nodes");
  PetscCall(ReadInt(r, "the number of elements", 0, INT64_MAX, &m));
  if (r->binary && r->pos < r->len && r->buf[r->pos] == '\n') r->pos++, r->line++;
  PetscCall(CheckRoom(r, m, r->binary ? 12 : 8, "elements"));
  while (done < m) {
    PetscInt64 type, count = 1, ntags, tag;
    int t;
    if (r->binary) {
      PetscCall(ReadBinInt(r, 4, "an element type", 0, INT32_MAX, &type));
      PetscCall(ElementType(r, type, &t));
      PetscCall(ReadBinInt(r, 4, "the number of elements of a block", 1, m - done, &count));
      PetscCall(ReadBinInt(r, 4, "the number of element tags", 0, 1000, &ntags));
      PetscCall(CheckRoom(r, count, 4 * (size_t)(1 + ntags + element_types[t].nodes), "elements"));
      for (PetscInt64 e = 0; e < count; e++) {
        PetscCall(ReadBinInt(r, 4, "an element tag", 0, INT32_MAX, &tag));
        for (PetscInt64 k = 0; k < ntags; k++) PetscCall(ReadBinInt(r, 4, "an element tag", INT32_MIN, INT32_MAX, &dummy));
        PetscCall(ReadElementNodes(r, t, tag, 4));
      }
    } else {
      PetscCall(ReadInt(r, "an element tag", 0, INT64_MAX, &tag));
      PetscCall(ReadInt(r, "an element type", 0, INT32_MAX, &type));
      PetscCall(ElementType(r, type, &t));
      PetscCall(ReadInt(r, "the number of element tags", 0, 1000, &ntags));
      for (PetscInt64 k = 0; k < ntags; k++) PetscCall(ReadInt(r, "an element tag", INT64_MIN, INT64_MAX, &dummy));
      PetscCall(ReadElementNodes(r, t, tag, 4));
    }
    done += count;
  }
  PetscCall(Expect(r, "$EndElements"));
  PetscFunctionReturn(0);
}

/* MSH 4.x: blocks "dim entity type count" (4.0: "entity dim type count") of count x (tag nodes...);
 * binary 4.1: ints, a size_t count, then size_t tags and nodes. */
static PetscErrorCode ReadElements4(Reader *r)
{
  PetscInt64 nblocks, m, done = 0, dummy;
  const int sz = 8;

  PetscFunctionBeginUser;
  GMSH_CHECK(r->sorted, "$Elements comes before $Nodes");
  PetscCall(ReadCount(r, sz, "the number of element blocks", 0, INT64_MAX, &nblocks));
  PetscCall(ReadCount(r, sz, "the number of elements", 0, INT64_MAX, &m));
  if (r->version == 41) {
    PetscCall(ReadCount(r, sz, "the smallest element tag", 0, INT64_MAX, &dummy));
    PetscCall(ReadCount(r, sz, "the largest element tag", 0, INT64_MAX, &dummy));
  }
  PetscCall(CheckRoom(r, m, r->binary ? 16 : 4, "elements"));
  PetscCall(CheckRoom(r, nblocks, r->binary ? 20 : 8, "element blocks"));
  for (PetscInt64 b = 0; b < nblocks; b++) {
    PetscInt64 type, count;
    int t;
    PetscCall(ReadCount(r, 4, "the entity dimension or tag", INT32_MIN, INT32_MAX, &dummy));
    PetscCall(ReadCount(r, 4, "the entity tag or dimension", INT32_MIN, INT32_MAX, &dummy));
    PetscCall(ReadCount(r, 4, "an element type", 0, INT32_MAX, &type));
    PetscCall(ElementType(r, type, &t));
    PetscCall(ReadCount(r, sz, "the number of elements in the block", 0, m - done, &count));
    if (r->binary) PetscCall(CheckRoom(r, count, 8 * (size_t)(1 + element_types[t].nodes), "elements"));
    for (PetscInt64 e = 0; e < count; e++) {
      PetscInt64 tag;
      PetscCall(ReadCount(r, sz, "an element tag", 0, INT64_MAX, &tag));
      PetscCall(ReadElementNodes(r, t, tag, sz));
    }
    done += count;
  }
  GMSH_CHECK(done == m, "the header announces %lld elements, the blocks hold %lld", (long long)m, (long long)done);
  PetscCall(Expect(r, "$EndElements"));
  PetscFunctionReturn(0);
}

/* A section pbsim does not use ($PhysicalNames, $Entities, $Periodic, $NodeData, $Comments ...):
 * skipped up to its $End line. */
static PetscErrorCode SkipSection(Reader *r, const char *name)
{
  char end[80];
  size_t n;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(end, sizeof(end), "$End%s", name + 1));
  n = strlen(end);
  for (;;) {
    const char *hit;
    GMSH_CHECK(r->pos < r->len, "file ends inside section %s (no %s)", name, end);
    hit = memchr(r->buf + r->pos, '$', r->len - r->pos);
    GMSH_CHECK(hit, "file ends inside section %s (no %s)", name, end);
    for (const char *p = r->buf + r->pos; p < hit; p++)
      if (*p == '\n') r->line++;
    r->pos = (size_t)(hit - r->buf);
    if (r->len - r->pos >= n && !strncmp(hit, end, n) && (r->pos + n == r->len || isspace((unsigned char)hit[n]))) {
      r->pos += n;
      PetscFunctionReturn(0);
    }
    r->pos++;
  }
}

static PetscErrorCode Parse(Reader *r)
{
  PetscFunctionBeginUser;
  PetscCall(ReadFormat(r));
  for (;;) {
    char name[64];
    SkipSpace(r);
    if (r->pos >= r->len) break;
    PetscCall(ReadWord(r, name, sizeof(name)));
    GMSH_CHECK(name[0] == '$' && name[1], "expected a section ($Nodes, $Elements ...), found '%.40s'", name);
    /* binary 4.1 data starts right after the section name's newline (a byte of it may look like space) */
    if (r->binary && r->version == 41 && r->pos < r->len && r->buf[r->pos] == '\n') r->pos++, r->line++;
    if (!strcmp(name, "$Nodes")) {
      if (r->version == 22) PetscCall(ReadNodes2(r));
      else PetscCall(ReadNodes4(r));
    } else if (!strcmp(name, "$Elements")) {
      GMSH_CHECK(!r->tri && !r->tet, "a second $Elements section");
      if (r->version == 22) PetscCall(ReadElements2(r));
      else PetscCall(ReadElements4(r));
    } else if (!strcmp(name, "$MeshFormat")) {
      GMSH_CHECK(PETSC_FALSE, "a second $MeshFormat section");
    } else PetscCall(SkipSection(r, name));
  }
  GMSH_CHECK(r->sorted, "no $Nodes section");
  GMSH_CHECK(r->ntet || r->ntri, "no tetrahedra, triangles or quadrilaterals: pbsim reads a volume or a surface mesh");
  PetscFunctionReturn(0);
}

/* Reads the whole file (a NUL after it ends every token). */
static PetscErrorCode Slurp(const char *path, char **buf, size_t *len)
{
  struct stat st;
  FILE *fp;
  size_t got;

  PetscFunctionBeginUser;
  fp = fopen(path, "rb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open mesh file '%s': %s", path, strerror(errno));
  if (fstat(fileno(fp), &st) || !S_ISREG(st.st_mode)) {
    (void)fclose(fp);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Mesh file '%s' is not a regular file", path);
  }
  if (PetscMalloc1((size_t)st.st_size + 1, buf)) {
    (void)fclose(fp);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "Cannot hold mesh file '%s' (%lld bytes) in memory", path, (long long)st.st_size);
  }
  got = fread(*buf, 1, (size_t)st.st_size, fp);
  (void)fclose(fp);
  (*buf)[got] = 0;
  *len = got;
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshRead_Gmsh(const char *path, SimMesh *mesh)
{
  Reader r;
  char *buf = NULL;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&r, sizeof(r)));
  PetscCall(Slurp(path, &buf, &r.len));
  r.path = path;
  r.buf = buf;
  r.line = 1;
  ierr = Parse(&r);
  PetscCall(PetscFree(buf));
  PetscCall(PetscFree(r.sorted));
  PetscCall(PetscFree(r.tag));
  if (!ierr) {
    /* a volume mesh keeps its tetrahedra (its triangles are boundary faces); a surface its triangles */
    mesh->nv = r.nv;
    mesh->xyz = r.xyz;
    if (r.ntet) {
      mesh->ntet = r.ntet, mesh->tet = r.tet;
      PetscCall(PetscFree(r.tri));
    } else {
      mesh->ntri = r.ntri, mesh->tri = r.tri;
      PetscCall(PetscFree(r.tet));
    }
  } else {
    PetscCall(PetscFree(r.xyz));
    PetscCall(PetscFree(r.tri));
    PetscCall(PetscFree(r.tet));
  }
  PetscCall(ierr);
  PetscFunctionReturn(0);
}
