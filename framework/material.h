/* SimMaterial: a hyperelastic material model, psi(F), P(F) = dpsi/dF and dP/dF, batched over
 * n deformation gradients (DESIGN §4). One implementation per file in materials/. */
#pragma once
#include <stddef.h>
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

/* A material's own parameter, declared in a table (SimMaterial.params): read from
 * -<prefix><material>_<name> (e.g. -drop_mooney_rivlin_c01_ratio) in SimMaterialCreate, listed
 * by -help, set by SimMaterialSetParameter, and drawn uniformly in [lo, hi] by the conformance
 * test (tests/unit/material_checks.h), which is why the range must be finite: it is the range the
 * material claims to support, and is tested over. Values are PetscReal, stored in the material's
 * data struct (m->data) at `offset`; a vector parameter holds n values there (e.g. a direction);
 * with `count` set it holds 1..n values, how many at count_offset (a PetscInt), and parameters
 * sharing a count_offset are given (and drawn) with one count (e.g. Ogden's exponents and weights). */
#define SIM_MATERIAL_PARAM_MAX 4
typedef struct {
  const char *name;                      /* option suffix: letters, digits and _ */
  const char *help;                      /* one line for -help: meaning and unit */
  PetscInt n;                            /* values: 1 (a scalar), up to SIM_MATERIAL_PARAM_MAX */
  PetscReal def[SIM_MATERIAL_PARAM_MAX]; /* default values */
  PetscReal lo, hi;                      /* closed valid range of each value, finite */
  size_t offset;                         /* of the first value in m->data */
  PetscBool count;                       /* n is a maximum: the number given is stored at count_offset */
  size_t count_offset;                   /* of the PetscInt count in m->data (count only) */
  PetscInt ndef;                         /* count only: the number of default values */
} SimMaterialParam;

/* Shapes: F, P are 3x3 row-major (9 values each, F[3*i + j] = F_ij); dPdF is 9x9 row-major
 * (81 values each) with dPdF[9*(3i+j) + (3k+l)] = dP_ij / dF_kl. All ops work on n matrices at
 * once so that an element loop makes one call, not n indirect calls.
 * energy:  psi[e] for each F (J/m^3); may return +inf where the material is undefined (J <= 0
 *          for neo-Hookean), never NaN.
 * pk1:     P for each F.
 * hessian: dP/dF for each F; with psd true, the exact projection onto the PSD cone (eigenvalues
 *          of the 9x9 clamped at 0).
 * destroy: optional.
 * evaluate, setfromoptions, setup: optional, see below. */
typedef struct {
  PetscErrorCode (*energy)(SimMaterial, PetscInt n, const PetscReal *F, PetscReal *psi);
  PetscErrorCode (*pk1)(SimMaterial, PetscInt n, const PetscReal *F, PetscReal *P);
  PetscErrorCode (*hessian)(SimMaterial, PetscInt n, const PetscReal *F, PetscBool psd, PetscReal *dPdF);
  PetscErrorCode (*destroy)(SimMaterial);
  /* Optional (appended; SimMaterialEvaluate falls back to the ops above without it): the same
   * quantities from ONE decomposition of each F (e.g. its SVD), which the caller keeps between
   * calls at the same F: energies/fem.c keeps it per state, so the value, the gradient and both
   * Hessians at one x share one SVD per element.
   *   dec:      n * mat->ndec values, the material's own per-element data. have_dec false: computed
   *             here and stored; true: what an earlier call stored for these same F (only read).
   *   psi, P:   as energy and pk1; dPdF: the exact dP/dF; dPdF_psd: its PSD projection (as hessian
   *             with psd true). Any output may be NULL (not computed); both Hessians at once share
   *             their eigensystem. */
  PetscErrorCode (*evaluate)(SimMaterial, PetscInt n, const PetscReal *F, PetscReal *dec, PetscBool have_dec, PetscReal *psi,
                             PetscReal *P, PetscReal *dPdF, PetscReal *dPdF_psd);
  /* Optional (appended): options beyond the declared parameters (which are read for every material),
   * called inside the material's options block. */
  PetscErrorCode (*setfromoptions)(SimMaterial, PetscOptionItems *PetscOptionsObject);
  /* Optional (appended): derives the material's constants from m->par and its parameters and checks
   * what the ranges cannot (naming the option, see SimMaterialOptionName); called after the options
   * and after every SimMaterialSetParameter. */
  PetscErrorCode (*setup)(SimMaterial);
  /* Optional (appended): for a material whose dP/dF is exactly the analytic isotropic eigensystem
   * of framework/linalg/isotropic.h (SimIsotropicHessians of the SVD kept in dec), that eigensystem
   * instead of the 9x9: per F, SIM_MATERIAL_NEIG values: the 3x3 Hessian in the singular values
   * (9, symmetric), flip[3] and twist[3]. dec and have_dec as in evaluate (dec holds U, s, V). The FEM
   * term builds its element Hessians from it directly (energies/fem.c). */
  PetscErrorCode (*eigensystem)(SimMaterial, PetscInt n, const PetscReal *F, PetscReal *dec, PetscBool have_dec, PetscReal *eig);
} SimMaterialOps;

