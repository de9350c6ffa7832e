/* The mpm solver (solvers/mpm): the B-spline weights, conservation of the transfers (mass and linear
 * momentum for every transfer; angular momentum for APIC and MLS, which PIC loses), FLIP's blend of
 * the grid's velocity change, the box walls' conditions on the grid, a rigidly rotating elastic
 * block, the plasticity return mappings on their yield surfaces, and bad input (a particle
 * leaving the grid, an inverted particle, a substep above the time step limit) failing the step with
 * a message naming it. Under mpirun -np 2 (tests/cli/mpm.cmake) the block tests run across the rank
 * boundary. */
#include <stdio.h>
#include "testing.h"
#include "solvers/mpm/mpm.h"
#include "framework/linalg/svd3.h"

/* ---- weights ---- */
START_TEST(weights_partition_unity_and_reproduce_linear_fields)
{
  for (int K = 3; K <= 4; K++)
    for (int s = 0; s <= 200; s++) {
      const PetscReal xh = 7 + s / 200.0 * (s == 200 ? 0.999999 : 1), dinv = K == 3 ? 4 : 3;
      PetscReal w[4] = {0}, dw[4] = {0}, fx, sw = 0, sx = 0, sdw = 0, sdx = 0, sxx = 0;
      const PetscInt base = MPMWeights1(K, xh, w, dw, &fx);
      ck_assert_double_eq_tol(base + fx, xh, 1e-14);
      for (int i = 0; i < K; i++) {
        const PetscReal d = base + i - xh; /* node - particle, in cells */
        ck_assert_msg(w[i] >= 0, "K %d xh %g: w[%d] = %g < 0", K, xh, i, w[i]);
        sw += w[i], sx += w[i] * d, sxx += w[i] * d * d, sdw += dw[i], sdx += dw[i] * d;
      }
      ck_assert_msg(PetscAbsReal(sw - 1) < 1e-14, "K %d: sum w = 1 + %g", K, sw - 1);   /* partition of unity */
      ck_assert_msg(PetscAbsReal(sx) < 1e-14, "K %d: sum w (x_i - x_p) = %g", K, sx);   /* reproduces x */
      ck_assert_msg(PetscAbsReal(sdw) < 1e-14, "K %d: sum grad w = %g", K, sdw);        /* gradient of a constant */
      ck_assert_msg(PetscAbsReal(sdx - 1) < 1e-14, "K %d: sum grad w (x_i - x_p) = %g", K, sdx); /* gradient of x is 1 */
      ck_assert_msg(PetscAbsReal(sxx - 1 / dinv) < 1e-14, "K %d: D = %g, not h^2/%g", K, sxx, dinv);
      /* dw is the derivative of w: a central difference */
      for (int i = 0; i < K && s > 0 && s < 200; i++) {
        const PetscReal e = 1e-6;
        PetscReal wp[4], wm[4], dd[4], f2;
        if (MPMWeights1(K, xh + e, wp, dd, &f2) != base || MPMWeights1(K, xh - e, wm, dd, &f2) != base) continue; /* at a knot */
        ck_assert_msg(PetscAbsReal((wp[i] - wm[i]) / (2 * e) - dw[i]) < 1e-8, "K %d: dw[%d] = %g, difference %g", K, i, dw[i], (wp[i] - wm[i]) / (2 * e));
      }
    }
}
END_TEST

/* ---- a block of particles in a box, for the solver tests ---- */
typedef struct {
  PetscInt dim, n;           /* cells across the unit box */
  PetscReal lo, hi;          /* the block [lo, hi]^dim */
  PetscReal omega, v0[3];    /* velocity omega e_z x (x - c) + v0 - squeeze (x - c)_x e_x */
  PetscReal squeeze;
  const char *elastic, *plastic;
  PetscReal youngs;
  PetscBool oblong; /* the box 1 x 1.5 (x 1.25) instead of the unit box */
  PetscReal gravity[3];
} BlockSpec;

static PetscErrorCode BlockProblem(MPI_Comm comm, SimRegistry reg, const BlockSpec *b, SimProblem *p)
{
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, b->oblong ? 1.5 : 1, b->dim == 3 ? (b->oblong ? 1.25 : 1) : 0}, *g = b->gravity, h = 1.0 / b->n, c = 0.5 * (b->lo + b->hi);
  SimParticlesMaterial mat = {.label = "block", .youngs = b->youngs, .poisson = 0.3, .density = 1000};
  PetscInt np = 0, m = (PetscInt)PetscFloorReal((b->hi - b->lo) / (0.5 * h) + 1e-9);
  PetscReal *x, *v, *ms, *vol;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(mat.elastic, b->elastic, sizeof(mat.elastic)));
  PetscCall(PetscStrncpy(mat.plastic, b->plastic, sizeof(mat.plastic)));
  PetscCall(PetscStrncpy(mat.prefix, "block_", sizeof(mat.prefix)));
  PetscCall(SimProblemCreate(reg, "particles", "block", comm, p));
  PetscCall(SimParticlesSetDomain(*p, b->dim, lo, hi, b->n));
  PetscCall(SimParticlesSetGravity(*p, g));
  PetscCall(SimParticlesSetWalls(*p, "slip", 2 * h, 0));
  PetscCall(SimParticlesSetMaterial(*p, 0, &mat));
  np = m * m * (b->dim == 3 ? m : 1);
  PetscCall(PetscMalloc4(b->dim * np, &x, b->dim * np, &v, np, &ms, np, &vol));
  for (PetscInt k = 0, q = 0; k < (b->dim == 3 ? m : 1); k++)
    for (PetscInt j = 0; j < m; j++)
      for (PetscInt i = 0; i < m; i++, q++) {
        const PetscInt ijk[3] = {i, j, k};
        for (PetscInt d = 0; d < b->dim; d++) x[b->dim * q + d] = b->lo + (ijk[d] + 0.5) * 0.5 * h + 0.01 * h * PetscSinReal(3.0 * q + d); /* a little disorder */
        v[b->dim * q] = -b->omega * (x[b->dim * q + 1] - c) + b->v0[0] - b->squeeze * (x[b->dim * q] - c);
        v[b->dim * q + 1] = b->omega * (x[b->dim * q] - c) + b->v0[1];
        if (b->dim == 3) v[b->dim * q + 2] = b->v0[2];
        vol[q] = PetscPowReal(0.5 * h, b->dim), ms[q] = 1000 * vol[q];
      }
  PetscCall(SimParticlesAdd(*p, np, x, v, ms, vol, NULL));
  PetscCall(PetscFree4(x, v, ms, vol));
  PetscCall(SimProblemSetUp(*p));
  PetscFunctionReturn(0);
}

/* The mpm solver on a block (options replace the database), set up and ready to step. */
static PetscErrorCode BlockSolver(const char *opts, const BlockSpec *b, SimRegistry *reg, SimProblem *p, SimSolver *s)
{
  PetscFunctionBeginUser;
  PetscCall(TestSetOptions(opts));
  PetscCall(TestRegistryCreate(reg));
  PetscCall(BlockProblem(PETSC_COMM_WORLD, *reg, b, p));
  PetscCall(SimSolverCreate(*reg, "mpm", *p, s));
  PetscCall(SimSolverSetFromOptions(*s));
  PetscCall(SimSolverSetUp(*s));
  PetscFunctionReturn(0);
}

static PetscErrorCode BlockSolverDestroy(SimRegistry *reg, SimProblem *p, SimSolver *s)
{
  PetscFunctionBeginUser;
  PetscCall(SimSolverDestroy(s));
  PetscCall(SimProblemDestroy(p));
  PetscCall(SimRegistryDestroy(reg));
  PetscFunctionReturn(0);
}

/* Sums over the grid's owned nodes (in the rank's patch): mass and momentum (grid holding momentum)
 * or m v (velocity). */
