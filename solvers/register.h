/* The solvers registration table: one line per implementation in register.c. */
#pragma once
#include "framework/registry.h"

PetscErrorCode SimRegisterSolvers(SimRegistry reg);
