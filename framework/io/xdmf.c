/* XDMF 2 + HDF5 frames written collectively through PETSc's HDF5 viewer, and the time-series index
 * (xdmf.h). The HDF5 datasets are whatever VecView/ISView write for the vectors built here; the XML
 * names them with their shapes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <petscviewerhdf5.h>
#include <petscdmda.h>
#include "framework/io/xdmf.h"

_Static_assert(sizeof(PetscScalar) == sizeof(PetscReal), "the XDMF writer views real arrays as PETSc vectors");

struct _p_SimXDMF {
  MPI_Comm comm;
  PetscMPIInt rank;
  char path[PETSC_MAX_PATH_LEN];  /* the .xmf */
  char h5[PETSC_MAX_PATH_LEN];    /* the .h5 */
  char h5tmp[PETSC_MAX_PATH_LEN]; /* written here, renamed at close */
  char h5name[PETSC_MAX_PATH_LEN];/* the .h5 relative to the .xmf (its base name) */
  PetscViewer viewer;
  enum { TOPO_NONE, TOPO_POINTS, TOPO_MESH, TOPO_GRID } topo;
  PetscInt npoints;  /* points or vertices (global) */
  PetscInt dim, n[3];/* grid */
  char *xml;         /* the Grid element's body, rank 0 */
  size_t len, cap;
};

