/* Particle-fluid scenes (particles problem, for sph and pbf): a tank at rest, the dam break of
 * Martin & Moyce (1952) in 2D and 3D, a double dam break around an obstacle, and a drop into a
 * pool. Fluid particles sit on a lattice of spacing s (mass rho s^d, volume s^d, material 0); walls
 * and obstacles are layers of boundary particles on the same lattice
 * (SIM_PARTICLES_BOUNDARY_MATERIAL, Akinci et al. 2012), the tank's inner faces at x = 0, x = L,
 * y = 0 (and z = 0, z = D in 3D), open at the top. Lengths are in units of the column width a for
 * the dam breaks. Options under the scene's prefix (docs/sph.md). */
#include "scenes/scenes.h"
#include "problems/particles/particles.h"

typedef enum { FLUID_TANK, FLUID_DAM_BREAK, FLUID_DOUBLE_DAM_BREAK, FLUID_DROP } FluidSceneKind;

typedef struct {
  FluidSceneKind kind;
  const char *prefix;
  PetscInt dim, n, layers;
  PetscReal a, rho, length, height, depth; /* a [m]; the rest in units of a */
  PetscReal s;                             /* spacing [m] */
  /* particles being collected */
  PetscInt np, cap;
  PetscReal *x, *mat;
} FluidScene;

static PetscErrorCode Push(FluidScene *fs, const PetscReal *x, PetscReal mat)
{
  PetscFunctionBeginUser;
  if (fs->np == fs->cap) {
    fs->cap = PetscMax(1024, 2 * fs->cap);
    PetscCall(PetscRealloc(sizeof(PetscReal) * 3 * fs->cap, &fs->x));
    PetscCall(PetscRealloc(sizeof(PetscReal) * fs->cap, &fs->mat));
  }
  for (PetscInt d = 0; d < fs->dim; d++) fs->x[fs->dim * fs->np + d] = x[d];
  fs->mat[fs->np++] = mat;
  PetscFunctionReturn(0);
}

/* Lattice points (k + 1/2) s, k integer, inside the box [lo, hi) (per axis, in m), as material mat;
 * skip (optional) rejects points (e.g. inside a hollow). */
static PetscErrorCode AddBlock(FluidScene *fs, const PetscReal lo[3], const PetscReal hi[3], PetscReal mat, PetscBool (*skip)(FluidScene *, const PetscReal *))
{
  PetscInt k0[3] = {0, 0, 0}, k1[3] = {1, 1, 1};
  const PetscReal s = fs->s;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < fs->dim; d++) {
    k0[d] = (PetscInt)PetscCeilReal(lo[d] / s - 0.5 - 1e-9);
    k1[d] = (PetscInt)PetscCeilReal(hi[d] / s - 0.5 - 1e-9);
  }
  for (PetscInt k = k0[2]; k < k1[2]; k++)
    for (PetscInt j = k0[1]; j < k1[1]; j++)
      for (PetscInt i = k0[0]; i < k1[0]; i++) {
        const PetscReal x[3] = {(i + 0.5) * s, (j + 0.5) * s, (k + 0.5) * s};
        if (skip && skip(fs, x)) continue;
        PetscCall(Push(fs, x, mat));
      }
  PetscFunctionReturn(0);
}

/* The tank [0, L] x [0, H] (x [0, D]): points of the walls' layers, i.e. inside the box grown by
 * `layers` spacings but outside the tank, below its rim. */
static PetscBool OutsideTank_Skip(FluidScene *fs, const PetscReal *x)
{
  const PetscReal L = fs->length * fs->a, D = fs->depth * fs->a;
  PetscBool inside = (PetscBool)(x[0] > 0 && x[0] < L && x[1] > 0);
  if (fs->dim == 3) inside = (PetscBool)(inside && x[2] > 0 && x[2] < D);
  return inside;
}

static PetscErrorCode AddTank(FluidScene *fs)
{
  const PetscReal w = fs->layers * fs->s, a = fs->a;
  const PetscReal lo[3] = {-w, -w, -w}, hi[3] = {fs->length * a + w, 1.5 * fs->height * a, fs->depth * a + w}; /* walls 1.5 H high */

  PetscFunctionBeginUser;
  PetscCall(AddBlock(fs, lo, hi, SIM_PARTICLES_BOUNDARY_MATERIAL, OutsideTank_Skip));
  PetscFunctionReturn(0);
}

