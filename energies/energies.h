/* Constructors of the built-in energy terms that can be created from options (see register.c). */
#pragma once
#include "framework/model/model.h"

PetscErrorCode SimEnergyCreate_Gravity(SimModel model, const char *prefix, SimEnergy *term);
PetscErrorCode SimEnergyCreate_Plane(SimModel model, const char *prefix, SimEnergy *term);
PetscErrorCode SimEnergyCreate_Sphere(SimModel model, const char *prefix, SimEnergy *term);
