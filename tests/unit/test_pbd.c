/* Unit tests of the pbd and xpbd solvers (solvers/pbd): the PBD distance projection with its mass
 * weights, momentum, a valid colouring, XPBD's convergence to implicit Euler (one step with many
 * iterations; many substeps of one iteration), the static sag's independence of iterations and dt
 * under XPBD (and its dependence under PBD), and the refusal of bad options and terms. */
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "framework/newton/newton.h"
#include "solvers/pbd/pbd_impl.h"
#include "energies/springs.h"
#include "energies/volume.h"
#include "energies/energies.h"

/* ---- the PBD distance constraint on two particles ---- */

/* Two particles of masses m0, m1 at distance 1.5 joined by a spring of rest length 1: one PBD
 * iteration (Müller et al. 2007, eq. 10-11) moves them to distance 1 exactly, particle i by
 * w_i/(w_0 + w_1) of the error (w = 1/m; so x_1 by m_0/(m_0 + m_1), the seed note's erratum), and
 * keeps the centre of mass. */
START_TEST(distance_projection)
{
  SimRegistry reg;
  SimModel m;
  SimProblem p;
  SimSolver s;
  SimEnergy term;
  const PetscReal xyz[6] = {0, 0, 0, 1.5, 0, 0}, rest = 1, k = 100, m0 = 1, m1 = 3;
  const PetscInt pair[2] = {0, 1};
  const PetscReal *x;

  CHECK_PETSC(TestSetOptions("-pbd_iterations 1 -pbd_substeps 1"));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &m));
  CHECK_PETSC(SimModelSetVertices(m, 2, xyz));
  CHECK_PETSC(SimModelSetVertexMass(m, 0, m0));
  CHECK_PETSC(SimModelSetVertexMass(m, 1, m1));
  CHECK_PETSC(SimSpringsCreate("spring", 1, pair, &rest, &k, &term));
  CHECK_PETSC(SimModelAddTerm(m, term));
  CHECK_PETSC(SimModelFinalize(m));
  CHECK_PETSC(SimMeshProblemCreateFromModel(reg, m, &p));
  CHECK_PETSC(SimSolverCreate(reg, "pbd", p, &s));
  CHECK_PETSC(SimSolverSetFromOptions(s));
  CHECK_PETSC(SimSolverStep(s, 0.01, NULL));
  CHECK_PETSC(VecGetArrayRead(m->x, &x));
  ck_assert_msg(PetscAbsReal(x[3] - x[0] - rest) < 1e-14, "distance after one projection %.16g, rest 1", (double)(x[3] - x[0]));
  ck_assert_msg(PetscAbsReal(x[0] - 0.5 * m1 / (m0 + m1)) < 1e-14, "x0 moved %g, expected %g", (double)x[0], 0.5 * m1 / (m0 + m1));
  ck_assert_msg(PetscAbsReal(m0 * x[0] + m1 * x[3] - m1 * 1.5) < 1e-13, "centre of mass moved");
  CHECK_PETSC(VecRestoreArrayRead(m->x, &x));
  CHECK_PETSC(SimSolverDestroy(&s));
  CHECK_PETSC(SimProblemDestroy(&p));
  CHECK_PETSC(SimModelDestroy(&m));
  CHECK_PETSC(SimRegistryDestroy(&reg));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* ---- colouring and momentum ---- */

/* In every colour of every term, no two constraints share a vertex that is not pinned, and every
 * constraint has exactly one colour. */
static void CheckColouring(const char *scene, const char *opts)
{
  TestSim t;
  const char *name;
  PetscInt ncolor, nvert, nterms = 0;
  const PetscInt *off, *order, *vert;

  CHECK_PETSC(TestSimCreate(scene, "xpbd", opts, &t));
  CHECK_PETSC(SimSolverSetUp(t.solver));
  for (PetscInt k = 0;; k++) {
    PetscInt *owner, nc;
    PetscBool *seen;
    PetscErrorCode ierr;
    CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SimPBDGetColouring(t.solver, k, &name, &ncolor, &off, &order, &nvert, &vert);
    CHECK_PETSC(PetscPopErrorHandler());
    if (ierr) break;
    nterms++;
    nc = off[ncolor];
    ck_assert_msg(ncolor >= 2, "%s: term %s has %d colours", scene, name, (int)ncolor);
    CHECK_PETSC(PetscMalloc2(t.model->nv, &owner, nc, &seen));
    for (PetscInt c = 0; c < nc; c++) seen[c] = PETSC_FALSE;
    for (PetscInt col = 0; col < ncolor; col++) {
      for (PetscInt i = 0; i < t.model->nv; i++) owner[i] = -1;
      for (PetscInt q = off[col]; q < off[col + 1]; q++) {
        PetscInt c = order[q];
        ck_assert_msg(!seen[c], "%s: constraint %d of %s listed twice", scene, (int)c, name);
        seen[c] = PETSC_TRUE;
        for (PetscInt a = 0; a < nvert; a++) {
          PetscInt v = vert[c * nvert + a];
          if (t.model->pinned[v]) continue;
          ck_assert_msg(owner[v] < 0, "%s: term %s, colour %d: constraints %d and %d share vertex %d", scene, name, (int)col, (int)owner[v], (int)c,
                        (int)v);
          owner[v] = c;
        }
      }
    }
    for (PetscInt c = 0; c < nc; c++) ck_assert_msg(seen[c], "%s: constraint %d of %s has no colour", scene, (int)c, name);
    CHECK_PETSC(PetscFree2(owner, seen));
  }
  ck_assert_msg(nterms > 0, "%s: no constraint terms", scene);
  CHECK_PETSC(TestSimDestroy(&t));
}

