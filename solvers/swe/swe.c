/* The shallow_water solver (swe_impl.h, docs/shallow_water.md): options, set-up from a grid
 * problem that carries the scalar field "depth" (and optionally "bottom"), the CFL-substepped step,
 * energy, figures, stash and checkpoint. */
#include "solvers/swe/swe_impl.h"

static const char *const flux_names[] = {"hll", "rusanov"};

static PetscErrorCode SetFromOptions_SWE(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  SWE *w = (SWE *)s->data;
  char flux[32];

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(flux, flux_names[w->flux], sizeof(flux)));
  PetscOptionsHeadBegin(PetscOptionsObject, "shallow_water: 2D shallow-water equations, finite volumes (docs/shallow_water.md)");
  PetscCall(PetscOptionsInt("-swe_order", "1: first order, forward Euler; 2: MUSCL (minmod) with SSP-RK2", "", w->order, &w->order, NULL));
  PetscCall(PetscOptionsString("-swe_flux", "numerical flux: hll, rusanov", "", flux, flux, sizeof(flux), NULL));
  PetscCall(PetscOptionsReal("-swe_cfl", "CFL number of a substep: dt_sub (max (|u|+c)/dx + max (|v|+c)/dy) <= cfl", "", w->cfl_max, &w->cfl_max, NULL));
  PetscCall(PetscOptionsReal("-swe_dry", "depth (m) below which a cell has no velocity", "", w->dry, &w->dry, NULL));
  PetscCall(PetscOptionsReal("-swe_gravity", "g (m/s^2; default: |gravity| of the scene)", "", w->g, &w->g, NULL));
  PetscCall(PetscOptionsInt("-swe_max_substeps", "most substeps one step may take", "", w->max_substeps, &w->max_substeps, NULL));
  PetscOptionsHeadEnd();
  if (!strcmp(flux, "hll")) w->flux = SWE_FLUX_HLL;
  else if (!strcmp(flux, "rusanov")) w->flux = SWE_FLUX_RUSANOV;
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-swe_flux: unknown flux '%s' (valid: hll, rusanov)", flux);
  PetscCheck(w->order == 1 || w->order == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-swe_order must be 1 or 2 (got %" PetscInt_FMT ")",
             w->order);
  PetscCheck(w->cfl_max > 0 && w->cfl_max <= 0.5, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-swe_cfl must be in (0, 0.5] (got %g): the scheme keeps depths >= 0 up to 0.5", (double)w->cfl_max);
  PetscCheck(w->dry > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-swe_dry must be > 0 (got %g)", (double)w->dry);
  PetscCheck(w->g > 0 && PetscIsNormalReal(w->g), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-swe_gravity must be > 0 (got %g; the scene's gravity is zero?)", (double)w->g);
  PetscCheck(w->max_substeps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-swe_max_substeps must be >= 1 (got %" PetscInt_FMT ")",
             w->max_substeps);
  PetscFunctionReturn(0);
}

/* The scene's initial depth, bottom and velocity at the cell centres. */
static PetscErrorCode InitialFields(SimSolver s)
{
  SWE *w = (SWE *)s->data;
  const SimGridProblem *p = w->prob;
  const PetscInt id = SimGridProblemFindScalar(p, "depth"), ib = SimGridProblemFindScalar(p, "bottom");
  PetscInt xs, ys, xm, ym;
  PetscScalar ***u, **b;
  PetscReal bad[4] = {0, 0, 0, 0}; /* a cell with a bad depth: flag, x, y, depth, checked after the arrays are back */
  Vec bg;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalVector(w->dab, &bg));
  PetscCall(DMDAGetCorners(w->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOF(w->da, w->U, &u));
  PetscCall(DMDAVecGetArray(w->dab, bg, &b));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      const PetscReal x[3] = {(i + 0.5) * w->dx, (j + 0.5) * w->dx, 0};
      PetscReal h = 0, bot = 0, vel[3] = {0, 0, 0};
      if (p->scalar[id].initial) PetscCall(p->scalar[id].initial(p->ctx, x, 0, &h));
      if (ib >= 0 && p->scalar[ib].initial) PetscCall(p->scalar[ib].initial(p->ctx, x, 0, &bot));
      if (p->velocity) PetscCall(p->velocity(p->ctx, x, 0, vel));
      if (!(h >= 0 && PetscIsNormalReal(h + 1) && PetscIsNormalReal(bot + 1)) && !bad[0]) bad[0] = 1, bad[1] = x[0], bad[2] = x[1], bad[3] = h;
      u[j][i][0] = h;
      u[j][i][1] = h > w->dry ? h * vel[0] : 0;
      u[j][i][2] = h > w->dry ? h * vel[1] : 0;
      b[j][i] = bot;
    }
  PetscCall(DMDAVecRestoreArray(w->dab, bg, &b));
  PetscCall(DMDAVecRestoreArrayDOF(w->da, w->U, &u));
  PetscCall(DMGlobalToLocal(w->dab, bg, INSERT_VALUES, w->bl));
  PetscCall(SWEFillGhosts(w, w->bl, PETSC_TRUE));
  PetscCall(DMRestoreGlobalVector(w->dab, &bg));
  PetscCheck(!bad[0], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "shallow_water: the scene's initial depth at (%g, %g) m is %g m: a depth (and the bottom) must be finite and >= 0", (double)bad[1],
             (double)bad[2], (double)bad[3]);
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUp_SWE(SimSolver s)
{
  SWE *w = (SWE *)s->data;
  const SimGridProblem *p = w->prob;
  PetscInt gxm, gym, mmax;

  PetscFunctionBegin;
  w->nx = p->n[0], w->ny = p->n[1];
  w->dx = SimGridProblemCellSize(p);
  PetscCall(DMDACreate2d(s->comm, DM_BOUNDARY_GHOSTED, DM_BOUNDARY_GHOSTED, DMDA_STENCIL_STAR, w->nx, w->ny, PETSC_DECIDE, PETSC_DECIDE, 3, 2, NULL,
                         NULL, &w->da));
  PetscCall(DMSetUp(w->da));
  PetscCall(DMDASetFieldName(w->da, 0, "depth"));
  PetscCall(DMDASetFieldName(w->da, 1, "hu"));
  PetscCall(DMDASetFieldName(w->da, 2, "hv"));
  PetscCall(DMDACreateCompatibleDMDA(w->da, 1, &w->dab));
  PetscCall(DMCreateGlobalVector(w->da, &w->U));
  PetscCall(VecDuplicate(w->U, &w->U1));
  PetscCall(VecDuplicate(w->U, &w->R));
  PetscCall(DMCreateLocalVector(w->da, &w->Ul));
  PetscCall(DMCreateLocalVector(w->dab, &w->bl));
  PetscCall(DMDAGetGhostCorners(w->da, NULL, NULL, NULL, &gxm, &gym, NULL));
  mmax = PetscMax(gxm, gym);
  PetscCall(PetscMalloc4(mmax + 4, &w->line[0], mmax + 4, &w->line[1], mmax + 4, &w->line[2], mmax + 4, &w->line[3]));
  PetscCall(PetscMalloc2(SWE_SWEEP_WORK(mmax), &w->work, 3 * mmax, &w->dline));
  PetscCall(SWEBoxSetUp(w));
  PetscCall(InitialFields(s));
  PetscCall(SWEBoxPlace(w));
  PetscCall(SWEVolume(w, w->U, &w->volume0));
  PetscFunctionReturn(0);
}

/* Depths that a substep left below zero by round-off become 0; a cell that went clearly negative
 * (beyond 1e-10 of the deepest water) fails the step. Dry cells keep no momentum. */
static PetscErrorCode FixDepths(SimSolver s, Vec U, PetscBool *failed)
{
  SWE *w = (SWE *)s->data;
  PetscScalar *a;
  PetscInt n, bad = -1;
  PetscReal hmax = 0, hbad = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(U, &n));
  PetscCall(VecGetArray(U, &a));
  for (PetscInt l = 0; l < n; l += 3) hmax = PetscMax(hmax, a[l]);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &hmax, 1, MPIU_REAL, MPIU_MAX, s->comm));
  for (PetscInt l = 0; l < n; l += 3) {
    if (a[l] < -1e-10 * hmax || !PetscIsNormalReal(a[l] + 1)) bad = l / 3, hbad = a[l];
    if (a[l] < 0) a[l] = 0;
    if (a[l] <= w->dry) a[l + 1] = a[l + 2] = 0;
  }
  PetscCall(VecRestoreArray(U, &a));
  {
    PetscInt gbad = bad >= 0 ? 1 : 0;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &gbad, 1, MPIU_INT, MPI_MAX, s->comm));
    *failed = (PetscBool)(gbad > 0);
  }
  if (*failed)
    PetscCall(PetscSNPrintf(s->stats.reason, sizeof(s->stats.reason),
                            "shallow_water step %" PetscInt_FMT ": a depth went to %g m (lower -swe_cfl, or -dt)", s->step + 1,
                            (double)hbad));
  PetscFunctionReturn(0);
}

