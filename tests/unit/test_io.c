/* Unit tests of the output writers: VTU frames and the PVD index, the CSV log, PNG snapshots and
 * the progress line, each read back and checked. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cairo.h>
#include <petsctime.h>
#include "testing.h"
#include "framework/io/csvlog.h"
#include "framework/io/png.h"
#include "framework/io/progress.h"
#include "framework/io/vtk.h"
#include "framework/text.h"

/* A unit square, slightly tilted so that it is not seen edge-on, split into two triangles. */
static const PetscReal kQuadXYZ[12] = {0, 0, 0, 1, 0.1, 0, 1, 0.3, 1, 0, 0.2, 1};
static const PetscInt kQuadTri[6] = {0, 1, 2, 0, 2, 3};

/* ---- scratch files ---- */

/* A fresh directory per test, so that tests never see each other's files. */
static void MakeTempDir(char dir[PETSC_MAX_PATH_LEN])
{
  snprintf(dir, PETSC_MAX_PATH_LEN, "/tmp/pbsim_test_io_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void RemoveTempDir(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  char path[PETSC_MAX_PATH_LEN];

  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  ck_assert_int_eq(rmdir(dir), 0);
}

static void JoinPath(char out[PETSC_MAX_PATH_LEN], const char *dir, const char *name)
{
  ck_assert_int_lt(snprintf(out, PETSC_MAX_PATH_LEN, "%s/%s", dir, name), PETSC_MAX_PATH_LEN);
}

/* The whole file, NUL-terminated (binary content may hold NULs: use *len). Caller frees. */
static char *ReadWholeFile(const char *path, size_t *len)
{
  FILE *fp = fopen(path, "rb");
  char *buf;
  long n;

  ck_assert_msg(fp != NULL, "cannot open '%s'", path);
  ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
  n = ftell(fp);
  ck_assert_int_ge(n, 0);
  rewind(fp);
  buf = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(buf);
  ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
  buf[n] = 0;
  fclose(fp);
  if (len) *len = (size_t)n;
  return buf;
}

static int CountOccurrences(const char *text, const char *needle)
{
  int n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

static PetscBool FileExists(const char *path)
{
  return access(path, F_OK) == 0 ? PETSC_TRUE : PETSC_FALSE;
}

/* ---- models ---- */

static SimModel QuadModel(void)
{
  SimModel m;

  CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &m));
  CHECK_PETSC(SimModelSetVertices(m, 4, kQuadXYZ));
  for (PetscInt i = 0; i < 4; i++)
    CHECK_PETSC(SimModelSetVertexMass(m, i, 0.25 * (i + 1)));
  CHECK_PETSC(SimModelSetTopology(m, 2, kQuadTri, 0, NULL, 0, NULL));
  CHECK_PETSC(SimModelPin(m, 0, "test"));
  CHECK_PETSC(SimModelFinalize(m));
  return m;
}

/* Vertices only (no output topology), as a particle model would have. */
static SimModel PointModel(PetscInt nv, const PetscReal *xyz)
{
  SimModel m;

  CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &m));
  CHECK_PETSC(SimModelSetVertices(m, nv, xyz));
  for (PetscInt i = 0; i < nv; i++)
    CHECK_PETSC(SimModelSetVertexMass(m, i, 1.0));
  CHECK_PETSC(SimModelFinalize(m));
  return m;
}

/* An n x n cloth (2 n^2 triangles) in the xz-plane with a gentle wave, two corners pinned.
 * *xyz is the caller's copy of the positions (free with PetscFree). */
