/* Run-time plugins: a shared library that registers more implementations (materials, energy terms,
 * problem types, solvers, scenes) through the same registry calls the built-in tables use. */
#pragma once
#include "framework/registry.h"

/* The function a plugin exports, called once with the run's registry:
 *   PetscErrorCode PbsimPluginRegister(SimRegistry reg) { ... SimRegistryAddFor(reg, ...); ... }
 * A plugin is built against the pbsim headers (cmake: pbsim_plugin(), docs/guide.md). */
#define SIM_PLUGIN_SYMBOL "PbsimPluginRegister"
typedef PetscErrorCode (*SimPluginRegisterFn)(SimRegistry);

/* Loads the library at path (dlopen) and calls its PbsimPluginRegister; a library that cannot be
 * opened or lacks the function is an error naming the path and the reason. */
PetscErrorCode SimPluginLoad(SimRegistry reg, const char *path);
/* Loads every library named by -plugin a.so[,b.so...] in the options database. */
PetscErrorCode SimPluginLoadFromOptions(SimRegistry reg);
