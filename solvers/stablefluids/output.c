/* Output of the stablefluids state: cell-centred fields gathered in natural order on rank 0,
 * written as a VTK ImageData frame (velocity, pressure, density, temperature) and as a PNG of a
 * density slice (the speed |u| for problems without smoke). */
#include "solvers/stablefluids/sf_impl.h"
#include "framework/io/vti.h"
#include "framework/io/xdmf.h"
#include "framework/io/png.h"

enum { OUT_UX, OUT_UY, OUT_UZ, OUT_P, OUT_D, OUT_T, NOUT };

/* The six cell fields on the owned cells (global vector of sf->dout). */
static PetscErrorCode CellFields(SF *sf, Vec out)
{
  PetscInt xs, ys, zs, xm, ym, zm, dim = sf->mac->dim;
  const PetscScalar *p, *s = NULL;
  PetscScalar *o;
  SFField U;

  PetscFunctionBegin;
  PetscCall(DMGlobalToLocal(sf->dav, sf->u, INSERT_VALUES, sf->ul));
  PetscCall(SFFieldGet(sf->dav, sf->ul, &U));
  PetscCall(VecGetArrayRead(sf->p, &p));
  if (sf->smoke) PetscCall(VecGetArrayRead(sf->s, &s));
  PetscCall(VecGetArray(out, &o));
  PetscCall(DMDAGetCorners(sf->mac->da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        const PetscInt b = SF_IDX(&U, i, j, k), st[3] = {U.sx, U.sy, U.sz};
        for (PetscInt c = 0; c < 3; c++) o[NOUT * l + c] = c < dim ? 0.5 * (U.a[b + c] + U.a[b + st[c] + c]) : 0;
        o[NOUT * l + OUT_P] = p[l];
        o[NOUT * l + OUT_D] = s ? s[SF_NSCALARS * l + SF_DENSITY] : 0;
        o[NOUT * l + OUT_T] = s ? s[SF_NSCALARS * l + SF_TEMPERATURE] : 0;
      }
  PetscCall(VecRestoreArray(out, &o));
  if (sf->smoke) PetscCall(VecRestoreArrayRead(sf->s, &s));
  PetscCall(VecRestoreArrayRead(sf->p, &p));
  PetscCall(SFFieldRestore(sf->ul, &U));
  PetscFunctionReturn(0);
}

/* All cell fields in natural (x-fastest) order on rank 0: *seq holds them there (empty elsewhere). */
static PetscErrorCode Gather(SF *sf, Vec *seq)
{
  Vec out, nat;
  VecScatter sc;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalVector(sf->dout, &out));
  PetscCall(CellFields(sf, out));
  PetscCall(DMDACreateNaturalVector(sf->dout, &nat));
  PetscCall(DMDAGlobalToNaturalBegin(sf->dout, out, INSERT_VALUES, nat));
  PetscCall(DMDAGlobalToNaturalEnd(sf->dout, out, INSERT_VALUES, nat));
  PetscCall(VecScatterCreateToZero(nat, &sc, seq));
  PetscCall(VecScatterBegin(sc, nat, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&nat));
  PetscCall(DMRestoreGlobalVector(sf->dout, &out));
  PetscFunctionReturn(0);
}

PetscErrorCode SFWriteFrame(SF *sf, const char *path)
{
  Vec seq;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(Gather(sf, &seq));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)sf->dout), &rank));
  if (!rank) {
    const PetscScalar *a;
    PetscInt ncell = sf->mac->n[0] * sf->mac->n[1] * sf->mac->n[2];
    PetscReal *vel, *p, *d, *T;
    PetscCall(PetscMalloc4(3 * ncell, &vel, ncell, &p, ncell, &d, ncell, &T));
    PetscCall(VecGetArrayRead(seq, &a));
    for (PetscInt l = 0; l < ncell; l++) {
      for (PetscInt c = 0; c < 3; c++) vel[3 * l + c] = a[NOUT * l + c];
      p[l] = a[NOUT * l + OUT_P], d[l] = a[NOUT * l + OUT_D], T[l] = a[NOUT * l + OUT_T];
    }
    PetscCall(VecRestoreArrayRead(seq, &a));
    {
      const SimVTIField f[4] = {{"velocity", 3, vel}, {"pressure", 1, p}, {"density", 1, d}, {"temperature", 1, T}};
      PetscCall(SimVTIWrite(path, sf->mac->dim, sf->mac->n, sf->h, sf->smoke ? 4 : 2, f));
    }
    PetscCall(PetscFree4(vel, p, d, T));
  }
  PetscCall(VecDestroy(&seq));
  PetscFunctionReturn(0);
}

