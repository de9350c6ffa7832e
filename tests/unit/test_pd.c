/* Unit tests of the projective-dynamics solver (solvers/pd): fixed point at the exact minimizer,
 * monotone decrease of the incremental potential, agreement with Newton on springs and ARAP,
 * one factorization per constraint set, and refusal of options and terms it cannot run. */
#include <stdio.h>
#include <string.h>
#include "testing.h"
#include "framework/scene.h"
#include "framework/solver.h"
#include "framework/newton/newton.h"
#include "solvers/pd/pd_impl.h"
#include "solvers/pd/anderson.h"
#include "energies/fem.h"
#include "framework/linalg/svd3.h"




/* The implicit-Euler problem of the model's current state: x_n and y = x_n + h v_n (3*nv each). */
static PetscErrorCode StepProblem(SimModel m, PetscReal h, PetscReal *xn, PetscReal *y)
{
  const PetscReal *x, *v;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArrayRead(m->v, &v));
  for (PetscInt i = 0; i < 3 * m->nv; i++) xn[i] = x[i], y[i] = x[i] + h * v[i];
  PetscCall(VecRestoreArrayRead(m->v, &v));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscFunctionReturn(0);
}

/* The reference: Newton (the `implicit_euler` minimizer, framework/newton) on the same
 * incremental potential to tight tolerance, from y with pins at x_n; xs = 3*nv. */
static PetscErrorCode NewtonReference(SimModel m, PetscReal h, const PetscReal *xn, const PetscReal *y, PetscReal *xs,
                                      PetscReal *res)
{
  SimNewton nt;
  SimStepStats st;
  Vec xv;
  PetscReal *a;

  PetscFunctionBeginUser;
  PetscCall(SimNewtonCreate(m, "newton_", &nt));
  PetscCall(SimNewtonSetFromOptions(nt));
  PetscCall(VecDuplicate(m->x, &xv));
  PetscCall(VecGetArray(xv, &a));
  for (PetscInt i = 0; i < 3 * m->nv; i++) a[i] = m->pinned[i / 3] ? xn[i] : y[i];
  PetscCall(VecRestoreArray(xv, &a));
  PetscCall(SimNewtonMinimize(nt, h, y, xn, xn, xv, &st));
  PetscCall(VecGetArray(xv, &a));
  PetscCall(PetscArraycpy(xs, a, 3 * m->nv));
  PetscCall(VecRestoreArray(xv, &a));
  *res = st.residual;
  PetscCall(VecDestroy(&xv));
  PetscCall(SimNewtonDestroy(&nt));
  PetscFunctionReturn(0);
}

/* max |a - b| / max |b - c| over the DOFs */
static PetscReal RelDiff(PetscInt n, const PetscReal *a, const PetscReal *b, const PetscReal *c)
{
  PetscReal num = 0, den = 0;
  for (PetscInt i = 0; i < n; i++) {
    num = PetscMax(num, PetscAbsReal(a[i] - b[i]));
    den = PetscMax(den, PetscAbsReal(b[i] - c[i]));
  }
  return num / den;
}

/* A pinned cloth (springs + gravity) moved out of its rest state by a few implicit-Euler steps,
 * so that springs are stretched and compressed and the vertices move. */
static const char *cloth_opts =
    "-cloth_n 6 -cloth_k_struct 300 -newton_rtol 0 -newton_atol 1e-11 -newton_vtol 0 -newton_max_it 200";

static PetscErrorCode DeformedCloth(const char *extra, TestSim *s)
{
  char opts[1024];
  SimSolver ie;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s %s", cloth_opts, extra));
  PetscCall(TestSimCreate("cloth", "pd", opts, s));
  PetscCall(SimSolverCreate(s->reg, "implicit_euler", s->problem, &ie));
  PetscCall(SimSolverSetFromOptions(ie));
  for (int k = 0; k < 8; k++) PetscCall(SimSolverStep(ie, 0.02, NULL));
  PetscCall(SimSolverDestroy(&ie));
  PetscFunctionReturn(0);
}

/* (a) One PD iteration started at the exact minimizer leaves it unchanged: x* is a fixed point of
 * the local/global map (Bouaziz et al. 2014). Returns the largest move, m. */
static PetscErrorCode FixedPoint(TestSim *s, PetscReal h, PetscReal *diff, PetscReal *nontrivial)
{
  PetscInt n = 3 * s->model->nv;
  PetscReal *xn, *y, *xs, *x, res;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(n, &xn, n, &y, n, &xs, n, &x));
  PetscCall(StepProblem(s->model, h, xn, y));
  PetscCall(NewtonReference(s->model, h, xn, y, xs, &res));
  PetscCheck(res < 1e-9, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Newton reference residual %g", (double)res);
  PetscCall(PetscArraycpy(x, xs, n));
  PetscCall(SimPDMinimize(s->solver, h, y, x, NULL));
  *diff = 0;
  for (PetscInt i = 0; i < n; i++) *diff = PetscMax(*diff, PetscAbsReal(x[i] - xs[i]));
  *nontrivial = 0; /* the minimizer's distance from the inertial target, m */
  for (PetscInt i = 0; i < n; i++) *nontrivial = PetscMax(*nontrivial, PetscAbsReal(xs[i] - y[i]));
  PetscCall(PetscFree4(xn, y, xs, x));
  PetscFunctionReturn(0);
}

