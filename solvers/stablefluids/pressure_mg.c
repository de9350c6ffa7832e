/* PCMG over a hierarchy of matrix-free stencil levels (see pressure_mg.h). */
#include "solvers/stablefluids/pressure_mg.h"
#include "solvers/stablefluids/pressure_stencil.h"

/* One smoother: Richardson with two applications of the PCSHELL sweep, no norms. Two sweeps: at
 * 1024^2 the V(2,2) cycle needs 6 CG iterations instead of 9 (3D 128^3: 6 instead of 14) for about
 * the same time per iteration, the sweeps being a small part of it. */
static PetscErrorCode SetSmoother(KSP ksp, Mat A, PetscBool reverse)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPRICHARDSON));
  PetscCall(KSPSetTolerances(ksp, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 2));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(SimPressureSmootherSetUp(pc, A, reverse));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPressureMGSetUp(PC pc, SimMAC mac, Mat *A)
{
  PetscInt levels;
  DM *da;

  PetscFunctionBegin;
  PetscCall(PCMGGetLevels(pc, &levels));
  PetscCall(PetscCalloc1(levels, &da));
  PetscCall(SimPressureCreateGhostedDA(mac, &da[levels - 1]));
  if (levels > 1) PetscCall(DMCoarsenHierarchy(da[levels - 1], levels - 1, da)); /* da[levels-2] ... da[0] coarser and coarser */
  if (levels > 1) {
    /* DMCoarsenHierarchy fills coarse[0] as the first coarsening (the finest coarse level): reverse */
    for (PetscInt l = 0; l < (levels - 1) / 2; l++) {
      DM t = da[l];
      da[l] = da[levels - 2 - l];
      da[levels - 2 - l] = t;
    }
  }
  for (PetscInt l = levels - 1; l >= 1; l--) {
    Mat Al, P;
    KSP down, up;

    PetscCall(SimPressureCreateStencil(mac, da[l], &Al));
    /* No null space on the level operators: KSPRICHARDSON skips PCApplyRichardson (the in-place
     * sweep) for an operator with one, and falls back to residual + sweep + update. */
    PetscCall(MatSetNullSpace(Al, NULL));
    PetscCall(PCMGGetSmootherDown(pc, l, &down));
    PetscCall(SetSmoother(down, Al, PETSC_FALSE));
    PetscCall(PCMGGetSmootherUp(pc, l, &up));
    PetscCall(SetSmoother(up, Al, PETSC_TRUE));
    PetscCall(DMCreateInterpolation(da[l - 1], da[l], &P, NULL));
    PetscCall(PCMGSetInterpolation(pc, l, P));
    PetscCall(MatDestroy(&P));
    if (l == levels - 1) PetscCall(SimPressureCreateStencil(mac, da[l], A)); /* the outer operator, with its null space */
    PetscCall(MatDestroy(&Al));
  }
  {
    Mat A0;
    KSP coarse;
    PetscCall(DMCreateMatrix(da[0], &A0));
    PetscCall(SimPressureAssemble(mac, da[0], A0));
    PetscCall(PCMGGetCoarseSolve(pc, &coarse));
    PetscCall(KSPSetOperators(coarse, A0, A0));
    if (levels == 1) {
      *A = A0;
      PetscCall(PetscObjectReference((PetscObject)A0));
    }
    PetscCall(MatDestroy(&A0));
  }
  for (PetscInt l = 0; l < levels; l++) PetscCall(DMDestroy(&da[l]));
  PetscCall(PetscFree(da));
  PetscFunctionReturn(0);
}
