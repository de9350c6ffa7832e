/* SimGridProblem: an Eulerian problem on a box, described analytically by a grid scene and sampled
 * by a grid solver (the framework-level counterpart of SimModel; it knows no method). What is
 * particular to a method (the smoke of Stable Fluids, say) travels as named scalar fields and named
 * parameters, which the solver looks up by name and refuses when it does not know them. */
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
/* A per-step source of a scalar field, called once per row of cells before the step: cell i of
 * the row (0 <= i < n) is centred at (x[i], y, z) [m] (z = 0 in 2D); value[i] holds the field's
 * current value there and the source may overwrite it (e.g. a heated inflow). Batched over a row
 * so that a solver calls it once per row, not once per cell. */
typedef PetscErrorCode (*SimGridSourceFn)(void *ctx, PetscInt n, const PetscReal x[], PetscReal y, PetscReal z, PetscReal t,
                                          PetscReal value[]);

#define SIM_GRID_NAME_LEN 32
#define SIM_GRID_MAX_SCALARS 8
#define SIM_GRID_MAX_PARAMETERS 16
#define SIM_GRID_MAX_VALUES 3

/* A named cell-centred scalar field the scene asks the solver to carry (e.g. "density"):
 * its initial value (NULL: 0) and a per-step source (NULL: none). */
typedef struct {
  char name[SIM_GRID_NAME_LEN];
  SimGridScalarFn initial;
  SimGridSourceFn source;
} SimGridScalar;

/* A named parameter of 1..SIM_GRID_MAX_VALUES reals (e.g. "vorticity" = 0.2). */
typedef struct {
  char name[SIM_GRID_NAME_LEN];
  PetscInt n;
  PetscReal value[SIM_GRID_MAX_VALUES];
} SimGridParameter;

/* The problem. The domain is [0, extent[0]] x [0, extent[1]] (x [0, extent[2]]) with n[d] cubic
 * cells per axis (extent[d] / n[d] must be the same for every axis). Every callback may be NULL:
 * a zero field, still walls, no exact solution. Plain data: a copy is a complete problem. */
typedef struct {
  PetscInt dim;                        /* 2 or 3 */
  PetscInt n[3];                       /* cells per axis (n[2] = 1 in 2D) */
  PetscReal extent[3];                 /* box size [m] */
  SimGridFace face[6];                 /* face 2*axis + side */
  SimGridVectorFn velocity;            /* initial velocity u(x, 0) */
  SimGridBoundaryFn boundary_velocity; /* WALL and INFLOW faces */
  SimGridVectorFn exact_velocity;      /* analytic u(x, t) for the scene's physical parameters */
  void *ctx;                           /* passed to every callback (owned by the scene) */

  /* Physical parameters the scene implies; a solver's options override them. */
  PetscReal viscosity;  /* kinematic viscosity nu [m^2/s] (e.g. U L / Re); 0: inviscid */
  PetscReal rho;        /* fluid density [kg/m^3] */
  PetscReal gravity[3]; /* [m/s^2] */

  /* Method data, by name (SimGridProblemAddScalar, SimGridProblemSetParameter). */
  PetscInt nscalars, nparameters;
  SimGridScalar scalar[SIM_GRID_MAX_SCALARS];
  SimGridParameter parameter[SIM_GRID_MAX_PARAMETERS];
} SimGridProblem;

/* Defaults: 2D, 32^2 cells in a unit box, walls everywhere, no callbacks, rho = 1, gravity
 * (0, -9.81, 0), no viscosity, no scalar fields or parameters. Scenes start from these. */
PetscErrorCode SimGridProblemSetDefaults(SimGridProblem *p);
/* Checks the sizes (dim 2/3, n >= 2, extent > 0, cubic cells to 1e-10), face kinds and the
 * parameters (nu >= 0, rho > 0); `scene` names the scene in the messages. */
PetscErrorCode SimGridProblemCheck(const SimGridProblem *p, const char *scene);
/* Cell size h [m]. */
PetscReal SimGridProblemCellSize(const SimGridProblem *p);

/* Adds the scalar field `name` (an error if it is already there or there are
 * SIM_GRID_MAX_SCALARS). */
PetscErrorCode SimGridProblemAddScalar(SimGridProblem *p, const char *name, SimGridScalarFn initial, SimGridSourceFn source);
/* Index of the scalar field `name` in p->scalar, or -1. */
PetscInt SimGridProblemFindScalar(const SimGridProblem *p, const char *name);
/* Sets (or replaces) parameter `name` to the n values. */
PetscErrorCode SimGridProblemSetParameter(SimGridProblem *p, const char *name, PetscInt n, const PetscReal value[]);
/* Reads parameter `name` into value[0..n-1] when the problem has it (*found; value untouched
 * otherwise); an error if it has it with another number of values. */
PetscErrorCode SimGridProblemGetParameter(const SimGridProblem *p, const char *name, PetscInt n, PetscReal value[], PetscBool *found);
/* Refuses, with a message naming `who` and the names it knows, a scalar field or parameter of p
 * whose name is not in known_scalars / known_parameters (NULL-terminated lists). */
PetscErrorCode SimGridProblemCheckNames(const SimGridProblem *p, const char *who, const char *const known_scalars[],
                                        const char *const known_parameters[]);