START_TEST(fixed_point_at_minimizer)
{
  TestSim s;
  PetscReal diff, moved;

  CHECK_PETSC(DeformedCloth("-pd_iterations 1 -pd_rtol 0", &s));
  CHECK_PETSC(FixedPoint(&s, 0.02, &diff, &moved));
  ck_assert_msg(moved > 1e-4, "the spring test problem is trivial: x* is y within %g m", moved);
  ck_assert_msg(diff < 1e-10, "springs: one PD iteration moved the exact minimizer by %g m", diff);
  CHECK_PETSC(TestSimDestroy(&s));

  CHECK_PETSC(TestSimCreate("beam", "pd",
                          "-beam_n 6 -beam_nw 2 -beam_material arap -beam_youngs 1e6 -pd_iterations 1 -pd_rtol 0 "
                          "-newton_rtol 0 -newton_atol 1e-11 -newton_vtol 0 -newton_max_it 200",
                          &s));
  CHECK_PETSC(FixedPoint(&s, 0.05, &diff, &moved));
  ck_assert_msg(moved > 1e-4, "the ARAP test problem is trivial: x* is y within %g m", moved);
  ck_assert_msg(diff < 1e-10, "ARAP: one PD iteration moved the exact minimizer by %g m", diff);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* (b) Without Chebyshev, every iteration decreases the incremental potential (the local and the
 * global step each minimize the same surrogate, which equals Phi after the local step): on the
 * spring cloth and on the membrane + bending cloth. */
static void CheckMonotone(const char *extra)
{
  TestSim s;
  const SimStepStats *st;

  CHECK_PETSC(DeformedCloth(extra, &s));
  CHECK_PETSC(SimSolverStep(s.solver, 0.02, NULL));
  CHECK_PETSC(SimSolverGetStats(s.solver, &st));
  ck_assert_int_eq(st->nonlinear_its, 60);
  ck_assert_int_eq(st->nhistory, 61);
  ck_assert_msg(st->objective[60] < st->objective[0] - 1e-6 * PetscAbsReal(st->objective[0]), "no decrease: %g -> %g",
                st->objective[0], st->objective[60]);
  for (PetscInt k = 1; k < st->nhistory; k++)
    ck_assert_msg(st->objective[k] <= st->objective[k - 1] + 1e-12 * PetscAbsReal(st->objective[k - 1]),
                  "the incremental potential rose at iteration %d: %.15g -> %.15g", (int)k, st->objective[k - 1],
                  st->objective[k]);
  ck_assert_msg(st->history[60] < st->history[0], "gradient norm did not decrease: %g -> %g", st->history[0], st->history[60]);
  CHECK_PETSC(TestSimDestroy(&s));
}

START_TEST(monotone_potential)
{
  CheckMonotone("-pd_iterations 60 -pd_rtol 0 -pd_monitor");
  CheckMonotone("-cloth_model fem -cloth_mu 300 -pd_iterations 60 -pd_rtol 0 -pd_monitor");
}
END_TEST

/* (c) PD to tight tolerance reaches Newton's minimizer (within 1e-6 of the step's displacement). */
static PetscErrorCode ConvergedVsNewton(TestSim *s, PetscReal h, PetscReal *rel, PetscInt *its)
{
  PetscInt n = 3 * s->model->nv;
  PetscReal *xn, *y, *xs, *x, res;
  SimStepStats st;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(n, &xn, n, &y, n, &xs, n, &x));
  PetscCall(StepProblem(s->model, h, xn, y));
  PetscCall(NewtonReference(s->model, h, xn, y, xs, &res));
  for (PetscInt i = 0; i < n; i++) x[i] = s->model->pinned[i / 3] ? xn[i] : y[i];
  PetscCall(SimPDMinimize(s->solver, h, y, x, &st));
  PetscCheck(st.outcome == SIM_STEP_OK, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED,
             "PD did not converge in %" PetscInt_FMT " iterations", st.nonlinear_its);
  *rel = RelDiff(n, x, xs, xn);
  *its = st.nonlinear_its;
  PetscCall(PetscFree4(xn, y, xs, x));
  PetscFunctionReturn(0);
}

