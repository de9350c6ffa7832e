/* IPC broad phase (energies/ipc/broad_phase.h): a uniform spatial hash, a BVH over Morton-sorted
 * boxes, and brute force. */
#include <stdint.h>
#include <string.h>
#include "energies/ipc/broad_phase.h"

const char *const IPCBroadMethods[] = {"hash", "bvh", "brute", "IPCBroadMethod", "IPC_BROAD_", NULL};

struct _p_IPCBroad {
  IPCBroadMethod method;
  /* hash: (cell key, box) entries sorted by key, and an open-addressing table key -> first entry */
  PetscInt nent, capent;
  uint64_t *key, *key2;
  PetscInt *box, *box2;
  PetscInt tabsize;
  uint64_t *tabkey;
  PetscInt *tabstart;
  /* bvh: nodes with boxes; a leaf covers order[start, start + count) */
  PetscInt nnode, capnode, capbox;
  PetscReal *nlo, *nhi;
  PetscInt *left, *right, *start, *count, *order;
  uint64_t *code, *code2;
  PetscInt *order2;
};

PetscErrorCode IPCPairsFree(IPCPairs *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(p->pair));
  p->n = p->cap = 0;
  PetscFunctionReturn(0);
}

static inline PetscErrorCode Append(IPCPairs *p, PetscInt a, PetscInt b)
{
  PetscFunctionBeginUser;
  if (p->n == p->cap) {
    PetscInt *np;
    p->cap = p->cap ? 2 * p->cap : 1024;
    PetscCall(PetscMalloc1(2 * p->cap, &np));
    if (p->n) PetscCall(PetscArraycpy(np, p->pair, 2 * p->n));
    PetscCall(PetscFree(p->pair));
    p->pair = np;
  }
  p->pair[2 * p->n] = a, p->pair[2 * p->n + 1] = b;
  p->n++;
  PetscFunctionReturn(0);
}

static inline PetscBool Overlap(const PetscReal *alo, const PetscReal *ahi, const PetscReal *blo, const PetscReal *bhi)
{
  return (PetscBool)(alo[0] <= bhi[0] && blo[0] <= ahi[0] && alo[1] <= bhi[1] && blo[1] <= ahi[1] && alo[2] <= bhi[2] && blo[2] <= ahi[2]);
}

PetscErrorCode IPCBroadCreate(IPCBroadMethod method, IPCBroad *bp)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(bp));
  (*bp)->method = method;
  PetscFunctionReturn(0);
}

PetscErrorCode IPCBroadDestroy(IPCBroad *bp)
{
  IPCBroad b;

  PetscFunctionBeginUser;
  if (!bp || !*bp) PetscFunctionReturn(0);
  b = *bp;
  PetscCall(PetscFree4(b->key, b->key2, b->box, b->box2));
  PetscCall(PetscFree2(b->tabkey, b->tabstart));
  PetscCall(PetscFree7(b->nlo, b->nhi, b->left, b->right, b->start, b->count, b->order));
  PetscCall(PetscFree3(b->code, b->code2, b->order2));
  PetscCall(PetscFree(*bp));
  PetscFunctionReturn(0);
}

/* ---- brute force: every pair tested ---- */
static PetscErrorCode Brute(PetscInt na, const PetscReal *alo, const PetscReal *ahi, PetscInt nb, const PetscReal *blo, const PetscReal *bhi,
                            PetscBool self, IPCPairs *out)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < na; a++)
    for (PetscInt b = self ? a + 1 : 0; b < nb; b++)
      if (Overlap(alo + 3 * a, ahi + 3 * a, blo + 3 * b, bhi + 3 * b)) PetscCall(Append(out, a, b));
  PetscFunctionReturn(0);
}

/* ---- spatial hash ----
 * Cells of side h (the mean box extent) from the origin o (the low corner of set B). Every box of B
 * is entered in each cell it overlaps; a box of A looks in each cell it overlaps and reports an
 * overlapping box of B only in the cell that holds the low corner of their intersection, so each
 * pair is reported once without sorting the output. Cell coordinates fit 21 bits each (h is raised
 * when the scene would need more). */
#define CELL_BITS 21
#define CELL_MAX ((1 << CELL_BITS) - 1)

static inline uint64_t CellKey(PetscInt i, PetscInt j, PetscInt k)
{
  return ((uint64_t)i << (2 * CELL_BITS)) | ((uint64_t)j << CELL_BITS) | (uint64_t)k;
}

