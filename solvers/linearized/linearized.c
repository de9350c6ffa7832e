/* Linearized implicit Euler (Baraff & Witkin 1998): one Newton step of the beta-family implicit
 * update per time step, beta = 0 symplectic Euler, beta = 1 Baraff-Witkin. */
#include <petscksp.h>
#include "framework/solver_impl.h"
#include "problems/mesh/mesh.h"

typedef struct {
  PetscReal beta; /* -linearized_beta: forces at x_n + beta h v_{n+1} */
  PetscBool psd;  /* -linearized_psd: PSD-project K per term */
  PetscBool has_dissipation;
  KSP ksp;
  Mat H; /* M + beta h^2 K + h B, fixed pattern */
  Vec rhs, dv, Mv;
  PetscReal *grad; /* dE/dx(x_n), 3*nv */
} Linearized;

static PetscErrorCode SetFromOptions_Linearized(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  Linearized *li = (Linearized *)s->data;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, "Linearized implicit Euler (Baraff-Witkin 1998)");
  PetscCall(PetscOptionsReal("-linearized_beta",
                             "Forces at x_n + beta h v_{n+1}, linearized; in [0, 1] (0: symplectic Euler, 1: Baraff-Witkin)", "",
                             li->beta, &li->beta, NULL));
  PetscCall(PetscOptionsBool("-linearized_psd", "PSD-project the stiffness K per term", "", li->psd, &li->psd, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(
      li->beta >= 0 && li->beta <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
      "-linearized_beta %g is out of range: must be in [0, 1] (0: symplectic Euler, 1/2: trapezoidal forces, 1: Baraff-Witkin)",
      (double)li->beta);
  PetscCall(KSPSetFromOptions(li->ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode Setup_Linearized(SimSolver s)
{
  Linearized *li = (Linearized *)s->data;

  PetscFunctionBeginUser;
  PetscCall(SimModelHessianCreate(SimMeshModel(s->problem), &li->H));
  PetscCall(MatSetOption(li->H, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(li->H, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(MatCreateVecs(li->H, &li->dv, &li->rhs));
  PetscCall(VecDuplicate(li->rhs, &li->Mv));
  PetscCall(PetscMalloc1(3 * SimMeshModel(s->problem)->nv, &li->grad));
  PetscFunctionReturn(0);
}

/* The beta-family step (Baraff & Witkin 1998, eq. 6 with the forces taken at x_n + beta dx):
 *   M dv = h f(x_n + beta h (v_n + dv), v_n + dv), linearized about (x_n, v_n) with K = d2E/dx2,
 *   B = d2D/dv2:   (M + beta h^2 K + h B) dv = h (f(x_n, v_n) - beta h K v_n),   f = -dE/dx - dD/dv.
 * D is quadratic in v (energy.h), so dD/dv(x_n, v_n) = B v_n and the right-hand side equals
 *   M v_n - h dE/dx(x_n) - H v_n,   H = M + beta h^2 K + h B,
 * which needs H only (no separate K). Then v_{n+1} = v_n + dv, x_{n+1} = x_n + h v_{n+1}. */
static PetscErrorCode Step_Linearized(SimSolver s, PetscReal h)
{
  Linearized *li = (Linearized *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscInt n = 3 * m->nv;
  const PetscReal *x, *mass, *Hv, *vr;
  PetscReal *rhs, *v, *xw;
  const PetscReal *dv;
  KSPConvergedReason reason;
  PetscInt its;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  PetscCall(PetscLogEventBegin(s->ev.force, 0, 0, 0, 0));
  PetscCall(SimModelGradient(m, SIM_ENERGY_POTENTIAL, x, v, li->grad));
  PetscCall(PetscLogEventEnd(s->ev.force, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(s->ev.assemble, 0, 0, 0, 0));
  PetscCall(SimModelHessianAssemble(m, x, x, v, 1.0, li->beta * h * h, li->has_dissipation ? h : 0.0, li->psd, li->H));
  PetscCall(MatSetOption(li->H, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(li->H, MAT_SPD, li->psd));
  PetscCall(PetscLogEventEnd(s->ev.assemble, 0, 0, 0, 0));
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArrayRead(m->x, &x));

  /* rhs = M v_n - h dE/dx(x_n) - H v_n, zero on pinned DOFs */
  PetscCall(MatMult(li->H, m->v, li->Mv));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  PetscCall(VecGetArrayRead(m->v, &vr));
  PetscCall(VecGetArrayRead(li->Mv, &Hv));
  PetscCall(VecGetArray(li->rhs, &rhs));
  for (PetscInt i = 0; i < n; i++) rhs[i] = mass[i] * vr[i] - h * li->grad[i] - Hv[i];
  PetscCall(SimModelZeroPinned(m, rhs));
  PetscCall(VecRestoreArray(li->rhs, &rhs));
  PetscCall(VecRestoreArrayRead(li->Mv, &Hv));
  PetscCall(VecRestoreArrayRead(m->v, &vr));
  PetscCall(VecRestoreArrayRead(m->mass, &mass));

  PetscCall(KSPSetOperators(li->ksp, li->H, li->H));
  PetscCall(PetscLogEventBegin(s->ev.factor, 0, 0, 0, 0));
  PetscCall(KSPSetUp(li->ksp));
  PetscCall(PetscLogEventEnd(s->ev.factor, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(s->ev.solve, 0, 0, 0, 0));
  PetscCall(KSPSolve(li->ksp, li->rhs, li->dv));
  PetscCall(PetscLogEventEnd(s->ev.solve, 0, 0, 0, 0));
  PetscCall(KSPGetIterationNumber(li->ksp, &its));
  PetscCall(KSPGetConvergedReason(li->ksp, &reason));

  /* v_{n+1} = v_n + dv (pinned: 0), x_{n+1} = x_n + h v_{n+1} */
  PetscCall(VecGetArrayRead(li->dv, &dv));
  PetscCall(VecGetArray(m->v, &v));
  PetscCall(VecGetArray(m->x, &xw));
  for (PetscInt i = 0; i < n; i++) {
    v[i] = m->pinned[i / 3] ? 0 : v[i] + dv[i];
    xw[i] += h * v[i];
  }
  PetscCall(VecRestoreArray(m->x, &xw));
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArrayRead(li->dv, &dv));

  s->stats.nonlinear_its = 1;
  s->stats.linear_its = its;
  s->stats.outcome = (reason > 0 || reason == KSP_CONVERGED_ITERATING) ? SIM_STEP_OK : SIM_STEP_NOT_CONVERGED;
  if (reason < 0) PetscCall(PetscInfo(li->ksp, "Linear solve did not converge: %s\n", KSPConvergedReasons[reason]));
  PetscFunctionReturn(0);
}

static PetscErrorCode View_Linearized(SimSolver s, PetscViewer viewer)
{
  Linearized *li = (Linearized *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "linearized implicit Euler (Baraff-Witkin), beta = %g, PSD projection %s\n",
                                   (double)li->beta, li->psd ? "on" : "off"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(KSPView(li->ksp, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Linearized(SimSolver s)
{
  Linearized *li = (Linearized *)s->data;

  PetscFunctionBeginUser;
  PetscCall(KSPDestroy(&li->ksp));
  PetscCall(MatDestroy(&li->H));
  PetscCall(VecDestroy(&li->rhs));
  PetscCall(VecDestroy(&li->dv));
  PetscCall(VecDestroy(&li->Mv));
  PetscCall(PetscFree(li->grad));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_LinearizedImplicit(SimSolver s)
{
  static const SimSolverOps ops = {.setfromoptions = SetFromOptions_Linearized,
                                   .setup = Setup_Linearized,
                                   .step = Step_Linearized,
                                   .view = View_Linearized,
                                   .destroy = Destroy_Linearized};
  Linearized *li;
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&li));
  li->beta = 1.0;
  li->psd = PETSC_TRUE;
  for (PetscInt t = 0; t < SimMeshModel(s->problem)->nterms; t++)
    if (SimMeshModel(s->problem)->term[t]->kind == SIM_ENERGY_DISSIPATION) li->has_dissipation = PETSC_TRUE;
  /* Defaults before KSPSetFromOptions, so -linearized_ksp_type / -linearized_pc_type override them. */
  PetscCall(KSPCreate(s->comm, &li->ksp));
  PetscCall(KSPSetOptionsPrefix(li->ksp, "linearized_"));
  PetscCall(KSPSetType(li->ksp, KSPPREONLY));
  PetscCall(KSPGetPC(li->ksp, &pc));
  PetscCall(PCSetType(pc, PCCHOLESKY));
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERCHOLMOD));
  s->data = li;
  s->ops = ops;
  PetscFunctionReturn(0);
}