START_TEST(converged_matches_newton_springs)
{
  TestSim s;
  PetscReal rel;
  PetscInt its;

  CHECK_PETSC(DeformedCloth("-pd_iterations 100000 -pd_rtol 1e-13 -pd_monitor 0", &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.02, &rel, &its));
  ck_assert_msg(rel < 1e-6, "springs: PD differs from Newton by %g (relative to the step's displacement) after %d iterations",
                rel, (int)its);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

START_TEST(converged_matches_newton_arap)
{
  TestSim s;
  PetscReal rel;
  PetscInt its;

  CHECK_PETSC(
      TestSimCreate("beam", "pd",
                  "-beam_n 6 -beam_nw 2 -beam_material arap -beam_youngs 1e6 -pd_iterations 100000 -pd_rtol 1e-13 -pd_monitor 0 "
                  "-newton_rtol 0 -newton_atol 1e-11 -newton_vtol 0 -newton_max_it 200",
                  &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.05, &rel, &its));
  ck_assert_msg(rel < 1e-6, "ARAP beam: PD differs from Newton by %g (relative to the step's displacement) after %d iterations",
                rel, (int)its);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* Moving (kinematic) pins: the twist scene's clamped ends turn; PD (tight tolerance) and
 * implicit_euler (Newton, tight tolerance) take the same 5 steps and end at the same positions. */
START_TEST(twist_matches_implicit_euler)
{
  const char *opts = "-twist_material arap -twist_n 6 -pd_iterations 100000 -pd_rtol 1e-13 -pd_monitor 0 "
                     "-newton_rtol 0 -newton_atol 1e-10 -newton_vtol 0 -newton_max_it 200";
  TestSim s;
  SimModel m2;
  SimProblem p2;
  SimScene sc2;
  SimSolver ie;
  PetscInt n;
  PetscReal *x0, rel;
  const PetscReal *a, *b;

  CHECK_PETSC(TestSimCreate("twist", "pd", opts, &s));
  CHECK_PETSC(SimSceneCreate(s.reg, "twist", &sc2));
  CHECK_PETSC(SimSceneBuild(sc2, PETSC_COMM_SELF, &p2));
  m2 = SimMeshModel(p2);
  CHECK_PETSC(SimSolverCreate(s.reg, "implicit_euler", p2, &ie));
  CHECK_PETSC(SimSolverSetFromOptions(ie));
  n = 3 * s.model->nv;
  CHECK_PETSC(PetscMalloc1(n, &x0));
  CHECK_PETSC(VecGetArrayRead(s.model->x, &a));
  CHECK_PETSC(PetscArraycpy(x0, a, n));
  CHECK_PETSC(VecRestoreArrayRead(s.model->x, &a));
  for (int k = 0; k < 5; k++) {
    SimStepOutcome o1, o2;
    CHECK_PETSC(SimSolverStep(s.solver, 0.02, &o1));
    CHECK_PETSC(SimSolverStep(ie, 0.02, &o2));
    ck_assert_msg(o1 == SIM_STEP_OK && o2 == SIM_STEP_OK, "step %d: outcomes pd %d, implicit_euler %d", k, (int)o1, (int)o2);
  }
  CHECK_PETSC(VecGetArrayRead(s.model->x, &a));
  CHECK_PETSC(VecGetArrayRead(m2->x, &b));
  rel = RelDiff(n, a, b, x0);
  CHECK_PETSC(VecRestoreArrayRead(m2->x, &b));
  CHECK_PETSC(VecRestoreArrayRead(s.model->x, &a));
  ck_assert_msg(rel < 1e-6, "twist: PD and implicit_euler differ by %g of the displacement after 5 steps", rel);
  CHECK_PETSC(PetscFree(x0));
  CHECK_PETSC(SimSolverDestroy(&ie));
  CHECK_PETSC(SimProblemDestroy(&p2));
  CHECK_PETSC(SimSceneDestroy(&sc2));
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* Chebyshev (Wang 2015) reaches the same minimizer, in fewer iterations than plain PD. */
START_TEST(chebyshev_converges_faster)
{
  TestSim s;
  PetscReal rel, relc;
  PetscInt its, itsc;

  CHECK_PETSC(DeformedCloth("-pd_iterations 100000 -pd_rtol 1e-13 -pd_monitor 0", &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.02, &rel, &its));
  CHECK_PETSC(TestSimDestroy(&s));
  CHECK_PETSC(DeformedCloth("-pd_iterations 100000 -pd_rtol 1e-13 -pd_monitor 0 -pd_chebyshev -pd_rho 0.99 -pd_gamma 0.9", &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.02, &relc, &itsc));
  ck_assert_msg(relc < 1e-6, "Chebyshev: PD differs from Newton by %g after %d iterations", relc, (int)itsc);
  ck_assert_msg(itsc < its, "Chebyshev took %d iterations, plain PD %d", (int)itsc, (int)its);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* (d) One factorization per constraint set: many steps at one dt factor once; a new dt refactors. */
START_TEST(factor_once)
{
  TestSim s;
  PetscInt nf;

  CHECK_PETSC(TestSimCreate("cloth", "pd", "-cloth_n 8 -pd_iterations 5 -pd_rtol 0", &s));
  for (int k = 0; k < 20; k++) CHECK_PETSC(SimSolverStep(s.solver, 0.01, NULL));
  CHECK_PETSC(SimPDGetFactorizations(s.solver, &nf));
  ck_assert_int_eq(nf, 1);
  for (int k = 0; k < 3; k++) CHECK_PETSC(SimSolverStep(s.solver, 0.005, NULL));
  CHECK_PETSC(SimPDGetFactorizations(s.solver, &nf));
  ck_assert_int_eq(nf, 2);
  {
    char buf[4096] = "";
    const char *path = "test_pd_view.txt"; /* in the test's working directory */
    PetscViewer v;
    FILE *f;
    size_t len;
    CHECK_PETSC(PetscViewerASCIIOpen(PETSC_COMM_SELF, path, &v));
    CHECK_PETSC(SimSolverView(s.solver, v));
    CHECK_PETSC(PetscViewerDestroy(&v));
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read back %s", path);
    len = fread(buf, 1, sizeof(buf) - 1, f);
    buf[len] = 0;
    fclose(f);
    remove(path);
    ck_assert_msg(strstr(buf, "factorizations: 2") && strstr(buf, "term 'spring'") && strstr(buf, "term 'gravity': linear"),
                  "view: %s", buf);
  }
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

START_TEST(bad_options)
{
  PetscErrorCode ierr;
  TestErrorCapture cap;

  CHECK_PETSC(TestSolverError("cloth", "pd", "-cloth_n 4 -pd_iterations 0", PETSC_FALSE, &ierr, &cap));
  ck_assert_msg(ierr != 0 && strstr(cap.msg, "-pd_iterations") && strstr(cap.msg, "[1, 1e6]"), "message: %s", cap.msg);
  CHECK_PETSC(TestSolverError("cloth", "pd", "-cloth_n 4 -pd_rho 1.5", PETSC_FALSE, &ierr, &cap));
  ck_assert_msg(ierr != 0 && strstr(cap.msg, "-pd_rho"), "message: %s", cap.msg);
  CHECK_PETSC(TestSolverError("cloth", "pd", "-cloth_n 4 -pd_anderson -1", PETSC_FALSE, &ierr, &cap));
  ck_assert_msg(ierr != 0 && strstr(cap.msg, "-pd_anderson") && strstr(cap.msg, "[0, 100]"), "message: %s", cap.msg);
  CHECK_PETSC(TestSolverError("cloth", "pd", "-cloth_n 4 -pd_anderson 5 -pd_chebyshev", PETSC_FALSE, &ierr, &cap));
  ck_assert_msg(ierr != 0 && strstr(cap.msg, "-pd_anderson") && strstr(cap.msg, "-pd_chebyshev"), "message: %s", cap.msg);
}
END_TEST

/* (e) Terms without a PD form are refused by name: spring damping and an FEM body whose material
 * is not arap. */
START_TEST(refuses_terms)
{
  PetscErrorCode ierr;
  TestErrorCapture cap;

  CHECK_PETSC(TestSolverError("cloth", "pd", "-cloth_n 4 -cloth_damping 0.5", PETSC_TRUE, &ierr, &cap));
  ck_assert_msg(ierr != 0 && strstr(cap.msg, "damping"), "message: %s", cap.msg);
  CHECK_PETSC(TestSolverError("beam", "pd", "-beam_n 2", PETSC_TRUE, &ierr, &cap));
  ck_assert_msg(ierr != 0 && strstr(cap.msg, "fixed_corotated") && strstr(cap.msg, "arap"), "message: %s", cap.msg);
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* ---- cloth with triangle strain and bending ---- */

/* Acceptance 2 on the membrane + bending cloth (-cloth_model fem): PD to tight tolerance reaches
 * Newton's minimizer; one iteration from it leaves it unchanged (acceptance 1). */
START_TEST(cloth_fem_matches_newton)
{
  TestSim s;
  PetscReal rel, diff, moved;
  PetscInt its;

  CHECK_PETSC(DeformedCloth("-cloth_model fem -cloth_mu 300 -cloth_bending 1e-3 -pd_iterations 100000 -pd_rtol 1e-13 -pd_monitor 0", &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.02, &rel, &its));
  ck_assert_msg(rel < 1e-6, "cloth fem: PD differs from Newton by %g after %d iterations", rel, (int)its);
  CHECK_PETSC(TestSimDestroy(&s));
  CHECK_PETSC(DeformedCloth("-cloth_model fem -cloth_mu 300 -cloth_bending 1e-3 -pd_iterations 1 -pd_rtol 0", &s));
  CHECK_PETSC(FixedPoint(&s, 0.02, &diff, &moved));
  ck_assert_msg(moved > 1e-4 && diff < 1e-10, "cloth fem: one PD iteration moved the minimizer by %g m (step moves %g m)", diff, moved);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* ---- colliders: an active constraint set (the penetrating vertices) ---- */

/* The ARAP box of the drop scene falls on the plane under PD: it comes to rest on it with a
 * penetration below M g / k (the whole weight on one vertex's penalty spring), the factorization
 * count is one plus the number of active-set changes, and the set did not change at every step. */
START_TEST(drop_comes_to_rest)
{
  TestSim s;
  PetscInt nf, nchange;
  const PetscInt nsteps = 150;
  PetscReal pen = 0, vmax = 0, mass = 0;
  const PetscReal *x, *v, *mv;

  CHECK_PETSC(TestSimCreate("drop", "pd", "-drop_material arap -drop_n 3 -pd_monitor 0", &s));
  for (int k = 0; k < nsteps; k++) CHECK_PETSC(SimSolverStep(s.solver, 1.0 / 60, NULL));
  CHECK_PETSC(VecGetArrayRead(s.model->x, &x));
  CHECK_PETSC(VecGetArrayRead(s.model->v, &v));
  CHECK_PETSC(VecGetArrayRead(s.model->mass, &mv));
  for (PetscInt i = 0; i < s.model->nv; i++) {
    pen = PetscMax(pen, -x[3 * i + 1]); /* the plane is y = 0 */
    vmax = PetscMax(vmax, PetscSqrtReal(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]));
    mass += mv[3 * i];
  }
  CHECK_PETSC(VecRestoreArrayRead(s.model->mass, &mv));
  CHECK_PETSC(VecRestoreArrayRead(s.model->v, &v));
  CHECK_PETSC(VecRestoreArrayRead(s.model->x, &x));
  ck_assert_msg(pen > 0 && pen < mass * 9.81 / 1e4, "penetration %g m (bound M g / k = %g m)", pen, mass * 9.81 / 1e4);
  ck_assert_msg(vmax < 0.05, "not at rest after %d steps: max |v| = %g m/s", (int)nsteps, vmax);
  CHECK_PETSC(SimPDGetFactorizations(s.solver, &nf));
  CHECK_PETSC(SimPDGetConstraintSetChanges(s.solver, &nchange));
  ck_assert_msg(nchange >= 1 && nf == 1 + nchange && nf < nsteps / 2,
                "%d factorizations for %d constraint-set changes in %d steps", (int)nf, (int)nchange, (int)nsteps);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* A step of the box resting on the plane (after 20 steps of PD with `opts`), PD to tight tolerance
 * vs Newton: the relative difference and PD's iterations. */
static PetscErrorCode DropVsNewton(const char *opts, PetscReal *rel, PetscInt *its)
{
  char o[1024];
  TestSim s;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(o, sizeof(o), "-drop_material arap -drop_n 3 -pd_monitor 0 %s", opts));
  PetscCall(TestSimCreate("drop", "pd", o, &s));
  for (int k = 0; k < 20; k++) PetscCall(SimSolverStep(s.solver, 1.0 / 60, NULL)); /* lands at about step 15 */
  PetscCall(TestSetOptions(NULL));
  PetscCall(PetscSNPrintf(o, sizeof(o),
                          "-pd_iterations 100000 -pd_rtol 1e-13 -pd_monitor 0 -newton_rtol 0 -newton_atol 1e-9 -newton_vtol 0 "
                          "-newton_max_it 200 %s",
                          opts));
  PetscCall(PetscOptionsInsertString(NULL, o));
  PetscCall(SimSolverSetFromOptions(s.solver));
  PetscCall(ConvergedVsNewton(&s, 1.0 / 60, rel, its));
  PetscCall(TestSimDestroy(&s));
  PetscFunctionReturn(0);
}

/* Acceptance 2 with contact: a step of the box resting on the plane, PD to tight tolerance vs Newton. */
START_TEST(drop_matches_newton)
{
  PetscReal rel;
  PetscInt its;

  CHECK_PETSC(DropVsNewton("", &rel, &its));
  ck_assert_msg(rel < 1e-6, "drop in contact: PD differs from Newton by %g after %d iterations", rel, (int)its);
}
END_TEST

/* -pd_contact normal: the plane's constraints only in the normal coordinate's matrix. The box on
 * the plane, tilted so that it slides and turns on its contact vertices (the frictionless minimizer
 * moves them tangentially), reaches Newton's minimizer in fewer iterations than with the isotropic
 * treatment, which holds every active vertex at its previous tangential position with the penalty
 * stiffness; a sphere (no fixed direction) is refused by name. -pd_contact_release (lifted-off
 * constraints leave the set, once a step) reaches the same minimizer, with either treatment. */
START_TEST(contact_normal_matches_newton)
{
  const char *tilt = "-plane_normal 0.3,1,0.2";
  char o[256];
  PetscReal rel, reln;
  PetscInt its, itsn;
  PetscErrorCode ierr;
  TestErrorCapture cap;

  CHECK_PETSC(DropVsNewton(tilt, &rel, &its));
  CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "%s -pd_contact normal", tilt));
  CHECK_PETSC(DropVsNewton(o, &reln, &itsn));
  fprintf(stderr, "contact_normal_matches_newton: isotropic %d its (rel %g), normal %d its (rel %g)\n", (int)its, rel, (int)itsn,
          reln);
  ck_assert_msg(rel < 1e-6 && reln < 1e-6, "tilted plane: PD differs from Newton by %g (isotropic), %g (normal)", rel, reln);
  ck_assert_msg(itsn < its, "-pd_contact normal took %d iterations, isotropic %d", (int)itsn, (int)its);

  /* releasing lifted-off constraints (and Anderson) keeps the minimizer */
  CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "%s -pd_contact normal -pd_contact_release -pd_anderson 5", tilt));
  CHECK_PETSC(DropVsNewton(o, &reln, &itsn));
  fprintf(stderr, "contact_normal_matches_newton: normal + release + Anderson %d its (rel %g)\n", (int)itsn, reln);
  ck_assert_msg(reln < 1e-6, "tilted plane, -pd_contact_release: PD differs from Newton by %g after %d iterations", reln, (int)itsn);
  CHECK_PETSC(DropVsNewton("-pd_contact_release", &reln, &itsn));
  ck_assert_msg(reln < 1e-6, "drop, -pd_contact_release: PD differs from Newton by %g after %d iterations", reln, (int)itsn);

  CHECK_PETSC(TestSolverError("cloth", "pd", "-cloth_n 4 -colliders sphere -pd_contact normal", PETSC_TRUE, &ierr, &cap));
  ck_assert_msg(ierr != 0 && strstr(cap.msg, "-pd_contact normal") && strstr(cap.msg, "'sphere'"), "message: %s", cap.msg);
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* Acceptance 2 with a sphere collider: the cloth hanging from two corners falls onto a sphere (the
 * active set is the vertices inside it), PD to tight tolerance vs Newton. */
START_TEST(sphere_matches_newton)
{
  TestSim s;
  PetscReal rel;
  PetscInt its;

  CHECK_PETSC(DeformedCloth("-colliders sphere -sphere_center 0,-0.55,0.3 -sphere_radius 0.5 -pd_iterations 100000 "
                            "-pd_rtol 1e-13 -pd_monitor 0",
                            &s));
  {
    SimEnergy sphere;
    const PetscReal *x;
    PetscReal E;
    CHECK_PETSC(SimModelFindTerm(s.model, "sphere", &sphere));
    CHECK_PETSC(VecGetArrayRead(s.model->x, &x));
    CHECK_PETSC(sphere->ops.value(sphere, x, NULL, &E));
    CHECK_PETSC(VecRestoreArrayRead(s.model->x, &x));
    ck_assert_msg(E > 0, "the cloth does not touch the sphere (penalty energy %g)", E);
  }
  CHECK_PETSC(ConvergedVsNewton(&s, 0.02, &rel, &its));
  ck_assert_msg(rel < 1e-6, "sphere: PD differs from Newton by %g after %d iterations", rel, (int)its);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* ---- attachments ---- */

/* Acceptance 2 on a cloth held only by soft attachments at its four corners. */
START_TEST(attachments_match_newton)
{
  TestSim s;
  PetscReal rel;
  PetscInt its;

  CHECK_PETSC(DeformedCloth("-cloth_pin none -cloth_attach corners -cloth_attach_stiffness 500 -pd_iterations 100000 -pd_rtol 1e-13 "
                            "-pd_monitor 0",
                            &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.02, &rel, &its));
  ck_assert_msg(rel < 1e-6, "attachments: PD differs from Newton by %g after %d iterations", rel, (int)its);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* ---- strain limits ---- */

/* Singular values of the 3x3 (row-major) M. */
static PetscErrorCode Singular(const PetscReal *M, PetscReal s[3])
{
  PetscReal U[9], V[9];

  PetscFunctionBeginUser;
  PetscCall(SimSvd3(M, U, s, V));
  PetscFunctionReturn(0);
}

/* The PD projection of a stretched tet has its singular values in [s_min, s_max] (the clamped ones
 * of F), the limits [1, 1] give the rotation of plain ARAP, and inside the band F is its own
 * projection. */
START_TEST(strain_limit_projection)
{
  SimRegistry reg;
  SimMaterial mat;
  SimEnergy term;
  const PetscReal rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const PetscInt tet[4] = {0, 1, 2, 3};
  /* x = F X with F = a rotation times diag(1.4, 1.0, 0.6) times a shear */
  const PetscReal F[9] = {1.2, 0.3, 0.1, -0.5, 0.9, 0.2, 0.1, -0.2, 0.7};
  PetscReal x[12], p[9], pt[9], sF[3], sp[3], R[9];
  PetscInt nc, nvert, nrows;

  CHECK_PETSC(TestRegistryCreate(&reg));
  for (int a = 0; a < 4; a++)
    for (int i = 0; i < 3; i++) x[3 * a + i] = F[3 * i] * rest[3 * a] + F[3 * i + 1] * rest[3 * a + 1] + F[3 * i + 2] * rest[3 * a + 2];
  CHECK_PETSC(SimMaterialCreateWithParams(reg, "arap", 1e5, 0.3, 1000, &mat));
  mat->par.strain_min = 0.9, mat->par.strain_max = 1.1;
  CHECK_PETSC(SimFEMCreate("elastic", 4, rest, 1, tet, mat, &term));
  CHECK_PETSC(term->ops.pd_count(term, &nc, &nvert, &nrows));
  ck_assert(nc == 1 && nvert == 4 && nrows == 3);
  CHECK_PETSC(term->ops.pd_project(term, x, p));
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++) pt[3 * k + j] = p[3 * j + k]; /* p holds the transpose */
  CHECK_PETSC(Singular(F, sF));
  CHECK_PETSC(Singular(pt, sp));
  ck_assert_msg(sF[0] > 1.1 && sF[2] < 0.9, "the test F is inside the band: s = %g %g %g", sF[0], sF[1], sF[2]);
  for (int k = 0; k < 3; k++) {
    const PetscReal c = PetscMin(PetscMax(sF[k], 0.9), 1.1);
    ck_assert_msg(sp[k] >= 0.9 - 1e-12 && sp[k] <= 1.1 + 1e-12 && PetscAbsReal(sp[k] - c) < 1e-12,
                  "projection singular value %d: %.15g, expected clamp(%.15g) = %.15g", k, sp[k], sF[k], c);
  }
  /* limits [1, 1]: the rotation R of F = R S */
  mat->par.strain_min = mat->par.strain_max = 1;
  CHECK_PETSC(term->ops.pd_project(term, x, p));
  CHECK_PETSC(SimPolar3(F, R, NULL));
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++) ck_assert_msg(PetscAbsReal(p[3 * j + k] - R[3 * k + j]) < 1e-14, "[1, 1] is not ARAP's projection");
  /* inside a wide band F projects onto itself */
  mat->par.strain_min = 0.5, mat->par.strain_max = 1.5;
  CHECK_PETSC(term->ops.pd_project(term, x, p));
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++) ck_assert_msg(PetscAbsReal(p[3 * j + k] - F[3 * k + j]) < 1e-13, "F inside the band moved");
  CHECK_PETSC(SimEnergyDestroy(&term));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* The smallest and the largest singular value of F over the tets of the "elastic" term. */
static PetscErrorCode StretchRange(TestSim *s, PetscReal *smin, PetscReal *smax)
{
  SimEnergy fem;
  PetscInt ntet;
  PetscReal *F;
  const PetscReal *x;

  PetscFunctionBeginUser;
  PetscCall(SimModelFindTerm(s->model, "elastic", &fem));
  PetscCall(VecGetArrayRead(s->model->x, &x));
  PetscCall(SimFEMGetDeformation(fem, x, &ntet, NULL, NULL));
  PetscCall(PetscMalloc1(9 * ntet, &F));
  PetscCall(SimFEMGetDeformation(fem, x, &ntet, F, NULL));
  PetscCall(VecRestoreArrayRead(s->model->x, &x));
  *smin = PETSC_MAX_REAL, *smax = 0;
  for (PetscInt e = 0; e < ntet; e++) {
    PetscReal sg[3];
    PetscCall(Singular(F + 9 * e, sg));
    *smin = PetscMin(*smin, sg[2]), *smax = PetscMax(*smax, sg[0]);
  }
  PetscCall(PetscFree(F));
  PetscFunctionReturn(0);
}

/* A soft ARAP cantilever sags and strains beyond 8%; with limits [0.95, 1.05] and a stiff material
 * outside the band, every element's singular values stay (approximately: within 0.02, the
 * penalty's give) inside it. */
START_TEST(strain_limits_hold)
{
  TestSim s;
  PetscReal lo, hi, lo_free, hi_free;
  const char *base = "-beam_n 8 -beam_nw 2 -beam_material arap -pd_monitor 0 -pd_rtol 1e-4 -pd_iterations 2000";
  char opts[512];

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "%s -beam_youngs 1e5", base));
  CHECK_PETSC(TestSimCreate("beam", "pd", opts, &s));
  for (int k = 0; k < 30; k++) CHECK_PETSC(SimSolverStep(s.solver, 0.02, NULL));
  CHECK_PETSC(StretchRange(&s, &lo_free, &hi_free));
  CHECK_PETSC(TestSimDestroy(&s));
  ck_assert_msg(hi_free > 1.08 || lo_free < 0.92, "the soft beam does not strain beyond 8%%: s in [%g, %g]", lo_free, hi_free);

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "%s -beam_youngs 2e7 -beam_strain_min 0.95 -beam_strain_max 1.05", base));
  CHECK_PETSC(TestSimCreate("beam", "pd", opts, &s));
  for (int k = 0; k < 30; k++) CHECK_PETSC(SimSolverStep(s.solver, 0.02, NULL));
  CHECK_PETSC(StretchRange(&s, &lo, &hi));
  ck_assert_msg(lo > 0.95 - 0.02 && hi < 1.05 + 0.02, "limits [0.95, 1.05]: singular values in [%g, %g] (free beam: [%g, %g])", lo,
                hi, lo_free, hi_free);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* Acceptance 2 on the strain-limited energy: PD to tight tolerance reaches Newton's minimizer. */
