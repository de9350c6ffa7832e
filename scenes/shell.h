/* Closed surfaces for the particle-fluid obstacles: a surface is `dim`-vertex faces (segments in 2D,
 * triangles in 3D) over dim-coordinate vertices. shell.c samples one with boundary particles at
 * about a fluid spacing and tells inside from outside; obstacle.c makes one from a name (a built-in
 * box or cylinder, or a mesh file) placed and scaled in a scene. */
#pragma once
#include <petscsys.h>

typedef struct {
  PetscInt dim;     /* 2: faces are segments; 3: triangles */
  PetscInt nv, nf;
  PetscReal *x;     /* dim * nv */
  PetscInt *face;   /* dim * nf, 0-based */
  PetscReal lo[3], hi[3]; /* bounding box (set by SimShellBounds) */
} SimShell;

PetscErrorCode SimShellFree(SimShell *s); /* accepts a zeroed surface */
/* Sets s->lo, s->hi from the vertices. */
void SimShellBounds(SimShell *s);
/* Total length (2D) or area (3D) of the faces. */
PetscReal SimShellMeasure(const SimShell *s);
/* Whether the surface is closed: in 3D every edge is shared by exactly two triangles, in 2D every
 * vertex by exactly two segments. If not, *why (len bytes) names the first offending edge or vertex
 * and how many there are. */
PetscErrorCode SimShellIsClosed(const SimShell *s, PetscBool *closed, char *why, size_t len);
/* The generalized winding number of a closed surface around point p (Jacobson et al. 2013): the sum
 * of the faces' signed solid angles (Van Oosterom & Strackee 1983) / 4 pi in 3D, angles / 2 pi in
 * 2D. About +-1 inside, 0 outside, whatever the orientation of the faces; robust on edges. */
PetscReal SimShellWinding(const SimShell *s, const PetscReal *p);
/* Whether p is inside (|winding| > 1/2); the bounding box rejects far points without the sum. */
PetscBool SimShellInside(const SimShell *s, const PetscReal *p);
/* Samples the surface with points about `spacing` apart: a Poisson-disc set (no two samples closer
 * than a disc radius r < spacing, set per dimension in shell.c) grown by dart throwing from random candidates on the faces
 * (a fixed seed: every rank and every run gets the same set), then made maximal over a fine lattice
 * of every face so that no point of the surface is farther than `spacing` from a sample. The disc
 * radius makes the surface per sample about spacing^(dim-1) (tests/unit/test_shell.c).
 * *n points in *x (dim each; PetscFree it). */
PetscErrorCode SimShellSample(const SimShell *s, PetscReal spacing, PetscInt *n, PetscReal **x);

/* The names of the built-in obstacles, for messages ("box, cylinder"). */
extern const char SimObstacleBuiltins[];
/* An obstacle's surface (obstacle.c): `name` is a built-in shape (box: the unit square or cube;
 * cylinder: the unit circle in 2D, in 3D a cylinder of unit diameter and length along z, 64 segments
 * round) or, in 3D, a mesh file SimMeshRead reads (its triangles, or the boundary faces of its
 * tetrahedra). The shape is centred on its bounding box, scaled so that its largest extent is 1, then
 * by size[d] along axis d, and moved to center. The surface must be closed (an error says why not);
 * `option` names the option in messages. */
PetscErrorCode SimObstacleCreate(const char *option, const char *name, PetscInt dim, const PetscReal center[3], const PetscReal size[3], SimShell *s);
