/* IPC broad phase: all pairs of overlapping axis-aligned boxes between two sets (or within one), by a
 * uniform spatial hash, a bounding volume hierarchy, or brute force (the reference the tests
 * compare both with). The boxes are the swept, dhat-inflated boxes of surface primitives. */
#pragma once
#include <petscsys.h>

typedef enum { IPC_BROAD_HASH = 0, IPC_BROAD_BVH, IPC_BROAD_BRUTE } IPCBroadMethod;
extern const char *const IPCBroadMethods[]; /* "hash", "bvh", "brute", then PETSc's enum tail */

/* A growing list of index pairs: pair[2k], pair[2k + 1]. */
typedef struct {
  PetscInt n, cap;
  PetscInt *pair;
} IPCPairs;
PetscErrorCode IPCPairsFree(IPCPairs *p);

/* Scratch of one broad-phase method, reused from call to call. */
typedef struct _p_IPCBroad *IPCBroad;
PetscErrorCode IPCBroadCreate(IPCBroadMethod method, IPCBroad *bp);
PetscErrorCode IPCBroadDestroy(IPCBroad *bp); /* accepts NULL */

/* Appends to out every pair (a, b) of box a of set A (na boxes: alo, ahi, 3 per box) and box b of
 * set B (nb boxes) that overlap (closed boxes: touching counts). self: A and B are the same set,
 * and only pairs a < b are reported. Each pair is reported once, in no particular order. */
PetscErrorCode IPCBroadPairs(IPCBroad bp, PetscInt na, const PetscReal *alo, const PetscReal *ahi, PetscInt nb, const PetscReal *blo,
                             const PetscReal *bhi, PetscBool self, IPCPairs *out);