static PetscErrorCode GridSums(MPM *mpm, PetscBool velocity, PetscReal sum[4])
{
  const PetscReal *g;
  PetscInt xs[3] = {0, 0, 0}, xm[3] = {1, 1, 1};

  PetscFunctionBeginUser;
  for (int k = 0; k < 4; k++) sum[k] = 0;
  PetscCall(DMDAGetCorners(mpm->da, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  if (mpm->dim == 2) xs[2] = 0, xm[2] = 1;
  PetscCall(VecGetArrayRead(mpm->gl, &g));
  for (PetscInt k = xs[2]; k < xs[2] + xm[2]; k++)
    for (PetscInt j = xs[1]; j < xs[1] + xm[1]; j++)
      for (PetscInt i = xs[0]; i < xs[0] + xm[0]; i++) {
        const PetscReal *nd = g + (((k - mpm->gs[2]) * mpm->gm[1] + j - mpm->gs[1]) * mpm->gm[0] + i - mpm->gs[0]) * mpm->dof, m = nd[mpm->dim];
        sum[3] += m;
        for (PetscInt d = 0; d < mpm->dim; d++) sum[d] += velocity ? m * nd[d] : nd[d] + (mpm->transfer->flip ? nd[mpm->dim + 1 + d] : 0);
      }
  PetscCall(VecRestoreArrayRead(mpm->gl, &g));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sum, 4, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)mpm->da)));
  PetscFunctionReturn(0);
}

/* Particle mass and momentum. */
static PetscErrorCode ParticleSums(SimProblem p, PetscReal sum[4])
{
  SimEnergyReport rep;
  PetscBool has;
  PetscInt n;
  PetscReal *m;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimProblemReport(p, &rep, &has));
  for (int d = 0; d < 3; d++) sum[d] = rep.momentum[d];
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  sum[3] = 0;
  for (PetscInt i = 0; i < n; i++) sum[3] += m[i];
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &sum[3], 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)sw)));
  PetscFunctionReturn(0);
}

/* Random velocities, affine C (APIC and MLS) and F near I (so the stress is not zero), then the stress. */
static PetscErrorCode Disturb(SimSolver s, MPM *mpm)
{
  DM sw;
  PetscInt n, D = mpm->dim;
  PetscReal *v, *C, *F, *id, speed;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_C, NULL, NULL, (void **)&C));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_F, NULL, NULL, (void **)&F));
  for (PetscInt p = 0; p < n; p++) {
    const PetscReal t = id[p]; /* the same values on any number of ranks */
    for (PetscInt d = 0; d < D; d++) v[D * p + d] = PetscSinReal(1.3 * t + 2.1 * d);
    for (PetscInt q = 0; q < D * D; q++) {
      if (mpm->transfer->affine) C[D * D * p + q] = 3 * PetscCosReal(0.7 * t + q);
      F[D * D * p + q] = (q % (D + 1) == 0) + 0.02 * PetscSinReal(0.3 * t + 1.7 * q);
    }
  }
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_F, NULL, NULL, (void **)&F));
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_C, NULL, NULL, (void **)&C));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(MPMComputeStress(s, mpm, &speed));
  PetscFunctionReturn(0);
}

static const char *transfer_names[4] = {"pic", "flip", "apic", "mls"};

START_TEST(transfers_conserve_mass_and_momentum)
{
  for (PetscInt dim = 2; dim <= 3; dim++)
    for (int t = 0; t < 4; t++)
      for (int K = 3; K <= 4; K++) {
        char opts[256];
        SimRegistry reg;
        SimProblem p;
        SimSolver s;
        MPM *mpm;
        PetscReal before[4], grid[4], after[4], bad[7], speed;
        PetscInt strays;
        const BlockSpec b = {.dim = dim, .n = dim == 2 ? 16 : 8, .lo = 0.3, .hi = 0.7, .elastic = "fixed_corotated", .plastic = "none", .youngs = 1e5};

        CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-mpm_transfer %s -mpm_kernel %s", transfer_names[t], K == 3 ? "quadratic" : "cubic"));
        CHECK_PETSC(BlockSolver(opts, &b, &reg, &p, &s));
        mpm = (MPM *)s->data;
        CHECK_PETSC(Disturb(s, mpm));
        CHECK_PETSC(ParticleSums(p, before));
        CHECK_PETSC(MPMParticlesToGrid(s, mpm, 1e-4));
        CHECK_PETSC(GridSums(mpm, PETSC_FALSE, grid));
        for (PetscInt d = 0; d < 4; d++)
          ck_assert_msg(PetscAbsReal(grid[d] - before[d]) <= 1e-13 * (PetscAbsReal(before[d]) + before[3]), "%dD %s K=%d: P2G changes %s %" PetscInt_FMT ": %.17g -> %.17g",
                        (int)dim, transfer_names[t], K, d < 3 ? "momentum" : "mass", d, before[d], grid[d]);
        CHECK_PETSC(MPMGridUpdate(s, mpm, 1e-4));
        CHECK_PETSC(GridSums(mpm, PETSC_TRUE, grid));
        CHECK_PETSC(MPMGridToParticles(s, mpm, 1e-4, bad, &speed, &strays));
        ck_assert(bad[0] < 0);
        CHECK_PETSC(ParticleSums(p, after));
        for (PetscInt d = 0; d < 4; d++)
          ck_assert_msg(PetscAbsReal(after[d] - grid[d]) <= 1e-13 * (PetscAbsReal(grid[d]) + grid[3]),
                        "%dD %s K=%d: G2P changes %s %" PetscInt_FMT ": %.17g -> %.17g", (int)dim, transfer_names[t], K, d < 3 ? "momentum" : "mass", d, grid[d],
                        after[d]);
        CHECK_PETSC(BlockSolverDestroy(&reg, &p, &s));
      }
}
END_TEST

/* The angular momentum figure(s) of the solver: z in 2D, (x, y, z) in 3D. */
static PetscErrorCode AngularMomentum(SimSolver s, PetscReal L[3])
{
  const char *names[SIM_MAX_FIGURES];
  PetscReal values[SIM_MAX_FIGURES];
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCall(SimSolverFigures(s, &n, names, values));
  L[0] = L[1] = L[2] = 0;
  for (PetscInt f = 0; f < n; f++) {
    if (!strcmp(names[f], "angular_momentum") || !strcmp(names[f], "angular_momentum_z")) L[2] = values[f];
    if (!strcmp(names[f], "angular_momentum_x")) L[0] = values[f];
    if (!strcmp(names[f], "angular_momentum_y")) L[1] = values[f];
  }
  PetscFunctionReturn(0);
}

/* Sets the particles' velocities to a field that varies from particle to particle (the same on any
 * number of ranks: a function of the id), F = I, C = 0 and zero stress: no elastic force. */
static PetscErrorCode RandomVelocities(SimProblem p, PetscInt D)
{
  DM sw;
  PetscInt n;
  PetscReal *v, *id;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  for (PetscInt q = 0; q < n; q++)
    for (PetscInt d = 0; d < D; d++) v[D * q + d] = PetscSinReal(1.3 * id[q] + 2.1 * d) + (d == 0 ? -0.3 : 0.2);
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscFunctionReturn(0);
}

/* The velocities by particle id after one substep of a block with varying velocities under gravity
 * and no stress (F = I), with -mpm_transfer flip at this ratio. */
static PetscErrorCode FlipSubstep(PetscInt dim, PetscReal ratio, PetscReal dt, PetscReal **vel, PetscReal **v0, PetscInt *nglobal)
{
  char opts[128];
  SimRegistry reg;
  SimProblem p;
  SimSolver s;
  MPM *mpm;
  DM sw;
  PetscInt n, strays;
  PetscReal *v, *id, bad[7], speed;
  const BlockSpec b = {.dim = dim, .n = dim == 2 ? 16 : 8, .lo = 0.35, .hi = 0.65, .elastic = "fixed_corotated", .plastic = "none", .youngs = 1e4, .gravity = {0.5, -9.81, 2}};

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-mpm_transfer flip -mpm_flip_ratio %g", (double)ratio));
  PetscCall(BlockSolver(opts, &b, &reg, &p, &s));
  mpm = (MPM *)s->data;
  PetscCall(RandomVelocities(p, dim));
  PetscCall(SimParticlesGetSizes(p, NULL, nglobal));
  PetscCall(PetscCalloc1(dim * *nglobal, vel));
  PetscCall(PetscCalloc1(dim * *nglobal, v0));
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  for (PetscInt q = 0; q < n; q++)
    for (PetscInt d = 0; d < dim; d++) (*v0)[dim * (PetscInt)id[q] + d] = v[dim * q + d];
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(MPMParticlesToGrid(s, mpm, dt));
  PetscCall(MPMGridUpdate(s, mpm, dt));
  PetscCall(MPMGridToParticles(s, mpm, dt, bad, &speed, &strays));
  PetscCheck(bad[0] < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "particle %g in a bad state", (double)bad[0]);
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  for (PetscInt q = 0; q < n; q++)
    for (PetscInt d = 0; d < dim; d++) (*vel)[dim * (PetscInt)id[q] + d] = v[dim * q + d];
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, *vel, dim * *nglobal, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, *v0, dim * *nglobal, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(BlockSolverDestroy(&reg, &p, &s));
  PetscFunctionReturn(0);
}

