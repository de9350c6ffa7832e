/* The sph solver: weakly compressible SPH (Monaghan 1994; Becker & Teschner 2007) on a particles
 * problem. Per substep: ghosts and neighbours; density by summation with Akinci boundary particles;
 * the Tait equation of state p = B ((rho / rho0)^gamma - 1), gamma = 7, B = rho0 c^2 / gamma with the
 * speed of sound c = v_ref / Mach; the symmetric pressure force, Monaghan's artificial viscosity and
 * gravity; symplectic Euler with an XSPH position correction. The step dt of the run is split into
 * substeps that keep the CFL, force and viscous limits (docs/sph.md). */
#include "framework/solver_impl.h"
#include "framework/text.h"
#include "solvers/sph/fluid.h"

typedef struct {
  SimFluid *fl;
  char kernel[32];
  PetscReal support; /* h / particle spacing */
  PetscReal rho0, mach, vref, gamma, c, B;
  PetscReal alpha, xsph, cfl;
  PetscBool clamp, akinci, hydrostatic;
  PetscBool neighbors_only; /* a step only rebuilds ghosts and neighbour lists (benchmarks/particles.yaml) */
  PetscReal spacing, hs; /* particle spacing; smoothing length h/2 */
  PetscReal gravity[3];
  /* per particle (own + ghosts) */
  PetscReal *rho;     /* density */
  PetscReal *P;       /* (rho, p / rho^2) in pairs, exchanged with the ghosts */
  PetscReal *a, *dx;  /* accelerations, XSPH corrections (dim per own particle) */
  PetscInt caprho, capP, capa, capdx;
  /* figures of the last step */
  PetscReal rho_err_max, rho_err_mean, rho_min, vmax, amax, cfl_used, avg_neighbors;
  PetscInt substeps;
  PetscInt nfluid, nboundary;
} SPH;

