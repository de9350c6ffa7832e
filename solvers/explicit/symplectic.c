/* Symplectic explicit integrators: semi-implicit (symplectic) Euler and velocity Verlet. */
#include "framework/solver_impl.h"
#include "problems/mesh/mesh.h"

typedef struct {
  Vec a; /* acceleration */
  PetscBool have_a; /* Verlet reuses the end-of-step acceleration as the next start */
} Symplectic;

static PetscErrorCode Setup_Symplectic(SimSolver s)
{
  Symplectic *d = (Symplectic *)s->data;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(SimMeshModel(s->problem)->x, &d->a));
  PetscFunctionReturn(0);
}

static PetscErrorCode Accel(SimSolver s, Vec a)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(s->ev.force, 0, 0, 0, 0));
  PetscCall(SimModelAcceleration(SimMeshModel(s->problem), SimMeshModel(s->problem)->x, SimMeshModel(s->problem)->v, a));
  PetscCall(PetscLogEventEnd(s->ev.force, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* v_{n+1} = v_n + h a(x_n, v_n);  x_{n+1} = x_n + h v_{n+1} */
static PetscErrorCode Step_SymplecticEuler(SimSolver s, PetscReal h)
{
  Symplectic *d = (Symplectic *)s->data;

  PetscFunctionBeginUser;
  PetscCall(Accel(s, d->a));
  PetscCall(VecAXPY(SimMeshModel(s->problem)->v, h, d->a));
  PetscCall(VecAXPY(SimMeshModel(s->problem)->x, h, SimMeshModel(s->problem)->v));
  PetscFunctionReturn(0);
}

/* Velocity Verlet: v_{n+1/2} = v_n + h/2 a(x_n); x_{n+1} = x_n + h v_{n+1/2};
 * v_{n+1} = v_{n+1/2} + h/2 a(x_{n+1}). With velocity-dependent (damping) forces the half-step
 * velocity is used in a, which keeps second order only for conservative forces. The end-of-step
 * acceleration is reused at the next step (one force evaluation per step). */
static PetscErrorCode Step_Verlet(SimSolver s, PetscReal h)
{
  Symplectic *d = (Symplectic *)s->data;

  PetscFunctionBeginUser;
  if (!d->have_a) PetscCall(Accel(s, d->a));
  PetscCall(VecAXPY(SimMeshModel(s->problem)->v, 0.5 * h, d->a));
  PetscCall(VecAXPY(SimMeshModel(s->problem)->x, h, SimMeshModel(s->problem)->v));
  PetscCall(Accel(s, d->a));
  PetscCall(VecAXPY(SimMeshModel(s->problem)->v, 0.5 * h, d->a));
  /* damping makes a depend on v, so the cached a is only valid for conservative models */
  d->have_a = PETSC_TRUE;
  for (PetscInt t = 0; t < SimMeshModel(s->problem)->nterms; t++)
    if (SimMeshModel(s->problem)->term[t]->kind == SIM_ENERGY_DISSIPATION) d->have_a = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Symplectic(SimSolver s)
{
  Symplectic *d = (Symplectic *)s->data;

  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&d->a));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateSymplectic(SimSolver s, PetscErrorCode (*step)(SimSolver, PetscReal))
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew((Symplectic **)&s->data));
  s->ops.setup = Setup_Symplectic;
  s->ops.step = step;
  s->ops.destroy = Destroy_Symplectic;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_SymplecticEuler(SimSolver s)
{
  return CreateSymplectic(s, Step_SymplecticEuler);
}
PetscErrorCode SimSolverCreate_Verlet(SimSolver s)
{
  return CreateSymplectic(s, Step_Verlet);
}