START_TEST(colouring_valid)
{
  CheckColouring("cloth", "-cloth_n 7");
  CheckColouring("cloth", "-cloth_n 6 -cloth_model fem");
  CheckColouring("beam", "-beam_n 5 -beam_nw 2 -beam_material arap");
  CheckColouring("beam", "-beam_n 5 -beam_nw 2 -beam_material arap -beam_tets_per_cell 5");
}
END_TEST

/* A free cloth without gravity, thrown with a velocity: the internal constraints keep the linear
 * momentum (each correction's rows sum to zero over its stencil) with Gauss-Seidel and Jacobi. */
static void CheckMomentum(const char *solver, const char *extra)
{
  TestSim t;
  char opts[512];
  SimEnergyReport r0, r1;
  PetscScalar *v;

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-cloth_n 6 -cloth_pin none -gravity 0,0,0 -pbd_iterations 3 %s", extra));
  CHECK_PETSC(TestSimCreate("cloth", solver, opts, &t));
  CHECK_PETSC(VecGetArray(t.model->v, &v));
  for (PetscInt i = 0; i < t.model->nv; i++) v[3 * i] = 1.0 + 0.3 * (i % 5), v[3 * i + 1] = 0.5 * (i % 3), v[3 * i + 2] = -0.2 * (i % 7);
  CHECK_PETSC(VecRestoreArray(t.model->v, &v));
  CHECK_PETSC(SimSolverEnergy(t.solver, &r0));
  for (int k = 0; k < 10; k++) CHECK_PETSC(SimSolverStep(t.solver, 0.01, NULL));
  CHECK_PETSC(SimSolverEnergy(t.solver, &r1));
  CHECK_PETSC(SimSolverEnergy(t.solver, &r1));
  ck_assert_msg(r1.potential > 1e-6, "%s %s: the constraints did nothing (potential %g)", solver, extra, (double)r1.potential);
  for (int d = 0; d < 3; d++)
    ck_assert_msg(PetscAbsReal(r1.momentum[d] - r0.momentum[d]) < 1e-12 * (1 + PetscAbsReal(r0.momentum[d])), "%s %s: momentum %d %g -> %g", solver,
                  extra, d, (double)r0.momentum[d], (double)r1.momentum[d]);
  CHECK_PETSC(TestSimDestroy(&t));
}

START_TEST(momentum_conserved)
{
  CheckMomentum("xpbd", "");
  CheckMomentum("xpbd", "-pbd_method jacobi");
  CheckMomentum("pbd", "");
  CheckMomentum("pbd", "-pbd_method jacobi -pbd_omega 1.5");
}
END_TEST

/* ---- XPBD converges to implicit Euler ---- */

/* Newton's minimizer of the implicit-Euler incremental potential from the model's state (x_n, v_n):
 * y = x_n + h v_n, pins at x_n. xs: 3*nv. */
static PetscErrorCode NewtonStep(SimModel m, PetscReal h, PetscReal *xs)
{
  SimNewton nt;
  SimStepStats st;
  Vec xv;
  PetscReal *a, *xn, *y;
  const PetscReal *x, *v;
  const PetscInt n = 3 * m->nv;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n, &xn, n, &y));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArrayRead(m->v, &v));
  for (PetscInt i = 0; i < n; i++) xn[i] = x[i], y[i] = x[i] + h * v[i];
  PetscCall(VecRestoreArrayRead(m->v, &v));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscCall(SimNewtonCreate(m, "newton_", &nt));
  PetscCall(SimNewtonSetFromOptions(nt));
  PetscCall(VecDuplicate(m->x, &xv));
  PetscCall(VecGetArray(xv, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = m->pinned[i / 3] ? xn[i] : y[i];
  PetscCall(VecRestoreArray(xv, &a));
  PetscCall(SimNewtonMinimize(nt, h, y, xn, xn, xv, &st));
  PetscCheck(st.residual < 1e-8, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Newton reference residual %g", (double)st.residual);
  PetscCall(VecGetArray(xv, &a));
  PetscCall(PetscArraycpy(xs, a, n));
  PetscCall(VecRestoreArray(xv, &a));
  PetscCall(VecDestroy(&xv));
  PetscCall(SimNewtonDestroy(&nt));
  PetscCall(PetscFree2(xn, y));
  PetscFunctionReturn(0);
}

/* From a cloth swinging after a few implicit-Euler steps: one XPBD step of one substep with
 * `iterations` sweeps, against Newton's step from the same state. *rel = max |x - x*| / max |x* - x_n|. */
static PetscErrorCode OneStepVsNewton(const char *scene, const char *scene_opts, const char *method, PetscInt iterations, PetscReal h, PetscReal *rel)
{
  TestSim t;
  SimSolver ie;
  char opts[1024];
  PetscReal *xs, *xn, num = 0, den = 0;
  const PetscReal *x;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts),
                          "%s -pbd_substeps 1 -pbd_iterations %" PetscInt_FMT " -pbd_method %s -newton_rtol 0 -newton_atol 1e-11 -newton_vtol 0 "
                          "-newton_max_it 200",
                          scene_opts, iterations, method));
  PetscCall(TestSimCreate(scene, "xpbd", opts, &t));
  PetscCall(SimSolverCreate(t.reg, "implicit_euler", t.problem, &ie));
  PetscCall(SimSolverSetFromOptions(ie));
  for (int k = 0; k < 6; k++) PetscCall(SimSolverStep(ie, 0.02, NULL));
  PetscCall(SimSolverDestroy(&ie));
  PetscCall(PetscMalloc2(3 * t.model->nv, &xs, 3 * t.model->nv, &xn));
  PetscCall(VecGetArrayRead(t.model->x, &x));
  PetscCall(PetscArraycpy(xn, x, 3 * t.model->nv));
  PetscCall(VecRestoreArrayRead(t.model->x, &x));
  PetscCall(NewtonStep(t.model, h, xs));
  PetscCall(SimSolverStep(t.solver, h, NULL));
  PetscCall(VecGetArrayRead(t.model->x, &x));
  for (PetscInt i = 0; i < 3 * t.model->nv; i++) {
    num = PetscMax(num, PetscAbsReal(x[i] - xs[i]));
    den = PetscMax(den, PetscAbsReal(xs[i] - xn[i]));
  }
  PetscCall(VecRestoreArrayRead(t.model->x, &x));
  *rel = num / den;
  PetscCall(PetscFree2(xs, xn));
  PetscCall(TestSimDestroy(&t));
  PetscFunctionReturn(0);
}

