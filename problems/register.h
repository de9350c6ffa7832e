/* Registers the built-in problem types (SIM_KIND_PROBLEM). */
#pragma once
#include "framework/registry.h"

PetscErrorCode SimRegisterProblems(SimRegistry reg);
