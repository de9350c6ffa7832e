/* Meshes read from files or generated: vertices with triangles and/or tetrahedra. */
#pragma once
#include <petscsys.h>

typedef struct {
  PetscInt nv;
  PetscReal *xyz;  /* 3*nv */
  PetscInt ntri;
  PetscInt *tri;   /* 3*ntri, 0-based */
  PetscInt ntet;
  PetscInt *tet;   /* 4*ntet, 0-based */
} SimMesh;

/* Reads a mesh by file extension: .obj (triangles; polygons fan-triangulated), .msh (Gmsh 2.2, 4.0,
 * 4.1, ASCII or binary: tetrahedra, or triangles for a surface mesh), .node/.ele (TetGen; either
 * name given). A missing file, an unknown extension, or malformed content is an error naming the
 * file (and the line, where the reader knows it): an index that names no vertex, a coordinate that
 * is not finite, a header count larger than the rest of the file (before anything is allocated),
 * a NUL byte in a text format. */
PetscErrorCode SimMeshRead(MPI_Comm comm, const char *path, SimMesh *mesh);
PetscErrorCode SimMeshFree(SimMesh *mesh); /* accepts a zeroed mesh */

/* Unique undirected edges of all triangles and tetrahedra: *edges has 2*nedge entries, i < j,
 * sorted. Caller frees with PetscFree. */
PetscErrorCode SimMeshEdges(const SimMesh *mesh, PetscInt *nedge, PetscInt **edges);
/* The hinges of ntri triangles: every edge shared by exactly two triangles (with distinct third
 * vertices), as (i, j, o1, o2) with i < j the edge and o1, o2 the opposite vertices (o1 from the
 * lower-numbered triangle), sorted by edge. Caller frees *hinges (4*nhinge). */
PetscErrorCode SimMeshHinges(PetscInt ntri, const PetscInt *tri, PetscInt *nhinge, PetscInt **hinges);
/* For every hinge of the mesh's triangles, the pair of vertices opposite to it (the classic
 * "bending spring"). Caller frees *pairs (2*npairs). */
PetscErrorCode SimMeshBendingPairs(const SimMesh *mesh, PetscInt *npairs, PetscInt **pairs);
/* Boundary faces of the tetrahedra (faces used by one tet), oriented outward. Caller frees. */
PetscErrorCode SimMeshBoundaryFaces(const SimMesh *mesh, PetscInt *nface, PetscInt **faces);

/* A box [lo, hi] split into n[0] x n[1] x n[2] cells, each cell into 6 tetrahedra sharing the
 * cell's main diagonal (Kuhn subdivision: conforming across cells, all tets positive).
 * Vertex (i, j, k) has index (k (n[1] + 1) + j) (n[0] + 1) + i. */
PetscErrorCode SimMeshCreateBox(const PetscInt n[3], const PetscReal lo[3], const PetscReal hi[3], SimMesh *mesh);