static SimModel ClothModel(PetscInt n, PetscReal **xyz)
{
  const PetscInt nv = (n + 1) * (n + 1);
  PetscInt *tri, k = 0;
  SimModel m;

  CHECK_PETSC(PetscMalloc1(3 * nv, xyz));
  CHECK_PETSC(PetscMalloc1(6 * n * n, &tri));
  for (PetscInt j = 0; j <= n; j++)
    for (PetscInt i = 0; i <= n; i++) {
      const PetscInt v = j * (n + 1) + i;
      (*xyz)[3 * v] = (PetscReal)i / n;
      (*xyz)[3 * v + 1] = 0.05 * PetscSinReal(6.0 * i / n) * PetscCosReal(4.0 * j / n);
      (*xyz)[3 * v + 2] = (PetscReal)j / n;
    }
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      const PetscInt quad[6] = {a, b, d, a, d, c};
      for (int q = 0; q < 6; q++)
        tri[k++] = quad[q];
    }
  CHECK_PETSC(SimModelCreate(PETSC_COMM_SELF, &m));
  CHECK_PETSC(SimModelSetVertices(m, nv, *xyz));
  for (PetscInt i = 0; i < nv; i++)
    CHECK_PETSC(SimModelSetVertexMass(m, i, 1.0 / nv));
  CHECK_PETSC(SimModelSetTopology(m, 2 * n * n, tri, 0, NULL, 0, NULL));
  CHECK_PETSC(SimModelPin(m, 0, "test"));
  CHECK_PETSC(SimModelPin(m, n, "test"));
  CHECK_PETSC(SimModelFinalize(m));
  CHECK_PETSC(PetscFree(tri));
  return m;
}

/* ---- VTU parsing ---- */

/* Start of the appended data: the byte after the '_' marker. */
static const unsigned char *AppendedStart(const char *buf)
{
  const char *tag = strstr(buf, "<AppendedData encoding=\"raw\">");
  const char *mark;

  ck_assert_ptr_nonnull(tag);
  mark = strchr(tag, '_');
  ck_assert_ptr_nonnull(mark);
  return (const unsigned char *)mark + 1;
}

/* The offset attribute of the DataArray named `name`. */
static size_t ArrayOffset(const char *buf, const char *name)
{
  char key[64];
  const char *tag, *off, *end;

  snprintf(key, sizeof(key), "Name=\"%s\"", name);
  tag = strstr(buf, key);
  ck_assert_msg(tag != NULL, "no DataArray %s", name);
  end = strstr(tag, "/>");
  off = strstr(tag, "offset=\"");
  ck_assert_msg(off && off < end, "DataArray %s has no offset", name);
  return (size_t)strtoul(off + 8, NULL, 10);
}

/* One appended block: checks it lies inside the file and returns its byte count and data. */
static const unsigned char *Block(const char *buf, size_t len, size_t offset, uint32_t *nbytes)
{
  const unsigned char *p = AppendedStart(buf) + offset;

  ck_assert((size_t)(p - (const unsigned char *)buf) + 4 <= len);
  memcpy(nbytes, p, 4);
  ck_assert((size_t)(p - (const unsigned char *)buf) + 4 + *nbytes <= len);
  return p + 4;
}

static PetscReal BlockReal(const unsigned char *data, PetscInt i)
{
  double d;
  memcpy(&d, data + 8 * i, 8);
  return d;
}

static int64_t BlockInt64(const unsigned char *data, PetscInt i)
{
  int64_t k;
  memcpy(&k, data + 8 * i, 8);
  return k;
}

/* The file ends with the closing root tag (trailing whitespace allowed): it was not truncated. */
static void AssertEndsWithVTKFile(const char *buf, size_t len)
{
  while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
    len--;
  ck_assert_uint_ge(len, 10);
  ck_assert_msg(!memcmp(buf + len - 10, "</VTKFile>", 10), "file does not end with </VTKFile>");
}

