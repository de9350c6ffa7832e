/* The energies registration table: one line per implementation in register.c. */
#pragma once
#include "framework/registry.h"

PetscErrorCode SimRegisterEnergies(SimRegistry reg);
