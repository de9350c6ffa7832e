/* numcheck: reads the numbers pbsim writes and checks them (the CLI tests in tests/cli/numbers.cmake).
 *
 *   numcheck oscillator LOG.csv K M L A C TOL
 *       every row of an oscillator run's log.csv against the exact (damped) solution of
 *       scenes/oscillator.c: kinetic, spring, total, dissipation_rate (= C v^2) and px (= M v), each
 *       within TOL times the initial energy (momentum: TOL times M A w).
 *   numcheck freefall LOG.csv MASS G TOL
 *       a body released at rest under gravity -G y (no other external force): py = -MASS G t,
 *       kinetic = MASS G^2 t^2 / 2, gravity(t) - gravity(0) = -kinetic, px = pz = 0, total constant,
 *       each within TOL times MASS G^2 T^2 / 2 (T the last time; momentum: TOL times MASS G T).
 *   numcheck csv A.csv B.csv RTOL [EXCEPT,COLUMNS]
 *       the same header and rows; every column but the listed ones equal within RTOL times the
 *       column's largest magnitude in A.
 *   numcheck bound LOG.csv COLUMN MAX
 *       every row's |COLUMN| <= MAX (e.g. a conserved quantity's relative change).
 *   numcheck vtu A.vtu B.vtu RTOL
 *       two VTK XML files with raw appended data (framework/io/vtk.c, vti.c): the same XML, every Float64
 *       array equal within RTOL times its largest magnitude, every other array byte for byte.
 * Prints what it compared; exits 1 with a message naming the row and column on a mismatch. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readfile.h"

#define MAXCOL 128
#define MAXROW 200000

typedef struct {
  int ncol, nrow;
  char *name[MAXCOL];
  double *val; /* nrow x ncol */
} Table;

static int fail(const char *fmt, const char *a, const char *b)
{
  fprintf(stderr, "numcheck: ");
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\n");
  return 1;
}

static void FreeTable(Table *t)
{
  for (int c = 0; c < t->ncol; c++) free(t->name[c]);
  free(t->val);
  memset(t, 0, sizeof(*t));
}

/* Reads a CSV with a header row into t (the caller frees it with FreeTable; on failure it holds nothing). */
static int ReadCSV(const char *path, Table *t)
{
  long len;
  char *buf = ReadFile(path, &len), *line, *save = NULL, row[32];
  int rc = 0;
  memset(t, 0, sizeof(*t));
  if (!buf) return fail("cannot read %s%s", path, "");
  line = strtok_r(buf, "\n", &save);
  if (!line) {
    rc = fail("%s is empty%s", path, "");
    goto done;
  }
  for (char *tok = strtok(line, ","); tok && t->ncol < MAXCOL; tok = strtok(NULL, ",")) t->name[t->ncol++] = strdup(tok);
  t->val = malloc(sizeof(double) * MAXCOL * 1024);
  for (int cap = 1024; !rc && (line = strtok_r(NULL, "\n", &save));) {
    char *p = line, *end;
    if (t->nrow == cap) {
      if (cap >= MAXROW) {
        rc = fail("%s has too many rows%s", path, "");
        break;
      }
      cap *= 2;
      t->val = realloc(t->val, sizeof(double) * MAXCOL * cap);
    }
    for (int c = 0; c < t->ncol && !rc; c++) {
      t->val[t->nrow * t->ncol + c] = strtod(p, &end);
      if (end == p) {
        snprintf(row, sizeof(row), "%d", t->nrow + 2);
        rc = fail("%s: line %s has a non-number or too few columns", path, row);
      }
      p = *end == ',' ? end + 1 : end;
    }
    t->nrow++;
  }
  if (!rc && t->nrow < 2) rc = fail("%s has fewer than two rows of numbers%s", path, "");
done:
  free(buf);
  if (rc) FreeTable(t);
  return rc;
}

