/* Momentum: internal forces (springs, spring damping, triangles, bending, FEM of every material)
 * sum to zero force and zero torque at any state, so a free body keeps its linear momentum under
 * every integrator and its angular momentum under those that conserve it exactly (symplectic
 * Euler, velocity Verlet, the implicit midpoint rule); external forces (gravity, a plane) change
 * the momenta by exactly their impulse. */
#include "testing.h"

/* Deterministic pseudo-random numbers in [-1, 1] (no shared RNG). */
static PetscReal Wiggle(PetscInt i, PetscInt salt)
{
  return PetscSinReal(12.9898 * (PetscReal)i + 78.233 * (PetscReal)salt + 0.5 * (PetscReal)(i % 7));
}

static void Cross(const PetscReal a[3], const PetscReal b[3], PetscReal c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* P = sum m v, L = sum m x x v (about the origin), and *scale = sum m |v| (1 + |x|). */
static void Momenta(SimModel m, PetscReal P[3], PetscReal L[3], PetscReal *scale)
{
  const PetscScalar *x, *v, *mass;
  CHECK_PETSC(VecGetArrayRead(m->x, &x));
  CHECK_PETSC(VecGetArrayRead(m->v, &v));
  CHECK_PETSC(VecGetArrayRead(m->mass, &mass));
  for (int d = 0; d < 3; d++) P[d] = L[d] = 0;
  if (scale) *scale = 0;
  for (PetscInt i = 0; i < m->nv; i++) {
    PetscReal c[3];
    const PetscReal *xi = x + 3 * i, *vi = v + 3 * i, mi = mass[3 * i];
    Cross(xi, vi, c);
    for (int d = 0; d < 3; d++) P[d] += mi * vi[d], L[d] += mi * c[d];
    if (scale)
      *scale += mi * PetscSqrtReal(vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]) *
                (1 + PetscSqrtReal(xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]));
  }
  CHECK_PETSC(VecRestoreArrayRead(m->mass, &mass));
  CHECK_PETSC(VecRestoreArrayRead(m->v, &v));
  CHECK_PETSC(VecRestoreArrayRead(m->x, &x));
}

/* tau = sum m x x g: the torque of gravity about the origin at positions x. */
static void GravityTorque(SimModel m, const PetscReal *x, PetscReal tau[3])
{
  const PetscScalar *mass;
  CHECK_PETSC(VecGetArrayRead(m->mass, &mass));
  tau[0] = tau[1] = tau[2] = 0;
  for (PetscInt i = 0; i < m->nv; i++) {
    PetscReal c[3];
    Cross(x + 3 * i, m->gravity, c);
    for (int d = 0; d < 3; d++) tau[d] += mass[3 * i] * c[d];
  }
  CHECK_PETSC(VecRestoreArrayRead(m->mass, &mass));
}

/* Gives the model a tumbling motion: v = V + omega x (x - x0) + 0.1 m/s of noise, and moves every
 * vertex by up to 2% of the body's size so that the internal forces are not zero. */
static void Tumble(SimModel m)
{
  const PetscReal V[3] = {0.3, 0.1, -0.2}, omega[3] = {0.5, 1.0, 0.3};
  PetscScalar *x, *v;
  PetscReal lo = PETSC_MAX_REAL, hi = PETSC_MIN_REAL;
  CHECK_PETSC(VecGetArray(m->x, &x));
  CHECK_PETSC(VecGetArray(m->v, &v));
  for (PetscInt k = 0; k < 3 * m->nv; k++) lo = PetscMin(lo, x[k]), hi = PetscMax(hi, x[k]);
  for (PetscInt i = 0; i < m->nv; i++) {
    PetscReal r[3], c[3];
    for (int d = 0; d < 3; d++) r[d] = x[3 * i + d] - x[d];
    Cross(omega, r, c);
    for (int d = 0; d < 3; d++) {
      v[3 * i + d] = V[d] + c[d] + 0.1 * Wiggle(3 * i + d, 1);
      x[3 * i + d] += 0.02 * (hi - lo) * Wiggle(3 * i + d, 2);
    }
  }
  CHECK_PETSC(VecRestoreArray(m->v, &v));
  CHECK_PETSC(VecRestoreArray(m->x, &x));
}

