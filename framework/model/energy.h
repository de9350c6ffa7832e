/* Energy terms of the Lagrangian model: the public contract every term (springs, gravity,
 * colliders, FEM elements, ...) implements. */
#pragma once
#include <petscsys.h>

/* What a term contributes.
 * POTENTIAL:   E(x), a conservative energy; the force is -dE/dx.
 * DISSIPATION: a Rayleigh function D(x, v) = 1/2 v^T B(x) v, quadratic in v; the force is -dD/dv.
 *              Value, gradient and Hessian are taken with respect to v, the x-dependence of B
 *              is frozen (implicit integrators lag it at the start of the step). */
typedef enum { SIM_ENERGY_POTENTIAL, SIM_ENERGY_DISSIPATION } SimEnergyKind;

typedef struct _p_SimEnergy *SimEnergy;

/* Operations of one term. Arrays are flat, interleaved xyz per vertex (length 3*nv).
 * value:    *E = term value at (x, v)
 * gradient: g += dE/dx (potential) or dD/dv (dissipation); g is accumulated, never zeroed here
 * hessian:  writes 9 values per 3x3 block, row-major, into vals, in the order of the block
 *           pattern from `pattern` (the model assembles them with MatSetValuesCOO). With psd
 *           true each block set must be the exact PSD projection of the term's Hessian.
 * pattern:  nblocks and the block (row vertex, column vertex) pairs; called at setup, first with
 *           brow = bcol = NULL (count only), then with arrays of that length.
 *           A term without a Hessian (gravity) reports 0 blocks.
 * destroy:  frees data. */
typedef struct {
  PetscErrorCode (*value)(SimEnergy, const PetscReal *x, const PetscReal *v, PetscReal *E);
  PetscErrorCode (*gradient)(SimEnergy, const PetscReal *x, const PetscReal *v, PetscReal *g);
  PetscErrorCode (*hessian)(SimEnergy, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals);
  PetscErrorCode (*pattern)(SimEnergy, PetscInt *nblocks, PetscInt *brow, PetscInt *bcol);
  PetscErrorCode (*destroy)(SimEnergy);
} SimEnergyOps;

struct _p_SimEnergy {
  char name[64]; /* shown in logs: "spring", "gravity", "plane", ... */
  SimEnergyKind kind;
  SimEnergyOps ops;
  void *data;
};

/* Creation by an implementation: fills name, kind, ops and data. */
PetscErrorCode SimEnergyCreate(const char *name, SimEnergyKind kind, const SimEnergyOps *ops, void *data, SimEnergy *term);
PetscErrorCode SimEnergyDestroy(SimEnergy *term); /* accepts NULL */

/* The constructor an energy registration carries (SIM_KIND_ENERGY): builds the term from the
 * options database under `prefix` (e.g. "plane_") for the model it is added to. A registration
 * whose create is NULL is a term only scenes build (springs); it is listed for documentation. */
typedef struct _p_SimModel *SimModel;
typedef PetscErrorCode (*SimEnergyCreateFn)(SimModel model, const char *prefix, SimEnergy *term);
