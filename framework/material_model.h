/* SimMaterialSetModel: the one helper that turns an energy description into a material, so that a
 * material file holds only its maths (psi and its derivatives in singular values or in invariants,
 * optionally an anisotropic fibre term), its parameter table and a setup. */
#pragma once
#include "framework/material.h"
#include "framework/linalg/isotropic.h"

/* A fibre term psi_f(I4), I4 = |F a|^2 (framework/linalg/isotropic.h): psi gives
 * d = (psi_f, dpsi_f/dI4, d2psi_f/dI4^2); the unit direction a (3 PetscReal, in the reference frame
 * of the body, or of each element's material frame, see SimFEMSetMaterialFrames) is in the data
 * struct at `direction`. */
typedef struct {
  void (*psi)(const void *ctx, PetscReal I4, PetscReal d[3]);
  size_t direction;
} SimFibreEnergy;

/* The description. Exactly one of sigma.psi (the energy in singular values) and invariants.psi
 * (in the invariants of C); fibre.psi optional. The callbacks get ctx = the data struct (size > 0
 * bytes, zeroed, then the parameters' defaults, then setup) or, with size 0, &m->par (mu, lambda).
 *
 * What the helper does with it:
 *   - ops energy / pk1 / hessian / evaluate: one loop over the n F's (batched, no indirect call per
 *     element beyond the energy's own callbacks): the SVD F = U diag(s) V^T, psi, P = U diag(g) V^T,
 *     dP/dF from the analytic eigensystem (flip/twist from sigma.quotients, the invariants' closed
 *     forms, or SimIsotropicQuotients) with its exact PSD projection by clamping; with a fibre term,
 *     its P and dP/dF are added and the PSD projection is exact by a 9x9 eigendecomposition
 *     (framework/linalg/psd.h), the sum having no analytic eigensystem;
 *   - where the energy is not `defined`: psi = +inf, and P or dP/dF requested is an error naming J;
 *   - the parameters become options -<prefix><material>_<name> (framework/material.h), checked against
 *     their ranges, listed by -help, then setup derives the constants;
 *   - destroy calls the description's destroy (if any), then frees the data. */
typedef struct {
  SimIsotropicEnergy sigma;
  SimInvariantEnergy invariants;
  SimFibreEnergy fibre;
  size_t size;
  const SimMaterialParam *params;
  PetscInt nparams;
  PetscErrorCode (*setup)(SimMaterial);   /* optional: constants from m->par and the parameters, checks */
  PetscErrorCode (*destroy)(SimMaterial); /* optional: frees what setup allocated (the data struct itself is the helper's) */
  PetscBool inversion_safe;             /* defined and smooth for det F <= 0 (tests check inverted F) */
  PetscBool strain_limits;              /* reads m->par.strain_min/max (arap) */
} SimMaterialModel;

/* The whole constructor of a material described by `model` (which must outlive it: a static const):
 *   PetscErrorCode SimMaterialCreate_MooneyRivlin(SimMaterial m) { return SimMaterialSetModel(m, &mooney_rivlin); }
 * Errors: an inconsistent description (PETSC_ERR_PLIB). */
PetscErrorCode SimMaterialSetModel(SimMaterial m, const SimMaterialModel *model);