/* Bodies with internal forces only (no pins, no gravity, no colliders). */
typedef struct {
  const char *what;
  const char *scene;
  const char *opts;
} Body;

#define FREE "-gravity 0,0,0 -colliders none "
static const Body bodies[] = {
    {"springs + damping", "cloth", FREE "-cloth_n 5 -cloth_pin none -cloth_k_struct 100 -cloth_density 1 -cloth_damping 0.3"},
    {"triangles + bending", "cloth",
     FREE "-cloth_n 5 -cloth_pin none -cloth_k_struct 100 -cloth_density 1 -cloth_model fem -cloth_bending 1e-3"},
    {"FEM stable_neohookean", "drop", FREE "-drop_n 2"},
    {"FEM neohookean", "drop", FREE "-drop_n 2 -drop_material neohookean"},
    {"FEM stvk", "drop", FREE "-drop_n 2 -drop_material stvk"},
    {"FEM corotated", "drop", FREE "-drop_n 2 -drop_material corotated"},
    {"FEM fixed_corotated", "drop", FREE "-drop_n 2 -drop_material fixed_corotated"},
    {"FEM arap", "drop", FREE "-drop_n 2 -drop_material arap"},
};

/* At a tumbled state, every internal term's forces (potential: -dE/dx; dissipation: -dD/dv) have
 * zero sum and zero torque about the origin. */
static void CheckBalance(const char *what, const char *scene, const char *opts)
{
  TestSim s;
  PetscReal *g;
  const PetscScalar *x, *v;
  CHECK_PETSC(TestSimCreate(scene, NULL, opts, &s));
  Tumble(s.model);
  CHECK_PETSC(PetscMalloc1(3 * s.model->nv, &g));
  CHECK_PETSC(VecGetArrayRead(s.model->x, &x));
  CHECK_PETSC(VecGetArrayRead(s.model->v, &v));
  for (int kind = 0; kind < 2; kind++) {
    PetscReal F[3] = {0, 0, 0}, T[3] = {0, 0, 0}, scale = 0, fscale = 0;
    CHECK_PETSC(PetscArrayzero(g, 3 * s.model->nv));
    CHECK_PETSC(SimModelGradient(s.model, kind ? SIM_ENERGY_DISSIPATION : SIM_ENERGY_POTENTIAL, x, v, g));
    for (PetscInt i = 0; i < s.model->nv; i++) {
      PetscReal c[3];
      Cross(x + 3 * i, g + 3 * i, c);
      for (int d = 0; d < 3; d++) F[d] += g[3 * i + d], T[d] += c[d];
      fscale += PetscAbsReal(g[3 * i]) + PetscAbsReal(g[3 * i + 1]) + PetscAbsReal(g[3 * i + 2]);
      scale += (PetscAbsReal(g[3 * i]) + PetscAbsReal(g[3 * i + 1]) + PetscAbsReal(g[3 * i + 2])) *
               (1 + PetscAbsReal(x[3 * i]) + PetscAbsReal(x[3 * i + 1]) + PetscAbsReal(x[3 * i + 2]));
    }
    if (kind == 0) ck_assert_msg(fscale > 0, "%s: no internal force at a deformed state", what);
    for (int d = 0; d < 3; d++) {
      ck_assert_msg(PetscAbsReal(F[d]) <= 1e-12 * fscale, "%s: %s forces sum to %g (component %d; scale %g)", what,
                    kind ? "damping" : "internal", (double)F[d], d, (double)fscale);
      ck_assert_msg(PetscAbsReal(T[d]) <= 1e-12 * scale, "%s: %s forces have a torque %g (component %d; scale %g)", what,
                    kind ? "damping" : "internal", (double)T[d], d, (double)scale);
    }
  }
  CHECK_PETSC(VecRestoreArrayRead(s.model->v, &v));
  CHECK_PETSC(VecRestoreArrayRead(s.model->x, &x));
  CHECK_PETSC(PetscFree(g));
  CHECK_PETSC(TestSimDestroy(&s));
}

