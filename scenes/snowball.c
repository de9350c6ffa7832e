/* The snowball scene: a ball of snow thrown against a wall (Stomakhin et al. 2013, the snowball
 * smashed against a wall of section 9): a disk (2D) or sphere (3D) of radius r flies at speed v0
 * toward the right wall of the box, which is sticky, under gravity; the floor separates with friction.
 * Snow: fixed corotated elasticity with E = 1.4e5 Pa, nu = 0.2, density 400 kg/m^3 and the snow
 * plasticity of the paper (theta_c 2.5e-2, theta_s 7.5e-3, hardening 10). The ball breaks into
 * clumps that stick to the wall and fall. -snowball_n sets the cells across the box's height and
 * -snowball_ppc the particles per cell and axis. */
#include "scenes/scenes.h"
#include "scenes/particle_fill.h"

typedef struct {
  PetscInt dim, n, ppc;
  PetscReal radius, speed, centre[3];
} Snowball;

static PetscBool InsideBall(void *ctx, const PetscReal *x)
{
  const Snowball *sb = (const Snowball *)ctx;
  PetscReal r2 = 0;
  for (PetscInt d = 0; d < sb->dim; d++) r2 += PetscSqr(x[d] - sb->centre[d]);
  return (PetscBool)(r2 <= sb->radius * sb->radius);
}

static PetscErrorCode Build_Snowball(SimScene scene, SimProblem problem)
{
  Snowball *sb = (Snowball *)scene->data;
  SimParticlesMaterial snow = {.label = "snow", .elastic = "fixed_corotated", .plastic = "snow", .prefix = "snowball_", .youngs = 1.4e5, .poisson = 0.2,
                               .density = 400};
  /* the box: 2 x 1 (x 1) m */
  PetscReal lo[3] = {0, 0, 0}, hi[3] = {2, 1, 0}, blo[3], bhi[3], h, v0[3];

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, "snowball_", "Snowball scene", "");
  PetscCall(PetscOptionsInt("-dim", "2 or 3", "", sb->dim, &sb->dim, NULL));
  PetscCall(PetscOptionsInt("-n", "grid cells across the box's height (1 m)", "", sb->n, &sb->n, NULL));
  PetscCall(PetscOptionsInt("-ppc", "particles per cell along each axis", "", sb->ppc, &sb->ppc, NULL));
  PetscCall(PetscOptionsReal("-radius", "radius of the ball (m)", "", sb->radius, &sb->radius, NULL));
  PetscCall(PetscOptionsReal("-speed", "speed toward the wall (m/s)", "", sb->speed, &sb->speed, NULL));
  PetscOptionsEnd();
  PetscCheck(sb->dim == 2 || sb->dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-snowball_dim must be 2 or 3 (got %" PetscInt_FMT ")", sb->dim);
  PetscCheck(sb->n >= 16 && sb->ppc >= 1 && sb->radius > 0 && sb->radius < 0.3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-snowball_n must be >= 16, -snowball_ppc >= 1 and -snowball_radius in (0, 0.3) m");
  if (sb->dim == 3) hi[2] = 1;
  h = 1.0 / sb->n;
  PetscCall(SimParticlesSetDomain(problem, sb->dim, lo, hi, 2 * sb->n));
  PetscCall(SimParticlesSetWalls(problem, sb->dim == 2 ? "slip,sticky,separate:0.3,slip" : "slip,sticky,separate:0.3,slip,slip,slip", 3 * h, 0));
  PetscCall(SimParticlesSetMaterial(problem, 0, &snow));
  sb->centre[0] = 0.5, sb->centre[1] = 0.5, sb->centre[2] = 0.5;
  for (PetscInt d = 0; d < 3; d++) blo[d] = sb->centre[d] - sb->radius, bhi[d] = sb->centre[d] + sb->radius;
  v0[0] = sb->speed, v0[1] = 0, v0[2] = 0;
  PetscCall(SimAddLattice(problem, sb->dim, blo, bhi, h / sb->ppc, InsideBall, sb, snow.density, v0));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Snowball(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Snowball(SimScene scene)
{
  Snowball *sb;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&sb));
  sb->dim = 2;
  sb->n = 64;
  sb->ppc = 2;
  sb->radius = 0.15;
  sb->speed = 8;
  scene->data = sb;
  scene->ops.build = Build_Snowball;
  scene->ops.destroy = Destroy_Snowball;
  PetscFunctionReturn(0);
}
