/* The "particles" problem type (problems/particles): the scene's particles reach the swarm on the
 * rank that owns their cell, solver fields are carried, the report, the last-good stash and the
 * checkpoint round trip are exact, frames carry every field, migration keeps every particle and
 * its mass on 1 and 2 ranks, and bad input names the particle. Runs on one rank and under
 * mpirun -np 2 (tests/cli/mpi.cmake). */
#include <stdio.h>
#include "testing.h"
#include "problems/particles/particles.h"

/* n x n particles of mass 2 and volume 0.01 in [0.1, 0.9]^2 of the unit box (8 x 8 cells), with
 * velocity (1 + y, -x) and material 0 below y = 0.5, 1 above; a solver field "F" of 4 components. */
static PetscErrorCode BlockProblem(MPI_Comm comm, SimRegistry reg, PetscInt n, SimProblem *p)
{
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0};
  PetscReal *x, *v, *m, *vol, *mat;

  PetscFunctionBeginUser;
  PetscCall(SimProblemCreate(reg, "particles", "block", comm, p));
  PetscCall(SimParticlesSetDomain(*p, 2, lo, hi, 8));
  PetscCall(PetscMalloc5(2 * n * n, &x, 2 * n * n, &v, n * n, &m, n * n, &vol, n * n, &mat));
  for (PetscInt j = 0, k = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++, k++) {
      x[2 * k] = 0.1 + 0.8 * i / (n - 1), x[2 * k + 1] = 0.1 + 0.8 * j / (n - 1);
      v[2 * k] = 1 + x[2 * k + 1], v[2 * k + 1] = -x[2 * k];
      m[k] = 2, vol[k] = 0.01, mat[k] = x[2 * k + 1] > 0.5;
    }
  PetscCall(SimParticlesAdd(*p, n * n, x, v, m, vol, mat));
  PetscCall(PetscFree5(x, v, m, vol, mat));
  PetscCall(SimProblemSetUp(*p));
  PetscCall(SimParticlesRegisterField(*p, "F", 4));
  PetscFunctionReturn(0);
}