static PetscErrorCode Step_SWE(SimSolver s, PetscReal dt)
{
  SWE *w = (SWE *)s->data;
  PetscReal remaining = dt, rate;
  PetscInt n = 0;
  PetscBool failed = PETSC_FALSE;

  PetscFunctionBegin;
  w->cfl = 0;
  s->stats.outcome = SIM_STEP_OK;
  while (remaining > 0) {
    PetscReal h;
    PetscBool last;
    PetscCall(SWERHS(w, w->U, w->R, &rate));
    h = rate > 0 ? w->cfl_max / rate : remaining;
    last = (PetscBool)(h >= remaining * (1 - 1e-12));
    if (last) h = remaining;
    if (++n > w->max_substeps) {
      s->stats.outcome = SIM_STEP_FAILED;
      PetscCall(PetscSNPrintf(s->stats.reason, sizeof(s->stats.reason),
                              "shallow_water step %" PetscInt_FMT ": dt %g s needs more than -swe_max_substeps %" PetscInt_FMT
                              " substeps of %g s (waves at %g cells/s); lower -dt",
                              s->step + 1, (double)dt, w->max_substeps, (double)h, (double)rate));
      PetscFunctionReturn(0);
    }
    w->cfl = PetscMax(w->cfl, h * rate);
    if (w->order == 1) PetscCall(VecAXPY(w->U, h, w->R));
    else {
      /* SSP-RK2 (Heun): U1 = U + h L(U); U <- (U + U1 + h L(U1)) / 2 */
      PetscCall(VecWAXPY(w->U1, h, w->R, w->U));
      PetscCall(FixDepths(s, w->U1, &failed));
      if (failed) break;
      PetscCall(SWERHS(w, w->U1, w->R, &rate));
      PetscCall(VecAXPY(w->U1, h, w->R));
      PetscCall(VecAXPBY(w->U, 0.5, 0.5, w->U1));
    }
    PetscCall(FixDepths(s, w->U, &failed));
    if (failed) break;
    PetscCall(SWEBoxStep(w, h, &failed, s->stats.reason, sizeof(s->stats.reason)));
    if (failed) break;
    remaining = last ? 0 : remaining - h;
  }
  s->stats.substeps = n;
  if (failed) s->stats.outcome = SIM_STEP_FAILED;
  PetscFunctionReturn(0);
}

