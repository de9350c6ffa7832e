/* Linear tetrahedral finite elements with a hyperelastic material: E = sum_e W_e psi(F_e),
 * F = Ds Dm^-1 (Sifakis & Barbic, "FEM simulation of 3D deformable solids", SIGGRAPH 2012 course). */
#pragma once
#include "framework/model/model.h"
#include "framework/material.h"

/* Builds the term for ntet tets (4 vertex indices each) at their rest positions rest[3*nv];
 * the term takes ownership of the material. An inverted or degenerate rest tet is an input error
 * naming the element. */
PetscErrorCode SimFEMCreate(const char *name, PetscInt nv, const PetscReal *rest, PetscInt ntet, const PetscInt *tet, SimMaterial mat,
                            SimEnergy *term);
/* Per-element material frames, for anisotropic materials: R (9 per tet, row-major rotations) turns
 * the material's axes into the element's, so that a material direction a (e.g. hgo's
 * -<prefix>hgo_fiber) lies along R_e a in element e. The material is evaluated at F R_e (through
 * Dm^-1 R_e: no cost per evaluation), P = P_mat(F R_e) R_e^T; isotropic materials are unaffected.
 * Vec3RotationBetween (framework/linalg/vec3.h) gives R_e from a and the element's fibre b_e.
 * Call once, after SimFEMCreate. Errors: R_e not a rotation (|R^T R - I| > 1e-10 or det R < 0). */
PetscErrorCode SimFEMSetMaterialFrames(SimEnergy term, const PetscReal *R);
/* Lumped masses: each vertex gets a quarter of the mass density * volume of every tet it touches. */
PetscErrorCode SimFEMAddLumpedMass(SimModel model, const PetscReal *rest, PetscInt ntet, const PetscInt *tet, PetscReal density);
/* Deformation gradients of every element at x (9 per tet, row-major; F R_e with material frames) and rest volumes; for tests
 * and monitors (e.g. min det F). */
PetscErrorCode SimFEMGetDeformation(SimEnergy term, const PetscReal *x, PetscInt *ntet, PetscReal *F, const PetscReal **volume);
/* Per-vertex elastic forces by the finite-volume method (Teran et al. 2003): each tet adds
 * -P (A1 N1 + A2 N2 + A3 N3) / 3 to each vertex, with A N the rest area-weighted outward normals of
 * the three faces incident to it. f is 3*nv, overwritten. Equal to -dE/dx for linear tets. */
PetscErrorCode SimFEMForcesFVM(SimEnergy term, const PetscReal *x, PetscReal *f);
/* The per-state cache (on by default): F, the material's decomposition (SVD), psi and P of every
 * element are computed once per distinct x (compared bitwise with the positions of the last call)
 * and shared by the value, the gradient, both Hessians, SimFEMGetDeformation and the FVM forces.
 * Off, every call recomputes everything (same values: tests compare both). */
PetscErrorCode SimFEMSetCache(SimEnergy term, PetscBool cache);
/* Element Hessians four at a time in AVX registers (default: where the CPU has AVX; bit for bit the
 * scalar code's values, which tests check with it off). */
PetscErrorCode SimFEMSetAVX(SimEnergy term, PetscBool avx);