START_TEST(test_vtu_quad)
{
  const PetscReal v[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  char dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 8];
  const unsigned char *data;
  uint32_t nbytes;
  size_t len;
  SimModel m = QuadModel();
  char *buf;

  MakeTempDir(dir);
  JoinPath(path, dir, "frame_0001.vtu");
  CHECK_PETSC(SimVTKWriteFrame(m, kQuadXYZ, v, path));
  snprintf(tmp, sizeof(tmp), "%s.tmp", path);
  ck_assert_msg(!FileExists(tmp), "the temporary file was left behind");

  buf = ReadWholeFile(path, &len);
  ck_assert_msg(!strncmp(buf, "<?xml", 5), "VTU does not start with <?xml");
  ck_assert_ptr_nonnull(strstr(buf, "<VTKFile type=\"UnstructuredGrid\""));
  ck_assert_ptr_nonnull(strstr(buf, "byte_order=\"LittleEndian\""));
  ck_assert_ptr_nonnull(strstr(buf, "header_type=\"UInt32\""));
  ck_assert_ptr_nonnull(strstr(buf, "NumberOfPoints=\"4\""));
  ck_assert_ptr_nonnull(strstr(buf, "NumberOfCells=\"2\""));
  AssertEndsWithVTKFile(buf, len);

  /* The first appended block is the points: 3*nv Float64 equal to the positions. */
  data = Block(buf, len, 0, &nbytes);
  ck_assert_uint_eq(nbytes, 3 * 4 * 8);
  for (PetscInt k = 0; k < 12; k++)
    ck_assert_double_eq(BlockReal(data, k), kQuadXYZ[k]);
  ck_assert_uint_eq(ArrayOffset(buf, "Points"), 0);

  /* Every other array found through its offset attribute. */
  data = Block(buf, len, ArrayOffset(buf, "velocity"), &nbytes);
  ck_assert_uint_eq(nbytes, 12 * 8);
  for (PetscInt k = 0; k < 12; k++)
    ck_assert_double_eq(BlockReal(data, k), v[k]);
  data = Block(buf, len, ArrayOffset(buf, "mass"), &nbytes);
  ck_assert_uint_eq(nbytes, 4 * 8);
  for (PetscInt i = 0; i < 4; i++)
    ck_assert_double_eq(BlockReal(data, i), 0.25 * (i + 1));
  data = Block(buf, len, ArrayOffset(buf, "pinned"), &nbytes);
  ck_assert_uint_eq(nbytes, 4);
  ck_assert_int_eq(data[0], 1);
  ck_assert_int_eq(data[1] + data[2] + data[3], 0);
  data = Block(buf, len, ArrayOffset(buf, "connectivity"), &nbytes);
  ck_assert_uint_eq(nbytes, 6 * 8);
  for (PetscInt k = 0; k < 6; k++)
    ck_assert_int_eq(BlockInt64(data, k), kQuadTri[k]);
  data = Block(buf, len, ArrayOffset(buf, "offsets"), &nbytes);
  ck_assert_uint_eq(nbytes, 2 * 8);
  ck_assert_int_eq(BlockInt64(data, 0), 3);
  ck_assert_int_eq(BlockInt64(data, 1), 6);
  data = Block(buf, len, ArrayOffset(buf, "types"), &nbytes);
  ck_assert_uint_eq(nbytes, 2);
  ck_assert_int_eq(data[0], 5);
  ck_assert_int_eq(data[1], 5);

  free(buf);
  CHECK_PETSC(SimModelDestroy(&m));
  RemoveTempDir(dir);
}
END_TEST

