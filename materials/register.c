/* The materials table: one line per material model (the FEM issue fills it). */
#include "materials/register.h"

PetscErrorCode SimRegisterMaterials(SimRegistry reg)
{
  PetscFunctionBeginUser;
  (void)reg;
  PetscFunctionReturn(0);
}
