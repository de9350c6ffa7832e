/* Mesh obstacles of the particle fluids (scenes/shell.h, scenes/obstacle.c): the boundary particles
 * sampled on a closed surface cover it at the fluid's spacing (one sample per spacing^(d-1) of
 * surface, every point of every face within a spacing of a sample, no two samples closer than the
 * disc radius, the same set on every call); the winding number tells inside from outside; a missing
 * file, an open mesh and a mesh file in 2D are errors that say so; and a block of fluid dropped on
 * the obstacle (sph and pbf, 2D and 3D) ends with no fluid particle inside it. */
#include "testing.h"
#include "scenes/shell.h"
#include "problems/particles/particles.h"

static PetscReal Dist2(PetscInt dim, const PetscReal *a, const PetscReal *b)
{
  PetscReal r2 = 0;
  for (PetscInt d = 0; d < dim; d++) r2 += (a[d] - b[d]) * (a[d] - b[d]);
  return r2;
}

/* Samples the shell at spacing s and checks the coverage; returns measure / (count s^(d-1)). */
static PetscReal CheckCoverage(const SimShell *sh, PetscReal s, const char *what)
{
  const PetscInt dim = sh->dim, K = 12;
  PetscInt n, n2;
  PetscReal *x, *x2, worst = 0, closest = PETSC_MAX_REAL;

  CHECK_PETSC(SimShellSample(sh, s, &n, &x));
  ck_assert_msg(n > 0, "%s: no samples", what);
  /* every point of a face's barycentric lattice (K per edge) is within a spacing of a sample */
  for (PetscInt f = 0; f < sh->nf; f++) {
    const PetscReal *a = sh->x + dim * sh->face[dim * f], *b = sh->x + dim * sh->face[dim * f + 1];
    const PetscReal *c = dim == 3 ? sh->x + 3 * sh->face[3 * f + 2] : a;
    for (PetscInt j = 0; j <= (dim == 3 ? K : 0); j++)
      for (PetscInt i = 0; i + j <= K; i++) {
        PetscReal p[3], best = PETSC_MAX_REAL;
        for (PetscInt d = 0; d < dim; d++) p[d] = a[d] + (PetscReal)i / K * (b[d] - a[d]) + (PetscReal)j / K * (c[d] - a[d]);
        for (PetscInt q = 0; q < n; q++) best = PetscMin(best, Dist2(dim, p, x + dim * q));
        worst = PetscMax(worst, PetscSqrtReal(best));
      }
  }
  ck_assert_msg(worst <= s, "%s: a point of the surface is %g spacings from the nearest sample", what, (double)(worst / s));
  /* a Poisson-disc set: no two samples closer than the disc radius (0.75 s in 2D, 0.83 s in 3D) */
  for (PetscInt q = 0; q < n; q++)
    for (PetscInt k = q + 1; k < n; k++) closest = PetscMin(closest, Dist2(dim, x + dim * q, x + dim * k));
  ck_assert_msg(PetscSqrtReal(closest) >= (dim == 2 ? 0.75 : 0.83) * s * (1 - 1e-12), "%s: two samples %g spacings apart", what,
                (double)(PetscSqrtReal(closest) / s));
  /* deterministic: the same set again */
  CHECK_PETSC(SimShellSample(sh, s, &n2, &x2));
  ck_assert_int_eq(n2, n);
  for (PetscInt k = 0; k < dim * n; k++) ck_assert_msg(x2[k] == x[k], "%s: a second sampling differs", what);
  CHECK_PETSC(PetscFree(x2));
  CHECK_PETSC(PetscFree(x));
  return SimShellMeasure(sh) / (n * PetscPowRealInt(s, dim - 1));
}

/* The box and the cylinder in 2D and 3D, at three sizes and aspect ratios against the spacing: the
 * surface per sample is the spacing^(d-1) within 12% (measured: see the message on failure), every
 * point of the surface within a spacing of a sample. */
START_TEST(samples_cover_the_surface_at_the_spacing)
{
  static const char *shapes[2] = {"box", "cylinder"};
  static const PetscReal sizes[3][3] = {{1, 1, 1}, {0.5, 0.3, 0.8}, {2, 0.4, 0.25}};
  const PetscReal center[3] = {0.1, -0.2, 0.3};
  for (PetscInt dim = 2; dim <= 3; dim++)
    for (int k = 0; k < 2; k++)
      for (int z = 0; z < 3; z++) {
        SimShell sh;
        char what[64];
        PetscReal ratio;
        CHECK_PETSC(PetscSNPrintf(what, sizeof(what), "%s %dD size %d", shapes[k], (int)dim, z));
        CHECK_PETSC(SimObstacleCreate("-t", shapes[k], dim, center, sizes[z], &sh));
        ratio = CheckCoverage(&sh, 0.05, what);
        ck_assert_msg(PetscAbsReal(ratio - 1) < 0.12, "%s: surface per sample %g spacing^%d", what, (double)ratio, (int)dim - 1);
        CHECK_PETSC(SimShellFree(&sh));
      }
}
END_TEST