/* FLIP (Brackbill & Ruppel 1986) passes the grid's velocity change to each particle unfiltered: with
 * no stress, every node of the block gains g dt, so at ratio 1 every particle gains exactly g dt
 * (sum_i w_ip = 1) while keeping its own velocity; at ratio 0 the result is PIC's, the interpolated
 * grid velocity, which smooths the particles' differences away; a ratio alpha blends the two
 * linearly: v(alpha) = alpha (v0 + g dt) + (1 - alpha) v(0). */
START_TEST(flip_passes_the_grid_velocity_change_to_each_particle)
{
  const PetscReal g[3] = {0.5, -9.81, 2}, dt = 1e-3;
  for (PetscInt dim = 2; dim <= 3; dim++) {
    PetscReal *v1, *vh, *vp, *v0, smooth = 0, err1 = 0, errh = 0, scale = 0;
    PetscInt n;
    CHECK_PETSC(FlipSubstep(dim, 1, dt, &v1, &v0, &n));
    CHECK_PETSC(PetscFree(v0));
    CHECK_PETSC(FlipSubstep(dim, 0.3, dt, &vh, &v0, &n));
    CHECK_PETSC(PetscFree(v0));
    CHECK_PETSC(FlipSubstep(dim, 0, dt, &vp, &v0, &n));
    for (PetscInt q = 0; q < n; q++)
      for (PetscInt d = 0; d < dim; d++) {
        const PetscInt k = dim * q + d;
        const PetscReal flip = v0[k] + g[d] * dt;
        scale = PetscMax(scale, PetscAbsReal(flip));
        err1 = PetscMax(err1, PetscAbsReal(v1[k] - flip));
        errh = PetscMax(errh, PetscAbsReal(vh[k] - (0.3 * flip + 0.7 * vp[k])));
        smooth = PetscMax(smooth, PetscAbsReal(vp[k] - flip));
      }
    ck_assert_msg(err1 <= 1e-13 * scale, "%dD flip ratio 1: a particle's velocity differs from v0 + g dt by %g", (int)dim, err1);
    ck_assert_msg(errh <= 1e-13 * scale, "%dD flip ratio 0.3: not the blend 0.3 FLIP + 0.7 PIC (%g)", (int)dim, errh);
    ck_assert_msg(smooth > 0.05 * scale, "%dD flip ratio 0 (PIC) keeps each particle's velocity (%g): the test cannot tell the two apart", (int)dim, smooth);
    CHECK_PETSC(PetscFree(v0));
    CHECK_PETSC(PetscFree(v1));
    CHECK_PETSC(PetscFree(vh));
    CHECK_PETSC(PetscFree(vp));
  }
}
END_TEST

/* The box walls (Stomakhin et al. 2013, section 8) on the grid velocity: a block thrown at the
 * corner x-, y- with velocities of both signs across it, one substep of PIC with no stress and no
 * gravity. A node with mass in a wall's layer (within the wall thickness of the side) leaves the
 * grid update with its free velocity p / m changed by each wall it is in, n the wall's inward normal:
 * sticky: 0; slip: the normal part removed, v - (v.n) n, both ways; separate: the normal part
 * removed only while it approaches (v.n < 0). Nodes outside every layer keep p / m. */