static inline PetscInt CellOf(PetscReal x, PetscReal o, PetscReal ih)
{
  const PetscReal c = PetscFloorReal((x - o) * ih);
  return c < 0 ? -1 : (c > CELL_MAX ? CELL_MAX + 1 : (PetscInt)c);
}

/* LSD radix sort of (key, box) by key, 16 bits per pass */
/* LSD radix sort of (key, val) by the low 16 * passes bits of key, 16 bits a pass; passes is even, so
 * the sorted data ends in the caller's key/val arrays (key2/val2 are scratch of the same size).
 * The spatial hash sorts 64-bit cell keys (4 passes), the BVH 30-bit Morton codes (2 passes). */
static void RadixSort(PetscInt n, int passes, uint64_t *key, PetscInt *val, uint64_t *key2, PetscInt *val2)
{
  PetscInt cnt[65536];
  for (int pass = 0; pass < passes; pass++) {
    const int shift = 16 * pass;
    PetscInt sum = 0;
    uint64_t *tk;
    PetscInt *tv;
    memset(cnt, 0, sizeof(cnt));
    for (PetscInt e = 0; e < n; e++) cnt[(key[e] >> shift) & 0xffff]++;
    for (PetscInt d = 0; d < 65536; d++) {
      const PetscInt c = cnt[d];
      cnt[d] = sum, sum += c;
    }
    for (PetscInt e = 0; e < n; e++) {
      const PetscInt dst = cnt[(key[e] >> shift) & 0xffff]++;
      key2[dst] = key[e], val2[dst] = val[e];
    }
    tk = key, key = key2, key2 = tk;
    tv = val, val = val2, val2 = tv;
  }
}

static inline PetscInt HashSlot(uint64_t key, PetscInt mask)
{
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return (PetscInt)(key & (uint64_t)mask);
}

