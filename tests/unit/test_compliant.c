/* Unit tests of the compliant solver (solvers/compliant, Tournier et al. 2015) and of the scalar
 * constraint forms it runs (energy.h cons_*): the stiff limit keeps the constraints, compliance 1/k
 * is the linearly implicit Euler step, Newton iterations reach implicit Euler, the constraint
 * gradients and second derivatives match finite differences, and bad input is refused by name. */
#include <string.h>
#include "testing.h"
#include "energies/springs.h"
#include "energies/volume.h"
#include "energies/bending.h"
#include "energies/attachments.h"

/* Runs `steps` steps of dt of scene/solver/opts and returns the final positions (3 nv, malloc'd)
 * and, when x0 != NULL, the initial ones. */
static PetscErrorCode Run(const char *scene, const char *solver, const char *opts, PetscInt steps, PetscReal dt, PetscReal **x0, PetscReal **xf, PetscInt *n)
{
  TestSim t;
  const PetscReal *x;
  SimStepOutcome outcome;

  PetscFunctionBeginUser;
  PetscCall(TestSimCreate(scene, solver, opts, &t));
  *n = 3 * t.model->nv;
  PetscCall(VecGetArrayRead(t.model->x, &x));
  if (x0) {
    PetscCall(PetscMalloc1(*n, x0));
    PetscCall(PetscArraycpy(*x0, x, *n));
  }
  PetscCall(VecRestoreArrayRead(t.model->x, &x));
  for (PetscInt k = 0; k < steps; k++) {
    PetscCall(SimSolverStep(t.solver, dt, &outcome));
    PetscCheck(outcome == SIM_STEP_OK, PETSC_COMM_SELF, PETSC_ERR_CONV_FAILED, "%s %s: step %" PetscInt_FMT " outcome %d", solver, opts, k, (int)outcome);
  }
  PetscCall(PetscMalloc1(*n, xf));
  PetscCall(VecGetArrayRead(t.model->x, &x));
  PetscCall(PetscArraycpy(*xf, x, *n));
  PetscCall(VecRestoreArrayRead(t.model->x, &x));
  PetscCall(TestSimDestroy(&t));
  PetscFunctionReturn(0);
}

/* max |x_a - x_b| / max |x_b - x_0| after `steps` steps of two runs of the same scene. */
static PetscErrorCode Gap(const char *scene, const char *sa, const char *oa, const char *sb, const char *ob, PetscInt steps, PetscReal dt, PetscReal *rel)
{
  PetscReal *x0, *xa, *xb, num = 0, den = 0;
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(Run(scene, sa, oa, steps, dt, NULL, &xa, &n));
  PetscCall(Run(scene, sb, ob, steps, dt, &x0, &xb, &n));
  for (PetscInt i = 0; i < n; i++) num = PetscMax(num, PetscAbsReal(xa[i] - xb[i])), den = PetscMax(den, PetscAbsReal(xb[i] - x0[i]));
  *rel = num / den;
  PetscCall(PetscFree(x0));
  PetscCall(PetscFree(xa));
  PetscCall(PetscFree(xb));
  PetscFunctionReturn(0);
}

/* max |C| of the term `name`'s constraints at the end of a run (lengths minus rest lengths for springs). */
static PetscErrorCode Violation(const char *scene, const char *opts, const char *name, PetscInt steps, PetscReal dt, PetscReal *viol)
{
  TestSim t;
  SimEnergy e;
  PetscInt nc, nvert, *idx;
  PetscReal *C, *G;
  const PetscReal *x;

  PetscFunctionBeginUser;
  PetscCall(TestSimCreate(scene, "compliant", opts, &t));
  for (PetscInt k = 0; k < steps; k++) PetscCall(SimSolverStep(t.solver, dt, NULL));
  PetscCall(SimModelFindTerm(t.model, name, &e));
  PetscCall(e->ops.cons_count(e, &nc, &nvert));
  PetscCall(PetscMalloc3(nc, &idx, nc, &C, 3 * nvert * nc, &G));
  for (PetscInt c = 0; c < nc; c++) idx[c] = c;
  PetscCall(VecGetArrayRead(t.model->x, &x));
  PetscCall(e->ops.cons_eval(e, x, nc, idx, C, G));
  PetscCall(VecRestoreArrayRead(t.model->x, &x));
  *viol = 0;
  for (PetscInt c = 0; c < nc; c++) *viol = PetscMax(*viol, PetscAbsReal(C[c]));
  PetscCall(PetscFree3(idx, C, G));
  PetscCall(TestSimDestroy(&t));
  PetscFunctionReturn(0);
}

