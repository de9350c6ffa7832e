/* The Stable Fluids pressure projection on a MAC grid, solved by KSPCG + PCMG over the DMDA hierarchy. */
#include "solvers/stablefluids/projection.h"
#include "framework/events.h"
#include "solvers/stablefluids/pressure_mg.h"
#include "solvers/stablefluids/pressure_stencil.h"

struct _n_SimProjection {
  SimMAC mac;         /* not owned */
  DM dm;              /* a cell DMDA compatible with mac->da: the KSP's DM for the assembled non-MG PCs */
  PetscInt nda;       /* the multigrid hierarchy (pressure_mg.h), finest first */
  DM da[16];
  PetscReal level_cells; /* sum over the smoothed levels of their cells / the fine cells (bytes model) */
  PetscBool warm;        /* -<prefix>warm_start: p on entry is the initial guess */
  PetscReal div_norm;    /* |div_h u*|_2 of the last projection */
  KSP ksp;            /* CG + MG by default */
  PetscBool allwalls; /* singular operator with the constants as null space */
  PetscBool setup;    /* level defaults applied and KSPSetUp done */
  PetscBool matfree;  /* PCMG with matrix-free stencil levels (pressure_mg.h) instead of assembled ones */
  Vec b;              /* right-hand side */
  SimEvents ev;       /* SimFactor: hierarchy and operator setup; SimSolve: the pressure KSPSolve */
};

/* The KSP's operators on each level of the assembled PCMG hierarchy (and for every other PC): the
 * pressure operator rediscretized at that level's h (SimPressureAssemble). */
static PetscErrorCode ComputeOperator_Projection(KSP ksp, Mat J, Mat A, void *ctx)
{
  SimProjection proj = (SimProjection)ctx;
  DM dm;

  PetscFunctionBegin;
  PetscCall(KSPGetDM(ksp, &dm));
  PetscCall(SimPressureAssemble(proj->mac, dm, A));
  if (J != A) {
    MatNullSpace ns;
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatGetNullSpace(A, &ns));
    if (ns) PetscCall(MatSetNullSpace(J, ns));
  }
  PetscFunctionReturn(0);
}

/* After the options: PCMG (either variant) gets its hierarchy, operators and transfers here (the
 * first L levels of the hierarchy when -<prefix>pc_mg_levels asks for L); every other choice (GAMG,
 * hypre, ICC, ...) gets the assembled fine operator on the DM. */