static int Column(const Table *t, const char *name, const char *path)
{
  for (int c = 0; c < t->ncol; c++)
    if (!strcmp(t->name[c], name)) return c;
  fail("%s has no column '%s'", path, name);
  exit(1);
}

static double At(const Table *t, int row, int col)
{
  return t->val[row * t->ncol + col];
}

/* |got - want| <= tol, else a message naming the row (time) and the column. */
static int Expect(const char *what, int row, double time, double got, double want, double tol)
{
  if (fabs(got - want) <= tol) return 0;
  fprintf(stderr, "numcheck: row %d (t = %.6g): %s = %.12g, expected %.12g (tolerance %.3g)\n", row, time, what, got, want, tol);
  return 1;
}

static int Oscillator(const char *path, double k, double m, double L, double A, double c, double tol)
{
  Table t;
  double w = sqrt(k / m), zeta = c / (2 * sqrt(k * m)), s = sqrt(1 - zeta * zeta), wd = w * s, E0 = 0.5 * k * A * A;
  int it, ik, ispring, itot, idis, ipx, bad = 0;
  if (ReadCSV(path, &t)) return 1;
  it = Column(&t, "time", path), ik = Column(&t, "kinetic", path), ispring = Column(&t, "spring", path);
  itot = Column(&t, "total", path), idis = Column(&t, "dissipation_rate", path), ipx = Column(&t, "px", path);
  for (int r = 0; r < t.nrow && bad < 10; r++) {
    const double time = At(&t, r, it), decay = exp(-zeta * w * time);
    const double x = L + A * decay * (cos(wd * time) + zeta / s * sin(wd * time)), v = -A * w / s * decay * sin(wd * time);
    const double kin = 0.5 * m * v * v, pot = 0.5 * k * (x - L) * (x - L);
    bad += Expect("kinetic", r, time, At(&t, r, ik), kin, tol * E0);
    bad += Expect("spring", r, time, At(&t, r, ispring), pot, tol * E0);
    bad += Expect("total", r, time, At(&t, r, itot), kin + pot, tol * E0);
    bad += Expect("dissipation_rate", r, time, At(&t, r, idis), c * v * v, tol * E0 * w);
    bad += Expect("px", r, time, At(&t, r, ipx), m * v, tol * m * A * w);
  }
  printf("numcheck: %s: %d rows to t = %g against the exact oscillator (k %g, m %g, c %g): %s\n", path, t.nrow,
         At(&t, t.nrow - 1, it), k, m, c, bad ? "MISMATCH" : "ok");
  FreeTable(&t);
  return bad ? 1 : 0;
}

static int FreeFall(const char *path, double M, double g, double tol)
{
  Table t;
  int it, ik, igr, itot, ipx, ipy, ipz, bad = 0;
  double T, escale, pscale;
  if (ReadCSV(path, &t)) return 1;
  it = Column(&t, "time", path), ik = Column(&t, "kinetic", path), igr = Column(&t, "gravity", path);
  itot = Column(&t, "total", path), ipx = Column(&t, "px", path), ipy = Column(&t, "py", path), ipz = Column(&t, "pz", path);
  T = At(&t, t.nrow - 1, it);
  escale = tol * 0.5 * M * g * g * T * T, pscale = tol * M * g * T;
  for (int r = 0; r < t.nrow && bad < 10; r++) {
    const double time = At(&t, r, it), kin = 0.5 * M * g * g * time * time;
    bad += Expect("py", r, time, At(&t, r, ipy), -M * g * time, pscale);
    bad += Expect("px", r, time, At(&t, r, ipx), 0, pscale);
    bad += Expect("pz", r, time, At(&t, r, ipz), 0, pscale);
    bad += Expect("kinetic", r, time, At(&t, r, ik), kin, escale);
    bad += Expect("gravity - gravity(0)", r, time, At(&t, r, igr) - At(&t, 0, igr), -kin, escale);
    bad += Expect("total", r, time, At(&t, r, itot), At(&t, 0, itot), escale);
  }
  printf("numcheck: %s: %d rows to t = %g against free fall (M %g kg, g %g m/s^2): %s\n", path, t.nrow, T, M, g,
         bad ? "MISMATCH" : "ok");
  FreeTable(&t);
  return bad ? 1 : 0;
}

