/* The mpm solver: hybrid particle-grid methods (PIC, FLIP, APIC, MLS-MPM) on the particles problem,
 * in 2D and 3D, on MPI. Options, set-up (the materials, the node grid), the step as substeps of the
 * four phases in transfer.c, the time step limit, the energy and the figures. docs/mpm.md. */
#include "solvers/mpm/mpm.h"
#include "framework/text.h"

/* The transfer schemes and kernels as data. */
static const MPMTransfer transfers[] = {
  {"pic", "PIC: particles carry v only; dissipative, loses angular momentum", PETSC_FALSE, PETSC_FALSE, PETSC_FALSE},
  {"flip", "FLIP blended with PIC (-mpm_flip_ratio; Brackbill & Ruppel 1986)", PETSC_FALSE, PETSC_FALSE, PETSC_TRUE},
  {"apic", "APIC (Jiang et al. 2015): affine C, forces and F by the kernel gradients", PETSC_TRUE, PETSC_FALSE, PETSC_FALSE},
  {"mls", "MLS-MPM (Hu et al. 2018): APIC transfers, stress and F update through C", PETSC_TRUE, PETSC_TRUE, PETSC_FALSE},
};
static const MPMKernel kernels[] = {{"quadratic", 3, 4.0}, {"cubic", 4, 3.0}};

typedef struct {
  PetscLogEvent p2g, grid, g2p, migrate;
} MPMEvents;

static PetscErrorCode MPMEventsGet(MPMEvents *ev)
{
  static MPMEvents registered; /* PETSc's event ids are process-wide */
  static PetscBool done = PETSC_FALSE;
  SimEvents common;

  PetscFunctionBegin;
  if (!done) {
    PetscCall(SimEventsGet(&common));
    PetscCall(PetscLogEventRegister("MPMP2G", common.classid, &registered.p2g));
    PetscCall(PetscLogEventRegister("MPMGrid", common.classid, &registered.grid));
    PetscCall(PetscLogEventRegister("MPMG2P", common.classid, &registered.g2p));
    PetscCall(PetscLogEventRegister("MPMMigrate", common.classid, &registered.migrate));
    done = PETSC_TRUE;
  }
  *ev = registered;
  PetscFunctionReturn(0);
}

