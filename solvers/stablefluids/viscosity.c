/* Implicit viscosity: (I - nu dt lap_h) u = u* for each velocity component on its faces
 * (Stam 1999 sec. 2.3, backward Euler diffusion; Bridson ch. 10), by CG (Jacobi by default; the
 * operator is I + O(nu dt / h^2), so few iterations). Walls enter through ghost values across
 * the boundary: no-slip / inflow faces mirror to the wall velocity w (u_ghost = 2 w - u), slip
 * walls and open faces mirror the value (zero normal derivative). Prescribed boundary-normal
 * faces and padding are identity rows. */
#include "solvers/stablefluids/sf_impl.h"

/* Row of face component c at idx: its stencil (assembled into A when `assemble`) and the
 * right-hand-side addition from wall ghosts. Returns the number of columns. */
static PetscErrorCode Row(SF *sf, PetscInt c, const PetscInt idx[3], PetscReal t, PetscReal a, MatStencil col[7],
                          PetscScalar val[7], PetscInt *ncol, PetscReal *rhs_add)
{
  const SimGridProblem *p = sf->prob;
  const PetscInt *n = sf->mac->n, dim = sf->mac->dim;
  MatStencil row = {.k = idx[2], .j = idx[1], .i = idx[0], .c = c};
  PetscReal diag = 1;

  PetscFunctionBegin;
  *ncol = 1;
  *rhs_add = 0;
  col[0] = row;
  if (SFFacePadding(sf, c, idx) || SFFacePrescribed(sf, c, idx)) {
    val[0] = 1;
    PetscFunctionReturn(0);
  }
  for (PetscInt ax = 0; ax < dim; ax++)
    for (PetscInt side = 0; side < 2; side++) {
      PetscInt nb = idx[ax] + (side ? 1 : -1), top = ax == c ? n[ax] : n[ax] - 1;
      PetscInt nbidx[3] = {idx[0], idx[1], idx[2]};
      nbidx[ax] = nb;
      if (nb >= 0 && nb <= top && ax == c && SFFacePrescribed(sf, c, nbidx)) {
        /* a known boundary-normal face: its value moves to the right-hand side (keeps A symmetric) */
        PetscReal x[3], w[3] = {0, 0, 0};
        SFFacePosition(sf, c, nbidx[0], nbidx[1], nbidx[2], x);
        if (p->boundary_velocity && (p->face[2 * c + side] == SIM_GRID_WALL || p->face[2 * c + side] == SIM_GRID_INFLOW))
          PetscCall(p->boundary_velocity(p->ctx, 2 * c + side, x, t, w));
        diag += a;
        *rhs_add += a * w[c];
      } else if (nb >= 0 && nb <= top) {
        PetscInt *at[3] = {&col[*ncol].i, &col[*ncol].j, &col[*ncol].k};
        col[*ncol] = row;
        *at[ax] = nb;
        val[(*ncol)++] = -a;
        diag += a;
      } else if (p->face[2 * ax + side] == SIM_GRID_WALL || p->face[2 * ax + side] == SIM_GRID_INFLOW) {
        PetscReal x[3], w[3] = {0, 0, 0};
        SFFacePosition(sf, c, idx[0], idx[1], idx[2], x);
        x[ax] = side ? n[ax] * sf->h : 0; /* the boundary point beside the face */
        if (p->boundary_velocity) PetscCall(p->boundary_velocity(p->ctx, 2 * ax + side, x, t, w));
        diag += 2 * a;
        *rhs_add += 2 * a * w[c];
      }
    }
  val[0] = diag;
  PetscFunctionReturn(0);
}

PetscErrorCode SFViscositySolve(SF *sf, PetscReal t, PetscReal dt)
{
  PetscInt xs, ys, zs, xm, ym, zm, dim = sf->mac->dim, its;
  PetscReal a = sf->nu * dt / (sf->h * sf->h);
  PetscBool assemble;
  PetscScalar *b;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  sf->viscosity_its = 0;
  if (sf->nu == 0) PetscFunctionReturn(0);
  if (!sf->vksp) {
    PetscCall(DMCreateMatrix(sf->mac->dav, &sf->vA));
    PetscCall(MatSetOption(sf->vA, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
    PetscCall(DMCreateGlobalVector(sf->dav, &sf->vb));
    PetscCall(KSPCreate(PetscObjectComm((PetscObject)sf->vA), &sf->vksp));
    PetscCall(KSPSetOptionsPrefix(sf->vksp, "sf_viscosity_"));
    PetscCall(KSPSetType(sf->vksp, KSPCG));
    PetscCall(KSPSetNormType(sf->vksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(sf->vksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
    {
      PC pc;
      PetscCall(KSPGetPC(sf->vksp, &pc));
      PetscCall(PCSetType(pc, PCJACOBI));
    }
    PetscCall(KSPSetFromOptions(sf->vksp));
    PetscCall(KSPSetInitialGuessNonzero(sf->vksp, PETSC_TRUE));
  }
  assemble = (PetscBool)(sf->vdt != dt);
  PetscCall(VecCopy(sf->u, sf->vb));
  PetscCall(DMDAGetCorners(sf->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(sf->vb, &b));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < dim; c++) {
          const PetscInt idx[3] = {i, j, k};
          MatStencil col[7];
          PetscScalar val[7];
          PetscInt ncol;
          PetscReal add;
          PetscCall(Row(sf, c, idx, t, a, col, val, &ncol, &add));
          b[l * dim + c] += add;
          if (assemble) PetscCall(MatSetValuesStencil(sf->vA, 1, col, ncol, col, val, INSERT_VALUES));
        }
  PetscCall(VecRestoreArray(sf->vb, &b));
  if (assemble) {
    PetscCall(MatAssemblyBegin(sf->vA, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(sf->vA, MAT_FINAL_ASSEMBLY));
    PetscCall(KSPSetOperators(sf->vksp, sf->vA, sf->vA));
    sf->vdt = dt;
  }
  PetscCall(KSPSolve(sf->vksp, sf->vb, sf->u));
  PetscCall(KSPGetConvergedReason(sf->vksp, &reason));
  PetscCheck(reason > 0, PetscObjectComm((PetscObject)sf->vA), PETSC_ERR_NOT_CONVERGED,
             "viscosity solve did not converge (%s); try -sf_viscosity_ksp_monitor or -sf_viscosity_pc_type gamg",
             KSPConvergedReasons[reason]);
  PetscCall(KSPGetIterationNumber(sf->vksp, &its));
  sf->viscosity_its = its;
  PetscFunctionReturn(0);
}
