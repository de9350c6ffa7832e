/* GSL odeiv2 reference solution of a small model: u = [x; v], u' = [v; a(x, v)] (see reference_ode.h). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include "benchmarks/reference_ode.h"

typedef struct {
  SimModel model;
  PetscInt n;          /* 3 nv */
  Vec X, V, A;         /* wrappers around GSL's arrays (no storage of their own) */
  PetscErrorCode ierr; /* first PETSc error inside the right-hand side */
} ODEContext;

/* u' = f(u): the first half is v, the second the model's acceleration a(x, v). */
static int RHS(double t, const double y[], double f[], void *params)
{
  ODEContext *c = (ODEContext *)params;
  PetscErrorCode ierr;

  for (PetscInt k = 0; k < c->n; k++) f[k] = y[c->n + k];
  ierr = VecPlaceArray(c->X, y);
  if (!ierr) ierr = VecPlaceArray(c->V, y + c->n);
  if (!ierr) ierr = VecPlaceArray(c->A, f + c->n);
  if (!ierr) ierr = SimModelAcceleration(c->model, c->X, c->V, c->A);
  if (!ierr) ierr = VecResetArray(c->X);
  if (!ierr) ierr = VecResetArray(c->V);
  if (!ierr) ierr = VecResetArray(c->A);
  if (ierr) {
    if (!c->ierr) c->ierr = ierr;
    return GSL_EBADFUNC;
  }
  return GSL_SUCCESS;
}

PetscErrorCode BenchReferenceODE(SimModel model, const PetscReal x0[], const PetscReal v0[], PetscReal T, PetscReal rtol,
                                 PetscReal atol, PetscReal xT[], PetscReal vT[])
{
  ODEContext c = {0};
  gsl_odeiv2_system sys;
  gsl_odeiv2_driver *d;
  gsl_error_handler_t *previous;
  PetscReal *u, t = 0;
  int status;

  PetscFunctionBeginUser;
  PetscCheck(model->nv <= BENCH_ODE_MAX_VERTICES, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "The GSL ODE reference is for small systems (at most %d vertices; this model has %" PetscInt_FMT
             "): use reference: finest",
             BENCH_ODE_MAX_VERTICES, model->nv);
  PetscCheck(T > 0 && rtol > 0 && atol > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "ODE reference: T, rtol, atol must be > 0 (got %.6g, %.6g, %.6g)", (double)T, (double)rtol, (double)atol);
  c.model = model;
  c.n = 3 * model->nv;
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 3, c.n, NULL, &c.X));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 3, c.n, NULL, &c.V));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 3, c.n, NULL, &c.A));
  PetscCall(PetscMalloc1(2 * c.n, &u));
  PetscCall(PetscArraycpy(u, x0, c.n));
  PetscCall(PetscArraycpy(u + c.n, v0, c.n));

  sys.function = RHS;
  sys.jacobian = NULL; /* explicit method: no Jacobian */
  sys.dimension = (size_t)(2 * c.n);
  sys.params = &c;
  previous = gsl_set_error_handler_off();
  d = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, PetscMin(1e-6, T), atol, rtol);
  if (d) {
    gsl_odeiv2_driver_set_nmax(d, 100000000);
    status = gsl_odeiv2_driver_apply(d, &t, T, u);
    gsl_odeiv2_driver_free(d);
  } else
    status = GSL_ENOMEM;
  gsl_set_error_handler(previous);
  PetscCall(c.ierr);
  PetscCheck(status == GSL_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "GSL odeiv2 reference failed at t = %.6g of %.6g: %s",
             (double)t, (double)T, gsl_strerror(status));
  PetscCall(PetscArraycpy(xT, u, c.n));
  PetscCall(PetscArraycpy(vT, u + c.n, c.n));
  PetscCall(PetscFree(u));
  PetscCall(VecDestroy(&c.X));
  PetscCall(VecDestroy(&c.V));
  PetscCall(VecDestroy(&c.A));
  PetscFunctionReturn(0);
}