/* The winding number is +-1 inside (orientation of the built-ins and of a tetrahedral mesh's
 * boundary faces consistent) and 0 outside; its bounding box is the size asked for. */
START_TEST(winding_number_tells_inside_from_outside)
{
  static const char *shapes[3] = {"box", "cylinder", PBSIM_TEST_DATA "/cube.msh"};
  const PetscReal center[3] = {1, 2, 3}, size[3] = {0.5, 0.4, 0.3};
  for (PetscInt dim = 2; dim <= 3; dim++)
    for (int k = 0; k < (dim == 3 ? 3 : 2); k++) {
      SimShell sh;
      const PetscReal out[3] = {1.26, 2, 3}, in[3] = {1.24, 2.01, 2.99}, far[3] = {5, 5, 5};
      CHECK_PETSC(SimObstacleCreate("-t", shapes[k], dim, center, size, &sh));
      ck_assert_msg(PetscAbsReal(PetscAbsReal(SimShellWinding(&sh, center)) - 1) < 1e-12, "%s %dD: winding %g at the centre", shapes[k], (int)dim,
                    (double)SimShellWinding(&sh, center));
      ck_assert_msg(PetscAbsReal(SimShellWinding(&sh, out)) < 1e-12 && PetscAbsReal(SimShellWinding(&sh, far)) < 1e-12, "%s %dD: winding outside", shapes[k],
                    (int)dim);
      ck_assert_msg(SimShellInside(&sh, center) && SimShellInside(&sh, in) && !SimShellInside(&sh, out) && !SimShellInside(&sh, far), "%s %dD: inside",
                    shapes[k], (int)dim);
      for (PetscInt d = 0; d < dim; d++) {
        ck_assert_double_eq_tol(sh.lo[d], center[d] - 0.5 * size[d], 1e-12);
        ck_assert_double_eq_tol(sh.hi[d], center[d] + 0.5 * size[d], 1e-12);
      }
      CHECK_PETSC(SimShellFree(&sh));
    }
}
END_TEST

/* The error message of SimObstacleCreate(name) in dim. */
static PetscErrorCode CreateError(const char *name, PetscInt dim, char *msg, size_t len)
{
  const PetscReal c[3] = {0, 0, 0}, sz[3] = {1, 1, 1};
  TestErrorCapture cap = {{0}};
  SimShell sh;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimObstacleCreate("-scene_obstacle", name, dim, c, sz, &sh);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "'%s' was accepted", name);
  PetscCall(PetscStrncpy(msg, cap.msg, len));
  PetscFunctionReturn(0);
}

START_TEST(bad_obstacles_are_errors_that_say_why)
{
  char msg[1024];

  CHECK_PETSC(CreateError("no_such_mesh.obj", 3, msg, sizeof(msg)));
  ck_assert_msg(strstr(msg, "-scene_obstacle") && strstr(msg, "no_such_mesh.obj") && strstr(msg, "box, cylinder"), "%s", msg);
  CHECK_PETSC(CreateError(PBSIM_TEST_DATA "/cube.msh", 2, msg, sizeof(msg)));
  ck_assert_msg(strstr(msg, "needs a 3D scene"), "%s", msg);
  /* a cube without its top: 4 open edges */
  CHECK_PETSC(CreateError(PBSIM_TEST_DATA "/open_box.obj", 3, msg, sizeof(msg)));
  ck_assert_msg(strstr(msg, "not a closed surface") && strstr(msg, "4 edges not shared by exactly two triangles"), "%s", msg);
  CHECK_PETSC(CreateError(PBSIM_TEST_DATA "/no_faces.obj", 3, msg, sizeof(msg)));
  ck_assert_msg(strstr(msg, "no_faces.obj") && strstr(msg, "no faces"), "%s", msg);
}
END_TEST

/* The fluid's energy sum_i m_i (|v_i|^2 / 2 + |g| y_i) (y the height above the floor) and momentum,
 * over every rank. */
static void FluidEnergyMomentum(SimProblem p, PetscReal *E, PetscReal mom[3])
{
  SimParticlesInfo in;
  const PetscReal *x, *v, *m, *mat;
  PetscReal g, r[4] = {0, 0, 0, 0};
  PetscInt n, dim;
  DM sw;

  CHECK_PETSC(SimParticlesGetInfo(p, &in));
  dim = in.dim;
  g = PetscSqrtReal(in.gravity[0] * in.gravity[0] + in.gravity[1] * in.gravity[1] + in.gravity[2] * in.gravity[2]);
  CHECK_PETSC(SimParticlesGetSwarm(p, &sw));
  CHECK_PETSC(DMSwarmGetLocalSize(sw, &n));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  for (PetscInt i = 0; i < n; i++) {
    if (mat[i] < 0) continue;
    r[3] += m[i] * g * x[dim * i + 1];
    for (PetscInt d = 0; d < dim; d++) r[d] += m[i] * v[dim * i + d], r[3] += 0.5 * m[i] * v[dim * i + d] * v[dim * i + d];
  }
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  ck_assert_int_eq(MPI_Allreduce(MPI_IN_PLACE, r, 4, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD), MPI_SUCCESS);
  for (int d = 0; d < 3; d++) mom[d] = r[d];
  *E = r[3];
}