START_TEST(test_vtu_points_only)
{
  const PetscReal xyz[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, v[9] = {0};
  char dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  const unsigned char *data;
  uint32_t nbytes;
  size_t len;
  SimModel m = PointModel(3, xyz);
  char *buf;

  MakeTempDir(dir);
  JoinPath(path, dir, "p.vtu");
  CHECK_PETSC(SimVTKWriteFrame(m, xyz, v, path));
  buf = ReadWholeFile(path, &len);
  ck_assert_ptr_nonnull(strstr(buf, "NumberOfPoints=\"3\""));
  ck_assert_ptr_nonnull(strstr(buf, "NumberOfCells=\"3\""));
  data = Block(buf, len, ArrayOffset(buf, "types"), &nbytes);
  ck_assert_uint_eq(nbytes, 3);
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(data[i], 1); /* VTK_VERTEX */
  data = Block(buf, len, ArrayOffset(buf, "connectivity"), &nbytes);
  ck_assert_uint_eq(nbytes, 3 * 8);
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(BlockInt64(data, i), i);
  free(buf);
  CHECK_PETSC(SimModelDestroy(&m));
  RemoveTempDir(dir);
}
END_TEST

START_TEST(test_pvd)
{
  char dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], *buf, *prev;
  size_t len, prevlen;
  SimPVD pvd;
  const size_t tail = strlen("  </Collection>\n</VTKFile>\n");

  MakeTempDir(dir);
  JoinPath(path, dir, "run.pvd");
  CHECK_PETSC(SimPVDCreate(path, &pvd));
  /* Valid from the start (an empty series) and after every add, not only at the end of the run. */
  buf = ReadWholeFile(path, &len);
  ck_assert_int_eq(CountOccurrences(buf, "<DataSet "), 0);
  AssertEndsWithVTKFile(buf, len);
  free(buf);
  CHECK_PETSC(SimPVDAdd(pvd, 0.0, "frame_0000.vtu"));
  buf = ReadWholeFile(path, &len);
  ck_assert_int_eq(CountOccurrences(buf, "<DataSet "), 1);
  AssertEndsWithVTKFile(buf, len);
  prev = buf, prevlen = len;
  CHECK_PETSC(SimPVDAdd(pvd, 0.1, "frame_0001.vtu"));
  /* Appended in place: everything before the closing tags is kept byte for byte. */
  buf = ReadWholeFile(path, &len);
  ck_assert_msg(len > prevlen && !memcmp(buf, prev, prevlen - tail), "the earlier entries were rewritten");
  free(buf);
  free(prev);
  CHECK_PETSC(SimPVDAdd(pvd, 0.2, "frame_0002.vtu"));

  buf = ReadWholeFile(path, &len);
  ck_assert_msg(!strncmp(buf, "<?xml", 5), "PVD does not start with <?xml");
  ck_assert_ptr_nonnull(strstr(buf, "<VTKFile type=\"Collection\""));
  ck_assert_ptr_nonnull(strstr(buf, "<Collection>"));
  ck_assert_ptr_nonnull(strstr(buf, "</Collection>"));
  ck_assert_int_eq(CountOccurrences(buf, "<DataSet "), 3);
  ck_assert_int_eq(CountOccurrences(buf, "/>"), 3);
  ck_assert_ptr_nonnull(
      strstr(buf, "timestep=\"0.1\" group=\"\" part=\"0\" file=\"frame_0001.vtu\""));
  ck_assert_ptr_nonnull(
      strstr(buf, "timestep=\"0.2\" group=\"\" part=\"0\" file=\"frame_0002.vtu\""));
  ck_assert(strstr(buf, "frame_0000") < strstr(buf, "frame_0002"));
  AssertEndsWithVTKFile(buf, len);
  free(buf);
  CHECK_PETSC(SimPVDDestroy(&pvd));
  ck_assert_ptr_null(pvd);
  CHECK_PETSC(SimPVDDestroy(NULL));
  RemoveTempDir(dir);
}
END_TEST

/* ---- CSV ---- */

static int CountColumns(const char *line)
{
  int n = 1;
  for (; *line && *line != '\n'; line++)
    n += *line == ',';
  return n;
}

/* Column `col` (0-based) of a row, as a number. */
static double Column(const char *line, int col)
{
  for (int c = 0; c < col; c++) {
    line = strchr(line, ',');
    ck_assert_ptr_nonnull(line);
    line++;
  }
  return strtod(line, NULL);
}