static int CompareCSV(const char *pa, const char *pb, double rtol, const char *except)
{
  Table a, b;
  int bad = 0, compared = 0;
  char list[1024];
  if (ReadCSV(pa, &a)) return 1;
  if (ReadCSV(pb, &b)) {
    FreeTable(&a);
    return 1;
  }
  bad = a.ncol != b.ncol;
  for (int c = 0; c < a.ncol && !bad; c++) bad = strcmp(a.name[c], b.name[c]) != 0;
  if (bad) fail("%s and %s have different columns", pa, pb);
  else if (a.nrow != b.nrow) bad = fail("%s and %s have different numbers of rows", pa, pb);
  else {
    snprintf(list, sizeof(list), ",%s,", except ? except : "");
    for (int c = 0; c < a.ncol; c++) {
      char key[256];
      double scale = 0;
      snprintf(key, sizeof(key), ",%s,", a.name[c]);
      if (strstr(list, key)) continue;
      for (int r = 0; r < a.nrow; r++) scale = fmax(scale, fabs(At(&a, r, c)));
      for (int r = 0; r < a.nrow && bad < 10; r++)
        if (fabs(At(&a, r, c) - At(&b, r, c)) > rtol * scale) {
          fprintf(stderr, "numcheck: %s vs %s, row %d, column %s: %.17g vs %.17g (column scale %.3g, rtol %g)\n", pa, pb, r + 2,
                  a.name[c], At(&a, r, c), At(&b, r, c), scale, rtol);
          bad++;
        }
      compared++;
    }
    printf("numcheck: %s vs %s: %d columns x %d rows within rtol %g: %s\n", pa, pb, compared, a.nrow, rtol, bad ? "MISMATCH" : "ok");
  }
  FreeTable(&a);
  FreeTable(&b);
  return bad ? 1 : 0;
}

static int Bound(const char *path, const char *name, double max)
{
  Table t;
  int c, bad = 0;
  double worst = 0;
  if (ReadCSV(path, &t)) return 1;
  c = Column(&t, name, path);
  for (int r = 0; r < t.nrow; r++) {
    const double v = fabs(At(&t, r, c));
    if (!(v <= max) && bad++ < 10)
      fprintf(stderr, "numcheck: %s, row %d: |%s| = %.17g > %g\n", path, r + 2, name, v, max);
    if (v > worst || v != v) worst = v;
  }
  printf("numcheck: %s: max |%s| = %.3g over %d rows (bound %g): %s\n", path, name, worst, t.nrow, max, bad ? "EXCEEDED" : "ok");
  FreeTable(&t);
  return bad ? 1 : 0;
}

/* The XML part (up to the '_' that starts the raw data) and the raw data of a VTK XML file. */
static int SplitVTK(const char *path, char **buf, long *xmlen, const unsigned char **raw, long *rawlen)
{
  long len;
  char *p;
  *buf = ReadFile(path, &len);
  if (!*buf) return fail("cannot read %s%s", path, "");
  p = strstr(*buf, "<AppendedData encoding=\"raw\">");
  if (!p || !(p = strchr(p, '_'))) return fail("%s has no raw appended data%s", path, "");
  *xmlen = p - *buf;
  *raw = (const unsigned char *)p + 1;
  *rawlen = len - (*xmlen + 1);
  return 0;
}