/* A converged XPBD step is a converged implicit-Euler step on the same energy: the error to
 * Newton's minimizer falls with the iteration count and vanishes, for springs, for the membrane +
 * bending cloth, with soft attachments, with a sphere collider and for ARAP tets (a stiff cantilever),
 * by Gauss-Seidel (to 1e-7 of the step's motion) and by Jacobi (slower: to 1e-5 in 20000 sweeps). */
START_TEST(converges_to_newton)
{
  const char *names[] = {"cloth", "cloth", "cloth", "cloth", "beam", "cloth"};
  const char *scenes[] = {"-cloth_n 6 -cloth_k_struct 300", "-cloth_n 6 -cloth_model fem -cloth_mu 300 -cloth_bending 1e-3",
                          "-cloth_n 6 -cloth_k_struct 300 -cloth_pin none -cloth_attach corners -cloth_attach_stiffness 1e3",
                          "-cloth_n 6 -cloth_k_struct 300 -colliders sphere -sphere_center 0,-0.45,0.2 -sphere_radius 0.4 -sphere_stiffness 1e3",
                          "-beam_n 6 -beam_nw 2 -beam_material arap -beam_youngs 1e6",
                          "-cloth_n 6 -cloth_k_struct 300 -cloth_k_bend 0 -cloth_isometric_bending 1e-2"};
  for (size_t sc = 0; sc < sizeof(scenes) / sizeof(scenes[0]); sc++)
    for (int meth = 0; meth < 2; meth++) {
      const char *method = meth ? "jacobi" : "gauss_seidel";
      PetscReal few, many;
      CHECK_PETSC(OneStepVsNewton(names[sc], scenes[sc], method, 3, 0.02, &few));
      CHECK_PETSC(OneStepVsNewton(names[sc], scenes[sc], method, meth ? 20000 : 4000, 0.02, &many));
      ck_assert_msg(many < (meth ? 1e-5 : 1e-7) && many < 1e-3 * few, "%s, %s: XPBD differs from Newton by %g (3 iterations: %g)", scenes[sc], method, (double)many,
                    (double)few);
    }
}
END_TEST

/* max |x_a - x_b| / max |x_b - x0| over the coordinates of two runs of the same model (x0: the
 * start), and the two runs destroyed. */
static PetscErrorCode GapAndDestroy(TestSim *a, TestSim *b, PetscReal *x0, PetscReal *rel)
{
  const PetscReal *xa, *xb;
  PetscReal num = 0, den = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(a->model->x, &xa));
  PetscCall(VecGetArrayRead(b->model->x, &xb));
  for (PetscInt i = 0; i < 3 * a->model->nv; i++) {
    num = PetscMax(num, PetscAbsReal(xa[i] - xb[i]));
    den = PetscMax(den, PetscAbsReal(xb[i] - x0[i]));
  }
  PetscCall(VecRestoreArrayRead(b->model->x, &xb));
  PetscCall(VecRestoreArrayRead(a->model->x, &xa));
  *rel = num / den;
  PetscCall(PetscFree(x0));
  PetscCall(TestSimDestroy(a));
  PetscCall(TestSimDestroy(b));
  PetscFunctionReturn(0);
}

/* Small steps (Macklin et al. 2019): S substeps of one iteration each against implicit Euler with the
 * same substep dt/S, over 0.1 s of a swinging cloth: the gap shrinks as S grows and is within 1% of
 * the motion at S = 64. */
static PetscErrorCode SubstepGap(PetscInt S, PetscReal *rel)
{
  TestSim a, b;
  char opts[512];
  const PetscReal dt = 0.02;
  const PetscReal *xa;
  PetscReal *x0;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-cloth_n 6 -cloth_k_struct 300 -pbd_iterations 1 -pbd_substeps %" PetscInt_FMT, S));
  PetscCall(TestSimCreate("cloth", "xpbd", opts, &a));
  PetscCall(TestSimCreate("cloth", "implicit_euler", opts, &b));
  PetscCall(PetscMalloc1(3 * a.model->nv, &x0));
  PetscCall(VecGetArrayRead(a.model->x, &xa));
  PetscCall(PetscArraycpy(x0, xa, 3 * a.model->nv));
  PetscCall(VecRestoreArrayRead(a.model->x, &xa));
  for (int k = 0; k < 5; k++) PetscCall(SimSolverStep(a.solver, dt, NULL));
  for (PetscInt k = 0; k < 5 * S; k++) PetscCall(SimSolverStep(b.solver, dt / S, NULL));
  PetscCall(GapAndDestroy(&a, &b, x0, rel));
  PetscFunctionReturn(0);
}

