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
