/* Anderson acceleration of a fixed-point iteration x <- G(x) (Walker & Ni 2011; for local/global
 * solvers such as PD: Peng, Deng, Zhang & Liu 2018, "Anderson Acceleration for Geometry
 * Optimization and Physics Simulation", ACM TOG 37(4)), on flat arrays of n reals. */
#pragma once
#include <petscsys.h>

/* The history of the last m differences of iterates' images and residuals, in a ring. */
typedef struct {
  PetscInt n, m;      /* vector length; history size (>= 1) */
  PetscInt k;         /* columns stored, <= m */
  PetscInt next;      /* ring slot the next column goes to */
  PetscBool has_prev; /* fprev/gprev hold the previous call's f and g */
  PetscReal *dF, *dG; /* m*n, column j at j*n: f_i - f_{i-1} and g_i - g_{i-1} */
  PetscReal *fprev, *gprev;
  PetscReal *gram; /* m*m: gram[i*m + j] = dF_i . dF_j, kept up to date column by column */
  PetscReal *work; /* m*m + 2*m: the scaled normal matrix, its right-hand side, column scales */
} SimAnderson;

/* Allocates the history for vectors of n reals and m >= 1 columns; starts empty. */
PetscErrorCode SimAndersonCreate(PetscInt n, PetscInt m, SimAnderson *aa);
PetscErrorCode SimAndersonDestroy(SimAnderson *aa);
/* Forgets the history (the next Update starts a new one): after a change of the map G
 * (refactorization) or a rejected accelerated iterate. */
void SimAndersonReset(SimAnderson *aa);

/* One Anderson step from the current iterate x and its image g = G(x) (n each):
 *   f = g - x; with the stored differences dF, dG (k columns),
 *   theta = argmin || f - dF theta ||_2    (normal equations, k x k, GSL Cholesky),
 *   xacc = g - dG theta.
 * Then (f, g) join the history. With an empty history, or when the normal matrix is not
 * numerically positive definite (the history is then dropped), xacc = g and *accelerated is
 * false. xacc may not alias x or g. */
PetscErrorCode SimAndersonUpdate(SimAnderson *aa, const PetscReal *x, const PetscReal *g, PetscReal *xacc,
                                 PetscBool *accelerated);