START_TEST(substeps_converge_to_implicit_euler)
{
  PetscReal g4, g16, g64;

  CHECK_PETSC(SubstepGap(4, &g4));
  CHECK_PETSC(SubstepGap(16, &g16));
  CHECK_PETSC(SubstepGap(64, &g64));
  ck_assert_msg(g16 < g4 && g64 < g16 && g64 < 1e-2, "XPBD (S substeps x 1 iteration) vs implicit Euler at dt/S: %g, %g, %g for S = 4, 16, 64",
                (double)g4, (double)g16, (double)g64);
}
END_TEST

/* ---- the static sag of a hanging cloth ---- */

/* The drop of the centre of mass (m) of a cloth hanging from its top edge once it is at rest (2 s of
 * (6 s of
 * simulated time; the kinetic energy is checked to be negligible). */
static PetscErrorCode Sag(const char *solver, const char *extra, PetscReal dt, PetscReal *sag)
{
  TestSim t;
  char opts[512];
  SimEnergyReport r0, r;
  PetscReal M = 0;
  const PetscScalar *mass;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-cloth_n 6 -cloth_vertical -cloth_pin edge -cloth_k_struct 50 %s", extra));
  PetscCall(TestSimCreate("cloth", solver, opts, &t));
  PetscCall(SimSolverEnergy(t.solver, &r0));
  for (PetscInt k = 0; k < (PetscInt)(6.0 / dt + 0.5); k++) PetscCall(SimSolverStep(t.solver, dt, NULL));
  PetscCall(SimSolverEnergy(t.solver, &r));
  PetscCall(VecGetArrayRead(t.model->mass, &mass));
  for (PetscInt i = 0; i < t.model->nv; i++) M += mass[3 * i];
  PetscCall(VecRestoreArrayRead(t.model->mass, &mass));
  PetscCheck(r.kinetic < 1e-6 * M * 9.81 * 0.1, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "%s %s dt %g: not at rest (kinetic %g J)", solver, extra,
             (double)dt, (double)r.kinetic);
  {
    /* the potential holds gravity and the springs' energy: the drop is gravity's change alone */
    SimEnergy spring;
    const PetscReal *x;
    PetscReal Es;
    PetscCall(SimModelFindTerm(t.model, "spring", &spring));
    PetscCall(VecGetArrayRead(t.model->x, &x));
    PetscCall(spring->ops.value(spring, x, NULL, &Es));
    PetscCall(VecRestoreArrayRead(t.model->x, &x));
    *sag = (r0.potential - (r.potential - Es)) / (M * 9.81);
  }
  PetscCall(TestSimDestroy(&t));
  PetscFunctionReturn(0);
}

/* Acceptance 1 (issue 13): under XPBD the static sag is the same within 1% for 5, 20 and 100
 * iterations and for dt and dt/2, and it is the sag of the elastic energy (Newton's implicit Euler);
 * under PBD, whose constraints carry no physical stiffness, it changes with dt. */
START_TEST(sag_independent_of_iterations_and_dt)
{
  const PetscInt its[] = {5, 20, 100};
  const PetscReal dts[] = {0.005, 0.0025};
  PetscReal ref, sag, p1, p2;

  CHECK_PETSC(Sag("implicit_euler", "", 0.02, &ref));
  ck_assert_msg(ref > 0.01, "the sag %g m is too small to compare", (double)ref);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++) {
      char extra[128];
      CHECK_PETSC(PetscSNPrintf(extra, sizeof(extra), "-pbd_substeps 1 -pbd_iterations %" PetscInt_FMT, its[i]));
      CHECK_PETSC(Sag("xpbd", extra, dts[j], &sag));
      ck_assert_msg(PetscAbsReal(sag - ref) < 0.01 * ref, "XPBD, %d iterations, dt %g: sag %g m, implicit Euler %g m", (int)its[i], (double)dts[j],
                    (double)sag, (double)ref);
    }
  CHECK_PETSC(Sag("pbd", "-pbd_substeps 1 -pbd_iterations 20 -pbd_stiffness 0.5", dts[0], &p1));
  CHECK_PETSC(Sag("pbd", "-pbd_substeps 1 -pbd_iterations 20 -pbd_stiffness 0.5", dts[1], &p2));
  ck_assert_msg(PetscAbsReal(p1 - p2) > 0.1 * p1, "PBD's sag should change with dt: %g m and %g m", (double)p1, (double)p2);
}
END_TEST

/* ---- the PositionBasedDynamics library's bar ---- */

static int CompareFace(const void *a, const void *b)
{
  const PetscInt *f = (const PetscInt *)a, *g = (const PetscInt *)b;
  for (int k = 0; k < 3; k++)
    if (f[k] != g[k]) return f[k] < g[k] ? -1 : 1;
  return 0;
}

/* -beam_tets_per_cell 5 on 29 x 4 x 4 cells is the library's bar: 750 vertices, 2,320 tets (the
 * XPBD constraint count), all positive, filling the box exactly, and conforming: every interior
 * face is shared by two tets, so the boundary has 2 triangles per boundary square (992). */