/* (a) The stiff limit. With compliance 0 and the linearized solve iterated to convergence, a chain
 * swinging down under gravity and a cloth of structural springs falling from a corner keep every edge at its rest
 * length to solver tolerance (1e-10 m), and a compliance c -> 0 approaches that hard solution
 * (the gap falls in proportion to c). */
START_TEST(stiff_limit_is_hard)
{
  const char *it = "-compliant_max_it 40 -compliant_rtol 1e-13";
  const char *rope = "-rope_n 12 -rope_k 1e3";
  /* lying flat, pinned at one corner (two pinned corners would make the straight row of hard edges
   * between them redundant: a singular KKT matrix, docs/compliant.md) */
  const char *cloth = "-cloth_n 6 -cloth_k_shear 0 -cloth_k_bend 0 -cloth_pin none -cloth_pin_vertices 35";
  char o[512], o2[512];
  PetscReal viol, g1, g2;

  CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "%s %s -compliant_compliance 0", rope, it));
  CHECK_PETSC(Violation("rope", o, "spring", 30, 0.01, &viol));
  ck_assert_msg(viol < 1e-10, "rope, hard: an edge is off its rest length by %g m", (double)viol);
  CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "%s %s -compliant_compliance 0", cloth, it));
  CHECK_PETSC(Violation("cloth", o, "spring", 20, 0.01, &viol));
  ck_assert_msg(viol < 1e-10, "cloth, hard: an edge is off its rest length by %g m", (double)viol);
  /* compliance 1e-6 and 1e-8 m/N against 0 */
  CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "%s %s -compliant_compliance 1e-6", rope, it));
  CHECK_PETSC(PetscSNPrintf(o2, sizeof(o2), "%s %s -compliant_compliance 0", rope, it));
  CHECK_PETSC(Gap("rope", "compliant", o, "compliant", o2, 30, 0.01, &g1));
  CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "%s %s -compliant_compliance 1e-8", rope, it));
  CHECK_PETSC(Gap("rope", "compliant", o, "compliant", o2, 30, 0.01, &g2));
  ck_assert_msg(g2 < 1e-5 && g2 < 0.03 * g1, "rope: compliance 1e-6 is %g from hard, 1e-8 is %g (expected ~100x less)", (double)g1, (double)g2);
}
END_TEST

/* (b) The link to implicit Euler.
 * 1. With c = 1/k and the geometric stiffness at the multipliers lambda = -phi(x_n)/c, the KKT system
 *    eliminated for mu is (M + h^2 (k J^T J - k phi d2phi)) v = M v_n + h f(x_n): the matrix is
 *    M + h^2 K with K the exact Hessian of the spring energy, i.e. the linearly implicit (Baraff-Witkin)
 *    Euler step. Same map each step, so a trajectory agrees to round-off; with the geometric blocks
 *    projected onto PSD (-compliant_geometric_psd, dropped for compressed springs) it is the step with
 *    the projected spring Hessian (-linearized_psd 1), without, the one with the exact Hessian.
 * 2. The Schur complement (CHOLMOD) and the KKT (MUMPS) solve the same system without K~.
 * 3. Iterating the linearization (Newton on M (v - v_n) = h f_ext + h J^T lambda, phi + c lambda = 0)
 *    converges to implicit Euler on the energy sum phi^2 / (2c): the Newton minimizer's trajectory. */