/* Springs with damping, triangles with bending, and an FEM body of every registered material (a
 * new material is checked the moment it is registered). */
START_TEST(internal_forces_balance)
{
  SimRegistry reg;
  PetscInt nmat;

  CheckBalance(bodies[0].what, bodies[0].scene, bodies[0].opts);
  CheckBalance(bodies[1].what, bodies[1].scene, bodies[1].opts);
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_MATERIAL, &nmat));
  for (PetscInt i = 0; i < nmat; i++) {
    const SimRegEntry *e;
    char what[96], opts[256];
    CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_MATERIAL, i, &e));
    CHECK_PETSC(PetscSNPrintf(what, sizeof(what), "FEM %s", e->name));
    CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), FREE "-drop_n 2 -drop_material %s", e->name));
    CheckBalance(what, "drop", opts);
  }
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* A free tumbling body over a run: linear momentum is kept by every integrator; angular momentum by
 * the symplectic ones and the implicit midpoint rule (not by implicit Euler, BDF2 or RK: they
 * change it by O(h^2) per step). */
typedef struct {
  const char *solver;
  PetscBool angular; /* conserves L exactly */
  PetscBool damping; /* can run spring damping (L: implicit midpoint lags the damping directions) */
} RunCase;

static const RunCase runs[] = {
    {"symplectic_euler", PETSC_TRUE, PETSC_TRUE},
    {"verlet", PETSC_TRUE, PETSC_TRUE},
    {"implicit_midpoint", PETSC_TRUE, PETSC_FALSE},
    {"explicit_euler", PETSC_FALSE, PETSC_TRUE},
    {"rk4", PETSC_FALSE, PETSC_TRUE},
    {"implicit_euler", PETSC_FALSE, PETSC_TRUE},
    {"bdf2", PETSC_FALSE, PETSC_TRUE},
    {"linearized_implicit", PETSC_FALSE, PETSC_TRUE},
    {"ts", PETSC_FALSE, PETSC_TRUE},
};

static void RunFree(const Body *body, const RunCase *rc, const char *extra)
{
  TestSim s;
  char opts[512];
  PetscReal P0[3], L0[3], P[3], L[3], scale;

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "%s %s -newton_rtol 1e-12 -newton_atol 1e-14 -ts_type cn -snes_rtol 1e-12",
                            body->opts, extra ? extra : ""));
  CHECK_PETSC(TestSimCreate(body->scene, rc->solver, opts, &s));
  Tumble(s.model);
  Momenta(s.model, P0, L0, &scale);
  for (int k = 0; k < 40; k++) {
    SimStepOutcome out;
    CHECK_PETSC(SimSolverStep(s.solver, 2e-3, &out));
    ck_assert_msg(out == SIM_STEP_OK, "%s, %s: step %d outcome %d", body->what, rc->solver, k, (int)out);
  }
  Momenta(s.model, P, L, NULL);
  printf("  %-24s %-20s |dP| %.2e |dL| %.2e (scale %.2e)\n", body->what, rc->solver,
         (double)PetscSqrtReal(PetscSqr(P[0] - P0[0]) + PetscSqr(P[1] - P0[1]) + PetscSqr(P[2] - P0[2])),
         (double)PetscSqrtReal(PetscSqr(L[0] - L0[0]) + PetscSqr(L[1] - L0[1]) + PetscSqr(L[2] - L0[2])), (double)scale);
  for (int d = 0; d < 3; d++) {
    ck_assert_msg(PetscAbsReal(P[d] - P0[d]) <= 1e-10 * scale, "%s, %s: linear momentum[%d] went from %.15g to %.15g", body->what,
                  rc->solver, d, (double)P0[d], (double)P[d]);
    if (rc->angular)
      ck_assert_msg(PetscAbsReal(L[d] - L0[d]) <= 1e-10 * scale, "%s, %s: angular momentum[%d] went from %.15g to %.15g",
                    body->what, rc->solver, d, (double)L0[d], (double)L[d]);
  }
  CHECK_PETSC(TestSimDestroy(&s));
}

