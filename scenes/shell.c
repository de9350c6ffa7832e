/* Closed surfaces (shell.h): measure, closedness, the winding number and the Poisson-disc sampling
 * of the obstacles' boundary particles. */
#include <stdlib.h>
#include "scenes/shell.h"
#include "scenes/particle_fill.h"
#include "framework/linalg/vec3.h"

/* The disc radius r / spacing per dimension (index dim - 2). A maximal random Poisson-disc set covers
 * a line with one sample per 1.34 r (Renyi's parking constant 0.7476) and a plane with one per 1.44
 * r^2 (random sequential adsorption saturates at 54.7% of the plane with discs of radius r/2), so
 * these radii give about one sample per spacing (2D) or spacing^2 (3D); measured by
 * tests/unit/test_shell.c. The fill lattice's points are at most 0.12 spacing from any point of a
 * face, so r + 0.12 < 1 keeps every point within a spacing of a sample. */
static const PetscReal disc[2] = {0.75, 0.83};
static const PetscReal fill = 0.2;   /* fill lattice edge / spacing */
static const PetscReal darts = 12;   /* random candidates per spacing^(dim-1) of surface */

PetscErrorCode SimShellFree(SimShell *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(s->x));
  PetscCall(PetscFree(s->face));
  s->nv = s->nf = 0;
  PetscFunctionReturn(0);
}

void SimShellBounds(SimShell *s)
{
  for (PetscInt d = 0; d < 3; d++) s->lo[d] = s->hi[d] = 0;
  for (PetscInt d = 0; d < s->dim && s->nv; d++) s->lo[d] = PETSC_MAX_REAL, s->hi[d] = -PETSC_MAX_REAL;
  for (PetscInt i = 0; i < s->nv; i++)
    for (PetscInt d = 0; d < s->dim; d++) s->lo[d] = PetscMin(s->lo[d], s->x[s->dim * i + d]), s->hi[d] = PetscMax(s->hi[d], s->x[s->dim * i + d]);
}

/* The face's vertices as 3-vectors (z = 0 in 2D). */
static void FaceVertices(const SimShell *s, PetscInt f, PetscReal v[3][3])
{
  for (PetscInt k = 0; k < 3; k++)
    for (PetscInt d = 0; d < 3; d++) v[k][d] = 0;
  for (PetscInt k = 0; k < s->dim; k++)
    for (PetscInt d = 0; d < s->dim; d++) v[k][d] = s->x[s->dim * s->face[s->dim * f + k] + d];
}

static PetscReal FaceMeasure(const SimShell *s, PetscInt f)
{
  PetscReal v[3][3], a[3], b[3], c[3];

  FaceVertices(s, f, v);
  Vec3Sub(v[1], v[0], a);
  if (s->dim == 2) return Vec3Norm(a);
  Vec3Sub(v[2], v[0], b);
  Vec3Cross(a, b, c);
  return 0.5 * Vec3Norm(c);
}

PetscReal SimShellMeasure(const SimShell *s)
{
  PetscReal sum = 0;
  for (PetscInt f = 0; f < s->nf; f++) sum += FaceMeasure(s, f);
  return sum;
}