START_TEST(walls_apply_their_condition_on_the_grid)
{
  const char *bcs[3] = {"sticky", "slip", "separate"};
  for (PetscInt dim = 2; dim <= 3; dim++)
    for (int c = 0; c < 3; c++) {
      char opts[128];
      SimRegistry reg;
      SimProblem p;
      SimSolver s;
      MPM *mpm;
      PetscReal *g, *before, err = 0, scale = 0, th;
      PetscInt len, in_layer = 0, moved[2] = {0, 0};
      const PetscInt N = dim == 2 ? 16 : 8;
      const BlockSpec b = {.dim = dim, .n = N, .lo = 1.1 / N, .hi = 0.45, .elastic = "fixed_corotated", .plastic = "none", .youngs = 1e4};

      CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-mpm_transfer pic -walls %s", bcs[c]));
      CHECK_PETSC(BlockSolver(opts, &b, &reg, &p, &s));
      mpm = (MPM *)s->data;
      th = mpm->info.walls.thickness;
      CHECK_PETSC(RandomVelocities(p, dim));
      CHECK_PETSC(MPMParticlesToGrid(s, mpm, 1e-4));
      CHECK_PETSC(VecGetLocalSize(mpm->gl, &len));
      CHECK_PETSC(PetscMalloc1(len, &before));
      CHECK_PETSC(VecGetArray(mpm->gl, &g));
      CHECK_PETSC(PetscArraycpy(before, g, len));
      CHECK_PETSC(VecRestoreArray(mpm->gl, &g));
      CHECK_PETSC(MPMGridUpdate(s, mpm, 1e-4));
      CHECK_PETSC(VecGetArray(mpm->gl, &g));
      for (PetscInt q = 0; q < len / mpm->dof; q++) {
        const PetscReal *nb = before + q * mpm->dof, *na = g + q * mpm->dof, m = nb[dim];
        const PetscInt ijk[3] = {mpm->gs[0] + q % mpm->gm[0], mpm->gs[1] + (q / mpm->gm[0]) % mpm->gm[1], mpm->gs[2] + q / (mpm->gm[0] * mpm->gm[1])};
        PetscReal v[3] = {0, 0, 0};
        PetscBool layer = PETSC_FALSE;
        if (!(m > 0)) continue;
        for (PetscInt d = 0; d < dim; d++) v[d] = nb[d] / m, scale = PetscMax(scale, PetscAbsReal(v[d]));
        for (PetscInt d = 0; d < dim; d++) { /* the low side of axis d (the block is far from the high sides) */
          const PetscReal x = mpm->info.lo[d] + ijk[d] * mpm->info.h;
          if (x - mpm->info.lo[d] >= th) continue;
          layer = PETSC_TRUE;
          moved[v[d] > 0]++;
          if (c == 0) v[0] = v[1] = v[2] = 0;
          else if (c == 1 || v[d] < 0) v[d] = 0; /* n = e_d: v - (v.n) n */
        }
        in_layer += layer;
        for (PetscInt d = 0; d < dim; d++) err = PetscMax(err, PetscAbsReal(na[d] - v[d]));
      }
      CHECK_PETSC(VecRestoreArray(mpm->gl, &g));
      CHECK_PETSC(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD));
      CHECK_PETSC(MPI_Allreduce(MPI_IN_PLACE, &scale, 1, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD));
      CHECK_PETSC(MPI_Allreduce(MPI_IN_PLACE, &in_layer, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
      CHECK_PETSC(MPI_Allreduce(MPI_IN_PLACE, moved, 2, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
      ck_assert_msg(in_layer > 0 && moved[0] > 0 && moved[1] > 0, "%dD %s: %" PetscInt_FMT " nodes in a wall layer (%" PetscInt_FMT " approaching, %" PetscInt_FMT " leaving): nothing to test",
                    (int)dim, bcs[c], in_layer, moved[0], moved[1]);
      ck_assert_msg(err <= 1e-13 * scale, "%dD %s walls: a node's velocity differs from the condition's by %g (velocities ~%g)", (int)dim, bcs[c], err, scale);
      CHECK_PETSC(PetscFree(before));
      CHECK_PETSC(BlockSolverDestroy(&reg, &p, &s));
    }
}
END_TEST

/* A block spinning in free flight (no gravity, away from the walls): APIC and MLS keep its angular
 * momentum to round-off (Jiang et al. 2015), PIC loses a visible part of it every step. The box is
 * not a cube (the one-rank grid's row bookkeeping must follow each axis). */
START_TEST(apic_and_mls_conserve_angular_momentum_pic_loses_it)
{
  for (PetscInt dim = 2; dim <= 3; dim++)
    for (int t = 0; t < 4; t++) {
      char opts[256];
      SimRegistry reg;
      SimProblem p;
      SimSolver s;
      PetscReal L0[3], L1[3], rel;
      SimStepOutcome out;
      const BlockSpec b = {.dim = dim, .n = dim == 2 ? 24 : 12, .lo = 0.35, .hi = 0.65, .omega = 4, .v0 = {0.3, -0.2, 0.1}, .elastic = "fixed_corotated", .plastic = "none", .youngs = 1e4, .oblong = PETSC_TRUE};

      CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-mpm_transfer %s -mpm_substeps 2", transfer_names[t]));
      CHECK_PETSC(BlockSolver(opts, &b, &reg, &p, &s));
      CHECK_PETSC(AngularMomentum(s, L0));
      for (int k = 0; k < 10; k++) {
        CHECK_PETSC(SimSolverStep(s, 2e-3, &out));
        ck_assert_int_eq(out, SIM_STEP_OK);
      }
      CHECK_PETSC(AngularMomentum(s, L1));
      rel = PetscSqrtReal(PetscSqr(L1[0] - L0[0]) + PetscSqr(L1[1] - L0[1]) + PetscSqr(L1[2] - L0[2])) / PetscAbsReal(L0[2]);
      if (t >= 2) ck_assert_msg(rel < 1e-12, "%dD %s: angular momentum changed by %g relative (%.17g -> %.17g)", (int)dim, transfer_names[t], rel, L0[2], L1[2]);
      if (t == 0) ck_assert_msg(rel > 1e-2, "%dD pic: angular momentum changed only %g relative", (int)dim, rel);
      CHECK_PETSC(BlockSolverDestroy(&reg, &p, &s));
    }
}
END_TEST

/* An elastic block turning rigidly: F stays the rotation by omega t (and so a rotation). */
START_TEST(rigidly_rotating_block_keeps_F_a_rotation)
{
  for (PetscInt dim = 2; dim <= 3; dim++) {
    SimRegistry reg;
    SimProblem p;
    SimSolver s;
    SimStepOutcome out;
    DM sw;
    PetscInt n, D = dim;
    PetscReal *F, *C, err = 0, rot = 0;
    const PetscReal omega = 4, dt = 2e-3;
    const PetscInt steps = 50;
    /* stiff, so that the centrifugal stretch rho omega^2 L^2 / E stays ~1e-4 */
    const BlockSpec b = {.dim = dim, .n = dim == 2 ? 24 : 12, .lo = 0.35, .hi = 0.65, .omega = omega, .elastic = "fixed_corotated", .plastic = "none", .youngs = 1e7};

    CHECK_PETSC(BlockSolver("-mpm_substeps 0", &b, &reg, &p, &s));
    { /* start with the rotation's velocity gradient, as a block already turning */
      CHECK_PETSC(SimParticlesGetSwarm(p, &sw));
      CHECK_PETSC(DMSwarmGetLocalSize(sw, &n));
      CHECK_PETSC(DMSwarmGetField(sw, MPM_FIELD_C, NULL, NULL, (void **)&C));
      for (PetscInt q = 0; q < n; q++) C[D * D * q + 1] = -omega, C[D * D * q + D] = omega;
      CHECK_PETSC(DMSwarmRestoreField(sw, MPM_FIELD_C, NULL, NULL, (void **)&C));
    }
    for (PetscInt k = 0; k < steps; k++) {
      CHECK_PETSC(SimSolverStep(s, dt, &out));
      ck_assert_int_eq(out, SIM_STEP_OK);
    }
    CHECK_PETSC(SimParticlesGetSwarm(p, &sw));
    CHECK_PETSC(DMSwarmGetLocalSize(sw, &n));
    CHECK_PETSC(DMSwarmGetField(sw, MPM_FIELD_F, NULL, NULL, (void **)&F));
    for (PetscInt q = 0; q < n; q++) {
      const PetscReal th = omega * dt * steps, c = PetscCosReal(th), sn = PetscSinReal(th);
      const PetscReal R[3][3] = {{c, -sn, 0}, {sn, c, 0}, {0, 0, 1}};
      for (PetscInt i = 0; i < D; i++)
        for (PetscInt j = 0; j < D; j++) {
          PetscReal FtF = 0;
          for (PetscInt k = 0; k < D; k++) FtF += F[D * D * q + D * k + i] * F[D * D * q + D * k + j];
          err = PetscMax(err, PetscAbsReal(FtF - (i == j)));
          rot = PetscMax(rot, PetscAbsReal(F[D * D * q + D * i + j] - R[i][j]));
        }
    }
    CHECK_PETSC(DMSwarmRestoreField(sw, MPM_FIELD_F, NULL, NULL, (void **)&F));
    CHECK_PETSC(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    CHECK_PETSC(MPI_Allreduce(MPI_IN_PLACE, &rot, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    ck_assert_msg(err < 2e-3, "%dD: |F^T F - I| = %g after turning %g rad", (int)dim, err, (double)(omega * dt * steps));
    ck_assert_msg(rot < 2e-2, "%dD: |F - R(omega t)| = %g", (int)dim, rot);
    CHECK_PETSC(BlockSolverDestroy(&reg, &p, &s));
  }
}
END_TEST

/* ---- plasticity ---- */

/* A 3x3 F = U diag(s) V^T with rotations from angles a (2D: in the xy plane, F33 = 1). */
static void MakeF(PetscInt dim, const PetscReal s[3], PetscReal a, PetscReal b, PetscReal F[9])
{
  PetscReal U[9], V[9], ss[3] = {s[0], s[1], dim == 2 ? 1 : s[2]};
  const PetscReal ca = PetscCosReal(a), sa = PetscSinReal(a), cb = PetscCosReal(b), sb = PetscSinReal(b);
  /* U: about z by a (then about x by b in 3D); V: about z by b (then about y by a in 3D) */
  const PetscReal Uz[9] = {ca, -sa, 0, sa, ca, 0, 0, 0, 1}, Vz[9] = {cb, -sb, 0, sb, cb, 0, 0, 0, 1};
  const PetscReal Ux[9] = {1, 0, 0, 0, cb, -sb, 0, sb, cb}, Vy[9] = {ca, 0, sa, 0, 1, 0, -sa, 0, ca};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      U[3 * i + j] = V[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) {
        U[3 * i + j] += Uz[3 * i + k] * (dim == 3 ? Ux[3 * k + j] : (k == j));
        V[3 * i + j] += Vz[3 * i + k] * (dim == 3 ? Vy[3 * k + j] : (k == j));
      }
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) F[3 * i + j] = U[3 * i] * ss[0] * V[3 * j] + U[3 * i + 1] * ss[1] * V[3 * j + 1] + U[3 * i + 2] * ss[2] * V[3 * j + 2];
}

/* The singular values of F (3D: the SVD; 2D: of the upper block, third 1), sorted descending. */
static void Sigma(PetscInt dim, const PetscReal F[9], PetscReal s[3])
{
  PetscReal dec[21];
  ck_assert(MPMSvd(dim, F, dec) == 0);
  for (int k = 0; k < 3; k++) s[k] = dec[9 + k];
}

START_TEST(svd2_is_a_rotation_variant_svd)
{
  for (int t = 0; t < 200; t++) {
    const PetscReal F[4] = {PetscSinReal(t) * 2, PetscCosReal(3.1 * t), PetscSinReal(1.7 * t + 1), PetscCosReal(0.37 * t) * (t % 3 ? 1 : -1)};
    PetscReal dec[21], G[9];
    MPMSvd2(F, dec);
    MPMComposeSvd(dec, G);
    ck_assert_msg(PetscAbsReal(G[0] - F[0]) + PetscAbsReal(G[1] - F[1]) + PetscAbsReal(G[3] - F[2]) + PetscAbsReal(G[4] - F[3]) < 1e-13, "svd2 %d: U S V^T != F", t);
    ck_assert(G[8] == 1 && G[2] == 0 && G[5] == 0);
    ck_assert_msg(dec[9] >= PetscAbsReal(dec[10]) - 1e-14, "svd2 %d: s = %g %g", t, dec[9], dec[10]);
    ck_assert_double_eq_tol(dec[0] * dec[4] - dec[1] * dec[3], 1, 1e-13); /* det U = det V = 1 */
    ck_assert_double_eq_tol(dec[12] * dec[16] - dec[13] * dec[15], 1, 1e-13);
  }
}
END_TEST

/* The fixed-corotated fast path (no SVD: the polar R by Newton's iteration) gives the stress of the
 * material library's fixed corotated (P F^T from its SVD) for stretches from 0.3 to 3 and any
 * rotation, in 2D and 3D; its R is SimPolar3's, and an F with det F <= 0 is refused. After a return
 * mapping, the stress from the mapping's SVD is the library's too. */
START_TEST(corotated_fast_path_matches_the_material_library)
{
  SimRegistry reg;
  SimMaterial mat;
  MPMPlasticity pl;
  const PetscReal bad[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1};
  PetscReal R[9];

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimMaterialCreateWithParams(reg, "fixed_corotated", 1e5, 0.3, 1000, &mat));
  CHECK_PETSC(MPMPlasticityCreate("sand", "t_", mat->par.mu, mat->par.lambda, &pl));
  for (PetscInt dim = 2; dim <= 3; dim++)
    for (int t = 0; t < 300; t++) {
      const PetscReal amp = t < 100 ? 1e-3 : t < 200 ? 0.1 : 0.9; /* near F = R, moderate, large stretch */
      const PetscReal s0[3] = {PetscExpReal(amp * 1.2 * PetscSinReal(t)), PetscExpReal(amp * PetscSinReal(2.3 * t + 1)), PetscExpReal(amp * PetscSinReal(0.7 * t + 2))};
      const PetscReal vol = 1e-3 * (1 + 0.5 * PetscSinReal(t));
      PetscReal F[9], P[9], tau[6], J, ref[3][3], nref = 0, err = 0, Rref[9];
      const PetscInt ns = dim == 2 ? 3 : 6, map[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}}, map2[3][2] = {{0, 0}, {1, 1}, {0, 1}};
      MakeF(dim, s0, 0.9 * t, 0.37 * t + 0.2, F);
      CHECK_PETSC(SimMaterialPK1(mat, 1, F, P));
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          ref[r][c] = vol * (P[3 * r] * F[3 * c] + P[3 * r + 1] * F[3 * c + 1] + P[3 * r + 2] * F[3 * c + 2]);
          nref += ref[r][c] * ref[r][c];
        }
      CHECK_PETSC(MPMCorotatedStress(dim, 1, F, &vol, mat->par.mu, mat->par.lambda, tau, &J));
      for (PetscInt q = 0; q < ns; q++) {
        const PetscInt r = dim == 2 ? map2[q][0] : map[q][0], c = dim == 2 ? map2[q][1] : map[q][1];
        err = PetscMax(err, PetscAbsReal(tau[q] - ref[r][c]));
      }
      ck_assert_msg(err <= 1e-12 * PetscSqrtReal(nref) + 1e-12 * vol * (mat->par.mu + mat->par.lambda), "%dD case %d: stress differs by %g (|tau| %g)", (int)dim, t, err,
                    PetscSqrtReal(nref));
      ck_assert_double_eq_tol(J, s0[0] * s0[1] * (dim == 3 ? s0[2] : 1), 1e-12 * J);
      { /* after a return mapping (sand's: it moves the singular values the most), from its SVD */
        PetscReal Fe[9], dec[21], st = 0, scale, tsvd[6], P2[9], nr = 0, e2 = 0;
        for (int k = 0; k < 9; k++) Fe[k] = F[k];
        pl->type->project(pl, dim, 1, Fe, &st, dec, &scale);
        CHECK_PETSC(SimMaterialPK1(mat, 1, Fe, P2));
        MPMCorotatedStressSvd(dim, 1, dec, &vol, &scale, mat->par.mu, mat->par.lambda, tsvd);
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++) {
            ref[r][c] = vol * scale * (P2[3 * r] * Fe[3 * c] + P2[3 * r + 1] * Fe[3 * c + 1] + P2[3 * r + 2] * Fe[3 * c + 2]);
            nr += ref[r][c] * ref[r][c];
          }
        for (PetscInt q = 0; q < ns; q++) {
          const PetscInt r = dim == 2 ? map2[q][0] : map[q][0], c = dim == 2 ? map2[q][1] : map[q][1];
          e2 = PetscMax(e2, PetscAbsReal(tsvd[q] - ref[r][c]));
        }
        ck_assert_msg(e2 <= 1e-12 * PetscSqrtReal(nr) + 1e-12 * vol * (mat->par.mu + mat->par.lambda), "%dD case %d: stress from the SVD differs by %g (|tau| %g)", (int)dim, t,
                      e2, PetscSqrtReal(nr));
      }
      if (dim == 3) {
        ck_assert(MPMPolarNewton(F, R));
        CHECK_PETSC(SimPolar3(F, Rref, NULL));
        for (int k = 0; k < 9; k++) ck_assert_msg(PetscAbsReal(R[k] - Rref[k]) < 1e-13, "case %d: R[%d] = %.17g, SimPolar3 %.17g", t, k, R[k], Rref[k]);
      }
    }
  ck_assert(!MPMPolarNewton(bad, R));
  if (__builtin_cpu_supports("avx")) { /* the AVX batch: bit for bit the scalar one, lanes in any state (near R, large stretch, a reflection: fallback), n not a multiple of 4 */
    enum { N = 303 };
    PetscReal *F9, *vol, *tau[2], *J[2];
    CHECK_PETSC(PetscMalloc6(9 * N, &F9, N, &vol, 6 * N, &tau[0], 6 * N, &tau[1], N, &J[0], N, &J[1]));
    for (int t = 0; t < N; t++) {
      const PetscReal amp = t % 3 == 0 ? 1e-3 : t % 3 == 1 ? 0.1 : 0.9;
      const PetscReal s0[3] = {PetscExpReal(amp * 1.2 * PetscSinReal(t)), PetscExpReal(amp * PetscSinReal(2.3 * t + 1)), PetscExpReal(amp * PetscSinReal(0.7 * t + 2))};
      MakeF(3, s0, 0.9 * t, 0.37 * t + 0.2, F9 + 9 * t);
      vol[t] = 1e-3 * (1 + 0.5 * PetscSinReal(t));
    }
    for (int k = 0; k < 9; k++) F9[9 * 101 + k] = bad[k];
    CHECK_PETSC(MPMCorotatedStress(3, N, F9, vol, mat->par.mu, mat->par.lambda, tau[0], J[0]));
    CHECK_PETSC(MPMCorotatedStress3Avx(N, F9, vol, mat->par.mu, mat->par.lambda, tau[1], J[1], PETSC_FALSE));
    for (int t = 0; t < N; t++) {
      ck_assert_msg(J[1][t] == J[0][t], "AVX case %d: J %.17g, scalar %.17g", t, J[1][t], J[0][t]);
      for (int q = 0; q < 6; q++) ck_assert_msg(tau[1][6 * t + q] == tau[0][6 * t + q], "AVX case %d: tau[%d] %.17g, scalar %.17g", t, q, tau[1][6 * t + q], tau[0][6 * t + q]);
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) { /* with fused multiply-add: the scalar results to round-off */
      CHECK_PETSC(MPMCorotatedStress3Avx(N, F9, vol, mat->par.mu, mat->par.lambda, tau[1], J[1], PETSC_TRUE));
      for (int t = 0; t < N; t++) {
        const PetscReal tol = 1e-12 * vol[t] * (mat->par.mu + mat->par.lambda) * (1 + PetscAbsReal(J[0][t]) * PetscAbsReal(J[0][t]));
        ck_assert_msg(PetscAbsReal(J[1][t] - J[0][t]) <= 1e-14 * (1 + PetscAbsReal(J[0][t])), "FMA case %d: J %.17g, scalar %.17g", t, J[1][t], J[0][t]);
        for (int q = 0; q < 6; q++)
          ck_assert_msg(PetscAbsReal(tau[1][6 * t + q] - tau[0][6 * t + q]) <= tol, "FMA case %d: tau[%d] %.17g, scalar %.17g", t, q, tau[1][6 * t + q], tau[0][6 * t + q]);
      }
    }
    CHECK_PETSC(PetscFree6(F9, vol, tau[0], tau[1], J[0], J[1]));
  }
  CHECK_PETSC(MPMPlasticityDestroy(&pl));
  CHECK_PETSC(SimMaterialDestroy(&mat));
  CHECK_PETSC(SimRegistryDestroy(&reg));
}
END_TEST

START_TEST(snow_returns_onto_its_clamp)
{
  MPMPlasticity pl;
  const PetscReal tc = 2.5e-2, ts = 7.5e-3;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(MPMPlasticityCreate("snow", "t_", 1, 1, &pl));
  for (PetscInt dim = 2; dim <= 3; dim++)
    for (int t = 0; t < 100; t++) {
      const PetscReal s0[3] = {1 + 0.05 * PetscSinReal(t), 1 + 0.05 * PetscSinReal(2.3 * t + 1), 1 + 0.05 * PetscSinReal(0.7 * t + 2)};
      PetscReal F[9], s[3], dec[21], scale, Jp = 1.1, Jp0 = Jp, Jt = s0[0] * s0[1] * (dim == 3 ? s0[2] : 1), Je = 1;
      MakeF(dim, s0, 0.3 * t, 0.11 * t, F);
      pl->type->project(pl, dim, 1, F, &Jp, dec, &scale);
      Sigma(dim, F, s);
      for (PetscInt k = 0; k < dim; k++) {
        ck_assert_msg(s[k] >= 1 - tc - 1e-14 && s[k] <= 1 + ts + 1e-14, "%dD: singular value %g outside [%g, %g]", (int)dim, s[k], 1 - tc, 1 + ts);
        Je *= s[k];
      }
      /* each trial value outside the band lands on its edge: the sorted trial and returned values pair up */
      {
        PetscReal st[3] = {s0[0], s0[1], s0[2]};
        for (int i = 0; i < (int)dim; i++)
          for (int j = i + 1; j < (int)dim; j++)
            if (st[j] > st[i]) { PetscReal tmp = st[i]; st[i] = st[j]; st[j] = tmp; }
        for (PetscInt k = 0; k < dim; k++) ck_assert_double_eq_tol(s[k], PetscMin(PetscMax(st[k], 1 - tc), 1 + ts), 1e-13);
      }
      ck_assert_msg(PetscAbsReal(Jp * Je - Jp0 * Jt) < 1e-13, "%dD: Jp J_E = %g, Jp0 J_trial = %g", (int)dim, Jp * Je, Jp0 * Jt);
      ck_assert_double_eq_tol(scale, PetscExpReal(10 * (1 - Jp)), 1e-12);
      if (dim == 2) ck_assert(F[8] == 1);
    }
  CHECK_PETSC(MPMPlasticityDestroy(&pl));
}
END_TEST

/* Sand's yield function at log strains eps (d of them) for Lame mu, lambda and alpha:
 * y = |dev tau| + alpha tr tau with tau = 2 mu eps + lambda tr(eps) 1. */
static PetscReal SandYield(PetscInt d, const PetscReal eps[3], PetscReal mu, PetscReal lambda, PetscReal alpha)
{
  PetscReal tr = 0, tau[3], trt = 0, dev = 0;
  for (PetscInt k = 0; k < d; k++) tr += eps[k];
  for (PetscInt k = 0; k < d; k++) tau[k] = 2 * mu * eps[k] + lambda * tr, trt += tau[k];
  for (PetscInt k = 0; k < d; k++) dev += PetscSqr(tau[k] - trt / d);
  return PetscSqrtReal(dev) + alpha * trt;
}

START_TEST(sand_returns_onto_the_drucker_prager_cone)
{
  MPMPlasticity pl;
  const PetscReal mu = 3e5, lambda = 5e5;
  PetscInt plastic = 0, elastic = 0, tension = 0;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(MPMPlasticityCreate("sand", "t_", mu, lambda, &pl));
  for (PetscInt dim = 2; dim <= 3; dim++)
    for (int t = 0; t < 300; t++) {
      const PetscReal s0[3] = {1 + 0.04 * PetscSinReal(t) - 0.01, 1 + 0.04 * PetscSinReal(2.3 * t + 1) - 0.01, 1 + 0.04 * PetscSinReal(0.7 * t + 2) - 0.01};
      PetscReal F[9], dec[21], scale, q = 0.1 * (t % 5), q0 = q, et[3], en[3], trt = 0, trn = 0, alpha, phi;
      MakeF(dim, s0, 0.3 * t, 0.11 * t, F);
      phi = (35 + (9 * q0 - 10) * PetscExpReal(-0.2 * q0)) * PETSC_PI / 180;
      alpha = PetscSqrtReal(2.0 / 3.0) * 2 * PetscSinReal(phi) / (3 - PetscSinReal(phi));
      pl->type->project(pl, dim, 1, F, &q, dec, &scale);
      ck_assert_double_eq(scale, 1);
      for (PetscInt k = 0; k < dim; k++) et[k] = 0, en[k] = PetscLogReal(dec[9 + k]);
      { /* the trial strains in the order of the returned SVD: log of the trial's singular values */
        PetscReal F0[9], d0[21];
        MakeF(dim, s0, 0.3 * t, 0.11 * t, F0);
        ck_assert(MPMSvd(dim, F0, d0) == 0);
        for (PetscInt k = 0; k < dim; k++) et[k] = PetscLogReal(d0[9 + k]), trt += et[k], trn += en[k];
      }
      if (trt > 0) { /* tension: back to the tip, eps = 0 */
        tension++;
        for (PetscInt k = 0; k < dim; k++) ck_assert_msg(PetscAbsReal(en[k]) < 1e-14, "%dD tension: eps %g", (int)dim, en[k]);
        continue;
      }
      if (SandYield(dim, et, mu, lambda, alpha) <= 0) { /* inside: unchanged */
        elastic++;
        ck_assert_double_eq(q, q0);
        for (PetscInt k = 0; k < dim; k++) ck_assert_double_eq_tol(en[k], et[k], 1e-14);
        continue;
      }
      plastic++;
      /* on the cone, with the volume kept and q grown by the plastic strain */
      ck_assert_msg(PetscAbsReal(SandYield(dim, en, mu, lambda, alpha)) < 1e-9 * mu, "%dD: y = %g after the return", (int)dim, SandYield(dim, en, mu, lambda, alpha));
      ck_assert_double_eq_tol(trn, trt, 1e-14);
      ck_assert_msg(q > q0, "%dD: q did not grow", (int)dim);
      { /* the return is along the deviatoric part of dy/deps (finite differences at the returned point) */
        PetscReal grad[3], gmean = 0, gn = 0, rn = 0, dot = 0, r[3];
        for (PetscInt k = 0; k < dim; k++) {
          PetscReal ep[3] = {en[0], en[1], en[2]}, em[3] = {en[0], en[1], en[2]};
          ep[k] += 1e-7, em[k] -= 1e-7;
          grad[k] = (SandYield(dim, ep, mu, lambda, alpha) - SandYield(dim, em, mu, lambda, alpha)) / 2e-7;
          gmean += grad[k] / dim;
        }
        for (PetscInt k = 0; k < dim; k++) {
          grad[k] -= gmean, r[k] = et[k] - en[k];
          gn += grad[k] * grad[k], rn += r[k] * r[k], dot += grad[k] * r[k];
        }
        ck_assert_msg(dot / PetscSqrtReal(gn * rn) > 1 - 1e-6, "%dD: the return is not along the cone's deviatoric normal (cos %g)", (int)dim, dot / PetscSqrtReal(gn * rn));
        ck_assert_double_eq_tol(q - q0, PetscSqrtReal(rn), 1e-12);
      }
    }
  ck_assert_msg(plastic > 20 && elastic > 5 && tension > 20, "the cases seen: plastic %d, elastic %d, tension %d", (int)plastic, (int)elastic, (int)tension);
  CHECK_PETSC(MPMPlasticityDestroy(&pl));
}
END_TEST

START_TEST(fluid_keeps_only_the_volume)
{
  MPMPlasticity pl;

  CHECK_PETSC(TestSetOptions(NULL));
  CHECK_PETSC(MPMPlasticityCreate("fluid", "t_", 1, 1, &pl));
  for (PetscInt dim = 2; dim <= 3; dim++) {
    const PetscReal s0[3] = {1.1, 0.8, 0.95};
    PetscReal F[9], dec[21], scale, J, state = 1, Jt = s0[0] * s0[1] * (dim == 3 ? s0[2] : 1);
    MakeF(dim, s0, 0.4, 1.1, F);
    pl->type->project(pl, dim, 1, F, &state, dec, &scale);
    J = PetscPowReal(Jt, 1.0 / dim);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) ck_assert_double_eq_tol(F[3 * i + j], i == j ? (i == 2 && dim == 2 ? 1 : J) : 0, 1e-14);
    ck_assert_double_eq_tol(state, Jt, 1e-14);
  }
  CHECK_PETSC(MPMPlasticityDestroy(&pl));
}
END_TEST

