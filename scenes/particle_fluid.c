/* Particle-fluid scenes (particles problem, for sph and pbf): a tank at rest, the dam break of
 * Martin & Moyce (1952) in 2D and 3D, a double dam break around an obstacle, and a drop into a
 * pool. Fluid particles sit on a lattice of spacing s (mass rho s^d, volume s^d, material 0); walls
 * are layers of boundary particles on the same lattice (SIM_PARTICLES_BOUNDARY_MATERIAL, Akinci et
 * al. 2012), the tank's inner faces at x = 0, x = L, y = 0 (and z = 0, z = D in 3D), open at the
 * top. An obstacle (any scene; the double dam break's by default) is a closed surface (shell.h:
 * a built-in box or cylinder, or a mesh file) sampled with one layer of boundary particles at the
 * fluid's spacing, added with volume 0 so that the solver gives them Akinci's volumes. Lengths are in
 * units of the column width a. Options under the scene's prefix (docs/sph.md). */
#include "scenes/scenes.h"
#include "scenes/shell.h"
#include "problems/particles/particles.h"

typedef enum { FLUID_TANK, FLUID_DAM_BREAK, FLUID_DOUBLE_DAM_BREAK, FLUID_DROP } FluidSceneKind;

typedef struct {
  FluidSceneKind kind;
  const char *prefix;
  PetscInt dim, n, layers;
  PetscReal a, rho, length, height, depth; /* a [m]; the rest in units of a */
  PetscReal s;                             /* spacing [m] */
  PetscReal pool;                          /* the drop's pool depth (in units of a) */
  char obstacle[PETSC_MAX_PATH_LEN];       /* "none", a built-in shape or a mesh file */
  PetscReal ocenter[3], osize[3];          /* its bounding box's centre and size (in units of a) */
  SimShell obst;                         /* in m; nf = 0 without an obstacle */
  /* particles being collected */
  PetscInt np, cap;
  PetscReal *x, *mat;
  PetscInt nobst0, nobst1; /* the obstacle's particles among them */
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

/* Fluid lattice points inside the obstacle, or closer than half a spacing to its surface. */
static PetscBool InObstacle_Skip(FluidScene *fs, const PetscReal *x)
{
  const SimShell *o = &fs->obst;
  PetscReal near = 0.5 * fs->s, p[3] = {0, 0, 0};

  if (!o->nf) return PETSC_FALSE;
  for (PetscInt d = 0; d < fs->dim; d++) {
    if (x[d] < o->lo[d] - near || x[d] > o->hi[d] + near) return PETSC_FALSE;
    p[d] = x[d];
  }
  if (SimShellInside(o, p)) return PETSC_TRUE;
  for (PetscInt i = fs->nobst0; i < fs->nobst1; i++) { /* the obstacle's samples */
    PetscReal r2 = 0;
    for (PetscInt d = 0; d < fs->dim; d++) r2 += (x[d] - fs->x[fs->dim * i + d]) * (x[d] - fs->x[fs->dim * i + d]);
    if (r2 < near * near) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* The obstacle's surface (options -NAME_obstacle, _center, _size) and its samples, added first (so
 * that the fluid lattice can skip the points near them). */
static PetscErrorCode AddObstacle(FluidScene *fs, const char *pre, PetscBool center_set)
{
  char opt[96];
  PetscReal c[3], sz[3], *x;
  PetscInt n;

  PetscFunctionBeginUser;
  fs->nobst0 = fs->nobst1 = fs->np;
  if (!strcmp(fs->obstacle, "none")) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sobstacle", pre));
  for (PetscInt d = 0; d < 3; d++) c[d] = fs->ocenter[d] * fs->a, sz[d] = fs->osize[d] * fs->a;
  if (!center_set) c[0] = 0.5 * fs->length * fs->a, c[1] = 0.5 * sz[1], c[2] = 0.5 * fs->depth * fs->a; /* on the floor, mid-tank */
  PetscCall(SimObstacleCreate(opt, fs->obstacle, fs->dim, c, sz, &fs->obst));
  PetscCall(SimShellSample(&fs->obst, fs->s, &n, &x));
  for (PetscInt i = 0; i < n; i++) PetscCall(Push(fs, x + fs->dim * i, SIM_PARTICLES_BOUNDARY_MATERIAL));
  PetscCall(PetscFree(x));
  fs->nobst1 = fs->np;
  PetscFunctionReturn(0);
}

static PetscErrorCode Build_Fluid(SimScene scene, SimProblem problem)
{
  FluidScene *fs = (FluidScene *)scene->data;
  char pre[64];
  PetscReal lo[3], hi[3], *m, *vol, sd;
  PetscInt nfluid, nc, ns;
  PetscBool center_set = PETSC_FALSE, size_set = PETSC_FALSE;

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
  if (fs->kind == FLUID_DROP) PetscCall(PetscOptionsReal("-pool", "depth of the pool (in units of a; 0: none)", "", fs->pool, &fs->pool, NULL));
  PetscCall(PetscOptionsString("-obstacle", "obstacle: none, box, cylinder or a mesh file (.obj, .msh, .node; 3D)", "", fs->obstacle, fs->obstacle,
                               sizeof(fs->obstacle), NULL));
  PetscCall(PetscOptionsRealArray("-obstacle_center", "centre of the obstacle's bounding box (in units of a; default: mid-tank, on the floor)", "",
                                  fs->ocenter, (nc = 3, &nc), &center_set));
  PetscCall(PetscOptionsRealArray("-obstacle_size", "size of the obstacle's bounding box along x, y (, z) (in units of a)", "", fs->osize, (ns = 3, &ns), &size_set));
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
  PetscCheck(!center_set || nc >= fs->dim, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-%sobstacle_center needs %" PetscInt_FMT " values (got %" PetscInt_FMT ")", pre,
             fs->dim, nc);
  PetscCheck(!size_set || ns >= fs->dim, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-%sobstacle_size needs %" PetscInt_FMT " values (got %" PetscInt_FMT ")", pre, fs->dim, ns);
  PetscCheck(fs->pool >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%spool must be >= 0 (got %g)", pre, (double)fs->pool);
  fs->s = fs->a / fs->n;
  if (fs->dim == 2) fs->depth = 0;
  fs->np = 0;
  PetscCall(SimShellFree(&fs->obst));
  PetscCall(AddObstacle(fs, pre, center_set));
  {
    const PetscReal a = fs->a, L = fs->length * a, H = fs->height * a, D = fs->depth * a;
    switch (fs->kind) {
    case FLUID_TANK: /* the tank filled to H: at rest */
    case FLUID_DAM_BREAK: { /* a column a x H (x D) against the wall x = 0 */
      const PetscReal blo[3] = {0, 0, 0}, bhi[3] = {fs->kind == FLUID_TANK ? L : a, H, D};
      PetscCall(AddBlock(fs, blo, bhi, 0, InObstacle_Skip));
    } break;
    case FLUID_DOUBLE_DAM_BREAK: { /* columns at both ends; the obstacle (default: a box a/2 x a/2 x D/3) in the middle */
      const PetscReal l1[3] = {0, 0, 0}, h1[3] = {a, H, D}, l2[3] = {L - a, 0, 0}, h2[3] = {L, H, D};
      PetscCall(AddBlock(fs, l1, h1, 0, InObstacle_Skip));
      PetscCall(AddBlock(fs, l2, h2, 0, InObstacle_Skip));
    } break;
    case FLUID_DROP: { /* a pool of depth `pool` over the whole tank, a block a/2 wide falling from H */
      const PetscReal pl[3] = {0, 0, 0}, ph[3] = {L, fs->pool * a, D};
      const PetscReal dl[3] = {0.5 * L - 0.25 * a, H - 0.5 * a, D / 2 - 0.25 * a}, dh[3] = {0.5 * L + 0.25 * a, H, D / 2 + 0.25 * a};
      PetscCall(AddBlock(fs, pl, ph, 0, InObstacle_Skip));
      PetscCall(AddBlock(fs, dl, dh, 1, InObstacle_Skip));
    } break;
    }
    nfluid = fs->np - (fs->nobst1 - fs->nobst0);
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
  for (PetscInt i = 0; i < fs->np; i++) m[i] = fs->rho * sd, vol[i] = i >= fs->nobst0 && i < fs->nobst1 ? 0 : sd; /* 0: Akinci's, by the solver */
  PetscCall(SimParticlesAdd(problem, fs->np, fs->x, NULL, m, vol, fs->mat));
  PetscCall(PetscFree2(m, vol));
  PetscFunctionReturn(0);
}

/* Front position of the dam break (the largest x of a fluid particle): front [m], front_z = front /
 * a and front_t = t sqrt(2 g / a), the dimensionless coordinates of Martin & Moyce (1952). With an
 * obstacle, obstacle_inside: the fluid particles inside its surface (a leak through the boundary
 * particles; 0 while the obstacle holds). */
static PetscErrorCode Figures_Fluid(SimScene scene, SimProblem problem, PetscReal t, PetscInt *n, const char *names[], PetscReal values[])
{
  FluidScene *fs = (FluidScene *)scene->data;
  SimParticlesInfo in;
  PetscReal *x, *mat, front = 0, g = 0, inside = 0;
  PetscInt nl;
  DM sw;
  MPI_Comm comm;

  PetscFunctionBeginUser;
  *n = 0;
  if (fs->kind != FLUID_DAM_BREAK && !fs->obst.nf) PetscFunctionReturn(0);
  PetscCall(SimProblemGetComm(problem, &comm));
  PetscCall(SimParticlesGetInfo(problem, &in));
  PetscCall(SimParticlesGetSwarm(problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &nl));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  for (PetscInt i = 0; i < nl; i++)
    if (mat[i] >= 0) {
      front = PetscMax(front, x[in.dim * i]);
      if (fs->obst.nf && SimShellInside(&fs->obst, x + in.dim * i)) inside++;
    }
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &front, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &inside, 1, MPIU_REAL, MPIU_SUM, comm));
  if (fs->obst.nf) names[*n] = "obstacle_inside", values[(*n)++] = inside;
  if (fs->kind != FLUID_DAM_BREAK) PetscFunctionReturn(0);
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
  PetscCall(SimShellFree(&fs->obst));
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
  fs->pool = 1;
  PetscCall(PetscStrncpy(fs->obstacle, kind == FLUID_DOUBLE_DAM_BREAK ? "box" : "none", sizeof(fs->obstacle)));
  fs->osize[0] = fs->osize[1] = 0.5, fs->osize[2] = 1.0 / 3; /* of the default depth 1 */
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
