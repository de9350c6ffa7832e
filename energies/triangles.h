/* Triangle strain (membrane) of a cloth or shell: the as-rigid-as-possible energy of the 3x2
 * deformation gradient of each triangle, E = sum_t mu A_t |F_t - R_t|_F^2, with R_t the closest
 * matrix with orthonormal columns (Bouaziz et al. 2014, triangle strain constraints). */
#pragma once
#include "framework/model/model.h"

/* ntri triangles (3 vertex indices each) at rest positions rest[3*nv]; mu > 0 is the membrane
 * stiffness (N/m: energy per area at unit strain). A degenerate rest triangle or an index out of
 * range is an input error naming it. */
PetscErrorCode SimTrianglesCreate(const char *name, PetscInt nv, const PetscReal *rest, PetscInt ntri, const PetscInt *tri,
                                  PetscReal mu, SimEnergy *term);