/* ---- bad input: the step fails with a message naming the particle ---- */
static PetscErrorCode StepOnce(const BlockSpec *b, const char *opts, PetscReal dt, SimStepOutcome *out, char *reason, size_t len)
{
  SimRegistry reg;
  SimProblem p;
  SimSolver s;
  const SimStepStats *st;

  PetscFunctionBeginUser;
  PetscCall(BlockSolver(opts, b, &reg, &p, &s));
  PetscCall(SimSolverStep(s, dt, out));
  PetscCall(SimSolverGetStats(s, &st));
  PetscCall(PetscStrncpy(reason, st->reason, len));
  PetscCall(BlockSolverDestroy(&reg, &p, &s));
  PetscFunctionReturn(0);
}

START_TEST(bad_input_fails_the_step_naming_the_particle)
{
  char reason[256];
  SimStepOutcome out;
  BlockSpec b = {.dim = 2, .n = 16, .lo = 0.4, .hi = 0.6, .v0 = {-30, 0, 0}, .elastic = "fixed_corotated", .plastic = "none", .youngs = 1e3};

  /* thrown at the wall at 30 m/s in one substep of 0.02 s: it leaves the grid */
  CHECK_PETSC(StepOnce(&b, "-mpm_substeps 1 -mpm_cfl 1e3", 0.02, &out, reason, sizeof(reason)));
  ck_assert_int_eq(out, SIM_STEP_FAILED);
  ck_assert_msg(strstr(reason, "left the grid in substep 1") && strstr(reason, "material 'block'") && strstr(reason, "-wall_thickness"), "%s", reason);
  /* squeezed along x: v_x = -100 (x - c), so F_xx = 1 - 100 dt turns over in a substep of 0.02 s */
  b.v0[0] = 0;
  b.squeeze = 100;
  CHECK_PETSC(StepOnce(&b, "-mpm_substeps 1 -mpm_cfl 1e3", 0.02, &out, reason, sizeof(reason)));
  ck_assert_int_eq(out, SIM_STEP_FAILED);
  ck_assert_msg(strstr(reason, "det F = -") && strstr(reason, "<= 0") && strstr(reason, "particle "), "%s", reason);
  b.squeeze = 0;
  /* a substep above the time step limit */
  b.youngs = 1e7;
  CHECK_PETSC(StepOnce(&b, "-mpm_substeps 1", 1e-2, &out, reason, sizeof(reason)));
  ck_assert_int_eq(out, SIM_STEP_FAILED);
  ck_assert_msg(strstr(reason, "above the time step limit") && strstr(reason, "-mpm_substeps") && strstr(reason, "material 'block'"), "%s", reason);
  /* the same with automatic substeps runs */
  CHECK_PETSC(StepOnce(&b, "-mpm_substeps 0", 1e-3, &out, reason, sizeof(reason)));
  ck_assert_int_eq(out, SIM_STEP_OK);
}
END_TEST