START_TEST(compliance_is_implicit_euler)
{
  const char *cloth = "-cloth_n 6 -cloth_k_struct 300";
  char o[512], o2[512];
  PetscReal g, gnewton, gone;

  for (int psd = 0; psd < 2; psd++) {
    CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "%s -compliant_geometric_psd %d", cloth, psd));
    CHECK_PETSC(PetscSNPrintf(o2, sizeof(o2), "%s -linearized_psd %d -linearized_beta 1", cloth, psd));
    CHECK_PETSC(Gap("cloth", "compliant", o, "linearized_implicit", o2, 10, 0.02, &g));
    ck_assert_msg(g < 1e-10, "compliant (c = 1/k, psd %d) vs linearized implicit Euler: gap %g of the motion", psd, (double)g);
  }
  CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "%s -compliant_geometric_stiffness 0 -compliant_solve schur", cloth));
  CHECK_PETSC(PetscSNPrintf(o2, sizeof(o2), "%s -compliant_geometric_stiffness 0", cloth));
  CHECK_PETSC(Gap("cloth", "compliant", o, "compliant", o2, 10, 0.02, &g));
  ck_assert_msg(g < 1e-10, "Schur complement vs KKT: gap %g of the motion", (double)g);
  CHECK_PETSC(PetscSNPrintf(o2, sizeof(o2), "%s -newton_rtol 0 -newton_atol 1e-12 -newton_vtol 0 -newton_max_it 100", cloth));
  CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "%s -compliant_max_it 30 -compliant_rtol 1e-13", cloth));
  CHECK_PETSC(Gap("cloth", "compliant", o, "implicit_euler", o2, 5, 0.02, &gnewton));
  CHECK_PETSC(Gap("cloth", "compliant", cloth, "implicit_euler", o2, 5, 0.02, &gone));
  ck_assert_msg(gnewton < 1e-8 && gnewton < 1e-4 * gone, "compliant iterated vs implicit Euler: gap %g (one solve per step: %g)", (double)gnewton, (double)gone);
}
END_TEST

/* Isometric bending (Bergou et al. 2006) on the spring cloth (-cloth_isometric_bending): the term is
 * there, and the iterated compliant step reaches implicit Euler on springs + bending as well. */
START_TEST(isometric_bending_cloth)
{
  const char *cloth = "-cloth_n 6 -cloth_k_struct 300 -cloth_k_bend 0 -cloth_isometric_bending 1e-2";
  char o[512], o2[512];
  PetscReal g;
  TestSim t;
  SimEnergy e;

  CHECK_PETSC(TestSimCreate("cloth", NULL, cloth, &t));
  CHECK_PETSC(SimModelFindTerm(t.model, "bending", &e));
  ck_assert_msg(e && e->ops.cons_count && e->ops.pd_count, "the cloth has no isometric bending term with its constraint forms");
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(PetscSNPrintf(o, sizeof(o), "%s -compliant_max_it 30 -compliant_rtol 1e-13", cloth));
  CHECK_PETSC(PetscSNPrintf(o2, sizeof(o2), "%s -newton_rtol 0 -newton_atol 1e-12 -newton_vtol 0 -newton_max_it 100", cloth));
  CHECK_PETSC(Gap("cloth", "compliant", o, "implicit_euler", o2, 5, 0.02, &g));
  ck_assert_msg(g < 1e-8, "springs + isometric bending: compliant iterated vs implicit Euler, gap %g", (double)g);
}
END_TEST

/* (c) Finite differences, on every term with scalar constraints: E = sum w/2 C^2 (the term's value),
 * grad C (cons_eval) is the central difference of C, d2C (cons_hessian) that of grad C, and the
 * geometric stiffness sum lambda d2C applied to a direction u is the difference of J^T lambda along u. */