static PetscErrorCode ChooseOperators(SimProjection P, PetscInt kind)
{
  PetscBool ismg;
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(P->ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  P->matfree = (PetscBool)(ismg && kind == 0);
  if (ismg) {
    Mat A;
    PetscInt levels;
    PetscCall(PCMGGetLevels(pc, &levels));
    PetscCheck(levels <= P->nda, PetscObjectComm((PetscObject)P->ksp), PETSC_ERR_ARG_OUTOFRANGE,
               "the pressure grid allows at most %" PetscInt_FMT " multigrid levels (asked for %" PetscInt_FMT ")", P->nda, levels);
    PetscCall(PetscLogEventBegin(P->ev.factor, 0, 0, 0, 0));
    PetscCall(SimPressureMGSetUp(pc, P->mac, P->da, P->matfree, &A));
    PetscCall(PetscLogEventEnd(P->ev.factor, 0, 0, 0, 0));
    P->level_cells = 0;
    for (PetscInt l = 0; l < levels - 1; l++) {
      PetscInt M[3] = {1, 1, 1};
      PetscCall(DMDAGetInfo(P->da[l], NULL, &M[0], &M[1], &M[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
      P->level_cells += (PetscReal)(M[0] * M[1] * M[2]) / (P->mac->n[0] * P->mac->n[1] * P->mac->n[2]);
    }
    PetscCall(KSPSetOperators(P->ksp, A, A));
    PetscCall(MatDestroy(&A));
  } else {
    PetscCall(KSPSetDM(P->ksp, P->dm));
    PetscCall(KSPSetComputeOperators(P->ksp, ComputeOperator_Projection, P));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimProjectionCreate(SimMAC mac, const char prefix[], SimProjection *proj)
{
  SimProjection P;
  PC pc;
  PetscInt kind = 0;
  static const char *const kinds[] = {"matfree", "assembled"};

  PetscFunctionBegin;
  /* read first: a bad value is an error before anything is allocated */
  PetscCall(PetscOptionsGetEList(NULL, prefix ? prefix : "sf_pressure_", "-mg_operator", kinds, 2, &kind, NULL));
  PetscCall(PetscNew(&P));
  P->mac = mac;
  PetscCall(SimEventsGet(&P->ev));
  PetscCall(SimMACAllWalls(mac, &P->allwalls));
  /* A private copy of the cell layout: the KSP's DMKSP and hierarchy live on it, not on mac->da. */
  PetscCall(DMDACreateCompatibleDMDA(mac->da, 1, &P->dm));
  PetscCall(DMCreateGlobalVector(P->dm, &P->b));

  PetscCall(KSPCreate(PetscObjectComm((PetscObject)mac->da), &P->ksp));
  PetscCall(KSPSetOptionsPrefix(P->ksp, prefix ? prefix : "sf_pressure_"));
  PetscCall(KSPSetType(P->ksp, KSPCG));
  PetscCall(KSPSetNormType(P->ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(P->ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  P->warm = PETSC_TRUE;
  PetscCall(PetscOptionsGetBool(NULL, prefix ? prefix : "sf_pressure_", "-warm_start", &P->warm, NULL));
  /* the multigrid levels (any grid size: pressure_mg.h); the options may ask for fewer */
  PetscCall(PetscLogEventBegin(P->ev.factor, 0, 0, 0, 0));
  PetscCall(SimPressureHierarchy(mac, 16, &P->nda, P->da));
  PetscCall(PetscLogEventEnd(P->ev.factor, 0, 0, 0, 0));
  PetscCall(KSPGetPC(P->ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PCMGSetLevels(pc, P->nda, NULL));
  PetscCall(KSPSetFromOptions(P->ksp));
  PetscCall(ChooseOperators(P, kind));
  *proj = P;
  PetscFunctionReturn(0);
}

/* Once, before the first solve, defaults for the PCMG levels: SSOR smoothing for the assembled
 * variant (the matrix-free one got its red-black smoothers at creation). The level options are read
 * after this, so -<prefix>mg_levels_* and -<prefix>mg_coarse_* still win. */
static PetscErrorCode SetUp_Projection(SimProjection proj)
{
  PC pc;
  PetscBool ismg;

  PetscFunctionBegin;
  if (proj->setup) PetscFunctionReturn(0);
  PetscCall(KSPGetPC(proj->ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
  if (ismg) {
    PetscInt levels;
    PetscCall(PCMGGetLevels(pc, &levels));
    /* Smoother: one symmetric Gauss-Seidel sweep (Richardson + SSOR) before and after the
     * coarse correction, a symmetric V-cycle as CG needs (McAdams et al. 2010 smooth with
     * damped Jacobi plus boundary Gauss-Seidel sweeps). Measured at 256^2: 6 CG iterations
     * instead of 8 and ~2-3x less time per solve than PETSc's default Chebyshev(2)+SOR. */
    for (PetscInt l = 1; l < levels && !proj->matfree; l++) {
      KSP sksp;
      PC spc;
      PetscCall(PCMGGetSmoother(pc, l, &sksp));
      PetscCall(KSPSetType(sksp, KSPRICHARDSON));
      PetscCall(KSPSetTolerances(sksp, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 1));
      PetscCall(KSPGetPC(sksp, &spc));
      PetscCall(PCSetType(spc, PCSOR));
    }
  }
  PetscCall(PetscLogEventBegin(proj->ev.factor, 0, 0, 0, 0));
  PetscCall(KSPSetUp(proj->ksp));
  PetscCall(PetscLogEventEnd(proj->ev.factor, 0, 0, 0, 0));
  proj->setup = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Solves A p = b (b is proj->b, already scaled), removing the null space from b first. */
static PetscErrorCode Solve_Projection(SimProjection proj, Vec p)
{
  Mat A;
  MatNullSpace ns;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(SetUp_Projection(proj));
  PetscCall(KSPGetOperators(proj->ksp, &A, NULL));
  PetscCall(MatGetNullSpace(A, &ns));
  if (ns) PetscCall(MatNullSpaceRemove(ns, proj->b));
  PetscCall(PetscLogEventBegin(proj->ev.solve, 0, 0, 0, 0));
  PetscCall(KSPSolve(proj->ksp, proj->b, p));
  PetscCall(PetscLogEventEnd(proj->ev.solve, 0, 0, 0, 0));
  PetscCall(KSPGetConvergedReason(proj->ksp, &reason));
  if (reason <= 0) {
    const char *pre;
    PetscCall(KSPGetOptionsPrefix(proj->ksp, &pre));
    SETERRQ(PetscObjectComm((PetscObject)proj->ksp), PETSC_ERR_NOT_CONVERGED,
            "pressure solve did not converge (%s); try -%sksp_monitor_true_residual, a looser -%sksp_rtol or another -%spc_type",
            KSPConvergedReasons[reason], pre, pre, pre);
  }
  if (ns) PetscCall(MatNullSpaceRemove(ns, p));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProjectionSolveLaplacian(SimProjection proj, Vec f, Vec p)
{
  PetscReal vol = PetscPowRealInt(proj->mac->h, proj->mac->dim);

  PetscFunctionBegin;
  /* A = -h^d lap_h, so A p = -h^d f. */
  PetscCall(VecAXPBY(proj->b, -vol, 0.0, f));
  PetscCall(Solve_Projection(proj, p));
  PetscFunctionReturn(0);
}

/* grad_h p on face i of a row of n cells (Bridson eq. 5.2): (p_i - p_{i-1}) / h inside; on a
 * boundary face, 0 for a wall (returns PETSC_FALSE: the face is not updated) and the ghost
 * p = -p_inside for an open face. pm = p_{i-1} (unused if i == 0), pp = p_i (unused if i == n). */
static inline PetscBool FaceGradient(PetscInt i, PetscInt n, const SimMACBoundary bc[2], PetscScalar pm, PetscScalar pp,
                                     PetscReal ih, PetscScalar *g)
{
  if (i == 0) {
    if (bc[0] == SIM_MAC_WALL) return PETSC_FALSE;
    pm = -pp;
  } else if (i == n) {
    if (bc[1] == SIM_MAC_WALL) return PETSC_FALSE;
    pp = -pm;
  }
  *g = (pp - pm) * ih;
  return PETSC_TRUE;
}

/* u <- u - (dt/rho) grad_h p on every owned non-wall face (Stam 1999 eq. 6; Bridson eq. 5.1-5.2).
 * Flat indices (no DMDAVecGetArrayDOF, whose pointer table has an entry per point): q(k, j, i) into
 * p's ghosted array (on one rank p's own: the same layout), v(k, j, i, c) into u's owned one. */
static PetscErrorCode SubtractGradient_Projection(SimMAC mac, PetscReal scale, Vec p, Vec u)
{
  Vec pll, pl;
  PetscInt xs, ys, zs, xm, ym, zm, gxs, gys, gzs, gxm, gym;
  PetscInt *n = mac->n;
  const PetscInt dim = mac->dim;
  PetscReal ih = 1.0 / mac->h;
  PetscScalar g, *va;
  const PetscScalar *qa;

  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(mac->da, &pll));
  PetscCall(SimMACGhosted(mac->da, p, pll, &pl, NULL));
  PetscCall(DMDAGetCorners(mac->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetGhostCorners(mac->da, &gxs, &gys, &gzs, &gxm, &gym, NULL));
  PetscCall(VecGetArrayRead(pl, &qa));
  PetscCall(VecGetArray(u, &va));
#define q(k, j, i) qa[((i) - gxs) + gxm * (((j) - gys) + gym * ((k) - gzs))]
#define v(k, j, i, c) va[dim * (((i) - xs) + xm * (((j) - ys) + ym * ((k) - zs))) + (c)]
  if (dim == 2) {
    /* the boundary faces through FaceGradient, the interior ones (its arithmetic, (pp - pm) * ih)
     * in plain loops the compiler vectorizes */
    for (PetscInt j = ys; j < ys + ym; j++) {
      const PetscInt iend = PetscMin(xs + xm, n[0]); /* the y-faces of a row: i < n[0] */
      if (j < n[1]) {
        PetscInt i0 = xs, i1 = xs + xm;
        if (i0 == 0) {
          if (FaceGradient(0, n[0], &mac->bc[0], 0, q(0, j, 0), ih, &g)) v(0, j, 0, 0) -= scale * g;
          i0 = 1;
        }
        if (i1 == n[0] + 1) {
          if (FaceGradient(n[0], n[0], &mac->bc[0], q(0, j, n[0] - 1), 0, ih, &g)) v(0, j, n[0], 0) -= scale * g;
          i1 = n[0];
        }
        for (PetscInt i = i0; i < i1; i++) v(0, j, i, 0) -= scale * ((q(0, j, i) - q(0, j, i - 1)) * ih);
      }
      if (j == 0 || j == n[1])
        for (PetscInt i = xs; i < iend; i++) {
          if (FaceGradient(j, n[1], &mac->bc[2], j > 0 ? q(0, j - 1, i) : 0, j < n[1] ? q(0, j, i) : 0, ih, &g)) v(0, j, i, 1) -= scale * g;
        }
      else
        for (PetscInt i = xs; i < iend; i++) v(0, j, i, 1) -= scale * ((q(0, j, i) - q(0, j - 1, i)) * ih);
    }
  } else {
    for (PetscInt k = zs; k < zs + zm; k++)
      for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++) {
          if (j < n[1] && k < n[2] &&
              FaceGradient(i, n[0], &mac->bc[0], i > 0 ? q(k, j, i - 1) : 0, i < n[0] ? q(k, j, i) : 0, ih, &g))
            v(k, j, i, 0) -= scale * g;
          if (i < n[0] && k < n[2] &&
              FaceGradient(j, n[1], &mac->bc[2], j > 0 ? q(k, j - 1, i) : 0, j < n[1] ? q(k, j, i) : 0, ih, &g))
            v(k, j, i, 1) -= scale * g;
          if (i < n[0] && j < n[1] &&
              FaceGradient(k, n[2], &mac->bc[4], k > 0 ? q(k - 1, j, i) : 0, k < n[2] ? q(k, j, i) : 0, ih, &g))
            v(k, j, i, 2) -= scale * g;
        }
  }
#undef q
#undef v
  PetscCall(VecRestoreArray(u, &va));
  PetscCall(VecRestoreArrayRead(pl, &qa));
  PetscCall(DMRestoreLocalVector(mac->da, &pll));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProjectionApply(SimProjection proj, PetscReal dt, PetscReal rho, Vec u, Vec p)
{
  SimMAC mac = proj->mac;
  Vec pw = p;
  PetscReal vol = PetscPowRealInt(mac->h, mac->dim);
  PetscBool warm = (PetscBool)(p && proj->warm);

  PetscFunctionBegin;
  PetscCheck(dt > 0, PetscObjectComm((PetscObject)proj->ksp), PETSC_ERR_ARG_OUTOFRANGE,
             "projection time step dt = %g must be positive", (double)dt);
  PetscCheck(rho > 0, PetscObjectComm((PetscObject)proj->ksp), PETSC_ERR_ARG_OUTOFRANGE,
             "projection density rho = %g must be positive", (double)rho);
  if (!pw) PetscCall(DMGetGlobalVector(mac->da, &pw));
  /* lap_h p = (rho/dt) div_h u*  <=>  A p = -h^d (rho/dt) div_h u* (A = -h^d lap_h). */
  PetscCall(SimMACDivergence(mac, u, proj->b));
  PetscCall(VecNorm(proj->b, NORM_2, &proj->div_norm));
  PetscCall(VecScale(proj->b, -vol * rho / dt));
  PetscCall(KSPSetInitialGuessNonzero(proj->ksp, warm)); /* warm start: p on entry */
  PetscCall(Solve_Projection(proj, pw));
  PetscCall(SubtractGradient_Projection(mac, dt / rho, pw, u));
  if (!p) PetscCall(DMRestoreGlobalVector(mac->da, &pw));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProjectionGetDivergenceNorm(SimProjection proj, PetscReal *norm)
{
  PetscFunctionBegin;
  *norm = proj->div_norm;
  PetscFunctionReturn(0);
}

PetscErrorCode SimProjectionGetWarmStart(SimProjection proj, PetscBool *warm)
{
  PetscFunctionBegin;
  *warm = proj->warm;
  PetscFunctionReturn(0);
}

PetscErrorCode SimProjectionGetIterations(SimProjection proj, PetscInt *its)
{
  PetscFunctionBegin;
  PetscCall(KSPGetIterationNumber(proj->ksp, its));
  PetscFunctionReturn(0);
}

/* Bytes per cell moved by the sweeps of one CG iteration and of one V-cycle level (8-byte doubles;
 * each array pass counted once, coarse grids and index arrays of the transfers at 4 B per entry).
 * Several ranks, where the stencil works on a ghosted copy (pressure_stencil.c):
 *   CG (KSPSolve_CG, unpreconditioned norm): two dot products (2 x 16), p = z + beta p (24),
 *     x += a p and r -= a w (2 x 24), ||r|| (8), the stencil product w = A p (copy into the ghosted
 *     array 16, read 8, write 8), null-space removal from z (sum 8, shift 16)            = 168;
 *   a smoothed level, V(2,2) red-black: pre-smoothing from zero (first half-sweep reads b, writes x:
 *     16; three half-sweeps read x and b and write x: 3 x 24; copy back 16) = 104; post-smoothing
 *     (copy in 16, four half-sweeps 96, copy back 16) = 128; residual r = b - A x (copy in 16, read
 *     x and b, write r: 24) = 40; restriction (Q0 transpose product: value 8, column 4, row pointer
 *     4, x 8) = 24; interpolate-add (value, column, row pointer 16, read and write x 16) = 32  = 328.
 * One rank, where the stencil reads the vectors themselves and a smoothing's four half-sweeps are one
 * wavefront pass: CG 168 - 16 (no copy) = 152; a level: pre-smoothing (read b, write x) 16,
 * post-smoothing (read b, read and write x) 24, residual (read x and b, write r) 24, restriction 24,
 * interpolate-add 32                                                                        = 120.
 * (PCMG's zeroing of a level's x before the pre-smoothing, 8, is not counted; KSPSolve does not zero it
 * again: pressure_mg.c.)
 * The smoothed levels' cells are counted from the hierarchy (a level halved along every axis has
 * 2^-d as many cells as the one above; a ragged or semi-coarsened one slightly more). */
static const PetscReal bytes_cg[2] = {152, 168}, bytes_level[2] = {120, 328}; /* [one rank, several] */

PetscErrorCode SimProjectionBytesPerIteration(SimProjection proj, PetscReal *bytes)
{
  PC pc;
  PetscInt levels, its = 0;
  PetscReal cells = 1;
  PetscMPIInt size;
  KSP smoother;

  PetscFunctionBegin;
  *bytes = 0;
  if (!proj->matfree) PetscFunctionReturn(0);
  PetscCall(KSPGetPC(proj->ksp, &pc));
  PetscCall(PCMGGetLevels(pc, &levels));
  if (levels > 1) {
    PetscCall(PCMGGetSmoother(pc, levels - 1, &smoother));
    PetscCall(KSPGetTolerances(smoother, NULL, NULL, NULL, &its));
    if (its != 2) PetscFunctionReturn(0); /* the model counts the default V(2,2) */
  }
  for (PetscInt d = 0; d < proj->mac->dim; d++) cells *= proj->mac->n[d];
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)proj->ksp), &size));
  *bytes = cells * (bytes_cg[size > 1] + bytes_level[size > 1] * proj->level_cells);
  PetscFunctionReturn(0);
}

/* The rest of SimProjectionApply beside the KSP solve, in the same counting (8-byte values, each
 * array pass once), with F the face entries and F1 their ghosted local copies (width 1), N the cells
 * and N1 theirs: the divergence (exchange of u, F + F1; read F1, write N), |b| (N), the scaling of b
 * (2N), with walls everywhere the null space removed from b and from p (each a sum N and a shift
 * 2N), and the gradient update (exchange of p, N + N1; read N1; read and write u, 2F). On one rank
 * there is no exchange (SimMACGhosted: the loops read u and p themselves, F1 = F and N1 = N). */
PetscErrorCode SimProjectionBytesAround(SimProjection proj, PetscReal *bytes)
{
  SimMAC mac = proj->mac;
  PetscReal F, F1, N, N1, exchange;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(SimMACEntries(mac->dav, &F, &F1));
  PetscCall(SimMACEntries(mac->da, &N, &N1));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)proj->ksp), &size));
  exchange = size > 1 ? (F + F1) + (N + N1) : 0;
  *bytes = 8 * (exchange + (F1 + N) + N + 2 * N + (proj->allwalls ? 6 * N : 0) + N1 + 2 * F);
  PetscFunctionReturn(0);
}

PetscErrorCode SimProjectionGetKSP(SimProjection proj, KSP *ksp)
{
  PetscFunctionBegin;
  *ksp = proj->ksp;
  PetscFunctionReturn(0);
}

PetscErrorCode SimProjectionDestroy(SimProjection *proj)
{
  PetscFunctionBegin;
  if (!proj || !*proj) PetscFunctionReturn(0);
  PetscCall(KSPDestroy(&(*proj)->ksp));
  for (PetscInt l = 0; l < (*proj)->nda; l++) PetscCall(DMDestroy(&(*proj)->da[l]));
  PetscCall(VecDestroy(&(*proj)->b));
  PetscCall(DMDestroy(&(*proj)->dm));
  PetscCall(PetscFree(*proj));
  PetscFunctionReturn(0);
}