START_TEST(bar_five_tets)
{
  TestSim t;
  const char *name;
  PetscInt ncolor, nvert, nc, *faces, nface = 0, nbound = 0;
  const PetscInt *off, *order, *tet;
  const PetscReal *x;
  PetscReal vol = 0, vmin = PETSC_MAX_REAL;

  CHECK_PETSC(TestSimCreate("beam", "xpbd", "-beam_n 29 -beam_nw 4 -beam_tets_per_cell 5 -beam_material arap -beam_length 1 -beam_width 0.2", &t));
  CHECK_PETSC(SimSolverSetUp(t.solver));
  CHECK_PETSC(SimPBDGetColouring(t.solver, 0, &name, &ncolor, &off, &order, &nvert, &tet));
  nc = off[ncolor];
  ck_assert_msg(t.model->nv == 750 && nvert == 4 && nc == 2320, "bar: %d vertices, term %s of %d constraints on %d vertices; the library's: 750, 2320 tets",
                (int)t.model->nv, name, (int)nc, (int)nvert);
  CHECK_PETSC(VecGetArrayRead(t.model->x, &x));
  CHECK_PETSC(PetscMalloc1(3 * 4 * nc, &faces));
  for (PetscInt c = 0; c < nc; c++) {
    const PetscInt *v = tet + 4 * c;
    PetscReal e[3][3], V;
    for (int a = 0; a < 3; a++)
      for (int k = 0; k < 3; k++) e[a][k] = x[3 * v[a + 1] + k] - x[3 * v[0] + k];
    V = (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) / 6;
    vol += V, vmin = PetscMin(vmin, V);
    for (int f = 0; f < 4; f++) {
      PetscInt *g = faces + 3 * nface++, m = 0;
      for (int a = 0; a < 4; a++)
        if (a != f) g[m++] = v[a];
      for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
          if (g[j] < g[i]) {
            PetscInt sw = g[i];
            g[i] = g[j], g[j] = sw;
          }
    }
  }
  CHECK_PETSC(VecRestoreArrayRead(t.model->x, &x));
  qsort(faces, nface, 3 * sizeof(PetscInt), CompareFace);
  for (PetscInt f = 0; f < nface;) {
    PetscInt m = 1;
    while (f + m < nface && !CompareFace(faces + 3 * f, faces + 3 * (f + m))) m++;
    ck_assert_msg(m <= 2, "a face is shared by %d tets", (int)m);
    if (m == 1) nbound++;
    f += m;
  }
  ck_assert_msg(vmin > 0 && PetscAbsReal(vol - 0.04) < 1e-12, "tets: smallest volume %g, total %g (the box: 0.04 m^3)", (double)vmin, (double)vol);
  ck_assert_msg(nbound == 992, "%d boundary triangles; a conforming split has 2 per boundary square (992)", (int)nbound);
  CHECK_PETSC(PetscFree(faces));
  CHECK_PETSC(TestSimDestroy(&t));
}
END_TEST

/* ---- the fused kernel of the rotation constraints ---- */

/* max |x_fused - x_generic| / max |x_generic - x_0| after `steps` steps of dt. */
static PetscErrorCode FusedGap(const char *scene, const char *solver, const char *opts, PetscInt steps, PetscReal dt, PetscReal *rel)
{
  TestSim a, b;
  char oa[512], ob[512];
  const PetscReal *xa;
  PetscReal *x0;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(oa, sizeof(oa), "%s -pbd_fused 1", opts));
  PetscCall(PetscSNPrintf(ob, sizeof(ob), "%s -pbd_fused 0", opts));
  PetscCall(TestSimCreate(scene, solver, oa, &a));
  PetscCall(TestSimCreate(scene, solver, ob, &b));
  PetscCall(PetscMalloc1(3 * a.model->nv, &x0));
  PetscCall(VecGetArrayRead(a.model->x, &xa));
  PetscCall(PetscArraycpy(x0, xa, 3 * a.model->nv));
  PetscCall(VecRestoreArrayRead(a.model->x, &xa));
  for (PetscInt k = 0; k < steps; k++) {
    PetscCall(SimSolverStep(a.solver, dt, NULL));
    PetscCall(SimSolverStep(b.solver, dt, NULL));
  }
  PetscCall(GapAndDestroy(&a, &b, x0, rel));
  PetscFunctionReturn(0);
}

/* The fused Gauss-Seidel kernel of the ARAP tets (4 constraints at a time, colours padded to
 * groups of 4, one Newton step of the rotation per sweep, a lane outside Newton's region redone by
 * SimPolar3WarmSteps) takes the same steps as the generic kernel with the term's projection, to
 * rounding: on the library's bar (2,320 tets), by XPBD with 5 substeps x 1 sweep and with 3 sweeps
 * (the multipliers carried between sweeps), by PBD; and on a soft beam at a large step, where lanes
 * take the fallback (about one tet update in 50; the quaternions written back every step). */
START_TEST(fused_rotation_kernel)
{
  const char *bar = "-beam_n 29 -beam_nw 4 -beam_tets_per_cell 5 -beam_material arap -beam_youngs 1e5";
  const char *solvers[] = {"xpbd", "xpbd", "pbd", "xpbd"};
  const char *extra[] = {"-pbd_substeps 5 -pbd_iterations 1", "-pbd_substeps 1 -pbd_iterations 3", "-pbd_substeps 1 -pbd_iterations 3", ""};
  for (int c = 0; c < 4; c++) {
    char opts[512];
    PetscReal rel;
    if (c < 3) CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "%s %s", bar, extra[c]));
    else CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-beam_n 6 -beam_nw 2 -beam_material arap -beam_youngs 1e2 -pbd_substeps 1 -pbd_iterations 1"));
    CHECK_PETSC(FusedGap("beam", solvers[c], opts, c < 3 ? 4 : 30, c < 3 ? 1.0 / 60 : 0.2, &rel));
    ck_assert_msg(rel < 1e-9, "%s %s: the fused kernel differs from the generic one by %g of the motion", solvers[c], opts, (double)rel);
  }
}
END_TEST