static PetscErrorCode SetFromOptions_MPM(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  MPM *mpm = (MPM *)s->data;
  char transfer[32], kernel[32], names[256] = "";
  PetscBool found = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(transfer, mpm->transfer->name, sizeof(transfer)));
  PetscCall(PetscStrncpy(kernel, mpm->kernel->name, sizeof(kernel)));
  PetscOptionsHeadBegin(PetscOptionsObject, "mpm: hybrid particle-grid methods (docs/mpm.md)");
  PetscCall(PetscOptionsString("-mpm_transfer", "pic, flip, apic or mls", "", transfer, transfer, sizeof(transfer), NULL));
  PetscCall(PetscOptionsString("-mpm_kernel", "B-spline weights: quadratic or cubic", "", kernel, kernel, sizeof(kernel), NULL));
  PetscCall(PetscOptionsReal("-mpm_flip_ratio", "FLIP share of the FLIP/PIC blend in [0, 1] (flip only)", "", mpm->flip_ratio, &mpm->flip_ratio, NULL));
  PetscCall(PetscOptionsReal("-mpm_cfl", "time step limit: a substep is at most cfl h / max(wave speed + particle speed)", "", mpm->cfl, &mpm->cfl, NULL));
  PetscCall(PetscOptionsBool("-mpm_avx", "3D MLS transfers in AVX registers when the CPU has AVX (bit-identical to the SSE2 code)", "", mpm->avx, &mpm->avx, NULL));
  PetscCall(PetscOptionsBool("-mpm_fma", "those AVX transfers with fused multiply-add when the CPU has AVX2 and FMA (round-off apart from -mpm_fma 0)", "", mpm->fma,
                             &mpm->fma, NULL));
  PetscCall(PetscOptionsInt("-mpm_sort_every",
                            "sort the particles by cell before every this many steps (memory locality; 0: never; -1: every 20 steps on a rank with more than 1e5 particles)",
                            "", mpm->sort_every, &mpm->sort_every, NULL));
  PetscCall(PetscOptionsInt("-mpm_migrate_margin",
                            "more than one rank: cells a particle may stray out of its rank's cells before the particles migrate (the grid's ghost width is 2 + this)",
                            "", mpm->margin, &mpm->margin, NULL));
  PetscCall(PetscOptionsInt("-mpm_substeps", "substeps per step (0: as many as the time step limit needs)", "", mpm->substeps, &mpm->substeps, NULL));
  PetscOptionsHeadEnd();
  for (size_t k = 0; k < sizeof(transfers) / sizeof(transfers[0]); k++) {
    if (!strcmp(transfer, transfers[k].name)) mpm->transfer = &transfers[k], found = PETSC_TRUE;
    PetscCall(SimStrAppend(names, k ? ", " : "", sizeof(names)));
    PetscCall(SimStrAppend(names, transfers[k].name, sizeof(names)));
  }
  PetscCheck(found, s->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-mpm_transfer: unknown transfer '%s' (%s)", transfer, names);
  found = PETSC_FALSE;
  for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
    if (!strcmp(kernel, kernels[k].name)) mpm->kernel = &kernels[k], found = PETSC_TRUE;
  PetscCheck(found, s->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-mpm_kernel: unknown kernel '%s' (quadratic, cubic)", kernel);
  PetscCheck(mpm->flip_ratio >= 0 && mpm->flip_ratio <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-mpm_flip_ratio must be in [0, 1] (got %g)",
             (double)mpm->flip_ratio);
  PetscCheck(mpm->cfl > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-mpm_cfl must be > 0 (got %g)", (double)mpm->cfl);
  PetscCheck(mpm->margin >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-mpm_migrate_margin must be >= 0 (got %" PetscInt_FMT ")", mpm->margin);
  PetscCheck(mpm->sort_every >= -1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-mpm_sort_every must be >= -1 (got %" PetscInt_FMT ")", mpm->sort_every);
  mpm->avx = (PetscBool)(mpm->avx && __builtin_cpu_supports("avx") > 0);
  mpm->fma = (PetscBool)(mpm->fma && mpm->avx && __builtin_cpu_supports("avx2") > 0 && __builtin_cpu_supports("fma") > 0);
  PetscCheck(mpm->substeps >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-mpm_substeps must be >= 0 (got %" PetscInt_FMT ")", mpm->substeps);
  PetscFunctionReturn(0);
}

/* More than one rank: the exchange of the patch's nodes that another rank owns (leaves, one per real)
 * with their owners' copies (roots, in the owner's patch), and the band, the patch's nodes in it,
 * restricted to the nodes in mpm->sfbox (global node indices; the same box on every rank, so that a
 * leaf's root is in its owner's band too). A rank's patch is its owned box grown by the ghost width w
 * (clipped at the grid's sides), so the owner of a node and its place in the owner's patch follow from
 * the ownership ranges. */
static PetscErrorCode CreateGhostExchange(SimSolver s, MPM *mpm)
{
  const PetscInt *own[3] = {NULL, NULL, NULL}, dof = mpm->dof, w = 2 + mpm->margin;
  PetscInt N[3] = {1, 1, 1}, P[3] = {1, 1, 1}, xs[3] = {0, 0, 0}, xm[3] = {1, 1, 1}, nleaves = 0, nroots, nb = 0, *ilocal, blo[3], bhi[3], nbox = 1;
  PetscSFNode *iremote;
  const PetscInt *degree;
  PetscBool *inband;
  const PetscInt *gs = mpm->gs, *gm = mpm->gm;

  PetscFunctionBeginUser;
  PetscCall(PetscSFDestroy(&mpm->ghost_sf));
  PetscCall(PetscFree(mpm->band));
  PetscCall(DMDAGetInfo(mpm->da, NULL, &N[0], &N[1], &N[2], &P[0], &P[1], &P[2], NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(mpm->da, &own[0], &own[1], &own[2]));
  PetscCall(DMDAGetCorners(mpm->da, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  if (mpm->dim == 2) N[2] = P[2] = 1, xs[2] = 0, xm[2] = 1;
  for (int d = 0; d < 3; d++) { /* the patch's nodes in the box, in patch indices [blo, bhi) */
    blo[d] = d < mpm->dim ? PetscMax(mpm->sfbox[2 * d], gs[d]) - gs[d] : 0;
    bhi[d] = d < mpm->dim ? PetscMin(mpm->sfbox[2 * d + 1] + 1, gs[d] + gm[d]) - gs[d] : 1;
    nbox *= PetscMax(bhi[d] - blo[d], 0);
  }
  nroots = gm[0] * gm[1] * gm[2] * dof;
  PetscCall(PetscMalloc1(nbox * dof + 1, &ilocal));
  PetscCall(PetscMalloc1(nbox * dof + 1, &iremote));
  PetscCall(PetscCalloc1(gm[0] * gm[1] * gm[2], &inband));
  for (PetscInt k = blo[2]; k < bhi[2]; k++)
    for (PetscInt j = blo[1]; j < bhi[1]; j++)
      for (PetscInt i = blo[0]; i < bhi[0]; i++) {
        const PetscInt node[3] = {gs[0] + i, gs[1] + j, gs[2] + k}, here = (k * gm[1] + j) * gm[0] + i;
        PetscInt rk[3], ogs[3], ogm[3], there;
        PetscBool mine = PETSC_TRUE;
        for (int d = 0; d < 3; d++) mine = (PetscBool)(mine && node[d] >= xs[d] && node[d] < xs[d] + xm[d]);
        if (mine) continue;
        for (int d = 0; d < 3; d++) { /* the owner along d and its patch */
          PetscInt start = 0;
          rk[d] = 0;
          if (d < mpm->dim)
            while (node[d] >= start + own[d][rk[d]]) start += own[d][rk[d]++];
          ogs[d] = d < mpm->dim ? PetscMax(start - w, 0) : 0;
          ogm[d] = d < mpm->dim ? PetscMin(start + own[d][rk[d]] + w, N[d]) - ogs[d] : 1;
        }
        there = ((node[2] - ogs[2]) * ogm[1] + node[1] - ogs[1]) * ogm[0] + node[0] - ogs[0];
        for (PetscInt c = 0; c < dof; c++, nleaves++) {
          ilocal[nleaves] = here * dof + c;
          iremote[nleaves].rank = (rk[2] * P[1] + rk[1]) * P[0] + rk[0];
          iremote[nleaves].index = there * dof + c;
        }
        inband[here] = PETSC_TRUE;
      }
  PetscCall(PetscSFCreate(s->comm, &mpm->ghost_sf));
  PetscCall(PetscSFSetGraph(mpm->ghost_sf, nroots, nleaves, ilocal, PETSC_OWN_POINTER, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(mpm->ghost_sf));
  PetscCall(PetscSFComputeDegreeBegin(mpm->ghost_sf, &degree));
  PetscCall(PetscSFComputeDegreeEnd(mpm->ghost_sf, &degree));
  for (PetscInt q = 0; q < gm[0] * gm[1] * gm[2]; q++) {
    if (degree[q * dof] > 0) inband[q] = PETSC_TRUE;
    nb += inband[q];
  }
  mpm->nband = nb;
  PetscCall(PetscMalloc1(nb + 1, &mpm->band));
  nb = 0;
  for (PetscInt q = 0; q < gm[0] * gm[1] * gm[2]; q++)
    if (inband[q]) mpm->band[nb++] = q;
  PetscCall(PetscFree(inband));
  mpm->sfbuilds++;
  PetscFunctionReturn(0);
}

PetscErrorCode MPMGhostExchangeCover(SimSolver s, MPM *mpm, const PetscInt box[6])
{
  PetscInt N[3] = {1, 1, 1};
  PetscBool inside = PETSC_TRUE;
  const PetscInt grow = 4; /* nodes: the box grows by more than it must, so that a moving body rebuilds it every few cells */

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < mpm->dim; d++)
    if (box[2 * d] <= box[2 * d + 1]) inside = (PetscBool)(inside && box[2 * d] >= mpm->sfbox[2 * d] && box[2 * d + 1] <= mpm->sfbox[2 * d + 1]);
  if (inside) PetscFunctionReturn(0); /* (an empty box: no rank wrote a node) */
  PetscCall(DMDAGetInfo(mpm->da, NULL, &N[0], &N[1], &N[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  for (PetscInt d = 0; d < mpm->dim; d++) { /* the union of the old box and the new one grown, on the grid */
    const PetscInt lo = PetscMax(box[2 * d] - grow, 0), hi = PetscMin(box[2 * d + 1] + grow, N[d] - 1);
    if (mpm->sfbox[2 * d] > mpm->sfbox[2 * d + 1]) mpm->sfbox[2 * d] = lo, mpm->sfbox[2 * d + 1] = hi;
    else mpm->sfbox[2 * d] = PetscMin(mpm->sfbox[2 * d], lo), mpm->sfbox[2 * d + 1] = PetscMax(mpm->sfbox[2 * d + 1], hi);
  }
  PetscCall(CreateGhostExchange(s, mpm));
  PetscFunctionReturn(0);
}

/* The node grid: cells + 1 nodes per axis on the decomposition of the problem's cell grid (a rank
 * owns the nodes at the low corner of its cells, the last rank also the far side), ghost width 2 +
 * the migration margin. */
static PetscErrorCode CreateNodeGrid(SimSolver s, MPM *mpm)
{
  DM cells;
  PetscInt np[3], n[3];
  PetscMPIInt size;
  const PetscInt *own[3] = {NULL, NULL, NULL};
  PetscInt *lx[3] = {NULL, NULL, NULL};
  const PetscInt w = 2 + mpm->margin;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetGrid(s->problem, &cells));
  PetscCall(DMDAGetInfo(cells, NULL, &n[0], &n[1], &n[2], &np[0], &np[1], &np[2], NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(cells, &own[0], &own[1], &own[2]));
  for (PetscInt d = 0; d < mpm->dim; d++) {
    PetscCall(PetscMalloc1(np[d], &lx[d]));
    for (PetscInt r = 0; r < np[d]; r++) lx[d][r] = own[d][r] + (r == np[d] - 1);
  }
  mpm->dof = mpm->transfer->flip ? 2 * mpm->dim + 1 : mpm->dim + 1;
  if (mpm->dim == 2)
    PetscCall(DMDACreate2d(s->comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, n[0] + 1, n[1] + 1, np[0], np[1], mpm->dof, w, lx[0], lx[1], &mpm->da));
  else
    PetscCall(DMDACreate3d(s->comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, n[0] + 1, n[1] + 1, n[2] + 1, np[0], np[1], np[2],
                           mpm->dof, w, lx[0], lx[1], lx[2], &mpm->da));
  PetscCall(DMSetUp(mpm->da));
  PetscCall(DMCreateLocalVector(mpm->da, &mpm->gl));
  PetscCall(DMDAGetGhostCorners(mpm->da, &mpm->gs[0], &mpm->gs[1], &mpm->gs[2], &mpm->gm[0], &mpm->gm[1], &mpm->gm[2]));
  if (mpm->dim == 2) mpm->gs[2] = 0, mpm->gm[2] = 1;
  /* every row is cleared before the first P2G */
  mpm->ny = mpm->gm[1], mpm->nrows = mpm->gm[1] * mpm->gm[2];
  PetscCall(PetscMalloc4(mpm->nrows, &mpm->rlo, mpm->nrows, &mpm->rhi, mpm->nrows, &mpm->mlo, mpm->nrows, &mpm->mhi));
  for (PetscInt r = 0; r < mpm->nrows; r++) mpm->rlo[r] = 0, mpm->rhi[r] = mpm->gm[0] - 1, mpm->mlo[r] = PETSC_MAX_INT, mpm->mhi[r] = -1;
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  for (PetscInt d = 0; d < 3; d++) mpm->sfbox[2 * d] = 0, mpm->sfbox[2 * d + 1] = d < mpm->dim ? -1 : 0; /* empty: the first P2G sets it */
  if (size > 1) PetscCall(CreateGhostExchange(s, mpm));
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(lx[d]));
  PetscFunctionReturn(0);
}

/* The materials the scene described: the elastic material (options under its prefix override the
 * scene's defaults) and the plasticity. */
static PetscErrorCode CreateMaterials(SimSolver s, MPM *mpm)
{
  SimRegistry reg;

  PetscFunctionBeginUser;
  PetscCall(SimProblemGetRegistry(s->problem, &reg));
  mpm->nmat = mpm->info.nmaterials;
  PetscCheck(mpm->nmat > 0, s->comm, PETSC_ERR_ARG_WRONGSTATE,
             "Solver 'mpm': the scene describes no materials (SimParticlesSetMaterial): the particles' stress needs one per material id");
  for (PetscInt m = 0; m < mpm->nmat; m++) {
    const SimParticlesMaterial *d = &mpm->info.materials[m];
    MPMMaterial *mt = &mpm->mat[m];
    PetscCall(SimMaterialCreateWithDefaults(reg, d->elastic, d->prefix, d->youngs, d->poisson, d->density, &mt->elastic));
    PetscCall(MPMPlasticityCreate(d->plastic[0] ? d->plastic : "none", d->prefix, mt->elastic->par.mu, mt->elastic->par.lambda, &mt->plastic));
    mt->modulus = mt->elastic->par.lambda + 2 * mt->elastic->par.mu;
    mt->corotated_dec = (PetscBool)(!strcmp(mt->elastic->name, "fixed_corotated") && !mt->elastic->nparams && !mt->elastic->strain_limits);
    mt->corotated = (PetscBool)(mt->corotated_dec && !strcmp(mt->plastic->type->name, "none"));
    PetscCall(PetscStrncpy(mt->label, d->label[0] ? d->label : d->elastic, sizeof(mt->label)));
  }
  PetscFunctionReturn(0);
}

/* Fresh particles: F = I, C = 0, J = 1, the plastic state of an undeformed particle; every material
 * id described and every particle a cell inside the box. */
static PetscErrorCode InitFields(SimSolver s, MPM *mpm)
{
  DM sw;
  PetscInt n, badmat = -1, badpos = -1;
  const PetscInt D = mpm->dim;
  PetscReal *x, *F, *mat, *pl, *J, *id;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_F, NULL, NULL, (void **)&F));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_PLASTIC, NULL, NULL, (void **)&pl));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_J, NULL, NULL, (void **)&J));
  for (PetscInt p = 0; p < n; p++) {
    const PetscInt m = (PetscInt)mat[p];
    for (PetscInt d = 0; d < D * D; d++) F[D * D * p + d] = d % (D + 1) == 0;
    J[p] = 1;
    if (m < 0 || m >= mpm->nmat || m != mat[p]) {
      if (badmat < 0) badmat = (PetscInt)id[p];
      continue;
    }
    pl[p] = mpm->mat[m].plastic->type->state0;
    for (PetscInt d = 0; d < D; d++)
      if (!(x[D * p + d] >= mpm->info.lo[d] + mpm->info.h && x[D * p + d] < mpm->info.hi[d] - mpm->info.h) && badpos < 0) badpos = (PetscInt)id[p];
  }
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_J, NULL, NULL, (void **)&J));
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_PLASTIC, NULL, NULL, (void **)&pl));
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_F, NULL, NULL, (void **)&F));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &badmat, 1, MPIU_INT, MPI_MAX, s->comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &badpos, 1, MPIU_INT, MPI_MAX, s->comm));
  PetscCheck(badmat < 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "Solver 'mpm': particle %" PetscInt_FMT " has a material id the scene did not describe (ids 0..%" PetscInt_FMT ")",
             badmat, mpm->nmat - 1);
  PetscCheck(badpos < 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Solver 'mpm': particle %" PetscInt_FMT " starts less than a cell (h = %g m) from the box side: the B-spline kernel needs nodes on both sides; "
             "move it in or enlarge the box",
             badpos, (double)mpm->info.h);
  PetscFunctionReturn(0);
}

