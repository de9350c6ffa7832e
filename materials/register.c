/* The materials table: one line per material model (materials/<name>.c). */
#include "materials/register.h"
#include "framework/material.h"

PetscErrorCode SimMaterialCreate_StVK(SimMaterial);
PetscErrorCode SimMaterialCreate_Corotated(SimMaterial);
PetscErrorCode SimMaterialCreate_FixedCorotated(SimMaterial);
PetscErrorCode SimMaterialCreate_NeoHookean(SimMaterial);
PetscErrorCode SimMaterialCreate_StableNeoHookean(SimMaterial);
PetscErrorCode SimMaterialCreate_ARAP(SimMaterial);

#define ADD(name, help, fn) PetscCall(SimRegistryAdd(reg, SIM_KIND_MATERIAL, name, help, (SimGenericFn)(fn), 0))

PetscErrorCode SimRegisterMaterials(SimRegistry reg)
{
  PetscFunctionBeginUser;
  ADD("stvk", "St. Venant-Kirchhoff mu|E|^2 + lambda/2 tr(E)^2, E = (F^T F - I)/2 (Sifakis & Barbic 2012)",
      SimMaterialCreate_StVK);
  ADD("corotated", "linear corotated mu|S - I|^2 + lambda/2 tr(S - I)^2, F = RS (Muller & Gross 2004)",
      SimMaterialCreate_Corotated);
  ADD("fixed_corotated", "fixed corotated mu|F - R|^2 + lambda/2 (J - 1)^2 (Stomakhin et al. 2012)",
      SimMaterialCreate_FixedCorotated);
  ADD("neohookean", "neo-Hookean mu/2 (I_C - 3) - mu log J + lambda/2 log^2 J, +inf for J <= 0 (Bonet & Wood 2008)",
      SimMaterialCreate_NeoHookean);
  ADD("stable_neohookean", "stable neo-Hookean, rest-stable and inversion-safe (Smith, de Goes, Kim 2018)",
      SimMaterialCreate_StableNeoHookean);
  ADD("arap", "as-rigid-as-possible mu|F - R|^2 (Chao et al. 2010)", SimMaterialCreate_ARAP);
  PetscFunctionReturn(0);
}
