/* Implicit Euler, BDF2 and the implicit midpoint rule as one table of variants, each step one
 * minimization of the incremental potential by the shared Newton minimizer (framework/newton). */
#include "framework/solver_impl.h"
#include "problems/mesh/mesh.h"
#include "framework/newton/newton.h"

/* A variant is data. With the last two states (x_n, v_n), (x_{n-1}, v_{n-1}) and the step h:
 *
 *   Xb = a0 x_n + a1 x_{n-1},   Vb = a0 v_n + a1 v_{n-1},   beta = b h
 *   x* = argmin Phi(x) with y = Xb + beta Vb, X = Xb, xd = x_n   (Phi: framework/newton/newton.h)
 *   v* = (x* - Xb) / beta
 *   x_{n+1} = Xb + theta (x* - Xb),   v_{n+1} = Vb + theta (v* - Vb)
 *
 * The minimizer satisfies x* = Xb + beta v* and M (v* - Vb) = beta f(x*, v*), f = -dE/dx - dD/dv
 * (grad Phi = 0 with M (x* - y)/beta^2 = M (v* - Vb)/beta), so:
 *   implicit Euler  (b = 1,   a = (1, 0),        theta = 1):  x1 = x0 + h v1, v1 = v0 + h M^-1 f1;
 *   BDF2            (b = 2/3, a = (4/3, -1/3),   theta = 1):  x1 - 4/3 x0 + 1/3 x_-1 = 2h/3 v1, and
 *                                                             the same for v with M^-1 f1;
 *   implicit midpoint (b = 1/2, a = (1, 0),      theta = 2):  x* = x_m = (x0 + x1)/2, v* = v_m =
 *        (v0 + v1)/2 satisfy x_m = x0 + h/2 v_m, v_m = v0 + h/2 M^-1 f(x_m, v_m), which is the
 *        midpoint rule y1 = y0 + h F((y0 + y1)/2) for y = (x, v); then x1 = 2 x_m - x0 and
 *        v1 = 2 v_m - v0 = 4 (x_m - x0)/h - v0.
 * Multistep variants (a1 != 0) take their first step, and any step whose h differs from the last
 * one (the fixed coefficients assume a constant step), with implicit Euler.
 * The dissipation terms take their directions at lagged positions xd (energy.h): x_n for implicit
 * Euler, and for the second-order schemes the inertial target y, which is within
 * beta^2 M^-1 f = O(h^2) of x* (where the scheme evaluates its forces); lagging them at x_n instead
 * costs O(h) in the damping force and makes BDF2 and the midpoint rule first order on a damped
 * nonlinear problem (tests/unit/test_nonlinear_order.c). */
typedef struct {
  const char *name;
  PetscReal b;     /* beta / h */
  PetscReal a[2];  /* weights of the states at n and n-1 (sum to 1) */
  PetscReal theta; /* extrapolation from the Newton solution to the new state */
  PetscInt order;
  const char *summary;
} ImplicitScheme;

static const ImplicitScheme scheme_euler = {"implicit_euler", 1.0, {1.0, 0.0}, 1.0, 1, "L-stable, dissipative"};
static const ImplicitScheme scheme_bdf2 = {"bdf2", 2.0 / 3.0, {4.0 / 3.0, -1.0 / 3.0}, 1.0, 2, "L-stable, mildly dissipative"};
static const ImplicitScheme scheme_midpoint = {
    "implicit_midpoint", 0.5, {1.0, 0.0}, 2.0, 2, "symplectic, conserves quadratic energies"};

typedef struct {
  const ImplicitScheme *scheme;
  SimNewton newton;
  Vec xs;                   /* the Newton iterate x* */
  PetscReal *y, *Xb, *Vb;   /* inertial target and the multistep combinations, 3*nv */
  PetscReal *xn;            /* the lagged positions of the dissipation terms (x_n or y), 3*nv */
  PetscReal *xprev, *vprev; /* x_{n-1}, v_{n-1} (multistep variants only) */
  PetscBool has_prev;
  PetscReal hprev;
} Implicit;

static PetscErrorCode SetFromOptions_Implicit(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  Implicit *im = (Implicit *)s->data;

  PetscFunctionBeginUser;
  PetscCall(SimNewtonSetFromOptions(im->newton));
  PetscFunctionReturn(0);
}

static PetscErrorCode Setup_Implicit(SimSolver s)
{
  Implicit *im = (Implicit *)s->data;
  const PetscInt n = 3 * SimMeshModel(s->problem)->nv;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(SimMeshModel(s->problem)->x, &im->xs));
  PetscCall(PetscMalloc4(n, &im->y, n, &im->Xb, n, &im->Vb, n, &im->xn));
  if (im->scheme->a[1] != 0) PetscCall(PetscMalloc2(n, &im->xprev, n, &im->vprev));
  PetscFunctionReturn(0);
}