static PetscErrorCode Append(SimXDMF x, const char *fmt, ...)
{
  va_list ap;
  int need;

  PetscFunctionBeginUser;
  if (x->rank) PetscFunctionReturn(0);
  va_start(ap, fmt);
  need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (x->len + (size_t)need + 1 > x->cap) {
    char *grown;
    size_t cap = 2 * (x->len + (size_t)need + 1);
    PetscCall(PetscMalloc1(cap, &grown));
    if (x->len) PetscCall(PetscArraycpy(grown, x->xml, x->len));
    PetscCall(PetscFree(x->xml));
    x->xml = grown, x->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(x->xml + x->len, x->cap - x->len, fmt, ap);
  va_end(ap);
  x->len += (size_t)need;
  PetscFunctionReturn(0);
}

PetscErrorCode SimXDMFOpen(MPI_Comm comm, const char *path, SimXDMF *out)
{
  SimXDMF x;
  size_t len;
  const char *base;

  PetscFunctionBeginUser;
  PetscCall(PetscStrlen(path, &len));
  PetscCheck(len > 4 && !strcmp(path + len - 4, ".xmf") && len + 8 < PETSC_MAX_PATH_LEN, comm, PETSC_ERR_ARG_WRONG,
             "SimXDMFOpen: '%s' is not a (short enough) .xmf path", path);
  PetscCall(PetscNew(&x));
  x->comm = comm;
  PetscCallMPI(MPI_Comm_rank(comm, &x->rank));
  PetscCall(PetscStrncpy(x->path, path, sizeof(x->path)));
  PetscCall(PetscStrncpy(x->h5, path, sizeof(x->h5)));
  PetscCall(PetscStrcpy(x->h5 + len - 4, ".h5"));
  PetscCall(PetscSNPrintf(x->h5tmp, sizeof(x->h5tmp), "%s.tmp", x->h5));
  base = strrchr(x->h5, '/');
  PetscCall(PetscStrncpy(x->h5name, base ? base + 1 : x->h5, sizeof(x->h5name)));
  PetscCall(PetscViewerHDF5Open(comm, x->h5tmp, FILE_MODE_WRITE, &x->viewer));
  *out = x;
  PetscFunctionReturn(0);
}

static PetscErrorCode ViewRows(SimXDMF x, const char *name, PetscInt ncomp, PetscInt nlocal, const PetscReal *data, PetscInt *nglobal)
{
  Vec v;

  PetscFunctionBeginUser;
  PetscCall(VecCreateMPIWithArray(x->comm, ncomp, ncomp * nlocal, PETSC_DECIDE, (const PetscScalar *)data, &v));
  PetscCall(PetscObjectSetName((PetscObject)v, name));
  PetscCall(VecView(v, x->viewer));
  PetscCall(VecGetSize(v, nglobal));
  *nglobal /= ncomp;
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

static PetscErrorCode DataItem(SimXDMF x, const char *dims, const char *type, size_t precision, const char *dataset)
{
  PetscFunctionBeginUser;
  PetscCall(Append(x, "        <DataItem Dimensions=\"%s\" NumberType=\"%s\" Precision=\"%zu\" Format=\"HDF\">%s:/%s</DataItem>\n", dims, type,
                   precision, x->h5name, dataset));
  PetscFunctionReturn(0);
}

static PetscErrorCode Geometry(SimXDMF x, PetscInt nlocal, const PetscReal *xyz)
{
  char dims[64];

  PetscFunctionBeginUser;
  PetscCall(ViewRows(x, "geometry", 3, nlocal, xyz, &x->npoints));
  PetscCall(PetscSNPrintf(dims, sizeof(dims), "%" PetscInt_FMT " 3", x->npoints));
  PetscCall(Append(x, "      <Geometry GeometryType=\"XYZ\">\n"));
  PetscCall(DataItem(x, dims, "Float", sizeof(PetscReal), "geometry"));
  PetscCall(Append(x, "      </Geometry>\n"));
  PetscFunctionReturn(0);
}

PetscErrorCode SimXDMFSetPoints(SimXDMF x, PetscInt nlocal, const PetscReal *xyz)
{
  PetscFunctionBeginUser;
  PetscCheck(x->topo == TOPO_NONE, x->comm, PETSC_ERR_ORDER, "SimXDMF: '%s' already has its topology", x->path);
  x->topo = TOPO_POINTS;
  PetscCall(Geometry(x, nlocal, xyz));
  PetscCall(Append(x, "      <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%" PetscInt_FMT "\" NodesPerElement=\"1\"/>\n", x->npoints));
  PetscFunctionReturn(0);
}

PetscErrorCode SimXDMFSetMesh(SimXDMF x, PetscInt nlocal, const PetscReal *xyz, PetscInt ncell, const PetscInt *nv, const PetscInt *off,
                              const PetscInt *conn)
{
  PetscInt len = 0, k = 0, total, cells;
  PetscInt *flat;
  IS is;
  char dims[32];

  PetscFunctionBeginUser;
  PetscCheck(x->topo == TOPO_NONE, x->comm, PETSC_ERR_ORDER, "SimXDMF: '%s' already has its topology", x->path);
  x->topo = TOPO_MESH;
  PetscCall(Geometry(x, nlocal, xyz));
  /* XDMF Mixed: per cell its type, (for poly-cells the vertex count,) then its vertices */
  for (PetscInt c = 0; c < ncell; c++) {
    PetscCheck(nv[c] >= 1 && nv[c] <= 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SimXDMFSetMesh: a cell of %" PetscInt_FMT " vertices", nv[c]);
    len += 1 + (nv[c] <= 2) + nv[c];
  }
  PetscCall(PetscMalloc1(len + 1, &flat));
  for (PetscInt c = 0; c < ncell; c++) {
    static const PetscInt type[5] = {0, 1, 2, 4, 6}; /* Polyvertex, Polyline, Triangle, Tetrahedron */
    flat[k++] = type[nv[c]];
    if (nv[c] <= 2) flat[k++] = nv[c];
    for (PetscInt j = 0; j < nv[c]; j++) flat[k++] = conn[off[c] + j];
  }
  PetscCall(ISCreateGeneral(x->comm, len, flat, PETSC_OWN_POINTER, &is));
  PetscCall(PetscObjectSetName((PetscObject)is, "topology"));
  PetscCall(ISView(is, x->viewer));
  PetscCall(ISGetSize(is, &total));
  PetscCall(ISDestroy(&is));
  PetscCall(MPIU_Allreduce(&ncell, &cells, 1, MPIU_INT, MPI_SUM, x->comm));
  PetscCall(PetscSNPrintf(dims, sizeof(dims), "%" PetscInt_FMT " 1", total)); /* ISView writes N x block size */
  PetscCall(Append(x, "      <Topology TopologyType=\"Mixed\" NumberOfElements=\"%" PetscInt_FMT "\">\n", cells));
  PetscCall(DataItem(x, dims, "Int", sizeof(PetscInt), "topology"));
  PetscCall(Append(x, "      </Topology>\n"));
  PetscFunctionReturn(0);
}

PetscErrorCode SimXDMFSetUniformGrid(SimXDMF x, PetscInt dim, const PetscInt n[3], const PetscReal origin[3], PetscReal h)
{
  PetscFunctionBeginUser;
  PetscCheck(x->topo == TOPO_NONE, x->comm, PETSC_ERR_ORDER, "SimXDMF: '%s' already has its topology", x->path);
  PetscCheck(dim == 2 || dim == 3, x->comm, PETSC_ERR_ARG_OUTOFRANGE, "SimXDMFSetUniformGrid: dimension %" PetscInt_FMT, dim);
  x->topo = TOPO_GRID;
  x->dim = dim;
  for (int d = 0; d < 3; d++) x->n[d] = d < dim ? n[d] : 1;
  /* XDMF lists dimensions, origin and spacing slowest axis first (z y x) */
  if (dim == 3) {
    PetscCall(Append(x, "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\"/>\n",
                     n[2] + 1, n[1] + 1, n[0] + 1));
    PetscCall(Append(x, "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"));
    PetscCall(Append(x, "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">%.17g %.17g %.17g</DataItem>\n",
                     (double)origin[2], (double)origin[1], (double)origin[0]));
    PetscCall(Append(x, "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">%.17g %.17g %.17g</DataItem>\n",
                     (double)h, (double)h, (double)h));
  } else {
    PetscCall(Append(x, "      <Topology TopologyType=\"2DCoRectMesh\" Dimensions=\"%" PetscInt_FMT " %" PetscInt_FMT "\"/>\n", n[1] + 1, n[0] + 1));
    PetscCall(Append(x, "      <Geometry GeometryType=\"ORIGIN_DXDY\">\n"));
    PetscCall(Append(x, "        <DataItem Dimensions=\"2\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">%.17g %.17g</DataItem>\n",
                     (double)origin[1], (double)origin[0]));
    PetscCall(Append(x, "        <DataItem Dimensions=\"2\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">%.17g %.17g</DataItem>\n", (double)h,
                     (double)h));
  }
  PetscCall(Append(x, "      </Geometry>\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode Attribute(SimXDMF x, const char *name, PetscInt ncomp, const char *center, const char *dims)
{
  PetscFunctionBeginUser;
  PetscCall(Append(x, "      <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"%s\">\n", name, ncomp == 1 ? "Scalar" : ncomp == 3 ? "Vector" : "Matrix",
                   center));
  PetscCall(DataItem(x, dims, "Float", sizeof(PetscReal), name));
  PetscCall(Append(x, "      </Attribute>\n"));
  PetscFunctionReturn(0);
}

PetscErrorCode SimXDMFAddField(SimXDMF x, const char *name, PetscInt ncomp, PetscInt nlocal, const PetscReal *data)
{
  PetscInt n;
  char dims[64];

  PetscFunctionBeginUser;
  PetscCheck(x->topo == TOPO_POINTS || x->topo == TOPO_MESH, x->comm, PETSC_ERR_ORDER, "SimXDMFAddField: '%s' has no points or mesh", x->path);
  PetscCall(ViewRows(x, name, ncomp, nlocal, data, &n));
  PetscCheck(n == x->npoints, x->comm, PETSC_ERR_ARG_SIZ, "SimXDMFAddField: field '%s' has %" PetscInt_FMT " rows, the geometry %" PetscInt_FMT, name, n,
             x->npoints);
  if (ncomp == 1) PetscCall(PetscSNPrintf(dims, sizeof(dims), "%" PetscInt_FMT, n));
  else PetscCall(PetscSNPrintf(dims, sizeof(dims), "%" PetscInt_FMT " %" PetscInt_FMT, n, ncomp));
  PetscCall(Attribute(x, name, ncomp, "Node", dims));
  PetscFunctionReturn(0);
}

PetscErrorCode SimXDMFAddGridField(SimXDMF x, const char *name, Vec v)
{
  DM da;
  PetscInt dim, M, N, P, dof;
  char dims[96], *old;
  const char *name_v;

  PetscFunctionBeginUser;
  PetscCheck(x->topo == TOPO_GRID, x->comm, PETSC_ERR_ORDER, "SimXDMFAddGridField: '%s' has no uniform grid", x->path);
  PetscCall(VecGetDM(v, &da));
  PetscCheck(da, x->comm, PETSC_ERR_ARG_WRONG, "SimXDMFAddGridField: field '%s' is not a DMDA vector", name);
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(dim == x->dim && M == x->n[0] && N == x->n[1] && (dim == 2 || P == x->n[2]), x->comm, PETSC_ERR_ARG_SIZ,
             "SimXDMFAddGridField: field '%s' is not on the grid's cells", name);
  /* a copy of the Vec's name: PetscObjectGetName lends the object's own string, which SetName frees */
  PetscCall(PetscObjectGetName((PetscObject)v, &name_v));
  PetscCall(PetscStrallocpy(name_v, &old));
  PetscCall(PetscObjectSetName((PetscObject)v, name));
  PetscCall(VecView(v, x->viewer)); /* the DMDA's viewer: natural order, (P,) N x M (x dof) */
  PetscCall(PetscObjectSetName((PetscObject)v, old));
  PetscCall(PetscFree(old));
  if (dim == 3) PetscCall(PetscSNPrintf(dims, sizeof(dims), "%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT, P, N, M));
  else PetscCall(PetscSNPrintf(dims, sizeof(dims), "%" PetscInt_FMT " %" PetscInt_FMT, N, M));
  if (dof > 1) {
    size_t len;
    PetscCall(PetscStrlen(dims, &len));
    PetscCall(PetscSNPrintf(dims + len, sizeof(dims) - len, " %" PetscInt_FMT, dof));
  }
  PetscCall(Attribute(x, name, dof, "Cell", dims));
  PetscFunctionReturn(0);
}

/* path.tmp written with text, renamed to path; rank 0. */
static PetscErrorCode WriteText(const char *path, const char *head, const char *body, size_t blen, const char *tail)
{
  char tmp[PETSC_MAX_PATH_LEN];
  FILE *fp;
  int failed, err;

  PetscFunctionBeginUser;
  PetscCheck(snprintf(tmp, sizeof(tmp), "%s.tmp", path) < (int)sizeof(tmp), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Output path '%s' is too long", path);
  fp = fopen(tmp, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open '%s' for writing: %s", path, strerror(errno));
  fputs(head, fp);
  if (blen) fwrite(body, 1, blen, fp);
  fputs(tail, fp);
  failed = ferror(fp);
  err = failed ? errno : 0;
  if (fclose(fp) && !failed) failed = 1, err = errno;
  if (failed) remove(tmp);
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write '%s': %s", path, strerror(err));
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
  PetscFunctionReturn(0);
}

static const char xmf_head[] = "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n  <Domain>\n";

PetscErrorCode SimXDMFClose(SimXDMF *px)
{
  SimXDMF x = px ? *px : NULL;

  PetscFunctionBeginUser;
  if (!x) PetscFunctionReturn(0);
  PetscCheck(x->topo != TOPO_NONE, x->comm, PETSC_ERR_ORDER, "SimXDMF: '%s' was closed without a topology", x->path);
  PetscCall(PetscViewerDestroy(&x->viewer));
  PetscCallMPI(MPI_Barrier(x->comm));
  if (!x->rank) {
    char head[512];
    PetscCheck(rename(x->h5tmp, x->h5) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename '%s' to '%s': %s", x->h5tmp, x->h5, strerror(errno));
    PetscCall(PetscSNPrintf(head, sizeof(head), "%s    <Grid Name=\"frame\" GridType=\"Uniform\">\n", xmf_head));
    PetscCall(WriteText(x->path, head, x->xml, x->len, "    </Grid>\n  </Domain>\n</Xdmf>\n"));
  }
  PetscCallMPI(MPI_Barrier(x->comm));
  PetscCall(PetscFree(x->xml));
  PetscCall(PetscFree(*px));
  PetscFunctionReturn(0);
}

struct _p_SimXDMFSeries {
  char path[PETSC_MAX_PATH_LEN];
  char dir[PETSC_MAX_PATH_LEN];
};

static const char series_tail[] = "    </Grid>\n  </Domain>\n</Xdmf>\n";

PetscErrorCode SimXDMFSeriesCreate(const char *path, SimXDMFSeries *s)
{
  char head[512];
  const char *slash;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(head, sizeof(head), "%s    <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", xmf_head));
  PetscCall(WriteText(path, head, NULL, 0, series_tail));
  PetscCall(PetscNew(s));
  PetscCall(PetscStrncpy((*s)->path, path, sizeof((*s)->path)));
  slash = strrchr(path, '/');
  if (slash) PetscCall(PetscStrncpy((*s)->dir, path, PetscMin((size_t)(slash - path) + 2, sizeof((*s)->dir))));
  PetscFunctionReturn(0);
}

/* Copies the frame's Grid element into the collection, with its time, before the closing tags. */
PetscErrorCode SimXDMFSeriesAdd(SimXDMFSeries s, PetscReal time, const char *file)
{
  char fpath[PETSC_MAX_PATH_LEN], *buf = NULL, *begin, *open_end, *end;
  FILE *fp;
  long n;
  int failed, err;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(fpath, sizeof(fpath), "%s%s", s->dir, file));
  fp = fopen(fpath, "rb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot read the frame '%s': %s", fpath, strerror(errno));
  failed = fseek(fp, 0, SEEK_END) || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET);
  if (!failed) {
    PetscCall(PetscMalloc1(n + 1, &buf));
    failed = fread(buf, 1, (size_t)n, fp) != (size_t)n;
    buf[failed ? 0 : n] = 0;
  }
  fclose(fp);
  begin = buf ? strstr(buf, "    <Grid ") : NULL;
  open_end = begin ? strchr(begin, '\n') : NULL;
  end = begin ? strstr(begin, "    </Grid>\n") : NULL;
  if (failed || !open_end || !end) PetscCall(PetscFree(buf));
  PetscCheck(!failed && open_end && end, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "'%s' is not an XDMF frame", fpath);
  fp = fopen(s->path, "r+b");
  if (!fp) PetscCall(PetscFree(buf));
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open '%s' to add a frame: %s", s->path, strerror(errno));
  failed = fseek(fp, -(long)(sizeof(series_tail) - 1), SEEK_END);
  if (!failed) {
    end += strlen("    </Grid>\n");
    fwrite(begin, 1, (size_t)(open_end + 1 - begin), fp);
    fprintf(fp, "      <Time Value=\"%.17g\"/>\n", (double)time);
    fwrite(open_end + 1, 1, (size_t)(end - open_end - 1), fp);
    fputs(series_tail, fp);
    failed = ferror(fp);
  }
  err = failed ? errno : 0;
  if (fclose(fp) && !failed) failed = 1, err = errno;
  PetscCall(PetscFree(buf));
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot add a frame to '%s': %s", s->path, strerror(err));
  PetscFunctionReturn(0);
}

PetscErrorCode SimXDMFSeriesDestroy(SimXDMFSeries *s)
{
  PetscFunctionBeginUser;
  if (!s || !*s) PetscFunctionReturn(0);
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(0);
}