/* ---- MPI: a scene on every rank of PETSC_COMM_WORLD against the same scene on each rank alone ---- */

/* Runs `steps` steps of the scene and returns its energy report and (on comm) the number of particles
 * now on a rank that did not hold them at the start. */
/* Runs steps of dt of a scene with mpm: the energy report, the particles that crossed the ranks'
 * boundary (now on another rank or in a cell of another rank: a particle strays up to the margin
 * before it migrates) and the migrations. */
static PetscInt sf_rebuilds = 0; /* times a RunScene on more than one rank grew the box its ghost exchange covers */
static PetscErrorCode RunScene(MPI_Comm comm, const char *scene, const char *opts, PetscInt steps, PetscReal dt, SimEnergyReport *rep, PetscInt *crossed,
                               PetscInt *migrations)
{
  TestSim t;
  DM sw, cells;
  PetscInt n0, n, xs[3] = {0, 0, 0}, xm[3] = {1, 1, 1};
  PetscReal *id, *start, *x;
  SimParticlesInfo in;
  SimStepOutcome out;

  PetscFunctionBeginUser;
  PetscCall(TestSimCreateOnComm(comm, scene, "mpm", opts, &t));
  PetscCall(SimSolverSetUp(t.solver));
  PetscCall(SimParticlesGetSwarm(t.problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n0));
  PetscCall(PetscMalloc1(n0 + 1, &start));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(PetscArraycpy(start, id, n0));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(PetscSortReal(n0, start));
  for (PetscInt k = 0; k < steps; k++) {
    PetscCall(SimSolverStep(t.solver, dt, &out));
    PetscCheck(out == SIM_STEP_OK, comm, PETSC_ERR_PLIB, "step %" PetscInt_FMT " of %s failed", k, scene);
  }
  PetscCall(SimSolverEnergy(t.solver, rep));
  PetscCall(SimParticlesGetInfo(t.problem, &in));
  PetscCall(SimParticlesGetGrid(t.problem, &cells));
  PetscCall(DMDAGetCorners(cells, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  PetscCall(SimParticlesGetSwarm(t.problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  *crossed = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt loc;
    PetscBool away = PETSC_FALSE;
    PetscCall(PetscFindReal(id[i], n0, start, 0.5, &loc)); /* ids are whole numbers */
    for (PetscInt d = 0; d < in.dim; d++) {
      const PetscInt c = (PetscInt)PetscFloorReal((x[in.dim * i + d] - in.lo[d]) / in.h);
      away = (PetscBool)(away || c < xs[d] || c >= xs[d] + xm[d]);
    }
    if (loc < 0 || away) (*crossed)++;
  }
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, crossed, 1, MPIU_INT, MPI_SUM, comm));
  *migrations = ((MPM *)t.solver->data)->migrations;
  sf_rebuilds += PetscMax(((MPM *)t.solver->data)->sfbuilds - 2, 0); /* past the set-up's (empty box) and the first P2G's */
  PetscCall(PetscFree(start));
  PetscCall(TestSimDestroy(&t));
  PetscFunctionReturn(0);
}

/* 100 substeps of jelly_blocks (the blocks straddle the ranks' boundary x = 0.5), of a low sand
 * column whose face starts at the boundary (under 10 g, so that its face crosses it within 100
 * substeps) and of 3D elastic jelly_blocks falling along z across the ranks' boundary z = 0.5 (the 3D
 * MLS kernels in AVX registers, which count the particles that must migrate; far enough for the box
 * of the ghost exchange to grow): total momentum and
 * energy equal to 1e-10 relative, and particles changed rank. */
START_TEST(ranks_match_one_rank)
{
  const char *scene[3] = {"jelly_blocks", "sand_column", "jelly_blocks"};
  const char *opts[3] = {"-mpm_substeps 10 -mpm_cfl 10", "-sand_column_aspect 0.4 -mpm_substeps 10 -gravity 0,-100,0",
                         "-jelly_blocks_dim 3 -jelly_blocks_particles 400 -jelly_blocks_n 24 -jelly_blocks_plastic none,none,none -gravity 0,0,-6000 "
                         "-mpm_substeps 10 -mpm_cfl 10"};
  const char *margin[2] = {"", " -mpm_migrate_margin 0"};
  const PetscReal dt[3] = {1e-3, 1.6e-3, 1e-3};
  PetscMPIInt size;
  PetscInt moved = 0;

  CHECK_PETSC(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (int k = 0; k < 3; k++) {
    SimEnergyReport a, b;
    PetscInt ca, cb, ma, mb;
    PetscReal scale;
    char o[256];
    CHECK_PETSC(RunScene(PETSC_COMM_SELF, scene[k], opts[k], 10, dt[k], &b, &cb, &mb));
    ck_assert_int_eq(cb, 0);
    ck_assert_int_eq(mb, 0);
    for (int g = 0; g < 2; g++) {
      snprintf(o, sizeof(o), "%s%s", opts[k], margin[g]);
      CHECK_PETSC(RunScene(PETSC_COMM_WORLD, scene[k], o, 10, dt[k], &a, &ca, &ma));
      if (size > 1) ck_assert_msg(ca > 0, "%s%s: no particle crossed the ranks' boundary", scene[k], margin[g]);
      moved += ma;
      scale = PetscAbsReal(b.total) + PetscAbsReal(b.kinetic);
      ck_assert_msg(PetscAbsReal(a.total - b.total) <= 1e-10 * scale && PetscAbsReal(a.kinetic - b.kinetic) <= 1e-10 * scale,
                    "%s%s: energy %.17g (kinetic %.17g) on %d ranks, %.17g (%.17g) on one", scene[k], margin[g], a.total, a.kinetic, (int)size, b.total, b.kinetic);
      scale = PetscAbsReal(b.momentum[0]) + PetscAbsReal(b.momentum[1]) + PetscAbsReal(b.momentum[2]);
      for (int d = 0; d < 3; d++)
        ck_assert_msg(PetscAbsReal(a.momentum[d] - b.momentum[d]) <= 1e-10 * scale, "%s%s: momentum %d %.17g on %d ranks, %.17g on one", scene[k], margin[g], d,
                      a.momentum[d], (int)size, b.momentum[d]);
      if (size > 1)
        CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "%s%s: %" PetscInt_FMT " particles crossed the ranks' boundary, %" PetscInt_FMT " migrations; energy differs by %.3g relative\n",
                                scene[k], margin[g], ca, ma, (double)(PetscAbsReal(a.total - b.total) / PetscAbsReal(b.total))));
    }
  }
  if (size > 1) ck_assert_msg(moved > 0, "no run migrated particles");
  if (size > 1) ck_assert_msg(sf_rebuilds > 0, "no run grew the box of its ghost exchange"); /* the exchange's growth is covered */
}
END_TEST

