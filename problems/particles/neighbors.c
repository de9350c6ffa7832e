/* Fixed-radius neighbour search: points binned into cells of the radius, sorted by the Morton code
 * of their cell (an LSD radix sort of 16-bit counting-sort passes: one pass below 65,536 codes),
 * the occupied cells' runs in a dense table over the bounding box (or, when the box has far more
 * cells than points, in a compact open-addressing hash of the occupied cells), CSR lists from the
 * 3^dim cells around each query (less the cells whose nearest point is beyond the radius). The
 * queries run in the Morton order of their cells, so that consecutive ones scan the same cells, into
 * a buffer whose runs are then moved to query order. */
#include "problems/particles/neighbors.h"

struct _p_SimNeighbors {
  PetscInt dim;
  PetscReal r, r2, inv;
  /* the last point set */
  PetscInt n;
  const PetscReal *x;
  PetscReal lo[3];
  PetscInt nc[3];
  PetscInt64 ncells;   /* cells of the bounding box */
  PetscBool hashed;    /* runs in the hash (sparse points) rather than the dense table */
  PetscInt64 *cell;    /* n: linear cell index of each point */
  PetscInt *perm;      /* n: points in Morton order */
  PetscReal *xs;       /* dim*n: coordinates in Morton order */
  PetscInt *start;     /* dense: ncells, first sorted slot of each cell; hashed: per hash slot */
  PetscInt *count;     /* the same: its number of points (0: empty) */
  PetscInt64 *hkey;    /* hashed: the cell in each hash slot (-1: free) */
  PetscInt hbits;      /* hashed: 2^hbits slots */
  PetscInt64 *key, *key2; /* n: Morton codes (radix sort buffers) */
  PetscInt *tmp;       /* n: radix sort buffer */
  PetscInt *hist;      /* 65536 */
  PetscInt cap, capcells;
  /* SimNeighborsFind: the query of each point (-1: none), the queries in Morton order, each query's
     run in the list buffer */
  PetscInt *qmap, *qorder, *qstart, *qcnt, capq;
  PetscInt *lbuf, lcap;
};

static inline PetscInt HashSlot(PetscInt64 cell, PetscInt bits)
{
  return (PetscInt)(((uint64_t)cell * 0x9E3779B97F4A7C15ULL) >> (64 - bits));
}

/* The run [*k0, *k0 + *cnt) of sorted slots of cell `cell` (cnt = 0 when it is empty). */
static inline void CellRun(const struct _p_SimNeighbors *nb, PetscInt64 cell, PetscInt *k0, PetscInt *cnt)
{
  if (!nb->hashed) {
    *k0 = nb->start[cell], *cnt = nb->count[cell];
    return;
  }
  const PetscInt mask = (1 << nb->hbits) - 1;
  for (PetscInt h = HashSlot(cell, nb->hbits);; h = (h + 1) & mask) {
    if (nb->hkey[h] == cell) {
      *k0 = nb->start[h], *cnt = nb->count[h];
      return;
    }
    if (nb->hkey[h] < 0) {
      *k0 = 0, *cnt = 0;
      return;
    }
  }
}

/* Spreads the low 21 bits of v so that bit k lands at bit 3k (3D) or the low 32 bits to 2k (2D). */
static inline PetscInt64 Spread3(PetscInt64 v)
{
  uint64_t x = (uint64_t)v & 0x1fffff;
  x = (x | x << 32) & 0x1f00000000ffffULL;
  x = (x | x << 16) & 0x1f0000ff0000ffULL;
  x = (x | x << 8) & 0x100f00f00f00f00fULL;
  x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
  x = (x | x << 2) & 0x1249249249249249ULL;
  return (PetscInt64)x;
}

static inline PetscInt64 Spread2(PetscInt64 v)
{
  uint64_t x = (uint64_t)v & 0xffffffffULL;
  x = (x | x << 16) & 0x0000ffff0000ffffULL;
  x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
  x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | x << 2) & 0x3333333333333333ULL;
  x = (x | x << 1) & 0x5555555555555555ULL;
  return (PetscInt64)x;
}

PetscInt64 SimMortonCode(PetscInt dim, const PetscInt c[3])
{
  if (dim == 2) return Spread2(c[0]) | Spread2(c[1]) << 1;
  return Spread3(c[0]) | Spread3(c[1]) << 1 | Spread3(c[2]) << 2;
}