static PetscErrorCode Build_Fluid(SimScene scene, SimProblem problem)
{
  FluidScene *fs = (FluidScene *)scene->data;
  char pre[64];
  PetscReal lo[3], hi[3], *m, *vol, sd;
  PetscInt nfluid;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(pre, sizeof(pre), "%s_", scene->name));
  PetscOptionsBegin(PETSC_COMM_WORLD, pre, "Particle fluid scene", "");
  PetscCall(PetscOptionsInt("-dim", "2 or 3", "", fs->dim, &fs->dim, NULL));
  PetscCall(PetscOptionsInt("-n", "fluid particles across the column width a (the pool's depth for drop)", "", fs->n, &fs->n, NULL));
  PetscCall(PetscOptionsReal("-a", "column width a (m)", "", fs->a, &fs->a, NULL));
  PetscCall(PetscOptionsReal("-length", "tank length (in units of a)", "", fs->length, &fs->length, NULL));
  PetscCall(PetscOptionsReal("-height", "fluid column height (in units of a)", "", fs->height, &fs->height, NULL));
  PetscCall(PetscOptionsReal("-depth", "tank depth along z in 3D (in units of a)", "", fs->depth, &fs->depth, NULL));
  PetscCall(PetscOptionsReal("-rho", "fluid density (kg/m^3)", "", fs->rho, &fs->rho, NULL));
  PetscCall(PetscOptionsInt("-layers", "layers of boundary particles in the walls", "", fs->layers, &fs->layers, NULL));
  PetscOptionsEnd();
  PetscCheck(fs->dim == 2 || fs->dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sdim must be 2 or 3 (got %" PetscInt_FMT ")", pre, fs->dim);
  PetscCheck(fs->n >= 2 && fs->n <= 10000, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sn must be in [2, 10000] (got %" PetscInt_FMT ")", pre, fs->n);
  PetscCheck(fs->a > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sa must be > 0 (got %g)", pre, (double)fs->a);
  PetscCheck(fs->rho > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%srho must be > 0 (got %g)", pre, (double)fs->rho);
  PetscCheck(fs->height > 0 && fs->depth > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sheight and -%sdepth must be > 0", pre, pre);
  PetscCheck(fs->length >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%slength must be >= 1 (the column fits in the tank; got %g)", pre,
             (double)fs->length);
  PetscCheck(fs->layers >= 1 && fs->layers <= 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%slayers must be in [1, 8] (got %" PetscInt_FMT ")", pre,
             fs->layers);
  fs->s = fs->a / fs->n;
  if (fs->dim == 2) fs->depth = 0;
  {
    const PetscReal a = fs->a, L = fs->length * a, H = fs->height * a, D = fs->depth * a;
    fs->np = 0;
    switch (fs->kind) {
    case FLUID_TANK: /* the tank filled to H: at rest */
    case FLUID_DAM_BREAK: { /* a column a x H (x D) against the wall x = 0 */
      const PetscReal blo[3] = {0, 0, 0}, bhi[3] = {fs->kind == FLUID_TANK ? L : a, H, D};
      PetscCall(AddBlock(fs, blo, bhi, 0, NULL));
    } break;
    case FLUID_DOUBLE_DAM_BREAK: { /* columns at both ends, an obstacle of a/2 x a/2 (x D/3) in the middle */
      const PetscReal l1[3] = {0, 0, 0}, h1[3] = {a, H, D}, l2[3] = {L - a, 0, 0}, h2[3] = {L, H, D};
      const PetscReal ol[3] = {0.5 * L - 0.25 * a, 0, D / 3}, oh[3] = {0.5 * L + 0.25 * a, 0.5 * a, 2 * D / 3};
      PetscCall(AddBlock(fs, l1, h1, 0, NULL));
      PetscCall(AddBlock(fs, l2, h2, 0, NULL));
      PetscCall(AddBlock(fs, ol, oh, SIM_PARTICLES_BOUNDARY_MATERIAL, NULL));
    } break;
    case FLUID_DROP: { /* a pool of depth a over the whole tank, a block a/2 wide falling from H */
      const PetscReal pl[3] = {0, 0, 0}, ph[3] = {L, a, D};
      const PetscReal dl[3] = {0.5 * L - 0.25 * a, H - 0.5 * a, D / 2 - 0.25 * a}, dh[3] = {0.5 * L + 0.25 * a, H, D / 2 + 0.25 * a};
      PetscCall(AddBlock(fs, pl, ph, 0, NULL));
      PetscCall(AddBlock(fs, dl, dh, 1, NULL));
    } break;
    }
    nfluid = fs->np;
    PetscCall(AddTank(fs));
    /* the box: the walls, and room above for splashes (2 H + a), in whole cells of 2 s */
    {
      const PetscReal cell = 2 * fs->s, w = (fs->layers + 1) * fs->s;
      const PetscReal top = PetscMax(2 * H, fs->height * a) + a;
      PetscInt cells;
      lo[0] = lo[1] = lo[2] = -w;
      hi[0] = lo[0] + cell * PetscCeilReal((L + 2 * w) / cell);
      hi[1] = lo[1] + cell * PetscCeilReal((top + w) / cell);
      hi[2] = fs->dim == 3 ? lo[2] + cell * PetscCeilReal((D + 2 * w) / cell) : 0;
      cells = (PetscInt)PetscFloorReal((hi[0] - lo[0]) / cell + 0.5);
      PetscCall(SimParticlesSetDomain(problem, fs->dim, lo, hi, cells));
    }
  }
  PetscCheck(nfluid > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Scene '%s' has no fluid particles (check -%sn)", scene->name, pre);
  sd = PetscPowRealInt(fs->s, fs->dim);
  PetscCall(PetscMalloc2(fs->np, &m, fs->np, &vol));
  for (PetscInt i = 0; i < fs->np; i++) m[i] = fs->rho * sd, vol[i] = sd;
  PetscCall(SimParticlesAdd(problem, fs->np, fs->x, NULL, m, vol, fs->mat));
  PetscCall(PetscFree2(m, vol));
  PetscFunctionReturn(0);
}

/* Front position of the dam break (the largest x of a fluid particle; the largest |x - L/2| for
 * the double one): front [m], front_z = front / a and front_t = t sqrt(2 g / a), the
 * dimensionless coordinates of Martin & Moyce (1952). */
static PetscErrorCode Figures_Fluid(SimScene scene, SimProblem problem, PetscReal t, PetscInt *n, const char *names[], PetscReal values[])
{
  FluidScene *fs = (FluidScene *)scene->data;
  SimParticlesInfo in;
  PetscReal *x, *mat, front = 0, g = 0;
  PetscInt nl;
  DM sw;
  MPI_Comm comm;

  PetscFunctionBeginUser;
  *n = 0;
  if (fs->kind != FLUID_DAM_BREAK) PetscFunctionReturn(0);
  PetscCall(SimProblemGetComm(problem, &comm));
  PetscCall(SimParticlesGetInfo(problem, &in));
  PetscCall(SimParticlesGetSwarm(problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &nl));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  for (PetscInt i = 0; i < nl; i++)
    if (mat[i] >= 0) front = PetscMax(front, x[in.dim * i]);
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &front, 1, MPIU_REAL, MPIU_MAX, comm));
  for (int d = 0; d < 3; d++) g += in.gravity[d] * in.gravity[d];
  front += 0.5 * fs->s; /* the particle's extent */
  names[*n] = "front", values[(*n)++] = front;
  names[*n] = "front_z", values[(*n)++] = front / fs->a;
  names[*n] = "front_t", values[(*n)++] = t * PetscSqrtReal(2 * PetscSqrtReal(g) / fs->a);
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Fluid(SimScene scene)
{
  FluidScene *fs = (FluidScene *)scene->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(fs->x));
  PetscCall(PetscFree(fs->mat));
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode Create(SimScene scene, FluidSceneKind kind, PetscInt n, PetscReal length, PetscReal height)
{
  FluidScene *fs;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&fs));
  fs->kind = kind;
  fs->dim = 2;
  fs->n = n;
  fs->a = 0.25;
  fs->rho = 1000;
  fs->length = length;
  fs->height = height;
  fs->depth = 1;
  fs->layers = 3;
  scene->data = fs;
  scene->ops.build = Build_Fluid;
  scene->ops.figures = Figures_Fluid;
  scene->ops.destroy = Destroy_Fluid;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Tank(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(Create(scene, FLUID_TANK, 20, 1, 1));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_DamBreak(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(Create(scene, FLUID_DAM_BREAK, 20, 4, 2));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_DoubleDamBreak(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(Create(scene, FLUID_DOUBLE_DAM_BREAK, 16, 5, 2));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_DropPool(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(Create(scene, FLUID_DROP, 16, 4, 3));
  PetscFunctionReturn(0);
}