static PetscErrorCode SortEvery(SimSolver, MPM *, PetscInt *);
static PetscErrorCode SortParticles(SimSolver, MPM *);

static PetscErrorCode SetUp_MPM(SimSolver s)
{
  PetscInt every;
  MPM *mpm = (MPM *)s->data;
  MPMEvents ev = {0};

  PetscFunctionBeginUser;
  PetscCall(MPMEventsGet(&ev));
  mpm->ev_p2g = ev.p2g, mpm->ev_grid = ev.grid, mpm->ev_g2p = ev.g2p, mpm->ev_migrate = ev.migrate;
  PetscCall(SimParticlesGetInfo(s->problem, &mpm->info));
  PetscCall(CreateMaterials(s, mpm));
  PetscCall(CreateNodeGrid(s, mpm));
  PetscCall(PetscMalloc5(9 * MPM_CHUNK, &mpm->F9, SIM_ISOTROPIC_NDEC * MPM_CHUNK, &mpm->dec, 9 * MPM_CHUNK, &mpm->P, MPM_CHUNK, &mpm->scale, MPM_CHUNK,
                         &mpm->idx));
  PetscCall(InitFields(s, mpm));
  PetscCall(SortEvery(s, mpm, &every));
  if (every) PetscCall(SortParticles(s, mpm)); /* the scene's order (a restart then loads its own) */
  PetscCall(MPMComputeStress(s, mpm, &mpm->wave_speed));
  PetscFunctionReturn(0);
}