PetscErrorCode SimNeighborsCreate(PetscInt dim, PetscReal radius, SimNeighbors *nb)
{
  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Neighbour search: dimension must be 2 or 3 (got %" PetscInt_FMT ")", dim);
  PetscCheck(radius > 0 && PetscIsNormalReal(radius), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Neighbour search: the radius must be > 0 (got %g)",
             (double)radius);
  PetscCall(PetscNew(nb));
  (*nb)->dim = dim;
  (*nb)->r = radius;
  (*nb)->r2 = radius * radius;
  (*nb)->inv = 1 / radius;
  PetscCall(PetscMalloc1(65536, &(*nb)->hist));
  PetscFunctionReturn(0);
}

PetscErrorCode SimNeighborsGetRadius(SimNeighbors nb, PetscReal *radius)
{
  PetscFunctionBeginUser;
  *radius = nb->r;
  PetscFunctionReturn(0);
}

/* One stable counting-sort pass of the keys' 16-bit digit `shift`: src order -> dst order. */
static void RadixPass(PetscInt n, int shift, PetscInt nbins, PetscInt *hist, const PetscInt *src, PetscInt *dst, const PetscInt64 *srckey,
                      PetscInt64 *dstkey)
{
  PetscInt sum = 0;

  for (PetscInt b = 0; b < nbins; b++) hist[b] = 0;
  for (PetscInt k = 0; k < n; k++) hist[(srckey[k] >> shift) & 0xffff]++;
  for (PetscInt b = 0; b < nbins; b++) {
    const PetscInt c = hist[b];
    hist[b] = sum;
    sum += c;
  }
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt slot = hist[(srckey[k] >> shift) & 0xffff]++;
    dst[slot] = src[k];
    dstkey[slot] = srckey[k];
  }
}

