/* Output of the shallow-water state: the cells gathered in natural order on rank 0, written as a
 * VTK ImageData frame (depth, surface b + h, bottom, velocity) and as a PNG of the surface. */
#include "solvers/swe/swe_impl.h"
#include "framework/io/vti.h"
#include "framework/io/png.h"

/* A DMDA global vector in natural order on rank 0 (*seq; empty elsewhere). */
static PetscErrorCode GatherNatural(DM dm, Vec v, Vec *seq)
{
  Vec nat;
  VecScatter sc;

  PetscFunctionBegin;
  PetscCall(DMDACreateNaturalVector(dm, &nat));
  PetscCall(DMDAGlobalToNaturalBegin(dm, v, INSERT_VALUES, nat));
  PetscCall(DMDAGlobalToNaturalEnd(dm, v, INSERT_VALUES, nat));
  PetscCall(VecScatterCreateToZero(nat, &sc, seq));
  PetscCall(VecScatterBegin(sc, nat, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(0);
}

/* On rank 0: the state and the bottom in natural order (*u: 3 per cell, *b: 1); NULL elsewhere. */
static PetscErrorCode Gather(SWE *w, Vec *u, Vec *b)
{
  Vec bg;

  PetscFunctionBegin;
  PetscCall(GatherNatural(w->da, w->U, u));
  PetscCall(DMGetGlobalVector(w->dab, &bg));
  PetscCall(DMLocalToGlobal(w->dab, w->bl, INSERT_VALUES, bg));
  PetscCall(GatherNatural(w->dab, bg, b));
  PetscCall(DMRestoreGlobalVector(w->dab, &bg));
  PetscFunctionReturn(0);
}

PetscErrorCode SWEWriteFrame(SWE *w, const char *path)
{
  Vec su, sb;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(Gather(w, &su, &sb));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)w->da), &rank));
  if (!rank) {
    const PetscInt n[3] = {w->nx, w->ny, 1}, nc = w->nx * w->ny;
    const PetscScalar *a, *b;
    PetscReal *h, *eta, *bot, *vel;
    PetscCall(PetscMalloc4(nc, &h, nc, &eta, nc, &bot, 3 * nc, &vel));
    PetscCall(VecGetArrayRead(su, &a));
    PetscCall(VecGetArrayRead(sb, &b));
    for (PetscInt l = 0; l < nc; l++) {
      h[l] = a[3 * l], bot[l] = b[l], eta[l] = h[l] + bot[l];
      vel[3 * l] = h[l] > w->dry ? a[3 * l + 1] / h[l] : 0;
      vel[3 * l + 1] = h[l] > w->dry ? a[3 * l + 2] / h[l] : 0;
      vel[3 * l + 2] = 0;
    }
    PetscCall(VecRestoreArrayRead(sb, &b));
    PetscCall(VecRestoreArrayRead(su, &a));
    {
      const SimVTIField f[4] = {{"depth", 1, h}, {"surface", 1, eta}, {"bottom", 1, bot}, {"velocity", 3, vel}};
      PetscCall(SimVTIWrite(path, 2, n, w->dx, 4, f));
    }
    PetscCall(PetscFree4(h, eta, bot, vel));
  }
  PetscCall(VecDestroy(&su));
  PetscCall(VecDestroy(&sb));
  PetscFunctionReturn(0);
}

/* The surface b + h as a colour raster (dry cells at the bottom of the range), x to the right and
 * y up; the range is the frame's own, printed in the corner. */
PetscErrorCode SWEWriteImage(SWE *w, const char *caption, const char *path)
{
  Vec su, sb;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(Gather(w, &su, &sb));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)w->da), &rank));
  if (!rank) {
    const PetscInt nx = w->nx, ny = w->ny, nc = nx * ny;
    const PetscScalar *a, *b;
    PetscReal *img, lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL;
    char text[256];
    PetscCall(PetscMalloc1(nc, &img));
    PetscCall(VecGetArrayRead(su, &a));
    PetscCall(VecGetArrayRead(sb, &b));
    for (PetscInt l = 0; l < nc; l++)
      if (a[3 * l] > w->dry) lo = PetscMin(lo, a[3 * l] + b[l]), hi = PetscMax(hi, a[3 * l] + b[l]);
    if (lo > hi) lo = hi = 0;
    for (PetscInt l = 0; l < nc; l++) img[l] = a[3 * l] > w->dry ? a[3 * l] + b[l] : lo;
    PetscCall(VecRestoreArrayRead(sb, &b));
    PetscCall(VecRestoreArrayRead(su, &a));
    PetscCall(PetscSNPrintf(text, sizeof(text), "%s  surface b + h (m)", caption ? caption : ""));
    PetscCall(SimPNGWriteRaster(nx, ny, img, lo, hi > lo ? hi : lo + 1e-12, PetscMax(1, 768 / PetscMax(nx, ny)), text, path));
    PetscCall(PetscFree(img));
  }
  PetscCall(VecDestroy(&su));
  PetscCall(VecDestroy(&sb));
  PetscFunctionReturn(0);
}
