/* The cantilever beam scene: a box of tets clamped at x = 0, sagging under gravity; its small-load
 * static tip deflection is the Euler-Bernoulli q L^4 / (8 E I). The scene reports that deflection
 * and its error as figures, so a quasi-static run (implicit Euler with a step much longer than the
 * beam's period) measures the spatial discretization error (benchmarks/fem.yaml, beam_refinement). */
#include "scenes/scenes.h"
#include "scenes/fem_body.h"
#include "framework/linalg/vec3.h"

/* E = 1e8 Pa keeps the default beam's tip deflection near 1.5% of its length: a small load */
#define BEAM_DEFAULT_YOUNGS 1e8

typedef struct {
  PetscReal length, width, h, youngs;
  PetscInt ntip;     /* vertices of the free end face x = length */
  PetscInt *tip;     /* their indices in the model */
  PetscReal *tip_y0; /* their rest heights */
} Beam;

/* Re-splits the box's cells into 5 tets each (a centre tet and four corner tets, mirrored in
 * every other cell so that the face diagonals match across cells), as the PositionBasedDynamics
 * library's bar. Corner q of a cell is offset (q & 1, q >> 1 & 1, q >> 2 & 1). */
static PetscErrorCode SplitFive(const PetscInt n[3], SimMesh *mesh)
{
  static const int even[5][4] = {{1, 2, 4, 7}, {0, 1, 2, 4}, {3, 1, 2, 7}, {5, 1, 4, 7}, {6, 2, 4, 7}};
  static const int odd[5][4] = {{0, 3, 5, 6}, {1, 0, 3, 5}, {2, 0, 3, 6}, {4, 0, 5, 6}, {7, 3, 5, 6}};
  const PetscInt nx = n[0] + 1, ny = n[1] + 1;
  PetscInt c = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(mesh->tet));
  mesh->ntet = 5 * n[0] * n[1] * n[2];
  PetscCall(PetscMalloc1(4 * mesh->ntet, &mesh->tet));
  for (PetscInt k = 0; k < n[2]; k++)
    for (PetscInt j = 0; j < n[1]; j++)
      for (PetscInt i = 0; i < n[0]; i++) {
        const int(*pat)[4] = (i + j + k) % 2 ? odd : even;
        PetscInt corner[8];
        for (int q = 0; q < 8; q++) corner[q] = ((k + ((q >> 2) & 1)) * ny + j + ((q >> 1) & 1)) * nx + i + (q & 1);
        for (int t = 0; t < 5; t++) {
          PetscInt *tet = mesh->tet + 4 * c++;
          for (int v = 0; v < 4; v++) tet[v] = corner[pat[t][v]];
          if (Vec3TetVolume(mesh->xyz, tet) < 0) {
            PetscInt sw = tet[2];
            tet[2] = tet[3], tet[3] = sw;
          }
        }
      }
  PetscFunctionReturn(0);
}

/* The free end's rest vertices, found in the model's numbering (which may differ from the mesh's);
 * with a distributed state this rank's owned ones (the figures sum them over the ranks). */
static PetscErrorCode FindTip(Beam *b, SimModel model)
{
  const PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(model->x, &x));
  for (PetscInt pass = 0; pass < 2; pass++) {
    b->ntip = 0;
    for (PetscInt i = 0; i < model->nown; i++)
      if (PetscAbsReal(x[3 * i] - b->length) <= 1e-12 * b->length) {
        if (pass) b->tip[b->ntip] = i, b->tip_y0[b->ntip] = x[3 * i + 1];
        b->ntip++;
      }
    if (!pass) PetscCall(PetscMalloc2(b->ntip, &b->tip, b->ntip, &b->tip_y0));
  }
  PetscCall(VecRestoreArrayRead(model->x, &x));
  PetscFunctionReturn(0);
}

/* Figures: the cell size along the beam h (m); the tip deflection (mean downward displacement of
 * the free end face, m); Euler-Bernoulli's q L^4 / (8 E I) for the same load, with q = M g / L from
 * the model's total mass and gravity and I = w^4 / 12 (exact for Poisson's ratio 0; with nu > 0 the
 * 3D beam is slightly stiffer); and the relative error. */
