/* The jelly_blocks scene: three blocks falling onto each other in a box, the scene of the 88-line
 * MLS-MPM (Hu et al. 2018, taichi_mpm's mls-mpm88.cpp) with its parameters: the unit box on an 80^2
 * grid, blocks of side 0.16 centred at (0.55, 0.45), (0.45, 0.65), (0.55, 0.85), 1000 random particles
 * each of mass 1 and volume 1, E = 1e4, nu = 0.2 (fixed corotated), gravity -200, walls 0.05 thick:
 * sticky on the sides and the top, separate on the floor; run at dt = 1e-4. There every block is
 * snow; here the three differ by default (an elastic jelly, snow, a weakly compressible fluid:
 * -jelly_blocks_plastic none,snow,fluid; snow,snow,snow is the original). -jelly_blocks_dim 3 makes
 * them cubes; -jelly_blocks_particles and -jelly_blocks_n scale it up (particle mass and volume
 * scale as 1000 / particles per block, so the continuum stays the same), -jelly_blocks_size makes the
 * blocks larger or smaller (mass and volume scale with the block's volume). */
#include "scenes/scenes.h"
#include "scenes/particle_fill.h"

typedef struct {
  PetscInt dim, n, per_block;
  PetscReal size;
} JellyBlocks;

static PetscErrorCode Build_JellyBlocks(SimScene scene, SimProblem problem)
{
  JellyBlocks *jb = (JellyBlocks *)scene->data;
  const PetscReal centre[3][3] = {{0.55, 0.45, 0.5}, {0.45, 0.65, 0.5}, {0.55, 0.85, 0.5}};
  PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, g[3] = {0, -200, 0}, *x, *m, *vol, *mat, E = 1e4, nu = 0.2;
  char plastic[3][32] = {"none", "snow", "fluid"}, *pl[3] = {plastic[0], plastic[1], plastic[2]};
  const char *label[3] = {"block0", "block1", "block2"};
  PetscInt nb = 3, n, seed = 1;
  uint64_t state;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, "jelly_blocks_", "Jelly blocks scene (the 88-line MLS-MPM's)", "");
  PetscCall(PetscOptionsInt("-dim", "2 or 3", "", jb->dim, &jb->dim, NULL));
  PetscCall(PetscOptionsInt("-n", "grid cells across the unit box", "", jb->n, &jb->n, NULL));
  PetscCall(PetscOptionsInt("-particles", "random particles per block", "", jb->per_block, &jb->per_block, NULL));
  PetscCall(PetscOptionsReal("-size", "side of the blocks (the centres stay; at most 0.2, where they touch)", "", jb->size, &jb->size, NULL));
  PetscCall(PetscOptionsStringArray("-plastic", "plasticity of the three blocks (none, snow, sand, fluid)", "", pl, &nb, &set));
  PetscCall(PetscOptionsReal("-youngs", "Young's modulus E of every block (Pa)", "", E, &E, NULL));
  PetscCall(PetscOptionsReal("-poisson", "Poisson ratio of every block", "", nu, &nu, NULL));
  PetscCall(PetscOptionsInt("-seed", "seed of the particles' positions", "", seed, &seed, NULL));
  PetscOptionsEnd();
  if (set) { /* PETSc allocated the strings it read */
    for (PetscInt b = 0; b < nb; b++) {
      PetscCall(PetscStrncpy(plastic[b], pl[b], sizeof(plastic[b])));
      PetscCall(PetscFree(pl[b]));
    }
  }
  PetscCheck(!set || nb == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-jelly_blocks_plastic takes three names, one per block (got %" PetscInt_FMT ")", nb);
  PetscCheck(jb->dim == 2 || jb->dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-jelly_blocks_dim must be 2 or 3 (got %" PetscInt_FMT ")", jb->dim);
  PetscCheck(jb->n >= 16 && jb->per_block >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-jelly_blocks_n must be >= 16 (the walls are 0.05 thick) and -jelly_blocks_particles >= 1 (got %" PetscInt_FMT ", %" PetscInt_FMT ")", jb->n,
             jb->per_block);
  PetscCheck(jb->size > 0 && jb->size <= 0.2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-jelly_blocks_size must be in (0, 0.2] (got %g)", (double)jb->size);
  if (jb->dim == 2) hi[2] = 0;
  PetscCall(SimParticlesSetDomain(problem, jb->dim, lo, hi, jb->n));
  PetscCall(SimParticlesSetGravity(problem, g));
  PetscCall(SimParticlesSetWalls(problem, jb->dim == 2 ? "sticky,sticky,separate,sticky" : "sticky,sticky,separate,sticky,sticky,sticky", 0.05, 0));
  for (PetscInt b = 0; b < 3; b++) {
    SimParticlesMaterial desc = {.elastic = "fixed_corotated", .youngs = E, .poisson = nu, .density = 1};
    PetscCall(PetscStrncpy(desc.label, strcmp(plastic[b], "none") ? plastic[b] : "jelly", sizeof(desc.label)));
    PetscCall(PetscStrncpy(desc.plastic, plastic[b], sizeof(desc.plastic)));
    PetscCall(PetscSNPrintf(desc.prefix, sizeof(desc.prefix), "jelly_blocks_%s_", label[b]));
    PetscCall(SimParticlesSetMaterial(problem, b, &desc));
  }
  n = 3 * jb->per_block;
  PetscCall(PetscMalloc4(jb->dim * n, &x, n, &m, n, &vol, n, &mat));
  state = (uint64_t)seed;
  for (PetscInt b = 0; b < 3; b++) {
    PetscReal blo[3], bhi[3];
    for (PetscInt d = 0; d < 3; d++) blo[d] = centre[b][d] - jb->size / 2, bhi[d] = centre[b][d] + jb->size / 2;
    SimFillBoxRandom(jb->dim, blo, bhi, jb->per_block, &state, x + jb->dim * b * jb->per_block);
    for (PetscInt i = b * jb->per_block; i < (b + 1) * jb->per_block; i++) m[i] = vol[i] = 1000.0 / jb->per_block * PetscPowReal(jb->size / 0.16, jb->dim), mat[i] = b;
  }
  PetscCall(SimParticlesAdd(problem, n, x, NULL, m, vol, mat));
  PetscCall(PetscFree4(x, m, vol, mat));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_JellyBlocks(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_JellyBlocks(SimScene scene)
{
  JellyBlocks *jb;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&jb));
  jb->dim = 2;
  jb->n = 80;
  jb->per_block = 1000;
  jb->size = 0.16;
  scene->data = jb;
  scene->ops.build = Build_JellyBlocks;
  scene->ops.destroy = Destroy_JellyBlocks;
  PetscFunctionReturn(0);
}
