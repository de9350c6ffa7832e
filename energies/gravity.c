/* Gravity as a potential energy E = -sum_i m_i g . x_i. */
#include "energies/energies.h"

typedef struct {
  PetscInt ndof;
  PetscReal *mg; /* m_i g per DOF */
} Gravity;

static PetscErrorCode Value_Gravity(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *E)
{
  Gravity *g = (Gravity *)e->data;
  PetscReal sum = 0;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < g->ndof; k++) sum -= g->mg[k] * x[k];
  *E = sum;
  PetscFunctionReturn(0);
}

static PetscErrorCode Gradient_Gravity(SimEnergy e, const PetscReal *x, const PetscReal *v, PetscReal *grad)
{
  Gravity *g = (Gravity *)e->data;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < g->ndof; k++) grad[k] -= g->mg[k];
  PetscFunctionReturn(0);
}

/* Projective dynamics: gravity is linear in x, so it declares no constraints and the pd solver
 * moves its constant gradient -m g to the right-hand side (see energy.h, pd_count). */
static PetscErrorCode PDCount_Gravity(SimEnergy e, PetscInt *nc, PetscInt *nvert, PetscInt *nrows)
{
  PetscFunctionBeginUser;
  *nc = 0, *nvert = 0, *nrows = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Gravity(SimEnergy e)
{
  Gravity *g = (Gravity *)e->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(g->mg));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

/* Reads -gravity gx,gy,gz (default: model->gravity, which the scene sets), stores it in the model,
 * and creates the term from the model's (assembled) masses; *term is NULL for zero gravity. */
PetscErrorCode SimEnergyCreate_Gravity(SimModel model, const char *prefix, SimEnergy *term)
{
  static const SimEnergyOps ops = {
      .value = Value_Gravity, .gradient = Gradient_Gravity, .destroy = Destroy_Gravity, .pd_count = PDCount_Gravity};
  PetscInt n = 3;
  PetscBool set;
  const PetscScalar *mass;
  Gravity *g;

  PetscFunctionBeginUser;
  *term = NULL;
  PetscOptionsBegin(model->comm, prefix, "Gravity", "");
  PetscCall(PetscOptionsRealArray("-gravity", "gravitational acceleration gx,gy,gz (m/s^2)", "", model->gravity, &n, &set));
  PetscOptionsEnd();
  PetscCheck(!set || n == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-%sgravity takes 3 values gx,gy,gz (got %" PetscInt_FMT ")", prefix ? prefix : "", n);
  if (model->gravity[0] == 0 && model->gravity[1] == 0 && model->gravity[2] == 0) PetscFunctionReturn(0);
  PetscCall(PetscNew(&g));
  g->ndof = 3 * model->nown; /* the vertices this rank evaluates: its owned ones with a distributed state */
  PetscCall(PetscMalloc1(g->ndof, &g->mg));
  PetscCall(VecGetArrayRead(model->mass, &mass));
  for (PetscInt k = 0; k < g->ndof; k++) g->mg[k] = mass[k] * model->gravity[k % 3];
  PetscCall(VecRestoreArrayRead(model->mass, &mass));
  PetscCall(SimEnergyCreate("gravity", SIM_ENERGY_POTENTIAL, &ops, g, term));
  (*term)->per_vertex = PETSC_TRUE;
  PetscFunctionReturn(0);
}
