/* SimGridProblem: an Eulerian problem on a box, described analytically by a grid scene and sampled
 * by a grid solver (the framework-level counterpart of SimModel; it knows no method). */
#pragma once
#include <petscsys.h>

/* What lies beyond one face of the box.
 *   SIM_GRID_WALL:   a no-slip solid wall; its velocity (normal and tangential) is
 *                    boundary_velocity (NULL: at rest). A lid is a moving wall.
 *   SIM_GRID_SLIP:   a free-slip solid wall at rest: zero normal velocity, zero tangential stress.
 *   SIM_GRID_OPEN:   an open boundary (pressure 0 outside, the flow leaves or enters freely).
 *   SIM_GRID_INFLOW: a prescribed inflow: the velocity on the face is boundary_velocity (a wall
 *                    for the pressure, with the fluid coming through it). */
typedef enum { SIM_GRID_WALL = 0, SIM_GRID_SLIP, SIM_GRID_OPEN, SIM_GRID_INFLOW } SimGridFace;

/* The name of a face kind ("wall", "slip", "open", "inflow"). */
const char *SimGridFaceName(SimGridFace face);

/* A scalar or vector field of position x [m] (x[2] = 0 in 2D) and time t [s]. */
typedef PetscErrorCode (*SimGridScalarFn)(void *ctx, const PetscReal x[3], PetscReal t, PetscReal *value);
typedef PetscErrorCode (*SimGridVectorFn)(void *ctx, const PetscReal x[3], PetscReal t, PetscReal u[3]);
/* Velocity [m/s] on boundary face `face` (2*axis + side, side 0 = low) at the boundary point x. */
typedef PetscErrorCode (*SimGridBoundaryFn)(void *ctx, PetscInt face, const PetscReal x[3], PetscReal t, PetscReal u[3]);
/* A source applied once per step before advection: may overwrite the smoke density [kg/m^3 or
 * any unit the scene uses] and temperature [K above ambient] of the cell whose centre is x. */
typedef PetscErrorCode (*SimGridSourceFn)(void *ctx, const PetscReal x[3], PetscReal t, PetscReal *density,
                                          PetscReal *temperature);

/* The problem. The domain is [0, extent[0]] x [0, extent[1]] (x [0, extent[2]]) with n[d] cubic
 * cells per axis (extent[d] / n[d] must be the same for every axis). Every callback may be NULL:
 * a zero field, still walls, no source, no exact solution. */
typedef struct {
  PetscInt dim;                        /* 2 or 3 */
  PetscInt n[3];                       /* cells per axis (n[2] = 1 in 2D) */
  PetscReal extent[3];                 /* box size [m] */
  SimGridFace face[6];                 /* face 2*axis + side */
  SimGridVectorFn velocity;            /* initial velocity u(x, 0) */
  SimGridScalarFn density;             /* initial smoke density */
  SimGridScalarFn temperature;         /* initial temperature above ambient */
  SimGridBoundaryFn boundary_velocity; /* WALL and INFLOW faces */
  SimGridSourceFn source;              /* per step (e.g. a heated inflow) */
  SimGridVectorFn exact_velocity;      /* analytic u(x, t) for the scene's physical parameters */
  void *ctx;                           /* passed to every callback (owned by the scene) */

  /* Physical parameters the scene implies; a solver's options override them. */
  PetscReal viscosity;   /* kinematic viscosity nu [m^2/s] (e.g. U L / Re); 0: inviscid */
  PetscReal rho;         /* fluid density [kg/m^3] */
  PetscReal gravity[3];  /* [m/s^2]; buoyancy acts against it */
  PetscReal buoyancy[2]; /* Boussinesq smoke buoyancy (alpha [m^4/(kg s^2)], beta [m/(s^2 K)]) */
  PetscReal vorticity;   /* vorticity confinement epsilon (dimensionless); 0: none */
} SimGridProblem;

/* Defaults: 2D, 32^2 cells in a unit box, walls everywhere, no callbacks, rho = 1, gravity
 * (0, -9.81, 0), no viscosity, buoyancy or confinement. Scenes start from these. */
PetscErrorCode SimGridProblemSetDefaults(SimGridProblem *p);
/* Checks the sizes (dim 2/3, n >= 2, extent > 0, cubic cells to 1e-10), face kinds and the
 * parameters (nu >= 0, rho > 0); `scene` names the scene in the messages. */
PetscErrorCode SimGridProblemCheck(const SimGridProblem *p, const char *scene);
/* Cell size h [m]. */
PetscReal SimGridProblemCellSize(const SimGridProblem *p);
