/* Explicit Runge-Kutta integrators on the first-order system x' = v, v' = M^-1 f(x, v):
 * forward Euler, explicit midpoint, Heun and classical RK4, one Butcher tableau each. */
#include "framework/solver_impl.h"
#include "problems/mesh/mesh.h"

#define RK_MAX_STAGES 4

/* A method is data: its Butcher tableau (explicit: a is strictly lower triangular). */
typedef struct {
  PetscInt stages;
  PetscReal a[RK_MAX_STAGES][RK_MAX_STAGES];
  PetscReal b[RK_MAX_STAGES];
} Tableau;

static const Tableau tableau_euler = {1, {{0}}, {1}};
static const Tableau tableau_midpoint = {2, {{0, 0}, {0.5, 0}}, {0, 1}};
static const Tableau tableau_heun = {2, {{0, 0}, {1, 0}}, {0.5, 0.5}};
static const Tableau tableau_rk4 = {4, {{0, 0, 0, 0}, {0.5, 0, 0, 0}, {0, 0.5, 0, 0}, {0, 0, 1, 0}}, {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6}};

typedef struct {
  const Tableau *tab;
  Vec *kx, *kv; /* stage derivatives: velocity and acceleration */
  Vec xs, vs;   /* stage state */
} RK;

static PetscErrorCode Setup_RK(SimSolver s)
{
  RK *rk = (RK *)s->data;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicateVecs(SimMeshModel(s->problem)->x, rk->tab->stages, &rk->kx));
  PetscCall(VecDuplicateVecs(SimMeshModel(s->problem)->x, rk->tab->stages, &rk->kv));
  PetscCall(VecDuplicate(SimMeshModel(s->problem)->x, &rk->xs));
  PetscCall(VecDuplicate(SimMeshModel(s->problem)->x, &rk->vs));
  PetscFunctionReturn(0);
}

/* k_i = F(y_n + h sum_j a_ij k_j);  y_{n+1} = y_n + h sum_i b_i k_i */
static PetscErrorCode Step_RK(SimSolver s, PetscReal h)
{
  RK *rk = (RK *)s->data;
  const Tableau *T = rk->tab;
  SimModel m = SimMeshModel(s->problem);
  PetscScalar coef[RK_MAX_STAGES];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < T->stages; i++) {
    PetscCall(VecCopy(m->x, rk->xs));
    PetscCall(VecCopy(m->v, rk->vs));
    for (PetscInt j = 0; j < i; j++) coef[j] = h * T->a[i][j];
    if (i) {
      PetscCall(VecMAXPY(rk->xs, i, coef, rk->kx));
      PetscCall(VecMAXPY(rk->vs, i, coef, rk->kv));
    }
    PetscCall(VecCopy(rk->vs, rk->kx[i]));
    PetscCall(PetscLogEventBegin(s->ev.force, 0, 0, 0, 0));
    PetscCall(SimModelAcceleration(m, rk->xs, rk->vs, rk->kv[i]));
    PetscCall(PetscLogEventEnd(s->ev.force, 0, 0, 0, 0));
  }
  for (PetscInt i = 0; i < T->stages; i++) coef[i] = h * T->b[i];
  PetscCall(VecMAXPY(m->x, T->stages, coef, rk->kx));
  PetscCall(VecMAXPY(m->v, T->stages, coef, rk->kv));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_RK(SimSolver s)
{
  RK *rk = (RK *)s->data;

  PetscFunctionBeginUser;
  if (rk->kx) PetscCall(VecDestroyVecs(rk->tab->stages, &rk->kx));
  if (rk->kv) PetscCall(VecDestroyVecs(rk->tab->stages, &rk->kv));
  PetscCall(VecDestroy(&rk->xs));
  PetscCall(VecDestroy(&rk->vs));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode View_RK(SimSolver s, PetscViewer viewer)
{
  RK *rk = (RK *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "explicit Runge-Kutta, %" PetscInt_FMT " stage(s)\n", rk->tab->stages));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateRK(SimSolver s, const Tableau *tab)
{
  static const SimSolverOps ops = {.setup = Setup_RK, .step = Step_RK, .view = View_RK, .destroy = Destroy_RK};
  RK *rk;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&rk));
  rk->tab = tab;
  s->data = rk;
  s->ops = ops;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_ExplicitEuler(SimSolver s)
{
  return CreateRK(s, &tableau_euler);
}
PetscErrorCode SimSolverCreate_Midpoint(SimSolver s)
{
  return CreateRK(s, &tableau_midpoint);
}
PetscErrorCode SimSolverCreate_Heun(SimSolver s)
{
  return CreateRK(s, &tableau_heun);
}
PetscErrorCode SimSolverCreate_RK4(SimSolver s)
{
  return CreateRK(s, &tableau_rk4);
}