/* The largest wave speed + particle speed over the particles (the stored stress and plastic state
 * may have come from a checkpoint or the last-good stash), its particle's id and material. */
static PetscErrorCode WaveSpeed(SimSolver s, MPM *mpm, PetscReal *speed, PetscReal *who)
{
  DM sw;
  PetscInt n;
  const PetscInt D = mpm->dim;
  PetscReal *v, *m, *vol, *mat, *pl, *id, loc[3] = {0, -1, -1};

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VOLUME, NULL, NULL, (void **)&vol));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_PLASTIC, NULL, NULL, (void **)&pl));
  for (PetscInt p = 0; p < n; p++) {
    const MPMMaterial *mt = &mpm->mat[(PetscInt)mat[p]];
    const PetscReal scale = mt->plastic->type->hardening ? mt->plastic->type->hardening(mt->plastic, pl[p]) : 1;
    PetscReal v2 = 0, c;
    for (PetscInt d = 0; d < D; d++) v2 += v[D * p + d] * v[D * p + d];
    c = PetscSqrtReal(scale * mt->modulus * vol[p] / m[p]) + PetscSqrtReal(v2);
    if (c > loc[0]) loc[0] = c, loc[1] = id[p], loc[2] = mat[p];
  }
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_PLASTIC, NULL, NULL, (void **)&pl));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_ID, NULL, NULL, (void **)&id));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VOLUME, NULL, NULL, (void **)&vol));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(MPIU_Allreduce(loc, speed, 1, MPIU_REAL, MPIU_MAX, s->comm));
  if (who) { /* the fastest particle: its rank's id and material, the others' -1 */
    PetscReal w[2] = {loc[0] == *speed ? loc[1] : -1, loc[0] == *speed ? loc[2] : -1};
    PetscCall(MPIU_Allreduce(w, who, 2, MPIU_REAL, MPIU_MAX, s->comm));
  }
  PetscFunctionReturn(0);
}