static PetscErrorCode Step_Implicit(SimSolver s, PetscReal h)
{
  Implicit *im = (Implicit *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscInt n = 3 * m->nv;
  const PetscBool multistep = (PetscBool)(im->scheme->a[1] != 0);
  const ImplicitScheme *sc = im->scheme;
  PetscReal *x, *v, *xs, beta, ib;

  PetscFunctionBeginUser;
  /* BDF2 needs the previous state at the same step size; otherwise start with implicit Euler. */
  if (multistep && !(im->has_prev && PetscAbsReal(h - im->hprev) <= 1e-12 * h)) sc = &scheme_euler;
  beta = sc->b * h;
  ib = 1.0 / beta;

  /* The multistep combinations, the inertial target y = Xb + beta Vb and the initial guess
   * x* = y, with pinned DOFs at x_n (the minimizer never moves them). */
  PetscCall(VecGetArray(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  PetscCall(VecGetArray(im->xs, &xs));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal xp = sc->a[1] != 0 ? im->xprev[i] : 0, vp = sc->a[1] != 0 ? im->vprev[i] : 0;
    im->Xb[i] = sc->a[0] * x[i] + sc->a[1] * xp;
    im->Vb[i] = sc->a[0] * v[i] + sc->a[1] * vp;
    im->y[i] = im->Xb[i] + beta * im->Vb[i];
    im->xn[i] = sc->order > 1 ? im->y[i] : x[i];
    xs[i] = m->pinned[i / 3] ? x[i] : im->y[i];
  }
  PetscCall(VecRestoreArray(im->xs, &xs));

  PetscCall(SimNewtonMinimize(im->newton, beta, im->y, im->Xb, im->xn, im->xs, &s->stats));
  if (s->stats.outcome == SIM_STEP_NONFINITE) { /* keep the last good state */
    PetscCall(VecRestoreArray(m->v, &v));
    PetscCall(VecRestoreArray(m->x, &x));
    PetscFunctionReturn(0);
  }

  /* The history shifts before the state is overwritten. */
  if (multistep) {
    PetscCall(PetscArraycpy(im->xprev, x, n));
    PetscCall(PetscArraycpy(im->vprev, v, n));
    im->has_prev = PETSC_TRUE;
    im->hprev = h;
  }
  /* v* = (x* - Xb)/beta;  x_{n+1} = Xb + theta (x* - Xb);  v_{n+1} = Vb + theta (v* - Vb). */
  PetscCall(VecGetArray(im->xs, &xs));
  for (PetscInt i = 0; i < n; i++) {
    if (m->pinned[i / 3]) {
      v[i] = 0; /* x stays at x_n */
      continue;
    }
    const PetscReal vs = (xs[i] - im->Xb[i]) * ib;
    x[i] = im->Xb[i] + sc->theta * (xs[i] - im->Xb[i]);
    v[i] = im->Vb[i] + sc->theta * (vs - im->Vb[i]);
  }
  PetscCall(VecRestoreArray(im->xs, &xs));
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArray(m->x, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode View_Implicit(SimSolver s, PetscViewer viewer)
{
  Implicit *im = (Implicit *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s (order %" PetscInt_FMT ", %s): beta = %g h, one Newton minimization per step\n",
                                   im->scheme->name, im->scheme->order, im->scheme->summary, (double)im->scheme->b));
  PetscCall(SimNewtonView(im->newton, viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Implicit(SimSolver s)
{
  Implicit *im = (Implicit *)s->data;

  PetscFunctionBeginUser;
  PetscCall(SimNewtonDestroy(&im->newton));
  PetscCall(VecDestroy(&im->xs));
  PetscCall(PetscFree4(im->y, im->Xb, im->Vb, im->xn));
  PetscCall(PetscFree2(im->xprev, im->vprev));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

/* Checkpoint: the multistep history (BDF2's previous state and step; replicated, so rank 0 writes
 * and every rank reads) and Newton's lagged factorization. */
static PetscErrorCode Save_Implicit(SimSolver s, PetscViewer viewer)
{
  Implicit *im = (Implicit *)s->data;
  PetscInt has = im->has_prev;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryWrite(viewer, &has, 1, PETSC_INT));
  if (has) {
    PetscCall(PetscViewerBinaryWrite(viewer, &im->hprev, 1, PETSC_REAL));
    PetscCall(SimModelWriteArray(SimMeshModel(s->problem), im->xprev, viewer));
    PetscCall(SimModelWriteArray(SimMeshModel(s->problem), im->vprev, viewer));
  }
  PetscCall(SimNewtonSave(im->newton, viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_Implicit(SimSolver s, PetscViewer viewer)
{
  Implicit *im = (Implicit *)s->data;
  PetscInt has;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryRead(viewer, &has, 1, NULL, PETSC_INT));
  im->has_prev = (PetscBool)(has != 0);
  if (has) {
    PetscCheck(im->xprev, s->comm, PETSC_ERR_ARG_INCOMP, "The checkpoint holds a multistep history, which %s does not use", s->type);
    PetscCall(PetscViewerBinaryRead(viewer, &im->hprev, 1, NULL, PETSC_REAL));
    PetscCall(SimModelReadArray(SimMeshModel(s->problem), im->xprev, viewer));
    PetscCall(SimModelReadArray(SimMeshModel(s->problem), im->vprev, viewer));
  }
  PetscCall(SimNewtonLoad(im->newton, viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode Create_Implicit(SimSolver s, const ImplicitScheme *scheme)
{
  static const SimSolverOps ops = {.setfromoptions = SetFromOptions_Implicit,
                                   .setup = Setup_Implicit,
                                   .step = Step_Implicit,
                                   .view = View_Implicit,
                                   .destroy = Destroy_Implicit,
                                   .save = Save_Implicit,
                                   .load = Load_Implicit};
  Implicit *im;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&im));
  im->scheme = scheme;
  PetscCall(SimNewtonCreate(SimMeshModel(s->problem), "newton_", &im->newton));
  s->data = im;
  s->ops = ops;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_ImplicitEuler(SimSolver s)
{
  return Create_Implicit(s, &scheme_euler);
}
PetscErrorCode SimSolverCreate_BDF2(SimSolver s)
{
  return Create_Implicit(s, &scheme_bdf2);
}
PetscErrorCode SimSolverCreate_ImplicitMidpoint(SimSolver s)
{
  return Create_Implicit(s, &scheme_midpoint);
}