static PetscErrorCode Figures_Beam(SimScene scene, SimProblem problem, PetscReal t, PetscInt *n, const char *names[], PetscReal values[])
{
  SimModel model;
  Beam *b = (Beam *)scene->data;
  const PetscScalar *x;
  PetscReal tip = 0, mass = 0, q, eb, g, sums[3];

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  g = PetscAbsReal(model->gravity[1]);
  PetscCall(VecGetArrayRead(model->x, &x));
  for (PetscInt k = 0; k < b->ntip; k++) tip += b->tip_y0[k] - x[3 * b->tip[k] + 1];
  PetscCall(VecRestoreArrayRead(model->x, &x));
  PetscCall(VecGetArrayRead(model->mass, &x));
  for (PetscInt k = 0; k < 3 * model->nown; k++) mass += x[k];
  PetscCall(VecRestoreArrayRead(model->mass, &x));
  sums[0] = tip, sums[1] = (PetscReal)b->ntip, sums[2] = mass;
  PetscCall(SimModelSumOwned(model, 3, sums)); /* a distributed state: over the ranks */
  tip = sums[0] / PetscMax(1, sums[1]);
  mass = sums[2];
  q = mass / 3 * g / b->length; /* model->mass repeats each vertex mass for x, y, z */
  eb = q * PetscPowReal(b->length, 4) / (8 * b->youngs * PetscPowReal(b->width, 4) / 12);
  names[0] = "h", values[0] = b->h;
  names[1] = "tip_deflection", values[1] = tip;
  names[2] = "tip_deflection_eb", values[2] = eb;
  names[3] = "tip_error", values[3] = eb > 0 ? PetscAbsReal(tip - eb) / eb : NAN;
  *n = 4;
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Beam(SimScene scene)
{
  Beam *b = (Beam *)scene->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree2(b->tip, b->tip_y0));
  PetscCall(PetscFree(scene->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode Build_Beam(SimScene scene, SimProblem problem)
{
  SimModel model;
  Beam *b = (Beam *)scene->data;
  PetscReal length = 1.0, width = 0.1;
  PetscInt n = 20, nw = -1, split = 6;
  SimMesh mesh;

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  PetscOptionsBegin(model->comm, "beam_", "Cantilever beam scene", "");
  PetscCall(PetscOptionsReal("-length", "length along x (m)", "", length, &length, NULL));
  PetscCall(PetscOptionsReal("-width", "side of the square cross-section (m)", "", width, &width, NULL));
  PetscCall(PetscOptionsInt("-n", "cells along the length", "", n, &n, NULL));
  PetscCall(PetscOptionsInt("-nw", "cells across (default: cubic cells, at least 2)", "", nw, &nw, NULL));
  PetscCall(PetscOptionsInt("-tets_per_cell", "5 (centre + corners, as the PositionBasedDynamics library's bar) or 6 (Kuhn)", "", split, &split, NULL));
  PetscOptionsEnd();
  PetscCheck(split == 5 || split == 6, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-beam_tets_per_cell must be 5 or 6 (got %" PetscInt_FMT ")", split);
  PetscCheck(length > 0 && width > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-beam_length and -beam_width must be > 0");
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-beam_n must be >= 1 (got %" PetscInt_FMT ")", n);
  if (nw < 1) nw = PetscMax(2, (PetscInt)(n * width / length + 0.5));
  {
    const PetscInt cells[3] = {n, nw, nw};
    const PetscReal lo[3] = {0, -0.5 * width, -0.5 * width}, hi[3] = {length, 0.5 * width, 0.5 * width};
    PetscCall(SimMeshCreateBox(cells, lo, hi, &mesh));
    if (split == 5) PetscCall(SplitFive(cells, &mesh));
  }
  PetscCall(SimSceneAddFEMBody(scene, model, &mesh, "beam_", "fixed_corotated", BEAM_DEFAULT_YOUNGS));
  for (PetscInt i = 0; i < mesh.nv; i++)
    if (mesh.xyz[3 * i] == 0.0) PetscCall(SimModelPin(model, i, "beam clamp"));
  PetscCall(SimMeshFree(&mesh));
  b->length = length, b->width = width, b->h = length / n, b->youngs = BEAM_DEFAULT_YOUNGS;
  PetscCall(PetscOptionsGetReal(NULL, "beam_", "-youngs", &b->youngs, NULL)); /* as the material read it */
  PetscCall(FindTip(b, model));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Beam(SimScene scene)
{
  Beam *b;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&b));
  scene->data = b;
  scene->ops.build = Build_Beam;
  scene->ops.figures = Figures_Beam;
  scene->ops.destroy = Destroy_Beam;
  PetscFunctionReturn(0);
}