/* The sort period in steps (0: none); automatic (-1): every 20 steps on a rank with more than 1e5
 * particles (below that the grid a rank touches stays in cache and a sort costs more than it saves). */
static PetscErrorCode SortEvery(SimSolver s, MPM *mpm, PetscInt *every)
{
  PetscFunctionBeginUser;
  *every = mpm->sort_every;
  if (*every < 0) {
    PetscInt n;
    PetscCall(SimParticlesGetSizes(s->problem, &n, NULL));
    *every = n > 100000 ? 20 : 0;
  }
  PetscFunctionReturn(0);
}

/* Sorts this rank's particles by the cell they are in (x fastest; a stable counting sort, so the order
 * is a function of the state and a restarted run sorts as the uninterrupted one): the transfers then
 * visit the grid's nodes in order and find them in cache. */
static PetscErrorCode SortParticles(SimSolver s, MPM *mpm)
{
  DM sw;
  PetscInt n, gs[3], gm[3], ncell, *key, *perm, *start;
  const PetscInt D = mpm->dim;
  const PetscReal ih = 1 / mpm->info.h;
  PetscReal *x;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMDAGetGhostCorners(mpm->da, &gs[0], &gs[1], &gs[2], &gm[0], &gm[1], &gm[2]));
  if (D == 2) gs[2] = 0, gm[2] = 1;
  ncell = gm[0] * gm[1] * gm[2];
  PetscCall(PetscMalloc3(n + 1, &key, n + 1, &perm, ncell + 1, &start));
  PetscCall(PetscArrayzero(start, ncell + 1));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  for (PetscInt p = 0; p < n; p++) {
    PetscInt c[3] = {0, 0, 0};
    for (PetscInt d = 0; d < D; d++) c[d] = PetscMin(PetscMax((PetscInt)((x[D * p + d] - mpm->info.lo[d]) * ih) - gs[d], 0), gm[d] - 1);
    key[p] = (c[2] * gm[1] + c[1]) * gm[0] + c[0];
    start[key[p] + 1]++;
  }
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  for (PetscInt c = 0; c < ncell; c++) start[c + 1] += start[c];
  for (PetscInt p = 0; p < n; p++) perm[start[key[p]]++] = p;
  PetscCall(SimParticlesPermute(s->problem, perm));
  PetscCall(PetscFree3(key, perm, start));
  PetscFunctionReturn(0);
}

/* Ends the step as failed with the message (the same on every rank). */
static PetscErrorCode Fail(SimSolver s, const char *msg)
{
  PetscFunctionBeginUser;
  s->stats.outcome = SIM_STEP_FAILED;
  PetscCall(PetscStrncpy(s->stats.reason, msg, sizeof(s->stats.reason)));
  PetscFunctionReturn(0);
}

/* A step of dt: substeps of the four phases, each at most the time step limit (-mpm_substeps 0) or
 * dt / -mpm_substeps (then a substep above the limit fails the step). Particles migrate to the rank
 * of their cell after a substep that left one of them with a kernel outside its rank's patch (more
 * than -mpm_migrate_margin cells out of the rank's cells): until then a particle scatters into and
 * gathers from its rank's ghost nodes, whose sums the exchange makes whole, so that the trajectory
 * is the one of one rank either way (to round-off: the order of the sums). */
