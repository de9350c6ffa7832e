/* Anderson acceleration (type II, Walker & Ni 2011) of a fixed-point map, as Peng et al. 2018 use
 * it for local/global solvers; the energy safeguard around it is the caller's (pd.c). */
#include "solvers/pd/anderson.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

PetscErrorCode SimAndersonCreate(PetscInt n, PetscInt m, SimAnderson *aa)
{
  PetscFunctionBeginUser;
  PetscCheck(n > 0 && m >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Anderson: n = %" PetscInt_FMT ", m = %" PetscInt_FMT " (need > 0, >= 1)", n, m);
  PetscCall(PetscMemzero(aa, sizeof(*aa)));
  aa->n = n, aa->m = m;
  PetscCall(
      PetscMalloc6(m * n, &aa->dF, m * n, &aa->dG, n, &aa->fprev, n, &aa->gprev, m * m, &aa->gram, m * m + 2 * m, &aa->work));
  PetscFunctionReturn(0);
}

PetscErrorCode SimAndersonDestroy(SimAnderson *aa)
{
  PetscFunctionBeginUser;
  if (aa->dF) PetscCall(PetscFree6(aa->dF, aa->dG, aa->fprev, aa->gprev, aa->gram, aa->work));
  PetscCall(PetscMemzero(aa, sizeof(*aa)));
  PetscFunctionReturn(0);
}

void SimAndersonReset(SimAnderson *aa)
{
  aa->k = 0, aa->next = 0, aa->has_prev = PETSC_FALSE;
}

static PetscReal Dot(PetscInt n, const PetscReal *a, const PetscReal *b)
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

PetscErrorCode SimAndersonUpdate(SimAnderson *aa, const PetscReal *x, const PetscReal *g, PetscReal *xacc, PetscBool *accelerated)
{
  const PetscInt n = aa->n, m = aa->m;
  PetscReal *N = aa->work, *rhs = aa->work + m * m, *scale = rhs + m;
  int status;

  PetscFunctionBeginUser;
  /* new column: differences to the previous call's residual f = g - x and image g; only the Gram
   * row/column of the replaced slot changes (m dot products, not m^2) */
  if (aa->has_prev) {
    const PetscInt s = aa->next;
    PetscReal *df = aa->dF + s * n, *dg = aa->dG + s * n;
    for (PetscInt i = 0; i < n; i++) df[i] = (g[i] - x[i]) - aa->fprev[i], dg[i] = g[i] - aa->gprev[i];
    aa->k = PetscMin(aa->k + 1, m);
    aa->next = (s + 1) % m;
    for (PetscInt j = 0; j < aa->k; j++) aa->gram[s * m + j] = aa->gram[j * m + s] = Dot(n, df, aa->dF + j * n);
  }
  for (PetscInt i = 0; i < n; i++) aa->fprev[i] = g[i] - x[i], aa->gprev[i] = g[i];
  aa->has_prev = PETSC_TRUE;
  PetscCall(PetscArraycpy(xacc, g, n));
  *accelerated = PETSC_FALSE;
  if (aa->k == 0) PetscFunctionReturn(0);

  /* normal equations (dF^T dF) theta = dF^T f, with the columns scaled to unit length (a Jacobi
   * scaling: the differences shrink by orders of magnitude as the iteration converges, and
   * unscaled the Cholesky would see that spread as ill-conditioning); f is fprev now */
  for (PetscInt i = 0; i < aa->k; i++) {
    if (!(aa->gram[i * m + i] > 0)) { /* a zero difference: nothing to learn from this history */
      SimAndersonReset(aa);
      aa->has_prev = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
    scale[i] = 1 / PetscSqrtReal(aa->gram[i * m + i]);
  }
  for (PetscInt i = 0; i < aa->k; i++) {
    rhs[i] = scale[i] * Dot(n, aa->dF + i * n, aa->fprev);
    for (PetscInt j = 0; j < aa->k; j++) N[i * aa->k + j] = scale[i] * aa->gram[i * m + j] * scale[j];
  }
  {
    gsl_matrix_view Nm = gsl_matrix_view_array(N, (size_t)aa->k, (size_t)aa->k);
    gsl_vector_view bv = gsl_vector_view_array(rhs, (size_t)aa->k);
    gsl_error_handler_t *previous = gsl_set_error_handler_off(); /* not positive definite is an outcome here, not an abort */
    status = gsl_linalg_cholesky_decomp1(&Nm.matrix);
    if (status == GSL_SUCCESS) status = gsl_linalg_cholesky_svx(&Nm.matrix, &bv.vector);
    gsl_set_error_handler(previous);
  }
  if (status != GSL_SUCCESS) { /* linearly dependent differences: restart the history from this iterate */
    SimAndersonReset(aa);
    aa->has_prev = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  /* xacc = g - dG theta, theta_j = scale_j * rhs_j */
  for (PetscInt j = 0; j < aa->k; j++) {
    const PetscReal t = scale[j] * rhs[j], *dg = aa->dG + j * n;
    for (PetscInt i = 0; i < n; i++) xacc[i] -= t * dg[i];
  }
  *accelerated = PETSC_TRUE;
  PetscFunctionReturn(0);
}
