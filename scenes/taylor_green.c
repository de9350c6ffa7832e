/* The taylor_green scene: the 2D Taylor-Green vortex in a box with free-slip walls, with its
 * analytic solution. On [0, L]^2 with k = pi / L,
 *   u = U sin(k x) cos(k y) e^{-2 nu k^2 t},  v = -U cos(k x) sin(k y) e^{-2 nu k^2 t},
 * an exact Navier-Stokes solution (the pressure balances the advection) whose normal velocity
 * and tangential stress vanish on the box faces; its kinetic energy per unit depth decays as
 *   E(t) = rho U^2 L^2 / 4 e^{-4 nu k^2 t}. nu = U L / Re (Re = 0: inviscid, steady). */
#include "scenes/scenes.h"
#include "framework/sizes.h"

typedef struct {
  PetscReal U, L, re, nu;
} TaylorGreen;

static PetscErrorCode Velocity_TaylorGreen(void *ctx, const PetscReal x[3], PetscReal t, PetscReal u[3])
{
  TaylorGreen *tg = (TaylorGreen *)ctx;
  PetscReal k = PETSC_PI / tg->L, decay = tg->U * PetscExpReal(-2 * tg->nu * k * k * t);

  PetscFunctionBeginUser;
  u[0] = decay * PetscSinReal(k * x[0]) * PetscCosReal(k * x[1]);
  u[1] = -decay * PetscCosReal(k * x[0]) * PetscSinReal(k * x[1]);
  u[2] = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode Initial_TaylorGreen(void *ctx, const PetscReal x[3], PetscReal t, PetscReal u[3])
{
  PetscFunctionBeginUser;
  PetscCall(Velocity_TaylorGreen(ctx, x, 0.0, u));
  PetscFunctionReturn(0);
}

static PetscErrorCode Build_TaylorGreen(SimScene scene, SimProblem problem)
{
  SimGridProblem *p;
  TaylorGreen *tg = (TaylorGreen *)scene->data;
  PetscInt n = 32;

  PetscFunctionBeginUser;
  PetscCall(SimGridProblemGetDescription(problem, &p));
  PetscOptionsBegin(PETSC_COMM_WORLD, "taylor_green_", "Taylor-Green vortex scene", "");
  PetscCall(PetscOptionsInt("-n", "cells per axis", "", n, &n, NULL));
  PetscCall(PetscOptionsReal("-re", "Reynolds number U L / nu (0: inviscid)", "", tg->re, &tg->re, NULL));
  PetscCall(PetscOptionsReal("-u", "velocity amplitude U (m/s)", "", tg->U, &tg->U, NULL));
  PetscCall(PetscOptionsReal("-l", "box size L (m)", "", tg->L, &tg->L, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-taylor_green_n must be >= 2 (got %" PetscInt_FMT ")", n);
  PetscCheck(tg->re >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-taylor_green_re must be >= 0 (got %g; 0 is inviscid)",
             (double)tg->re);
  PetscCheck(tg->L > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-taylor_green_l must be > 0 (got %g)", (double)tg->L);
  tg->nu = tg->re > 0 ? tg->U * tg->L / tg->re : 0;
  {
    char opts[64];
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-%s_n %" PetscInt_FMT, "taylor_green", n));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "cells", (PetscReal)n * n, 4));
  }
  p->dim = 2;
  p->n[0] = p->n[1] = n;
  p->n[2] = 1;
  p->extent[0] = p->extent[1] = tg->L;
  p->extent[2] = tg->L / n;
  for (PetscInt f = 0; f < 4; f++) p->face[f] = SIM_GRID_SLIP;
  p->velocity = Initial_TaylorGreen;
  p->exact_velocity = Velocity_TaylorGreen;
  p->ctx = tg;
  p->viscosity = tg->nu;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_TaylorGreen(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_TaylorGreen(SimScene scene)
{
  TaylorGreen *tg;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&tg));
  tg->U = 1.0;
  tg->L = 1.0;
  tg->re = 100;
  scene->data = tg;
  scene->ops.build = Build_TaylorGreen;
  scene->ops.destroy = Destroy_TaylorGreen;
  PetscFunctionReturn(0);
}
