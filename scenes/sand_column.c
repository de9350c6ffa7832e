/* The sand_column scene: a column of dry sand collapsing under gravity (the granular column collapse
 * of Lube et al. 2005, 2D, and Lube et al. 2004, axisymmetric; Klar et al. 2016, section 8, with
 * MPM). In 2D a column of width L0 and height a L0 stands against the left wall (a frictionless slip
 * wall: the symmetry plane of a column 2 L0 wide); in 3D a quarter cylinder of radius L0 stands in the
 * corner of two slip walls (the symmetry planes of the full cylinder). The floor is a separating wall
 * with Coulomb friction. Drucker-Prager sand (friction angle 35 degrees with Klar's hardening), E =
 * 3.5e5 Pa, nu = 0.3, density 2200 kg/m^3. Its figure `runout` is the normalized run-out distance
 * (L - L0) / L0, L the largest distance of a particle from the wall (2D) or the axis (3D); experiments
 * find about 1.2 a for a < 1.8 in 2D (Lube et al. 2005). -sand_column_n sets the cells across L0 and
 * -sand_column_ppc the particles per cell and axis, so a million particles is one option away. */
#include "scenes/scenes.h"
#include "scenes/particle_fill.h"

typedef struct {
  PetscInt dim, n, ppc;
  PetscReal aspect, L0, wall, friction;
} SandColumn;

/* Inside the quarter cylinder (3D) of radius L0 around the corner (wall, *, wall). */
static PetscBool InsideColumn(void *ctx, const PetscReal *x)
{
  const SandColumn *sc = (const SandColumn *)ctx;
  const PetscReal dx = x[0] - sc->wall, dz = x[2] - sc->wall;
  return (PetscBool)(dx * dx + dz * dz <= sc->L0 * sc->L0);
}

static PetscErrorCode Build_SandColumn(SimScene scene, SimProblem problem)
{
  SandColumn *sc = (SandColumn *)scene->data;
  SimParticlesMaterial sand = {.label = "sand", .elastic = "fixed_corotated", .plastic = "sand", .prefix = "sand_column_", .youngs = 3.5e5, .poisson = 0.3,
                               .density = 2200};
  PetscReal lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, clo[3], chi[3], h, g[3] = {0, -9.81, 0};
  PetscInt cells;
  char walls[128];

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, "sand_column_", "Sand column collapse scene", "");
  PetscCall(PetscOptionsInt("-dim", "2 or 3", "", sc->dim, &sc->dim, NULL));
  PetscCall(PetscOptionsReal("-aspect", "aspect ratio a = height / width (radius in 3D) of the column", "", sc->aspect, &sc->aspect, NULL));
  PetscCall(PetscOptionsReal("-width", "column width L0 (2D) or radius (3D) (m)", "", sc->L0, &sc->L0, NULL));
  if (sc->dim == 3) sc->n = 8; /* a default that runs in seconds */
  PetscCall(PetscOptionsInt("-n", "grid cells across L0 (16 in 2D, 8 in 3D)", "", sc->n, &sc->n, NULL));
  PetscCall(PetscOptionsInt("-ppc", "particles per cell along each axis", "", sc->ppc, &sc->ppc, NULL));
  PetscCall(PetscOptionsReal("-floor_friction", "Coulomb friction of the floor", "", sc->friction, &sc->friction, NULL));
  PetscOptionsEnd();
  PetscCheck(sc->dim == 2 || sc->dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-sand_column_dim must be 2 or 3 (got %" PetscInt_FMT ")", sc->dim);
  PetscCheck(sc->aspect > 0 && sc->L0 > 0 && sc->n >= 4 && sc->ppc >= 1 && sc->friction >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-sand_column_aspect and -sand_column_width must be > 0, -sand_column_n >= 4, -sand_column_ppc >= 1, -sand_column_floor_friction >= 0");
  h = sc->L0 / sc->n;
  sc->wall = 3 * h; /* 3 cells: a particle within 1.5 cells of a side sees only wall nodes */
  /* the box: room for a run-out of ~2.5 a L0 beyond the column, and the column's height */
  cells = (PetscInt)PetscCeilReal((1 + 2.5 * sc->aspect) * sc->n) + 6;
  hi[0] = cells * h;
  hi[1] = (PetscCeilReal(1.1 * sc->aspect * sc->n) + 10) * h;
  if (sc->dim == 3) hi[2] = hi[0];
  PetscCall(SimParticlesSetDomain(problem, sc->dim, lo, hi, cells));
  PetscCall(SimParticlesSetGravity(problem, g));
  PetscCall(PetscSNPrintf(walls, sizeof(walls), sc->dim == 2 ? "slip,slip,separate:%g,slip" : "slip,slip,separate:%g,slip,slip,slip", (double)sc->friction));
  PetscCall(SimParticlesSetWalls(problem, walls, sc->wall, 0));
  PetscCall(SimParticlesSetMaterial(problem, 0, &sand));
  for (PetscInt d = 0; d < 3; d++) clo[d] = sc->wall, chi[d] = sc->wall + sc->L0;
  chi[1] = sc->wall + sc->aspect * sc->L0;
  PetscCall(SimAddLattice(problem, sc->dim, clo, chi, h / sc->ppc, sc->dim == 3 ? InsideColumn : NULL, sc, sand.density, NULL));
  PetscFunctionReturn(0);
}

/* runout = (L - L0) / L0: L the largest distance of a particle from the wall (2D) or the axis (3D). */
static PetscErrorCode Figures_SandColumn(SimScene scene, SimProblem problem, PetscReal t, PetscInt *n, const char *names[], PetscReal values[])
{
  SandColumn *sc = (SandColumn *)scene->data;
  PetscReal *x, L = 0;
  PetscInt np;
  DM sw;
  MPI_Comm comm;

  PetscFunctionBeginUser;
  PetscCall(SimProblemGetComm(problem, &comm));
  PetscCall(SimParticlesGetSwarm(problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &np));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  for (PetscInt i = 0; i < np; i++) {
    const PetscReal *xi = x + sc->dim * i, dx = xi[0] - sc->wall, dz = sc->dim == 3 ? xi[2] - sc->wall : 0;
    L = PetscMax(L, PetscSqrtReal(dx * dx + dz * dz));
  }
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &L, 1, MPIU_REAL, MPIU_MAX, comm));
  names[0] = "runout";
  values[0] = (L - sc->L0) / sc->L0;
  *n = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_SandColumn(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_SandColumn(SimScene scene)
{
  SandColumn *sc;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&sc));
  sc->dim = 2;
  sc->aspect = 2;
  sc->L0 = 0.1;
  sc->n = 16;
  sc->ppc = 2;
  sc->friction = 0.5;
  scene->data = sc;
  scene->ops.build = Build_SandColumn;
  scene->ops.figures = Figures_SandColumn;
  scene->ops.destroy = Destroy_SandColumn;
  PetscFunctionReturn(0);
}
