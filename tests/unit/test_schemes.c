/* Integrators and the Newton line search against their definitions, on problems small enough to
 * follow by hand: velocity Verlet's steps on the damped oscillator (each kick takes the force at the
 * state the scheme says), and the Armijo line search cutting a Newton step whose decrease is below
 * the sufficient-decrease fraction (a 1-DOF drop onto a penalty plane where the full step gains
 * nothing), and PD's plain and Chebyshev iterations on a problem where PD is a linear iteration of
 * known spectral radius (their errors: rho^k and 1/T_k(1/rho)). */
#include "testing.h"
#include "framework/newton/newton.h"
#include "energies/energies.h"
#include "problems/mesh/mesh.h"
#include "solvers/pd/pd_impl.h"

/* Velocity Verlet (solvers/explicit/symplectic.c) on the damped oscillator, a(x, v) = -(k (x - L)
 * + c v)/m along the spring: v' = v + h/2 a(x, v); x1 = x + h v'; v1 = v' + h/2 a(x1, v'), with
 * a(x, v) evaluated afresh at the start of every step (damping makes it depend on v: the previous
 * step's end-of-step acceleration, taken at v', is not a(x1, v1)). */
START_TEST(verlet_steps_by_hand)
{
  const PetscReal k = 100, m = 1, L = 1, c = 2, h = 0.01;
  TestSim s;
  PetscReal x = L + 0.1, v = 0;
  const PetscScalar *xs, *vs;

  CHECK_PETSC(TestSimCreate("oscillator", "verlet", "-oscillator_damping 2", &s));
  for (int n = 0; n < 5; n++) {
    PetscReal a = -(k * (x - L) + c * v) / m, vh = v + 0.5 * h * a, x1 = x + h * vh, a1 = -(k * (x1 - L) + c * vh) / m;
    x = x1, v = vh + 0.5 * h * a1;
    CHECK_PETSC(SimSolverStep(s.solver, h, NULL));
    CHECK_PETSC(VecGetArrayRead(s.model->x, &xs));
    CHECK_PETSC(VecGetArrayRead(s.model->v, &vs));
    ck_assert_msg(PetscAbsReal(xs[3] - x) < 1e-15 && PetscAbsReal(vs[3] - v) < 1e-14,
                  "Verlet step %d: x = %.17g, v = %.17g; by hand x = %.17g, v = %.17g", n + 1, (double)xs[3], (double)vs[3],
                  (double)x, (double)v);
    CHECK_PETSC(VecRestoreArrayRead(s.model->v, &vs));
    CHECK_PETSC(VecRestoreArrayRead(s.model->x, &xs));
  }
  CHECK_PETSC(TestSimDestroy(&s));
}
END_TEST

/* One vertex (mass m) above a penalty plane y = 0 (stiffness k) under gravity g, one implicit step
 * of effective size beta from rest at height y0 (the guess is y = y0):
 *   Phi(y) = m/(2 beta^2) (y - y0)^2 + m g y + k/2 min(0, y)^2.
 * At the guess the gradient is m g and the Hessian m/beta^2 (no contact), so the Newton step goes to
 * y1 = y0 - g beta^2, a depth d = g beta^2 - y0 into the plane, and
 *   Phi(y1) - Phi(y0) = -m g^2 beta^2 / 2 + k d^2 / 2,   slope g.p = -m g^2 beta^2.
 * With k d^2 = m g^2 beta^2 the full step decreases Phi by nothing: Armijo (decrease >= 1e-4 |g.p|)
 * must cut it, and every accepted iterate must lower Phi by a visible amount. */
START_TEST(armijo_cuts_a_step_without_decrease)
{
  const PetscReal m = 1, g = 9.81, beta = 0.1, y0 = 0.05, d = g * beta * beta - y0, k = m * g * g * beta * beta / (d * d);
  const PetscReal xyz[3] = {0, y0, 0};
  char opts[128];
  SimModel model;
  SimEnergy term;
  SimNewton nt;
  SimStepStats st;
  Vec x;
  PetscReal ystar[3];
  const PetscScalar *xa;

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-gravity 0,%.17g,0 -plane_stiffness %.17g", -g, k));
  CHECK_PETSC(TestSetOptions(opts));
  CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &model));
  CHECK_PETSC(SimModelSetVertices(model, 1, xyz));
  CHECK_PETSC(SimModelSetVertexMass(model, 0, m));
  CHECK_PETSC(VecAssemblyBegin(model->mass));
  CHECK_PETSC(VecAssemblyEnd(model->mass));
  CHECK_PETSC(SimEnergyCreate_Gravity(model, NULL, &term));
  CHECK_PETSC(SimModelAddTerm(model, term));
  CHECK_PETSC(SimEnergyCreate_Plane(model, "plane_", &term));
  CHECK_PETSC(SimModelAddTerm(model, term));
  CHECK_PETSC(SimModelFinalize(model));
  CHECK_PETSC(SimNewtonCreate(model, "newton_", &nt));
  CHECK_PETSC(SimNewtonSetFromOptions(nt));
  CHECK_PETSC(VecDuplicate(model->x, &x));
  CHECK_PETSC(VecCopy(model->x, x));
  CHECK_PETSC(SimNewtonMinimize(nt, beta, xyz, xyz, xyz, x, &st));
  ck_assert_msg(st.outcome == SIM_STEP_OK, "Newton did not converge (outcome %d)", (int)st.outcome);
  ck_assert_msg(st.linesearch_cuts >= 1, "the line search accepted a full step that does not decrease Phi (%d cuts)",
                (int)st.linesearch_cuts);
  for (PetscInt j = 1; j < st.nhistory; j++)
    ck_assert_msg(st.objective[j] < st.objective[j - 1] || st.history[j - 1] < 1e-8,
                  "iteration %d: Phi %.17g -> %.17g (no decrease)", (int)j, (double)st.objective[j - 1], (double)st.objective[j]);
  /* the minimizer: inside the plane, m (y - y0)/beta^2 + m g + k y = 0 */
  ystar[1] = (m * y0 / (beta * beta) - m * g) / (m / (beta * beta) + k);
  CHECK_PETSC(VecGetArrayRead(x, &xa));
  ck_assert_msg(PetscAbsReal(xa[1] - ystar[1]) < 1e-9, "Newton ended at y = %.12g, the minimizer is %.12g", (double)xa[1],
                (double)ystar[1]);
  CHECK_PETSC(VecRestoreArrayRead(x, &xa));
  CHECK_PETSC(VecDestroy(&x));
  CHECK_PETSC(SimNewtonDestroy(&nt));
  CHECK_PETSC(SimModelDestroy(&model));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* A vertex (mass m) inside a penalty plane y = 0 of stiffness w, no other force: PD's local step
 * projects it onto the plane (p = x - min(0, phi) n), so along the plane the global step is
 *   (m/h^2 + w) x_{k+1} = m y/h^2 + w x_k,
 * a linear iteration with error factor rho = w / (m/h^2 + w) toward the fixed point y. From a guess
 * off y by delta along the plane:
 *   plain PD: e_k = rho^k delta;
 *   Chebyshev (Wang 2015) with the exact -pd_rho, -pd_gamma 1 and -pd_chebyshev_delay 2 is the
 *   Chebyshev semi-iterative method of Golub and Varga (one plain step, then omega_2 = 2/(2 - rho^2),
 *   omega_{k+1} = 4/(4 - rho^2 omega_k)): e_k = delta / T_k(1/rho), T_k the Chebyshev polynomial. */