static void CheckConstraintDerivatives(SimEnergy e, PetscInt nv, const PetscReal *x0)
{
  const PetscReal eps = 1e-6;
  PetscInt nc, nvert, *idx, *vert;
  PetscReal *C, *G, *Cp, *Gp, *Cm, *Gm, *H = NULL, *w, *x, E, Ec = 0, *lam, *u, *Ku, *JLp, *JLm, eg = 0, eh = 0, ek = 0, scale = 0;

  CHECK_PETSC(e->ops.cons_count(e, &nc, &nvert));
  const PetscInt N = 3 * nvert;
  CHECK_PETSC(PetscMalloc6(nc, &idx, nc, &C, nc * N, &G, nc, &Cp, nc * N, &Gp, nc, &Cm));
  CHECK_PETSC(PetscMalloc6(nc * N, &Gm, nc, &w, 3 * nv, &x, nc * nvert, &vert, nc, &lam, 3 * nv, &u));
  CHECK_PETSC(PetscMalloc3(3 * nv, &Ku, 3 * nv, &JLp, 3 * nv, &JLm));
  if (e->ops.cons_hessian) CHECK_PETSC(PetscMalloc1(nc * N * N, &H));
  for (PetscInt c = 0; c < nc; c++) idx[c] = c, lam[c] = 0.3 + 0.1 * (c % 7) - 0.05 * (c % 3);
  for (PetscInt i = 0; i < 3 * nv; i++) x[i] = x0[i], u[i] = PetscSinReal(1.7 * i + 0.3);
  CHECK_PETSC(e->ops.cons_stencil(e, vert, w));
  CHECK_PETSC(e->ops.cons_eval(e, x, nc, idx, C, G));
  CHECK_PETSC(e->ops.value(e, x, NULL, &E));
  for (PetscInt c = 0; c < nc; c++) Ec += 0.5 * w[c] * C[c] * C[c];
  ck_assert_msg(PetscAbsReal(E - Ec) <= 1e-12 * PetscAbsReal(E) + 1e-15, "%s: value %.15g but sum w/2 C^2 = %.15g", e->name, (double)E, (double)Ec);
  if (H) CHECK_PETSC(e->ops.cons_hessian(e, x, nc, idx, H));
  for (PetscInt i = 0; i < 3 * nv; i++) Ku[i] = 0;
  if (H)
    for (PetscInt c = 0; c < nc; c++)
      for (PetscInt r = 0; r < N; r++)
        for (PetscInt t = 0; t < N; t++) Ku[3 * vert[c * nvert + r / 3] + r % 3] += lam[c] * H[(c * N + r) * N + t] * u[3 * vert[c * nvert + t / 3] + t % 3];
  /* per coordinate of each stencil vertex: C and grad C by central differences */
  for (PetscInt c = 0; c < nc; c++)
    for (PetscInt t = 0; t < N; t++) {
      const PetscInt dof = 3 * vert[c * nvert + t / 3] + t % 3;
      const PetscReal keep = x[dof];
      x[dof] = keep + eps;
      CHECK_PETSC(e->ops.cons_eval(e, x, 1, &idx[c], Cp, Gp));
      x[dof] = keep - eps;
      CHECK_PETSC(e->ops.cons_eval(e, x, 1, &idx[c], Cm, Gm));
      x[dof] = keep;
      eg = PetscMax(eg, PetscAbsReal((Cp[0] - Cm[0]) / (2 * eps) - G[c * N + t]));
      for (PetscInt r = 0; r < N; r++) {
        const PetscReal fd = (Gp[r] - Gm[r]) / (2 * eps), an = H ? H[(c * N + r) * N + t] : 0;
        eh = PetscMax(eh, PetscAbsReal(fd - an));
        scale = PetscMax(scale, PetscAbsReal(an));
      }
    }
  /* K~ u against (J^T lambda)(x + eps u) - (J^T lambda)(x - eps u) */
  for (int sgn = 1; sgn >= -1; sgn -= 2) {
    PetscReal *JL = sgn > 0 ? JLp : JLm;
    for (PetscInt i = 0; i < 3 * nv; i++) x[i] = x0[i] + sgn * eps * u[i], JL[i] = 0;
    CHECK_PETSC(e->ops.cons_eval(e, x, nc, idx, C, G));
    for (PetscInt c = 0; c < nc; c++)
      for (PetscInt r = 0; r < N; r++) JL[3 * vert[c * nvert + r / 3] + r % 3] += lam[c] * G[c * N + r];
  }
  for (PetscInt i = 0; i < 3 * nv; i++) ek = PetscMax(ek, PetscAbsReal((JLp[i] - JLm[i]) / (2 * eps) - Ku[i]));
  ck_assert_msg(eg < 1e-7, "%s: grad C differs from finite differences by %g", e->name, (double)eg);
  ck_assert_msg(eh < 1e-6 * PetscMax(scale, 1), "%s: d2C differs from finite differences by %g (largest entry %g)", e->name, (double)eh, (double)scale);
  ck_assert_msg(ek < 1e-6 * PetscMax(scale, 1), "%s: geometric stiffness times u differs from the difference of J^T lambda by %g", e->name, (double)ek);
  CHECK_PETSC(PetscFree6(idx, C, G, Cp, Gp, Cm));
  CHECK_PETSC(PetscFree6(Gm, w, x, vert, lam, u));
  CHECK_PETSC(PetscFree3(Ku, JLp, JLm));
  CHECK_PETSC(PetscFree(H));
}