START_TEST(particles_reach_their_owner_with_every_field)
{
  SimRegistry reg;
  SimProblem p;
  SimEnergyReport rep;
  PetscBool has;
  PetscInt nl, ng, count, dim = 2;
  const char *unit;
  DM sw, da;
  PetscReal *x, *F, ke = 0, px = 0, py = 0;
  PetscMPIInt rank;
  PetscInt xs, ys, xm, ym;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(BlockProblem(PETSC_COMM_WORLD, reg, 10, &p));
  CHECK_PETSC(SimProblemGetSize(p, &count, &unit));
  ck_assert_int_eq(count, 100);
  ck_assert_str_eq(unit, "particles");
  CHECK_PETSC(SimParticlesGetSwarm(p, &sw));
  CHECK_PETSC(SimParticlesGetGrid(p, &da));
  CHECK_PETSC(SimParticlesGetSizes(p, &nl, &ng));
  ck_assert_int_eq(ng, 100);
  /* every local particle lies in this rank's cells */
  CHECK_PETSC(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  CHECK_PETSC(DMSwarmGetField(sw, "F", NULL, NULL, (void **)&F));
  for (PetscInt i = 0; i < nl; i++) {
    const PetscInt cx = (PetscInt)(x[dim * i] * 8), cy = (PetscInt)(x[dim * i + 1] * 8);
    ck_assert_msg(cx >= xs && cx < xs + xm && cy >= ys && cy < ys + ym, "particle at (%g, %g) outside this rank's cells", x[2 * i], x[2 * i + 1]);
    for (int c = 0; c < 4; c++) ck_assert_double_eq(F[4 * i + c], 0);
    ke += 0.5 * 2 * ((1 + x[2 * i + 1]) * (1 + x[2 * i + 1]) + x[2 * i] * x[2 * i]);
    px += 2 * (1 + x[2 * i + 1]), py -= 2 * x[2 * i];
  }
  CHECK_PETSC(DMSwarmRestoreField(sw, "F", NULL, NULL, (void **)&F));
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  CHECK_PETSC(MPI_Allreduce(MPI_IN_PLACE, &ke, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  CHECK_PETSC(MPI_Allreduce(MPI_IN_PLACE, &px, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  CHECK_PETSC(MPI_Allreduce(MPI_IN_PLACE, &py, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  CHECK_PETSC(SimProblemReport(p, &rep, &has));
  ck_assert(has);
  ck_assert_double_eq_tol(rep.kinetic, ke, 1e-12 * ke);
  ck_assert_double_eq_tol(rep.momentum[0], px, 1e-12 * PetscAbsReal(px));
  ck_assert_double_eq_tol(rep.momentum[1], py, 1e-12 * PetscAbsReal(py));
  /* gravity's potential -m g.x: 100 particles of 2 kg at mean height 0.5 */
  ck_assert_double_eq_tol(rep.term[0], 100 * 2 * 9.81 * 0.5, 1e-9);
  CHECK_PETSC(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  CHECK_PETSC(SimProblemDestroy(&p));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* Moves every particle by (0.35, 0.2) (across the rank boundary on 2 ranks) and migrates. */
static PetscErrorCode Shift(SimProblem p)
{
  DM sw;
  PetscInt n;
  PetscReal *x;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  for (PetscInt i = 0; i < n; i++) x[2 * i] = PetscMin(0.99, x[2 * i] + 0.35), x[2 * i + 1] = PetscMin(0.99, x[2 * i + 1] + 0.2);
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(SimParticlesMigrate(p));
  PetscFunctionReturn(0);
}

START_TEST(migration_keeps_particles_and_mass)
{
  SimRegistry reg;
  SimProblem p;
  SimEnergyReport before, after;
  PetscBool has;
  PetscInt ng, nl, xs, ys, xm, ym;
  PetscReal *x, mass = 0, *m;
  DM sw, da;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(BlockProblem(PETSC_COMM_WORLD, reg, 12, &p));
  CHECK_PETSC(SimProblemReport(p, &before, &has));
  CHECK_PETSC(Shift(p));
  CHECK_PETSC(SimParticlesGetSizes(p, &nl, &ng));
  ck_assert_int_eq(ng, 144);
  CHECK_PETSC(SimParticlesGetSwarm(p, &sw));
  CHECK_PETSC(SimParticlesGetGrid(p, &da));
  CHECK_PETSC(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  for (PetscInt i = 0; i < nl; i++) {
    const PetscInt cx = (PetscInt)(x[2 * i] * 8), cy = (PetscInt)(x[2 * i + 1] * 8);
    ck_assert_msg(cx >= xs && cx < xs + xm && cy >= ys && cy < ys + ym, "after migration, particle at (%g, %g) is not on its owner", x[2 * i],
                  x[2 * i + 1]);
    mass += m[i];
  }
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  CHECK_PETSC(MPI_Allreduce(MPI_IN_PLACE, &mass, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  ck_assert_double_eq_tol(mass, 288, 1e-12);
  /* moving positions changes no velocity: kinetic energy and momentum are the same */
  CHECK_PETSC(SimProblemReport(p, &after, &has));
  ck_assert_double_eq_tol(after.kinetic, before.kinetic, 1e-12 * before.kinetic);
  ck_assert_double_eq_tol(after.momentum[0], before.momentum[0], 1e-12 * PetscAbsReal(before.momentum[0]));
  CHECK_PETSC(SimProblemDestroy(&p));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* The fields of every local particle, concatenated (position, velocity, mass, volume, material, F). */
static PetscErrorCode Snapshot(SimProblem p, PetscReal **all, PetscInt *n)
{
  const char *names[6] = {SIM_PARTICLES_POSITION, SIM_PARTICLES_VELOCITY, SIM_PARTICLES_MASS, SIM_PARTICLES_VOLUME, SIM_PARTICLES_MATERIAL, "F"};
  const PetscInt bs[6] = {2, 2, 1, 1, 1, 4};
  PetscInt nl, k = 0;
  PetscReal *a;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &nl));
  PetscCall(PetscMalloc1(11 * nl + 1, all));
  for (int f = 0; f < 6; f++) {
    PetscCall(DMSwarmGetField(sw, names[f], NULL, NULL, (void **)&a));
    for (PetscInt i = 0; i < bs[f] * nl; i++) (*all)[k++] = a[i];
    PetscCall(DMSwarmRestoreField(sw, names[f], NULL, NULL, (void **)&a));
  }
  *n = k;
  PetscFunctionReturn(0);
}

static PetscErrorCode SetF(SimProblem p, PetscReal value)
{
  DM sw;
  PetscInt n;
  PetscReal *F, *v;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, "F", NULL, NULL, (void **)&F));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  for (PetscInt i = 0; i < n; i++) F[4 * i] = F[4 * i + 3] = value + i, v[2 * i] += value;
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmRestoreField(sw, "F", NULL, NULL, (void **)&F));
  PetscFunctionReturn(0);
}

/* A binary viewer as the run's checkpoints use it: no .info file, whose per-Vec block sizes would
 * accumulate in the options database and apply to every VecLoad. */
static PetscErrorCode OpenCheckpoint(const char *path, PetscFileMode mode, PetscViewer *viewer)
{
  PetscFunctionBeginUser;
  PetscCall(PetscViewerCreate(PETSC_COMM_WORLD, viewer));
  PetscCall(PetscViewerSetType(*viewer, PETSCVIEWERBINARY));
  PetscCall(PetscViewerBinarySetSkipInfo(*viewer, PETSC_TRUE));
  PetscCall(PetscViewerFileSetMode(*viewer, mode));
  PetscCall(PetscViewerFileSetName(*viewer, path));
  PetscFunctionReturn(0);
}

START_TEST(stash_and_checkpoint_are_exact)
{
  SimRegistry reg;
  SimProblem p, q;
  PetscReal *a, *b;
  PetscInt na, nb;
  PetscViewer viewer;
  char path[] = "test_particles_checkpoint.bin";

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(BlockProblem(PETSC_COMM_WORLD, reg, 9, &p));
  CHECK_PETSC(SetF(p, 1.5));
  CHECK_PETSC(Snapshot(p, &a, &na));
  /* stash, move and migrate, restore: the same particles in the same order with the same values */
  CHECK_PETSC(SimProblemStash(p, PETSC_FALSE));
  CHECK_PETSC(SetF(p, 7));
  CHECK_PETSC(Shift(p));
  CHECK_PETSC(SimProblemStash(p, PETSC_TRUE));
  CHECK_PETSC(Snapshot(p, &b, &nb));
  ck_assert_int_eq(na, nb);
  for (PetscInt i = 0; i < na; i++) ck_assert_msg(a[i] == b[i], "stash: entry %d differs (%g vs %g)", (int)i, a[i], b[i]);
  CHECK_PETSC(PetscFree(b));
  /* checkpoint into a second problem built the same way, then moved: it gets p's state back exactly */
  CHECK_PETSC(OpenCheckpoint(path, FILE_MODE_WRITE, &viewer));
  CHECK_PETSC(SimProblemSave(p, viewer));
  CHECK_PETSC(PetscViewerDestroy(&viewer));
  CHECK_PETSC(BlockProblem(PETSC_COMM_WORLD, reg, 9, &q));
  CHECK_PETSC(Shift(q));
  CHECK_PETSC(OpenCheckpoint(path, FILE_MODE_READ, &viewer));
  CHECK_PETSC(SimProblemLoad(q, viewer));
  CHECK_PETSC(PetscViewerDestroy(&viewer));
  CHECK_PETSC(Snapshot(q, &b, &nb));
  ck_assert_int_eq(na, nb);
  for (PetscInt i = 0; i < na; i++) ck_assert_msg(a[i] == b[i], "checkpoint: entry %d differs (%g vs %g)", (int)i, a[i], b[i]);
  CHECK_PETSC(PetscFree(a));
  CHECK_PETSC(PetscFree(b));
  CHECK_PETSC(SimProblemDestroy(&q));
  CHECK_PETSC(SimProblemDestroy(&p));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

START_TEST(frame_carries_every_field)
{
  SimRegistry reg;
  SimProblem p;
  PetscBool written;
  PetscMPIInt rank;
  char buf[4096] = "";
  FILE *f;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(BlockProblem(PETSC_COMM_WORLD, reg, 6, &p));
  CHECK_PETSC(SimProblemWriteFrame(p, "test_particles_frame.vtu", &written));
  ck_assert(written);
  CHECK_PETSC(SimProblemWriteImage(p, "particles", "test_particles_frame.png", &written));
  ck_assert(written);
  CHECK_PETSC(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) {
    f = fopen("test_particles_frame.vtu", "rb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_gt((int)fread(buf, 1, sizeof(buf) - 1, f), 100);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "NumberOfPoints=\"36\""));
    for (int k = 0; k < 5; k++) {
      const char *names[5] = {"Name=\"velocity\" NumberOfComponents=\"3\"", "Name=\"mass\"", "Name=\"volume\"", "Name=\"material\"",
                              "Name=\"F\" NumberOfComponents=\"4\""};
      ck_assert_msg(strstr(buf, names[k]), "frame lacks %s", names[k]);
    }
    f = fopen("test_particles_frame.png", "rb");
    ck_assert_ptr_nonnull(f);
    fclose(f);
  }
  CHECK_PETSC(SimProblemDestroy(&p));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

START_TEST(bad_input_names_the_particle)
{
  SimRegistry reg;
  SimProblem p;
  TestErrorCapture cap = {{0}};
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0}, out[2] = {0.5, 1.5}, m = 1, vol = 1;
  PetscErrorCode ierr;
  DM sw;
  PetscReal *x;
  PetscInt n;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimProblemCreate(reg, "particles", "bad", PETSC_COMM_WORLD, &p));
  CHECK_PETSC(SimParticlesSetDomain(p, 2, lo, hi, 4));
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimParticlesAdd(p, 1, out, NULL, &m, &vol, NULL);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr && strstr(cap.msg, "particle 0 at (0.5, 1.5) is outside the box"), "outside the box: '%s'", cap.msg);
  CHECK_PETSC(SimProblemDestroy(&p));

  /* a particle pushed out of the box by a step: the migration says which */
  CHECK_PETSC(BlockProblem(PETSC_COMM_WORLD, reg, 4, &p));
  CHECK_PETSC(SimParticlesGetSwarm(p, &sw));
  CHECK_PETSC(DMSwarmGetLocalSize(sw, &n));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  for (PetscInt i = 0; i < n; i++) x[2 * i] += 2;
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  cap.msg[0] = 0;
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimParticlesMigrate(p);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(!n || (ierr && strstr(cap.msg, "left the box")), "a particle out of the box: '%s'", cap.msg);
  CHECK_PETSC(SimProblemDestroy(&p));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

/* What the scene describes for solvers: walls (with -walls overriding), colliders (a plane's normal
 * made unit), material ids in order, and each particle's id = its index in the scene's order. */
START_TEST(scene_description_reaches_solvers)
{
  SimRegistry reg;
  SimProblem p;
  SimParticlesInfo in;
  SimParticlesCollider plane = {.shape = "plane", .bc = SIM_PARTICLES_SLIP, .a = {0, 0.2, 0}, .b = {0, 3, 4}};
  SimParticlesMaterial jelly = {.label = "jelly", .elastic = "fixed_corotated", .plastic = "none", .youngs = 1e4, .poisson = 0.2, .density = 1};
  TestErrorCapture cap = {{0}};
  PetscErrorCode ierr;
  DM sw;
  PetscReal *x, *id;
  PetscInt n;

  CHECK_PETSC(TestSetOptions("-walls slip,sticky,separate:0.5,slip"));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimProblemCreate(reg, "particles", "block", PETSC_COMM_WORLD, &p));
  CHECK_PETSC(SimParticlesSetDomain(p, 2, (PetscReal[3]){0, 0, 0}, (PetscReal[3]){1, 1, 0}, 8));
  CHECK_PETSC(SimParticlesGetInfo(p, &in));
  ck_assert_double_eq(in.walls.thickness, 0.125); /* one cell by default */
  CHECK_PETSC(SimParticlesSetWalls(p, "sticky", 0.25, 0.3));
  CHECK_PETSC(SimParticlesAddCollider(p, &plane));
  CHECK_PETSC(SimParticlesSetMaterial(p, 0, &jelly));
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimParticlesSetMaterial(p, 2, &jelly);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr && strstr(cap.msg, "described in order"), "material id out of order: '%s'", cap.msg);
  cap.msg[0] = 0;
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimParticlesSetWalls(p, "sticky,slip,glue,slip", 0.25, 0);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr && strstr(cap.msg, "unknown boundary condition 'glue'"), "bad wall: '%s'", cap.msg);
  cap.msg[0] = 0;
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimParticlesSetWalls(p, "sticky,slip", 0.25, 0);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr && strstr(cap.msg, "give one for every side or 4"), "two walls of four: '%s'", cap.msg);
  {
    const PetscReal x0[6] = {0.3, 0.3, 0.6, 0.3, 0.3, 0.7}, m[3] = {1, 1, 1}, vol[3] = {1, 1, 1};
    CHECK_PETSC(SimParticlesAdd(p, 3, x0, NULL, m, vol, NULL));
  }
  CHECK_PETSC(SimProblemSetUp(p));
  CHECK_PETSC(SimParticlesGetInfo(p, &in));
  ck_assert_int_eq(in.walls.bc[0], SIM_PARTICLES_SLIP); /* -walls overrides the scene */
  ck_assert_int_eq(in.walls.bc[1], SIM_PARTICLES_STICKY);
  ck_assert_int_eq(in.walls.bc[2], SIM_PARTICLES_SEPARATE);
  ck_assert_int_eq(in.walls.bc[3], SIM_PARTICLES_SLIP);
  ck_assert_double_eq(in.walls.thickness, 0.25);
  ck_assert_double_eq(in.walls.friction[0], 0.3); /* the scene's */
  ck_assert_double_eq(in.walls.friction[2], 0.5); /* the option's for the floor */
  ck_assert_int_eq(in.ncolliders, 1);
  ck_assert_double_eq_tol(in.colliders[0].b[1], 0.6, 1e-15);
  ck_assert_double_eq_tol(in.colliders[0].b[2], 0.8, 1e-15);
  ck_assert_int_eq(in.nmaterials, 1);
  ck_assert_str_eq(in.materials[0].elastic, "fixed_corotated");
  CHECK_PETSC(SimParticlesGetSwarm(p, &sw));
  CHECK_PETSC(DMSwarmGetLocalSize(sw, &n));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  CHECK_PETSC(DMSwarmGetField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  for (PetscInt i = 0; i < n; i++) /* the scene added (0.3, 0.3), (0.6, 0.3), (0.3, 0.7) */
    ck_assert_double_eq(id[i], x[2 * i] > 0.5 ? 1 : x[2 * i + 1] > 0.5 ? 2 : 0);
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  CHECK_PETSC(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  CHECK_PETSC(SimProblemDestroy(&p));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("particles");
  TCase *tc = tcase_create("particles");
  tcase_add_test(tc, particles_reach_their_owner_with_every_field);
  tcase_add_test(tc, migration_keeps_particles_and_mass);
  tcase_add_test(tc, stash_and_checkpoint_are_exact);
  tcase_add_test(tc, frame_carries_every_field);
  tcase_add_test(tc, bad_input_names_the_particle);
  tcase_add_test(tc, scene_description_reaches_solvers);
  suite_add_tcase(s, tc);
  return s;
}
