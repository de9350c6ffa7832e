/* The stablefluids solver (Stam 1999 on a MAC grid, Bridson's "Fluid Simulation for Computer
 * Graphics"): options, set-up from the grid problem, the step in the order of the method, the
 * figures and the output ops. The phases are in advect.c, forces.c, smoke.c, viscosity.c,
 * boundary.c; the pressure projection is projection.c. */
#include "solvers/stablefluids/sf_impl.h"

static PetscErrorCode SetFromOptions_StableFluids(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  SF *sf = (SF *)s->data;
  char scheme[32], time[32];
  PetscInt n;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(scheme, sf->adv->name, sizeof(scheme)));
  PetscOptionsHeadBegin(PetscOptionsObject, "stablefluids: Stable Fluids on a MAC grid (docs/stablefluids.md)");
  /* a string looked up in the scheme table (PETSc 3.18's EList leaks on a bad value) */
  PetscCall(
      PetscOptionsString("-sf_advection", "semi-Lagrangian scheme: rk2, rk3, bfecc", "", scheme, scheme, sizeof(scheme), NULL));
  PetscCall(SFAdvectionFind(scheme, &sf->adv));
  PetscCall(PetscStrncpy(time, SFTimeSchemeName(sf), sizeof(time)));
  PetscCall(PetscOptionsString("-sf_time", "time stepping: chorin (first-order split), sl_bdf2 (semi-Lagrangian BDF2, second order)",
                               "", time, time, sizeof(time), NULL));
  PetscCall(SFTimeSchemeFind(time, &sf->bdf2));
  PetscCall(PetscOptionsInt("-sf_ghost", "ghost width of the advection DMDAs (cells); a step needs CFL <= ghost - 1", "",
                            sf->ghost, &sf->ghost, NULL));
  PetscCall(PetscOptionsReal("-sf_viscosity", "kinematic viscosity nu (m^2/s; default: the scene's)", "", sf->nu, &sf->nu, NULL));
  PetscCall(PetscOptionsReal("-sf_rho", "fluid density (kg/m^3; default: the scene's)", "", sf->rho, &sf->rho, NULL));
  n = 2;
  PetscCall(PetscOptionsRealArray("-sf_buoyancy", "Boussinesq buoyancy alpha,beta: f = (-alpha density + beta temperature) up",
                                  "", sf->buoyancy, &n, &set));
  PetscCheck(!set || n == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "-sf_buoyancy takes two values alpha,beta (got %" PetscInt_FMT ")", n);
  PetscCall(PetscOptionsReal("-sf_vorticity", "vorticity confinement epsilon (0: off)", "", sf->vorticity, &sf->vorticity, NULL));
  n = 3;
  PetscCall(
      PetscOptionsRealArray("-sf_body_force", "uniform body force per unit mass fx,fy[,fz] (m/s^2)", "", sf->body, &n, &set));
  PetscCheck(!set || n == ((SF *)s->data)->prob->dim, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "-sf_body_force takes %" PetscInt_FMT " values (got %" PetscInt_FMT ")", ((SF *)s->data)->prob->dim, n);
  PetscCall(PetscOptionsInt("-sf_pressure_extrapolation",
                            "initial guess of the pressure solve: the last pressures extrapolated to the step, by a polynomial of this degree "
                            "(0: the last pressure; 1: linear; 2: quadratic)",
                            "", sf->p_degree, &sf->p_degree, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(sf->p_degree >= 0 && sf->p_degree <= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-sf_pressure_extrapolation must be 0, 1 or 2 (got %" PetscInt_FMT ")", sf->p_degree);
  PetscCheck(sf->ghost >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-sf_ghost must be >= 2 (got %" PetscInt_FMT "): a backtrace needs the cell beyond its foot", sf->ghost);
  PetscCheck(sf->ghost >= 3 || sf->vorticity == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-sf_ghost must be >= 3 with vorticity confinement (got %" PetscInt_FMT
             "): the force on a face differentiates the vorticity of cells up to 3 cells away",
             sf->ghost);
  PetscCheck(sf->nu >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sf_viscosity must be >= 0 (got %g)", (double)sf->nu);
  PetscCheck(sf->rho > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sf_rho must be > 0 (got %g)", (double)sf->rho);
  PetscCheck(sf->vorticity >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sf_vorticity must be >= 0 (got %g)",
             (double)sf->vorticity);
  PetscFunctionReturn(0);
}

/* A DMDA on mac's decomposition (the cell ranges of `like`), of m points per axis, dof components
 * and a box stencil of width w. */
static PetscErrorCode CreateGhostedDA(SF *sf, DM like, const PetscInt m[3], PetscInt dof, PetscInt w, DM *dm)
{
  PetscInt p[3];
  const PetscInt *own[3] = {NULL, NULL, NULL};
  MPI_Comm comm = PetscObjectComm((PetscObject)like);

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(like, NULL, NULL, NULL, NULL, &p[0], &p[1], &p[2], NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(like, &own[0], &own[1], &own[2]));
  if (sf->mac->dim == 2)
    PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, m[0], m[1], p[0], p[1], dof, w, own[0],
                           own[1], dm));
  else
    PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, m[0], m[1], m[2], p[0],
                           p[1], p[2], dof, w, own[0], own[1], own[2], dm));
  PetscCall(DMSetUp(*dm));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUp_StableFluids(SimSolver s)
{
  SF *sf = (SF *)s->data;
  const SimGridProblem *p = ((SF *)s->data)->prob;
  PetscInt dim = p->dim, mv[3], mc[3];

  PetscFunctionBegin;
  sf->h = SimGridProblemCellSize(p);
  PetscCall(SimMACCreate(s->comm, dim, p->n, sf->h, &sf->mac));
  for (PetscInt f = 0; f < 2 * dim; f++)
    PetscCall(SimMACSetBoundary(sf->mac, f / 2, f % 2, p->face[f] == SIM_GRID_OPEN ? SIM_MAC_OPEN : SIM_MAC_WALL));
  for (PetscInt d = 0; d < 3; d++) {
    mc[d] = sf->mac->n[d];
    mv[d] = sf->mac->n[d] + 1;
    sf->cell_off[d] = 0.5;
    sf->cell_n[d] = sf->mac->n[d];
    for (PetscInt c = 0; c < 3; c++) {
      sf->face_off[c][d] = c == d ? 0.0 : 0.5;
      sf->face_n[c][d] = sf->mac->n[d] + (c == d ? 1 : 0);
    }
  }
  PetscCall(CreateGhostedDA(sf, sf->mac->da, mc, SF_NSCALARS, sf->ghost, &sf->dac));
  PetscCall(CreateGhostedDA(sf, sf->mac->dav, mv, dim, sf->ghost, &sf->dav));
  PetscCall(DMDACreateCompatibleDMDA(sf->mac->da, 6, &sf->dout));
  PetscCall(DMCreateGlobalVector(sf->dav, &sf->u));
  PetscCall(VecDuplicate(sf->u, &sf->unew));
  PetscCall(DMCreateLocalVector(sf->dav, &sf->ul));
  PetscCall(DMCreateGlobalVector(sf->mac->da, &sf->p));
  if (sf->smoke) {
    PetscCall(DMCreateGlobalVector(sf->dac, &sf->s));
    PetscCall(VecDuplicate(sf->s, &sf->snew));
    PetscCall(DMCreateLocalVector(sf->dac, &sf->sl));
  }
  if (sf->vorticity > 0) PetscCall(SFVorticitySetUp(sf));
  if (sf->bdf2) PetscCall(SFBDF2SetUp(sf));
  PetscCall(SimProjectionCreate(sf->mac, NULL, &sf->proj));
  {
    PetscBool warm;
    PetscCall(SimProjectionGetWarmStart(sf->proj, &warm));
    if (!warm) sf->p_degree = 0; /* a cold start reads no guess */
    for (PetscInt i = 0; i < 2 && sf->p_degree > 0; i++) {
      PetscCall(VecDuplicate(sf->p, &sf->phist[i]));
      PetscCall(VecSet(sf->phist[i], 0));
    }
  }
  PetscCall(SFTrafficSetUp(sf));
  PetscCall(SFInitialFields(sf));
  /* the sampled initial velocity is made discretely divergence-free (dt = 1 s only scales p) */
  PetscCall(SimProjectionApply(sf->proj, 1.0, sf->rho, sf->u, sf->p));
  PetscCall(VecSet(sf->p, 0));
  SFStateChanged(sf);
  PetscCall(SFDivergenceNorms(sf, sf->u, &sf->div_l2, &sf->div_max, NULL));
  PetscFunctionReturn(0);
}

/* The pressure solve's initial guess in sf->p, for a step of dt: the last pressure rescaled to dt
 * (p ~ 1/dt) and, with -sf_pressure_extrapolation k, extrapolated in time from the last
 * min(k + 1, p_valid) pressures by the polynomial through them (at a constant step: 2 p^n - p^{n-1},
 * 3 p^n - 3 p^{n-1} + p^{n-2}). The pressure of a smoothly evolving flow changes smoothly, so the
 * guess is closer and CG, which stops at the same absolute residual (1e-8 |b|, whatever the guess),
 * needs fewer iterations: 4 instead of 5 in the smoke plume (docs/stablefluids.md). The history
 * rotates by handles: the oldest buffer receives the guess and becomes p, p becomes phist[0]. */
static PetscErrorCode PressureGuess(SF *sf, PetscReal dt)
{
  const PetscInt used = PetscMin(sf->p_degree + 1, sf->p_valid);
  Vec g;

  PetscFunctionBegin;
  if (sf->p_dt > 0 && sf->p_dt != dt) {
    PetscCall(VecScale(sf->p, sf->p_dt / dt));
    for (PetscInt i = 0; i < used - 1; i++) PetscCall(VecScale(sf->phist[i], sf->p_dt / dt));
    SFTraffic(sf, 2 * sf->ent_p * PetscMax(used, 1)); /* read and write each */
  }
  if (!sf->phist[0]) PetscFunctionReturn(0);
  g = sf->phist[1];
  /* read the pressures used (and g when it is one of them), write g */
  if (used == 3) PetscCall(VecAXPBYPCZ(g, 3.0, -3.0, 1.0, sf->p, sf->phist[0]));
  else if (used == 2) PetscCall(VecAXPBYPCZ(g, 2.0, -1.0, 0.0, sf->p, sf->phist[0]));
  else PetscCall(VecCopy(sf->p, g));
  SFTraffic(sf, (PetscMax(used, 1) + 1) * sf->ent_p);
  sf->phist[1] = sf->phist[0];
  sf->phist[0] = sf->p;
  sf->p = g;
  PetscFunctionReturn(0);
}

/* The largest backtrace is max|u_c| dt per axis; interpolation then needs the cell beyond, so
 * CFL <= ghost - 1 keeps it in the ghosted patch. Beyond that the step is refused rather than
 * the backtrace clamped: a clamp would make the result depend on the decomposition. */
static PetscErrorCode CheckCFL(SimSolver s, PetscReal dt)
{
  SF *sf = (SF *)s->data;
  PetscReal umax;

  PetscReal bdf2_cfl;

  PetscFunctionBegin;
  PetscCall(SFMaxVelocity(sf, sf->u, &umax));
  SFTraffic(sf, sf->ent_u);
  sf->cfl = umax * dt / sf->h;
  PetscCall(SFBDF2CFL(sf, dt, umax, &bdf2_cfl));
  if (sf->bdf2 && sf->dt_prev > 0) SFTraffic(sf, sf->ent_u); /* max |u^{n-1}| */
  PetscCheck(bdf2_cfl <= sf->ghost - 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "stablefluids step %" PetscInt_FMT " (t = %g s): -sf_time sl_bdf2 traces back over this step and the one before, "
             "%g cells, more than -sf_ghost - 1 = %" PetscInt_FMT ". Use a smaller -dt or a larger -sf_ghost",
             s->step + 1, (double)s->time, (double)bdf2_cfl, sf->ghost - 1);
  PetscCheck(sf->cfl <= sf->ghost - 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "stablefluids step %" PetscInt_FMT
             " (t = %g s): CFL number %g (max |u| %g m/s, dt %g s, h %g m) exceeds -sf_ghost - 1 = %" PetscInt_FMT
             ": a backtrace could leave the ghost region. Use -dt <= %g or a larger -sf_ghost",
             s->step + 1, (double)s->time, (double)sf->cfl, (double)umax, (double)dt, (double)sf->h, sf->ghost - 1,
             (double)((sf->ghost - 1) * sf->h / umax));
  PetscFunctionReturn(0);
}

/* One step (Stam 1999 sec. 2; Bridson Fig. 2.1): sources; advect velocity and scalars by the
 * old velocity; boundary velocities; body forces, buoyancy and vorticity confinement; implicit
 * viscosity; pressure projection. */
/* The phases of a step as log events beside the projection's SimFactor/SimSolve, so that
 * `-log_view` shows where a fluid step goes (in a 3D plume the projection is only ~20% of it). */
typedef struct {
  PetscLogEvent advect, forces, viscosity;
} SFEvents;

static PetscErrorCode SFEventsGet(SFEvents *ev)
{
  static SFEvents registered;
  static PetscBool done = PETSC_FALSE;
  SimEvents common;

  PetscFunctionBegin;
  if (!done) {
    PetscCall(SimEventsGet(&common));
    PetscCall(PetscLogEventRegister("FluidAdvect", common.classid, &registered.advect));
    PetscCall(PetscLogEventRegister("FluidForces", common.classid, &registered.forces));
    PetscCall(PetscLogEventRegister("FluidViscosity", common.classid, &registered.viscosity));
    done = PETSC_TRUE;
  }
  *ev = registered;
  PetscFunctionReturn(0);
}

static PetscErrorCode Step_StableFluids(SimSolver s, PetscReal dt)
{
  SF *sf = (SF *)s->data;
  PetscReal t = s->time, dt_eff = dt;
  PetscLogDouble t0, t1;
  PetscInt its;
  SFEvents ev;
  Vec ul, sl;

  PetscFunctionBegin;
  PetscCall(SFEventsGet(&ev));
  PetscCall(PetscMemzero(sf->bytes, sizeof(sf->bytes))); /* the bytes model (traffic.c) */
  sf->phase = SF_PHASE_OTHER;
  PetscCall(CheckCFL(s, dt));
  PetscCall(SFApplySources(sf, t));
  /* 1. advection: every field by the velocity at the start of the step (sl_bdf2 after its
   * first step: u* from u^n and u^{n-1}, and the rest of the step over dt_eff = dt / a0) */
  PetscCall(PetscLogEventBegin(ev.advect, 0, 0, 0, 0));
  sf->phase = SF_PHASE_ADVECT;
  PetscCall(SFExchange(sf, sf->dav, sf->u, sf->ul, &ul)); /* ul: sf->u itself on one rank */
  if (sf->bdf2 && sf->dt_prev > 0) PetscCall(SFBDF2Advect(sf, ul, dt, &dt_eff));
  else {
    if (sf->bdf2) PetscCall(VecCopy(sf->u, sf->uprev));
    if (sf->bdf2) SFTraffic(sf, 2 * sf->ent_u);
    PetscCall(SFAdvectFaces(sf, ul, dt, sf->u, ul, sf->unew));
    if (sf->smoke) {
      PetscCall(SFExchange(sf, sf->dac, sf->s, sf->sl, &sl));
      PetscCall(SFAdvectCells(sf, ul, dt, sf->s, sl, sf->snew));
      SFSwapVecs(&sf->s, &sf->snew);
    }
    SFSwapVecs(&sf->u, &sf->unew);
  }
  PetscCall(SFApplyBoundary(sf, t + dt, sf->u));
  PetscCall(PetscLogEventEnd(ev.advect, 0, 0, 0, 0));
  /* 2. forces */
  PetscCall(PetscLogEventBegin(ev.forces, 0, 0, 0, 0));
  sf->phase = SF_PHASE_FORCES;
  PetscCall(SFAddForces(sf, dt_eff));
  if (sf->vorticity > 0) {
    PetscCall(SFExchange(sf, sf->dav, sf->u, sf->ul, &ul)); /* read before written: smoke.c */
    PetscCall(SFAddVorticityConfinement(sf, ul, dt_eff));
  }
  PetscCall(PetscLogEventEnd(ev.forces, 0, 0, 0, 0));
  /* 3. viscosity (not in the bytes model) */
  sf->phase = SF_PHASE_OTHER;
  PetscCall(PetscLogEventBegin(ev.viscosity, 0, 0, 0, 0));
  PetscCall(SFViscositySolve(sf, t + dt, dt_eff));
  PetscCall(PetscLogEventEnd(ev.viscosity, 0, 0, 0, 0));
  /* 4. projection */
  /* the initial guess from the last pressures (p ~ 1/dt; after a restart p_dt is unknown: as is) */
  PetscCall(PressureGuess(sf, dt_eff));
  PetscCall(PetscTime(&t0));
  PetscCall(SimProjectionApply(sf->proj, dt_eff, sf->rho, sf->u, sf->p));
  sf->p_dt = dt_eff;
  sf->p_valid = PetscMin(sf->p_valid + 1, 3);
  if (sf->bdf2) sf->dt_prev = dt;
  PetscCall(PetscTime(&t1));
  PetscCall(SimProjectionGetDivergenceNorm(sf->proj, &sf->div_before));
  PetscCall(SimProjectionGetIterations(sf->proj, &its));
  sf->pressure_its = its;
  sf->pressure_ms = 1e3 * (t1 - t0);
  PetscCall(SFTrafficStepEnd(sf, its));
  PetscCall(SFDivergenceNorms(sf, sf->u, &sf->div_l2, &sf->div_max, NULL));
  SFStateChanged(sf);
  s->stats.outcome = SIM_STEP_OK;
  s->stats.linear_its = sf->pressure_its + sf->viscosity_its;
  s->stats.residual = sf->div_l2;
  PetscFunctionReturn(0);
}

static PetscErrorCode Energy_StableFluids(SimSolver s, SimEnergyReport *rep)
{
  SF *sf = (SF *)s->data;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(rep, sizeof(*rep)));
  PetscCall(SFKineticEnergy(sf, sf->u, &rep->kinetic, rep->momentum));
  rep->total = rep->kinetic;
  PetscFunctionReturn(0);
}

static PetscErrorCode State_StableFluids(SimSolver s, Vec *state)
{
  PetscFunctionBegin;
  *state = ((SF *)s->data)->u;
  PetscFunctionReturn(0);
}

/* div_l2: RMS of div_h u over the cells after the projection [1/s]; div_max [1/s];
 * kinetic_energy [J, J/m in 2D]; pressure_its; pressure_ms (the projection's wall time);
 * cfl (max |u_c| dt / h of the step); viscosity_its (viscous runs); velocity_error (RMS of
 * u - u_exact over the faces, m/s) and kinetic_exact (the same quadrature of u_exact), when the
 * problem has an exact velocity; h, the cell size [m] (the `size` of a spatial benchmark). */
static PetscErrorCode Figures_StableFluids(SimSolver s, PetscInt *n, const char *names[], PetscReal values[])
{
  SF *sf = (SF *)s->data;
  PetscReal ke;

  PetscFunctionBegin;
  PetscCall(SFKineticEnergy(sf, sf->u, &ke, NULL));
  *n = 0;
  names[*n] = "div_l2", values[(*n)++] = sf->div_l2;
  names[*n] = "div_max", values[(*n)++] = sf->div_max;
  names[*n] = "kinetic_energy", values[(*n)++] = ke;
  names[*n] = "pressure_its", values[(*n)++] = (PetscReal)sf->pressure_its;
  names[*n] = "pressure_ms", values[(*n)++] = sf->pressure_ms;
  names[*n] = "cfl", values[(*n)++] = sf->cfl;
  if (sf->nu > 0) names[*n] = "viscosity_its", values[(*n)++] = (PetscReal)sf->viscosity_its;
  if (((SF *)s->data)->prob->exact_velocity) {
    PetscReal err, kex;
    PetscCall(SFVelocityError(sf, s->time, &err));
    PetscCall(SFExactKineticEnergy(sf, s->time, &kex));
    names[*n] = "velocity_error", values[(*n)++] = err;
    names[*n] = "kinetic_exact", values[(*n)++] = kex;
  }
  names[*n] = "h", values[(*n)++] = sf->mac->h;
  PetscFunctionReturn(0);
}

/* The bytes model of the last step (traffic.c), by the names the benchmark harness pairs with its
 * timings (benchmarks/case_performance.c): "<phase>_bytes" beside the row's "<phase>_ms". */
static PetscErrorCode Series_StableFluids(SimSolver s, const char *name, PetscInt *n, const PetscReal **values)
{
  SF *sf = (SF *)s->data;
  static const char *const names[SF_NPHASES] = {"fluid_advect_bytes", "fluid_forces_bytes", "solve_bytes", "fluid_other_bytes"};

  PetscFunctionBegin;
  if (s->step == 0) PetscFunctionReturn(0);
  for (PetscInt p = 0; p < SF_NPHASES; p++)
    if (!strcmp(name, names[p])) *n = 1, *values = &sf->bytes[p];
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteFrame_StableFluids(SimSolver s, const char *path)
{
  PetscFunctionBegin;
  PetscCall(SFWriteFrame((SF *)s->data, path));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteXDMF_StableFluids(SimSolver s, const char *path)
{
  PetscFunctionBegin;
  PetscCall(SFWriteXDMF((SF *)s->data, path));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteImage_StableFluids(SimSolver s, const char *caption, const char *path)
{
  PetscFunctionBegin;
  PetscCall(SFWriteImage((SF *)s->data, caption, path));
  PetscFunctionReturn(0);
}

static PetscErrorCode View_StableFluids(SimSolver s, PetscViewer viewer)
{
  SF *sf = (SF *)s->data;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(
      viewer, "advection %s, time %s, ghost %" PetscInt_FMT ", nu %g m^2/s, rho %g kg/m^3, buoyancy (%g, %g), vorticity %g\n",
      sf->adv->name, SFTimeSchemeName(sf), sf->ghost, (double)sf->nu, (double)sf->rho, (double)sf->buoyancy[0], (double)sf->buoyancy[1],
      (double)sf->vorticity));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_StableFluids(SimSolver s)
{
  SF *sf = (SF *)s->data;

  PetscFunctionBegin;
  PetscCall(SimProjectionDestroy(&sf->proj));
  PetscCall(VecDestroy(&sf->u));
  PetscCall(VecDestroy(&sf->unew));
  PetscCall(VecDestroy(&sf->ul));
  PetscCall(VecDestroy(&sf->p));
  PetscCall(VecDestroy(&sf->phist[0]));
  PetscCall(VecDestroy(&sf->phist[1]));
  PetscCall(SFStashDestroy(sf));
  PetscCall(SFBDF2Destroy(sf));
  PetscCall(VecDestroy(&sf->s));
  PetscCall(VecDestroy(&sf->snew));
  PetscCall(VecDestroy(&sf->sl));
  PetscCall(PetscFree3(sf->omega, sf->omega_norm, sf->conf));
  PetscCall(VecDestroy(&sf->vb));
  PetscCall(MatDestroy(&sf->vA));
  PetscCall(KSPDestroy(&sf->vksp));
  PetscCall(DMDestroy(&sf->dac));
  PetscCall(DMDestroy(&sf->dav));
  PetscCall(DMDestroy(&sf->dout));
  PetscCall(SimMACDestroy(&sf->mac));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_StableFluids(SimSolver s)
{
  static const SimSolverOps ops = {.setfromoptions = SetFromOptions_StableFluids,
                                   .setup = SetUp_StableFluids,
                                   .step = Step_StableFluids,
                                   .energy = Energy_StableFluids,
                                   .view = View_StableFluids,
                                   .destroy = Destroy_StableFluids,
                                   .state = State_StableFluids,
                                   .figures = Figures_StableFluids,
                                   .series = Series_StableFluids,
                                   .write_frame = WriteFrame_StableFluids,
                                   .write_xdmf = WriteXDMF_StableFluids,
                                   .write_image = WriteImage_StableFluids,
                                   .stash = SFStash,
                                   .save = SFSave,
                                   .load = SFLoad};
  /* the method data a grid problem may carry for it (framework/grid.h), by name */
  static const char *const scalars[] = {"density", "temperature", NULL};
  static const char *const parameters[] = {"buoyancy", "vorticity", NULL};
  SF *sf;
  SimGridProblem *desc;
  PetscBool found;

  PetscFunctionBegin;
  PetscCall(SimGridProblemGetDescription(s->problem, &desc));
  PetscCall(SimGridProblemCheckNames(desc, "stablefluids", scalars, parameters));
  PetscCall(PetscNew(&sf));
  s->data = sf; /* freed by SimSolverCreate if a check below fails */
  sf->prob = desc;
  PetscCall(SFAdvectionFind("rk2", &sf->adv));
  sf->ghost = 3;
  sf->p_degree = 2;
  sf->nu = desc->viscosity;
  sf->rho = desc->rho;
  PetscCall(SimGridProblemGetParameter(desc, "buoyancy", 2, sf->buoyancy, &found));
  PetscCall(SimGridProblemGetParameter(desc, "vorticity", 1, &sf->vorticity, &found));
  /* smoke: density and temperature are carried when the problem has either */
  sf->smoke = (PetscBool)(desc->nscalars > 0);
  sf->scalar_index[SF_DENSITY] = SimGridProblemFindScalar(desc, "density");
  sf->scalar_index[SF_TEMPERATURE] = SimGridProblemFindScalar(desc, "temperature");
  sf->vdt = -1;
  s->ops = ops;
  PetscFunctionReturn(0);
}