static int CompareVTU(const char *pa, const char *pb, double rtol)
{
  char *a, *b, *p;
  long xa, xb, ra, rb;
  const unsigned char *da, *db;
  int bad = 0, arrays = 0, hb = 4;
  if (SplitVTK(pa, &a, &xa, &da, &ra) || SplitVTK(pb, &b, &xb, &db, &rb)) return 1;
  if (xa != xb || memcmp(a, b, xa)) return fail("%s and %s differ in their XML (structure, names or sizes)", pa, pb);
  if (strstr(a, "header_type=\"UInt64\"")) hb = 8;
  /* each DataArray: type and offset; the block at offset is a byte count (header_type UInt32 or
   * UInt64), then the data */
  for (p = strstr(a, "<DataArray"); p && p < a + xa; p = strstr(p + 1, "<DataArray")) {
    char type[32] = "", name[128] = "";
    const char *q;
    long off;
    uint64_t nb = 0, nb2 = 0;
    if ((q = strstr(p, "type=\""))) sscanf(q + 6, "%31[^\"]", type);
    if ((q = strstr(p, "Name=\""))) sscanf(q + 6, "%127[^\"]", name);
    q = strstr(p, "offset=\"");
    if (!q || sscanf(q + 8, "%ld", &off) != 1) return fail("%s: a DataArray without an offset%s", pa, "");
    if (off + hb > ra || off + hb > rb) return fail("%s: offset beyond the data%s", pa, "");
    memcpy(&nb, da + off, hb), memcpy(&nb2, db + off, hb); /* little endian */
    if (nb != nb2 || off + hb + (long)nb > ra) return fail("%s: array %s has a different size", pa, name);
    off += hb;
    arrays++;
    if (!strcmp(type, "Float64")) {
      size_t n = nb / 8;
      double scale = 0, x, y;
      for (size_t i = 0; i < n; i++) memcpy(&x, da + off + 8 * i, 8), scale = fmax(scale, fabs(x));
      for (size_t i = 0; i < n && bad < 10; i++) {
        memcpy(&x, da + off + 8 * i, 8), memcpy(&y, db + off + 8 * i, 8);
        if (!(fabs(x - y) <= rtol * scale)) {
          fprintf(stderr, "numcheck: %s vs %s, array %s, entry %zu: %.17g vs %.17g (array scale %.3g, rtol %g)\n", pa, pb, name,
                  i, x, y, scale, rtol);
          bad++;
        }
      }
    } else if (memcmp(da + off, db + off, nb)) {
      fprintf(stderr, "numcheck: %s vs %s: %s array %s differs\n", pa, pb, type, name);
      bad++;
    }
  }
  printf("numcheck: %s vs %s: %d arrays, Float64 within rtol %g: %s\n", pa, pb, arrays, rtol, bad ? "MISMATCH" : "ok");
  free(a);
  free(b);
  return bad || !arrays ? 1 : 0;
}

int main(int argc, char **argv)
{
  if (argc == 9 && !strcmp(argv[1], "oscillator"))
    return Oscillator(argv[2], atof(argv[3]), atof(argv[4]), atof(argv[5]), atof(argv[6]), atof(argv[7]), atof(argv[8]));
  if (argc == 6 && !strcmp(argv[1], "freefall")) return FreeFall(argv[2], atof(argv[3]), atof(argv[4]), atof(argv[5]));
  if ((argc == 5 || argc == 6) && !strcmp(argv[1], "csv"))
    return CompareCSV(argv[2], argv[3], atof(argv[4]), argc == 6 ? argv[5] : NULL);
  if (argc == 5 && !strcmp(argv[1], "vtu")) return CompareVTU(argv[2], argv[3], atof(argv[4]));
  if (argc == 5 && !strcmp(argv[1], "bound")) return Bound(argv[2], argv[3], atof(argv[4]));
  fprintf(stderr,
          "usage: numcheck oscillator LOG K M L A C TOL | freefall LOG MASS G TOL | csv A B RTOL [EXCEPT] | vtu A B RTOL | bound LOG COLUMN MAX\n");
  return 2;
}
