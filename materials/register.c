/* The materials table: one line per material model (materials/<name>.c). */
#include "materials/register.h"
#include "framework/material.h"

/* ADD(name, constructor, one-line description for `pbsim list`): declares the constructor (a block-scope
 * declaration, so that a new material is this one line) and registers it. */
#define ADD(name, fn, help)                                                                                                      \
  do {                                                                                                                           \
    PetscErrorCode fn(SimMaterial);                                                                                              \
    PetscCall(SimRegistryAdd(reg, SIM_KIND_MATERIAL, name, help, (SimGenericFn)(fn), 0));                                        \
  } while (0)

PetscErrorCode SimRegisterMaterials(SimRegistry reg)
{
  PetscFunctionBeginUser;
  ADD("stvk", SimMaterialCreate_StVK,
      "St. Venant-Kirchhoff mu|E|^2 + lambda/2 tr(E)^2, E = (F^T F - I)/2 (Sifakis & Barbic 2012)");
  ADD("corotated", SimMaterialCreate_Corotated,
      "linear corotated mu|S - I|^2 + lambda/2 tr(S - I)^2, F = RS (Muller & Gross 2004)");
  ADD("fixed_corotated", SimMaterialCreate_FixedCorotated,
      "fixed corotated mu|F - R|^2 + lambda/2 (J - 1)^2 (Stomakhin et al. 2012)");
  ADD("neohookean", SimMaterialCreate_NeoHookean,
      "neo-Hookean mu/2 (I_C - 3) - mu log J + lambda/2 log^2 J, +inf for J <= 0 (Mooney 1940, Rivlin 1948)");
  ADD("stable_neohookean", SimMaterialCreate_StableNeoHookean,
      "stable neo-Hookean, rest-stable and inversion-safe (Smith, de Goes, Kim 2018)");
  ADD("arap", SimMaterialCreate_ARAP, "as-rigid-as-possible mu|F - R|^2 (Chao et al. 2010)");
  ADD("mooney_rivlin", SimMaterialCreate_MooneyRivlin,
      "compressible Mooney-Rivlin C10 (Ibar_C - 3) + C01 (IIbar_C - 3) + kappa/2 (J - 1)^2 (Mooney 1940, Rivlin 1948)");
  ADD("ogden", SimMaterialCreate_Ogden,
      "compressible Ogden, 1-3 terms sum 2 mu_p/alpha_p^2 (sum lbar_i^alpha_p - 3) + kappa/2 (J - 1)^2 (Ogden 1972)");
  ADD("fung", SimMaterialCreate_Fung, "isotropic Fung soft tissue c/2 (exp(2 W_StVK / c) - 1), c = mu / b (Fung 1979)");
  ADD("hgo", SimMaterialCreate_HGO,
      "Holzapfel-Gasser-Ogden fibres k1/(2k2)(exp(k2 (I4-1)^2) - 1) on stable neo-Hookean, anisotropic (HGO 2000)");
  PetscFunctionReturn(0);
}
