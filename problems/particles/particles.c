/* The "particles" problem type: a DMSwarm (basic migration by owner rank) over a DMDA grid, with
 * the scene's particles kept in arrays until the solvers have registered their fields. */
#include "framework/problem_impl.h"
#include "framework/io/vtk.h"
#include "framework/io/xdmf.h"
#include "framework/io/png.h"
#include "problems/particles/particles.h"

#define MAX_FIELDS 32

typedef struct {
  SimParticlesInfo info;
  PetscBool has_domain;
  DM da, swarm;
  /* fields: the standard five, then the solvers' */
  PetscInt nfields;
  char field[MAX_FIELDS][64];
  PetscInt bs[MAX_FIELDS];
  PetscBool has_walls;
  /* the scene's particles until the swarm exists: n of them, 2*dim + 4 reals each */
  PetscInt nadd, capadd;
  PetscReal *add;
  /* the last good state: every field's local data */
  PetscInt nstash;
  PetscReal *stash[MAX_FIELDS];
  SimCamera camera;
} Particles;

static PetscErrorCode Size_Particles(SimProblem p, PetscInt *count, const char **unit);

static PetscErrorCode GetParticles(SimProblem p, Particles **pa)
{
  PetscFunctionBeginUser;
  PetscCheck(p->ops.size == Size_Particles, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Problem '%s' is a %s problem, not particles", p->name,
             p->type);
  *pa = (Particles *)p->data;
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesSetDomain(SimProblem p, PetscInt dim, const PetscReal lo[3], const PetscReal hi[3], PetscInt cells)
{
  Particles *pa = NULL;
  SimParticlesInfo *in;

  PetscFunctionBeginUser;
  PetscCall(GetParticles(p, &pa));
  in = &pa->info;
  PetscCheck(dim == 2 || dim == 3, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Scene '%s': particles live in 2 or 3 dimensions, not %" PetscInt_FMT, p->name,
             dim);
  PetscCheck(cells >= 2, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Scene '%s': the grid needs at least 2 cells across (got %" PetscInt_FMT ")", p->name,
             cells);
  in->dim = dim;
  pa->bs[0] = pa->bs[1] = dim; /* position, velocity */
  in->h = (hi[0] - lo[0]) / cells;
  PetscCheck(in->h > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Scene '%s': the box is empty along x", p->name);
  for (PetscInt d = 0; d < 3; d++) {
    in->lo[d] = d < dim ? lo[d] : 0;
    in->hi[d] = d < dim ? hi[d] : 0;
    if (d >= dim) {
      in->cells[d] = 1;
      continue;
    }
    const PetscReal c = (hi[d] - lo[d]) / in->h;
    in->cells[d] = (PetscInt)PetscFloorReal(c + 0.5);
    PetscCheck(in->cells[d] >= 2 && PetscAbsReal(c - in->cells[d]) < 1e-8 * c, p->comm, PETSC_ERR_ARG_OUTOFRANGE,
               "Scene '%s': the box side %" PetscInt_FMT " (%g m) is not a whole number (>= 2) of cells of %g m", p->name, d,
               (double)(hi[d] - lo[d]), (double)in->h);
  }
  pa->has_domain = PETSC_TRUE;
  if (!pa->has_walls) in->walls.thickness = in->h;
  PetscFunctionReturn(0);
}

const char *const SimParticlesBoundaryNames[] = {"sticky", "slip", "separate"};

/* One boundary condition by name; what names the value in the message. */
static PetscErrorCode ParseBoundary(MPI_Comm comm, const char *name, const char *what, SimParticlesBoundary *bc)
{
  PetscFunctionBeginUser;
  for (int k = 0; k < 3; k++)
    if (!strcmp(name, SimParticlesBoundaryNames[k])) {
      *bc = (SimParticlesBoundary)k;
      PetscFunctionReturn(0);
    }
  SETERRQ(comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "%s: unknown boundary condition '%s' (sticky, slip or separate)", what, name);
}

/* "bc[:friction]" for every side or one per side, comma-separated (x-,x+,y-,y+[,z-,z+]); sides
 * without a friction keep theirs. */
static PetscErrorCode ParseWalls(MPI_Comm comm, PetscInt dim, const char *spec, const char *what, SimParticlesBoundary bc[6], PetscReal mu[6])
{
  char buf[256], *tok, *save = NULL;
  PetscInt n = 0;
  PetscBool has_mu[6] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(buf, spec, sizeof(buf)));
  for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *colon = strchr(tok, ':');
    PetscCheck(n < 2 * dim, comm, PETSC_ERR_ARG_SIZ, "%s: '%s' names more than the %" PetscInt_FMT " sides x-,x+,y-,y+%s", what, spec, 2 * dim,
               dim == 3 ? ",z-,z+" : "");
    if (colon) {
      char *end;
      *colon = 0;
      mu[n] = strtod(colon + 1, &end);
      PetscCheck(end != colon + 1 && !*end && mu[n] >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: friction '%s' of side %" PetscInt_FMT " is not a number >= 0", what,
                 colon + 1, n);
      has_mu[n] = PETSC_TRUE;
    }
    PetscCall(ParseBoundary(comm, tok, what, &bc[n++]));
  }
  PetscCheck(n == 1 || n == 2 * dim, comm, PETSC_ERR_ARG_SIZ, "%s: '%s' gives %" PetscInt_FMT " conditions; give one for every side or %" PetscInt_FMT " (x-,x+,y-,y+%s)",
             what, spec, n, 2 * dim, dim == 3 ? ",z-,z+" : "");
  for (PetscInt k = n; k < 6; k++) bc[k] = bc[n == 1 ? 0 : k < 2 * dim ? k : 0];
  if (n == 1 && has_mu[0])
    for (PetscInt k = 1; k < 6; k++) mu[k] = mu[0];
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesSetWalls(SimProblem p, const char *bcs, PetscReal thickness, PetscReal friction)
{
  Particles *pa = NULL;
  SimParticlesWalls w;

  PetscFunctionBeginUser;
  PetscCall(GetParticles(p, &pa));
  PetscCheck(pa->has_domain, p->comm, PETSC_ERR_ORDER, "Scene '%s': SimParticlesSetDomain comes before SimParticlesSetWalls", p->name);
  PetscCheck(thickness > 0 && friction >= 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Scene '%s': wall thickness must be > 0 and friction >= 0 (got %g, %g)",
             p->name, (double)thickness, (double)friction);
  w = pa->info.walls; /* a refused description leaves the walls as they were */
  for (PetscInt k = 0; k < 6; k++) w.friction[k] = friction;
  PetscCall(ParseWalls(p->comm, pa->info.dim, bcs, "SimParticlesSetWalls", w.bc, w.friction));
  w.thickness = thickness;
  pa->info.walls = w;
  pa->has_walls = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesAddCollider(SimProblem p, const SimParticlesCollider *c)
{
  Particles *pa = NULL;
  SimParticlesInfo *in;

  PetscFunctionBeginUser;
  PetscCall(GetParticles(p, &pa));
  in = &pa->info;
  PetscCheck(in->ncolliders < SIM_PARTICLES_MAX_COLLIDERS, p->comm, PETSC_ERR_ARG_SIZ, "Scene '%s': at most %d colliders", p->name,
             SIM_PARTICLES_MAX_COLLIDERS);
  PetscCheck(!strcmp(c->shape, "plane") || !strcmp(c->shape, "sphere") || !strcmp(c->shape, "box"), p->comm, PETSC_ERR_ARG_UNKNOWN_TYPE,
             "Scene '%s': unknown collider shape '%s' (plane, sphere or box)", p->name, c->shape);
  PetscCheck(c->friction >= 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Scene '%s': collider friction must be >= 0 (got %g)", p->name, (double)c->friction);
  if (!strcmp(c->shape, "plane"))
    PetscCheck(c->b[0] * c->b[0] + c->b[1] * c->b[1] + c->b[2] * c->b[2] > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Scene '%s': a plane collider needs a non-zero normal", p->name);
  if (!strcmp(c->shape, "sphere")) PetscCheck(c->b[0] > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Scene '%s': a sphere collider needs a radius > 0", p->name);
  if (!strcmp(c->shape, "box"))
    for (int d = 0; d < 3; d++)
      PetscCheck(c->b[d] >= c->a[d], p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Scene '%s': a box collider needs lo <= hi on every axis", p->name);
  in->colliders[in->ncolliders++] = *c;
  if (!strcmp(c->shape, "plane")) { /* unit normal */
    PetscReal *nrm = in->colliders[in->ncolliders - 1].b, l = PetscSqrtReal(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
    for (int d = 0; d < 3; d++) nrm[d] /= l;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesSetMaterial(SimProblem p, PetscInt id, const SimParticlesMaterial *m)
{
  Particles *pa = NULL;
  SimParticlesInfo *in;

  PetscFunctionBeginUser;
  PetscCall(GetParticles(p, &pa));
  in = &pa->info;
  PetscCheck(id >= 0 && id <= in->nmaterials && id < SIM_PARTICLES_MAX_MATERIALS, p->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Scene '%s': material ids are described in order from 0 (next: %" PetscInt_FMT ", at most %d; got %" PetscInt_FMT ")", p->name, in->nmaterials,
             SIM_PARTICLES_MAX_MATERIALS, id);
  in->materials[id] = *m;
  if (id == in->nmaterials) in->nmaterials++;
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesSetGravity(SimProblem p, const PetscReal g[3])
{
  Particles *pa = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetParticles(p, &pa));
  for (int d = 0; d < 3; d++) pa->info.gravity[d] = g[d];
  PetscFunctionReturn(0);
}

static PetscBool Inside(const SimParticlesInfo *in, const PetscReal *x)
{
  for (PetscInt d = 0; d < in->dim; d++)
    if (!(x[d] >= in->lo[d] && x[d] <= in->hi[d])) return PETSC_FALSE; /* also false for NaN */
  return PETSC_TRUE;
}

PetscErrorCode SimParticlesAdd(SimProblem p, PetscInt n, const PetscReal *x, const PetscReal *v, const PetscReal *m, const PetscReal *vol,
                               const PetscReal *material)
{
  Particles *pa = NULL;
  PetscInt dim, rec;

  PetscFunctionBeginUser;
  PetscCall(GetParticles(p, &pa));
  PetscCheck(pa->has_domain, p->comm, PETSC_ERR_ORDER, "Scene '%s': SimParticlesSetDomain comes before SimParticlesAdd", p->name);
  PetscCheck(!pa->swarm, p->comm, PETSC_ERR_ORDER, "Scene '%s': particles are added in the scene's build, before the swarm exists", p->name);
  dim = pa->info.dim;
  rec = 2 * dim + 4;
  if (pa->nadd + n > pa->capadd) {
    pa->capadd = PetscMax(2 * pa->capadd, pa->nadd + n);
    PetscCall(PetscRealloc(sizeof(PetscReal) * rec * pa->capadd, &pa->add));
  }
  for (PetscInt i = 0; i < n; i++) {
    PetscReal *r = pa->add + rec * (pa->nadd + i);
    PetscCheck(Inside(&pa->info, &x[dim * i]), p->comm, PETSC_ERR_ARG_OUTOFRANGE, "Scene '%s': particle %" PetscInt_FMT " at (%g, %g%s) is outside the box",
               p->name, pa->nadd + i, (double)x[dim * i], (double)x[dim * i + 1], dim == 3 ? ", ..." : "");
    /* volume 0 only on a boundary particle: its solver computes the volume (SIM_PARTICLES_BOUNDARY_MATERIAL) */
    PetscCheck(m[i] > 0 && (vol[i] > 0 || (vol[i] == 0 && material && material[i] < 0)), p->comm, PETSC_ERR_ARG_OUTOFRANGE,
               "Scene '%s': particle %" PetscInt_FMT " has mass %g and volume %g (both must be > 0; volume 0 only for a boundary particle)", p->name,
               pa->nadd + i, (double)m[i], (double)vol[i]);
    for (PetscInt d = 0; d < dim; d++) r[d] = x[dim * i + d], r[dim + d] = v ? v[dim * i + d] : 0;
    r[2 * dim] = m[i];
    r[2 * dim + 1] = vol[i];
    r[2 * dim + 2] = material ? material[i] : 0;
    r[2 * dim + 3] = (PetscReal)(pa->nadd + i);
  }
  pa->nadd += n;
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesRegisterField(SimProblem p, const char *name, PetscInt blocksize)
{
  Particles *pa = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetParticles(p, &pa));
  for (PetscInt f = 0; f < pa->nfields; f++)
    if (!strcmp(pa->field[f], name)) {
      PetscCheck(pa->bs[f] == blocksize, p->comm, PETSC_ERR_ARG_INCOMP, "Particle field '%s' is registered with %" PetscInt_FMT " components, not %" PetscInt_FMT,
                 name, pa->bs[f], blocksize);
      PetscFunctionReturn(0);
    }
  PetscCheck(!pa->swarm, p->comm, PETSC_ERR_ORDER, "Particle field '%s': fields are registered before the swarm exists (in the solver's create)", name);
  PetscCheck(pa->nfields < MAX_FIELDS && strlen(name) < sizeof(pa->field[0]) && blocksize > 0, p->comm, PETSC_ERR_ARG_SIZ,
             "Particle field '%s': at most %d fields of names under 64 characters and block size > 0", name, MAX_FIELDS);
  PetscCall(PetscStrncpy(pa->field[pa->nfields], name, sizeof(pa->field[0])));
  pa->bs[pa->nfields++] = blocksize;
  PetscFunctionReturn(0);
}

/* The rank owning the cell of x in the DMDA's decomposition (DMDA ranks run x fastest). */
static PetscErrorCode OwnerRank(Particles *pa, const PetscReal *x, PetscMPIInt *rank)
{
  const SimParticlesInfo *in = &pa->info;
  const PetscInt *l[3];
  PetscInt np[3] = {1, 1, 1}, r[3] = {0, 0, 0};

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(pa->da, NULL, NULL, NULL, NULL, &np[0], &np[1], &np[2], NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(pa->da, &l[0], &l[1], &l[2]));
  for (PetscInt d = 0; d < in->dim; d++) {
    PetscInt c = (PetscInt)PetscFloorReal((x[d] - in->lo[d]) / in->h), start = 0;
    c = PetscMax(0, PetscMin(in->cells[d] - 1, c));
    for (r[d] = 0; r[d] < np[d] - 1 && c >= start + l[d][r[d]]; r[d]++) start += l[d][r[d]];
  }
  *rank = (PetscMPIInt)(r[0] + np[0] * (r[1] + np[1] * r[2]));
  PetscFunctionReturn(0);
}

/* Creates the grid and the swarm with every registered field, and keeps this rank's particles. */
static PetscErrorCode CreateSwarm(SimProblem p, Particles *pa)
{
  const SimParticlesInfo *in = &pa->info;
  const PetscInt dim = in->dim, rec = 2 * dim + 4;
  PetscMPIInt rank;
  PetscInt nmine = 0, k = 0;
  PetscReal *x, *v, *m, *vol, *mat, *id;

  PetscFunctionBeginUser;
  if (dim == 2)
    PetscCall(DMDACreate2d(p->comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, in->cells[0], in->cells[1], PETSC_DECIDE,
                           PETSC_DECIDE, 1, 1, NULL, NULL, &pa->da));
  else
    PetscCall(DMDACreate3d(p->comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, in->cells[0], in->cells[1],
                           in->cells[2], PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &pa->da));
  PetscCall(DMSetUp(pa->da));
  PetscCall(DMDASetUniformCoordinates(pa->da, in->lo[0], in->hi[0], in->lo[1], in->hi[1], in->lo[2], in->hi[2]));
  PetscCall(DMCreate(p->comm, &pa->swarm));
  PetscCall(DMSetType(pa->swarm, DMSWARM));
  PetscCall(DMSetDimension(pa->swarm, dim));
  PetscCall(DMSwarmSetType(pa->swarm, DMSWARM_BASIC));
  for (PetscInt f = 0; f < pa->nfields; f++) PetscCall(DMSwarmRegisterPetscDatatypeField(pa->swarm, pa->field[f], pa->bs[f], PETSC_REAL));
  PetscCall(DMSwarmFinalizeFieldRegister(pa->swarm));

  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  for (PetscInt i = 0; i < pa->nadd; i++) {
    PetscMPIInt owner;
    PetscCall(OwnerRank(pa, pa->add + rec * i, &owner));
    if (owner == rank) nmine++;
  }
  PetscCall(DMSwarmSetLocalSizes(pa->swarm, nmine, 64));
  PetscCall(DMSwarmGetField(pa->swarm, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmGetField(pa->swarm, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmGetField(pa->swarm, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmGetField(pa->swarm, SIM_PARTICLES_VOLUME, NULL, NULL, (void **)&vol));
  PetscCall(DMSwarmGetField(pa->swarm, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmGetField(pa->swarm, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  for (PetscInt i = 0; i < pa->nadd; i++) {
    const PetscReal *r = pa->add + rec * i;
    PetscMPIInt owner;
    PetscCall(OwnerRank(pa, r, &owner));
    if (owner != rank) continue;
    for (PetscInt d = 0; d < dim; d++) x[dim * k + d] = r[d], v[dim * k + d] = r[dim + d];
    m[k] = r[2 * dim], vol[k] = r[2 * dim + 1], mat[k] = r[2 * dim + 2], id[k] = r[2 * dim + 3];
    k++;
  }
  PetscCall(DMSwarmRestoreField(pa->swarm, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmRestoreField(pa->swarm, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmRestoreField(pa->swarm, SIM_PARTICLES_VOLUME, NULL, NULL, (void **)&vol));
  PetscCall(DMSwarmRestoreField(pa->swarm, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmRestoreField(pa->swarm, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmRestoreField(pa->swarm, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(PetscFree(pa->add));
  pa->nadd = pa->capadd = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesGetSwarm(SimProblem p, DM *swarm)
{
  Particles *pa = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetParticles(p, &pa));
  if (!pa->swarm) PetscCall(CreateSwarm(p, pa));
  *swarm = pa->swarm;
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesGetGrid(SimProblem p, DM *da)
{
  Particles *pa = NULL;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(GetParticles(p, &pa));
  *da = pa->da;
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesGetInfo(SimProblem p, SimParticlesInfo *info)
{
  Particles *pa = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetParticles(p, &pa));
  *info = pa->info;
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesGetSizes(SimProblem p, PetscInt *nlocal, PetscInt *nglobal)
{
  DM sw = NULL;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  if (nlocal) PetscCall(DMSwarmGetLocalSize(sw, nlocal));
  if (nglobal) PetscCall(DMSwarmGetSize(sw, nglobal));
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesPermute(SimProblem p, const PetscInt *perm)
{
  Particles *pa = NULL;
  DM sw;
  PetscInt n, bsmax = 1;
  PetscReal *a, *tmp;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(GetParticles(p, &pa));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  for (PetscInt f = 0; f < pa->nfields; f++) bsmax = PetscMax(bsmax, pa->bs[f]);
  PetscCall(PetscMalloc1(n * bsmax + 1, &tmp));
  for (PetscInt f = 0; f < pa->nfields; f++) {
    const PetscInt bs = pa->bs[f];
    PetscCall(DMSwarmGetField(sw, pa->field[f], NULL, NULL, (void **)&a));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt c = 0; c < bs; c++) tmp[bs * i + c] = a[bs * perm[i] + c];
    PetscCall(PetscArraycpy(a, tmp, n * bs));
    PetscCall(DMSwarmRestoreField(sw, pa->field[f], NULL, NULL, (void **)&a));
  }
  PetscCall(PetscFree(tmp));
  PetscFunctionReturn(0);
}

PetscErrorCode SimParticlesMigrate(SimProblem p)
{
  Particles *pa = NULL;
  DM sw;
  PetscInt n, dim;
  PetscReal *x;
  PetscInt *owner;
  PetscMPIInt size, r;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(GetParticles(p, &pa));
  dim = pa->info.dim;
  PetscCallMPI(MPI_Comm_size(p->comm, &size));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  { /* collective: every rank stops, naming the first particle out of the box of its own or another rank */
    PetscInt bad = -1, anybad;
    PetscReal where[3] = {0, 0, 0};
    for (PetscInt i = 0; i < n && bad < 0; i++)
      if (!Inside(&pa->info, &x[dim * i])) {
        bad = i;
        for (PetscInt d = 0; d < dim; d++) where[d] = x[dim * i + d];
      }
    PetscCall(MPIU_Allreduce(&bad, &anybad, 1, MPIU_INT, MPI_MAX, p->comm));
    if (anybad >= 0) PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
    PetscCheck(anybad < 0, p->comm, PETSC_ERR_FP,
               bad >= 0 ? "Particle %" PetscInt_FMT " of this rank left the box: at (%g, %g, %g); the walls or colliders must keep particles in (smaller -dt?)"
                        : "A particle of another rank left the box (%" PetscInt_FMT ": %g, %g, %g)",
               bad >= 0 ? bad : anybad, (double)where[0], (double)where[1], (double)where[2]);
  }
  if (size == 1) {
    PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
    PetscFunctionReturn(0);
  }
  PetscCall(DMSwarmGetField(sw, DMSwarmField_rank, NULL, NULL, (void **)&owner));
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(OwnerRank(pa, &x[dim * i], &r));
    owner[i] = r;
  }
  PetscCall(DMSwarmRestoreField(sw, DMSwarmField_rank, NULL, NULL, (void **)&owner));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmMigrate(sw, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* The scene has set the box, gravity and particles: -gravity overrides, the camera is fitted. */
static PetscErrorCode SetUp_Particles(SimProblem p)
{
  Particles *pa = (Particles *)p->data;
  SimParticlesInfo *in = &pa->info;
  PetscInt n = 3;
  PetscBool set;
  PetscReal box[6];

  PetscFunctionBeginUser;
  PetscCheck(pa->has_domain, p->comm, PETSC_ERR_ARG_WRONGSTATE, "Scene '%s' set no box for its particles (SimParticlesSetDomain)", p->name);
  PetscCheck(pa->nadd > 0, p->comm, PETSC_ERR_ARG_WRONGSTATE, "Scene '%s' added no particles", p->name);
  PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-gravity", in->gravity, &n, &set));
  PetscCheck(!set || n == 3, p->comm, PETSC_ERR_ARG_SIZ, "-gravity takes three values gx,gy,gz (got %" PetscInt_FMT ")", n);
  { /* the walls: -walls, -wall_thickness, -wall_friction */
    char spec[256];
    PetscReal mu = 0;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-wall_friction", &mu, &set));
    PetscCheck(!set || mu >= 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-wall_friction must be >= 0 (got %g)", (double)mu);
    for (PetscInt k = 0; k < 6 && set; k++) in->walls.friction[k] = mu;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-walls", spec, sizeof(spec), &set));
    if (set) PetscCall(ParseWalls(p->comm, in->dim, spec, "-walls", in->walls.bc, in->walls.friction));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-wall_thickness", &in->walls.thickness, NULL));
    PetscCheck(in->walls.thickness > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-wall_thickness must be > 0 (got %g)", (double)in->walls.thickness);
  }
  for (int d = 0; d < 3; d++) box[d] = in->lo[d], box[3 + d] = in->hi[d];
  PetscCall(SimCameraFit(2, box, 0.05, &pa->camera));
  if (in->dim == 2) pa->camera.azimuth = 0, pa->camera.elevation = 0; /* straight at the plane */
  PetscFunctionReturn(0);
}

static PetscErrorCode Size_Particles(SimProblem p, PetscInt *count, const char **unit)
{
  Particles *pa = (Particles *)p->data;

  PetscFunctionBeginUser;
  if (pa->swarm) PetscCall(DMSwarmGetSize(pa->swarm, count));
  else *count = pa->nadd;
  *unit = "particles";
  PetscFunctionReturn(0);
}

static PetscErrorCode Summary_Particles(SimProblem p, char *buf, size_t len)
{
  Particles *pa = (Particles *)p->data;
  const SimParticlesInfo *in = &pa->info;
  PetscInt n;
  const char *unit;

  PetscFunctionBeginUser;
  PetscCall(Size_Particles(p, &n, &unit));
  PetscCall(PetscSNPrintf(buf, len, "%" PetscInt_FMT " particles, %" PetscInt_FMT "D grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cells", n,
                          in->dim, in->cells[0], in->cells[1], in->cells[2]));
  PetscFunctionReturn(0);
}

/* Kinetic energy, gravity's potential -m g.x and the momentum, summed over ranks. */
static PetscErrorCode Report_Particles(SimProblem p, SimEnergyReport *rep)
{
  Particles *pa = (Particles *)p->data;
  const PetscInt dim = pa->info.dim;
  PetscReal *x, *v, *m, sum[5] = {0, 0, 0, 0, 0};
  PetscInt n;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt d = 0; d < dim; d++) {
      sum[0] += 0.5 * m[i] * v[dim * i + d] * v[dim * i + d];
      sum[1] -= m[i] * pa->info.gravity[d] * x[dim * i + d];
      sum[2 + d] += m[i] * v[dim * i + d];
    }
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sum, 5, MPIU_REAL, MPIU_SUM, p->comm));
  PetscCall(PetscMemzero(rep, sizeof(*rep)));
  rep->kinetic = sum[0];
  rep->nterms = 1;
  rep->term_name[0] = "gravity";
  rep->term[0] = sum[1];
  rep->potential = sum[1];
  rep->total = sum[0] + sum[1];
  for (int d = 0; d < 3; d++) rep->momentum[d] = sum[2 + d];
  PetscFunctionReturn(0);
}

static PetscErrorCode IsFinite_Particles(SimProblem p, PetscBool *finite)
{
  Particles *pa = (Particles *)p->data;
  PetscReal *a;
  PetscInt n, bad = 0;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  for (PetscInt f = 0; f < 2; f++) { /* position, velocity */
    PetscCall(DMSwarmGetField(sw, pa->field[f], NULL, NULL, (void **)&a));
    { /* x - x is +0 for a finite x and NaN for NaN or Inf: four sums of them (no call or branch per value) */
      const PetscInt m = n * pa->bs[f];
      PetscReal acc[4] = {0, 0, 0, 0};
      PetscInt i = 0;
      for (; i + 4 <= m; i += 4)
        for (int k = 0; k < 4; k++) acc[k] += a[i + k] - a[i + k];
      for (; i < m; i++) acc[0] += a[i] - a[i];
      bad |= !(acc[0] + acc[1] + acc[2] + acc[3] == 0);
    }
    PetscCall(DMSwarmRestoreField(sw, pa->field[f], NULL, NULL, (void **)&a));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_MAX, p->comm));
  *finite = bad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Every field's local data; the local count may differ on restore (particles migrated during the
 * failed step), so the swarm is resized first. */
static PetscErrorCode Stash_Particles(SimProblem p, PetscBool restore)
{
  Particles *pa = (Particles *)p->data;
  PetscInt n;
  PetscReal *a;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  if (restore) PetscCall(DMSwarmSetLocalSizes(sw, pa->nstash, 64));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  for (PetscInt f = 0; f < pa->nfields; f++) {
    if (!restore) {
      PetscCall(PetscFree(pa->stash[f]));
      PetscCall(PetscMalloc1(n * pa->bs[f] + 1, &pa->stash[f]));
    }
    PetscCall(DMSwarmGetField(sw, pa->field[f], NULL, NULL, (void **)&a));
    PetscCall(restore ? PetscArraycpy(a, pa->stash[f], n * pa->bs[f]) : PetscArraycpy(pa->stash[f], a, n * pa->bs[f]));
    PetscCall(DMSwarmRestoreField(sw, pa->field[f], NULL, NULL, (void **)&a));
  }
  pa->nstash = n;
  PetscFunctionReturn(0);
}

/* Gathers field f (every rank's particles, in rank order) on rank 0 into *all (allocated there;
 * position and velocity padded to 3 components). */
static PetscErrorCode GatherField(SimProblem p, Particles *pa, PetscInt f, PetscInt ncomp, PetscReal **all, PetscInt *ntotal)
{
  PetscMPIInt size, rank, *counts = NULL, *displs = NULL, nsend;
  PetscInt n, bs = pa->bs[f];
  PetscReal *a, *pad;
  DM sw = pa->swarm;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(p->comm, &size));
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(PetscMalloc1(n * ncomp + 1, &pad));
  PetscCall(DMSwarmGetField(sw, pa->field[f], NULL, NULL, (void **)&a));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt c = 0; c < ncomp; c++) pad[ncomp * i + c] = c < bs ? a[bs * i + c] : 0;
  PetscCall(DMSwarmRestoreField(sw, pa->field[f], NULL, NULL, (void **)&a));
  nsend = (PetscMPIInt)(n * ncomp);
  if (!rank) PetscCall(PetscMalloc2(size, &counts, size, &displs));
  PetscCallMPI(MPI_Gather(&nsend, 1, MPI_INT, counts, 1, MPI_INT, 0, p->comm));
  *all = NULL;
  *ntotal = 0;
  if (!rank) {
    PetscInt total = 0;
    for (PetscMPIInt r = 0; r < size; r++) displs[r] = (PetscMPIInt)total, total += counts[r];
    PetscCall(PetscMalloc1(total + 1, all));
    *ntotal = total / ncomp;
  }
  PetscCallMPI(MPI_Gatherv(pad, nsend, MPIU_REAL, rank ? NULL : *all, counts, displs, MPIU_REAL, 0, p->comm));
  PetscCall(PetscFree(pad));
  if (!rank) PetscCall(PetscFree2(counts, displs));
  PetscFunctionReturn(0);
}

/* A .vtu point cloud on rank 0: every field of block size <= 9 as point data. */
static PetscErrorCode WriteFrame_Particles(SimProblem p, const char *path)
{
  Particles *pa = (Particles *)p->data;
  SimVTKField fields[MAX_FIELDS];
  PetscReal *data[MAX_FIELDS] = {NULL}, *xyz;
  PetscInt n, nf = 0;
  PetscMPIInt rank;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  PetscCall(GatherField(p, pa, 0, 3, &xyz, &n));
  for (PetscInt f = 1; f < pa->nfields; f++) {
    const PetscInt ncomp = f == 1 ? 3 : pa->bs[f]; /* velocity padded to 3D for ParaView's glyphs */
    PetscInt m;
    if (pa->bs[f] > 9) continue;
    PetscCall(GatherField(p, pa, f, ncomp, &data[nf], &m));
    fields[nf] = (SimVTKField){pa->field[f], ncomp, data[nf]};
    nf++;
  }
  if (!rank) PetscCall(SimVTKWritePoints(path, n, xyz, nf, fields));
  for (PetscInt f = 0; f < nf; f++) PetscCall(PetscFree(data[f]));
  PetscCall(PetscFree(xyz));
  PetscFunctionReturn(0);
}

/* XDMF + HDF5, collectively: each rank writes its own particles (in rank order, as the gathered
 * .vtu) with the .vtu's fields; nothing is gathered. */
static PetscErrorCode WriteXDMF_Particles(SimProblem p, const char *path)
{
  Particles *pa = (Particles *)p->data;
  PetscReal *pad, *a;
  PetscInt n;
  SimXDMF out;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(PetscMalloc1(9 * n + 1, &pad));
  PetscCall(SimXDMFOpen(p->comm, path, &out));
  for (PetscInt f = 0; f < pa->nfields; f++) {
    const PetscInt bs = pa->bs[f], ncomp = f <= 1 ? 3 : bs; /* position and velocity padded to 3D */
    if (bs > 9) continue;
    PetscCall(DMSwarmGetField(sw, pa->field[f], NULL, NULL, (void **)&a));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt c = 0; c < ncomp; c++) pad[ncomp * i + c] = c < bs ? a[bs * i + c] : 0;
    PetscCall(DMSwarmRestoreField(sw, pa->field[f], NULL, NULL, (void **)&a));
    if (f == 0) PetscCall(SimXDMFSetPoints(out, n, pad));
    else PetscCall(SimXDMFAddField(out, pa->field[f], ncomp, n, pad));
  }
  PetscCall(SimXDMFClose(&out));
  PetscCall(PetscFree(pad));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteImage_Particles(SimProblem p, const char *caption, const char *path)
{
  Particles *pa = (Particles *)p->data;
  PetscReal *xyz, *mat, vmax = 0;
  PetscInt n, m;
  PetscMPIInt rank;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  PetscCall(GatherField(p, pa, 0, 3, &xyz, &n));
  PetscCall(GatherField(p, pa, 4, 1, &mat, &m));
  if (!rank) {
    /* disc radius: about a particle's spacing on the picture, at least a pixel */
    const PetscReal span = 2 * pa->camera.radius, px = PetscMin(pa->camera.width, pa->camera.height);
    const PetscReal spacing = n ? span / PetscPowReal((PetscReal)n, 1.0 / pa->info.dim) : span;
    PetscReal vmin = 0; /* boundary particles (material -1) get the ramp's low end */
    for (PetscInt i = 0; i < n; i++) vmax = PetscMax(vmax, mat[i]), vmin = PetscMin(vmin, mat[i]);
    PetscCall(SimPNGWritePoints(n, xyz, mat, vmin, PetscMax(vmax, 1), PetscMax(1.0, 0.5 * spacing / span * px), &pa->camera, caption, path));
  }
  PetscCall(PetscFree(xyz));
  PetscCall(PetscFree(mat));
  PetscFunctionReturn(0);
}

/* Checkpoint: the field names, every rank's particle count, then each field as a Vec in rank order,
 * so that a restart on the same number of ranks gives every rank its particles in the same order
 * (the solvers' sums run in that order). */
static PetscErrorCode Save_Particles(SimProblem p, PetscViewer viewer)
{
  Particles *pa = (Particles *)p->data;
  PetscMPIInt size;
  PetscInt n, *counts;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCallMPI(MPI_Comm_size(p->comm, &size));
  PetscCall(PetscViewerBinaryWrite(viewer, &pa->nfields, 1, PETSC_INT));
  PetscCall(PetscViewerBinaryWrite(viewer, pa->field, 64 * pa->nfields, PETSC_CHAR));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(PetscMalloc1(size, &counts));
  PetscCallMPI(MPI_Allgather(&n, 1, MPIU_INT, counts, 1, MPIU_INT, p->comm));
  PetscCall(PetscViewerBinaryWrite(viewer, &size, 1, PETSC_INT));
  PetscCall(PetscViewerBinaryWrite(viewer, counts, size, PETSC_INT));
  PetscCall(PetscFree(counts));
  for (PetscInt f = 0; f < pa->nfields; f++) {
    Vec v;
    PetscCall(DMSwarmCreateGlobalVectorFromField(sw, pa->field[f], &v));
    PetscCall(VecView(v, viewer));
    PetscCall(DMSwarmDestroyGlobalVectorFromField(sw, pa->field[f], &v));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_Particles(SimProblem p, PetscViewer viewer)
{
  Particles *pa = (Particles *)p->data;
  char names[MAX_FIELDS][64];
  PetscMPIInt size, rank;
  PetscInt nf, nranks, *counts;
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(p, &sw));
  PetscCallMPI(MPI_Comm_size(p->comm, &size));
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  PetscCall(PetscViewerBinaryRead(viewer, &nf, 1, NULL, PETSC_INT));
  PetscCheck(nf == pa->nfields, p->comm, PETSC_ERR_ARG_INCOMP, "The checkpoint's particles carry %" PetscInt_FMT " fields, this run's %" PetscInt_FMT, nf,
             pa->nfields);
  PetscCall(PetscViewerBinaryRead(viewer, names, 64 * nf, NULL, PETSC_CHAR));
  for (PetscInt f = 0; f < nf; f++)
    PetscCheck(!strncmp(names[f], pa->field[f], 64), p->comm, PETSC_ERR_ARG_INCOMP, "The checkpoint's particle field %" PetscInt_FMT " is '%.63s', this run's '%s'",
               f, names[f], pa->field[f]);
  PetscCall(PetscViewerBinaryRead(viewer, &nranks, 1, NULL, PETSC_INT));
  PetscCheck(nranks == size, p->comm, PETSC_ERR_ARG_INCOMP, "The checkpoint was written on %" PetscInt_FMT " ranks; restart particles on as many (this run has %d)",
             nranks, (int)size);
  PetscCall(PetscMalloc1(size, &counts));
  PetscCall(PetscViewerBinaryRead(viewer, counts, size, NULL, PETSC_INT));
  PetscCall(DMSwarmSetLocalSizes(sw, counts[rank], 64));
  PetscCall(PetscFree(counts));
  for (PetscInt f = 0; f < pa->nfields; f++) {
    Vec v;
    PetscCall(DMSwarmCreateGlobalVectorFromField(sw, pa->field[f], &v));
    PetscCall(VecLoad(v, viewer));
    PetscCall(DMSwarmDestroyGlobalVectorFromField(sw, pa->field[f], &v));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode View_Particles(SimProblem p, PetscViewer viewer)
{
  Particles *pa = (Particles *)p->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "fields:"));
  for (PetscInt f = 0; f < pa->nfields; f++) PetscCall(PetscViewerASCIIPrintf(viewer, " %s(%" PetscInt_FMT ")", pa->field[f], pa->bs[f]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "; cell size %g m\n", (double)pa->info.h));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Particles(SimProblem p)
{
  Particles *pa = (Particles *)p->data;

  PetscFunctionBeginUser;
  PetscCall(DMDestroy(&pa->swarm));
  PetscCall(DMDestroy(&pa->da));
  PetscCall(PetscFree(pa->add));
  for (PetscInt f = 0; f < MAX_FIELDS; f++) PetscCall(PetscFree(pa->stash[f]));
  PetscCall(PetscFree(p->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemCreate_Particles(SimProblem p)
{
  static const SimProblemOps ops = {.setup = SetUp_Particles,
                                    .size = Size_Particles,
                                    .summary = Summary_Particles,
                                    .report = Report_Particles,
                                    .is_finite = IsFinite_Particles,
                                    .stash = Stash_Particles,
                                    .write_frame = WriteFrame_Particles,
                                    .write_xdmf = WriteXDMF_Particles,
                                    .write_image = WriteImage_Particles,
                                    .save = Save_Particles,
                                    .load = Load_Particles,
                                    .view = View_Particles,
                                    .destroy = Destroy_Particles};
  Particles *pa;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&pa));
  pa->info.gravity[1] = -9.81;
  p->data = pa;
  p->ops = ops;
  PetscCall(PetscStrncpy(p->frame_ext, "vtu", sizeof(p->frame_ext)));
  /* the standard fields, in this order (GatherField and IsFinite rely on it); the block sizes of
   * position and velocity are set with the domain's dimension */
  PetscCall(SimParticlesRegisterField(p, SIM_PARTICLES_POSITION, 3));
  PetscCall(SimParticlesRegisterField(p, SIM_PARTICLES_VELOCITY, 3));
  PetscCall(SimParticlesRegisterField(p, SIM_PARTICLES_MASS, 1));
  PetscCall(SimParticlesRegisterField(p, SIM_PARTICLES_VOLUME, 1));
  PetscCall(SimParticlesRegisterField(p, SIM_PARTICLES_MATERIAL, 1));
  PetscCall(SimParticlesRegisterField(p, SIM_PARTICLES_ID, 1));
  PetscFunctionReturn(0);
}
