/* Convex hulls of point sets in 3D: an incremental hull (each point, farthest from the first
 * tetrahedron's centroid first, replaces the faces it sees by a fan to their horizon),
 * deterministic for a given input. */
#pragma once
#include <petscsys.h>

/* The convex hull of n points: *nf outward triangles (3 * nf vertex indices into xyz, allocated,
 * caller frees). Points on or within eps of the hull are left out (eps relative to the bounding
 * box); coplanar faces come as several triangles. Fewer than 4 points, or all within eps of a plane,
 * is an error. */
PetscErrorCode SimConvexHull(PetscInt n, const PetscReal *xyz, PetscInt *nf, PetscInt **faces);

/* The features of a convex hull that contact needs: its faces as convex polygons (coplanar
 * triangles merged), their planes, and its edges with the two faces that meet there. */
typedef struct {
  PetscInt nface, nedge, maxloop; /* maxloop: the most vertices of one face */
  PetscReal *plane;               /* 4 * nface: outward unit normal n and offset d (n . x = d) */
  PetscInt *start, *loop;         /* face g's vertices loop[start[g] .. start[g + 1]), counter-clockwise seen from outside */
  PetscInt *edge;                 /* 4 * nedge: vertices u < v, the face holding u -> v in its loop, the face holding v -> u */
} SimHullFeatures;

/* The features of the closed outward triangle mesh (nv vertices xyz, nf triangles tri) of a convex
 * hull (SimConvexHull): triangles whose unit normals agree within 1e-9 form one face. A set of
 * coplanar triangles that is not one disc (not a convex hull's) is an error. */
PetscErrorCode SimHullFeaturesCreate(PetscInt nv, const PetscReal *xyz, PetscInt nf, const PetscInt *tri, SimHullFeatures *feat);
PetscErrorCode SimHullFeaturesDestroy(SimHullFeatures *feat);