START_TEST(strain_limits_match_newton)
{
  TestSim s;
  PetscReal rel;
  PetscInt its;

  CHECK_PETSC(TestSimCreate("beam", "pd",
                            "-beam_n 6 -beam_nw 2 -beam_material arap -beam_youngs 1e6 -beam_strain_min 0.999 -beam_strain_max 1.001 "
                            "-pd_iterations 100000 -pd_rtol 1e-13 -pd_monitor 0 -newton_rtol 0 -newton_atol 1e-11 -newton_vtol 0 "
                            "-newton_max_it 200",
                            &s));
  {
    PetscReal lo, hi;
    for (int k = 0; k < 3; k++) CHECK_PETSC(SimSolverStep(s.solver, 0.05, NULL));
    CHECK_PETSC(StretchRange(&s, &lo, &hi));
    ck_assert_msg(lo < 0.999 && hi > 1.001, "the test state is inside the band [0.999, 1.001]: s in [%g, %g]", lo, hi);
  }
  CHECK_PETSC(ConvergedVsNewton(&s, 0.05, &rel, &its));
  ck_assert_msg(rel < 1e-6, "strain limits: PD differs from Newton by %g after %d iterations", rel, (int)its);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* ---- the Newton reference ---- */

/* -pd_reference_newton: the step's Phi* by Newton; the gap (Phi_k - Phi*)/|Phi_0 - Phi*| falls from
 * 1 to round-off as PD converges, is never negative beyond round-off, and Phi* is a minimum. */
START_TEST(reference_gap_vanishes)
{
  TestSim s;
  const SimStepStats *st;
  const PetscReal *ref, *elapsed;
  PetscReal phistar, first, last;
  PetscInt nh, nref, nel;

  CHECK_PETSC(DeformedCloth("-pd_reference_newton -pd_iterations 250 -pd_rtol 0 -pd_chebyshev -pd_rho 0.99", &s));
  CHECK_PETSC(SimSolverStep(s.solver, 0.02, NULL));
  CHECK_PETSC(SimSolverGetStats(s.solver, &st));
  CHECK_PETSC(SimSolverGetSeries(s.solver, "reference_objective", &nref, &ref));
  CHECK_PETSC(SimSolverGetSeries(s.solver, "elapsed_ms", &nel, &elapsed));
  ck_assert_int_eq(nref, 1);
  phistar = ref[0], nh = st->nhistory;
  ck_assert_int_eq(nel, nh);
  ck_assert_int_eq(nh, 251);
  first = (st->objective[1] - phistar) / PetscAbsReal(st->objective[0] - phistar);
  last = (st->objective[nh - 1] - phistar) / PetscAbsReal(st->objective[0] - phistar);
  ck_assert_msg(first > 1e-3, "the gap after one iteration is already %g", first);
  ck_assert_msg(PetscAbsReal(last) < 1e-9, "the gap after %d iterations is %g", (int)(nh - 1), last);
  for (PetscInt k = 0; k < nh; k++)
    ck_assert_msg(st->objective[k] >= phistar - 1e-12 * PetscAbsReal(phistar), "Phi_%d = %.15g below Phi* = %.15g", (int)k,
                  st->objective[k], phistar);
  for (PetscInt k = 1; k < nh; k++) ck_assert_msg(elapsed[k] >= elapsed[k - 1], "elapsed time decreased at %d", (int)k);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* ---- Anderson acceleration (-pd_anderson; solvers/pd/anderson.c) ---- */

/* On an affine map G(x) = M x + c in R^4, Anderson with a history of >= 4 is GMRES in disguise
 * (Walker & Ni 2011): it reaches the fixed point to rounding within a few iterations, where the
 * plain iteration (spectral radius 0.99) has barely started. */
START_TEST(anderson_affine_map)
{
  const PetscReal M[16] = {0.99, 0.1, 0, 0, 0, 0.9, 0.2, 0, 0, 0, 0.5, 0.3, 0, 0, 0, -0.5}, c[4] = {1, 2, 3, 4};
  PetscReal xs[4], x[4] = {0}, xp[4] = {0}, g[4], xacc[4], err = 0, errp = 0, nrm = 0;
  PetscBool acc, any = PETSC_FALSE;
  SimAnderson aa;

  for (int i = 3; i >= 0; i--) { /* x* = (I - M)^-1 c, back substitution (M is upper triangular) */
    PetscReal r = c[i];
    for (int j = i + 1; j < 4; j++) r += M[4 * i + j] * xs[j];
    xs[i] = r / (1 - M[4 * i + i]);
  }
  CHECK_PETSC(SimAndersonCreate(4, 5, &aa));
  for (int it = 0; it < 8; it++) {
    for (int i = 0; i < 4; i++) {
      g[i] = c[i];
      for (int j = 0; j < 4; j++) g[i] += M[4 * i + j] * x[j];
    }
    CHECK_PETSC(SimAndersonUpdate(&aa, x, g, xacc, &acc));
    any = (PetscBool)(any || acc);
    for (int i = 0; i < 4; i++) x[i] = xacc[i];
    for (int i = 0; i < 4; i++) { /* the plain iteration alongside */
      g[i] = c[i];
      for (int j = 0; j < 4; j++) g[i] += M[4 * i + j] * xp[j];
    }
    for (int i = 0; i < 4; i++) xp[i] = g[i];
  }
  for (int i = 0; i < 4; i++) {
    err = PetscMax(err, PetscAbsReal(x[i] - xs[i])), errp = PetscMax(errp, PetscAbsReal(xp[i] - xs[i]));
    nrm = PetscMax(nrm, PetscAbsReal(xs[i]));
  }
  ck_assert_msg(any, "Anderson never accelerated");
  ck_assert_msg(err < 1e-9 * nrm, "Anderson after 8 iterations: error %g of |x*| = %g", err, nrm);
  ck_assert_msg(errp > 0.5 * nrm, "the plain iteration is not slow here (error %g of %g): the test shows nothing", errp, nrm);
  SimAndersonReset(&aa);
  ck_assert_int_eq(aa.k, 0);
  CHECK_PETSC(SimAndersonDestroy(&aa));
  CHECK_PETSC(SimAndersonDestroy(&aa)); /* destroy after destroy is harmless */
}
END_TEST

/* Anderson reaches the same minimizer as Newton (and so as plain PD, tested above) to tight
 * tolerance: springs, an ARAP beam and the cloth on a sphere (a changing active set). */
START_TEST(anderson_matches_newton)
{
  TestSim s;
  PetscReal rel;
  PetscInt its;

  CHECK_PETSC(DeformedCloth("-pd_iterations 100000 -pd_rtol 1e-13 -pd_monitor 0 -pd_anderson 5", &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.02, &rel, &its));
  ck_assert_msg(rel < 1e-6, "Anderson, springs: PD differs from Newton by %g after %d iterations", rel, (int)its);
  CHECK_PETSC(TestSimDestroy(&s));

  CHECK_PETSC(TestSimCreate("beam", "pd",
                            "-beam_n 6 -beam_nw 2 -beam_material arap -beam_youngs 1e6 -pd_iterations 100000 -pd_rtol 1e-13 "
                            "-pd_monitor 0 -pd_anderson 5 -newton_rtol 0 -newton_atol 1e-11 -newton_vtol 0 -newton_max_it 200",
                            &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.05, &rel, &its));
  ck_assert_msg(rel < 1e-6, "Anderson, ARAP beam: PD differs from Newton by %g after %d iterations", rel, (int)its);
  CHECK_PETSC(TestSimDestroy(&s));

  CHECK_PETSC(DeformedCloth("-colliders sphere -sphere_center 0,-0.55,0.3 -sphere_radius 0.5 -pd_iterations 100000 "
                            "-pd_rtol 1e-13 -pd_monitor 0 -pd_anderson 5",
                            &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.02, &rel, &its));
  ck_assert_msg(rel < 1e-6, "Anderson, sphere: PD differs from Newton by %g after %d iterations", rel, (int)its);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* The energy safeguard (Peng et al. 2018): with Anderson the incremental potential still never
 * rises from one iteration to the next, on a stiff ARAP beam where accelerated iterates are
 * refused (the count is checked, so the safeguard is exercised, not idle). */
START_TEST(anderson_monotone)
{
  TestSim s;
  const SimStepStats *st;
  PetscInt nrej;

  CHECK_PETSC(TestSimCreate("beam", "pd",
                            "-beam_n 8 -beam_nw 2 -beam_material arap -beam_youngs 1e7 -pd_iterations 60 -pd_rtol 0 -pd_monitor "
                            "-pd_anderson 5",
                            &s));
  CHECK_PETSC(SimSolverStep(s.solver, 0.05, NULL));
  CHECK_PETSC(SimSolverGetStats(s.solver, &st));
  CHECK_PETSC(SimPDGetAndersonRejections(s.solver, &nrej));
  fprintf(stderr, "anderson_monotone: %d rejections, Phi %.15g -> %.15g\n", (int)nrej, st->objective[0], st->objective[60]);
  ck_assert_int_eq(st->nhistory, 61);
  ck_assert_msg(nrej > 0, "the safeguard never refused an accelerated iterate: the test shows nothing");
  ck_assert_msg(st->objective[60] < st->objective[0] - 1e-6 * PetscAbsReal(st->objective[0]), "no decrease: %g -> %g",
                st->objective[0], st->objective[60]);
  for (PetscInt k = 1; k < st->nhistory; k++)
    ck_assert_msg(st->objective[k] <= st->objective[k - 1] + 1e-12 * PetscAbsReal(st->objective[k - 1]),
                  "Anderson: the incremental potential rose at iteration %d: %.15g -> %.15g", (int)k, st->objective[k - 1],
                  st->objective[k]);
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* On a stiff ARAP beam (E = 1e7 Pa, where plain PD is slow) Anderson needs fewer iterations than
 * plain PD to the same -pd_rtol, and lands on the same minimizer (Newton's). */
START_TEST(anderson_fewer_iterations)
{
  const char *opts = "-beam_n 8 -beam_nw 2 -beam_material arap -beam_youngs 1e7 -pd_iterations 100000 -pd_rtol 1e-8 -pd_monitor 0 "
                     "-newton_rtol 0 -newton_atol 1e-11 -newton_vtol 0 -newton_max_it 200";
  char o2[1024];
  TestSim s;
  PetscReal rel, rela;
  PetscInt its, itsa;

  CHECK_PETSC(TestSimCreate("beam", "pd", opts, &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.05, &rel, &its));
  CHECK_PETSC(TestSimDestroy(&s));
  CHECK_PETSC(PetscSNPrintf(o2, sizeof(o2), "%s -pd_anderson 5", opts));
  CHECK_PETSC(TestSimCreate("beam", "pd", o2, &s));
  CHECK_PETSC(ConvergedVsNewton(&s, 0.05, &rela, &itsa));
  CHECK_PETSC(TestSimDestroy(&s));
  fprintf(stderr, "anderson_fewer_iterations: plain %d its (rel %g), Anderson %d its (rel %g)\n", (int)its, rel, (int)itsa, rela);
  ck_assert_msg(its > 50, "plain PD needs only %d iterations: the beam is not stiff enough to show anything", (int)its);
  ck_assert_msg(itsa < its, "Anderson took %d iterations, plain PD %d", (int)itsa, (int)its);
  ck_assert_msg(rela < 1e-4 && rel < 1e-4, "rtol 1e-8: off Newton's minimizer by %g (Anderson), %g (plain)", rela, rel);
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("pd");
  TCase *tc = tcase_create("pd");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, fixed_point_at_minimizer);
  tcase_add_test(tc, monotone_potential);
  tcase_add_test(tc, converged_matches_newton_springs);
  tcase_add_test(tc, converged_matches_newton_arap);
  tcase_add_test(tc, twist_matches_implicit_euler);
  tcase_add_test(tc, chebyshev_converges_faster);
  tcase_add_test(tc, factor_once);
  tcase_add_test(tc, bad_options);
  tcase_add_test(tc, refuses_terms);
  tcase_add_test(tc, cloth_fem_matches_newton);
  tcase_add_test(tc, drop_comes_to_rest);
  tcase_add_test(tc, drop_matches_newton);
  tcase_add_test(tc, contact_normal_matches_newton);
  tcase_add_test(tc, sphere_matches_newton);
  tcase_add_test(tc, attachments_match_newton);
  tcase_add_test(tc, strain_limit_projection);
  tcase_add_test(tc, strain_limits_hold);
  tcase_add_test(tc, strain_limits_match_newton);
  tcase_add_test(tc, reference_gap_vanishes);
  tcase_add_test(tc, anderson_affine_map);
  tcase_add_test(tc, anderson_matches_newton);
  tcase_add_test(tc, anderson_monotone);
  tcase_add_test(tc, anderson_fewer_iterations);
  suite_add_tcase(s, tc);
  return s;
}
