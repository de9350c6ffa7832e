/* Scenes: creation by registered name and building the problem they describe. */
#include "framework/scene.h"

PetscErrorCode SimSceneCreate(SimRegistry reg, const char *name, SimScene *scene)
{
  const SimRegEntry *e;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryFind(reg, SIM_KIND_SCENE, name, &e));
  PetscCheck(e->problem[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Scene '%s' is registered without a problem type", name);
  PetscCall(PetscNew(scene));
  PetscCall(PetscStrncpy((*scene)->name, name, sizeof((*scene)->name)));
  PetscCall(PetscStrncpy((*scene)->problem_type, e->problem, sizeof((*scene)->problem_type)));
  (*scene)->reg = reg;
  PetscCall(((SimSceneCreateFn)e->create)(*scene));
  PetscCheck((*scene)->ops.build, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Scene '%s' provides no build operation", name);
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneBuild(SimScene scene, MPI_Comm comm, SimProblem *problem)
{
  PetscFunctionBeginUser;
  PetscCall(SimProblemCreate(scene->reg, scene->problem_type, scene->name, comm, problem));
  PetscCall(scene->ops.build(scene, *problem));
  PetscCall(SimProblemSetUp(*problem));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneFigures(SimScene scene, SimProblem problem, PetscReal t, PetscInt *n, const char *names[], PetscReal values[])
{
  PetscFunctionBeginUser;
  *n = 0;
  if (scene->ops.figures) PetscCall(scene->ops.figures(scene, problem, t, n, names, values));
  PetscCheck(*n >= 0 && *n <= SIM_MAX_FIGURES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Scene '%s' reported %" PetscInt_FMT " figures (at most %d)",
             scene->name, *n, SIM_MAX_FIGURES);
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneExact(SimScene scene, PetscReal t, PetscReal *x, PetscReal *v, PetscBool *has)
{
  PetscFunctionBeginUser;
  *has = scene->ops.exact ? PETSC_TRUE : PETSC_FALSE;
  if (*has) PetscCall(scene->ops.exact(scene, t, x, v));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneDestroy(SimScene *scene)
{
  PetscFunctionBeginUser;
  if (!scene || !*scene) PetscFunctionReturn(0);
  if ((*scene)->ops.destroy) PetscCall((*scene)->ops.destroy(*scene));
  PetscCall(PetscFree(*scene));
  PetscFunctionReturn(0);
}