/* The 4-lane Gauss-Seidel kernel of the other constraints (a colour's constraints 4 at a time,
 * colours padded to groups of 4) takes the same steps as the one-at-a-time kernel, to rounding: the
 * library's cloth demo (triangle strain with projections per colour, bending projected once per
 * sweep) by XPBD (5 substeps x 1 sweep, and 3 sweeps: the multipliers carried between sweeps) and
 * PBD; springs with soft attachments and a sphere collider (2- and 1-vertex stencils). */
START_TEST(lane_kernel)
{
  const char *fem = "-cloth_n 50 -cloth_model fem";
  const char *springs = "-cloth_n 12 -cloth_k_struct 300 -cloth_pin none -cloth_attach corners -cloth_attach_stiffness 1e3 -colliders sphere "
                        "-sphere_center 0,-0.45,0.2 -sphere_radius 0.4 -sphere_stiffness 1e3";
  const char *solvers[] = {"xpbd", "xpbd", "pbd", "xpbd", "pbd"};
  const char *extra[] = {"-pbd_substeps 5 -pbd_iterations 1", "-pbd_substeps 1 -pbd_iterations 3", "-pbd_substeps 1 -pbd_iterations 3",
                         "-pbd_substeps 2 -pbd_iterations 2", "-pbd_substeps 1 -pbd_iterations 4"};
  for (int c = 0; c < 5; c++) {
    char opts[512];
    PetscReal rel;
    CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "%s %s", c < 3 ? fem : springs, extra[c]));
    CHECK_PETSC(FusedGap("cloth", solvers[c], opts, 10, 1.0 / 60, &rel));
    ck_assert_msg(rel < 1e-9, "%s %s: the lane kernel differs from the generic one by %g of the motion", solvers[c], opts, (double)rel);
  }
}
END_TEST

/* ---- bad input ---- */

