/* Springs: Hookean springs E = k/2 (|xi - xj| - L)^2 and their damping along the spring. */
#pragma once
#include "framework/model/model.h"

/* A growable list of springs that a scene fills before adding them to the model. */
typedef struct {
  PetscInt n, cap;
  PetscInt *pair;  /* 2n vertex indices */
  PetscReal *k;    /* stiffness, N/m, >= 0 */
  PetscReal *kd;   /* damping along the spring, N s/m, >= 0 */
} SimSpringList;

/* Appends a spring (i, j) with stiffness k and damping kd. Negative values or i == j are errors. */
PetscErrorCode SimSpringListAdd(SimSpringList *list, PetscInt i, PetscInt j, PetscReal k, PetscReal kd);
/* Adds the springs to the model as a term named `name` with rest lengths taken from the model's
 * current positions (model->x), and, when any kd > 0, a dissipation term "<name>_damping". */
PetscErrorCode SimSpringListAddToModel(SimSpringList *list, SimModel model, const char *name);
PetscErrorCode SimSpringListFree(SimSpringList *list);

/* The terms themselves (exposed for tests and for scenes with custom rest lengths).
 * SimSpringsCreate: n springs, pair[2n], rest[n] > 0, k[n] >= 0 (arrays are copied).
 * SimSpringDampingCreate: D(x, v) = sum kd/2 ((vi - vj) . d)^2, d = (xi - xj)/|xi - xj|. */
PetscErrorCode SimSpringsCreate(const char *name, PetscInt n, const PetscInt *pair, const PetscReal *rest,
                                const PetscReal *k, SimEnergy *term);
PetscErrorCode SimSpringDampingCreate(const char *name, PetscInt n, const PetscInt *pair, const PetscReal *kd,
                                      SimEnergy *term);