/* The frame's fields as XDMF + HDF5: each rank writes its own cells (the DMDA's HDF5 viewer puts
 * them in natural order); nothing is gathered. */
PetscErrorCode SFWriteXDMF(SF *sf, const char *path)
{
  const PetscReal origin[3] = {0, 0, 0};
  const char *names[4] = {"pressure", "density", "temperature", NULL};
  const PetscInt comp[3] = {OUT_P, OUT_D, OUT_T};
  const PetscScalar *o;
  PetscScalar *a;
  PetscInt nloc;
  Vec out, vel, s;
  DM da3, da1; /* the output cells with 3 and 1 components */
  SimXDMF x;

  PetscFunctionBegin;
  PetscCall(DMGetGlobalVector(sf->dout, &out));
  PetscCall(CellFields(sf, out));
  PetscCall(DMDACreateCompatibleDMDA(sf->dout, 3, &da3));
  PetscCall(DMDACreateCompatibleDMDA(sf->dout, 1, &da1));
  PetscCall(DMCreateGlobalVector(da3, &vel));
  PetscCall(DMCreateGlobalVector(da1, &s));
  PetscCall(VecGetLocalSize(s, &nloc));
  PetscCall(SimXDMFOpen(PetscObjectComm((PetscObject)sf->dout), path, &x));
  PetscCall(SimXDMFSetUniformGrid(x, sf->mac->dim, sf->mac->n, origin, sf->h));
  PetscCall(VecGetArrayRead(out, &o));
  PetscCall(VecGetArray(vel, &a));
  for (PetscInt l = 0; l < nloc; l++)
    for (PetscInt c = 0; c < 3; c++) a[3 * l + c] = o[NOUT * l + c];
  PetscCall(VecRestoreArray(vel, &a));
  PetscCall(VecRestoreArrayRead(out, &o));
  PetscCall(SimXDMFAddGridField(x, "velocity", vel));
  for (PetscInt f = 0; f < (sf->smoke ? 3 : 1); f++) {
    PetscCall(VecGetArrayRead(out, &o));
    PetscCall(VecGetArray(s, &a));
    for (PetscInt l = 0; l < nloc; l++) a[l] = o[NOUT * l + comp[f]];
    PetscCall(VecRestoreArray(s, &a));
    PetscCall(VecRestoreArrayRead(out, &o));
    PetscCall(SimXDMFAddGridField(x, names[f], s));
  }
  PetscCall(SimXDMFClose(&x));
  PetscCall(VecDestroy(&s));
  PetscCall(VecDestroy(&vel));
  PetscCall(DMDestroy(&da1));
  PetscCall(DMDestroy(&da3));
  PetscCall(DMRestoreGlobalVector(sf->dout, &out));
  PetscFunctionReturn(0);
}

PetscErrorCode SFWriteImage(SF *sf, const char *caption, const char *path)
{
  Vec seq;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(Gather(sf, &seq));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)sf->dout), &rank));
  if (!rank) {
    const PetscScalar *a;
    const PetscInt nx = sf->mac->n[0], ny = sf->mac->n[1], kslice = sf->mac->n[2] / 2;
    PetscReal *img, vmax = 0;
    char text[256];
    PetscCall(PetscMalloc1(nx * ny, &img));
    PetscCall(VecGetArrayRead(seq, &a));
    for (PetscInt j = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++) {
        const PetscScalar *c = a + NOUT * (i + nx * (j + ny * kslice));
        img[i + nx * j] = sf->smoke ? c[OUT_D] : PetscSqrtReal(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        vmax = PetscMax(vmax, img[i + nx * j]);
      }
    PetscCall(VecRestoreArrayRead(seq, &a));
    PetscCall(PetscSNPrintf(text, sizeof(text), "%s  %s", caption ? caption : "", sf->smoke ? "density" : "speed |u|"));
    PetscCall(SimPNGWriteRaster(nx, ny, img, 0.0, vmax > 0 ? vmax : 1.0, PetscMax(1, 768 / PetscMax(nx, ny)), text, path));
    PetscCall(PetscFree(img));
  }
  PetscCall(VecDestroy(&seq));
  PetscFunctionReturn(0);
}