START_TEST(bad_input)
{
  const struct {
    const char *solver, *opts, *expect;
    PetscBool setup; /* SetUp too (else SetFromOptions only) */
  } cases[] = {
    {"xpbd", "-cloth_n 4 -pbd_iterations 0", "-pbd_iterations", 0},
    {"xpbd", "-cloth_n 4 -pbd_substeps -2", "-pbd_substeps", 0},
    {"pbd", "-cloth_n 4 -pbd_omega 2", "-pbd_omega", 0},
    {"pbd", "-cloth_n 4 -pbd_stiffness 1.5", "-pbd_stiffness", 0},
    {"pbd", "-cloth_n 4 -pbd_spring_stiffness -1", "-pbd_spring_stiffness", 1},
    {"xpbd", "-cloth_n 4 -cloth_damping 0.5", "spring_damping", 1},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    PetscErrorCode ierr;
    TestErrorCapture cap;
    CHECK_PETSC(TestSolverError("cloth", cases[c].solver, cases[c].opts, cases[c].setup, &ierr, &cap));
    ck_assert_msg(ierr != 0 && strstr(cap.msg, cases[c].expect), "%s %s: message '%s'", cases[c].solver, cases[c].opts, cap.msg);
  }
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* ---- tet volume constraints (energies/volume.c) ---- */

/* The unit cube (vertex x + 2y + 4z) cut into 5 tets, each oriented to a positive volume. */
static void Cube5(PetscReal xyz[24], PetscInt tet[20])
{
  const PetscInt t[20] = {0, 1, 2, 4, 3, 2, 1, 7, 5, 1, 4, 7, 6, 2, 7, 4, 1, 2, 4, 7};
  for (int i = 0; i < 8; i++) xyz[3 * i] = i & 1, xyz[3 * i + 1] = (i >> 1) & 1, xyz[3 * i + 2] = (i >> 2) & 1;
  for (int e = 0; e < 5; e++) {
    PetscInt *v = tet + 4 * e;
    for (int a = 0; a < 4; a++) v[a] = t[4 * e + a];
    if (SimTetVolume(xyz + 3 * v[0], xyz + 3 * v[1], xyz + 3 * v[2], xyz + 3 * v[3], NULL) < 0) {
      PetscInt s = v[2];
      v[2] = v[3], v[3] = s;
    }
  }
}

/* On one distorted tet: the term's gradient is the central difference of its value, its Hessian
 * (psd = false) that of its gradient, the constraint gradient (cons_eval) that of the constraint,
 * E = w/2 C^2 with the stencil's w, and the psd Hessian has no negative eigenvalue direction
 * (v^T H v >= 0 on random v). */
START_TEST(volume_derivatives)
{
  const PetscReal rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const PetscInt tet[4] = {0, 1, 2, 3};
  PetscReal x[12] = {0.05, -0.02, 0.01, 1.2, 0.1, -0.05, 0.1, 0.8, 0.07, -0.1, 0.15, 1.3}, g[12] = {0}, H[144], Hp[144], C, G[12], w, E, eg = 0, eh = 0, ec = 0;
  PetscInt vert[4], nc, nv, idx = 0;
  SimEnergy term;
  const PetscReal eps = 1e-6;

  CHECK_PETSC(SimVolumeCreate("volume", 4, rest, 1, tet, 7.0, &term));
  CHECK_PETSC(term->ops.cons_count(term, &nc, &nv));
  ck_assert(nc == 1 && nv == 4);
  CHECK_PETSC(term->ops.cons_stencil(term, vert, &w));
  ck_assert_msg(PetscAbsReal(w - 7.0 * 6) < 1e-12, "w = k / V0 = 42, got %g", (double)w);
  CHECK_PETSC(term->ops.value(term, x, NULL, &E));
  CHECK_PETSC(term->ops.gradient(term, x, NULL, g));
  CHECK_PETSC(term->ops.hessian(term, x, NULL, PETSC_FALSE, H));
  CHECK_PETSC(term->ops.hessian(term, x, NULL, PETSC_TRUE, Hp));
  CHECK_PETSC(term->ops.cons_eval(term, x, 1, &idx, &C, G));
  ck_assert_msg(PetscAbsReal(E - 0.5 * w * C * C) < 1e-14 * (1 + E), "E %g != w/2 C^2 = %g", (double)E, (double)(0.5 * w * C * C));
  for (int i = 0; i < 12; i++) {
    PetscReal xp[12], xm[12], Ep, Em, Cp, Cm, gp[12] = {0}, gm[12] = {0}, Gs[12];
    for (int j = 0; j < 12; j++) xp[j] = xm[j] = x[j];
    xp[i] += eps, xm[i] -= eps;
    CHECK_PETSC(term->ops.value(term, xp, NULL, &Ep));
    CHECK_PETSC(term->ops.value(term, xm, NULL, &Em));
    CHECK_PETSC(term->ops.gradient(term, xp, NULL, gp));
    CHECK_PETSC(term->ops.gradient(term, xm, NULL, gm));
    CHECK_PETSC(term->ops.cons_eval(term, xp, 1, &idx, &Cp, Gs));
    CHECK_PETSC(term->ops.cons_eval(term, xm, 1, &idx, &Cm, Gs));
    eg = PetscMax(eg, PetscAbsReal((Ep - Em) / (2 * eps) - g[i]));
    ec = PetscMax(ec, PetscAbsReal((Cp - Cm) / (2 * eps) - G[i]));
    for (int j = 0; j < 12; j++) { /* H entry (j, i): block (j/3, i/3), entry (j%3, i%3) */
      const PetscReal h = H[9 * (4 * (j / 3) + i / 3) + 3 * (j % 3) + i % 3];
      eh = PetscMax(eh, PetscAbsReal((gp[j] - gm[j]) / (2 * eps) - h));
    }
  }
  ck_assert_msg(eg < 1e-7 && ec < 1e-8 && eh < 1e-6, "finite differences: gradient %g, constraint gradient %g, Hessian %g", (double)eg, (double)ec, (double)eh);
  for (int r = 0; r < 20; r++) {
    PetscReal v[12], q = 0;
    for (int i = 0; i < 12; i++) v[i] = PetscSinReal(1.3 * i * (r + 1) + r);
    for (int a = 0; a < 12; a++)
      for (int b = 0; b < 12; b++) q += v[a] * Hp[9 * (4 * (a / 3) + b / 3) + 3 * (a % 3) + b % 3] * v[b];
    ck_assert_msg(q > -1e-12, "psd Hessian: v^T H v = %g", (double)q);
  }
  CHECK_PETSC(SimEnergyDestroy(&term));
}
END_TEST

/* A cube of 5 tets standing on its pinned base (y = 0) with gravity, volume constraints of
 * stiffness k and nothing else, its top thrown sideways and down. */
static PetscErrorCode CubeSim(const char *solver, PetscReal k, SimRegistry *reg, SimModel *m, SimProblem *p, SimSolver *s)
{
  PetscReal xyz[24], *v;
  PetscInt tet[20];
  SimEnergy term;

  PetscFunctionBeginUser;
  Cube5(xyz, tet);
  PetscCall(TestRegistryCreate(reg));
  PetscCall(SimModelCreate(PETSC_COMM_SELF, m));
  PetscCall(SimModelSetVertices(*m, 8, xyz));
  for (PetscInt i = 0; i < 8; i++) PetscCall(SimModelSetVertexMass(*m, i, 1.0 + 0.1 * i));
  for (PetscInt i = 0; i < 8; i++)
    if (((i >> 1) & 1) == 0) PetscCall(SimModelPin(*m, i, "test"));
  PetscCall(SimVolumeCreate("volume", 8, xyz, 5, tet, k, &term));
  PetscCall(SimModelAddTerm(*m, term));
  (*m)->gravity[0] = 0, (*m)->gravity[1] = -9.81, (*m)->gravity[2] = 0;
  PetscCall(SimEnergyCreate_Gravity(*m, NULL, &term));
  PetscCheck(term, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no gravity term");
  PetscCall(SimModelAddTerm(*m, term));
  PetscCall(SimModelFinalize(*m));
  PetscCall(VecGetArray((*m)->v, &v));
  for (PetscInt i = 0; i < 8; i++)
    if ((i >> 1) & 1) v[3 * i] = 0.8 + 0.1 * i, v[3 * i + 1] = -1.5, v[3 * i + 2] = 0.3 - 0.05 * i;
  PetscCall(VecRestoreArray((*m)->v, &v));
  PetscCall(SimMeshProblemCreateFromModel(*reg, *m, p));
  PetscCall(SimSolverCreate(*reg, solver, *p, s));
  PetscCall(SimSolverSetFromOptions(*s));
  PetscFunctionReturn(0);
}

static PetscErrorCode CubeDestroy(SimRegistry *reg, SimModel *m, SimProblem *p, SimSolver *s)
{
  PetscFunctionBeginUser;
  PetscCall(SimSolverDestroy(s));
  PetscCall(SimProblemDestroy(p));
  PetscCall(SimModelDestroy(m));
  PetscCall(SimRegistryDestroy(reg));
  PetscFunctionReturn(0);
}

/* The implicit-Euler optimality residual after one XPBD step of h with `its` sweeps, relative to
 * the inertial term: |M (x - x0 - h v0) / h^2 + grad E(x)| / |M (x - x0 - h v0) / h^2| over the free
 * vertices, E = gravity + sum w/2 C^2 (the compliance 1/w is the energy's). */
static PetscErrorCode CubeOptimality(PetscInt its, PetscReal k, PetscReal *rel, PetscReal *rel2)
{
  SimRegistry reg;
  SimModel m;
  SimProblem p;
  SimSolver s;
  const PetscReal h = 0.02;
  PetscReal x0[24], v0[24], g[24], gv[24] = {0}, num = 0, num2 = 0, den = 0;
  SimEnergy vol;
  const PetscReal *x, *mass;
  char opts[128];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-pbd_substeps 1 -pbd_iterations %" PetscInt_FMT, its));
  PetscCall(TestSetOptions(opts));
  PetscCall(CubeSim("xpbd", k, &reg, &m, &p, &s));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(PetscArraycpy(x0, x, 24));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscCall(VecGetArrayRead(m->v, &x));
  PetscCall(PetscArraycpy(v0, x, 24));
  PetscCall(VecRestoreArrayRead(m->v, &x));
  PetscCall(SimSolverStep(s, h, NULL));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  PetscCall(SimModelGradient(m, SIM_ENERGY_POTENTIAL, x, NULL, g));
  PetscCall(SimModelFindTerm(m, "volume", &vol));
  PetscCall(vol->ops.gradient(vol, x, NULL, gv));
  for (PetscInt i = 0; i < 24; i++) {
    if (m->pinned[i / 3]) continue;
    const PetscReal in = mass[i] * (x[i] - x0[i] - h * v0[i]) / (h * h);
    num += PetscSqr(in + g[i]), den += in * in;
    num2 += PetscSqr(in + g[i] + gv[i]); /* as if the compliance were half of V0/k */
  }
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  *rel = PetscSqrtReal(num / den), *rel2 = PetscSqrtReal(num2 / den);
  PetscCall(CubeDestroy(&reg, &m, &p, &s));
  PetscCall(TestSetOptions(NULL));
  PetscFunctionReturn(0);
}

/* XPBD with the volume constraints: converged (2000 sweeps), the step is the implicit-Euler step on
 * E = sum k/(2 V0) (V - V0)^2 (+ gravity) for a soft and a stiff k, up to XPBD's lagged constraint
 * gradients (each correction moves along the gradient at its own iterate; Macklin et al. 2016
 * assume it changes slowly, so the gap grows with the constraint force: 1e-2 at k = 1e4): the optimality residual is below 1e-3 of the inertial force and at
 * least 100 times below that of the energy with twice the stiffness (so the compliance V0/k is the
 * energy's, not another); with a stiff k every tet keeps its volume to 1e-6 over 0.5 s of a large
 * motion (XPBD, and PBD with alpha = 0). */
START_TEST(volume_constraint)
{
  const PetscReal ks[2] = {50, 200};
  for (int c = 0; c < 2; c++) {
    PetscReal many, wrong; /* soft and moderate: the cube's volumes change by percents */
    CHECK_PETSC(CubeOptimality(2000, ks[c], &many, &wrong));
    ck_assert_msg(many < 1e-3 && wrong > 100 * many, "k = %g: implicit-Euler residual %g after 2000 sweeps (against 2k: %g)", (double)ks[c], (double)many,
                  (double)wrong);
  }
  for (int sv = 0; sv < 2; sv++) {
    SimRegistry reg;
    SimModel m;
    SimProblem p;
    SimSolver s;
    PetscReal xyz[24], dmax = 0, verr = 0;
    PetscInt tet[20];
    const PetscReal *x;
    Cube5(xyz, tet);
    CHECK_PETSC(TestSetOptions("-pbd_substeps 10 -pbd_iterations 4"));
    CHECK_PETSC(CubeSim(sv ? "pbd" : "xpbd", 1e9, &reg, &m, &p, &s));
    for (int k = 0; k < 50; k++) CHECK_PETSC(SimSolverStep(s, 0.01, NULL));
    CHECK_PETSC(VecGetArrayRead(m->x, &x));
    for (PetscInt i = 0; i < 24; i++) dmax = PetscMax(dmax, PetscAbsReal(x[i] - xyz[i]));
    for (int e = 0; e < 5; e++) {
      const PetscInt *t = tet + 4 * e;
      const PetscReal V = SimTetVolume(x + 3 * t[0], x + 3 * t[1], x + 3 * t[2], x + 3 * t[3], NULL);
      const PetscReal V0 = SimTetVolume(xyz + 3 * t[0], xyz + 3 * t[1], xyz + 3 * t[2], xyz + 3 * t[3], NULL);
      verr = PetscMax(verr, PetscAbsReal(V / V0 - 1));
    }
    CHECK_PETSC(VecRestoreArrayRead(m->x, &x));
    ck_assert_msg(dmax > 0.1 && verr < 1e-6, "%s: largest displacement %g (must be > 0.1), largest volume change %g", sv ? "pbd" : "xpbd", (double)dmax,
                  (double)verr);
    CHECK_PETSC(CubeDestroy(&reg, &m, &p, &s));
    CHECK_PETSC(TestSetOptions(NULL));
  }
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("pbd");
  TCase *tc = tcase_create("pbd");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, distance_projection);
  tcase_add_test(tc, colouring_valid);
  tcase_add_test(tc, momentum_conserved);
  tcase_add_test(tc, converges_to_newton);
  tcase_add_test(tc, substeps_converge_to_implicit_euler);
  tcase_add_test(tc, sag_independent_of_iterations_and_dt);
  tcase_add_test(tc, bar_five_tets);
  tcase_add_test(tc, fused_rotation_kernel);
  tcase_add_test(tc, lane_kernel);
  tcase_add_test(tc, bad_input);
  tcase_add_test(tc, volume_derivatives);
  tcase_add_test(tc, volume_constraint);
  suite_add_tcase(s, tc);
  return s;
}
