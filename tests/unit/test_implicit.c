/* Unit tests of the Newton minimizer and the implicit integrators (implicit Euler, BDF2, implicit
 * midpoint, linearized implicit Euler): derivatives, convergence, energy behaviour, orders. */
#include <string.h>
#include "testing.h"
#include "framework/linalg/single_cholesky.h"
#include "framework/scene.h"
#include "framework/solver.h"
#include "framework/newton/newton.h"




/* Deterministic pseudo-random numbers in [-1, 1] (no shared RNG). */
static PetscReal Wiggle(PetscInt i, PetscInt salt)
{
  return PetscSinReal(12.9898 * (PetscReal)i + 78.233 * (PetscReal)salt + 0.5 * (PetscReal)(i % 7));
}

static PetscErrorCode CopyState(SimModel m, PetscReal *x, PetscReal *v)
{
  const PetscReal *a;
  PetscInt n = 3 * m->nv;

  PetscFunctionBeginUser;
  if (x) {
    PetscCall(VecGetArrayRead(m->x, &a));
    PetscCall(PetscArraycpy(x, a, n));
    PetscCall(VecRestoreArrayRead(m->x, &a));
  }
  if (v) {
    PetscCall(VecGetArrayRead(m->v, &a));
    PetscCall(PetscArraycpy(v, a, n));
    PetscCall(VecRestoreArrayRead(m->v, &a));
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* The Newton objective's gradient and Hessian against central differences on a small damped cloth
 * under gravity, at a deformed, moving state. The exact (unprojected) Hessian is used; the error
 * is the smallest over a sweep of finite-difference steps (it must reach 1e-6 relative). */
static PetscErrorCode NewtonDerivatives(PetscReal *gerr, PetscReal *herr)
{
  TestSim s;
  SimNewton nt;
  Mat H;
  Vec dvec, Hd;
  PetscInt n;
  PetscReal *x0, *y, *X, *xd, *d, *xp, *xm, *gp, *gm, *g, beta = 0.02, phip, phim, phi, gd, hdn;
  const PetscReal *hd;

  PetscFunctionBeginUser;
  PetscCall(TestSimCreate("cloth", NULL, "-cloth_n 5 -cloth_damping 0.7 -cloth_k_struct 200 -newton_psd 0", &s));
  n = 3 * s.model->nv;
  PetscCall(SimNewtonCreate(s.model, "newton_", &nt));
  PetscCall(SimNewtonSetFromOptions(nt));
  PetscCall(PetscMalloc5(n, &x0, n, &y, n, &X, n, &xd, n, &d));
  PetscCall(PetscMalloc5(n, &xp, n, &xm, n, &gp, n, &gm, n, &g));
  PetscCall(CopyState(s.model, X, NULL));
  for (PetscInt i = 0; i < n; i++) {
    const PetscBool pin = s.model->pinned[i / 3];
    xd[i] = X[i] + (pin ? 0 : 0.02 * Wiggle(i, 1));
    y[i] = X[i] + (pin ? 0 : 0.05 * Wiggle(i, 2));
    x0[i] = X[i] + (pin ? 0 : 0.04 * Wiggle(i, 3)); /* stretched and compressed springs, v != 0 */
    d[i] = pin ? 0 : Wiggle(i, 4);
  }
  PetscCall(SimNewtonObjective(nt, beta, y, X, xd, x0, &phi, g));
  gd = 0;
  for (PetscInt i = 0; i < n; i++) gd += g[i] * d[i];
  PetscCall(SimNewtonHessian(nt, beta, X, xd, x0, &H));
  PetscCall(MatCreateVecs(H, &dvec, &Hd));
  {
    PetscReal *a;
    PetscCall(VecGetArray(dvec, &a));
    PetscCall(PetscArraycpy(a, d, n));
    PetscCall(VecRestoreArray(dvec, &a));
  }
  PetscCall(MatMult(H, dvec, Hd));
  PetscCall(VecNorm(Hd, NORM_2, &hdn));
  PetscCall(VecGetArrayRead(Hd, &hd));
  *gerr = *herr = PETSC_MAX_REAL;
  for (PetscReal eps = 1e-3; eps >= 1e-8; eps *= 0.1) {
    PetscReal ge, he = 0;
    for (PetscInt i = 0; i < n; i++) {
      xp[i] = x0[i] + eps * d[i];
      xm[i] = x0[i] - eps * d[i];
    }
    PetscCall(SimNewtonObjective(nt, beta, y, X, xd, xp, &phip, gp));
    PetscCall(SimNewtonObjective(nt, beta, y, X, xd, xm, &phim, gm));
    ge = PetscAbsReal((phip - phim) / (2 * eps) - gd) / PetscAbsReal(gd);
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal e = (gp[i] - gm[i]) / (2 * eps) - hd[i];
      he += e * e;
    }
    he = PetscSqrtReal(he) / hdn;
    *gerr = PetscMin(*gerr, ge);
    *herr = PetscMin(*herr, he);
  }
  PetscCall(VecRestoreArrayRead(Hd, &hd));
  PetscCall(VecDestroy(&dvec));
  PetscCall(VecDestroy(&Hd));
  PetscCall(PetscFree5(x0, y, X, xd, d));
  PetscCall(PetscFree5(xp, xm, gp, gm, g));
  PetscCall(SimNewtonDestroy(&nt));
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

START_TEST(test_newton_derivatives)
{
  PetscReal gerr, herr;
  CHECK_PETSC(NewtonDerivatives(&gerr, &herr));
  ck_assert_msg(gerr < 1e-6, "gradient vs finite differences of Phi: relative error %g", (double)gerr);
  ck_assert_msg(herr < 1e-6, "Hessian-vector product vs finite differences of the gradient: relative error %g", (double)herr);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* On the oscillator the spring moves along its axis, where E is exactly quadratic: Newton must
 * finish in at most two iterations, and the step must be the closed-form implicit Euler update
 * (1 + h^2 k/m) u1 = u0 + h v0, v1 = (u1 - u0)/h, with u = x - L. */
static PetscErrorCode QuadraticOneStep(PetscInt *its, SimStepOutcome *outcome, PetscReal *err)
{
  TestSim s;
  const SimStepStats *st;
  PetscReal x[6], v[6], h = 0.05, k = 100, mass = 1, L = 1, u0 = 0.1, v0 = 0, u1, v1;

  PetscFunctionBeginUser;
  PetscCall(TestSimCreate("oscillator", "implicit_euler", "-newton_rtol 1e-12 -newton_atol 1e-14", &s));
  PetscCall(SimSolverStep(s.solver, h, outcome));
  PetscCall(SimSolverGetStats(s.solver, &st));
  *its = st->nonlinear_its;
  PetscCall(CopyState(s.model, x, v));
  u1 = (u0 + h * v0) / (1 + h * h * k / mass);
  v1 = (u1 - u0) / h;
  *err = PetscMax(PetscAbsReal(x[3] - (L + u1)), PetscAbsReal(v[3] - v1));
  for (int i = 0; i < 3; i++) *err = PetscMax(*err, PetscAbsReal(x[i]) + PetscAbsReal(v[i])); /* the anchor */
  *err = PetscMax(*err, PetscAbsReal(x[4]) + PetscAbsReal(x[5]) + PetscAbsReal(v[4]) + PetscAbsReal(v[5]));
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

START_TEST(test_newton_quadratic)
{
  PetscInt its = -1;
  SimStepOutcome outcome = SIM_STEP_NONFINITE;
  PetscReal err = 1;
  CHECK_PETSC(QuadraticOneStep(&its, &outcome, &err));
  ck_assert_int_eq(outcome, SIM_STEP_OK);
  ck_assert_msg(its >= 1 && its <= 2, "Newton took %d iterations on a quadratic energy", (int)its);
  ck_assert_msg(err < 1e-12, "implicit Euler step differs from the closed form by %g", (double)err);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Implicit Euler on a stiff hanging cloth at a large step: every step converges, the objective
 * never increases within a step, the residual ends below tolerance, and the last Newton iterations
 * contract superlinearly. */
typedef struct {
  PetscBool finite, all_ok, objective_monotone, reached_tol, pinned_fixed;
  PetscReal worst_final_ratio; /* max over steps (K >= 3) of the smaller of the last two contractions */
  PetscInt max_its, total_its;
} ClothRun;

static PetscErrorCode StiffCloth(const char *solver, const char *extra, PetscInt nsteps, ClothRun *r)
{
  TestSim s;
  char opts[512];
  PetscReal *x0, *x, rtol = 1e-8, atol = 1e-10;
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-cloth_n 16 -cloth_k_struct 1e4 -cloth_damping 0.01 %s", extra ? extra : ""));
  PetscCall(TestSimCreate("cloth", solver, opts, &s));
  n = 3 * s.model->nv;
  PetscCall(PetscMalloc2(n, &x0, n, &x));
  PetscCall(CopyState(s.model, x0, NULL));
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->all_ok = r->objective_monotone = r->reached_tol = r->pinned_fixed = PETSC_TRUE;
  for (PetscInt k = 0; k < nsteps; k++) {
    SimStepOutcome outcome;
    const SimStepStats *st;
    PetscInt K;

    PetscCall(SimSolverStep(s.solver, 1.0 / 30, &outcome));
    PetscCall(SimSolverGetStats(s.solver, &st));
    if (outcome != SIM_STEP_OK) r->all_ok = PETSC_FALSE;
    K = st->nhistory - 1;
    r->max_its = PetscMax(r->max_its, st->nonlinear_its);
    r->total_its += st->nonlinear_its;
    for (PetscInt j = 1; j <= K; j++)
      if (st->objective[j] > st->objective[j - 1] + 1e-12 * PetscAbsReal(st->objective[j - 1]))
        r->objective_monotone = PETSC_FALSE;
    if (st->history[K] > PetscMax(atol, rtol * st->history[0])) r->reached_tol = PETSC_FALSE;
    /* superlinear: one of the last two iterations contracts strongly. The last one alone depends on
     * round-off: with OpenBLAS's Haswell/Zen kernels (OPENBLAS_CORETYPE, or under valgrind) one step's
     * gradient went 3e-3 -> 1.1e-5 -> 1.9e-6 (0.0037, then 0.168; 1.1e-5 is 3e-8 of the first gradient,
     * where the line search works near the objective's round-off), while linear convergence keeps
     * both ~0.5 */
    if (K >= 3)
      r->worst_final_ratio = PetscMax(r->worst_final_ratio, PetscMin(st->history[K] / st->history[K - 1], st->history[K - 1] / st->history[K - 2]));
  }
  PetscCall(CopyState(s.model, x, NULL));
  r->finite = PETSC_TRUE;
  for (PetscInt i = 0; i < n; i++) {
    if (PetscIsInfOrNanReal(x[i])) r->finite = PETSC_FALSE;
    if (s.model->pinned[i / 3] && x[i] != x0[i]) r->pinned_fixed = PETSC_FALSE;
  }
  PetscCall(PetscFree2(x0, x));
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

START_TEST(test_implicit_euler_stiff_cloth)
{
  ClothRun r;
  CHECK_PETSC(StiffCloth("implicit_euler", NULL, 30, &r));
  ck_assert_msg(r.finite, "state became non-finite");
  ck_assert_msg(r.all_ok, "a Newton solve did not converge");
  ck_assert_msg(r.objective_monotone, "the incremental potential increased within a step");
  ck_assert_msg(r.reached_tol, "a step ended above the gradient tolerance");
  ck_assert_msg(r.pinned_fixed, "a pinned vertex moved");
  printf("  stiff cloth: max %d, mean %.2f Newton iterations per step\n", (int)r.max_its, (double)r.total_its / 30);
  /* the worst single step depends on round-off (CHOLMOD with 1 or 2 BLAS threads: 25 or 18
   * iterations), the mean does not (11.1 or 10.9): bound the mean */
  ck_assert_msg(r.total_its <= 15 * 30, "%.2f Newton iterations per step on average", (double)r.total_its / 30);
  ck_assert_msg(r.worst_final_ratio < 0.05, "last Newton contractions %g: not superlinear", (double)r.worst_final_ratio);
}
END_TEST

/* Without PSD projection the same run must still converge (descent fallback, line search); so must
 * the plain projected Newton. */
START_TEST(test_implicit_euler_no_psd)
{
  ClothRun r;
  CHECK_PETSC(StiffCloth("implicit_euler", "-newton_psd 0 -newton_pc_type lu -newton_pc_factor_mat_solver_type petsc", 10, &r));
  ck_assert_msg(r.finite && r.all_ok && r.reached_tol, "implicit Euler without PSD projection failed");
  /* plain projected Newton (one CHOLMOD factorization per iteration) converges too, more slowly */
  CHECK_PETSC(StiffCloth("implicit_euler", "-newton_ksp_type preonly", 10, &r));
  ck_assert_msg(r.finite && r.all_ok && r.reached_tol && r.objective_monotone,
                "projected Newton (-newton_ksp_type preonly) failed");
}
END_TEST

START_TEST(test_bdf2_midpoint_stiff_cloth)
{
  ClothRun r;
  CHECK_PETSC(StiffCloth("bdf2", NULL, 10, &r));
  ck_assert_msg(r.finite && r.all_ok && r.reached_tol && r.pinned_fixed, "BDF2 on the stiff cloth failed");
  CHECK_PETSC(StiffCloth("implicit_midpoint", NULL, 10, &r));
  ck_assert_msg(r.finite && r.all_ok && r.reached_tol && r.pinned_fixed, "implicit midpoint on the stiff cloth failed");
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Every linear-solver configuration reaches the same step (Newton converges to the same minimizer):
 * the default Newton-CG (CG on the exact Hessian, CHOLMOD factorization of the projected one as
 * preconditioner), projected Newton with CHOLMOD (-newton_ksp_type preonly), and PCG with
 * incomplete Cholesky (-newton_ksp_type cg -newton_pc_type icc). */
static PetscErrorCode ClothState(const char *opts, PetscInt nsteps, PetscReal *x)
{
  TestSim s;

  PetscFunctionBeginUser;
  PetscCall(TestSimCreate("cloth", "implicit_euler", opts, &s));
  for (PetscInt k = 0; k < nsteps; k++) PetscCall(SimSolverStep(s.solver, 1.0 / 60, NULL));
  PetscCall(CopyState(s.model, x, NULL));
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

START_TEST(test_linear_solvers_agree)
{
  const char *base = "-cloth_n 12 -cloth_damping 0.02 -newton_rtol 1e-11 -newton_atol 1e-13";
  char opts[512];
  PetscReal a[3 * 144], b[3 * 144], c[3 * 144], dpre = 0, dicc = 0;

  CHECK_PETSC(ClothState(base, 3, a));
  PetscSNPrintf(opts, sizeof(opts), "%s -newton_ksp_type preonly", base);
  CHECK_PETSC(ClothState(opts, 3, b));
  PetscSNPrintf(opts, sizeof(opts), "%s -newton_ksp_type cg -newton_pc_type icc -newton_ksp_rtol 1e-10", base);
  CHECK_PETSC(ClothState(opts, 3, c));
  for (int i = 0; i < 3 * 144; i++) {
    dpre = PetscMax(dpre, PetscAbsReal(a[i] - b[i]));
    dicc = PetscMax(dicc, PetscAbsReal(a[i] - c[i]));
  }
  ck_assert_msg(dpre < 1e-8, "projected Newton (preonly + CHOLMOD) and Newton-CG steps differ by %g", (double)dpre);
  ck_assert_msg(dicc < 1e-8, "CG+ICC and Newton-CG (CHOLMOD-preconditioned) steps differ by %g", (double)dicc);
}
END_TEST

/* -newton_pc_sparsify: the factored matrix P reroutes the cloth's bending springs (vertex (i, j) to
 * (i + 2, j)) through their midpoint vertex. P has fewer nonzeros than the projected Hessian H, P - H is
 * PSD (P is SPD wherever H is), P agrees with H on displacements affine in the initial positions (the
 * midpoint carries the mean of the ends), and Newton reaches the same step with it. */
START_TEST(test_newton_sparsify)
{
  const char *base = "-cloth_n 12 -cloth_damping 0.02 -newton_rtol 1e-11 -newton_atol 1e-13";
  char opts[512];
  PetscReal a[3 * 144], b[3 * 144], dsp = 0;
  TestSim s;
  SimNewton nt;
  KSP ksp;
  Mat H, A, P;
  Vec xv, w, Hw, Pw;
  MatInfo ih, ip;
  PetscInt n;
  PetscReal *y, *X, *xd, *x, beta = 1.0 / 60, aff = 0, affref = 0, minq = PETSC_MAX_REAL;

  CHECK_PETSC(ClothState(base, 3, a));
  PetscSNPrintf(opts, sizeof(opts), "%s -newton_pc_sparsify", base);
  CHECK_PETSC(ClothState(opts, 3, b));
  for (int i = 0; i < 3 * 144; i++) dsp = PetscMax(dsp, PetscAbsReal(a[i] - b[i]));
  ck_assert_msg(dsp < 1e-8, "Newton-CG with and without -newton_pc_sparsify: steps differ by %g", (double)dsp);

  CHECK_PETSC(TestSimCreate("cloth", NULL, "-cloth_n 12 -newton_pc_sparsify", &s));
  n = 3 * s.model->nv;
  CHECK_PETSC(SimNewtonCreate(s.model, "newton_", &nt));
  CHECK_PETSC(SimNewtonSetFromOptions(nt));
  CHECK_PETSC(PetscMalloc4(n, &y, n, &X, n, &xd, n, &x));
  CHECK_PETSC(CopyState(s.model, X, NULL));
  for (PetscInt i = 0; i < n; i++) {
    const PetscBool pin = s.model->pinned[i / 3];
    xd[i] = X[i];
    y[i] = X[i] + (pin ? 0 : 0.01 * Wiggle(i, 5) - (i % 3 == 1 ? 0.01 : 0)); /* a wrinkled, falling guess */
  }
  CHECK_PETSC(VecDuplicate(s.model->x, &xv));
  {
    PetscReal *xa;
    CHECK_PETSC(VecGetArray(xv, &xa));
    CHECK_PETSC(PetscArraycpy(xa, y, n));
    CHECK_PETSC(VecRestoreArray(xv, &xa));
  }
  CHECK_PETSC(SimNewtonMinimize(nt, beta, y, X, xd, xv, NULL)); /* Newton-CG: the KSP gets its operators */
  for (PetscInt i = 0; i < n; i++) x[i] = y[i] + (s.model->pinned[i / 3] ? 0 : 0.003 * Wiggle(i, 6)); /* springs compressed and stretched */
  CHECK_PETSC(SimNewtonHessian(nt, beta, X, xd, x, &H)); /* H and P at x */
  CHECK_PETSC(SimNewtonGetKSP(nt, &ksp));
  CHECK_PETSC(KSPGetOperators(ksp, &A, &P));
  ck_assert_msg(P != H && P != A, "-newton_pc_sparsify: the factored matrix is the Hessian itself");
  CHECK_PETSC(MatGetInfo(H, MAT_LOCAL, &ih));
  CHECK_PETSC(MatGetInfo(P, MAT_LOCAL, &ip));
  /* 2 x 12 x 10 bending springs, 18 entries each; those at the two pinned corners (4) are kept */
  ck_assert_msg(ih.nz_used - ip.nz_used == 18 * (240 - 4), "P has %g nonzeros, H %g", (double)ip.nz_used, (double)ih.nz_used);
  CHECK_PETSC(MatCreateVecs(H, &w, &Hw));
  CHECK_PETSC(VecDuplicate(Hw, &Pw));
  for (int trial = 0; trial < 4; trial++) { /* trial 0: affine; then random */
    PetscReal *wa, q, qh;
    CHECK_PETSC(VecGetArray(w, &wa));
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt v = i / 3, d = i % 3;
      wa[i] = s.model->pinned[v] ? 0 : (trial ? Wiggle(i, 10 + trial) : 0.3 + X[3 * v] * (d + 1) - 0.7 * X[3 * v + 2] + 0.2 * d * X[3 * v + 1]);
    }
    CHECK_PETSC(VecRestoreArray(w, &wa));
    CHECK_PETSC(MatMult(H, w, Hw));
    CHECK_PETSC(MatMult(P, w, Pw));
    CHECK_PETSC(VecDot(w, Hw, &qh));
    CHECK_PETSC(VecAXPY(Pw, -1.0, Hw)); /* (P - H) w */
    CHECK_PETSC(VecDot(w, Pw, &q));
    if (!trial) {
      CHECK_PETSC(VecNorm(Pw, NORM_2, &aff));
      CHECK_PETSC(VecNorm(Hw, NORM_2, &affref));
    } else minq = PetscMin(minq, q / qh);
  }
  ck_assert_msg(aff <= 1e-12 * affref, "P and H differ on an affine displacement: |(P - H) u| = %g, |H u| = %g", (double)aff, (double)affref);
  ck_assert_msg(minq >= -1e-12, "P - H is not PSD: w^T (P - H) w / w^T H w = %g", (double)minq);
  ck_assert_msg(minq > 0, "P equals H on random displacements: nothing was rerouted");
  CHECK_PETSC(VecDestroy(&w));
  CHECK_PETSC(VecDestroy(&Hw));
  CHECK_PETSC(VecDestroy(&Pw));
  CHECK_PETSC(VecDestroy(&xv));
  CHECK_PETSC(PetscFree4(y, X, xd, x));
  CHECK_PETSC(SimNewtonDestroy(&nt));
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Energy behaviour on the undamped oscillator (omega h = 0.5, 200 steps): implicit Euler decays
 * monotonically, the implicit midpoint rule conserves the (quadratic) energy to solver tolerance,
 * BDF2 decays, more slowly than implicit Euler. */
static PetscErrorCode OscillatorEnergy(const char *solver, PetscInt nsteps, PetscReal h, PetscReal *E0, PetscReal *Efinal,
                                       PetscReal *maxdev, PetscBool *monotone)
{
  TestSim s;
  SimEnergyReport rep;
  PetscReal Eprev;

  PetscFunctionBeginUser;
  PetscCall(TestSimCreate("oscillator", solver, "-newton_rtol 1e-12 -newton_atol 1e-14", &s));
  PetscCall(SimSolverEnergy(s.solver, &rep));
  *E0 = Eprev = rep.total;
  *maxdev = 0;
  *monotone = PETSC_TRUE;
  for (PetscInt k = 0; k < nsteps; k++) {
    PetscCall(SimSolverStep(s.solver, h, NULL));
    PetscCall(SimSolverEnergy(s.solver, &rep));
    if (!(rep.total < Eprev)) *monotone = PETSC_FALSE;
    *maxdev = PetscMax(*maxdev, PetscAbsReal(rep.total - *E0) / *E0);
    Eprev = rep.total;
  }
  *Efinal = rep.total;
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

START_TEST(test_energy_behaviour)
{
  PetscReal E0, Eie, Ebdf, Emid, dev;
  PetscBool mono;

  CHECK_PETSC(OscillatorEnergy("implicit_euler", 200, 0.05, &E0, &Eie, &dev, &mono));
  ck_assert_msg(mono, "implicit Euler energy did not decrease at every step");
  ck_assert_msg(Eie < 0.5 * E0, "implicit Euler kept %g of the energy", (double)(Eie / E0));

  CHECK_PETSC(OscillatorEnergy("implicit_midpoint", 200, 0.05, &E0, &Emid, &dev, &mono));
  ck_assert_msg(dev < 1e-10, "implicit midpoint energy drifted by %g (relative)", (double)dev);

  CHECK_PETSC(OscillatorEnergy("bdf2", 200, 0.05, &E0, &Ebdf, &dev, &mono));
  ck_assert_msg(Ebdf < E0 * (1 - 1e-3), "BDF2 did not dissipate (E/E0 = %g)", (double)(Ebdf / E0));
  ck_assert_msg(Ebdf > Eie, "BDF2 (E/E0 = %g) dissipated more than implicit Euler (%g)", (double)(Ebdf / E0), (double)(Eie / E0));
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Observed order of the position error at T = 1 on the oscillator against its exact solution. */
static PetscErrorCode OscillatorError(const char *solver, const char *extra, PetscInt nsteps, PetscReal *err)
{
  TestSim s;
  char opts[256];
  PetscReal x[6], v[6], xe[6], ve[6];
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-newton_rtol 1e-12 -newton_atol 1e-14 %s", extra ? extra : ""));
  PetscCall(TestSimCreate("oscillator", solver, opts, &s));
  for (PetscInt k = 0; k < nsteps; k++) PetscCall(SimSolverStep(s.solver, 1.0 / nsteps, NULL));
  PetscCall(CopyState(s.model, x, v));
  PetscCall(SimSceneExact(s.scene, 1.0, xe, ve, &has));
  PetscCheck(has, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the oscillator has no exact solution");
  *err = PetscAbsReal(x[3] - xe[3]);
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

static void CheckOrder(const char *solver, const char *extra, PetscInt n0, PetscReal expected)
{
  PetscReal e[3], p1, p2;
  for (int l = 0; l < 3; l++) CHECK_PETSC(OscillatorError(solver, extra, n0 << l, &e[l]));
  p1 = PetscLog2Real(e[0] / e[1]);
  p2 = PetscLog2Real(e[1] / e[2]);
  ck_assert_msg(PetscAbsReal(p1 - expected) < 0.15 && PetscAbsReal(p2 - expected) < 0.15,
                "%s %s: errors %g %g %g, observed orders %.3f %.3f, expected %g", solver, extra ? extra : "", (double)e[0],
                (double)e[1], (double)e[2], (double)p1, (double)p2, (double)expected);
}

START_TEST(test_orders)
{
  CheckOrder("implicit_euler", NULL, 400, 1);
  CheckOrder("bdf2", NULL, 400, 2); /* the implicit Euler start makes the approach to order 2 slow */
  CheckOrder("implicit_midpoint", NULL, 100, 2);
  CheckOrder("linearized_implicit", "-linearized_beta 1", 400, 1);
  CheckOrder("linearized_implicit", "-linearized_beta 0", 400, 1);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* linearized_implicit: a bad -linearized_beta is an error naming the option; beta = 0 is
 * symplectic Euler; beta = 1 is implicit Euler where the energy is quadratic. */
static PetscErrorCode BadBeta(PetscErrorCode *ierr, TestErrorCapture *cap)
{
  TestSim s;
  SimSolver solver = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(cap, sizeof(*cap)));
  PetscCall(TestSimCreate("oscillator", NULL, "-linearized_beta 2", &s));
  PetscCall(SimSolverCreate(s.reg, "linearized_implicit", s.problem, &solver));
  PetscCall(PetscPushErrorHandler(TestCaptureError, cap));
  *ierr = SimSolverSetFromOptions(solver);
  PetscCall(PetscPopErrorHandler());
  PetscCall(SimSolverDestroy(&solver));
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

/* -newton_pc_precision single: Newton-CG preconditioned by the single-precision Cholesky factor
 * reaches the steps it reaches with CHOLMOD's double factor (the preconditioner changes CG's path, not
 * the minimizer), the Newton KSP's preconditioner is then the single-precision one, and the option is
 * refused with another preconditioner, naming the option and the one it applies to. auto picks single
 * only where it applies (CHOLMOD's Cholesky preconditioning CG). */
START_TEST(test_newton_single_precision)
{
  const char *base = "-cloth_n 12 -cloth_damping 0.02 -newton_rtol 1e-11 -newton_atol 1e-13";
  char opts[512];
  PetscReal a[3 * 144], b[3 * 144], d = 0;
  PetscErrorCode ierr;
  TestErrorCapture cap;
  TestSim s;
  SimNewton nt;
  KSP ksp;
  PC pc;
  PetscBool single;

  CHECK_PETSC(ClothState(base, 3, a));
  PetscSNPrintf(opts, sizeof(opts), "%s -newton_pc_sparsify -newton_pc_precision single", base);
  CHECK_PETSC(ClothState(opts, 3, b));
  for (int i = 0; i < 3 * 144; i++) d = PetscMax(d, PetscAbsReal(a[i] - b[i]));
  ck_assert_msg(d < 1e-8, "Newton-CG with the double and the single-precision factor: steps differ by %g", (double)d);

  /* the Newton KSP's preconditioner: the single-precision one with single, and with auto where it
   * applies (one rank, CHOLMOD's Cholesky under CG); double elsewhere */
  {
    const char *cases[][2] = {{"-cloth_n 6 -newton_pc_precision single", "1"},
                              {"-cloth_n 6 -newton_pc_precision auto", "1"},
                              {"-cloth_n 6 -newton_pc_precision auto -newton_pc_type icc", "0"},
                              {"-cloth_n 6 -newton_pc_precision auto -newton_ksp_type preonly", "0"},
                              {"-cloth_n 6 -newton_pc_precision auto -newton_pc_factor_mat_solver_type petsc", "0"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      CHECK_PETSC(TestSimCreate("cloth", NULL, cases[i][0], &s));
      CHECK_PETSC(SimNewtonCreate(s.model, "newton_", &nt));
      CHECK_PETSC(SimNewtonSetFromOptions(nt));
      CHECK_PETSC(SimNewtonGetKSP(nt, &ksp));
      CHECK_PETSC(KSPGetPC(ksp, &pc));
      CHECK_PETSC(SimPCIsSingleCholesky(pc, &single));
      ck_assert_msg(single == (cases[i][1][0] == '1'), "%s: the Newton KSP's preconditioner is %sthe single-precision Cholesky",
                    cases[i][0], single ? "" : "not ");
      CHECK_PETSC(SimNewtonDestroy(&nt));
      CHECK_PETSC(TestSimDestroy(&s));
    }
  }

  CHECK_PETSC(TestSolverError("cloth", "implicit_euler", "-cloth_n 6 -newton_pc_precision single -newton_pc_type icc", PETSC_FALSE,
                              &ierr, &cap));
  ck_assert_msg(ierr == PETSC_ERR_SUP, "-newton_pc_precision single with ICC: error %d", (int)ierr);
  ck_assert_msg(strstr(cap.msg, "-newton_pc_precision single") && strstr(cap.msg, "cholesky") && strstr(cap.msg, "icc"),
                "message does not name the option and the preconditioners: '%s'", cap.msg);
}
END_TEST

START_TEST(test_linearized_bad_beta)
{
  PetscErrorCode ierr;
  TestErrorCapture cap;
  CHECK_PETSC(BadBeta(&ierr, &cap));
  ck_assert_msg(ierr != 0, "-linearized_beta 2 was accepted");
  ck_assert_msg(strstr(cap.msg, "-linearized_beta") && strstr(cap.msg, "[0, 1]"),
                "message does not name the option and range: '%s'", cap.msg);
}
END_TEST

static PetscErrorCode OneStep(const char *solver, const char *opts, PetscInt nsteps, PetscReal *x, PetscReal *v)
{
  TestSim s;

  PetscFunctionBeginUser;
  PetscCall(TestSimCreate("oscillator", solver, opts, &s));
  for (PetscInt k = 0; k < nsteps; k++) PetscCall(SimSolverStep(s.solver, 0.05, NULL));
  PetscCall(CopyState(s.model, x, v));
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

START_TEST(test_linearized_limits)
{
  PetscReal xa[6], va[6], xb[6], vb[6], d0 = 0, d1 = 0;
  const char *opts = "-oscillator_amplitude 0.2 -newton_rtol 1e-13 -newton_atol 1e-14";
  char o[256];

  /* a moving start: one symplectic step first is not needed, the initial stretch gives a force */
  PetscSNPrintf(o, sizeof(o), "%s -linearized_beta 0", opts);
  CHECK_PETSC(OneStep("linearized_implicit", o, 3, xa, va));
  CHECK_PETSC(OneStep("symplectic_euler", opts, 3, xb, vb));
  for (int i = 0; i < 6; i++) d0 = PetscMax(d0, PetscAbsReal(xa[i] - xb[i]) + PetscAbsReal(va[i] - vb[i]));
  ck_assert_msg(d0 < 1e-12, "linearized beta = 0 differs from symplectic Euler by %g", (double)d0);

  PetscSNPrintf(o, sizeof(o), "%s -linearized_beta 1", opts);
  CHECK_PETSC(OneStep("linearized_implicit", o, 3, xa, va));
  CHECK_PETSC(OneStep("implicit_euler", opts, 3, xb, vb));
  for (int i = 0; i < 6; i++) d1 = PetscMax(d1, PetscAbsReal(xa[i] - xb[i]) + PetscAbsReal(va[i] - vb[i]));
  ck_assert_msg(d1 < 1e-10, "linearized beta = 1 differs from implicit Euler on a quadratic energy by %g", (double)d1);
}
END_TEST

/* Bad Newton options name the option. */
static PetscErrorCode BadNewtonOption(const char *opts, PetscErrorCode *ierr, TestErrorCapture *cap)
{
  TestSim s;
  SimSolver solver = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(cap, sizeof(*cap)));
  PetscCall(TestSimCreate("oscillator", NULL, opts, &s));
  PetscCall(SimSolverCreate(s.reg, "implicit_euler", s.problem, &solver));
  PetscCall(PetscPushErrorHandler(TestCaptureError, cap));
  *ierr = SimSolverSetFromOptions(solver);
  PetscCall(PetscPopErrorHandler());
  PetscCall(SimSolverDestroy(&solver));
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

/* A gradient tolerance below the round-off floor (atol 1e-300, no relative or step test): Newton
 * stops once its step is below the resolution of x, with the step counted as converged, instead of
 * spinning to -newton_max_it at the floor; and it does not stop early: the gradient has fallen by
 * many orders first. */
START_TEST(test_newton_roundoff_floor)
{
  TestSim s;
  PetscInt worst = 0;
  PetscReal worst_ratio = 0;

  CHECK_PETSC(TestSimCreate("cloth", "implicit_euler",
                            "-cloth_n 8 -cloth_k_struct 1e3 -newton_atol 1e-300 -newton_rtol 0 -newton_vtol 0 -newton_max_it 40", &s));
  for (PetscInt k = 0; k < 5; k++) {
    SimStepOutcome outcome;
    const SimStepStats *st;

    CHECK_PETSC(SimSolverStep(s.solver, 1.0 / 30, &outcome));
    CHECK_PETSC(SimSolverGetStats(s.solver, &st));
    ck_assert_msg(outcome == SIM_STEP_OK, "step %d: Newton did not stop at the round-off floor (%d iterations, |g| %g)", (int)k,
                  (int)st->nonlinear_its, (double)st->history[st->nhistory - 1]);
    worst = PetscMax(worst, st->nonlinear_its);
    worst_ratio = PetscMax(worst_ratio, st->history[st->nhistory - 1] / st->history[0]);
  }
  ck_assert_msg(worst <= 20, "up to %d Newton iterations per step to the floor", (int)worst);
  ck_assert_msg(worst_ratio < 1e-8, "stopped early: |g| fell only by %g", (double)worst_ratio);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

START_TEST(test_newton_bad_options)
{
  PetscErrorCode ierr;
  TestErrorCapture cap;
  CHECK_PETSC(BadNewtonOption("-newton_rtol 2", &ierr, &cap));
  ck_assert_msg(ierr && strstr(cap.msg, "-newton_rtol"), "bad -newton_rtol: '%s'", cap.msg);
  CHECK_PETSC(BadNewtonOption("-newton_max_it 0", &ierr, &cap));
  ck_assert_msg(ierr && strstr(cap.msg, "-newton_max_it"), "bad -newton_max_it: '%s'", cap.msg);
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("implicit");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_newton_derivatives);
  tcase_add_test(tc, test_newton_quadratic);
  tcase_add_test(tc, test_newton_bad_options);
  tcase_add_test(tc, test_newton_roundoff_floor);
  tcase_add_test(tc, test_implicit_euler_stiff_cloth);
  tcase_add_test(tc, test_implicit_euler_no_psd);
  tcase_add_test(tc, test_bdf2_midpoint_stiff_cloth);
  tcase_add_test(tc, test_linear_solvers_agree);
  tcase_add_test(tc, test_newton_sparsify);
  tcase_add_test(tc, test_newton_single_precision);
  tcase_add_test(tc, test_energy_behaviour);
  tcase_add_test(tc, test_orders);
  tcase_add_test(tc, test_linearized_bad_beta);
  tcase_add_test(tc, test_linearized_limits);
  suite_add_tcase(s, tc);
  return s;
}