#define SIM_MATERIAL_NEIG 15

struct _p_SimMaterial {
  char name[64];
  SimMaterialParams par;
  SimMaterialOps ops;
  PetscBool inversion_safe; /* defined and smooth for det F <= 0 (tests check inverted F then) */
  PetscBool strain_limits;  /* uses par.strain_min/max (set by the constructor); others refuse them */
  void *data;
  PetscInt ndec; /* values per element of the evaluate op's decomposition (0 without the op) */
  /* set by the constructor when the material has its own parameters (values in data) */
  const SimMaterialParam *params;
  PetscInt nparams;
  char prefix[64];        /* the options prefix it was created with */
  PetscBool from_options; /* created by SimMaterialCreate(WithDefaults): messages name options */
  const void *model;      /* the description behind a material made by SimMaterialSetModel */
};

/* Constructor a material registration carries (SIM_KIND_MATERIAL): sets ops, and data, params and
 * nparams with the parameters' defaults (SimMaterialSetModel does all of it from a description);
 * the common parameters are already in mat->par when it is called. */
typedef PetscErrorCode (*SimMaterialCreateFn)(SimMaterial);

/* Creates the material registered as `name`, reading -<prefix>youngs, -<prefix>poisson and
 * -<prefix>density (defaults 1e5 Pa, 0.3, 1000 kg/m^3), validated with messages naming the option
 * and its range (nu in (-1, 0.5)), then its own parameters -<prefix><name>_<param> (declared
 * ranges) and its setfromoptions, then its setup. */
PetscErrorCode SimMaterialCreate(SimRegistry reg, const char *name, const char *prefix, SimMaterial *mat);
/* Same, with the defaults a scene chooses (e.g. a stiff beam); the options still override them. */
PetscErrorCode SimMaterialCreateWithDefaults(SimRegistry reg, const char *name, const char *prefix, PetscReal youngs,
                                             PetscReal poisson, PetscReal density, SimMaterial *mat);
/* Same, with explicit parameters (tests, programs). */
PetscErrorCode SimMaterialCreateWithParams(SimRegistry reg, const char *name, PetscReal youngs, PetscReal poisson,
                                           PetscReal density, SimMaterial *mat);
/* Sets one of the material's declared parameters (n values; a scalar: n = 1), checked against its
 * range, and runs the setup again (tests, programs). Errors: unknown name (the message lists the
 * declared ones), wrong count, out of range, or what setup refuses. */
PetscErrorCode SimMaterialSetParameter(SimMaterial mat, const char *param, PetscInt n, const PetscReal *values);
/* Reads a declared parameter: *n values (at most SIM_MATERIAL_PARAM_MAX) into values. */
PetscErrorCode SimMaterialGetParameter(SimMaterial mat, const char *param, PetscInt *n, PetscReal *values);
/* The text that names a parameter in messages: "-drop_mooney_rivlin_c01_ratio" when created with
 * options, "parameter c01_ratio" otherwise (len >= 128). */
PetscErrorCode SimMaterialOptionName(SimMaterial mat, const char *param, char *buf, size_t len);
PetscErrorCode SimMaterialEnergy(SimMaterial mat, PetscInt n, const PetscReal *F, PetscReal *psi);
PetscErrorCode SimMaterialPK1(SimMaterial mat, PetscInt n, const PetscReal *F, PetscReal *P);
PetscErrorCode SimMaterialHessian(SimMaterial mat, PetscInt n, const PetscReal *F, PetscBool psd, PetscReal *dPdF);
/* Any of psi, P, dPdF (exact) and dPdF_psd (projected) at once, sharing one decomposition per F
 * that the caller keeps in dec (n * mat->ndec values; may be NULL when mat->ndec is 0): have_dec
 * false computes and stores it, true reuses what a call at the same F stored (see the evaluate op).
 * Outputs are checked as by the single ops. */
PetscErrorCode SimMaterialEvaluate(SimMaterial mat, PetscInt n, const PetscReal *F, PetscReal *dec, PetscBool have_dec, PetscReal *psi,
                                   PetscReal *P, PetscReal *dPdF, PetscReal *dPdF_psd);
/* The eigensystem op (above) with its output checked (finite); PETSC_ERR_SUP without the op. */
PetscErrorCode SimMaterialEigensystem(SimMaterial mat, PetscInt n, const PetscReal *F, PetscReal *dec, PetscBool have_dec, PetscReal *eig);
PetscErrorCode SimMaterialDestroy(SimMaterial *mat); /* accepts NULL */