static PetscErrorCode SetFromOptions_SPH(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  SPH *sp = (SPH *)s->data;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, "sph: weakly compressible SPH (docs/sph.md)");
  PetscCall(PetscOptionsString("-sph_kernel", "smoothing kernel: cubic, wendland, poly6, spiky", "", sp->kernel, sp->kernel, sizeof(sp->kernel), NULL));
  PetscCall(PetscOptionsReal("-sph_support", "kernel support radius / particle spacing", "", sp->support, &sp->support, NULL));
  PetscCall(PetscOptionsReal("-sph_rho0", "rest density (kg/m^3, m^2 in 2D; 0: the density of the scene's particle lattice)", "", sp->rho0, &sp->rho0, NULL));
  PetscCall(PetscOptionsReal("-sph_mach", "Mach number v_ref / c that sets the speed of sound", "", sp->mach, &sp->mach, NULL));
  PetscCall(PetscOptionsReal("-sph_vref", "reference speed v_ref (m/s; 0: sqrt(2 g H), H the fluid's initial height)", "", sp->vref, &sp->vref, NULL));
  PetscCall(PetscOptionsReal("-sph_gamma", "Tait exponent", "", sp->gamma, &sp->gamma, NULL));
  PetscCall(PetscOptionsReal("-sph_alpha", "Monaghan artificial viscosity alpha", "", sp->alpha, &sp->alpha, NULL));
  PetscCall(PetscOptionsReal("-sph_xsph", "XSPH velocity smoothing epsilon of the position update", "", sp->xsph, &sp->xsph, NULL));
  PetscCall(PetscOptionsBool("-sph_neighbors_only",
                             "benchmark mode: each step only gathers the ghosts and rebuilds the neighbour lists at the current positions (nothing moves)",
                             "", sp->neighbors_only, &sp->neighbors_only, NULL));
  PetscCall(PetscOptionsReal("-sph_cfl", "CFL number: substep <= cfl h_s / (c + |v|max)", "", sp->cfl, &sp->cfl, NULL));
  PetscCall(PetscOptionsBool("-sph_clamp", "clamp negative pressures to 0 (free surfaces)", "", sp->clamp, &sp->clamp, NULL));
  {
    char bv[16];
    PetscCall(PetscStrncpy(bv, sp->akinci ? "akinci" : "scene", sizeof(bv)));
    PetscCall(PetscOptionsString("-sph_boundary_volume",
                                 "boundary particle volume V_b: scene (the particles' own, right for lattice walls) or akinci (1 / sum_k W_bk, for single-layer samplings)", "",
                                 bv, bv, sizeof(bv), NULL));
    PetscCheck(!strcmp(bv, "akinci") || !strcmp(bv, "scene"), PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE,
               "-sph_boundary_volume: unknown '%s' (valid: akinci, scene)", bv);
    sp->akinci = (PetscBool)!strcmp(bv, "akinci");
  }
  PetscCall(PetscOptionsBool("-sph_hydrostatic", "start in hydrostatic equilibrium: masses scaled by the Tait density of each particle's depth", "",
                             sp->hydrostatic, &sp->hydrostatic, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(sp->support >= 1 && sp->support <= 6, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sph_support must be in [1, 6] (got %g)", (double)sp->support);
  PetscCheck(sp->rho0 >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sph_rho0 must be > 0, or 0 for the lattice's density (got %g)", (double)sp->rho0);
  PetscCheck(sp->mach > 0 && sp->mach <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sph_mach must be in (0, 1] (got %g)", (double)sp->mach);
  PetscCheck(sp->vref >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sph_vref must be >= 0 (got %g)", (double)sp->vref);
  PetscCheck(sp->gamma >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sph_gamma must be >= 1 (got %g)", (double)sp->gamma);
  PetscCheck(sp->alpha >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sph_alpha must be >= 0 (got %g)", (double)sp->alpha);
  PetscCheck(sp->xsph >= 0 && sp->xsph <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sph_xsph must be in [0, 1] (got %g)", (double)sp->xsph);
  PetscCheck(sp->cfl > 0 && sp->cfl <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sph_cfl must be in (0, 1] (got %g)", (double)sp->cfl);
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUp_SPH(SimSolver s)
{
  SPH *sp = (SPH *)s->data;
  SimProblem p = s->problem;
  SimParticlesInfo in;
  PetscReal mass = 0, height = 0, gn = 0;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetInfo(p, &in));
  for (int d = 0; d < 3; d++) sp->gravity[d] = in.gravity[d], gn += in.gravity[d] * in.gravity[d];
  /* the spacing first, with a provisional support, then the fluid with the real one */
  PetscCall(SimFluidCreate(p, sp->kernel, "-sph_kernel", in.h, &sp->fl));
  PetscCall(SimFluidGather(sp->fl));
  PetscCall(SimFluidGeometry(sp->fl, sp->gravity, &sp->spacing, &mass, &height));
  PetscCall(SimFluidDestroy(&sp->fl));
  PetscCall(SimFluidCreate(p, sp->kernel, "-sph_kernel", sp->support * sp->spacing, &sp->fl));
  PetscCall(SimFluidBoundaryVolumes(sp->fl, sp->akinci));
  PetscCall(SimFluidCounts(sp->fl, &sp->nfluid, &sp->nboundary));
  sp->hs = 0.5 * sp->support * sp->spacing;
  if (sp->rho0 == 0) sp->rho0 = SimFluidLatticeDensity(&sp->fl->kernel, sp->spacing, mass);
  if (sp->vref == 0) sp->vref = PetscSqrtReal(2 * PetscSqrtReal(gn) * height);
  PetscCheck(sp->vref > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "sph: without gravity, set the reference speed -sph_vref (> 0)");
  sp->c = sp->vref / sp->mach;
  sp->B = sp->rho0 * sp->c * sp->c / sp->gamma;
  if (sp->hydrostatic) PetscCall(SimFluidHydrostatic(sp->fl, sp->gravity, sp->spacing, sp->rho0, sp->B, sp->gamma));
  PetscFunctionReturn(0);
}

/* Density, the equation of state, and (rho, p / rho^2) of the ghosts. */
static PetscErrorCode DensityPressure(SimSolver s)
{
  SPH *sp = (SPH *)s->data;
  SimFluid *f = sp->fl;

  PetscFunctionBeginUser;
  PetscCall(SimFluidEnsure(f, 1, &sp->caprho, &sp->rho));
  PetscCall(SimFluidEnsure(f, 2, &sp->capP, &sp->P));
  PetscCall(SimFluidDensity(f, sp->rho0, sp->rho));
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    const PetscReal rho = sp->rho[i];
    PetscReal p = sp->B * (PetscPowReal(rho / sp->rho0, sp->gamma) - 1); /* Tait */
    if (sp->clamp && p < 0) p = 0;
    sp->P[2 * i] = rho, sp->P[2 * i + 1] = p / (rho * rho);
  }
  PetscCall(SimFluidExchange(f, 2, sp->P));
  PetscFunctionReturn(0);
}

/* The largest stable substep (Monaghan 1992, 2005): CFL cfl h_s / (c + |v|max), force
 * 0.25 sqrt(h_s / |a|max), viscous 0.125 h_s^2 / nu with the artificial viscosity's
 * nu = alpha c h_s / (2 (d + 2)). Collective. */
static PetscErrorCode StableStep(SimSolver s, PetscReal *dtmax)
{
  SPH *sp = (SPH *)s->data;
  SimFluid *f = sp->fl;
  const PetscInt dim = f->dim;
  PetscReal mx[2] = {0, 0}, dt;

  PetscFunctionBeginUser;
  *dtmax = 0;
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    PetscReal v2 = 0, a2 = 0;
    for (PetscInt d = 0; d < dim; d++) v2 += f->v[dim * i + d] * f->v[dim * i + d], a2 += sp->a[dim * q + d] * sp->a[dim * q + d];
    mx[0] = PetscMax(mx[0], v2), mx[1] = PetscMax(mx[1], a2);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, mx, 2, MPIU_REAL, MPIU_MAX, s->comm));
  sp->vmax = PetscSqrtReal(mx[0]), sp->amax = PetscSqrtReal(mx[1]);
  dt = sp->cfl * sp->hs / (sp->c + sp->vmax);
  if (sp->amax > 0) dt = PetscMin(dt, 0.25 * PetscSqrtReal(sp->hs / sp->amax));
  if (sp->alpha > 0) dt = PetscMin(dt, 0.125 * sp->hs * sp->hs / (sp->alpha * sp->c * sp->hs / (2 * (dim + 2))));
  *dtmax = dt;
  PetscFunctionReturn(0);
}

/* The density and pressure of the own particles into the swarm's fields (boundary: rho0, 0), and
 * the density error over the fluid: the compression max(rho / rho0 - 1, 0), as SPH papers report
 * it (a particle at a free surface has a cut support and a density deficit that no pressure
 * corrects), and the lowest rho / rho0 beside it. */
static PetscErrorCode StoreFields(SimSolver s)
{
  SPH *sp = (SPH *)s->data;
  SimFluid *f = sp->fl;
  PetscReal *rho, *p, e[3] = {0, 0, -PETSC_MAX_REAL};
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(DMSwarmGetField(sw, "density", NULL, NULL, (void **)&rho));
  PetscCall(DMSwarmGetField(sw, "pressure", NULL, NULL, (void **)&p));
  for (PetscInt i = 0; i < f->n; i++) rho[i] = sp->rho0, p[i] = 0;
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    const PetscReal r = sp->P[2 * i], err = PetscMax(r / sp->rho0 - 1, 0);
    rho[i] = r, p[i] = sp->P[2 * i + 1] * r * r;
    e[0] = PetscMax(e[0], err), e[1] += err, e[2] = PetscMax(e[2], -r / sp->rho0);
  }
  PetscCall(DMSwarmRestoreField(sw, "pressure", NULL, NULL, (void **)&p));
  PetscCall(DMSwarmRestoreField(sw, "density", NULL, NULL, (void **)&rho));
  {
    PetscReal mx[2] = {e[0], e[2]};
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, mx, 2, MPIU_REAL, MPIU_MAX, s->comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &e[1], 1, MPIU_REAL, MPIU_SUM, s->comm));
    e[0] = mx[0], e[2] = mx[1];
  }
  sp->rho_err_max = e[0];
  sp->rho_err_mean = e[1] / PetscMax(sp->nfluid, 1);
  sp->rho_min = -e[2];
  PetscFunctionReturn(0);
}

/* One step of the run: substeps of at most the stable step, each: ghosts and neighbours, density and
 * pressure, accelerations, then v += h a, x += h (v + eps dx_xsph) (symplectic Euler), migration. */
static PetscErrorCode Step_SPH(SimSolver s, PetscReal dt)
{
  SPH *sp = (SPH *)s->data;
  SimFluid *f = sp->fl;
  const PetscInt dim = f->dim;
  PetscReal left = dt, nbrs = 0;

  PetscFunctionBeginUser;
  sp->substeps = 0;
  sp->cfl_used = 0;
  if (sp->neighbors_only) { /* the neighbour search alone: the cost of the sort and the lists per particle */
    PetscCall(SimFluidGather(f));
    sp->avg_neighbors = f->nf ? (PetscReal)f->list.offset[f->nf] / f->nf : 0;
    sp->substeps = 1;
    s->stats.outcome = SIM_STEP_OK;
    s->stats.substeps = 1;
    PetscFunctionReturn(0);
  }
  while (left > 0) {
    PetscReal dtmax, h;
    PetscInt nsub;
    PetscCall(SimFluidGather(f));
    PetscCall(DensityPressure(s));
    PetscCall(SimFluidEnsure(f, dim, &sp->capa, &sp->a));
    PetscCall(SimFluidEnsure(f, dim, &sp->capdx, &sp->dx));
    {
      const SimSPHForceParams prm = {sp->rho0, sp->alpha, sp->c, sp->hs, {sp->gravity[0], sp->gravity[1], sp->gravity[2]}};
      SimSPHAccelerations(f, &prm, sp->P, sp->a, sp->dx);
    }
    PetscCall(StableStep(s, &dtmax));
    nsub = (PetscInt)PetscCeilReal(left / dtmax * (1 - 1e-12));
    h = nsub > 1 ? left / nsub : left;
    for (PetscInt q = 0; q < f->nf; q++) {
      const PetscInt i = f->fluid[q];
      for (PetscInt d = 0; d < dim; d++) {
        f->v[dim * i + d] += h * sp->a[dim * q + d];
        f->x[dim * i + d] += h * (f->v[dim * i + d] + sp->xsph * sp->dx[dim * q + d]);
      }
    }
    nbrs += f->nf ? (PetscReal)f->list.offset[f->nf] / f->nf : 0;
    {
      PetscBool failed;
      PetscCall(SimFluidCheckInBox(f, &failed, s->stats.reason, sizeof(s->stats.reason)));
      if (failed) {
        s->stats.outcome = SIM_STEP_FAILED;
        PetscCall(SimStrAppend(s->stats.reason, " (lower -dt or -sph_cfl, or raise the speed of sound: lower -sph_mach)", sizeof(s->stats.reason)));
      }
      if (failed) PetscFunctionReturn(0);
    }
    PetscCall(StoreFields(s));
    PetscCall(SimFluidScatter(f));
    sp->cfl_used = PetscMax(sp->cfl_used, (sp->c + sp->vmax) * h / sp->hs);
    left = nsub > 1 ? left - h : 0;
    sp->substeps++;
  }
  sp->avg_neighbors = nbrs / sp->substeps;
  s->stats.outcome = SIM_STEP_OK;
  s->stats.substeps = sp->substeps;
  PetscFunctionReturn(0);
}

/* density_error_max, density_error_mean: max and mean over the fluid particles of the compression
 * max(rho / rho0 - 1, 0); density_min: the lowest rho / rho0 (free surfaces); max_speed [m/s]; cfl ((c + |v|max) h / h_s of the largest substep);
 * neighbors (mean per fluid particle, this rank's); sound_speed [m/s]. */
static PetscErrorCode Figures_SPH(SimSolver s, PetscInt *n, const char *names[], PetscReal values[])
{
  SPH *sp = (SPH *)s->data;

  PetscFunctionBeginUser;
  *n = 0;
  names[*n] = "density_error_max", values[(*n)++] = sp->rho_err_max;
  names[*n] = "density_error_mean", values[(*n)++] = sp->rho_err_mean;
  names[*n] = "density_min", values[(*n)++] = sp->rho_min;
  names[*n] = "max_speed", values[(*n)++] = sp->vmax;
  names[*n] = "cfl", values[(*n)++] = sp->cfl_used;
  names[*n] = "neighbors", values[(*n)++] = sp->avg_neighbors;
  names[*n] = "sound_speed", values[(*n)++] = sp->c;
  PetscFunctionReturn(0);
}

static PetscErrorCode View_SPH(SimSolver s, PetscViewer viewer)
{
  SPH *sp = (SPH *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "%s kernel, support %g m (%g spacings), rho0 %g, c %g m/s (Mach %g of %g m/s), gamma %g, alpha %g, xsph %g, cfl %g; %" PetscInt_FMT
                                   " fluid + %" PetscInt_FMT " boundary particles\n",
                                   sp->kernel, (double)(sp->support * sp->spacing), (double)sp->support, (double)sp->rho0, (double)sp->c, (double)sp->mach,
                                   (double)sp->vref, (double)sp->gamma, (double)sp->alpha, (double)sp->xsph, (double)sp->cfl, sp->nfluid, sp->nboundary));
  PetscFunctionReturn(0);
}

/* The speed of sound and rest density depend on the initial state (its height, its lattice): a
 * restart keeps the original ones. */
static PetscErrorCode Save_SPH(SimSolver s, PetscViewer viewer)
{
  SPH *sp = (SPH *)s->data;
  PetscReal v[2] = {sp->rho0, sp->vref};

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryWrite(viewer, v, 2, PETSC_REAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_SPH(SimSolver s, PetscViewer viewer)
{
  SPH *sp = (SPH *)s->data;
  PetscReal v[2];

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryRead(viewer, v, 2, NULL, PETSC_REAL));
  sp->rho0 = v[0], sp->vref = v[1];
  sp->c = sp->vref / sp->mach;
  sp->B = sp->rho0 * sp->c * sp->c / sp->gamma;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_SPH(SimSolver s)
{
  SPH *sp = (SPH *)s->data;

  PetscFunctionBeginUser;
  PetscCall(SimFluidDestroy(&sp->fl));
  PetscCall(PetscFree(sp->rho));
  PetscCall(PetscFree(sp->P));
  PetscCall(PetscFree(sp->a));
  PetscCall(PetscFree(sp->dx));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_SPH(SimSolver s)
{
  static const SimSolverOps ops = {.setfromoptions = SetFromOptions_SPH,
                                   .setup = SetUp_SPH,
                                   .step = Step_SPH,
                                   .view = View_SPH,
                                   .destroy = Destroy_SPH,
                                   .figures = Figures_SPH,
                                   .save = Save_SPH,
                                   .load = Load_SPH};
  SPH *sp;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesRegisterField(s->problem, "density", 1));
  PetscCall(SimParticlesRegisterField(s->problem, "pressure", 1));
  PetscCall(PetscNew(&sp));
  PetscCall(PetscStrncpy(sp->kernel, "cubic", sizeof(sp->kernel)));
  sp->support = 2;
  sp->mach = 0.1;
  sp->gamma = 7;
  sp->alpha = 0.1;
  sp->xsph = 0;
  sp->cfl = 0.4;
  sp->clamp = PETSC_TRUE;
  sp->akinci = PETSC_FALSE;
  sp->hydrostatic = PETSC_TRUE;
  s->data = sp;
  s->ops = ops;
  PetscFunctionReturn(0);
}
