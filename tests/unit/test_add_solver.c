/* docs/add-a-solver.md done for real: a solver defined only in this file (position Verlet,
 * drift-kick-drift), registered from the test, passes the same checks as the built-in ones. */
#include <string.h>
#include "testing.h"
#include "framework/solver_impl.h"
#include "framework/scene.h"
#include "problems/mesh/mesh.h"

/* ---- the whole solver: private data, ops, constructor ---- */
typedef struct {
  Vec a;
} PositionVerlet;

static PetscErrorCode Setup_PositionVerlet(SimSolver s)
{
  PositionVerlet *pv = (PositionVerlet *)s->data;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(SimMeshModel(s->problem)->x, &pv->a));
  PetscFunctionReturn(0);
}

/* x_{n+1/2} = x_n + h/2 v_n;  v_{n+1} = v_n + h a(x_{n+1/2});  x_{n+1} = x_{n+1/2} + h/2 v_{n+1} */
static PetscErrorCode Step_PositionVerlet(SimSolver s, PetscReal h)
{
  PositionVerlet *pv = (PositionVerlet *)s->data;
  SimModel m = SimMeshModel(s->problem);

  PetscFunctionBeginUser;
  PetscCall(VecAXPY(m->x, 0.5 * h, m->v));
  PetscCall(SimModelAcceleration(m, m->x, m->v, pv->a));
  PetscCall(VecAXPY(m->v, h, pv->a));
  PetscCall(VecAXPY(m->x, 0.5 * h, m->v));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_PositionVerlet(SimSolver s)
{
  PositionVerlet *pv = (PositionVerlet *)s->data;

  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&pv->a));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode SimSolverCreate_PositionVerlet(SimSolver s)
{
  static const SimSolverOps ops = {.setup = Setup_PositionVerlet, .step = Step_PositionVerlet, .destroy = Destroy_PositionVerlet};

  PetscFunctionBeginUser;
  PetscCall(PetscNew((PositionVerlet **)&s->data));
  s->ops = ops;
  PetscFunctionReturn(0);
}

/* ---- the test: register it and use it like any other solver ---- */

static PetscErrorCode OscillatorError(SimRegistry reg, PetscReal dt, PetscReal *err, PetscReal *energy_drift)
{
  SimScene scene;
  SimProblem problem;
  SimModel model;
  SimSolver s;
  PetscReal xe[6], ve[6], diff[6], t, E0;
  PetscBool has;
  const PetscScalar *x;
  SimEnergyReport rep;
  PetscInt n = (PetscInt)(1.0 / dt + 0.5);

  PetscFunctionBeginUser;
  PetscCall(SimSceneCreate(reg, "oscillator", &scene));
  PetscCall(SimSceneBuild(scene, PETSC_COMM_SELF, &problem));
  PetscCall(SimMeshProblemGetModel(problem, &model));
  PetscCall(SimSolverCreate(reg, "position_verlet", problem, &s));
  PetscCall(SimSolverSetFromOptions(s));
  PetscCall(SimSolverEnergy(s, &rep));
  E0 = rep.total;
  *energy_drift = 0;
  for (PetscInt k = 0; k < n; k++) {
    PetscCall(SimSolverStep(s, dt, NULL));
    PetscCall(SimSolverEnergy(s, &rep));
    *energy_drift = PetscMax(*energy_drift, PetscAbsReal(rep.total - E0) / E0);
  }
  PetscCall(SimSolverGetTime(s, &t, NULL));
  PetscCall(SimSceneExact(scene, t, xe, ve, &has));
  PetscCall(VecGetArrayRead(model->x, &x));
  for (int k = 0; k < 6; k++) diff[k] = x[k] - xe[k];
  PetscCall(VecRestoreArrayRead(model->x, &x));
  PetscCall(SimModelMassNorm(model, diff, err));
  PetscCall(SimSolverDestroy(&s));
  PetscCall(SimProblemDestroy(&problem));
  PetscCall(SimSceneDestroy(&scene));
  PetscFunctionReturn(0);
}

START_TEST(registered_solver_is_second_order)
{
  SimRegistry reg;
  const SimRegEntry *e;
  PetscReal e1, e2, d1, d2;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryAddFor(reg, SIM_KIND_SOLVER, "position_verlet", "position Verlet: drift-kick-drift (order 2)",
                                (SimGenericFn)SimSolverCreate_PositionVerlet, 0, "mesh"));
  CHECK_PETSC(SimRegistryFind(reg, SIM_KIND_SOLVER, "position_verlet", &e));
  ck_assert_str_eq(e->help, "position Verlet: drift-kick-drift (order 2)");
  CHECK_PETSC(OscillatorError(reg, 0.01, &e1, &d1));
  CHECK_PETSC(OscillatorError(reg, 0.005, &e2, &d2));
  ck_assert_msg(PetscAbsReal(PetscLog2Real(e1 / e2) - 2) < 0.2, "observed order %g", (double)PetscLog2Real(e1 / e2));
  ck_assert_msg(d1 < 0.01 && d2 < d1, "symplectic: bounded energy error that shrinks with dt (%g, %g)", d1, d2);
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* Registering a name twice is an error, so a plugin cannot silently replace a built-in. */
START_TEST(duplicate_name_is_an_error)
{
  SimRegistry reg;
  PetscErrorCode ierr;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimRegistryAddFor(reg, SIM_KIND_SOLVER, "rk4", "again", (SimGenericFn)SimSolverCreate_PositionVerlet, 0, "mesh");
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0, "registering 'rk4' twice must fail");
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* A help line longer than `pbsim list` shows is refused at registration, not cut mid-word. */
START_TEST(overlong_help_is_an_error)
{
  SimRegistry reg;
  PetscErrorCode ierr;
  char help[200];

  memset(help, 'x', sizeof(help) - 1), help[sizeof(help) - 1] = 0;
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimRegistryAddFor(reg, SIM_KIND_SOLVER, "wordy", help, (SimGenericFn)SimSolverCreate_PositionVerlet, 0, "mesh");
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0, "a 199-character help line must be refused");
  help[150] = 0;
  CHECK_PETSC(SimRegistryAddFor(reg, SIM_KIND_SOLVER, "wordy", help, (SimGenericFn)SimSolverCreate_PositionVerlet, 0, "mesh"));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("add_solver");
  TCase *tc = tcase_create("plugin");
  tcase_add_test(tc, registered_solver_is_second_order);
  tcase_add_test(tc, duplicate_name_is_an_error);
  tcase_add_test(tc, overlong_help_is_an_error);
  suite_add_tcase(s, tc);
  return s;
}