START_TEST(free_body_keeps_momentum)
{
  for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
    RunFree(&bodies[1], &runs[r], NULL); /* triangles + bending */
    RunFree(&bodies[2], &runs[r], NULL); /* FEM */
    if (runs[r].damping)
      RunFree(&bodies[0], &runs[r], NULL);
    else
      RunFree(&bodies[0], &runs[r], "-cloth_damping 0");
  }
  /* projective dynamics: springs and ARAP (no damping) */
  RunFree(&bodies[0], &(RunCase){"pd", PETSC_FALSE, PETSC_FALSE}, "-cloth_damping 0 -pd_iterations 500 -pd_rtol 1e-13");
  RunFree(&bodies[7], &(RunCase){"pd", PETSC_FALSE, PETSC_FALSE}, "-pd_iterations 500 -pd_rtol 1e-13");
}
END_TEST

/* Gravity changes P by exactly M g t under every integrator, and L by the discrete impulse of its
 * torque: h tau(x_n) (symplectic Euler), h/2 (tau(x_n) + tau(x_{n+1})) (Verlet), h tau((x_n +
 * x_{n+1})/2) (implicit midpoint). */
START_TEST(gravity_changes_momentum_by_its_impulse)
{
  const PetscReal h = 2e-3;
  for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
    TestSim s;
    PetscReal P0[3], L0[3], P[3], L[3], scale, M = 0, Lext[3], *xprev, *xmid, tau[3];
    const PetscScalar *mass, *x;
    char opts[256];
    CHECK_PETSC(PetscSNPrintf(
        opts, sizeof(opts),
        "-colliders none -gravity 0.5,-9.81,0.2 -drop_n 2 -newton_rtol 1e-12 -newton_atol 1e-14 -ts_type cn -snes_rtol 1e-12"));
    CHECK_PETSC(TestSimCreate("drop", runs[r].solver, opts, &s));
    Tumble(s.model);
    Momenta(s.model, P0, L0, &scale);
    CHECK_PETSC(VecGetArrayRead(s.model->mass, &mass));
    for (PetscInt i = 0; i < s.model->nv; i++) M += mass[3 * i];
    CHECK_PETSC(VecRestoreArrayRead(s.model->mass, &mass));
    CHECK_PETSC(PetscMalloc2(3 * s.model->nv, &xprev, 3 * s.model->nv, &xmid));
    for (int d = 0; d < 3; d++) Lext[d] = L0[d];
    for (int k = 0; k < 40; k++) {
      CHECK_PETSC(VecGetArrayRead(s.model->x, &x));
      CHECK_PETSC(PetscArraycpy(xprev, x, 3 * s.model->nv));
      CHECK_PETSC(VecRestoreArrayRead(s.model->x, &x));
      CHECK_PETSC(SimSolverStep(s.solver, h, NULL));
      CHECK_PETSC(VecGetArrayRead(s.model->x, &x));
      if (!strcmp(runs[r].solver, "symplectic_euler"))
        GravityTorque(s.model, xprev, tau);
      else if (!strcmp(runs[r].solver, "verlet")) {
        PetscReal t1[3];
        GravityTorque(s.model, xprev, tau);
        GravityTorque(s.model, x, t1);
        for (int d = 0; d < 3; d++) tau[d] = 0.5 * (tau[d] + t1[d]);
      } else {
        for (PetscInt q = 0; q < 3 * s.model->nv; q++) xmid[q] = 0.5 * (xprev[q] + x[q]);
        GravityTorque(s.model, xmid, tau);
      }
      CHECK_PETSC(VecRestoreArrayRead(s.model->x, &x));
      for (int d = 0; d < 3; d++) Lext[d] += h * tau[d];
    }
    Momenta(s.model, P, L, NULL);
    for (int d = 0; d < 3; d++) {
      PetscReal expect = P0[d] + M * s.model->gravity[d] * 40 * h;
      ck_assert_msg(PetscAbsReal(P[d] - expect) <= 1e-10 * (scale + M * 9.81 * 40 * h), "%s: P[%d] = %.15g, P0 + M g t = %.15g",
                    runs[r].solver, d, (double)P[d], (double)expect);
      if (runs[r].angular)
        ck_assert_msg(PetscAbsReal(L[d] - Lext[d]) <= 1e-10 * scale,
                      "%s: L[%d] = %.15g, L0 + impulse of gravity's torque = %.15g", runs[r].solver, d, (double)L[d],
                      (double)Lext[d]);
    }
    CHECK_PETSC(PetscFree2(xprev, xmid));
    CHECK_PETSC(TestSimDestroy(&s));
  }
}
END_TEST