START_TEST(constraint_derivatives)
{
  /* a bent, stretched 3 x 3 grid: 8 triangles; springs on some edges, hinges, attachments; a tet */
  PetscReal rest[27], x[27];
  PetscInt tri[24], k = 0;
  const PetscInt pair[8] = {0, 1, 1, 4, 4, 8, 2, 6}, avert[2] = {0, 5}, tet[4] = {0, 3, 1, 4};
  const PetscReal kk[4] = {10, 20, 30, 40}, target[6] = {0.1, 0.2, 0.3, 1, 1, 0}, ka[2] = {5, 7};
  PetscReal L[4];
  SimEnergy e;

  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++) {
      const PetscInt v = 3 * j + i;
      rest[3 * v] = 0.5 * i, rest[3 * v + 1] = 0, rest[3 * v + 2] = 0.5 * j;
      x[3 * v] = 0.55 * i + 0.02 * j, x[3 * v + 1] = 0.1 * PetscSinReal(1.3 * i + 0.7 * j) + 0.05 * i * j, x[3 * v + 2] = 0.48 * j + 0.03 * i;
    }
  rest[3 * 4 + 1] = 0.2; /* a tet needs a vertex off the plane */
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < 2; i++) {
      const PetscInt v = 3 * j + i;
      tri[k++] = v, tri[k++] = v + 1, tri[k++] = v + 4;
      tri[k++] = v, tri[k++] = v + 4, tri[k++] = v + 3;
    }
  for (int s = 0; s < 4; s++) {
    PetscReal dd = 0;
    for (int c = 0; c < 3; c++) dd += PetscSqr(rest[3 * pair[2 * s] + c] - rest[3 * pair[2 * s + 1] + c]);
    L[s] = PetscSqrtReal(dd);
  }
  CHECK_PETSC(SimSpringsCreate("spring", 4, pair, L, kk, &e));
  CheckConstraintDerivatives(e, 9, x);
  CHECK_PETSC(SimEnergyDestroy(&e));
  rest[3 * 4 + 1] = 0; /* the quadratic bending model needs a flat rest state */
  CHECK_PETSC(SimBendingCreate("bending", 9, rest, 8, tri, 1e-2, &e));
  rest[3 * 4 + 1] = 0.2;
  CheckConstraintDerivatives(e, 9, x);
  CHECK_PETSC(SimEnergyDestroy(&e));
  CHECK_PETSC(SimAttachmentsCreate("attachment", 9, 2, avert, target, ka, &e));
  CheckConstraintDerivatives(e, 9, x);
  CHECK_PETSC(SimEnergyDestroy(&e));
  CHECK_PETSC(SimVolumeCreate("volume", 9, rest, 1, tet, 1e3, &e));
  CheckConstraintDerivatives(e, 9, x);
  CHECK_PETSC(SimEnergyDestroy(&e));
}
END_TEST

START_TEST(bad_input)
{
  const struct {
    const char *scene, *opts, *expect;
    PetscBool setup; /* SetUp too (else SetFromOptions only) */
  } cases[] = {
    {"cloth", "-cloth_n 4 -compliant_compliance -1", "-compliant_compliance", 0},
    {"cloth", "-cloth_n 4 -compliant_spring_compliance -0.5", "-compliant_spring_compliance", 1},
    {"cloth", "-cloth_n 4 -compliant_max_it 0", "-compliant_max_it", 0},
    {"cloth", "-cloth_n 4 -compliant_solve schur", "-compliant_geometric_stiffness 0", 0},
    {"cloth", "-cloth_n 4 -cloth_model fem", "'triangles'", 1},
    {"cloth", "-cloth_n 4 -cloth_damping 0.5", "damping is not supported", 1},
    {"beam", "-beam_n 3 -beam_nw 1", "no scalar constraint form", 1},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    PetscErrorCode ierr;
    TestErrorCapture cap;
    CHECK_PETSC(TestSolverError(cases[c].scene, "compliant", cases[c].opts, cases[c].setup, &ierr, &cap));
    ck_assert_msg(ierr != 0 && strstr(cap.msg, cases[c].expect), "%s: message '%s'", cases[c].opts, cap.msg);
  }
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("compliant");
  TCase *tc = tcase_create("compliant");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, stiff_limit_is_hard);
  tcase_add_test(tc, compliance_is_implicit_euler);
  tcase_add_test(tc, isometric_bending_cloth);
  tcase_add_test(tc, constraint_derivatives);
  tcase_add_test(tc, bad_input);
  suite_add_tcase(s, tc);
  return s;
}