/* kinetic: rho sum h |u|^2 / 2 dA; gravity: rho g sum ((b + h)^2 - b^2) / 2 dA (the water above
 * z = 0); momentum rho sum (hu, hv) dA [J, kg m/s]. */
static PetscErrorCode Energy_SWE(SimSolver s, SimEnergyReport *rep)
{
  SWE *w = (SWE *)s->data;
  const PetscScalar *a, *b;
  PetscInt n;
  PetscReal e[4] = {0, 0, 0, 0};
  const PetscReal dA = w->dx * w->dx;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(rep, sizeof(*rep)));
  PetscCall(VecGetLocalSize(w->U, &n));
  PetscCall(VecGetArrayRead(w->U, &a));
  {
    Vec bg;
    PetscCall(DMGetGlobalVector(w->dab, &bg));
    PetscCall(DMLocalToGlobal(w->dab, w->bl, INSERT_VALUES, bg));
    PetscCall(VecGetArrayRead(bg, &b));
    for (PetscInt l = 0; l < n / 3; l++) {
      const PetscReal h = a[3 * l], hu = a[3 * l + 1], hv = a[3 * l + 2], z = b[l];
      if (h > w->dry) e[0] += 0.5 * (hu * hu + hv * hv) / h;
      e[1] += 0.5 * w->g * ((z + h) * (z + h) - z * z);
      e[2] += hu, e[3] += hv;
    }
    PetscCall(VecRestoreArrayRead(bg, &b));
    PetscCall(DMRestoreGlobalVector(w->dab, &bg));
  }
  PetscCall(VecRestoreArrayRead(w->U, &a));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, e, 4, MPIU_REAL, MPIU_SUM, s->comm));
  rep->kinetic = w->rho * dA * e[0];
  rep->potential = w->rho * dA * e[1];
  rep->total = rep->kinetic + rep->potential;
  rep->nterms = 1;
  rep->term_name[0] = "gravity";
  rep->term[0] = rep->potential;
  rep->momentum[0] = w->rho * dA * e[2];
  rep->momentum[1] = w->rho * dA * e[3];
  PetscFunctionReturn(0);
}

