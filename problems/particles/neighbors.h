/* Fixed-radius neighbour search shared by the particle methods (SPH, PBF, MPM): a uniform grid of
 * cells of the search radius, the points sorted by cell in Morton (Z-) order with a counting sort,
 * rebuilt from scratch in linear time whenever the points move, and the neighbour lists as CSR.
 *
 * The neighbours of point i are the points j != i with |x_i - x_j| < radius (strictly), exactly the
 * set a brute-force double loop finds. Each list runs over the 3^dim cells around i in a fixed
 * order (x fastest), and inside a cell in increasing point index, so it is reproducible. Memory is
 * O(n) whatever the spread of the points: the cells are a dense table over the bounding box while
 * it has at most 4n + 4096 of them, otherwise a hash of the occupied ones. On several ranks, the points are a rank's
 * own particles followed by its ghosts (problems/particles/ghosts.h), and only the own ones are
 * queried. */
#pragma once
#include <petscsys.h>

typedef struct _p_SimNeighbors *SimNeighbors;

/* CSR neighbour lists of nq query points: the neighbours of query q are
 * index[offset[q] .. offset[q + 1]) (indices of the points given to SimNeighborsSetPoints). */
typedef struct {
  PetscInt nq;
  PetscInt *offset; /* nq + 1 */
  PetscInt *index;  /* offset[nq] */
  PetscInt cap;     /* allocated length of index */
  PetscInt capq;    /* allocated length of offset */
} SimNeighborList;

/* A search in dim = 2 or 3 dimensions for the radius r > 0 [m]. */
PetscErrorCode SimNeighborsCreate(PetscInt dim, PetscReal radius, SimNeighbors *nb);
PetscErrorCode SimNeighborsGetRadius(SimNeighbors nb, PetscReal *radius);
/* Sorts the n points x (dim*n, interleaved) into the cells of a grid over their bounding box
 * (O(n + cells)); the points must stay unchanged (and alive) until the next call. Non-finite
 * coordinates are an error naming the point. */
PetscErrorCode SimNeighborsSetPoints(SimNeighbors nb, PetscInt n, const PetscReal *x);
/* The neighbour lists of the points query[0..nq) (point indices; NULL: the points 0..nq-1) among
 * all the points; list is grown as needed and reused across calls (SimNeighborListFree frees it). */
PetscErrorCode SimNeighborsFind(SimNeighbors nb, PetscInt nq, const PetscInt *query, SimNeighborList *list);
/* Half lists, for sums that take each pair once and add its term to both points: as SimNeighborsFind,
 * except that a pair of two query points (distinct) is listed once, in the list of the lower point
 * index; a non-query neighbour (e.g. a boundary particle or a ghost) is listed for every query near
 * it, as in the full lists. */
PetscErrorCode SimNeighborsFindHalf(SimNeighbors nb, PetscInt nq, const PetscInt *query, SimNeighborList *list);
/* The points in Morton order of their cells (perm[k] is the k-th point; valid until the next
 * SimNeighborsSetPoints), e.g. to reorder particle data for locality. */
PetscErrorCode SimNeighborsGetOrder(SimNeighbors nb, const PetscInt **perm);
/* Cells of the grid over the last points' bounding box, and whether their runs went to a hash of the
 * occupied cells (sparse points: more than 4 n + 4096 cells) instead of a dense table. */
PetscErrorCode SimNeighborsGetCellCount(SimNeighbors nb, PetscInt64 *cells, PetscBool *hashed);
PetscErrorCode SimNeighborListFree(SimNeighborList *list);
PetscErrorCode SimNeighborsDestroy(SimNeighbors *nb); /* accepts NULL */

/* The Morton code of a cell (interleaved bits of c[0], c[1] (, c[2]); each c[d] < 2^21). */
PetscInt64 SimMortonCode(PetscInt dim, const PetscInt c[3]);