static PetscErrorCode Step_MPM(SimSolver s, PetscReal dt)
{
  MPM *mpm = (MPM *)s->data;
  const PetscReal h = mpm->info.h;
  PetscReal t = 0, speed, who[2];
  PetscInt k = 0;
  char msg[256];

  PetscFunctionBeginUser;
  PetscInt every;
  PetscCall(SortEvery(s, mpm, &every));
  if (every && s->step > 0 && s->step % every == 0) {
    PetscCall(PetscLogEventBegin(mpm->ev_migrate, 0, 0, 0, 0));
    PetscCall(SortParticles(s, mpm));
    PetscCall(PetscLogEventEnd(mpm->ev_migrate, 0, 0, 0, 0));
  }
  /* the wave speed the last substep's G2P found (the same numbers WaveSpeed computes: the same
   * expressions of the same particles) unless the state came from elsewhere since (set-up, restart,
   * a restored stash) */
  const PetscBool fresh = (PetscBool)!mpm->speed_valid;
  if (fresh) PetscCall(WaveSpeed(s, mpm, &speed, who));
  else speed = mpm->speed_last;
  mpm->speed_valid = PETSC_FALSE;
  while (mpm->substeps ? k < mpm->substeps : dt - t > 1e-12 * dt) {
    PetscReal hsub, bad[7], gbad[7], loc[3], glob[3];
    PetscInt strays;
    mpm->dt_limit = speed > 0 ? mpm->cfl * h / speed : PETSC_MAX_REAL;
    if (mpm->substeps) {
      hsub = dt / mpm->substeps;
      if (hsub > mpm->dt_limit) {
        if (k || !fresh) PetscCall(WaveSpeed(s, mpm, &speed, who));
        PetscCall(PetscSNPrintf(msg, sizeof(msg),
                                "substep %" PetscInt_FMT " of %g s is above the time step limit %g s = cfl %g x h %g m / %g m/s (wave + particle speed "
                                "of particle %.0f, material '%s'): raise -mpm_substeps (now %" PetscInt_FMT "; 0: automatic) or -mpm_cfl",
                                k + 1, (double)hsub, (double)mpm->dt_limit, (double)mpm->cfl, (double)h, (double)speed, (double)who[0],
                                who[1] >= 0 ? mpm->mat[(PetscInt)who[1]].label : "?", mpm->substeps));
        PetscCall(Fail(s, msg));
        break;
      }
    } else {
      const PetscReal rest = dt - t, nsub = PetscCeilReal(rest / mpm->dt_limit * (1 - 1e-12));
      if (nsub > 1e6) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "the time step limit %g s (wave + particle speed %g m/s) needs %g substeps for this step: a particle is too fast "
                                "or a material too stiff for the grid (h = %g m)", (double)mpm->dt_limit, (double)speed, (double)nsub, (double)h));
        PetscCall(Fail(s, msg));
        break;
      }
      hsub = nsub > 1 ? rest / nsub : rest;
    }
    mpm->time = s->time + t;
    PetscCall(MPMParticlesToGrid(s, mpm, hsub));
    PetscCall(MPMGridUpdate(s, mpm, hsub));
    PetscCall(MPMGridToParticles(s, mpm, hsub, bad, &speed, &strays));
    loc[0] = bad[0], loc[1] = speed, loc[2] = strays;
    PetscCall(MPIU_Allreduce(loc, glob, 3, MPIU_REAL, MPIU_MAX, s->comm));
    speed = glob[1];
    if (glob[0] >= 0) { /* a particle in a bad state: its rank tells the others what */
      for (int q = 0; q < 7; q++) bad[q] = bad[0] == glob[0] ? bad[q] : -PETSC_MAX_REAL;
      PetscCall(MPIU_Allreduce(bad, gbad, 7, MPIU_REAL, MPIU_MAX, s->comm));
      char at[96]; /* stats.reason holds 256 characters: the message stays short */
      if (mpm->info.dim == 2) PetscCall(PetscSNPrintf(at, sizeof(at), "(%g, %g)", (double)gbad[2], (double)gbad[3]));
      else PetscCall(PetscSNPrintf(at, sizeof(at), "(%g, %g, %g)", (double)gbad[2], (double)gbad[3], (double)gbad[4]));
      if (gbad[1] == 1)
        PetscCall(PetscSNPrintf(msg, sizeof(msg),
                                "particle %.0f (material '%s') left the grid in substep %" PetscInt_FMT ": at %s, within h = %g m of the box side. Use a thicker "
                                "-wall_thickness, a sticky or separate wall there, or smaller substeps (-mpm_cfl, -mpm_substeps)",
                                (double)gbad[0], mpm->mat[(PetscInt)gbad[6]].label, k + 1, at, (double)h));
      else
        PetscCall(PetscSNPrintf(msg, sizeof(msg),
                                "particle %.0f (material '%s') at %s reached det F = %g <= 0 in substep %" PetscInt_FMT ": it inverted. Use smaller substeps "
                                "(-mpm_cfl, -mpm_substeps) or a stiffer material",
                                (double)gbad[0], mpm->mat[(PetscInt)gbad[6]].label, at, (double)gbad[5], k + 1));
      PetscCall(Fail(s, msg));
      break;
    }
    if (glob[2] > 0) { /* a particle's kernel left its rank's patch: every particle goes to the rank of its cell */
      PetscCall(PetscLogEventBegin(mpm->ev_migrate, 0, 0, 0, 0));
      PetscCall(SimParticlesMigrate(s->problem));
      PetscCall(PetscLogEventEnd(mpm->ev_migrate, 0, 0, 0, 0));
      mpm->migrations++;
    }
    t += hsub;
    k++;
  }
  mpm->dt_limit = speed > 0 ? mpm->cfl * h / speed : PETSC_MAX_REAL;
  if (s->stats.outcome != SIM_STEP_FAILED) mpm->speed_last = speed, mpm->speed_valid = PETSC_TRUE;
  mpm->last_substeps = k;
  s->stats.substeps = k;
  PetscFunctionReturn(0);
}

