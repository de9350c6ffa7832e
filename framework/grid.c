/* SimGridProblem: defaults and checks of the grid-problem descriptor. */
#include "framework/grid.h"

static const char *const face_names[] = {"wall", "slip", "open", "inflow"};

const char *SimGridFaceName(SimGridFace face)
{
  return (face >= SIM_GRID_WALL && face <= SIM_GRID_INFLOW) ? face_names[face] : "unknown";
}

PetscErrorCode SimGridProblemSetDefaults(SimGridProblem *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  p->dim = 2;
  p->n[0] = p->n[1] = 32;
  p->n[2] = 1;
  p->extent[0] = p->extent[1] = 1.0;
  p->extent[2] = 1.0 / 32;
  p->rho = 1.0;
  p->gravity[1] = -9.81;
  PetscFunctionReturn(0);
}

PetscReal SimGridProblemCellSize(const SimGridProblem *p)
{
  return p->extent[0] / (PetscReal)p->n[0];
}

PetscErrorCode SimGridProblemCheck(const SimGridProblem *p, const char *scene)
{
  PetscReal h;

  PetscFunctionBeginUser;
  PetscCheck(p->dim == 2 || p->dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "scene %s: dimension %" PetscInt_FMT " is not 2 or 3", scene, p->dim);
  for (PetscInt d = 0; d < p->dim; d++) {
    PetscCheck(p->n[d] >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "scene %s: %" PetscInt_FMT " cells along axis %" PetscInt_FMT " (at least 2)", scene, p->n[d], d);
    PetscCheck(p->extent[d] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "scene %s: extent %g along axis %" PetscInt_FMT " must be > 0", scene, (double)p->extent[d], d);
  }
  h = SimGridProblemCellSize(p);
  for (PetscInt d = 1; d < p->dim; d++)
    PetscCheck(PetscAbsReal(p->extent[d] / p->n[d] - h) <= 1e-10 * h, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
               "scene %s: cells must be cubic, but axis 0 has h = %g and axis %" PetscInt_FMT " has %g", scene, (double)h, d,
               (double)(p->extent[d] / p->n[d]));
  for (PetscInt f = 0; f < 2 * p->dim; f++)
    PetscCheck(p->face[f] >= SIM_GRID_WALL && p->face[f] <= SIM_GRID_INFLOW, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "scene %s: face %" PetscInt_FMT " has an unknown kind %d", scene, f, (int)p->face[f]);
  PetscCheck(p->viscosity >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "scene %s: viscosity %g must be >= 0", scene,
             (double)p->viscosity);
  PetscCheck(p->rho > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "scene %s: density %g must be > 0", scene, (double)p->rho);
  PetscFunctionReturn(0);
}
