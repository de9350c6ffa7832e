/* Height-field water scenes for the shallow_water solver (docs/shallow_water.md): grid problems
 * whose scalar field "depth" is the initial water depth h (m) and "bottom" the bed elevation b
 * (m); the grid's x and y axes are the horizontal plane and g = |gravity|.
 *   dam_break_swe: a dam at x = dam across a channel of length L (n cells along, ny across) holds
 *     depth `left` upstream of `right` downstream (0: a dry bed); optionally the dam is a wall
 *     (a bottom ridge above the water) with a breach of width `breach`: the 2D partial dam break.
 *   swe_drop: a square pool of still water, depth H, with a Gaussian hump of water (a drop) off
 *     centre, reflective walls (or open ones: -swe_drop_open) and optionally a Gaussian hill on the
 *     bottom (-swe_drop_bump); with -swe_drop_height 0 it is a lake at rest. */
#include "scenes/scenes.h"
#include "framework/sizes.h"

typedef struct {
  PetscReal length, left, right, dam, breach, breach_y, dx, width;
  PetscInt n, ny;
} DamBreakSWE;

static PetscBool OnRidge(const DamBreakSWE *d, const PetscReal x[3])
{
  /* the one column of cells just upstream of the dam, outside the breach */
  return (PetscBool)(d->breach > 0 && x[0] > d->dam - d->dx && x[0] < d->dam && PetscAbsReal(x[1] - d->breach_y) > 0.5 * d->breach);
}

static PetscErrorCode Depth_DamBreakSWE(void *ctx, const PetscReal x[3], PetscReal t, PetscReal *h)
{
  const DamBreakSWE *d = (DamBreakSWE *)ctx;

  *h = OnRidge(d, x) ? 0 : (x[0] < d->dam ? d->left : d->right);
  return 0;
}

static PetscErrorCode Bottom_DamBreakSWE(void *ctx, const PetscReal x[3], PetscReal t, PetscReal *b)
{
  const DamBreakSWE *d = (DamBreakSWE *)ctx;

  *b = OnRidge(d, x) ? 2 * d->left : 0;
  return 0;
}