static PetscReal PDTangentialError(SimRegistry reg, SimModel model, const char *opts, PetscInt k, PetscReal h, const PetscReal *y,
                                   PetscReal delta)
{
  char all[256];
  SimProblem problem;
  SimSolver s;
  PetscReal x[3] = {y[0] + delta, y[1], y[2]};

  CHECK_PETSC(PetscSNPrintf(all, sizeof(all), "-plane_stiffness 1e5 -pd_rtol 0 -pd_iterations %d %s", (int)k, opts));
  CHECK_PETSC(TestSetOptions(all));
  CHECK_PETSC(SimMeshProblemCreateFromModel(reg, model, &problem));
  CHECK_PETSC(SimSolverCreate(reg, "pd", problem, &s));
  CHECK_PETSC(SimSolverSetFromOptions(s));
  CHECK_PETSC(SimPDMinimize(s, h, y, x, NULL));
  CHECK_PETSC(SimSolverDestroy(&s));
  CHECK_PETSC(SimProblemDestroy(&problem));
  return x[0] - y[0];
}

START_TEST(pd_iterations_are_the_linear_theory)
{
  const PetscReal m = 1, w = 1e5, h = 0.01, rho = w / (m / (h * h) + w), delta = 0.01, xyz[3] = {0, -0.1, 0};
  SimRegistry reg;
  SimModel model;
  SimEnergy term;
  char opts[128];

  CHECK_PETSC(TestSetOptions("-plane_stiffness 1e5"));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &model));
  CHECK_PETSC(SimModelSetVertices(model, 1, xyz));
  CHECK_PETSC(SimModelSetVertexMass(model, 0, m));
  CHECK_PETSC(VecAssemblyBegin(model->mass));
  CHECK_PETSC(VecAssemblyEnd(model->mass));
  CHECK_PETSC(SimEnergyCreate_Plane(model, "plane_", &term));
  CHECK_PETSC(SimModelAddTerm(model, term));
  CHECK_PETSC(SimModelFinalize(model));
  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-pd_chebyshev -pd_rho %.17g -pd_gamma 1 -pd_chebyshev_delay 2", rho));
  for (PetscInt k = 1; k <= 8; k++) {
    const PetscReal plain = PDTangentialError(reg, model, "", k, h, xyz, delta);
    const PetscReal cheb = PDTangentialError(reg, model, opts, k, h, xyz, delta);
    const PetscReal Tk = PetscCoshReal(k * PetscLogReal(1 / rho + PetscSqrtReal(1 / (rho * rho) - 1))); /* T_k(1/rho) */
    ck_assert_msg(PetscAbsReal(plain - delta * PetscPowRealInt(rho, k)) < 1e-12 * delta,
                  "plain PD, %d iterations: error %.15g, theory rho^k delta = %.15g", (int)k, (double)plain,
                  (double)(delta * PetscPowRealInt(rho, k)));
    ck_assert_msg(PetscAbsReal(cheb - delta / Tk) < 1e-12 * delta,
                  "Chebyshev PD, %d iterations: error %.15g, theory delta / T_k(1/rho) = %.15g", (int)k, (double)cheb,
                  (double)(delta / Tk));
  }
  CHECK_PETSC(SimModelDestroy(&model));
  CHECK_PETSC(SimRegistryDestroy(&reg));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("schemes");
  TCase *tc = tcase_create("by_hand");
  tcase_add_test(tc, verlet_steps_by_hand);
  tcase_add_test(tc, armijo_cuts_a_step_without_decrease);
  tcase_add_test(tc, pd_iterations_are_the_linear_theory);
  suite_add_tcase(s, tc);
  return s;
}
