/* Creation and destruction of energy terms (the ops are the implementations'). */
#include "framework/model/energy.h"

PetscErrorCode SimEnergyCreate(const char *name, SimEnergyKind kind, const SimEnergyOps *ops, void *data, SimEnergy *term)
{
  PetscFunctionBeginUser;
  PetscCheck(ops && ops->value && ops->gradient, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "Energy term '%s' must provide value and gradient", name);
  PetscCall(PetscNew(term));
  PetscCall(PetscStrncpy((*term)->name, name, sizeof((*term)->name)));
  (*term)->kind = kind;
  (*term)->ops = *ops;
  (*term)->data = data;
  PetscFunctionReturn(0);
}

PetscErrorCode SimEnergyDestroy(SimEnergy *term)
{
  PetscFunctionBeginUser;
  if (!term || !*term) PetscFunctionReturn(0);
  if ((*term)->ops.destroy) PetscCall((*term)->ops.destroy(*term));
  PetscCall(PetscFree(*term));
  PetscFunctionReturn(0);
}