START_TEST(test_csv)
{
  const char *header =
      "step,time,dt,kinetic,spring,gravity,potential,total,dissipation_rate,px,py,pz,"
      "nonlinear_its,linear_its,linesearch_cuts,residual,substeps,rejected,wall_ms";
  char dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], *buf, *line, *save = NULL;
  SimEnergyReport rep = {0};
  SimStepStats stats = {0};
  SimCSVLog log;
  int nrows = 0;

  rep.nterms = 2;
  rep.term_name[0] = "spring";
  rep.term_name[1] = "gravity";
  rep.kinetic = 0.1 + 0.2; /* 0.30000000000000004: survives only with 17 digits */
  rep.term[0] = 1.0 / 3.0;
  rep.term[1] = -2.0 / 7.0;
  rep.potential = rep.term[0] + rep.term[1];
  rep.total = rep.kinetic + rep.potential;
  rep.momentum[1] = -1e-300;
  stats.nonlinear_its = 3;
  stats.linear_its = 7;
  stats.linesearch_cuts = 1;
  stats.residual = 1e-9;

  MakeTempDir(dir);
  JoinPath(path, dir, "log.csv");
  CHECK_PETSC(SimCSVLogCreate(path, &rep, &log));
  CHECK_PETSC(SimCSVLogRow(log, 0, 0.0, 0.01, &rep, NULL, 0.0)); /* initial state: no stats yet */
  for (PetscInt s = 1; s <= 4; s++)
    CHECK_PETSC(SimCSVLogRow(log, s, 0.01 * s, 0.01, &rep, &stats, 1.5));

  /* Read before closing: every row must already be flushed. */
  buf = ReadWholeFile(path, NULL);
  line = strtok_r(buf, "\n", &save);
  ck_assert_ptr_nonnull(line);
  ck_assert_str_eq(line, header);
  while ((line = strtok_r(NULL, "\n", &save))) {
    ck_assert_int_eq(CountColumns(line), 19);
    ck_assert_double_eq(Column(line, 0), nrows);
    ck_assert_double_eq(Column(line, 3), rep.kinetic);
    ck_assert_double_eq(Column(line, 4), rep.term[0]);
    ck_assert_double_eq(Column(line, 5), rep.term[1]);
    ck_assert_double_eq(Column(line, 10), rep.momentum[1]);
    ck_assert_double_eq(Column(line, 12), nrows ? 3 : 0);
    ck_assert_double_eq(Column(line, 13), nrows ? 7 : 0);
    ck_assert_double_eq(Column(line, 15), nrows ? 1e-9 : 0);
    nrows++;
  }
  ck_assert_int_eq(nrows, 5);
  free(buf);

  /* A report with other terms than the header's would shift the columns: an error. */
  rep.nterms = 1;
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ck_assert_int_ne(SimCSVLogRow(log, 5, 0.05, 0.01, &rep, &stats, 1.0), 0);
  CHECK_PETSC(PetscPopErrorHandler());

  CHECK_PETSC(SimCSVLogDestroy(&log));
  ck_assert_ptr_null(log);
  CHECK_PETSC(SimCSVLogDestroy(NULL));
  RemoveTempDir(dir);
}
END_TEST

/* ---- PNG ---- */

typedef struct {
  int width, height;
  long background; /* pixels equal to the bottom-right corner's colour */
  long drawn;      /* the others */
  long red;        /* strongly red pixels: pin markers */
} PixelCounts;

/* Loads a PNG back and classifies its pixels against the bottom-right corner (the caption is at
 * the top-left, the model in the middle, so that corner shows the background). */
static PixelCounts CountPixels(const char *path)
{
  cairo_surface_t *img = cairo_image_surface_create_from_png(path);
  PixelCounts c = {0};
  const unsigned char *data;
  uint32_t bg;
  int stride;

  ck_assert_msg(cairo_surface_status(img) == CAIRO_STATUS_SUCCESS, "cannot load '%s'", path);
  cairo_surface_flush(img);
  c.width = cairo_image_surface_get_width(img);
  c.height = cairo_image_surface_get_height(img);
  data = cairo_image_surface_get_data(img);
  stride = cairo_image_surface_get_stride(img);
  memcpy(&bg, data + (size_t)(c.height - 1) * stride + 4 * (c.width - 1), 4);
  /* A light background: every channel of the corner pixel is bright. */
  ck_assert_uint_gt((bg >> 16) & 0xff, 150);
  ck_assert_uint_gt((bg >> 8) & 0xff, 150);
  ck_assert_uint_gt(bg & 0xff, 150);
  for (int y = 0; y < c.height; y++)
    for (int x = 0; x < c.width; x++) {
      uint32_t p;
      unsigned r, g, b;

      memcpy(&p, data + (size_t)y * stride + 4 * x, 4);
      r = (p >> 16) & 0xff;
      g = (p >> 8) & 0xff;
      b = p & 0xff;
      if (p == bg)
        c.background++;
      else
        c.drawn++;
      if (r > 150 && g < 90 && b < 90) c.red++;
    }
  cairo_surface_destroy(img);
  return c;
}

