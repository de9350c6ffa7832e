/* Mass properties of closed triangle meshes (Eberly, "Polyhedral Mass Properties (Revisited)",
 * after Mirtich 1996): volume integrals by the divergence theorem over the outward triangles. */
#pragma once
#include <petscsys.h>

/* Mass (density x volume), centre of mass and the inertia tensor about it (row-major 3x3) of the
 * solid a closed, outward-oriented triangle mesh bounds. A mesh with volume <= 0 (open, inside
 * out or flat) is an error. */
PetscErrorCode SimMeshMassProperties(PetscInt nv, const PetscReal *xyz, PetscInt ntri, const PetscInt *tri, PetscReal density, PetscReal *mass,
                                     PetscReal com[3], PetscReal inertia[9]);
/* Principal moments (ascending) and axes of a symmetric inertia tensor: inertia = R diag(Ip) R^T with R
 * a rotation (columns the axes, right-handed), by GSL's symmetric eigensolver. */
PetscErrorCode SimInertiaPrincipal(const PetscReal inertia[9], PetscReal Ip[3], PetscReal R[9]);
