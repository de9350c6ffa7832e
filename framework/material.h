/* SimMaterial: a hyperelastic material model, psi(F), P(F) = dpsi/dF and dP/dF, batched over
 * n deformation gradients (DESIGN §4). One implementation per file in materials/. */
#pragma once
#include <petscsys.h>
#include "framework/registry.h"

typedef struct _p_SimMaterial *SimMaterial;

/* Parameters common to every material. Lame parameters are derived from E and nu:
 * mu = E / (2 (1 + nu)), lambda = E nu / ((1 + nu)(1 - 2 nu)). */
typedef struct {
  PetscReal youngs;  /* E, Pa, > 0 */
  PetscReal poisson; /* nu, in (-1, 0.5) */
  PetscReal density; /* kg/m^3, > 0 */
  PetscReal mu, lambda;
  /* Strain limits [strain_min, strain_max] on the singular values of F, for materials that
   * support them (strain_limits below; today `arap`): 0 <= strain_min <= 1 <= strain_max,
   * default [1, 1] (no band). Options -<prefix>strain_min, -<prefix>strain_max. */
  PetscReal strain_min, strain_max;
} SimMaterialParams;

/* Shapes: F, P are 3x3 row-major (9 values each, F[3*i + j] = F_ij); dPdF is 9x9 row-major
 * (81 values each) with dPdF[9*(3i+j) + (3k+l)] = dP_ij / dF_kl. All ops work on n matrices at
 * once so that an element loop makes one call, not n indirect calls.
 * energy:  psi[e] for each F (J/m^3); may return +inf where the material is undefined (J <= 0
 *          for neo-Hookean), never NaN.
 * pk1:     P for each F.
 * hessian: dP/dF for each F; with psd true, the exact projection onto the PSD cone (eigenvalues
 *          of the 9x9 clamped at 0).
 * destroy: optional. */
typedef struct {
  PetscErrorCode (*energy)(SimMaterial, PetscInt n, const PetscReal *F, PetscReal *psi);
  PetscErrorCode (*pk1)(SimMaterial, PetscInt n, const PetscReal *F, PetscReal *P);
  PetscErrorCode (*hessian)(SimMaterial, PetscInt n, const PetscReal *F, PetscBool psd, PetscReal *dPdF);
  PetscErrorCode (*destroy)(SimMaterial);
} SimMaterialOps;

struct _p_SimMaterial {
  char name[64];
  SimMaterialParams par;
  SimMaterialOps ops;
  PetscBool inversion_safe; /* defined and smooth for det F <= 0 (tests check inverted F then) */
  PetscBool strain_limits;  /* uses par.strain_min/max (set by the constructor); others refuse them */
  void *data;
};

/* Constructor a material registration carries (SIM_KIND_MATERIAL): sets ops (and data); the
 * parameters are already in mat->par when it is called. */
typedef PetscErrorCode (*SimMaterialCreateFn)(SimMaterial);

/* Creates the material registered as `name`, reading -<prefix>youngs, -<prefix>poisson and
 * -<prefix>density (defaults 1e5 Pa, 0.3, 1000 kg/m^3), validated with messages naming the option
 * and its range (nu in (-1, 0.5)). */
PetscErrorCode SimMaterialCreate(SimRegistry reg, const char *name, const char *prefix, SimMaterial *mat);
/* Same, with the defaults a scene chooses (e.g. a stiff beam); the options still override them. */
PetscErrorCode SimMaterialCreateWithDefaults(SimRegistry reg, const char *name, const char *prefix, PetscReal youngs, PetscReal poisson,
                                             PetscReal density, SimMaterial *mat);
/* Same, with explicit parameters (tests, programs). */
PetscErrorCode SimMaterialCreateWithParams(SimRegistry reg, const char *name, PetscReal youngs, PetscReal poisson, PetscReal density,
                                           SimMaterial *mat);
PetscErrorCode SimMaterialEnergy(SimMaterial mat, PetscInt n, const PetscReal *F, PetscReal *psi);
PetscErrorCode SimMaterialPK1(SimMaterial mat, PetscInt n, const PetscReal *F, PetscReal *P);
PetscErrorCode SimMaterialHessian(SimMaterial mat, PetscInt n, const PetscReal *F, PetscBool psd, PetscReal *dPdF);
PetscErrorCode SimMaterialDestroy(SimMaterial *mat); /* accepts NULL */
