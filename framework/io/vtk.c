/* ParaView output: binary appended-raw .vtu frames of a Lagrangian model and the .pvd index. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "framework/io/vtk.h"

/* Points, velocities and masses are written as Float64 straight from PetscReal arrays. */
_Static_assert(sizeof(PetscReal) == 8, "the VTK writer stores PetscReal arrays as Float64");

/* VTK cell type ids (vtkCellType.h). */
enum { VTK_VERTEX = 1, VTK_LINE = 3, VTK_TRIANGLE = 5, VTK_TETRA = 10 };

/* One array of the appended section: its bytes and its offset from the '_' marker. */
typedef struct {
  const void *data;
  size_t bytes;
  size_t offset;
} VTUBlock;

/* The appended blocks, in the order they follow the '_' marker (points first, so that a reader
 * finds the positions at offset 0). */
enum { BLK_POINTS, BLK_CONN, BLK_OFFSETS, BLK_TYPES, BLK_VELOCITY, BLK_MASS, BLK_PINNED, NBLK };

static const char *ByteOrder(void)
{
  const uint16_t probe = 1;
  return *(const uint8_t *)&probe ? "LittleEndian" : "BigEndian";
}

/* path + ".tmp": frames and the index are written there first and renamed into place. */
static PetscErrorCode TmpPath(const char *path, char tmp[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCheck(snprintf(tmp, PETSC_MAX_PATH_LEN, "%s.tmp", path) < PETSC_MAX_PATH_LEN,
             PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Output path '%s' is too long", path);
  PetscFunctionReturn(0);
}

/* Closes fp, and renames tmp to path if every write succeeded; otherwise removes tmp and reports
 * the first failure with the file's name. */
static PetscErrorCode CommitFile(FILE *fp, const char *tmp, const char *path)
{
  int failed, err;

  PetscFunctionBeginUser;
  failed = ferror(fp);
  err = failed ? errno : 0;
  if (fclose(fp) && !failed) {
    failed = 1;
    err = errno;
  }
  if (failed) remove(tmp);
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write '%s': %s", path,
             strerror(err));
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE,
             "Cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
  PetscFunctionReturn(0);
}

/* Opens tmp, but names path on failure: that is the name the user chose. */
static PetscErrorCode OpenForWriting(const char *tmp, const char *path, FILE **fp)
{
  PetscFunctionBeginUser;
  *fp = fopen(tmp, "wb");
  PetscCheck(*fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open '%s' for writing: %s", path,
             strerror(errno));
  PetscFunctionReturn(0);
}

/* The output topology by kind; a model without any gets one VTK_VERTEX cell per vertex so that
 * ParaView still shows the particles. */
typedef struct {
  PetscInt n, nvert;
  const PetscInt *idx; /* n*nvert vertex indices, NULL for the per-vertex cells */
  uint8_t type;
} CellKind;

static PetscInt CellKinds(SimModel model, CellKind kinds[3])
{
  kinds[0] = (CellKind){model->ntri, 3, model->tri, VTK_TRIANGLE};
  kinds[1] = (CellKind){model->nseg, 2, model->seg, VTK_LINE};
  kinds[2] = (CellKind){model->ntet, 4, model->tet, VTK_TETRA};
  if (model->ntri + model->nseg + model->ntet > 0) return 3;
  kinds[0] = (CellKind){model->nv, 1, NULL, VTK_VERTEX};
  return 1;
}

static void CellCounts(SimModel model, PetscInt *ncell, PetscInt *nconn)
{
  CellKind kinds[3];
  PetscInt nk = CellKinds(model, kinds);

  *ncell = *nconn = 0;
  for (PetscInt s = 0; s < nk; s++) {
    *ncell += kinds[s].n;
    *nconn += kinds[s].n * kinds[s].nvert;
  }
}

/* Cells in VTK's flat form: connectivity, end offsets, types (arrays of ncell/nconn entries). */
static void FillCells(SimModel model, int64_t *conn, int64_t *offsets, uint8_t *types)
{
  CellKind kinds[3];
  PetscInt nk = CellKinds(model, kinds), c = 0, k = 0;

  for (PetscInt s = 0; s < nk; s++) {
    for (PetscInt e = 0; e < kinds[s].n; e++, c++) {
      for (PetscInt j = 0; j < kinds[s].nvert; j++, k++)
        conn[k] = kinds[s].idx ? kinds[s].idx[e * kinds[s].nvert + j] : e;
      offsets[c] = k;
      types[c] = kinds[s].type;
    }
  }
}

static void WriteArrayTag(FILE *fp, const char *type, const char *name, int ncomp, size_t offset)
{
  fprintf(fp, "        <DataArray type=\"%s\" Name=\"%s\"", type, name);
  if (ncomp > 1) fprintf(fp, " NumberOfComponents=\"%d\"", ncomp);
  fprintf(fp, " format=\"appended\" offset=\"%zu\"/>\n", offset);
}

/* The XML header, then the appended section: '_', and per block a UInt32 byte count and the bytes.
 * Write errors are collected by the stream and checked once in CommitFile. */
static void WriteVTU(FILE *fp, PetscInt nv, PetscInt ncell, const VTUBlock blk[NBLK])
{
  fprintf(fp, "<?xml version=\"1.0\"?>\n");
  fprintf(fp,
          "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" "
          "header_type=\"UInt32\">\n",
          ByteOrder());
  fprintf(fp, "  <UnstructuredGrid>\n");
  fprintf(fp,
          "    <Piece NumberOfPoints=\"%" PetscInt_FMT "\" NumberOfCells=\"%" PetscInt_FMT "\">\n",
          nv, ncell);
  fprintf(fp, "      <PointData Vectors=\"velocity\" Scalars=\"mass\">\n");
  WriteArrayTag(fp, "Float64", "velocity", 3, blk[BLK_VELOCITY].offset);
  WriteArrayTag(fp, "Float64", "mass", 1, blk[BLK_MASS].offset);
  WriteArrayTag(fp, "UInt8", "pinned", 1, blk[BLK_PINNED].offset);
  fprintf(fp, "      </PointData>\n      <Points>\n");
  WriteArrayTag(fp, "Float64", "Points", 3, blk[BLK_POINTS].offset);
  fprintf(fp, "      </Points>\n      <Cells>\n");
  WriteArrayTag(fp, "Int64", "connectivity", 1, blk[BLK_CONN].offset);
  WriteArrayTag(fp, "Int64", "offsets", 1, blk[BLK_OFFSETS].offset);
  WriteArrayTag(fp, "UInt8", "types", 1, blk[BLK_TYPES].offset);
  fprintf(fp, "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n");
  fprintf(fp, "  <AppendedData encoding=\"raw\">\n_");
  for (int b = 0; b < NBLK; b++) {
    const uint32_t nbytes = (uint32_t)blk[b].bytes;
    fwrite(&nbytes, sizeof(nbytes), 1, fp);
    if (blk[b].bytes) fwrite(blk[b].data, 1, blk[b].bytes, fp);
  }
  fprintf(fp, "\n  </AppendedData>\n</VTKFile>\n");
}

PetscErrorCode SimVTKWriteFrame(SimModel model, const PetscReal *x, const PetscReal *v,
                                const char *path)
{
  const PetscReal *mdof;
  const PetscInt *nat = model->natural;
  PetscReal *mass, *xn = NULL, *vn = NULL;
  uint8_t *pinned, *types;
  int64_t *conn, *offsets;
  PetscInt nv = model->nv, ncell, nconn;
  VTUBlock blk[NBLK];
  char tmp[PETSC_MAX_PATH_LEN];
  size_t offset = 0;
  FILE *fp;

  PetscFunctionBeginUser;
  PetscCheck(x && v && path, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "SimVTKWriteFrame needs positions, velocities and a path");
  PetscCall(TmpPath(path, tmp));
  CellCounts(model, &ncell, &nconn);
  /* header_type UInt32 caps each array at 4 GiB; the largest are the Float64 vectors and the
   * connectivity. */
  PetscCheck(3 * (size_t)nv * sizeof(PetscReal) <= UINT32_MAX &&
                 (size_t)nconn * sizeof(int64_t) <= UINT32_MAX,
             PETSC_COMM_SELF, PETSC_ERR_SUP,
             "Cannot write '%s': the model is too large for the UInt32 array headers of a VTU file",
             path);
  /* Open before allocating, so that the common failure (a bad directory) leaves nothing behind. */
  PetscCall(OpenForWriting(tmp, path, &fp));

  PetscCall(PetscMalloc3(nconn, &conn, ncell, &offsets, ncell, &types));
  FillCells(model, conn, offsets, types);
  /* Per-vertex mass: the model stores it per DOF (m_i three times). Everything goes out in the
   * input ("natural") vertex order, so frames of a renumbered (distributed) run and of a serial
   * one are directly comparable: vertex i is written at natural[i], cells keep their order. */
  PetscCall(PetscMalloc2(nv, &mass, nv, &pinned));
  PetscCall(VecGetArrayRead(model->mass, &mdof));
  for (PetscInt i = 0; i < nv; i++) {
    const PetscInt o = nat ? nat[i] : i;
    mass[o] = mdof[3 * i];
    pinned[o] = model->pinned && model->pinned[i] ? 1 : 0;
  }
  PetscCall(VecRestoreArrayRead(model->mass, &mdof));
  if (nat) {
    PetscCall(PetscMalloc2(3 * nv, &xn, 3 * nv, &vn));
    for (PetscInt i = 0; i < nv; i++)
      for (int d = 0; d < 3; d++) {
        xn[3 * nat[i] + d] = x[3 * i + d];
        vn[3 * nat[i] + d] = v[3 * i + d];
      }
    for (PetscInt k = 0; k < nconn; k++) conn[k] = nat[conn[k]];
    x = xn;
    v = vn;
  }

  blk[BLK_POINTS] = (VTUBlock){x, 3 * (size_t)nv * sizeof(PetscReal), 0};
  blk[BLK_CONN] = (VTUBlock){conn, (size_t)nconn * sizeof(int64_t), 0};
  blk[BLK_OFFSETS] = (VTUBlock){offsets, (size_t)ncell * sizeof(int64_t), 0};
  blk[BLK_TYPES] = (VTUBlock){types, (size_t)ncell, 0};
  blk[BLK_VELOCITY] = (VTUBlock){v, 3 * (size_t)nv * sizeof(PetscReal), 0};
  blk[BLK_MASS] = (VTUBlock){mass, (size_t)nv * sizeof(PetscReal), 0};
  blk[BLK_PINNED] = (VTUBlock){pinned, (size_t)nv, 0};
  for (int b = 0; b < NBLK; b++) {
    blk[b].offset = offset;
    offset += sizeof(uint32_t) + blk[b].bytes;
  }
  WriteVTU(fp, nv, ncell, blk);
  PetscCall(PetscFree2(mass, pinned));
  PetscCall(PetscFree2(xn, vn));
  PetscCall(PetscFree3(conn, offsets, types));
  PetscCall(CommitFile(fp, tmp, path));
  PetscFunctionReturn(0);
}

/* A point cloud: the points as VTK_VERTEX cells, each field as Float64 point data. */
PetscErrorCode SimVTKWritePoints(const char *path, PetscInt n, const PetscReal *xyz, PetscInt nfields, const SimVTKField fields[])
{
  char tmp[PETSC_MAX_PATH_LEN];
  int64_t *conn, *offsets;
  uint8_t *types;
  size_t offset = 0, nbytes;
  FILE *fp;

  PetscFunctionBeginUser;
  PetscCheck(3 * (size_t)n * sizeof(PetscReal) <= UINT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "Cannot write '%s': %" PetscInt_FMT " points are too many for the UInt32 array headers of a VTU file", path, n);
  PetscCall(TmpPath(path, tmp));
  PetscCall(OpenForWriting(tmp, path, &fp));
  PetscCall(PetscMalloc3(n, &conn, n, &offsets, n, &types));
  for (PetscInt i = 0; i < n; i++) conn[i] = i, offsets[i] = i + 1, types[i] = VTK_VERTEX;
  fprintf(fp, "<?xml version=\"1.0\"?>\n");
  fprintf(fp, "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt32\">\n", ByteOrder());
  fprintf(fp, "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"%" PetscInt_FMT "\" NumberOfCells=\"%" PetscInt_FMT "\">\n", n, n);
  fprintf(fp, "      <PointData>\n");
  for (PetscInt f = 0; f < nfields; f++) {
    WriteArrayTag(fp, "Float64", fields[f].name, (int)fields[f].ncomp, offset);
    offset += sizeof(uint32_t) + (size_t)n * fields[f].ncomp * sizeof(PetscReal);
  }
  fprintf(fp, "      </PointData>\n      <Points>\n");
  WriteArrayTag(fp, "Float64", "Points", 3, offset);
  offset += sizeof(uint32_t) + 3 * (size_t)n * sizeof(PetscReal);
  fprintf(fp, "      </Points>\n      <Cells>\n");
  WriteArrayTag(fp, "Int64", "connectivity", 1, offset);
  offset += sizeof(uint32_t) + (size_t)n * sizeof(int64_t);
  WriteArrayTag(fp, "Int64", "offsets", 1, offset);
  offset += sizeof(uint32_t) + (size_t)n * sizeof(int64_t);
  WriteArrayTag(fp, "UInt8", "types", 1, offset);
  fprintf(fp, "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n_");
  for (PetscInt f = 0; f < nfields; f++) {
    uint32_t b = (uint32_t)((size_t)n * fields[f].ncomp * sizeof(PetscReal));
    fwrite(&b, sizeof(b), 1, fp);
    if (b) fwrite(fields[f].data, 1, b, fp);
  }
  {
    const void *data[4] = {xyz, conn, offsets, types};
    const size_t size[4] = {3 * sizeof(PetscReal), sizeof(int64_t), sizeof(int64_t), 1};
    for (int k = 0; k < 4; k++) {
      uint32_t b = (uint32_t)(nbytes = (size_t)n * size[k]);
      fwrite(&b, sizeof(b), 1, fp);
      if (nbytes) fwrite(data[k], 1, nbytes, fp);
    }
  }
  fprintf(fp, "\n  </AppendedData>\n</VTKFile>\n");
  PetscCall(PetscFree3(conn, offsets, types));
  PetscCall(CommitFile(fp, tmp, path));
  PetscFunctionReturn(0);
}

struct _p_SimPVD {
  char path[PETSC_MAX_PATH_LEN];
  PetscInt n; /* entries written */
};

/* The text after the last entry: SimPVDAdd seeks back over it, writes the entry and puts it back. */
static const char pvd_tail[] = "  </Collection>\n</VTKFile>\n";

/* File names go into an XML attribute: escape the characters that would end or break it. */
static void WriteEscaped(FILE *fp, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '&':
      fputs("&amp;", fp);
      break;
    case '<':
      fputs("&lt;", fp);
      break;
    case '>':
      fputs("&gt;", fp);
      break;
    case '"':
      fputs("&quot;", fp);
      break;
    default:
      fputc(*s, fp);
    }
  }
}

