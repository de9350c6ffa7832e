/* Helpers shared by the Check unit tests (see testing.h). */
#include <string.h>
#include "testing.h"
#include "problems/register.h"
#include "solvers/register.h"
#include "scenes/register.h"
#include "energies/register.h"
#include "materials/register.h"

PetscErrorCode TestRegistryCreate(SimRegistry *reg)
{
  PetscFunctionBeginUser;
  PetscCall(SimRegistryCreate(reg));
  PetscCall(SimRegisterProblems(*reg));
  PetscCall(SimRegisterSolvers(*reg));
  PetscCall(SimRegisterScenes(*reg));
  PetscCall(SimRegisterEnergies(*reg));
  PetscCall(SimRegisterMaterials(*reg));
  PetscFunctionReturn(0);
}

PetscErrorCode TestSetOptions(const char *opts)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClear(NULL));
  if (opts) PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscFunctionReturn(0);
}

PetscErrorCode TestSimCreate(const char *scene, const char *solver, const char *opts, TestSim *t)
{
  return TestSimCreateOnComm(PETSC_COMM_SELF, scene, solver, opts, t);
}

PetscErrorCode TestSimCreateOnComm(MPI_Comm comm, const char *scene, const char *solver, const char *opts, TestSim *t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(t, sizeof(*t)));
  PetscCall(TestSetOptions(opts));
  PetscCall(TestRegistryCreate(&t->reg));
  PetscCall(SimSceneCreate(t->reg, scene, &t->scene));
  PetscCall(SimSceneBuild(t->scene, comm, &t->problem));
  t->model = SimMeshModel(t->problem);
  if (solver) {
    PetscCall(SimSolverCreate(t->reg, solver, t->problem, &t->solver));
    PetscCall(SimSolverSetFromOptions(t->solver));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TestSimDestroy(TestSim *t)
{
  PetscFunctionBeginUser;
  PetscCall(SimSolverDestroy(&t->solver));
  PetscCall(SimProblemDestroy(&t->problem));
  PetscCall(SimSceneDestroy(&t->scene));
  PetscCall(SimRegistryDestroy(&t->reg));
  PetscFunctionReturn(0);
}

PetscErrorCode TestCaptureError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p,
                                const char *mess, void *ctx)
{
  TestErrorCapture *c = (TestErrorCapture *)ctx;
  if (p == PETSC_ERROR_INITIAL && mess && !c->msg[0]) strncpy(c->msg, mess, sizeof(c->msg) - 1);
  return n;
}

PetscErrorCode TestSolverError(const char *scene, const char *solver, const char *opts, PetscBool setup, PetscErrorCode *ierr, TestErrorCapture *cap)
{
  TestSim s;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&s, sizeof(s)));
  PetscCall(PetscMemzero(cap, sizeof(*cap)));
  PetscCall(TestSetOptions(opts));
  PetscCall(TestRegistryCreate(&s.reg));
  PetscCall(SimSceneCreate(s.reg, scene, &s.scene));
  PetscCall(SimSceneBuild(s.scene, PETSC_COMM_SELF, &s.problem));
  PetscCall(SimSolverCreate(s.reg, solver, s.problem, &s.solver));
  PetscCall(PetscPushErrorHandler(TestCaptureError, cap));
  *ierr = SimSolverSetFromOptions(s.solver);
  if (!*ierr && setup) *ierr = SimSolverSetUp(s.solver);
  PetscCall(PetscPopErrorHandler());
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

PetscErrorCode TestSolverFigure(SimSolver s, const char *name, PetscReal *value)
{
  const char *names[SIM_MAX_FIGURES];
  PetscReal values[SIM_MAX_FIGURES];
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(SimSolverFigures(s, &n, names, values));
  for (PetscInt i = 0; i < n; i++)
    if (!strcmp(names[i], name)) {
      *value = values[i];
      PetscFunctionReturn(0);
    }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "the solver has no figure '%s'", name);
}
