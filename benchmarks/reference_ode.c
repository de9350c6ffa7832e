/* GSL odeiv2 reference solution of a small model: u = [x; v], u' = [v; a(x, v)], with scripted pins
 * and a per-case cache (see reference_ode.h). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include "benchmarks/reference_ode.h"

typedef struct {
  SimModel model;
  PetscInt n;          /* 3 nv */
  Vec X, V, A;         /* wrappers around the arrays below or GSL's (no storage of their own) */
  PetscReal *xk, *vk;  /* scratch: x and v with the scripted pins placed (kinematic scenes) */
  PetscReal *kp, *km;  /* scratch: pin positions at t +- delta */
  PetscErrorCode ierr; /* first PETSc error inside the right-hand side */
} ODEContext;

/* Pinned DOFs of x (and v) at their scripted motion at time t: positions model->kinematic(t),
 * velocities by a central difference of it. */
static PetscErrorCode PlacePins(ODEContext *c, PetscReal t, PetscReal *x, PetscReal *v)
{
  SimModel m = c->model;
  const PetscReal delta = 1e-6 * PetscMax(1, PetscAbsReal(t));

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(c->kp, x, c->n));
  PetscCall(PetscArraycpy(c->km, x, c->n));
  PetscCall(m->kinematic(m->kinematic_ctx, t, x));
  PetscCall(m->kinematic(m->kinematic_ctx, t + delta, c->kp));
  PetscCall(m->kinematic(m->kinematic_ctx, PetscMax(0, t - delta), c->km));
  for (PetscInt i = 0; i < m->nv; i++)
    if (m->pinned[i])
      for (int d = 0; d < 3; d++) v[3 * i + d] = (c->kp[3 * i + d] - c->km[3 * i + d]) / (t + delta - PetscMax(0, t - delta));
  PetscFunctionReturn(0);
}

static PetscErrorCode Acceleration(ODEContext *c, double t, const double y[], double a[])
{
  const PetscReal *x = y, *v = y + c->n;

  PetscFunctionBeginUser;
  if (c->model->kinematic) {
    PetscCall(PetscArraycpy(c->xk, y, c->n));
    PetscCall(PetscArraycpy(c->vk, y + c->n, c->n));
    PetscCall(PlacePins(c, t, c->xk, c->vk));
    x = c->xk, v = c->vk;
  }
  PetscCall(VecPlaceArray(c->X, x));
  PetscCall(VecPlaceArray(c->V, v));
  PetscCall(VecPlaceArray(c->A, a));
  PetscCall(SimModelAcceleration(c->model, c->X, c->V, c->A));
  PetscCall(VecResetArray(c->X));
  PetscCall(VecResetArray(c->V));
  PetscCall(VecResetArray(c->A));
  PetscFunctionReturn(0);
}

/* u' = f(u): the first half is v (0 on pinned DOFs: their positions are placed, not integrated), the
 * second the model's acceleration a(x, v). */
static int RHS(double t, const double y[], double f[], void *params)
{
  ODEContext *c = (ODEContext *)params;
  PetscErrorCode ierr;

  for (PetscInt k = 0; k < c->n; k++) f[k] = c->model->pinned[k / 3] ? 0 : y[c->n + k];
  ierr = Acceleration(c, t, y, f + c->n);
  if (ierr) {
    if (!c->ierr) c->ierr = ierr;
    return GSL_EBADFUNC;
  }
  return GSL_SUCCESS;
}

PetscErrorCode BenchReferenceTrajectory(SimModel model, const PetscReal x0[], const PetscReal v0[], PetscReal T, PetscInt nsamples,
                                        PetscReal rtol, PetscReal atol, PetscReal xs[], PetscReal vs[])
{
  ODEContext c = {0};
  gsl_odeiv2_system sys;
  gsl_odeiv2_driver *d;
  gsl_error_handler_t *previous;
  PetscReal *u, t = 0;
  int status = GSL_SUCCESS;

  PetscFunctionBeginUser;
  PetscCheck(model->nv <= BENCH_ODE_MAX_VERTICES, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "The GSL ODE reference is for small systems (at most %d vertices; this model has %" PetscInt_FMT
             "): use reference: finest",
             BENCH_ODE_MAX_VERTICES, model->nv);
  PetscCheck(T > 0 && rtol > 0 && atol > 0 && nsamples >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "ODE reference: T, rtol, atol must be > 0 and nsamples >= 1 (got %.6g, %.6g, %.6g, %" PetscInt_FMT ")", (double)T,
             (double)rtol, (double)atol, nsamples);
  c.model = model;
  c.n = 3 * model->nv;
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 3, c.n, NULL, &c.X));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 3, c.n, NULL, &c.V));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 3, c.n, NULL, &c.A));
  PetscCall(PetscMalloc5(2 * c.n, &u, c.n, &c.xk, c.n, &c.vk, c.n, &c.kp, c.n, &c.km));
  PetscCall(PetscArraycpy(u, x0, c.n));
  PetscCall(PetscArraycpy(u + c.n, v0, c.n));
  PetscCall(PetscArraycpy(xs, x0, c.n));
  PetscCall(PetscArraycpy(vs, v0, c.n));
  if (model->kinematic) PetscCall(PlacePins(&c, 0, xs, vs));

  sys.function = RHS;
  sys.jacobian = NULL; /* explicit method: no Jacobian */
  sys.dimension = (size_t)(2 * c.n);
  sys.params = &c;
  previous = gsl_set_error_handler_off();
  d = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, PetscMin(1e-6, T / nsamples), atol, rtol);
  if (d) {
    gsl_odeiv2_driver_set_nmax(d, 100000000);
    for (PetscInt k = 1; k <= nsamples && status == GSL_SUCCESS; k++) {
      status = gsl_odeiv2_driver_apply(d, &t, T * k / nsamples, u);
      if (status != GSL_SUCCESS) break;
      PetscCall(PetscArraycpy(xs + k * c.n, u, c.n));
      PetscCall(PetscArraycpy(vs + k * c.n, u + c.n, c.n));
      if (model->kinematic) PetscCall(PlacePins(&c, t, xs + k * c.n, vs + k * c.n));
    }
    gsl_odeiv2_driver_free(d);
  } else
    status = GSL_ENOMEM;
  gsl_set_error_handler(previous);
  PetscCall(c.ierr);
  PetscCheck(status == GSL_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "GSL odeiv2 reference failed at t = %.6g of %.6g: %s",
             (double)t, (double)T, gsl_strerror(status));
  PetscCall(PetscFree5(u, c.xk, c.vk, c.kp, c.km));
  PetscCall(VecDestroy(&c.X));
  PetscCall(VecDestroy(&c.V));
  PetscCall(VecDestroy(&c.A));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchReferenceODE(SimModel model, const PetscReal x0[], const PetscReal v0[], PetscReal T, PetscReal rtol,
                                 PetscReal atol, PetscReal xT[], PetscReal vT[])
{
  PetscInt n = 3 * model->nv;
  PetscReal *xs, *vs;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(2 * n, &xs, 2 * n, &vs));
  PetscCall(BenchReferenceTrajectory(model, x0, v0, T, 1, rtol, atol, xs, vs));
  PetscCall(PetscArraycpy(xT, xs + n, n));
  PetscCall(PetscArraycpy(vT, vs + n, n));
  PetscCall(PetscFree2(xs, vs));
  PetscFunctionReturn(0);
}

