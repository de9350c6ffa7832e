/* The pressure multigrid on any grid size: the level hierarchy (pairs of cells, the last one ragged on
 * an odd count, pressure_stencil.h) and PCMG over it, with matrix-free stencil levels and red-black
 * Gauss-Seidel smoothers or assembled ones, and a sparse direct coarse solve. */
#include "solvers/stablefluids/pressure_mg.h"
#include "solvers/stablefluids/pressure_stencil.h"

PetscErrorCode SimPressureHierarchy(SimMAC mac, PetscInt max, PetscInt *nlevels, DM da[])
{
  PetscInt n = 1;

  PetscFunctionBegin;
  PetscCall(SimPressureCreateGhostedDA(mac, &da[0]));
  while (n < max) {
    PetscInt M[3] = {1, 1, 1}, cells, coarsen = 0;
    PetscBool all = PETSC_TRUE, axes[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
    PetscCall(DMDAGetInfo(da[n - 1], NULL, &M[0], &M[1], &M[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    cells = M[0] * M[1] * M[2];
    for (PetscInt d = 0; d < mac->dim; d++) all = (PetscBool)(all && M[d] >= 8);
    /* every axis while all have >= 8 cells; then, while the coarsest level is large, those that do */
    for (PetscInt d = 0; d < mac->dim; d++) axes[d] = (PetscBool)(M[d] >= 8 && (all || cells > SIM_PRESSURE_COARSE_CELLS));
    for (PetscInt d = 0; d < mac->dim; d++) coarsen += axes[d];
    if (!coarsen) break;
    PetscCall(SimPressureCoarsenDA(mac, da[n - 1], axes, &da[n]));
    if (!da[n]) break;
    n++;
  }
  *nlevels = n;
  PetscFunctionReturn(0);
}

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
  /* Pre-smoothing: the multigrid cycle has just set x to 0, and KSPSolve would set it to 0 again (a
   * pass over x) before the sweep, which overwrites it without reading it. With a nonzero guess
   * KSPSolve skips that pass and, seeing x's cached norm 0, still calls the sweep with zero = TRUE. */
  if (!reverse) PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(SimPressureSmootherSetUp(pc, A, reverse));
  PetscFunctionReturn(0);
}

/* The assembled operator of level `dm`. */
static PetscErrorCode Assembled(SimMAC mac, DM dm, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(DMCreateMatrix(dm, A));
  PetscCall(SimPressureAssemble(mac, dm, *A));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPressureMGSetUp(PC pc, SimMAC mac, const DM da[], PetscBool matfree, Mat *A)
{
  PetscInt levels;
  PetscBool allwalls;

  PetscFunctionBegin;
  PetscCall(PCMGGetLevels(pc, &levels));
  PetscCall(SimMACAllWalls(mac, &allwalls));
  /* PCMG level l (0: coarsest) is hierarchy level levels - 1 - l (0: finest) */
  for (PetscInt l = levels - 1; l >= 1; l--) {
    DM dm = da[levels - 1 - l];
    Mat Al, P;
    KSP down, up;

    if (matfree) {
      PetscCall(SimPressureCreateStencil(mac, dm, &Al));
      /* No null space on the level operators: KSPRICHARDSON skips PCApplyRichardson (the in-place
       * sweep) for an operator with one, and falls back to residual + sweep + update. */
      PetscCall(MatSetNullSpace(Al, NULL));
      PetscCall(PCMGGetSmootherDown(pc, l, &down));
      PetscCall(SetSmoother(down, Al, PETSC_FALSE));
      PetscCall(PCMGGetSmootherUp(pc, l, &up));
      PetscCall(SetSmoother(up, Al, PETSC_TRUE));
      if (l == levels - 1) PetscCall(SimPressureCreateStencil(mac, dm, A)); /* the outer operator, with its null space */
    } else {
      PetscCall(Assembled(mac, dm, &Al));
      PetscCall(PCMGGetSmoother(pc, l, &down));
      PetscCall(KSPSetOperators(down, Al, Al));
      if (l == levels - 1) {
        *A = Al;
        PetscCall(PetscObjectReference((PetscObject)Al));
      }
    }
    PetscCall(SimPressureCreateInterpolation(mac, da[levels - l], dm, &P));
    PetscCall(PCMGSetInterpolation(pc, l, P));
    PetscCall(MatDestroy(&P));
    PetscCall(MatDestroy(&Al));
  }
  {
    /* The coarse level: a sparse direct solve (PCMG's LU, redundant on several ranks). With walls
     * everywhere the operator is singular (constants); the factored copy has its first diagonal
     * entry doubled, which makes it definite and for a right-hand side with zero sum (every coarse
     * residual: A's range is orthogonal to the constants) gives a solution of the singular system. */
    Mat A0, A0f;
    KSP coarse;
    PetscCall(Assembled(mac, da[levels - 1], &A0));
    PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, &A0f));
    if (allwalls) {
      PetscInt rstart;
      PetscScalar d0;
      PetscCall(MatGetOwnershipRange(A0f, &rstart, NULL));
      if (rstart == 0) {
        PetscInt row = 0;
        PetscCall(MatGetValues(A0f, 1, &row, 1, &row, &d0));
        PetscCall(MatSetValue(A0f, 0, 0, d0, ADD_VALUES));
      }
      PetscCall(MatAssemblyBegin(A0f, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A0f, MAT_FINAL_ASSEMBLY));
      PetscCall(MatSetNullSpace(A0f, NULL));
    }
    PetscCall(PCMGGetCoarseSolve(pc, &coarse));
    PetscCall(KSPSetOperators(coarse, A0, A0f));
    if (levels == 1) {
      *A = A0;
      PetscCall(PetscObjectReference((PetscObject)A0));
    }
    PetscCall(MatDestroy(&A0));
    PetscCall(MatDestroy(&A0f));
  }
  PetscFunctionReturn(0);
}
