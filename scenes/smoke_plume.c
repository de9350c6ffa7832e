/* The smoke_plume scene: hot smoke rising from a round inlet in the floor of a box (2D or 3D).
 * The box is W wide (and deep) and 2 W tall; the floor is a wall except the inlet, a disk of
 * radius r at its centre through which air enters at speed U (a prescribed inflow); the top is
 * open, the sides are walls. Cells just above the inlet are filled with smoke of density 1 and
 * temperature T each step (the heated inflow); buoyancy and vorticity confinement default to
 * values that make a plume that rises and curls. */
#include "scenes/scenes.h"
#include "framework/sizes.h"

typedef struct {
  PetscInt dim;
  PetscReal W, U, r, T, h;
} SmokePlume;

/* Horizontal distance of x from the inlet axis. */
static PetscReal AxisDistance(const SmokePlume *sp, const PetscReal x[3])
{
  PetscReal dx = x[0] - 0.5 * sp->W, dz = sp->dim == 3 ? x[2] - 0.5 * sp->W : 0;
  return PetscSqrtReal(dx * dx + dz * dz);
}

static PetscErrorCode Inflow_SmokePlume(void *ctx, PetscInt face, const PetscReal x[3], PetscReal t, PetscReal u[3])
{
  SmokePlume *sp = (SmokePlume *)ctx;

  PetscFunctionBeginUser;
  u[0] = u[1] = u[2] = 0;
  if (face == 2 && AxisDistance(sp, x) < sp->r) u[1] = sp->U; /* face 2: the floor (low y) */
  PetscFunctionReturn(0);
}

/* The heated inflow: cells whose centre lies in the lowest two cell layers over the inlet take
 * density 1 (Source_Density) and temperature T (Source_Temperature). */
static void SourceRow(const SmokePlume *sp, PetscInt n, const PetscReal x[], PetscReal y, PetscReal z, PetscReal value, PetscReal v[])
{
  if (!(y < 2 * sp->h)) return;
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal c[3] = {x[i], y, z};
    if (AxisDistance(sp, c) < sp->r) v[i] = value;
  }
}

static PetscErrorCode Source_Density(void *ctx, PetscInt n, const PetscReal x[], PetscReal y, PetscReal z, PetscReal t, PetscReal v[])
{
  SourceRow((const SmokePlume *)ctx, n, x, y, z, 1.0, v);
  return 0;
}

static PetscErrorCode Source_Temperature(void *ctx, PetscInt n, const PetscReal x[], PetscReal y, PetscReal z, PetscReal t,
                                         PetscReal v[])
{
  SourceRow((const SmokePlume *)ctx, n, x, y, z, ((const SmokePlume *)ctx)->T, v);
  return 0;
}

static PetscErrorCode Build_SmokePlume(SimScene scene, SimProblem problem)
{
  SimGridProblem *p;
  SmokePlume *sp = (SmokePlume *)scene->data;
  PetscInt n = -1;
  PetscReal buoyancy[2] = {0.5, 2.0}, vorticity = 0.2;

  PetscFunctionBeginUser;
  PetscCall(SimGridProblemGetDescription(problem, &p));
  PetscOptionsBegin(PETSC_COMM_WORLD, "smoke_plume_", "Smoke plume scene", "");
  PetscCall(PetscOptionsInt("-dim", "2 or 3", "", sp->dim, &sp->dim, NULL));
  PetscCall(PetscOptionsInt("-n", "cells across (the box is n x 2n (x n)); default 64 in 2D, 24 in 3D", "", n, &n, NULL));
  PetscCall(PetscOptionsReal("-width", "box width W (m)", "", sp->W, &sp->W, NULL));
  PetscCall(PetscOptionsReal("-inflow", "inflow speed U through the inlet (m/s)", "", sp->U, &sp->U, NULL));
  PetscCall(PetscOptionsReal("-radius", "inlet radius r (m)", "", sp->r, &sp->r, NULL));
  PetscCall(PetscOptionsReal("-temperature", "temperature of the inflowing smoke above ambient (K)", "", sp->T, &sp->T, NULL));
  PetscOptionsEnd();
  PetscCheck(sp->dim == 2 || sp->dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-smoke_plume_dim must be 2 or 3 (got %" PetscInt_FMT ")", sp->dim);
  if (n < 0) n = sp->dim == 2 ? 64 : 24;
  PetscCheck(n >= 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-smoke_plume_n must be >= 4 (got %" PetscInt_FMT ")", n);
  PetscCheck(sp->W > 0 && sp->r > 0 && sp->r < 0.5 * sp->W, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-smoke_plume_radius must be in (0, W/2) and -smoke_plume_width > 0 (got r = %g, W = %g)", (double)sp->r,
             (double)sp->W);
  PetscCheck(sp->U >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-smoke_plume_inflow must be >= 0 (got %g)", (double)sp->U);
  {
    char opts[96];
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-smoke_plume_n %" PetscInt_FMT " -smoke_plume_dim %" PetscInt_FMT, n, sp->dim));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "cells", 2.0 * n * n * (sp->dim == 3 ? n : 1), sp->dim + 3));
  }
  sp->h = sp->W / n;
  PetscCheck(sp->r >= sp->h, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-smoke_plume_radius %g is smaller than a cell (h = %g): no floor face would lie in the inlet; use a larger "
             "-smoke_plume_n (>= %d) "
             "or -smoke_plume_radius",
             (double)sp->r, (double)sp->h, (int)PetscCeilReal(sp->W / sp->r));
  p->dim = sp->dim;
  p->n[0] = n;
  p->n[1] = 2 * n;
  p->n[2] = sp->dim == 3 ? n : 1;
  p->extent[0] = sp->W;
  p->extent[1] = 2 * sp->W;
  p->extent[2] = sp->dim == 3 ? sp->W : sp->h;
  for (PetscInt f = 0; f < 6; f++) p->face[f] = SIM_GRID_WALL;
  p->face[2] = SIM_GRID_INFLOW;
  p->face[3] = SIM_GRID_OPEN;
  p->boundary_velocity = Inflow_SmokePlume;
  p->ctx = sp;
  /* the smoke a smoke solver carries and its parameters (Fedkiw, Stam and Jensen 2001) */
  PetscCall(SimGridProblemAddScalar(p, "density", NULL, Source_Density));
  PetscCall(SimGridProblemAddScalar(p, "temperature", NULL, Source_Temperature));
  PetscCall(SimGridProblemSetParameter(p, "buoyancy", 2, buoyancy));
  PetscCall(SimGridProblemSetParameter(p, "vorticity", 1, &vorticity));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_SmokePlume(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_SmokePlume(SimScene scene)
{
  SmokePlume *sp;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&sp));
  sp->dim = 2;
  sp->W = 1.0;
  sp->U = 0.5;
  sp->r = 0.08;
  sp->T = 1.0;
  scene->data = sp;
  scene->ops.build = Build_SmokePlume;
  scene->ops.destroy = Destroy_SmokePlume;
  PetscFunctionReturn(0);
}
