/* Helpers shared by the Check unit tests (see testing.h). */
#include "testing.h"
#include "solvers/register.h"
#include "scenes/register.h"
#include "energies/register.h"
#include "materials/register.h"

PetscErrorCode TestRegistryCreate(SimRegistry *reg)
{
  PetscFunctionBeginUser;
  PetscCall(SimRegistryCreate(reg));
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