/* Kinetic energy, gravity's potential and the elastic energy sum V0 scale psi(F). */
static PetscErrorCode Energy_MPM(SimSolver s, SimEnergyReport *rep)
{
  MPM *mpm = (MPM *)s->data;
  PetscBool has;
  DM sw;
  PetscInt n;
  const PetscInt D = mpm->dim;
  PetscReal *F, *vol, *mat, *pl, elastic = 0, psi[MPM_CHUNK];

  PetscFunctionBeginUser;
  PetscCall(SimProblemReport(s->problem, rep, &has));
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_F, NULL, NULL, (void **)&F));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VOLUME, NULL, NULL, (void **)&vol));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_PLASTIC, NULL, NULL, (void **)&pl));
  for (PetscInt m = 0; m < mpm->nmat; m++) {
    const MPMMaterial *mt = &mpm->mat[m];
    for (PetscInt p0 = 0; p0 < n; p0 += MPM_CHUNK) {
      PetscInt nm = 0;
      for (PetscInt p = p0; p < PetscMin(n, p0 + MPM_CHUNK); p++) {
        PetscReal *F9 = mpm->F9 + 9 * nm;
        if ((PetscInt)mat[p] != m) continue;
        for (int q = 0; q < 9; q++) F9[q] = 0;
        F9[8] = 1;
        for (PetscInt r = 0; r < D; r++)
          for (PetscInt c = 0; c < D; c++) F9[3 * r + c] = F[D * D * p + D * r + c];
        mpm->idx[nm++] = p;
      }
      PetscCall(SimMaterialEnergy(mt->elastic, nm, mpm->F9, psi));
      for (PetscInt q = 0; q < nm; q++) {
        const PetscInt p = mpm->idx[q];
        elastic += vol[p] * (mt->plastic->type->hardening ? mt->plastic->type->hardening(mt->plastic, pl[p]) : 1) * psi[q];
      }
    }
  }
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_PLASTIC, NULL, NULL, (void **)&pl));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MATERIAL, NULL, NULL, (void **)&mat));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VOLUME, NULL, NULL, (void **)&vol));
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_F, NULL, NULL, (void **)&F));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &elastic, 1, MPIU_REAL, MPIU_SUM, s->comm));
  rep->term_name[rep->nterms] = "elastic";
  rep->term[rep->nterms++] = elastic;
  rep->potential += elastic;
  rep->total += elastic;
  PetscFunctionReturn(0);
}

/* Per-step figures: total mass, angular momentum about the origin (with the affine part of APIC/MLS,
 * m eps : (C D)^T, Jiang et al. 2015, section 5.3), the affine kinetic energy 1/2 m tr(C D C^T),
 * particles per occupied cell (mean, max), det F range, the time step limit and the substeps. */
static PetscErrorCode Figures_MPM(SimSolver s, PetscInt *nfig, const char *names[], PetscReal values[])
{
  MPM *mpm = (MPM *)s->data;
  const PetscInt D = mpm->dim;
  const PetscReal d2 = mpm->info.h * mpm->info.h / mpm->kernel->dinv;
  DM sw, cells;
  PetscInt n, xs[3], xm[3], *count, occupied = 0, cmax = 0, ncell;
  PetscReal *x, *v, *m, *C, *J, sum[5] = {0, 0, 0, 0, 0}, jr[2] = {PETSC_MAX_REAL, PETSC_MAX_REAL}, occ[2];
  static const char *names2[] = {"mass", "angular_momentum", "affine_kinetic", "ppc_mean", "ppc_max", "J_min", "J_max", "dt_limit", "substeps"};
  static const char *names3[] = {"mass", "angular_momentum_x", "angular_momentum_y", "angular_momentum_z", "affine_kinetic", "ppc_mean", "ppc_max", "J_min",
                                 "J_max", "dt_limit", "substeps"};
  PetscInt f = 0;

  PetscFunctionBeginUser;
  PetscCall(SimSolverSetUp(s));
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(SimParticlesGetGrid(s->problem, &cells));
  PetscCall(DMDAGetCorners(cells, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  ncell = xm[0] * xm[1] * xm[2];
  PetscCall(PetscCalloc1(ncell, &count));
  PetscCall(DMSwarmGetLocalSize(sw, &n));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmGetField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_C, NULL, NULL, (void **)&C));
  PetscCall(DMSwarmGetField(sw, MPM_FIELD_J, NULL, NULL, (void **)&J));
  for (PetscInt p = 0; p < n; p++) {
    const PetscReal *xp = x + D * p, *vp = v + D * p, *Cp = C + D * D * p;
    PetscInt c[3] = {0, 0, 0}, cell;
    sum[0] += m[p];
    if (D == 2) sum[1] += m[p] * (xp[0] * vp[1] - xp[1] * vp[0] + d2 * (Cp[2] - Cp[1]));
    else {
      sum[1] += m[p] * (xp[1] * vp[2] - xp[2] * vp[1] + d2 * (Cp[7] - Cp[5]));
      sum[2] += m[p] * (xp[2] * vp[0] - xp[0] * vp[2] + d2 * (Cp[2] - Cp[6]));
      sum[3] += m[p] * (xp[0] * vp[1] - xp[1] * vp[0] + d2 * (Cp[3] - Cp[1]));
    }
    for (PetscInt q = 0; q < D * D; q++) sum[4] += 0.5 * m[p] * d2 * Cp[q] * Cp[q];
    jr[0] = PetscMin(jr[0], J[p]), jr[1] = PetscMin(jr[1], -J[p]);
    for (PetscInt d = 0; d < D; d++) c[d] = PetscMin(PetscMax((PetscInt)PetscFloorReal((xp[d] - mpm->info.lo[d]) / mpm->info.h) - xs[d], 0), xm[d] - 1);
    cell = (c[2] * xm[1] + c[1]) * xm[0] + c[0];
    count[cell]++;
  }
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_J, NULL, NULL, (void **)&J));
  PetscCall(DMSwarmRestoreField(sw, MPM_FIELD_C, NULL, NULL, (void **)&C));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_MASS, NULL, NULL, (void **)&m));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_VELOCITY, NULL, NULL, (void **)&v));
  PetscCall(DMSwarmRestoreField(sw, SIM_PARTICLES_POSITION, NULL, NULL, (void **)&x));
  for (PetscInt c = 0; c < ncell; c++) occupied += count[c] > 0, cmax = PetscMax(cmax, count[c]);
  PetscCall(PetscFree(count));
  occ[0] = occupied, occ[1] = n;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sum, 5, MPIU_REAL, MPIU_SUM, s->comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, jr, 2, MPIU_REAL, MPIU_MIN, s->comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, occ, 2, MPIU_REAL, MPIU_SUM, s->comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &cmax, 1, MPIU_INT, MPI_MAX, s->comm));
  values[f++] = sum[0];
  for (PetscInt q = 0; q < (D == 2 ? 1 : 3); q++) values[f++] = sum[1 + q];
  values[f++] = sum[4];
  values[f++] = occ[0] > 0 ? occ[1] / occ[0] : 0;
  values[f++] = cmax;
  values[f++] = jr[0];
  values[f++] = -jr[1];
  values[f++] = mpm->dt_limit;
  values[f++] = mpm->last_substeps;
  for (PetscInt q = 0; q < f; q++) names[q] = D == 2 ? names2[q] : names3[q];
  *nfig = f;
  PetscFunctionReturn(0);
}