/* Fraction of consecutive particles whose cell (x fastest) decreases: about a half in a random order,
 * none right after a sort by cell. */
static PetscErrorCode CellDescents(TestSim *t, PetscReal *frac)
{
  DM sw;
  PetscInt n, prev = -1, down = 0;
  PetscReal *x;
  SimParticlesInfo in;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetInfo(t->problem, &in));
  PetscCall(SimParticlesGetSwarm(t->problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  for (PetscInt p = 0; p < n; p++) {
    PetscInt key = 0;
    for (PetscInt d = in.dim - 1; d >= 0; d--) key = key * 1000 + (PetscInt)((x[in.dim * p + d] - in.lo[d]) / in.h);
    down += key < prev, prev = key;
  }
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  *frac = n > 1 ? down / (PetscReal)(n - 1) : 0;
  PetscFunctionReturn(0);
}

/* a's energies and momentum equal ref's to round-off (1e-12 of their scale), with a moving body */
static void SameToRoundoff(const SimEnergyReport *a, const SimEnergyReport *ref, const char *name, const char *refname)
{
  PetscReal scale = PetscAbsReal(ref->total) + PetscAbsReal(ref->kinetic);

  ck_assert_msg(PetscAbsReal(a->total - ref->total) <= 1e-12 * scale, "%s: energy %.17g, %s %.17g", name, a->total, refname, ref->total);
  ck_assert_msg(a->kinetic > 0 && PetscAbsReal(a->kinetic - ref->kinetic) <= 1e-12 * scale, "%s: kinetic %.17g, %s %.17g", name, a->kinetic,
                refname, ref->kinetic);
  scale = PetscAbsReal(ref->momentum[0]) + PetscAbsReal(ref->momentum[1]) + PetscAbsReal(ref->momentum[2]);
  for (int d = 0; d < 3; d++)
    ck_assert_msg(PetscAbsReal(a->momentum[d] - ref->momentum[d]) <= 1e-12 * scale, "%s: momentum %d %.17g, %s %.17g", name, d, a->momentum[d],
                  refname, ref->momentum[d]);
}

/* The 3D MLS transfers in AVX registers give bit for bit the SSE2 code's trajectory; sorting the
 * particles by cell (every step) only reorders the sums, and the transfers with fused multiply-add
 * (where the CPU has AVX2 and FMA) round differently: both the same trajectory to round-off; the
 * particles are in cell order after the sort. */
START_TEST(avx_transfers_and_cell_sorting_keep_the_trajectory)
{
  const char *base = "-jelly_blocks_dim 3 -jelly_blocks_plastic none,none,none -jelly_blocks_particles 400 -jelly_blocks_n 24 -mpm_substeps 4 -mpm_cfl 10";
  const char *var[4] = {"-mpm_avx 0 -mpm_sort_every 0", "-mpm_avx 1 -mpm_fma 0 -mpm_sort_every 0", "-mpm_avx 1 -mpm_fma 0 -mpm_sort_every 1",
                        "-mpm_avx 1 -mpm_fma 1 -mpm_sort_every 0"};
  SimEnergyReport r[4];
  char opts[512];
  PetscReal before, after;
  PetscInt crossed, migrations;
  TestSim t;
  SimStepOutcome out;

  for (int k = 0; k < 4; k++) {
    snprintf(opts, sizeof(opts), "%s %s", base, var[k]);
    CHECK_PETSC(RunScene(PETSC_COMM_SELF, "jelly_blocks", opts, 5, 1e-3, &r[k], &crossed, &migrations));
  }
  ck_assert_msg(r[1].total == r[0].total && r[1].kinetic == r[0].kinetic, "AVX: energy %.17g, SSE2 %.17g", r[1].total, r[0].total);
  for (int d = 0; d < 3; d++) ck_assert_msg(r[1].momentum[d] == r[0].momentum[d], "AVX: momentum %d %.17g, SSE2 %.17g", d, r[1].momentum[d], r[0].momentum[d]);
  SameToRoundoff(&r[2], &r[0], "sorted", "unsorted");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) SameToRoundoff(&r[3], &r[0], "FMA", "SSE2");
  /* the order after two steps: random as the scene made it without sorting; by cell with a sort at
   * set-up and before the second step (a step moves a particle by far less than a cell) */
  for (int sorted = 0; sorted < 2; sorted++) {
    snprintf(opts, sizeof(opts), "%s -mpm_sort_every %d", base, sorted);
    CHECK_PETSC(TestSimCreateOnComm(PETSC_COMM_SELF, "jelly_blocks", "mpm", opts, &t));
    for (int k = 0; k < 2; k++) {
      CHECK_PETSC(SimSolverStep(t.solver, 1e-4, &out));
      ck_assert_int_eq(out, SIM_STEP_OK);
    }
    CHECK_PETSC(CellDescents(&t, sorted ? &after : &before));
    CHECK_PETSC(TestSimDestroy(&t));
  }
  ck_assert_msg(before > 0.3 && after < 0.01, "cells decrease between %g of consecutive particles unsorted, %g sorted", before, after);
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("mpm");
  TCase *tc = tcase_create("mpm");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, weights_partition_unity_and_reproduce_linear_fields);
  tcase_add_test(tc, transfers_conserve_mass_and_momentum);
  tcase_add_test(tc, apic_and_mls_conserve_angular_momentum_pic_loses_it);
  tcase_add_test(tc, rigidly_rotating_block_keeps_F_a_rotation);
  tcase_add_test(tc, flip_passes_the_grid_velocity_change_to_each_particle);
  tcase_add_test(tc, walls_apply_their_condition_on_the_grid);
  tcase_add_test(tc, svd2_is_a_rotation_variant_svd);
  tcase_add_test(tc, corotated_fast_path_matches_the_material_library);
  tcase_add_test(tc, snow_returns_onto_its_clamp);
  tcase_add_test(tc, sand_returns_onto_the_drucker_prager_cone);
  tcase_add_test(tc, fluid_keeps_only_the_volume);
  tcase_add_test(tc, bad_input_fails_the_step_naming_the_particle);
  tcase_add_test(tc, ranks_match_one_rank);
  tcase_add_test(tc, avx_transfers_and_cell_sorting_keep_the_trajectory);
  suite_add_tcase(s, tc);
  return s;
}