PetscErrorCode SimNeighborsSetPoints(SimNeighbors nb, PetscInt n, const PetscReal *x)
{
  const PetscInt dim = nb->dim;
  PetscReal lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  PetscInt64 maxkey = 0;
  PetscInt *src, *dst;
  PetscInt64 *ksrc, *kdst;

  PetscFunctionBeginUser;
  nb->n = n;
  nb->x = x;
  if (n > nb->cap) {
    PetscCall(PetscFree(nb->cell));
    PetscCall(PetscFree(nb->perm));
    PetscCall(PetscFree(nb->xs));
    PetscCall(PetscFree(nb->key));
    PetscCall(PetscFree(nb->key2));
    PetscCall(PetscFree(nb->tmp));
    PetscCall(PetscFree(nb->qmap));
    nb->cap = PetscMax(n, 3 * nb->cap / 2);
    PetscCall(PetscMalloc1(nb->cap, &nb->cell));
    PetscCall(PetscMalloc1(nb->cap, &nb->perm));
    PetscCall(PetscMalloc1(dim * nb->cap, &nb->xs));
    PetscCall(PetscMalloc1(nb->cap, &nb->key));
    PetscCall(PetscMalloc1(nb->cap, &nb->key2));
    PetscCall(PetscMalloc1(nb->cap, &nb->tmp));
    PetscCall(PetscMalloc1(nb->cap, &nb->qmap));
  }
  /* the bounding box (non-finite points are refused: they have no cell) */
  for (PetscInt d = 0; d < dim; d++) lo[d] = PETSC_MAX_REAL, hi[d] = -PETSC_MAX_REAL;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt d = 0; d < dim; d++) {
      const PetscReal v = x[dim * i + d];
      PetscCheck(isfinite(v), PETSC_COMM_SELF, PETSC_ERR_FP, "Neighbour search: point %" PetscInt_FMT " has a non-finite coordinate", i);
      lo[d] = PetscMin(lo[d], v), hi[d] = PetscMax(hi[d], v);
    }
  nb->ncells = 1;
  for (PetscInt d = 0; d < 3; d++) {
    if (d >= dim || n == 0) {
      nb->lo[d] = 0, nb->nc[d] = 1;
    } else {
      const PetscReal cells = (hi[d] - lo[d]) * nb->inv;
      PetscCheck(cells < 2e6, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
                 "Neighbour search: the points span %g m along axis %" PetscInt_FMT ", over 2e6 cells of the radius %g m", (double)(hi[d] - lo[d]), d,
                 (double)nb->r);
      nb->lo[d] = lo[d];
      nb->nc[d] = (PetscInt)cells + 1;
    }
    nb->ncells *= nb->nc[d];
  }
  /* a dense table while the box has at most a few cells per point, else a hash of the occupied cells */
  nb->hashed = (PetscBool)(nb->ncells > 4 * (PetscInt64)n + 4096);
  {
    PetscInt need;
    if (nb->hashed) {
      for (nb->hbits = 4; (1 << nb->hbits) < 2 * n; nb->hbits++) {}
      need = 1 << nb->hbits;
    } else need = (PetscInt)nb->ncells;
    if (need > nb->capcells) {
      PetscCall(PetscFree(nb->start));
      PetscCall(PetscFree(nb->count));
      PetscCall(PetscFree(nb->hkey));
      nb->capcells = PetscMax(need, 3 * nb->capcells / 2);
      PetscCall(PetscMalloc1(nb->capcells, &nb->start));
      PetscCall(PetscMalloc1(nb->capcells, &nb->count));
      PetscCall(PetscMalloc1(nb->capcells, &nb->hkey));
    }
  }
  /* 1. each point's cell and the Morton code of that cell */
  for (PetscInt i = 0; i < n; i++) {
    PetscInt c[3] = {0, 0, 0};
    for (PetscInt d = 0; d < dim; d++) {
      c[d] = (PetscInt)((x[dim * i + d] - nb->lo[d]) * nb->inv);
      c[d] = PetscMin(c[d], nb->nc[d] - 1);
    }
    nb->cell[i] = c[0] + nb->nc[0] * (c[1] + (PetscInt64)nb->nc[1] * c[2]);
    nb->key[i] = SimMortonCode(dim, c);
    nb->perm[i] = i;
    maxkey = PetscMax(maxkey, nb->key[i]);
  }
  /* 2. stable LSD radix sort of the points by Morton code, 16 bits per counting-sort pass */
  src = nb->perm, dst = nb->tmp, ksrc = nb->key, kdst = nb->key2;
  for (int shift = 0; shift == 0 || (maxkey >> shift) > 0; shift += 16) {
    PetscInt *t;
    PetscInt64 *kt;
    const PetscInt nbins = (PetscInt)PetscMin((PetscInt64)65536, (maxkey >> shift) + 1); /* the digits that occur */
    RadixPass(n, shift, nbins, nb->hist, src, dst, ksrc, kdst);
    t = src, src = dst, dst = t;
    kt = ksrc, ksrc = kdst, kdst = kt;
  }
  if (src != nb->perm) {
    PetscCall(PetscArraycpy(nb->perm, src, n));
    PetscCall(PetscArraycpy(nb->key, ksrc, n));
  }
  /* 3. the cell table (slots of each occupied cell) and the coordinates in sorted order */
  if (!nb->hashed) {
    for (PetscInt64 c = 0; c < nb->ncells; c++) nb->count[c] = 0, nb->start[c] = 0; /* an empty cell's run is [0, 0) */
    for (PetscInt k = 0; k < n; k++) {
      const PetscInt64 c = nb->cell[nb->perm[k]];
      if (!nb->count[c]) nb->start[c] = k;
      nb->count[c]++;
    }
  } else {
    const PetscInt mask = (1 << nb->hbits) - 1;
    for (PetscInt h = 0; h <= mask; h++) nb->hkey[h] = -1, nb->count[h] = 0;
    for (PetscInt k = 0; k < n;) { /* one run of equal cells at a time (the sort made them contiguous) */
      const PetscInt64 c = nb->cell[nb->perm[k]];
      PetscInt e = k + 1, h = HashSlot(c, nb->hbits);
      while (e < n && nb->cell[nb->perm[e]] == c) e++;
      while (nb->hkey[h] >= 0) h = (h + 1) & mask;
      nb->hkey[h] = c, nb->start[h] = k, nb->count[h] = e - k;
      k = e;
    }
  }
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt d = 0; d < dim; d++) nb->xs[dim * k + d] = x[dim * nb->perm[k] + d];
  PetscFunctionReturn(0);
}

/* Grows the buffer to hold at least `need` entries, keeping its contents. */
static PetscErrorCode BufGrow(PetscInt **buf, PetscInt *cap, PetscInt need)
{
  PetscFunctionBeginUser;
  *cap = PetscMax(PetscMax(1024, 2 * *cap), need);
  PetscCall(PetscRealloc(sizeof(PetscInt) * *cap, buf));
  PetscFunctionReturn(0);
}

/* The neighbours of the queries taken in the order `order` (of query indices q; NULL: 0..nq-1),
 * appended to nb->lbuf, query q's at lbuf[start[q] .. start[q] + cnt[q]). For a compile-time dim
 * (inlined with dim = 2 or 3, so that the distance test of a candidate is straight-line code; the same
 * operations in the same order as a loop over d, so the same lists). */