/* ---- the cache ---------------------------------------------------------------------------------- */

typedef struct {
  char *key;
  PetscInt n, nsamples;
  PetscReal T, rtol, atol;
  PetscReal *x0, *v0, *m; /* the initial state and masses the trajectory starts from */
  PetscReal *xs, *vs;
} RefEntry;

struct _p_BenchRefCache {
  PetscInt n, max, computed;
  RefEntry *e;
};

PetscErrorCode BenchRefCacheCreate(BenchRefCache *cache)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(cache));
  PetscFunctionReturn(0);
}

static PetscErrorCode EntryFree(RefEntry *e)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(e->key));
  PetscCall(PetscFree5(e->x0, e->v0, e->m, e->xs, e->vs));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRefCacheDestroy(BenchRefCache *cache)
{
  PetscFunctionBeginUser;
  if (!cache || !*cache) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < (*cache)->n; i++) PetscCall(EntryFree(&(*cache)->e[i]));
  PetscCall(PetscFree((*cache)->e));
  PetscCall(PetscFree(*cache));
  PetscFunctionReturn(0);
}

PetscInt BenchRefCacheComputed(BenchRefCache cache)
{
  return cache ? cache->computed : 0;
}

static PetscBool Same(PetscInt n, const PetscReal *a, const PetscReal *b)
{
  return (PetscBool)!memcmp(a, b, (size_t)n * sizeof(PetscReal));
}

PetscErrorCode BenchRefCacheGet(BenchRefCache cache, const char *key, SimModel model, PetscReal T, PetscInt nsamples, PetscReal rtol,
                                PetscReal atol, const PetscReal **xs, const PetscReal **vs)
{
  PetscInt n = 3 * model->nv, i;
  const PetscScalar *x, *v, *m;
  RefEntry *e = NULL;
  PetscBool hit = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(model->x, &x));
  PetscCall(VecGetArrayRead(model->v, &v));
  PetscCall(VecGetArrayRead(model->mass, &m));
  for (i = 0; i < cache->n; i++) {
    RefEntry *c = &cache->e[i];
    if (strcmp(c->key, key) || c->T != T || c->nsamples != nsamples || c->rtol != rtol || c->atol != atol) continue;
    e = c;
    hit = (PetscBool)(c->n == n && Same(n, c->x0, x) && Same(n, c->v0, v) && Same(n, c->m, m));
    break;
  }
  if (!hit) {
    if (e) PetscCall(EntryFree(e)); /* same key, another initial state: replace */
    else {
      if (cache->n == cache->max) {
        cache->max = cache->max ? 2 * cache->max : 8;
        PetscCall(PetscRealloc(sizeof(RefEntry) * cache->max, &cache->e));
      }
      e = &cache->e[cache->n++];
    }
    PetscCall(PetscMemzero(e, sizeof(*e)));
    PetscCall(PetscStrallocpy(key, &e->key));
    e->nsamples = nsamples, e->T = T, e->rtol = rtol, e->atol = atol;
    PetscCall(PetscMalloc5(n, &e->x0, n, &e->v0, n, &e->m, (nsamples + 1) * n, &e->xs, (nsamples + 1) * n, &e->vs));
    PetscCall(PetscArraycpy(e->x0, x, n));
    PetscCall(PetscArraycpy(e->v0, v, n));
    PetscCall(PetscArraycpy(e->m, m, n));
    e->n = 0; /* not usable until computed */
    PetscCall(BenchReferenceTrajectory(model, x, v, T, nsamples, rtol, atol, e->xs, e->vs));
    e->n = n;
    cache->computed++;
  }
  PetscCall(VecRestoreArrayRead(model->mass, &m));
  PetscCall(VecRestoreArrayRead(model->v, &v));
  PetscCall(VecRestoreArrayRead(model->x, &x));
  *xs = e->xs;
  *vs = e->vs;
  PetscFunctionReturn(0);
}
