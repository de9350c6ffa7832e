/* Per-material conformance checks shared by test_materials.c (every registered material) and
 * test_add_material.c (a material defined in the test): derivatives against finite differences,
 * rest state, exact PSD projection against numerical eigenvalue clamping, rest tensor. */
#pragma once
#include "testing.h"
#include "framework/material.h"

#define MC_MAX_F 40

/* A set of test deformation gradients F = R1 diag(s) R2 (random rotations, fixed seed). */
typedef struct {
  PetscInt n;
  PetscReal F[MC_MAX_F][9];
  char label[MC_MAX_F][64];
} MaterialTestSet;

/* A random rotation (unit quaternion from the generator). */
PetscErrorCode MaterialTestRotation(PetscRandom rnd, PetscReal R[9]);
/* R1 diag(s) R2 with fresh random rotations. */
PetscErrorCode MaterialTestCompose(PetscRandom rnd, const PetscReal s[3], PetscReal F[9]);

/* The standard set: random s in [0.5, 1.5]^3, repeated and nearly repeated singular values (pairs
 * and triples), a pure rotation, a scaled rotation; with `inverted`, also F with det F < 0 (one
 * negative singular value, the smallest in magnitude, at least 0.05 below the others in
 * magnitude; repeated positive ones too). */
PetscErrorCode MaterialTestSetCreate(unsigned long seed, PetscBool inverted, MaterialTestSet *set);

/* What a check found: how many failures, and the first few messages (each naming the material, its
 * parameters and the case). The *Report functions record into one; the plain ones assert none. */
typedef struct {
  PetscInt failures;
  char text[2048];
} MaterialCheckReport;
/* Records a failure (printf-style message); keeps appending text while it fits. */
void MaterialCheckFail(MaterialCheckReport *r, const char *fmt, ...);

/* Derivatives: for each F of the set, P against central differences of psi and dP/dF against
 * differences of P, relative (Frobenius, scaled by max(|P|, mu) resp. max(|dP/dF|, mu)); the step h
 * sweeps 1e-3 .. 1e-7 and the best error must be < 1e-6 (pass on convergence). P must be
 * continuous and piecewise smooth: each column dP/dF_kl must match the central difference or one
 * of the one-sided ones (a tension-only fibre has a kink at I4 = 1, e.g. at F = R). */
void MaterialCheckDerivativesReport(SimMaterial mat, const MaterialTestSet *set, MaterialCheckReport *r);
void MaterialCheckDerivatives(SimMaterial mat, const MaterialTestSet *set);
/* psi(R) = 0 and P(R) = 0 (to 1e-10 (mu + |lambda|)) for random rotations R and R = I. */
void MaterialCheckRestReport(SimMaterial mat, unsigned long seed, MaterialCheckReport *r);
void MaterialCheckRest(SimMaterial mat, unsigned long seed);
/* dP/dF symmetric; the projected dP/dF has no eigenvalue below -1e-8 |dP/dF| and equals the
 * unprojected one with its eigenvalues clamped at 0 by GSL (gsl_eigen_symmv) to 1e-8 relative. */
void MaterialCheckProjectionReport(SimMaterial mat, const MaterialTestSet *set, MaterialCheckReport *r);
void MaterialCheckProjection(SimMaterial mat, const MaterialTestSet *set);
/* dP/dF(I) = mu_f mu (d_ik d_jl + d_il d_jk) + lambda_f lambda d_ij d_kl to 1e-10 relative, and the
 * same tensor rotated at F = R: dP/dF(R)_ijkl = sum R_ia R_kc C_ajcl. */
void MaterialCheckRestTensorReport(SimMaterial mat, PetscReal mu_f, PetscReal lambda_f, MaterialCheckReport *r);
void MaterialCheckRestTensor(SimMaterial mat, PetscReal mu_f, PetscReal lambda_f);
/* All of the above: the standard set (inverted F too when mat->inversion_safe), seed fixed. */
void MaterialCheckAllReport(SimMaterial mat, PetscReal mu_f, PetscReal lambda_f, MaterialCheckReport *r);
void MaterialCheckAll(SimMaterial mat, PetscReal mu_f, PetscReal lambda_f);

/* The conformance checks over a material's declared parameter ranges: `ndraws` parameter sets drawn
 * by GSL's mt19937 generator seeded with `seed`: E log-uniform in [1e3, 1e8] Pa, nu uniform in
 * [-0.5, 0.49], each declared parameter (mat->params) uniform in its [lo, hi] (parameters sharing a
 * count with one count, uniform in 1..n), and for materials with strain limits strain_min in [0.5, 1],
 * strain_max in [1, 1.5]. A set the material refuses (its setup's range error) is drawn again, up to
 * 20 times. Each set gets the checks of MaterialCheckAll with a fresh test set (the rest tensor
 * not with strain limits: inside the band dP/dF(I) = 0); failures are recorded with the drawn values. */
void MaterialCheckRangesReport(SimRegistry reg, const char *name, PetscReal mu_f, PetscReal lambda_f, unsigned long seed,
                               PetscInt ndraws, MaterialCheckReport *r);
void MaterialCheckRanges(SimRegistry reg, const char *name, PetscReal mu_f, PetscReal lambda_f, unsigned long seed,
                         PetscInt ndraws);