/* A box dropped on the ground plane (y = 0, normal +y): the plane's forces are along its normal,
 * so Px, Pz and the vertical angular momentum Ly are those of the free fall (the plane only adds
 * vertical forces, gravity is vertical); it pushes up, so Py ends above -M g t; and the box stays
 * above the plane (penalty: a small penetration). */
START_TEST(plane_changes_only_normal_momentum)
{
  const char *solvers[] = {"symplectic_euler", "implicit_euler"};
  for (int q = 0; q < 2; q++) {
    TestSim s;
    PetscReal P0[3], L0[3], P[3], L[3], scale, M = 0, ymin = PETSC_MAX_REAL;
    const PetscScalar *mass, *x;
    const PetscReal h = 1e-3;
    const PetscInt n = 400;
    CHECK_PETSC(TestSimCreate("drop", solvers[q], "-drop_n 2 -drop_height 0.05 -plane_stiffness 1e5", &s));
    Tumble(s.model);
    Momenta(s.model, P0, L0, &scale);
    CHECK_PETSC(VecGetArrayRead(s.model->mass, &mass));
    for (PetscInt i = 0; i < s.model->nv; i++) M += mass[3 * i];
    CHECK_PETSC(VecRestoreArrayRead(s.model->mass, &mass));
    for (PetscInt k = 0; k < n; k++) CHECK_PETSC(SimSolverStep(s.solver, h, NULL));
    Momenta(s.model, P, L, NULL);
    CHECK_PETSC(VecGetArrayRead(s.model->x, &x));
    for (PetscInt i = 0; i < s.model->nv; i++) ymin = PetscMin(ymin, x[3 * i + 1]);
    CHECK_PETSC(VecRestoreArrayRead(s.model->x, &x));
    printf("  drop on the plane, %s: P %.4g %.4g %.4g (free fall Py %.4g), ymin %.3g\n", solvers[q], (double)P[0], (double)P[1],
           (double)P[2], (double)(P0[1] - M * 9.81 * n * h), (double)ymin);
    ck_assert_msg(PetscAbsReal(P[0] - P0[0]) <= 1e-10 * scale && PetscAbsReal(P[2] - P0[2]) <= 1e-10 * scale,
                  "%s: horizontal momentum changed on a horizontal plane: %g -> %g, %g -> %g", solvers[q], (double)P0[0],
                  (double)P[0], (double)P0[2], (double)P[2]);
    if (q == 0)
      ck_assert_msg(PetscAbsReal(L[1] - L0[1]) <= 1e-10 * scale, "%s: vertical angular momentum %g -> %g", solvers[q],
                    (double)L0[1], (double)L[1]);
    ck_assert_msg(P[1] > P0[1] - M * 9.81 * n * h + 0.5 * M * 1.0, "%s: the plane did not push the box up (Py %g, free fall %g)",
                  solvers[q], (double)P[1], (double)(P0[1] - M * 9.81 * n * h));
    ck_assert_msg(ymin > -0.01, "%s: the box went %g m through the plane", solvers[q], (double)-ymin);
    CHECK_PETSC(TestSimDestroy(&s));
  }
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("momentum");
  TCase *tc = tcase_create("momentum");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, internal_forces_balance);
  tcase_add_test(tc, free_body_keeps_momentum);
  tcase_add_test(tc, gravity_changes_momentum_by_its_impulse);
  tcase_add_test(tc, plane_changes_only_normal_momentum);
  suite_add_tcase(s, tc);
  return s;
}