START_TEST(test_camera_fit)
{
  const PetscReal box[6] = {0, 0, 0, 2, 4, 4}, point[3] = {1, 2, 3};
  SimModel m = PointModel(2, box), p = PointModel(1, point);
  SimCamera cam;

  CHECK_PETSC(SimCameraFit(m->nv, box, 0.1, &cam));
  ck_assert_double_eq_tol(cam.center[0], 1, 1e-14);
  ck_assert_double_eq_tol(cam.center[1], 2, 1e-14);
  ck_assert_double_eq_tol(cam.center[2], 2, 1e-14);
  ck_assert_double_eq_tol(cam.radius, 3 * 1.1, 1e-12); /* half of sqrt(4 + 16 + 16), plus 10% */
  ck_assert_int_eq(cam.width, 800);
  ck_assert_int_eq(cam.height, 600);

  /* A single point still gets a finite view around it. */
  CHECK_PETSC(SimCameraFit(p->nv, point, 0.0, &cam));
  ck_assert(cam.radius > 0 && PetscIsNormalReal(cam.radius));
  ck_assert_double_eq(cam.center[2], 3);
  CHECK_PETSC(SimModelDestroy(&m));
  CHECK_PETSC(SimModelDestroy(&p));
}
END_TEST

START_TEST(test_png_quad)
{
  char dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  SimModel m = QuadModel();
  SimCamera cam;
  PixelCounts c;

  MakeTempDir(dir);
  JoinPath(path, dir, "quad.png");
  CHECK_PETSC(SimCameraFit(m->nv, kQuadXYZ, 0.1, &cam));
  cam.width = 160;
  cam.height = 120;
  CHECK_PETSC(SimPNGWrite(m, kQuadXYZ, &cam, "quad  t = 0.00 s", path));
  c = CountPixels(path);
  ck_assert_int_eq(c.width, 160);
  ck_assert_int_eq(c.height, 120);
  ck_assert_int_gt(c.background, 0);
  /* The quad, nearly horizontal and seen from 20 degrees above, covers about 8% of the image. */
  ck_assert_int_gt(c.drawn, 160 * 120 / 20);
  ck_assert_int_gt(c.red, 0); /* vertex 0 is pinned */
  CHECK_PETSC(SimModelDestroy(&m));
  RemoveTempDir(dir);
}
END_TEST

