/* The scenes registration table: one line per implementation in register.c. */
#pragma once
#include "framework/registry.h"

PetscErrorCode SimRegisterScenes(SimRegistry reg);
