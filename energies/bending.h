/* Quadratic isometric bending of a triangle mesh with a flat rest state (Bergou, Wardetzky, Harmon,
 * Zorin & Grinspun 2006, "A quadratic bending model for inextensible surfaces"):
 * E = sum_e 3 kb / (A_e1 + A_e2) / 2 |K_e x_e|^2 over the interior edges e, where x_e are the four
 * vertices of the two triangles sharing e and K_e their cotangent weights (the discrete mean
 * curvature normal of the hinge). Quadratic in x with a constant PSD Hessian. */
#pragma once
#include "framework/model/model.h"

/* Bending of the mesh (ntri triangles) at rest positions rest[3*nv], stiffness kb > 0 (N m). The
 * rest state must be flat: a hinge whose rest curvature vector K_e x_e is not zero (relative to its
 * edge lengths) is an error naming it, since the quadratic model is exact only around a flat rest. */
PetscErrorCode SimBendingCreate(const char *name, PetscInt nv, const PetscReal *rest, PetscInt ntri, const PetscInt *tri, PetscReal kb,
                                SimEnergy *term);