/* An empty collection, written to a temporary name and renamed, so the index is valid from the start. */
PetscErrorCode SimPVDCreate(const char *path, SimPVD *pvd)
{
  char tmp[PETSC_MAX_PATH_LEN];
  FILE *fp;

  PetscFunctionBeginUser;
  PetscCheck(path && strlen(path) < PETSC_MAX_PATH_LEN, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "SimPVDCreate needs a path shorter than %d characters", PETSC_MAX_PATH_LEN);
  PetscCall(TmpPath(path, tmp));
  PetscCall(OpenForWriting(tmp, path, &fp));
  fprintf(fp, "<?xml version=\"1.0\"?>\n");
  fprintf(fp, "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"%s\">\n", ByteOrder());
  fprintf(fp, "  <Collection>\n%s", pvd_tail);
  PetscCall(CommitFile(fp, tmp, path));
  PetscCall(PetscNew(pvd));
  PetscCall(PetscStrncpy((*pvd)->path, path, sizeof((*pvd)->path)));
  PetscFunctionReturn(0);
}

/* Appends one entry in place: O(1) per frame however long the series, and the file ends with the
 * closing tags after every call. */
PetscErrorCode SimPVDAdd(SimPVD pvd, PetscReal time, const char *file)
{
  FILE *fp;
  int failed, err;

  PetscFunctionBeginUser;
  PetscCheck(file, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "SimPVDAdd needs a file name for '%s'", pvd->path);
  fp = fopen(pvd->path, "r+b");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open '%s' to add a frame: %s", pvd->path, strerror(errno));
  failed = fseek(fp, -(long)(sizeof(pvd_tail) - 1), SEEK_END);
  if (!failed) {
    fprintf(fp, "    <DataSet timestep=\"%.12g\" group=\"\" part=\"0\" file=\"", (double)time);
    WriteEscaped(fp, file);
    fprintf(fp, "\"/>\n%s", pvd_tail);
    failed = ferror(fp);
  }
  err = failed ? errno : 0;
  if (fclose(fp) && !failed) failed = 1, err = errno;
  PetscCheck(!failed, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot add a frame to '%s': %s", pvd->path, strerror(err));
  pvd->n++;
  PetscFunctionReturn(0);
}

PetscErrorCode SimPVDDestroy(SimPVD *pvd)
{
  PetscFunctionBeginUser;
  if (!pvd || !*pvd) PetscFunctionReturn(0);
  PetscCall(PetscFree(*pvd));
  PetscFunctionReturn(0);
}