static PetscErrorCode State_SWE(SimSolver s, Vec *state)
{
  PetscFunctionBegin;
  *state = ((SWE *)s->data)->U;
  PetscFunctionReturn(0);
}

/* volume [m^3]; volume_change: (V - V0) / V0 (0 to round-off with walls everywhere); depth_min,
 * depth_max, surface_min, surface_max (b + h) [m]; max_speed [m/s]; cfl (the largest substep CFL
 * number of the step); h (the cell size, m). */
static PetscErrorCode Figures_SWE(SimSolver s, PetscInt *n, const char *names[], PetscReal values[])
{
  SWE *w = (SWE *)s->data;
  const PetscScalar *a, *b;
  PetscInt nl;
  PetscReal vol, mn[5], mx[5];
  Vec bg;

  PetscFunctionBegin;
  PetscCall(SWEVolume(w, w->U, &vol));
  PetscCall(DMGetGlobalVector(w->dab, &bg));
  PetscCall(DMLocalToGlobal(w->dab, w->bl, INSERT_VALUES, bg));
  PetscCall(VecGetLocalSize(w->U, &nl));
  PetscCall(VecGetArrayRead(w->U, &a));
  PetscCall(VecGetArrayRead(bg, &b));
  /* maxima of (-hmin, hmax, -etamin, etamax, speed) */
  for (PetscInt i = 0; i < 5; i++) mn[i] = i == 4 ? 0 : PETSC_MIN_REAL;
  for (PetscInt l = 0; l < nl / 3; l++) {
    const PetscReal h = a[3 * l], eta = h + b[l];
    if (w->box && b[l] >= w->pillar) continue; /* under the floating box */
    const PetscReal sp = h > w->dry ? PetscSqrtReal(a[3 * l + 1] * a[3 * l + 1] + a[3 * l + 2] * a[3 * l + 2]) / h : 0;
    mn[0] = PetscMax(mn[0], -h), mn[1] = PetscMax(mn[1], h), mn[2] = PetscMax(mn[2], -eta), mn[3] = PetscMax(mn[3], eta);
    mn[4] = PetscMax(mn[4], sp);
  }
  PetscCall(VecRestoreArrayRead(bg, &b));
  PetscCall(VecRestoreArrayRead(w->U, &a));
  PetscCall(DMRestoreGlobalVector(w->dab, &bg));
  PetscCall(MPIU_Allreduce(mn, mx, 5, MPIU_REAL, MPIU_MAX, s->comm));
  *n = 0;
  names[*n] = "volume", values[(*n)++] = vol;
  names[*n] = "volume_change", values[(*n)++] = w->volume0 > 0 ? (vol - w->volume0) / w->volume0 : vol;
  names[*n] = "depth_min", values[(*n)++] = -mx[0];
  names[*n] = "depth_max", values[(*n)++] = mx[1];
  names[*n] = "surface_min", values[(*n)++] = -mx[2];
  names[*n] = "surface_max", values[(*n)++] = mx[3];
  names[*n] = "max_speed", values[(*n)++] = mx[4];
  names[*n] = "cfl", values[(*n)++] = w->cfl;
  names[*n] = "h", values[(*n)++] = w->dx;
  if (w->box) {
    /* the floating box: its bottom z_b, its draft eta_r - z_b against the ring's mean surface, the
       draft at rest M / (rho A), its vertical velocity, the buoyancy over its weight, its pitch (rad,
       about y) and pitch rate (rad/s) */
    names[*n] = "box_bottom", values[(*n)++] = w->body.x[2] - w->body.size[2];
    names[*n] = "box_draft", values[(*n)++] = w->box_eta - (w->body.x[2] - w->body.size[2]);
    names[*n] = "box_draft_rest", values[(*n)++] = w->body.mass / (w->rho * w->box_area);
    names[*n] = "box_velocity", values[(*n)++] = w->body.v[2];
    names[*n] = "box_buoyancy", values[(*n)++] = w->box_force / (w->body.mass * w->g);
    names[*n] = "box_pitch", values[(*n)++] = SWEBoxPitch(w);
    names[*n] = "box_pitch_rate", values[(*n)++] = w->body.w[1];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteFrame_SWE(SimSolver s, const char *path)
{
  PetscFunctionBegin;
  PetscCall(SWEWriteFrame((SWE *)s->data, path));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteImage_SWE(SimSolver s, const char *caption, const char *path)
{
  PetscFunctionBegin;
  PetscCall(SWEWriteImage((SWE *)s->data, caption, path));
  PetscFunctionReturn(0);
}

/* The floating box's state (heave, pitch, the columns' level) to st[8], or back (set). */
static void BoxState(SWE *w, PetscReal st[8], PetscBool set)
{
  PetscReal *v[8] = {&w->body.x[2], &w->body.v[2], &w->level, &w->body.w[1], &w->body.q[0], &w->body.q[1], &w->body.q[2], &w->body.q[3]};
  for (int k = 0; k < 8; k++) {
    if (set) *v[k] = st[k];
    else st[k] = *v[k];
  }
}

static PetscErrorCode Stash_SWE(SimSolver s, PetscBool restore)
{
  SWE *w = (SWE *)s->data;

  PetscFunctionBegin;
  if (!w->stash) PetscCall(VecDuplicate(w->U, &w->stash));
  PetscCall(restore ? VecCopy(w->stash, w->U) : VecCopy(w->U, w->stash));
  if (restore) BoxState(w, w->stash_box, PETSC_TRUE);
  else BoxState(w, w->stash_box, PETSC_FALSE);
  PetscFunctionReturn(0);
}

static PetscErrorCode Save_SWE(SimSolver s, PetscViewer viewer)
{
  SWE *w = (SWE *)s->data;

  PetscFunctionBegin;
  PetscCall(VecView(w->U, viewer));
  if (w->box) {
    PetscReal st[8];
    BoxState(w, st, PETSC_FALSE);
    PetscCall(PetscViewerBinaryWrite(viewer, st, 8, PETSC_REAL));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_SWE(SimSolver s, PetscViewer viewer)
{
  SWE *w = (SWE *)s->data;

  PetscFunctionBegin;
  PetscCall(VecLoad(w->U, viewer));
  if (w->box) {
    PetscReal st[8];
    PetscCall(PetscViewerBinaryRead(viewer, st, 8, NULL, PETSC_REAL));
    BoxState(w, st, PETSC_TRUE);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode View_SWE(SimSolver s, PetscViewer viewer)
{
  SWE *w = (SWE *)s->data;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "order %" PetscInt_FMT ", flux %s, cfl %g, g %g m/s^2, dry %g m, walls %d%d%d%d\n", w->order,
                                   flux_names[w->flux], (double)w->cfl_max, (double)w->g, (double)w->dry, w->wall[0], w->wall[1], w->wall[2],
                                   w->wall[3]));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_SWE(SimSolver s)
{
  SWE *w = (SWE *)s->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&w->U));
  PetscCall(VecDestroy(&w->U1));
  PetscCall(VecDestroy(&w->R));
  PetscCall(VecDestroy(&w->Ul));
  PetscCall(VecDestroy(&w->bl));
  PetscCall(VecDestroy(&w->stash));
  PetscCall(PetscFree(w->box_rows));
  PetscCall(PetscFree4(w->line[0], w->line[1], w->line[2], w->line[3]));
  PetscCall(PetscFree2(w->work, w->dline));
  PetscCall(DMDestroy(&w->dab));
  PetscCall(DMDestroy(&w->da));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_ShallowWater(SimSolver s)
{
  static const SimSolverOps ops = {.setfromoptions = SetFromOptions_SWE,
                                   .setup = SetUp_SWE,
                                   .step = Step_SWE,
                                   .energy = Energy_SWE,
                                   .view = View_SWE,
                                   .destroy = Destroy_SWE,
                                   .state = State_SWE,
                                   .figures = Figures_SWE,
                                   .write_frame = WriteFrame_SWE,
                                   .write_image = WriteImage_SWE,
                                   .stash = Stash_SWE,
                                   .save = Save_SWE,
                                   .load = Load_SWE};
  /* the method data a grid problem may carry for it (framework/grid.h), by name */
  static const char *const scalars[] = {"depth", "bottom", NULL};
  static const char *const parameters[] = {"floating_box_at", "floating_box_size", "floating_box_density", "floating_box_pitch", NULL};
  SimGridProblem *desc;
  const char *name;
  SWE *w;

  PetscFunctionBegin;
  PetscCall(SimGridProblemGetDescription(s->problem, &desc));
  PetscCall(SimProblemGetName(s->problem, &name));
  PetscCall(SimGridProblemCheckNames(desc, "shallow_water", scalars, parameters));
  PetscCheck(SimGridProblemFindScalar(desc, "depth") >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "shallow_water: problem '%s' has no scalar field 'depth' (the initial water depth): it is not a height-field scene "
             "(the shallow-water scenes are those whose default solver is shallow_water in pbsim list)",
             name);
  PetscCheck(desc->dim == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "shallow_water: problem '%s' is %" PetscInt_FMT "D; a height field lives on a 2D grid (x, y horizontal)", name,
             desc->dim);
  for (PetscInt f = 0; f < 4; f++)
    PetscCheck(desc->face[f] != SIM_GRID_INFLOW, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "shallow_water: face %" PetscInt_FMT " of problem '%s' is an inflow; the solver has walls (wall, slip) and open faces", f,
               name);
  PetscCall(PetscNew(&w));
  w->prob = desc;
  for (PetscInt f = 0; f < 4; f++) w->wall[f] = (PetscBool)(desc->face[f] != SIM_GRID_OPEN);
  w->g = PetscSqrtReal(desc->gravity[0] * desc->gravity[0] + desc->gravity[1] * desc->gravity[1] + desc->gravity[2] * desc->gravity[2]);
  w->rho = desc->rho;
  w->order = 2;
  w->flux = SWE_FLUX_HLL;
  w->cfl_max = 0.4;
  w->dry = 1e-6;
  w->max_substeps = 10000;
  s->data = w;
  s->ops = ops;
  PetscFunctionReturn(0);
}