static int CompareEdge(const void *a, const void *b)
{
  const PetscInt *x = (const PetscInt *)a, *y = (const PetscInt *)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

PetscErrorCode SimShellIsClosed(const SimShell *s, PetscBool *closed, char *why, size_t len)
{
  PetscInt nbad = 0, first = -1, firstcount = 0;

  PetscFunctionBeginUser;
  *closed = PETSC_TRUE;
  if (why && len) why[0] = 0;
  if (s->dim == 2) { /* every vertex ends exactly two segments */
    PetscInt *uses;
    PetscCall(PetscCalloc1(s->nv + 1, &uses));
    for (PetscInt k = 0; k < 2 * s->nf; k++) uses[s->face[k]]++;
    for (PetscInt i = 0; i < s->nv; i++)
      if (uses[i] && uses[i] != 2) {
        if (first < 0) first = i, firstcount = uses[i];
        nbad++;
      }
    PetscCall(PetscFree(uses));
    if (nbad && why) PetscCall(PetscSNPrintf(why, len, "%" PetscInt_FMT " vertices not shared by exactly two segments, e.g. vertex %" PetscInt_FMT " (%g, %g) in %" PetscInt_FMT, nbad, first, (double)s->x[2 * first], (double)s->x[2 * first + 1], firstcount));
  } else { /* every edge shared by exactly two triangles */
    PetscInt *e, ne = 3 * s->nf, fe[2] = {0, 0};
    PetscCall(PetscMalloc1(2 * ne + 2, &e));
    for (PetscInt f = 0; f < s->nf; f++)
      for (PetscInt k = 0; k < 3; k++) {
        const PetscInt a = s->face[3 * f + k], b = s->face[3 * f + (k + 1) % 3];
        e[2 * (3 * f + k)] = PetscMin(a, b), e[2 * (3 * f + k) + 1] = PetscMax(a, b);
      }
    qsort(e, (size_t)ne, 2 * sizeof(PetscInt), CompareEdge);
    for (PetscInt k = 0; k < ne;) {
      PetscInt m = k + 1;
      while (m < ne && !CompareEdge(e + 2 * k, e + 2 * m)) m++;
      if (m - k != 2) {
        if (first < 0) first = k, firstcount = m - k, fe[0] = e[2 * k], fe[1] = e[2 * k + 1];
        nbad++;
      }
      k = m;
    }
    PetscCall(PetscFree(e));
    if (nbad && why)
      PetscCall(PetscSNPrintf(why, len, "%" PetscInt_FMT " edges not shared by exactly two triangles, e.g. the edge of vertices %" PetscInt_FMT " and %" PetscInt_FMT " in %" PetscInt_FMT, nbad, fe[0], fe[1], firstcount));
  }
  *closed = (PetscBool)(nbad == 0);
  PetscFunctionReturn(0);
}

PetscReal SimShellWinding(const SimShell *s, const PetscReal *p)
{
  PetscReal sum = 0;

  if (s->dim == 2) {
    for (PetscInt f = 0; f < s->nf; f++) {
      const PetscReal *u = s->x + 2 * s->face[2 * f], *w = s->x + 2 * s->face[2 * f + 1];
      const PetscReal a[2] = {u[0] - p[0], u[1] - p[1]}, b[2] = {w[0] - p[0], w[1] - p[1]};
      sum += PetscAtan2Real(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]);
    }
    return sum / (2 * PETSC_PI);
  }
  for (PetscInt f = 0; f < s->nf; f++) {
    PetscReal a[3], b[3], c[3], bc[3], la, lb, lc;
    Vec3Sub(s->x + 3 * s->face[3 * f], p, a);
    Vec3Sub(s->x + 3 * s->face[3 * f + 1], p, b);
    Vec3Sub(s->x + 3 * s->face[3 * f + 2], p, c);
    la = Vec3Norm(a), lb = Vec3Norm(b), lc = Vec3Norm(c);
    Vec3Cross(b, c, bc);
    sum += 2 * PetscAtan2Real(Vec3Dot(a, bc), la * lb * lc + Vec3Dot(a, b) * lc + Vec3Dot(b, c) * la + Vec3Dot(c, a) * lb);
  }
  return sum / (4 * PETSC_PI);
}

PetscBool SimShellInside(const SimShell *s, const PetscReal *p)
{
  for (PetscInt d = 0; d < s->dim; d++)
    if (p[d] < s->lo[d] || p[d] > s->hi[d]) return PETSC_FALSE;
  return (PetscBool)(PetscAbsReal(SimShellWinding(s, p)) > 0.5);
}

/* The samples so far in a grid of cells of the disc radius (a linked list per cell), so that a
 * candidate is tested against the samples of its 3^dim cells only. */
typedef struct {
  PetscInt dim, cells[3];
  PetscReal lo[3], r;
  PetscInt *head, *next;
  PetscInt n, cap;
  PetscReal *x;
} Darts;

static PetscInt CellOf(const Darts *g, const PetscReal *p, PetscInt c[3])
{
  c[0] = c[1] = c[2] = 0;
  for (PetscInt d = 0; d < g->dim; d++) c[d] = PetscMin(PetscMax((PetscInt)((p[d] - g->lo[d]) / g->r), 0), g->cells[d] - 1);
  return (c[2] * g->cells[1] + c[1]) * g->cells[0] + c[0];
}

/* Adds p unless a sample lies closer than r. */
static PetscErrorCode Throw(Darts *g, const PetscReal *p)
{
  const PetscInt dim = g->dim;
  PetscInt c[3], lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, cell;

  PetscFunctionBeginUser;
  cell = CellOf(g, p, c);
  for (PetscInt d = 0; d < dim; d++) lo[d] = PetscMax(c[d] - 1, 0), hi[d] = PetscMin(c[d] + 1, g->cells[d] - 1);
  for (PetscInt k = lo[2]; k <= hi[2]; k++)
    for (PetscInt j = lo[1]; j <= hi[1]; j++)
      for (PetscInt i = lo[0]; i <= hi[0]; i++)
        for (PetscInt q = g->head[(k * g->cells[1] + j) * g->cells[0] + i]; q >= 0; q = g->next[q]) {
          PetscReal r2 = 0;
          for (PetscInt d = 0; d < dim; d++) r2 += (p[d] - g->x[dim * q + d]) * (p[d] - g->x[dim * q + d]);
          if (r2 < g->r * g->r) PetscFunctionReturn(0);
        }
  if (g->n == g->cap) {
    g->cap = PetscMax(256, 2 * g->cap);
    PetscCall(PetscRealloc(sizeof(PetscReal) * dim * g->cap, &g->x));
    PetscCall(PetscRealloc(sizeof(PetscInt) * g->cap, &g->next));
  }
  for (PetscInt d = 0; d < dim; d++) g->x[dim * g->n + d] = p[d];
  g->next[g->n] = g->head[cell];
  g->head[cell] = g->n++;
  PetscFunctionReturn(0);
}