/* A block of fluid (a/2 wide, 8 particles across a) falls 1.75 a onto a box obstacle 0.75 a wide (on
 * the floor of an empty tank) and splashes off it: after 100 steps of 5 ms (impact at about 0.3 s,
 * 2.9 m/s) no fluid particle is inside the box (tested against the box built here; the scene's
 * figure obstacle_inside, too, at every step); the compression stays below 20% (WCSPH at Mach 0.1
 * of the block's own height, PBF 4 iterations); the fluid's energy (kinetic + potential) does not
 * grow (the boundary does no work: within 1% of the start), which bounds its momentum too. (The
 * samples are not mirror-symmetric: the splash is not, and no momentum is conserved.) */
START_TEST(fluid_dropped_on_an_obstacle_stays_outside_it)
{
  static const char *solvers[2] = {"sph", "pbf"};
  for (PetscInt dim = 2; dim <= 3; dim++)
    for (int k = 0; k < 2; k++) {
      const PetscReal a = 0.25, L = 4 * a, center[3] = {0.5 * L, 0.25 * a, 0.5 * a}, size[3] = {0.75 * a, 0.5 * a, 0.75 * a};
      char opts[256];
      TestSim t;
      SimShell sh;
      SimStepOutcome out;
      PetscReal emax = 0, e, mom[3], E0, E1, inside = 0, pmax = 0;
      const PetscReal *x, *mat;
      PetscInt n;
      DM sw;

      CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts),
                                "-drop_pool_dim %d -drop_pool_n 8 -drop_pool_pool 0 -drop_pool_obstacle box -drop_pool_obstacle_size 0.75,0.5,0.75 %s", (int)dim,
                                k == 0 ? "-sph_vref 3" : ""));
      CHECK_PETSC(TestSimCreateOnComm(PETSC_COMM_WORLD, "drop_pool", solvers[k], opts, &t));
      FluidEnergyMomentum(t.problem, &E0, mom);
      for (int step = 0; step < 100; step++) {
        PetscReal nin;
        CHECK_PETSC(SimSolverStep(t.solver, 5e-3, &out));
        ck_assert_msg(out == SIM_STEP_OK, "%s %dD: step %d failed", solvers[k], (int)dim, step);
        CHECK_PETSC(TestSolverFigure(t.solver, "density_error_max", &e));
        emax = PetscMax(emax, e);
        FluidEnergyMomentum(t.problem, &E1, mom);
        pmax = PetscMax(pmax, PetscAbsReal(mom[1]));
        {
          const char *names[64];
          PetscReal values[64];
          PetscInt nf;
          CHECK_PETSC(SimSceneFigures(t.scene, t.problem, 0, &nf, names, values));
          ck_assert_msg(nf == 1 && !strcmp(names[0], "obstacle_inside"), "%s %dD: the scene's figures", solvers[k], (int)dim);
          nin = values[0];
        }
        ck_assert_msg(nin == 0, "%s %dD: step %d: %g fluid particles inside the obstacle", solvers[k], (int)dim, step, (double)nin);
      }
      FluidEnergyMomentum(t.problem, &E1, mom);
      CHECK_PETSC(SimObstacleCreate("-t", "box", dim, center, size, &sh));
      CHECK_PETSC(SimParticlesGetSwarm(t.problem, &sw));
      CHECK_PETSC(DMSwarmGetLocalSize(sw, &n));
      CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
      CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
      for (PetscInt i = 0; i < n; i++)
        if (mat[i] >= 0 && SimShellInside(&sh, x + dim * i)) inside++;
      CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
      CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
      ck_assert_int_eq(MPI_Allreduce(MPI_IN_PLACE, &inside, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD), MPI_SUCCESS);
      ck_assert_msg(inside == 0, "%s %dD: %g fluid particles inside the obstacle", solvers[k], (int)dim, (double)inside);
      ck_assert_msg(emax < 0.2, "%s %dD: compression %g", solvers[k], (int)dim, (double)emax);
      ck_assert_msg(E1 < 1.01 * E0, "%s %dD: energy %g J at the start, %g J at the end", solvers[k], (int)dim, (double)E0, (double)E1);
      CHECK_PETSC(SimShellFree(&sh));
      CHECK_PETSC(TestSimDestroy(&t));
    }
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("obstacle");
  TCase *tc = tcase_create("obstacle");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, samples_cover_the_surface_at_the_spacing);
  tcase_add_test(tc, winding_number_tells_inside_from_outside);
  tcase_add_test(tc, bad_obstacles_are_errors_that_say_why);
  tcase_add_test(tc, fluid_dropped_on_an_obstacle_stays_outside_it);
  suite_add_tcase(s, tc);
  return s;
}
