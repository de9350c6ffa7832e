/* SimGridProblem: defaults and checks of the grid-problem descriptor, its named scalar fields and parameters. */
#include "framework/grid.h"
#include "framework/text.h"

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

PetscErrorCode SimGridProblemAddScalar(SimGridProblem *p, const char *name, SimGridScalarFn initial, SimGridSourceFn source)
{
  PetscFunctionBeginUser;
  PetscCheck(name && name[0] && strlen(name) < SIM_GRID_NAME_LEN, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "grid scalar field name '%s' must be non-empty and shorter than %d characters", name ? name : "(null)", SIM_GRID_NAME_LEN);
  PetscCheck(SimGridProblemFindScalar(p, name) < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "grid scalar field '%s' added twice", name);
  PetscCheck(p->nscalars < SIM_GRID_MAX_SCALARS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "grid scalar field '%s': a grid problem carries at most %d scalar fields", name, SIM_GRID_MAX_SCALARS);
  PetscCall(PetscStrncpy(p->scalar[p->nscalars].name, name, SIM_GRID_NAME_LEN));
  p->scalar[p->nscalars].initial = initial;
  p->scalar[p->nscalars].source = source;
  p->nscalars++;
  PetscFunctionReturn(0);
}

PetscInt SimGridProblemFindScalar(const SimGridProblem *p, const char *name)
{
  for (PetscInt s = 0; s < p->nscalars; s++)
    if (!strcmp(p->scalar[s].name, name)) return s;
  return -1;
}

static PetscInt FindParameter(const SimGridProblem *p, const char *name)
{
  for (PetscInt q = 0; q < p->nparameters; q++)
    if (!strcmp(p->parameter[q].name, name)) return q;
  return -1;
}

PetscErrorCode SimGridProblemSetParameter(SimGridProblem *p, const char *name, PetscInt n, const PetscReal value[])
{
  PetscInt q;

  PetscFunctionBeginUser;
  PetscCheck(name && name[0] && strlen(name) < SIM_GRID_NAME_LEN, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "grid parameter name '%s' must be non-empty and shorter than %d characters", name ? name : "(null)", SIM_GRID_NAME_LEN);
  PetscCheck(n >= 1 && n <= SIM_GRID_MAX_VALUES, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "grid parameter '%s' has %" PetscInt_FMT " values (1 to %d)", name, n, SIM_GRID_MAX_VALUES);
  q = FindParameter(p, name);
  if (q < 0) {
    PetscCheck(p->nparameters < SIM_GRID_MAX_PARAMETERS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "grid parameter '%s': a grid problem carries at most %d parameters", name, SIM_GRID_MAX_PARAMETERS);
    q = p->nparameters++;
    PetscCall(PetscStrncpy(p->parameter[q].name, name, SIM_GRID_NAME_LEN));
  }
  p->parameter[q].n = n;
  for (PetscInt i = 0; i < n; i++) p->parameter[q].value[i] = value[i];
  PetscFunctionReturn(0);
}

PetscErrorCode SimGridProblemGetParameter(const SimGridProblem *p, const char *name, PetscInt n, PetscReal value[], PetscBool *found)
{
  PetscInt q = FindParameter(p, name);

  PetscFunctionBeginUser;
  *found = (PetscBool)(q >= 0);
  if (q < 0) PetscFunctionReturn(0);
  PetscCheck(p->parameter[q].n == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "grid parameter '%s' has %" PetscInt_FMT " value(s), but %" PetscInt_FMT " were asked for", name, p->parameter[q].n, n);
  for (PetscInt i = 0; i < n; i++) value[i] = p->parameter[q].value[i];
  PetscFunctionReturn(0);
}

/* "a, b, c" from a NULL-terminated list ("none" when empty). */
static PetscErrorCode JoinNames(const char *const names[], char *out, size_t len)
{
  PetscFunctionBeginUser;
  out[0] = 0;
  for (PetscInt i = 0; names && names[i]; i++) {
    if (i) PetscCall(SimStrAppend(out, ", ", len));
    PetscCall(SimStrAppend(out, names[i], len));
  }
  if (!out[0]) PetscCall(PetscStrncpy(out, "none", len));
  PetscFunctionReturn(0);
}

static PetscBool InList(const char *const names[], const char *name)
{
  for (PetscInt i = 0; names && names[i]; i++)
    if (!strcmp(names[i], name)) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode SimGridProblemCheckNames(const SimGridProblem *p, const char *who, const char *const known_scalars[],
                                        const char *const known_parameters[])
{
  char known[256];

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < p->nscalars; s++)
    if (!InList(known_scalars, p->scalar[s].name)) {
      PetscCall(JoinNames(known_scalars, known, sizeof(known)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s does not know the problem's scalar field '%s' (it knows: %s)", who,
              p->scalar[s].name, known);
    }
  for (PetscInt q = 0; q < p->nparameters; q++)
    if (!InList(known_parameters, p->parameter[q].name)) {
      PetscCall(JoinNames(known_parameters, known, sizeof(known)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s does not know the problem's parameter '%s' (it knows: %s)", who,
              p->parameter[q].name, known);
    }
  PetscFunctionReturn(0);
}