/* The point of face f at barycentric (u, v) (v unused on a segment). */
static void FacePoint(const SimShell *s, PetscInt f, PetscReal u, PetscReal v, PetscReal *p)
{
  const PetscInt dim = s->dim;
  const PetscReal *a = s->x + dim * s->face[dim * f], *b = s->x + dim * s->face[dim * f + 1];
  const PetscReal *c = dim == 3 ? s->x + 3 * s->face[3 * f + 2] : a;
  if (dim == 2) v = 0;
  for (PetscInt d = 0; d < dim; d++) p[d] = a[d] + u * (b[d] - a[d]) + v * (c[d] - a[d]);
}

static PetscReal LongestEdge(const SimShell *s, PetscInt f)
{
  PetscReal v[3][3], e[3], m = 0;
  FaceVertices(s, f, v);
  for (PetscInt k = 0; k < s->dim; k++) {
    Vec3Sub(v[(k + 1) % s->dim], v[k], e);
    m = PetscMax(m, Vec3Norm(e));
  }
  return m;
}

PetscErrorCode SimShellSample(const SimShell *s, PetscReal spacing, PetscInt *n, PetscReal **x)
{
  const PetscInt dim = s->dim;
  Darts g = {0};
  PetscReal total = 1;
  uint64_t seed = 20120712; /* fixed: the same samples on every rank and in every run */
  const PetscReal zero[2] = {0, 0}, one[2] = {1, 1};

  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "A surface is 2D or 3D (got %" PetscInt_FMT ")", dim);
  PetscCheck(spacing > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Surface sampling spacing must be > 0 (got %g)", (double)spacing);
  g.dim = dim;
  g.r = disc[dim - 2] * spacing;
  g.cells[1] = g.cells[2] = 1;
  for (PetscInt d = 0; d < dim; d++) {
    g.lo[d] = s->lo[d] - g.r;
    g.cells[d] = (PetscInt)((s->hi[d] - s->lo[d]) / g.r) + 3;
    total *= g.cells[d];
  }
  PetscCheck(total < 5e7, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Sampling a surface of extent %g at spacing %g needs %g cells (at most 5e7): the obstacle is too large for the fluid's spacing",
             (double)(s->hi[0] - s->lo[0]), (double)spacing, (double)total);
  PetscCall(PetscMalloc1((PetscInt)total, &g.head));
  for (PetscInt c = 0; c < (PetscInt)total; c++) g.head[c] = -1;
  /* dart throwing: random candidates on each face, in proportion to its measure */
  for (PetscInt f = 0; f < s->nf; f++) {
    const PetscInt m = (PetscInt)PetscCeilReal(darts * FaceMeasure(s, f) / PetscPowRealInt(spacing, dim - 1));
    for (PetscInt k = 0; k < m; k++) {
      PetscReal uv[2], p[3];
      SimFillBoxRandom(2, zero, one, 1, &seed, uv);
      if (uv[0] + uv[1] > 1) uv[0] = 1 - uv[0], uv[1] = 1 - uv[1]; /* uniform on the triangle */
      FacePoint(s, f, uv[0], uv[1], p);
      PetscCall(Throw(&g, p));
    }
  }
  /* maximal: a lattice of every face (edge <= fill spacing) adds the points still uncovered */
  for (PetscInt f = 0; f < s->nf; f++) {
    const PetscInt m = PetscMax(1, (PetscInt)PetscCeilReal(LongestEdge(s, f) / (fill * spacing)));
    for (PetscInt j = 0; j <= (dim == 3 ? m : 0); j++)
      for (PetscInt i = 0; i + j <= m; i++) {
        PetscReal p[3];
        FacePoint(s, f, (PetscReal)i / m, (PetscReal)j / m, p);
        PetscCall(Throw(&g, p));
      }
  }
  PetscCall(PetscFree(g.head));
  PetscCall(PetscFree(g.next));
  *n = g.n;
  *x = g.x;
  if (!*x) PetscCall(PetscMalloc1(1, x));
  PetscFunctionReturn(0);
}
