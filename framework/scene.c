/* Scenes: creation by registered name, and the common part of building a model from one. */
#include "framework/scene.h"

PetscErrorCode SimSceneCreate(SimRegistry reg, const char *name, SimScene *scene)
{
  const SimRegEntry *e;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryFind(reg, SIM_KIND_SCENE, name, &e));
  PetscCall(PetscNew(scene));
  PetscCall(PetscStrncpy((*scene)->name, name, sizeof((*scene)->name)));
  (*scene)->default_gravity[1] = -9.81;
  (*scene)->reg = reg;
  PetscCall(((SimSceneCreateFn)e->create)(*scene));
  PetscCheck(!(*scene)->ops.build != !(*scene)->ops.grid, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Scene '%s' must have exactly one of a build (model) and a grid operation", name);
  PetscCheck(!(*scene)->ops.grid == !(e->flags & SIM_REG_GRID), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Scene '%s': a grid scene is registered with SIM_REG_GRID, a model scene without it", name);
  PetscFunctionReturn(0);
}

/* Adds the option-driven terms: gravity, then each name in -colliders (looked up in the energy
 * table and created with the prefix "<name>_"). */
static PetscErrorCode AddOptionTerms(SimScene scene, SimRegistry reg, SimModel model)
{
  const SimRegEntry *e;
  SimEnergy term;
  char *names[16];
  PetscInt n = 16;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryLookup(reg, SIM_KIND_ENERGY, "gravity", &e));
  if (e && e->create) {
    PetscCall(((SimEnergyCreateFn)e->create)(model, NULL, &term));
    if (term) PetscCall(SimModelAddTerm(model, term));
  }
  /* "-colliders none" turns off a scene's default collider */
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-colliders", names, &n, &set));
  if (!set && scene->default_colliders[0]) {
    PetscCall(PetscStrallocpy(scene->default_colliders, &names[0]));
    n = 1;
    set = PETSC_TRUE;
  }
  for (PetscInt c = 0; set && c < n; c++) {
    char prefix[80];
    if (!strcmp(names[c], "none")) continue;
    PetscCall(SimRegistryFind(reg, SIM_KIND_ENERGY, names[c], &e));
    PetscCheck(e->create, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "-colliders: energy term '%s' is built by scenes and cannot be created from options", names[c]);
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", names[c]));
    PetscCall(((SimEnergyCreateFn)e->create)(model, prefix, &term));
    PetscCall(SimModelAddTerm(model, term));
  }
  for (PetscInt c = 0; set && c < n; c++) PetscCall(PetscFree(names[c]));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneBuildModel(SimScene scene, SimRegistry reg, MPI_Comm comm, SimModel *model)
{
  PetscFunctionBeginUser;
  PetscCheck(scene->ops.build, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Scene '%s' describes a grid problem, not a model", scene->name);
  PetscCall(SimModelCreate(comm, model));
  PetscCall(PetscArraycpy((*model)->gravity, scene->default_gravity, 3));
  PetscCall(scene->ops.build(scene, *model));
  PetscCheck((*model)->x, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Scene '%s' built no vertices", scene->name);
  PetscCall(VecAssemblyBegin((*model)->mass));
  PetscCall(VecAssemblyEnd((*model)->mass));
  PetscCall(AddOptionTerms(scene, reg, *model));
  PetscCall(SimModelFinalize(*model));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneBuildGrid(SimScene scene, SimGridProblem *problem)
{
  PetscFunctionBeginUser;
  PetscCheck(scene->ops.grid, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Scene '%s' builds a model, not a grid problem", scene->name);
  PetscCall(SimGridProblemSetDefaults(problem));
  PetscCall(scene->ops.grid(scene, problem));
  PetscCall(SimGridProblemCheck(problem, scene->name));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneIsGrid(SimScene scene, PetscBool *isgrid)
{
  PetscFunctionBeginUser;
  *isgrid = scene->ops.grid ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneFigures(SimScene scene, SimModel model, PetscReal t, PetscInt *n, const char *names[], PetscReal values[])
{
  PetscFunctionBeginUser;
  *n = 0;
  if (scene->ops.figures) PetscCall(scene->ops.figures(scene, model, t, n, names, values));
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