static PetscErrorCode Hash(IPCBroad bp, PetscInt na, const PetscReal *alo, const PetscReal *ahi, PetscInt nb, const PetscReal *blo,
                           const PetscReal *bhi, PetscBool self, IPCPairs *out)
{
  PetscReal o[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, span = 0, h = 0, ih;
  PetscInt nent = 0, ncell = 0, mask;

  PetscFunctionBeginUser;
  if (!na || !nb) PetscFunctionReturn(0);
  for (PetscInt b = 0; b < nb; b++)
    for (int d = 0; d < 3; d++) o[d] = PetscMin(o[d], blo[3 * b + d]);
  for (PetscInt b = 0; b < nb; b++) {
    PetscReal e = 0;
    for (int d = 0; d < 3; d++) e = PetscMax(e, bhi[3 * b + d] - blo[3 * b + d]), span = PetscMax(span, bhi[3 * b + d] - o[d]);
    h += e;
  }
  for (PetscInt a = 0; a < na; a++) {
    PetscReal e = 0;
    for (int d = 0; d < 3; d++) e = PetscMax(e, ahi[3 * a + d] - alo[3 * a + d]);
    h += e;
  }
  h /= (na + nb);
  h = PetscMax(h, span / CELL_MAX); /* coordinates stay within 21 bits */
  if (!(h > 0)) h = 1;
  ih = 1 / h;
  /* count the entries, then fill them */
  for (PetscInt b = 0; b < nb; b++) {
    PetscInt n = 1;
    for (int d = 0; d < 3; d++) n *= CellOf(bhi[3 * b + d], o[d], ih) - CellOf(blo[3 * b + d], o[d], ih) + 1;
    nent += n;
  }
  if (nent > bp->capent) {
    PetscCall(PetscFree4(bp->key, bp->key2, bp->box, bp->box2));
    bp->capent = (PetscInt)(1.5 * nent) + 16;
    PetscCall(PetscMalloc4(bp->capent, &bp->key, bp->capent, &bp->key2, bp->capent, &bp->box, bp->capent, &bp->box2));
  }
  nent = 0;
  for (PetscInt b = 0; b < nb; b++) {
    PetscInt lo[3], hi[3];
    for (int d = 0; d < 3; d++) lo[d] = CellOf(blo[3 * b + d], o[d], ih), hi[d] = CellOf(bhi[3 * b + d], o[d], ih);
    for (PetscInt i = lo[0]; i <= hi[0]; i++)
      for (PetscInt j = lo[1]; j <= hi[1]; j++)
        for (PetscInt k = lo[2]; k <= hi[2]; k++) bp->key[nent] = CellKey(i, j, k), bp->box[nent++] = b;
  }
  RadixSort(nent, 4, bp->key, bp->box, bp->key2, bp->box2);
  for (PetscInt e = 0; e < nent; e++) ncell += (e == 0 || bp->key[e] != bp->key[e - 1]);
  /* the table: a power of two at least twice the number of cells */
  {
    PetscInt size = 64;
    while (size < 2 * ncell) size *= 2;
    if (size > bp->tabsize) {
      PetscCall(PetscFree2(bp->tabkey, bp->tabstart));
      PetscCall(PetscMalloc2(size, &bp->tabkey, size, &bp->tabstart));
      bp->tabsize = size;
    }
    mask = size - 1;
    for (PetscInt s = 0; s <= mask; s++) bp->tabstart[s] = -1;
  }
  for (PetscInt e = 0; e < nent; e++) {
    PetscInt s;
    if (e && bp->key[e] == bp->key[e - 1]) continue;
    for (s = HashSlot(bp->key[e], mask); bp->tabstart[s] >= 0; s = (s + 1) & mask) {}
    bp->tabkey[s] = bp->key[e], bp->tabstart[s] = e;
  }
  /* queries */
  for (PetscInt a = 0; a < na; a++) {
    const PetscReal *al = alo + 3 * a, *ah = ahi + 3 * a;
    PetscInt lo[3], hi[3];
    for (int d = 0; d < 3; d++) lo[d] = PetscMax(CellOf(al[d], o[d], ih), 0), hi[d] = PetscMin(CellOf(ah[d], o[d], ih), CELL_MAX);
    for (PetscInt i = lo[0]; i <= hi[0]; i++)
      for (PetscInt j = lo[1]; j <= hi[1]; j++)
        for (PetscInt k = lo[2]; k <= hi[2]; k++) {
          const uint64_t key = CellKey(i, j, k);
          PetscInt s = HashSlot(key, mask);
          while (bp->tabstart[s] >= 0 && bp->tabkey[s] != key) s = (s + 1) & mask;
          if (bp->tabstart[s] < 0) continue;
          for (PetscInt e = bp->tabstart[s]; e < nent && bp->key[e] == key; e++) {
            const PetscInt b = bp->box[e];
            const PetscReal *bl = blo + 3 * b, *bh = bhi + 3 * b;
            if (self && b <= a) continue;
            if (!Overlap(al, ah, bl, bh)) continue;
            /* report in the cell of the intersection's low corner only */
            if (CellOf(PetscMax(al[0], bl[0]), o[0], ih) != i || CellOf(PetscMax(al[1], bl[1]), o[1], ih) != j ||
                CellOf(PetscMax(al[2], bl[2]), o[2], ih) != k)
              continue;
            PetscCall(Append(out, a, b));
          }
        }
  }
  PetscFunctionReturn(0);
}

/* ---- BVH ----
 * Boxes of B sorted by the 30-bit Morton code of their centers (Karras 2012), then a binary tree by
 * halving index ranges (leaves of at most 4 boxes), node boxes refitted bottom-up; each box of A
 * descends it with an explicit stack. */
static inline uint32_t Spread10(uint32_t v)
{
  v = (v * 0x00010001u) & 0xFF0000FFu;
  v = (v * 0x00000101u) & 0x0F00F00Fu;
  v = (v * 0x00000011u) & 0xC30C30C3u;
  v = (v * 0x00000005u) & 0x49249249u;
  return v;
}

#define BVH_LEAF 4

/* node for order[s, s + n): returns its index; children first, then the node (post-order) */
static PetscInt BuildNode(IPCBroad bp, const PetscReal *blo, const PetscReal *bhi, PetscInt s, PetscInt n)
{
  const PetscInt id = bp->nnode++;
  PetscReal *lo = bp->nlo + 3 * id, *hi = bp->nhi + 3 * id;
  if (n <= BVH_LEAF) {
    bp->left[id] = bp->right[id] = -1, bp->start[id] = s, bp->count[id] = n;
    for (int d = 0; d < 3; d++) lo[d] = PETSC_MAX_REAL, hi[d] = -PETSC_MAX_REAL;
    for (PetscInt q = s; q < s + n; q++)
      for (int d = 0; d < 3; d++) lo[d] = PetscMin(lo[d], blo[3 * bp->order[q] + d]), hi[d] = PetscMax(hi[d], bhi[3 * bp->order[q] + d]);
    return id;
  }
  bp->count[id] = 0;
  bp->left[id] = BuildNode(bp, blo, bhi, s, n / 2);
  bp->right[id] = BuildNode(bp, blo, bhi, s + n / 2, n - n / 2);
  for (int d = 0; d < 3; d++) {
    lo[d] = PetscMin(bp->nlo[3 * bp->left[id] + d], bp->nlo[3 * bp->right[id] + d]);
    hi[d] = PetscMax(bp->nhi[3 * bp->left[id] + d], bp->nhi[3 * bp->right[id] + d]);
  }
  return id;
}

static PetscErrorCode BVH(IPCBroad bp, PetscInt na, const PetscReal *alo, const PetscReal *ahi, PetscInt nb, const PetscReal *blo,
                          const PetscReal *bhi, PetscBool self, IPCPairs *out)
{
  PetscReal o[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, top[3] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL};
  PetscInt stack[128], root;

  PetscFunctionBeginUser;
  if (!na || !nb) PetscFunctionReturn(0);
  if (nb > bp->capbox) {
    const PetscInt nn = 2 * nb + 1;
    PetscCall(PetscFree7(bp->nlo, bp->nhi, bp->left, bp->right, bp->start, bp->count, bp->order));
    PetscCall(PetscFree3(bp->code, bp->code2, bp->order2));
    PetscCall(PetscMalloc7(3 * nn, &bp->nlo, 3 * nn, &bp->nhi, nn, &bp->left, nn, &bp->right, nn, &bp->start, nn, &bp->count, nb, &bp->order));
    PetscCall(PetscMalloc3(nb, &bp->code, nb, &bp->code2, nb, &bp->order2));
    bp->capbox = nb;
  }
  for (PetscInt b = 0; b < nb; b++)
    for (int d = 0; d < 3; d++) {
      const PetscReal c = 0.5 * (blo[3 * b + d] + bhi[3 * b + d]);
      o[d] = PetscMin(o[d], c), top[d] = PetscMax(top[d], c);
    }
  for (PetscInt b = 0; b < nb; b++) {
    uint32_t q[3];
    for (int d = 0; d < 3; d++) {
      const PetscReal ext = top[d] - o[d], c = 0.5 * (blo[3 * b + d] + bhi[3 * b + d]);
      const PetscReal u = ext > 0 ? (c - o[d]) / ext : 0;
      q[d] = (uint32_t)PetscMin(1023.0, PetscMax(0.0, u * 1024));
    }
    bp->code[b] = (Spread10(q[0]) << 2) | (Spread10(q[1]) << 1) | Spread10(q[2]);
    bp->order[b] = b;
  }
  RadixSort(nb, 2, bp->code, bp->order, bp->code2, bp->order2);
  bp->nnode = 0;
  root = BuildNode(bp, blo, bhi, 0, nb);
  for (PetscInt a = 0; a < na; a++) {
    const PetscReal *al = alo + 3 * a, *ah = ahi + 3 * a;
    PetscInt top_ = 0;
    stack[top_++] = root;
    while (top_) {
      const PetscInt nd = stack[--top_];
      if (!Overlap(al, ah, bp->nlo + 3 * nd, bp->nhi + 3 * nd)) continue;
      if (bp->left[nd] < 0) {
        for (PetscInt q = bp->start[nd]; q < bp->start[nd] + bp->count[nd]; q++) {
          const PetscInt b = bp->order[q];
          if (self && b <= a) continue;
          if (Overlap(al, ah, blo + 3 * b, bhi + 3 * b)) PetscCall(Append(out, a, b));
        }
      } else {
        stack[top_++] = bp->left[nd];
        stack[top_++] = bp->right[nd];
      }
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode IPCBroadPairs(IPCBroad bp, PetscInt na, const PetscReal *alo, const PetscReal *ahi, PetscInt nb, const PetscReal *blo,
                             const PetscReal *bhi, PetscBool self, IPCPairs *out)
{
  PetscFunctionBeginUser;
  switch (bp->method) {
  case IPC_BROAD_HASH:
    PetscCall(Hash(bp, na, alo, ahi, nb, blo, bhi, self, out));
    break;
  case IPC_BROAD_BVH:
    PetscCall(BVH(bp, na, alo, ahi, nb, blo, bhi, self, out));
    break;
  default:
    PetscCall(Brute(na, alo, ahi, nb, blo, bhi, self, out));
  }
  PetscFunctionReturn(0);
}