/* Particle and volume models take the other drawing paths: dots, and tetrahedron faces. */
START_TEST(test_png_points_and_tets)
{
  const PetscReal xyz[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const PetscInt tet[4] = {0, 1, 2, 3};
  char dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  SimModel points = PointModel(4, xyz), solid = PointModel(4, xyz);
  SimCamera cam;
  PixelCounts dots, faces;

  CHECK_PETSC(SimModelSetTopology(solid, 0, NULL, 0, NULL, 1, tet));
  MakeTempDir(dir);
  JoinPath(path, dir, "points.png");
  CHECK_PETSC(SimCameraFit(points->nv, xyz, 0.2, &cam));
  cam.width = 200;
  cam.height = 200;
  CHECK_PETSC(SimPNGWrite(points, xyz, &cam, NULL, path));
  dots = CountPixels(path);
  ck_assert_int_gt(dots.drawn, 4 * 10); /* four dots of a few pixels each */
  ck_assert_int_eq(dots.red, 0);        /* nothing pinned */

  JoinPath(path, dir, "tet.png");
  CHECK_PETSC(SimPNGWrite(solid, xyz, &cam, NULL, path));
  faces = CountPixels(path);
  ck_assert_int_gt(faces.drawn, 10 * dots.drawn); /* filled faces cover far more than dots */
  CHECK_PETSC(SimModelDestroy(&points));
  CHECK_PETSC(SimModelDestroy(&solid));
  RemoveTempDir(dir);
}
END_TEST

/* A 64x64 cloth (8192 triangles) at the default 800x600: renders correctly; the time per frame is
 * printed for the record (wall-clock limits are not asserted). */
START_TEST(test_png_cloth_64)
{
  const int nframes = 5;
  char dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  PetscLogDouble t0, t1;
  PetscReal *xyz;
  SimModel m = ClothModel(64, &xyz);
  SimCamera cam;
  PixelCounts c;

  ck_assert_int_eq(m->ntri, 8192);
  MakeTempDir(dir);
  JoinPath(path, dir, "cloth.png");
  CHECK_PETSC(SimCameraFit(m->nv, xyz, 0.05, &cam));
  CHECK_PETSC(SimPNGWrite(m, xyz, &cam, "cloth  t = 0.00 s", path)); /* warm-up: font cache */
  CHECK_PETSC(PetscTime(&t0));
  for (int k = 0; k < nframes; k++)
    CHECK_PETSC(SimPNGWrite(m, xyz, &cam, "cloth  t = 0.00 s", path));
  CHECK_PETSC(PetscTime(&t1));
  CHECK_PETSC(PetscPrintf(PETSC_COMM_SELF,
                          "png: 64x64 cloth (8192 triangles, 800x600) in %.1f ms per frame\n",
                          1e3 * (t1 - t0) / nframes));
  c = CountPixels(path);
  ck_assert_int_eq(c.width, 800);
  ck_assert_int_eq(c.height, 600);
  ck_assert_int_gt(c.drawn, 800 * 600 / 10);
  ck_assert_int_gt(c.background, 800 * 600 / 10);
  ck_assert_int_gt(c.red, 0);
  CHECK_PETSC(PetscFree(xyz));
  CHECK_PETSC(SimModelDestroy(&m));
  RemoveTempDir(dir);
}
END_TEST

/* ---- errors ---- */

START_TEST(test_write_to_missing_directory)
{
  const PetscReal v[12] = {0};
  char dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  SimEnergyReport rep = {0};
  SimModel m = QuadModel();
  SimCSVLog log = NULL;
  SimPVD pvd = NULL;
  SimCamera cam;

  MakeTempDir(dir);
  CHECK_PETSC(SimCameraFit(m->nv, kQuadXYZ, 0.1, &cam));
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  JoinPath(path, dir, "missing/frame_0001.vtu");
  ck_assert_int_ne(SimVTKWriteFrame(m, kQuadXYZ, v, path), 0);
  JoinPath(path, dir, "missing/frame_0001.png");
  ck_assert_int_ne(SimPNGWrite(m, kQuadXYZ, &cam, "x", path), 0);
  JoinPath(path, dir, "missing/log.csv");
  ck_assert_int_ne(SimCSVLogCreate(path, &rep, &log), 0);
  JoinPath(path, dir, "missing/run.pvd");
  ck_assert_int_ne(SimPVDCreate(path, &pvd), 0); /* writes the empty series at once */
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_ptr_null(log);
  ck_assert_ptr_null(pvd);
  CHECK_PETSC(SimModelDestroy(&m));
  RemoveTempDir(dir);
}
END_TEST

/* ---- progress ---- */

START_TEST(test_progress)
{
  char dir[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN], *buf;
  FILE *saved = PETSC_STDERR, *capture;
  SimProgress p;
  PetscLogDouble drawn;

  CHECK_PETSC(SimProgressStart(&p, 10, PETSC_FALSE));
  ck_assert(!p.enabled);
  CHECK_PETSC(SimProgressStart(&p, 10, PETSC_TRUE));
  ck_assert_int_eq(p.enabled, isatty(fileno(stderr)) ? PETSC_TRUE : PETSC_FALSE);

  /* Force it on and capture PETSc's stderr to check the line and the redraw throttle. */
  MakeTempDir(dir);
  JoinPath(path, dir, "stderr.txt");
  capture = fopen(path, "w");
  ck_assert_ptr_nonnull(capture);
  PETSC_STDERR = capture;
  p.enabled = PETSC_TRUE;
  p.start -= 1.0; /* one second into a 10-step run */
  p.last -= 1.0;
  CHECK_PETSC(SimProgressUpdate(&p, 5, 2.0));
  drawn = p.last;
  CHECK_PETSC(SimProgressUpdate(&p, 6, 2.4)); /* within 0.1 s of the last draw: skipped */
  ck_assert_double_eq(p.last, drawn);
  CHECK_PETSC(SimProgressFinish(&p, 10, 4.0));
  PETSC_STDERR = saved;
  fclose(capture);

  buf = ReadWholeFile(path, NULL);
  ck_assert_msg(strstr(buf, "\r step 5/10  t = 2.000 s") != NULL, "progress line: '%s'", buf);
  ck_assert_ptr_nonnull(strstr(buf, "ms/step"));
  ck_assert_ptr_nonnull(strstr(buf, "ETA 0:01")); /* 5 steps left at 0.2 s each */
  ck_assert_ptr_null(strstr(buf, "step 6/10"));
  ck_assert_ptr_nonnull(strstr(buf, "step 10/10"));
  ck_assert_int_eq(buf[strlen(buf) - 1], '\n');
  free(buf);
  RemoveTempDir(dir);
}
END_TEST

/* ---- bounded string building ---- */

/* The guard bytes after a 8-byte buffer must survive every append: PetscStrlcat, which this
 * replaced, wrote its terminator one byte past a full buffer. */
START_TEST(test_str_append)
{
  char mem[12], *buf = mem;

  memset(mem, '#', sizeof(mem));
  buf[0] = 0;
  CHECK_PETSC(SimStrAppendItem(buf, ", ", "ab", 8));
  ck_assert_str_eq(buf, "ab");
  CHECK_PETSC(SimStrAppendItem(buf, ", ", "cd", 8));
  ck_assert_str_eq(buf, "ab, cd");
  CHECK_PETSC(SimStrAppend(buf, "efghij", 8)); /* 6 + 6 > 7: truncated, still terminated */
  ck_assert_str_eq(buf, "ab, cde");
  CHECK_PETSC(SimStrAppend(buf, "x", 8)); /* full: unchanged */
  ck_assert_str_eq(buf, "ab, cde");
  for (int i = 8; i < 12; i++) ck_assert_int_eq(mem[i], '#');
  CHECK_PETSC(SimStrAppend(buf, NULL, 8));
  ck_assert_str_eq(buf, "ab, cde");
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("io");
  TCase *vtk = tcase_create("vtk"), *csv = tcase_create("csv"), *png = tcase_create("png"),
        *misc = tcase_create("misc");

  tcase_add_test(vtk, test_vtu_quad);
  tcase_add_test(vtk, test_vtu_points_only);
  tcase_add_test(vtk, test_pvd);
  tcase_add_test(csv, test_csv);
  tcase_add_test(png, test_camera_fit);
  tcase_add_test(png, test_png_quad);
  tcase_add_test(png, test_png_points_and_tets);
  tcase_add_test(png, test_png_cloth_64);
  tcase_add_test(misc, test_write_to_missing_directory);
  tcase_add_test(misc, test_progress);
  tcase_add_test(misc, test_str_append);
  tcase_set_timeout(png, 120);
  suite_add_tcase(s, vtk);
  suite_add_tcase(s, csv);
  suite_add_tcase(s, png);
  suite_add_tcase(s, misc);
  return s;
}