/* The particles were restored or loaded: the wave speed of the last substep no longer holds. */
static PetscErrorCode Stash_MPM(SimSolver s, PetscBool restore)
{
  PetscFunctionBeginUser;
  if (restore) ((MPM *)s->data)->speed_valid = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_MPM(SimSolver s, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  ((MPM *)s->data)->speed_valid = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode View_MPM(SimSolver s, PetscViewer viewer)
{
  MPM *mpm = (MPM *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "transfer %s (%s), %s B-splines, cfl %g, substeps %s\n", mpm->transfer->name, mpm->transfer->help,
                                   mpm->kernel->name, (double)mpm->cfl, mpm->substeps ? "fixed" : "from the time step limit"));
  for (PetscInt m = 0; m < mpm->nmat; m++)
    PetscCall(PetscViewerASCIIPrintf(viewer, "material %" PetscInt_FMT " '%s': %s (E %g Pa, nu %g), plasticity %s\n", m, mpm->mat[m].label, mpm->mat[m].elastic->name,
                                     (double)mpm->mat[m].elastic->par.youngs, (double)mpm->mat[m].elastic->par.poisson, mpm->mat[m].plastic->type->name));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_MPM(SimSolver s)
{
  MPM *mpm = (MPM *)s->data;

  PetscFunctionBeginUser;
  for (PetscInt m = 0; m < mpm->nmat; m++) {
    PetscCall(SimMaterialDestroy(&mpm->mat[m].elastic));
    PetscCall(MPMPlasticityDestroy(&mpm->mat[m].plastic));
  }
  PetscCall(VecDestroy(&mpm->gl));
  PetscCall(PetscSFDestroy(&mpm->ghost_sf));
  PetscCall(PetscFree(mpm->band));
  PetscCall(PetscFree4(mpm->rlo, mpm->rhi, mpm->mlo, mpm->mhi));
  PetscCall(DMDestroy(&mpm->da));
  PetscCall(PetscFree5(mpm->F9, mpm->dec, mpm->P, mpm->scale, mpm->idx));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_MPM(SimSolver s)
{
  static const SimSolverOps ops = {.setfromoptions = SetFromOptions_MPM,
                                   .setup = SetUp_MPM,
                                   .step = Step_MPM,
                                   .energy = Energy_MPM,
                                   .figures = Figures_MPM,
                                   .view = View_MPM,
                                   .stash = Stash_MPM,
                                   .load = Load_MPM,
                                   .destroy = Destroy_MPM};
  MPM *mpm;
  SimParticlesInfo info;
  PetscInt D;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&mpm));
  mpm->transfer = &transfers[3];
  mpm->kernel = &kernels[0];
  mpm->flip_ratio = 0.99;
  mpm->cfl = 0.5;
  mpm->sort_every = -1;
  mpm->margin = 1;
  __builtin_cpu_init();
  mpm->avx = (PetscBool)(__builtin_cpu_supports("avx") > 0);
  mpm->fma = (PetscBool)(mpm->avx && __builtin_cpu_supports("avx2") > 0 && __builtin_cpu_supports("fma") > 0);
  mpm->dt_limit = PETSC_MAX_REAL;
  s->data = mpm;
  s->ops = ops;
  /* the fields MPM carries, registered before the swarm exists */
  PetscCall(SimParticlesGetInfo(s->problem, &info));
  D = mpm->dim = info.dim;
  PetscCall(SimParticlesRegisterField(s->problem, MPM_FIELD_C, D * D));
  PetscCall(SimParticlesRegisterField(s->problem, MPM_FIELD_F, D * D));
  PetscCall(SimParticlesRegisterField(s->problem, MPM_FIELD_PLASTIC, 1));
  PetscCall(SimParticlesRegisterField(s->problem, MPM_FIELD_J, 1));
  PetscCall(SimParticlesRegisterField(s->problem, MPM_FIELD_STRESS, D == 2 ? 3 : 6));
  PetscFunctionReturn(0);
}
