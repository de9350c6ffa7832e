/* The lid_cavity scene: the 2D lid-driven cavity, a unit box of viscous fluid whose top wall
 * slides at U to the right (no-slip walls everywhere); nu = U L / Re. At Re = 100 its steady
 * centreline profiles are tabulated by Ghia, Ghia and Shin (1982). */
#include "scenes/scenes.h"
#include "framework/sizes.h"

typedef struct {
  PetscReal U, L, re;
} LidCavity;

static PetscErrorCode Lid_LidCavity(void *ctx, PetscInt face, const PetscReal x[3], PetscReal t, PetscReal u[3])
{
  LidCavity *lc = (LidCavity *)ctx;

  PetscFunctionBeginUser;
  u[0] = face == 3 ? lc->U : 0; /* face 3: the high y side */
  u[1] = u[2] = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode Build_LidCavity(SimScene scene, SimProblem problem)
{
  SimGridProblem *p;
  LidCavity *lc = (LidCavity *)scene->data;
  PetscInt n = 32;

  PetscFunctionBeginUser;
  PetscCall(SimGridProblemGetDescription(problem, &p));
  PetscOptionsBegin(PETSC_COMM_WORLD, "lid_cavity_", "Lid-driven cavity scene", "");
  PetscCall(PetscOptionsInt("-n", "cells per axis", "", n, &n, NULL));
  PetscCall(PetscOptionsReal("-re", "Reynolds number U L / nu", "", lc->re, &lc->re, NULL));
  PetscCall(PetscOptionsReal("-u", "lid speed U (m/s)", "", lc->U, &lc->U, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-lid_cavity_n must be >= 2 (got %" PetscInt_FMT ")", n);
  PetscCheck(lc->re > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-lid_cavity_re must be > 0 (got %g): the cavity is viscous",
             (double)lc->re);
  {
    char opts[64];
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-%s_n %" PetscInt_FMT, "lid_cavity", n));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "cells", (PetscReal)n * n, 4));
  }
  p->dim = 2;
  p->n[0] = p->n[1] = n;
  p->n[2] = 1;
  p->extent[0] = p->extent[1] = lc->L;
  p->extent[2] = lc->L / n;
  for (PetscInt f = 0; f < 4; f++) p->face[f] = SIM_GRID_WALL;
  p->boundary_velocity = Lid_LidCavity;
  p->ctx = lc;
  p->viscosity = lc->U * lc->L / lc->re;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_LidCavity(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_LidCavity(SimScene scene)
{
  LidCavity *lc;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&lc));
  lc->U = 1.0;
  lc->L = 1.0;
  lc->re = 100;
  scene->data = lc;
  scene->ops.build = Build_LidCavity;
  scene->ops.destroy = Destroy_LidCavity;
  PetscFunctionReturn(0);
}
