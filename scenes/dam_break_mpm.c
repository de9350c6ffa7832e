/* The dam_break_mpm scene: a column of weakly compressible fluid released in a box (Martin & Moyce
 * 1952), for MPM: the fluid flow rule (F returns to J^(1/d) I) on fixed corotated elasticity, so the
 * pressure is the material's p(J); E = 2e5 Pa, nu = 0.4 and density 1000 kg/m^3 give a sound speed
 * of ~25 m/s against a front speed sqrt(2 g H) ~ 3 m/s. The column is a wide and 2 a high against
 * the left wall of a 4 a x 2.4 a box (depth a in 3D); every wall is frictionless slip. Its figure
 * `front` is the surge front's distance from the wall over a (Martin & Moyce's Z = x / a). -dam_break_mpm_n
 * sets the cells across a and -dam_break_mpm_ppc the particles per cell and axis. */
#include "scenes/scenes.h"
#include "scenes/particle_fill.h"

typedef struct {
  PetscInt dim, n, ppc;
  PetscReal a, wall;
} DamBreak;

static PetscErrorCode Build_DamBreak(SimScene scene, SimProblem problem)
{
  DamBreak *db = (DamBreak *)scene->data;
  SimParticlesMaterial water = {.label = "water", .elastic = "fixed_corotated", .plastic = "fluid", .prefix = "dam_break_mpm_", .youngs = 2e5, .poisson = 0.4,
                                .density = 1000};
  PetscReal lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, clo[3], chi[3], h;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, "dam_break_mpm_", "Dam break scene (MPM fluid)", "");
  PetscCall(PetscOptionsInt("-dim", "2 or 3", "", db->dim, &db->dim, NULL));
  PetscCall(PetscOptionsReal("-width", "column width a (m); its height is 2 a", "", db->a, &db->a, NULL));
  if (db->dim == 3) db->n = 8; /* a default that runs in seconds */
  PetscCall(PetscOptionsInt("-n", "grid cells across a (16 in 2D, 8 in 3D)", "", db->n, &db->n, NULL));
  PetscCall(PetscOptionsInt("-ppc", "particles per cell along each axis", "", db->ppc, &db->ppc, NULL));
  PetscOptionsEnd();
  PetscCheck(db->dim == 2 || db->dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dam_break_mpm_dim must be 2 or 3 (got %" PetscInt_FMT ")", db->dim);
  PetscCheck(db->a > 0 && db->n >= 4 && db->ppc >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-dam_break_mpm_width must be > 0, -dam_break_mpm_n >= 4 and -dam_break_mpm_ppc >= 1");
  h = db->a / db->n;
  /* walls 3 cells thick: a particle within 1.5 cells of the side then sees only wall nodes (with 2,
   * a fast splash reaches the outermost cell, where the step fails) */
  db->wall = 3 * h;
  hi[0] = (4 * db->n + 6) * h; /* whole cells: 4 a (2.4 a, a) and the walls */
  hi[1] = (PetscCeilReal(2.4 * db->n) + 6) * h;
  if (db->dim == 3) hi[2] = (db->n + 6) * h;
  PetscCall(SimParticlesSetDomain(problem, db->dim, lo, hi, 4 * db->n + 6));
  PetscCall(SimParticlesSetWalls(problem, "slip", db->wall, 0));
  PetscCall(SimParticlesSetMaterial(problem, 0, &water));
  for (PetscInt d = 0; d < 3; d++) clo[d] = db->wall, chi[d] = db->wall + db->a;
  chi[1] = db->wall + 2 * db->a;
  PetscCall(SimAddLattice(problem, db->dim, clo, chi, h / db->ppc, NULL, NULL, water.density, NULL));
  PetscFunctionReturn(0);
}

/* front = (largest x of a particle - wall) / a */
static PetscErrorCode Figures_DamBreak(SimScene scene, SimProblem problem, PetscReal t, PetscInt *n, const char *names[], PetscReal values[])
{
  DamBreak *db = (DamBreak *)scene->data;
  PetscReal *x, X = 0;
  PetscInt np;
  DM sw;
  MPI_Comm comm;

  PetscFunctionBeginUser;
  PetscCall(SimProblemGetComm(problem, &comm));
  PetscCall(SimParticlesGetSwarm(problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &np));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  for (PetscInt i = 0; i < np; i++) X = PetscMax(X, x[db->dim * i] - db->wall);
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &X, 1, MPIU_REAL, MPIU_MAX, comm));
  names[0] = "front";
  values[0] = X / db->a;
  *n = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_DamBreak(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_DamBreakMPM(SimScene scene)
{
  DamBreak *db;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&db));
  db->dim = 2;
  db->a = 0.25;
  db->n = 16;
  db->ppc = 2;
  scene->data = db;
  scene->ops.build = Build_DamBreak;
  scene->ops.figures = Figures_DamBreak;
  scene->ops.destroy = Destroy_DamBreak;
  PetscFunctionReturn(0);
}