static inline __attribute__((always_inline)) PetscErrorCode FindDim(SimNeighbors nb, PetscInt nq, const PetscInt *query, const PetscInt *order,
                                                                    PetscInt *start, PetscInt *cnt, const PetscInt dim, const PetscBool half)
{
  const PetscInt nx = nb->nc[0], ny = nb->nc[1], nz = nb->nc[2], *perm = nb->perm, *qmap = nb->qmap;
  /* a cell is skipped when its nearest point is beyond the radius by a relative 1e-6 (far above the
     round-off of the faces' positions, so no neighbour is lost) */
  const PetscReal r2 = nb->r2, cut2 = nb->r2 * (1 + 1e-6), *xs = nb->xs;
  PetscInt len = 0;

  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < nq; t++) {
    const PetscInt q = order ? order[t] : t, i = query ? query[q] : q;
    const PetscInt64 ci = nb->cell[i];
    const PetscInt cx = (PetscInt)(ci % nx), cy = (PetscInt)((ci / nx) % ny), cz = (PetscInt)(ci / ((PetscInt64)nx * ny));
    const PetscReal *xi = nb->x + dim * i, x0 = xi[0], x1 = xi[1], x2 = dim == 3 ? xi[2] : 0;
    /* squared distances from x_i to the near faces of the cells below, at and above its own along
       each axis: a cell whose nearest point is beyond the radius holds no neighbour and is skipped */
    PetscReal f2[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    const PetscInt c[3] = {cx, cy, cz};
    start[q] = len;
    for (PetscInt d = 0; d < dim; d++) {
      const PetscReal face = nb->lo[d] + c[d] * nb->r;
      PetscReal below = xi[d] - face, above = face + nb->r - xi[d];
      /* a point clamped into the last cell or rounded across a face: no skipping on that side */
      if (!(below < nb->r)) below = 0;
      if (!(above < nb->r)) above = 0;
      below = PetscMax(below, 0), above = PetscMax(above, 0);
      f2[d][0] = below * below, f2[d][2] = above * above;
    }
    for (PetscInt z = PetscMax(cz - 1, 0); z <= PetscMin(cz + 1, nz - 1); z++)
      for (PetscInt y = PetscMax(cy - 1, 0); y <= PetscMin(cy + 1, ny - 1); y++) {
        const PetscReal fyz = f2[1][y - cy + 1] + f2[2][z - cz + 1];
        if (fyz >= cut2) continue;
        for (PetscInt x = PetscMax(cx - 1, 0); x <= PetscMin(cx + 1, nx - 1); x++) {
          if (fyz + f2[0][x - cx + 1] >= cut2) continue;
          PetscInt k0, n;
          CellRun(nb, x + nx * (y + (PetscInt64)ny * z), &k0, &n);
          const PetscInt k1 = k0 + n;
          if (len + n > nb->lcap) PetscCall(BufGrow(&nb->lbuf, &nb->lcap, len + n)); /* room for the whole cell: no check per point */
          PetscInt *lbuf = nb->lbuf;
          for (PetscInt k = k0; k < k1; k++) {
            const PetscReal *xk = xs + dim * k, d0 = xk[0] - x0, d1 = xk[1] - x1;
            PetscReal d2 = d0 * d0 + d1 * d1;
            if (dim == 3) {
              const PetscReal dz = xk[2] - x2;
              d2 += dz * dz;
            }
            if (d2 < r2) {
              const PetscInt j = perm[k];
              /* half: a pair of two queries once, in the list of the lower index */
              if (half ? !(qmap[j] < 0 || j > i) : j == i) continue;
              lbuf[len++] = j;
            }
          }
        }
      }
    cnt[q] = len - start[q];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Find(SimNeighbors nb, PetscInt nq, const PetscInt *query, PetscBool half, SimNeighborList *list)
{
  PetscInt *order = NULL, total = 0;

  PetscFunctionBeginUser;
  if (nq + 1 > list->capq) {
    PetscCall(PetscFree(list->offset));
    list->capq = nq + 1;
    PetscCall(PetscMalloc1(list->capq, &list->offset));
  }
  if (nq > nb->capq) {
    PetscCall(PetscFree(nb->qstart));
    PetscCall(PetscFree(nb->qcnt));
    PetscCall(PetscFree(nb->qorder));
    nb->capq = PetscMax(nq, 3 * nb->capq / 2);
    PetscCall(PetscMalloc1(nb->capq, &nb->qstart));
    PetscCall(PetscMalloc1(nb->capq, &nb->qcnt));
    PetscCall(PetscMalloc1(nb->capq, &nb->qorder));
  }
  /* the queries in the Morton order of their cells, so that consecutive queries scan the same cells
     (cache reuse at any size); the lists are moved to query order afterwards */
  for (PetscInt i = 0; i < nb->n; i++) nb->qmap[i] = -1;
  for (PetscInt q = 0; q < nq; q++) {
    const PetscInt i = query ? query[q] : q;
    PetscCheck(i >= 0 && i < nb->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Neighbour search: query point %" PetscInt_FMT " is not one of the %" PetscInt_FMT " points", i,
               nb->n);
    nb->qmap[i] = q;
  }
  {
    PetscInt t = 0;
    for (PetscInt k = 0; k < nb->n && t < nq; k++) {
      const PetscInt q = nb->qmap[nb->perm[k]];
      if (q >= 0) nb->qorder[t++] = q;
    }
    if (t == nq) order = nb->qorder; /* else a point was queried twice: the given order */
    PetscCheck(t == nq || !half, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Neighbour search: half lists need distinct query points");
  }
  if (half) {
    if (nb->dim == 3) PetscCall(FindDim(nb, nq, query, order, nb->qstart, nb->qcnt, 3, PETSC_TRUE));
    else PetscCall(FindDim(nb, nq, query, order, nb->qstart, nb->qcnt, 2, PETSC_TRUE));
  } else {
    if (nb->dim == 3) PetscCall(FindDim(nb, nq, query, order, nb->qstart, nb->qcnt, 3, PETSC_FALSE));
    else PetscCall(FindDim(nb, nq, query, order, nb->qstart, nb->qcnt, 2, PETSC_FALSE));
  }
  list->nq = nq;
  list->offset[0] = 0;
  for (PetscInt q = 0; q < nq; q++) list->offset[q + 1] = total += nb->qcnt[q];
  if (total > list->cap) {
    PetscCall(PetscFree(list->index));
    list->cap = PetscMax(total, 5 * list->cap / 4);
    PetscCall(PetscMalloc1(list->cap, &list->index));
  }
  for (PetscInt q = 0; q < nq; q++) {
    const PetscInt *src = nb->lbuf + nb->qstart[q];
    PetscInt *dst = list->index + list->offset[q];
    for (PetscInt k = 0; k < nb->qcnt[q]; k++) dst[k] = src[k];
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimNeighborsFind(SimNeighbors nb, PetscInt nq, const PetscInt *query, SimNeighborList *list)
{
  PetscFunctionBeginUser;
  PetscCall(Find(nb, nq, query, PETSC_FALSE, list));
  PetscFunctionReturn(0);
}

PetscErrorCode SimNeighborsFindHalf(SimNeighbors nb, PetscInt nq, const PetscInt *query, SimNeighborList *list)
{
  PetscFunctionBeginUser;
  PetscCall(Find(nb, nq, query, PETSC_TRUE, list));
  PetscFunctionReturn(0);
}

PetscErrorCode SimNeighborsGetOrder(SimNeighbors nb, const PetscInt **perm)
{
  PetscFunctionBeginUser;
  *perm = nb->perm;
  PetscFunctionReturn(0);
}

PetscErrorCode SimNeighborsGetCellCount(SimNeighbors nb, PetscInt64 *cells, PetscBool *hashed)
{
  PetscFunctionBeginUser;
  if (cells) *cells = nb->ncells;
  if (hashed) *hashed = nb->hashed;
  PetscFunctionReturn(0);
}

PetscErrorCode SimNeighborListFree(SimNeighborList *list)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(list->offset));
  PetscCall(PetscFree(list->index));
  list->nq = list->cap = list->capq = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode SimNeighborsDestroy(SimNeighbors *nb)
{
  PetscFunctionBeginUser;
  if (!nb || !*nb) PetscFunctionReturn(0);
  PetscCall(PetscFree((*nb)->cell));
  PetscCall(PetscFree((*nb)->perm));
  PetscCall(PetscFree((*nb)->xs));
  PetscCall(PetscFree((*nb)->key));
  PetscCall(PetscFree((*nb)->key2));
  PetscCall(PetscFree((*nb)->tmp));
  PetscCall(PetscFree((*nb)->start));
  PetscCall(PetscFree((*nb)->count));
  PetscCall(PetscFree((*nb)->hkey));
  PetscCall(PetscFree((*nb)->hist));
  PetscCall(PetscFree((*nb)->qmap));
  PetscCall(PetscFree((*nb)->qorder));
  PetscCall(PetscFree((*nb)->qstart));
  PetscCall(PetscFree((*nb)->qcnt));
  PetscCall(PetscFree((*nb)->lbuf));
  PetscCall(PetscFree(*nb));
  PetscFunctionReturn(0);
}