static PetscErrorCode Build_DamBreakSWE(SimScene scene, SimProblem problem)
{
  DamBreakSWE *d = (DamBreakSWE *)scene->data;
  SimGridProblem *p;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(SimGridProblemGetDescription(problem, &p));
  PetscOptionsBegin(PETSC_COMM_WORLD, "dam_break_swe_", "Shallow-water dam break scene", "");
  PetscCall(PetscOptionsInt("-n", "cells along the channel", "", d->n, &d->n, NULL));
  PetscCall(PetscOptionsInt("-ny", "cells across the channel (2: a 1D dam break)", "", d->ny, &d->ny, NULL));
  PetscCall(PetscOptionsReal("-length", "channel length L (m)", "", d->length, &d->length, NULL));
  PetscCall(PetscOptionsReal("-left", "depth upstream of the dam (m)", "", d->left, &d->left, NULL));
  PetscCall(PetscOptionsReal("-right", "depth downstream of the dam (m; 0: a dry bed)", "", d->right, &d->right, NULL));
  d->dam = 0.5 * d->length;
  PetscCall(PetscOptionsReal("-dam", "position of the dam along the channel (m; default L/2)", "", d->dam, &d->dam, NULL));
  PetscCall(PetscOptionsReal("-breach", "width of a breach in a dam wall (m; 0: the whole dam goes)", "", d->breach, &d->breach, NULL));
  PetscCall(PetscOptionsReal("-breach_y", "centre of the breach across the channel (m; default the middle)", "", d->breach_y, &d->breach_y, &set));
  PetscOptionsEnd();
  PetscCheck(d->n >= 4 && d->ny >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-dam_break_swe_n must be >= 4 and -dam_break_swe_ny >= 2 (got %" PetscInt_FMT ", %" PetscInt_FMT ")", d->n, d->ny);
  PetscCheck(d->length > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-dam_break_swe_length must be > 0 (got %g)", (double)d->length);
  PetscCheck(d->left > 0 && d->right >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-dam_break_swe_left must be > 0 and -dam_break_swe_right >= 0 (got %g, %g)", (double)d->left, (double)d->right);
  PetscCheck(d->dam > 0 && d->dam < d->length, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-dam_break_swe_dam must be inside the channel (0, %g) m (got %g)", (double)d->length, (double)d->dam);
  {
    char opts[96];
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-dam_break_swe_n %" PetscInt_FMT " -dam_break_swe_ny %" PetscInt_FMT, d->n, d->ny));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "cells", (PetscReal)d->n * d->ny, 4));
  }
  d->dx = d->length / d->n;
  d->width = d->ny * d->dx;
  if (!set) d->breach_y = 0.5 * d->width;
  PetscCheck(d->breach >= 0 && d->breach < d->width, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-dam_break_swe_breach must be in [0, %g) m, the channel's width (got %g)", (double)d->width, (double)d->breach);
  p->dim = 2;
  p->n[0] = d->n, p->n[1] = d->ny, p->n[2] = 1;
  p->extent[0] = d->length, p->extent[1] = d->width, p->extent[2] = d->dx;
  for (PetscInt f = 0; f < 4; f++) p->face[f] = SIM_GRID_WALL;
  p->rho = 1000;
  p->ctx = d;
  PetscCall(SimGridProblemAddScalar(p, "depth", Depth_DamBreakSWE, NULL));
  if (d->breach > 0) PetscCall(SimGridProblemAddScalar(p, "bottom", Bottom_DamBreakSWE, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Data(SimScene scene)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_DamBreakSWE(SimScene scene)
{
  DamBreakSWE *d;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  d->n = 200, d->ny = 2;
  d->length = 10, d->left = 1.0, d->right = 0.1;
  scene->data = d;
  scene->ops.build = Build_DamBreakSWE;
  scene->ops.destroy = Destroy_Data;
  PetscFunctionReturn(0);
}

typedef struct {
  PetscReal size, depth, height, radius, at[2], bump;
  PetscInt n;
  PetscBool open;
} SWEDrop;

static PetscReal Hill(const SWEDrop *d, const PetscReal x[3])
{
  const PetscReal rx = x[0] - 0.5 * d->size, ry = x[1] - 0.5 * d->size, w = 0.25 * d->size;
  return d->bump * PetscExpReal(-(rx * rx + ry * ry) / (w * w));
}

static PetscErrorCode Depth_SWEDrop(void *ctx, const PetscReal x[3], PetscReal t, PetscReal *h)
{
  const SWEDrop *d = (SWEDrop *)ctx;
  const PetscReal rx = x[0] - d->at[0] * d->size, ry = x[1] - d->at[1] * d->size;

  *h = PetscMax(0, d->depth - Hill(d, x)) + d->height * PetscExpReal(-(rx * rx + ry * ry) / (d->radius * d->radius));
  return 0;
}

static PetscErrorCode Bottom_SWEDrop(void *ctx, const PetscReal x[3], PetscReal t, PetscReal *b)
{
  *b = Hill((SWEDrop *)ctx, x);
  return 0;
}

static PetscErrorCode Build_SWEDrop(SimScene scene, SimProblem problem)
{
  SWEDrop *d = (SWEDrop *)scene->data;
  SimGridProblem *p;
  PetscInt two = 2;

  PetscFunctionBeginUser;
  PetscCall(SimGridProblemGetDescription(problem, &p));
  PetscOptionsBegin(PETSC_COMM_WORLD, "swe_drop_", "Shallow-water drop in a pool scene", "");
  PetscCall(PetscOptionsInt("-n", "cells per side", "", d->n, &d->n, NULL));
  PetscCall(PetscOptionsReal("-size", "side of the square pool (m)", "", d->size, &d->size, NULL));
  PetscCall(PetscOptionsReal("-depth", "still-water depth H (m)", "", d->depth, &d->depth, NULL));
  PetscCall(PetscOptionsReal("-height", "height of the drop's hump of water (m; 0: a lake at rest)", "", d->height, &d->height, NULL));
  PetscCall(PetscOptionsReal("-radius", "radius of the hump (m; Gaussian width)", "", d->radius, &d->radius, NULL));
  PetscCall(PetscOptionsRealArray("-at", "where the drop falls, as fractions x,y of the side", "", d->at, &two, NULL));
  PetscCall(PetscOptionsReal("-bump", "height of a Gaussian hill on the bottom at the centre (m; 0: flat)", "", d->bump, &d->bump, NULL));
  PetscCall(PetscOptionsBool("-open", "open (absorbing) faces instead of reflective walls", "", d->open, &d->open, NULL));
  PetscOptionsEnd();
  PetscCheck(d->n >= 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-swe_drop_n must be >= 4 (got %" PetscInt_FMT ")", d->n);
  PetscCheck(d->size > 0 && d->depth > 0 && d->radius > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-swe_drop_size, -swe_drop_depth and -swe_drop_radius must be > 0 (got %g, %g, %g)", (double)d->size, (double)d->depth,
             (double)d->radius);
  PetscCheck(d->height >= 0 && d->bump >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-swe_drop_height and -swe_drop_bump must be >= 0 (got %g, %g)", (double)d->height, (double)d->bump);
  {
    char opts[64];
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-swe_drop_n %" PetscInt_FMT, d->n));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "cells", (PetscReal)d->n * d->n, 4));
  }
  p->dim = 2;
  p->n[0] = p->n[1] = d->n, p->n[2] = 1;
  p->extent[0] = p->extent[1] = d->size, p->extent[2] = d->size / d->n;
  for (PetscInt f = 0; f < 4; f++) p->face[f] = d->open ? SIM_GRID_OPEN : SIM_GRID_WALL;
  p->rho = 1000;
  p->ctx = d;
  PetscCall(SimGridProblemAddScalar(p, "depth", Depth_SWEDrop, NULL));
  if (d->bump > 0) PetscCall(SimGridProblemAddScalar(p, "bottom", Bottom_SWEDrop, NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_SWEDrop(SimScene scene)
{
  SWEDrop *d;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  d->n = 128;
  d->size = 2, d->depth = 0.5, d->height = 0.1, d->radius = 0.1;
  d->at[0] = 0.35, d->at[1] = 0.6;
  scene->data = d;
  scene->ops.build = Build_SWEDrop;
  scene->ops.destroy = Destroy_Data;
  PetscFunctionReturn(0);
}

/* wave_tank: a tank L x W of still water H deep (walls all round) with a box floating at its centre
 * (the grid problem's parameters floating_box_at, _size, _density; solvers/swe/float.c): lengths bx x by, height bh,
 * density rho_b, its bottom at H - draft + offset (draft = rho_b bh / rho: at rest for offset 0),
 * tilted by `pitch` about y (its centre), and a wave (0: none): a Gaussian hump of water `wave` high across the tank at L/4. */
typedef struct {
  PetscReal length, width, depth, box[3], density, offset, wave, radius, pitch;
  PetscInt n;
} WaveTank;

static PetscErrorCode Depth_WaveTank(void *ctx, const PetscReal x[3], PetscReal t, PetscReal *h)
{
  const WaveTank *d = (WaveTank *)ctx;
  const PetscReal r = x[0] - 0.25 * d->length;

  *h = d->depth + d->wave * PetscExpReal(-r * r / (d->radius * d->radius));
  return 0;
}

static PetscErrorCode Build_WaveTank(SimScene scene, SimProblem problem)
{
  WaveTank *d = (WaveTank *)scene->data;
  SimGridProblem *p;
  PetscInt three = 3;
  PetscReal dx, prm[3];

  PetscFunctionBeginUser;
  PetscCall(SimGridProblemGetDescription(problem, &p));
  PetscOptionsBegin(PETSC_COMM_WORLD, "wave_tank_", "Shallow-water wave tank with a floating box scene", "");
  PetscCall(PetscOptionsInt("-n", "cells along the tank", "", d->n, &d->n, NULL));
  PetscCall(PetscOptionsReal("-length", "tank length L (m)", "", d->length, &d->length, NULL));
  PetscCall(PetscOptionsReal("-width", "tank width W (m; a whole number of cells)", "", d->width, &d->width, NULL));
  PetscCall(PetscOptionsReal("-depth", "still-water depth H (m)", "", d->depth, &d->depth, NULL));
  PetscCall(PetscOptionsRealArray("-box", "the box's lengths along x, y and its height (m)", "", d->box, &three, NULL));
  PetscCall(PetscOptionsReal("-density", "the box's density (kg/m^3, below the water's 1000)", "", d->density, &d->density, NULL));
  PetscCall(PetscOptionsReal("-offset", "the box's start above its floating position (m; 0: at rest)", "", d->offset, &d->offset, NULL));
  PetscCall(PetscOptionsReal("-pitch", "the box's rotation about the y axis (across the tank) at the start (rad)", "", d->pitch, &d->pitch, NULL));
  PetscCall(PetscOptionsReal("-wave", "height of a hump of water across the tank at L/4 (m; 0: none)", "", d->wave, &d->wave, NULL));
  PetscCall(PetscOptionsReal("-radius", "the hump's Gaussian width (m)", "", d->radius, &d->radius, NULL));
  PetscOptionsEnd();
  dx = d->length / PetscMax(d->n, 1);
  PetscCheck(d->n >= 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-wave_tank_n must be >= 8 (got %" PetscInt_FMT ")", d->n);
  PetscCheck(d->length > 0 && d->width > 0 && d->depth > 0 && d->radius > 0 && d->wave >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-wave_tank_length, -wave_tank_width, -wave_tank_depth, -wave_tank_radius must be > 0 and -wave_tank_wave >= 0");
  PetscCheck(PetscAbsReal(d->width / dx - PetscFloorReal(d->width / dx + 0.5)) < 1e-9 && d->width / dx > 1.5, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-wave_tank_width %g m must be a whole number (>= 2) of cells of %g m (-wave_tank_length / -wave_tank_n)", (double)d->width, (double)dx);
  PetscCheck(d->box[0] > 0 && d->box[1] > 0 && d->box[2] > 0 && d->box[0] < d->length && d->box[1] < d->width, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-wave_tank_box: lengths > 0 and inside the tank (got %g, %g, %g m)", (double)d->box[0], (double)d->box[1], (double)d->box[2]);
  PetscCheck(d->density > 0 && d->density < 1000, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-wave_tank_density must be in (0, 1000) kg/m^3 to float (got %g)", (double)d->density);
  {
    char opts[64];
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-wave_tank_n %" PetscInt_FMT, d->n));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "cells", (PetscReal)d->n * PetscFloorReal(d->width / dx + 0.5), 4));
  }
  p->dim = 2;
  p->n[0] = d->n, p->n[1] = (PetscInt)PetscFloorReal(d->width / dx + 0.5), p->n[2] = 1;
  p->extent[0] = d->length, p->extent[1] = p->n[1] * dx, p->extent[2] = dx;
  for (PetscInt f = 0; f < 4; f++) p->face[f] = SIM_GRID_WALL;
  p->rho = 1000;
  p->ctx = d;
  PetscCall(SimGridProblemAddScalar(p, "depth", Depth_WaveTank, NULL));
  prm[0] = 0.5 * d->length, prm[1] = 0.5 * p->extent[1], prm[2] = d->depth - d->density * d->box[2] / p->rho + d->offset;
  PetscCall(SimGridProblemSetParameter(p, "floating_box_at", 3, prm));
  PetscCall(SimGridProblemSetParameter(p, "floating_box_size", 3, d->box));
  PetscCall(SimGridProblemSetParameter(p, "floating_box_density", 1, &d->density));
  PetscCall(SimGridProblemSetParameter(p, "floating_box_pitch", 1, &d->pitch));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_WaveTank(SimScene scene)
{
  WaveTank *d;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  d->n = 80;
  d->length = 4, d->width = 1, d->depth = 0.5;
  d->box[0] = 0.4, d->box[1] = 0.4, d->box[2] = 0.3;
  d->density = 500, d->radius = 0.2, d->wave = 0.05;
  scene->data = d;
  scene->ops.build = Build_WaveTank;
  scene->ops.destroy = Destroy_Data;
  PetscFunctionReturn(0);
}
