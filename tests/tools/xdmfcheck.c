/* xdmfcheck: reads an XDMF frame back through HDF5 and compares it with a VTK frame (the CLI tests in
 * tests/cli/xdmf.cmake).
 *
 *   xdmfcheck FRAME.xmf REFERENCE.vtu|.vti RTOL [ATOL]
 *
 * Every DataItem of the .xmf must name an HDF5 dataset (file:/path, relative to the .xmf) whose shape
 * is exactly the item's Dimensions (what ParaView's XDMF reader relies on). Then every array of the
 * reference is compared with the XDMF's: Points with the geometry, connectivity/offsets/types with
 * the Mixed topology, each point or cell array with the attribute of the same name (the same
 * number of rows and components), each within RTOL times its largest magnitude plus ATOL (default 0); an attribute the
 * reference lacks is an error too. Point clouds written by a different number of ranks list the
 * particles in another order: when both have an "id" array, rows are matched by id.
 * Prints what it compared; exits 1 with a message on the first mismatch. */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readfile.h"

#define MAXARR 64

typedef struct {
  char name[64];
  int ncomp;
  long n;       /* values (rows * ncomp) */
  double *v;
} Array;

static int Fail(const char *msg, const char *a)
{
  fprintf(stderr, "xdmfcheck: %s%s\n", msg, a ? a : "");
  return 1;
}

/* The value of attribute key="..." inside the tag starting at tag (up to its '>'). */
static int Attr(const char *tag, const char *key, char *out, size_t len)
{
  const char *end = strchr(tag, '>'), *p = tag;
  size_t klen = strlen(key);
  while ((p = strstr(p, key)) && p < end) {
    if (p[klen] == '=' && p[klen + 1] == '"' && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n')) {
      const char *q = strchr(p + klen + 2, '"');
      size_t n = (size_t)(q - (p + klen + 2));
      if (n >= len) return 0;
      memcpy(out, p + klen + 2, n);
      out[n] = 0;
      return 1;
    }
    p += klen;
  }
  return 0;
}

/* ---- VTK XML with raw appended data (framework/io/vtk.c, vti.c) ---- */
static int ReadVTK(const char *path, Array *arr, int *narr)
{
  long len;
  char *buf = ReadFile(path, &len), *app, *p, hdr[16] = "UInt32";
  int u64;
  if (!buf) return Fail("cannot read ", path);
  app = strstr(buf, "<AppendedData");
  if (!app || !(app = strchr(app, '_'))) return Fail("no appended data in ", path);
  app++;
  Attr(strstr(buf, "<VTKFile"), "header_type", hdr, sizeof(hdr));
  u64 = !strcmp(hdr, "UInt64");
  *narr = 0;
  for (p = buf; (p = strstr(p, "<DataArray")) && p < app; p++) {
    char type[16], name[64], nc[16] = "1", off[32];
    Array *a = &arr[(*narr)++];
    uint64_t nbytes = 0;
    const unsigned char *d;
    size_t es;
    if (*narr > MAXARR || !Attr(p, "type", type, sizeof(type)) || !Attr(p, "Name", name, sizeof(name)) || !Attr(p, "offset", off, sizeof(off)))
      return Fail("unreadable DataArray in ", path);
    Attr(p, "NumberOfComponents", nc, sizeof(nc));
    d = (const unsigned char *)app + strtoull(off, NULL, 10);
    if (u64) memcpy(&nbytes, d, 8), d += 8;
    else {
      uint32_t b;
      memcpy(&b, d, 4), d += 4, nbytes = b;
    }
    es = !strcmp(type, "Float64") || !strcmp(type, "Int64") ? 8 : !strcmp(type, "UInt8") ? 1 : 0;
    if (!es) return Fail("unknown DataArray type ", type);
    snprintf(a->name, sizeof(a->name), "%s", name);
    a->ncomp = atoi(nc);
    a->n = (long)(nbytes / es);
    a->v = malloc(sizeof(double) * (a->n + 1));
    for (long k = 0; k < a->n; k++) {
      if (!strcmp(type, "Float64")) memcpy(&a->v[k], d + 8 * k, 8);
      else if (!strcmp(type, "Int64")) {
        int64_t i;
        memcpy(&i, d + 8 * k, 8);
        a->v[k] = (double)i;
      } else a->v[k] = d[k];
    }
  }
  free(buf);
  return 0;
}

static Array *Find(Array *arr, int n, const char *name)
{
  for (int k = 0; k < n; k++)
    if (!strcmp(arr[k].name, name)) return &arr[k];
  return NULL;
}

/* ---- XDMF: each DataItem's dataset, shape-checked ---- */
static int ReadItem(const char *dir, const char *item, Array *a)
{
  char dims[128], h5[512], *colon, text[512];
  const char *body = strchr(item, '>') + 1, *end = strstr(body, "</DataItem>");
  hsize_t shape[8];
  long want[8], nv = 1;
  int nd = 0, rank;
  hid_t f, ds, sp;
  if (!end || (size_t)(end - body) >= sizeof(text) || !Attr(item, "Dimensions", dims, sizeof(dims))) return Fail("unreadable DataItem", NULL);
  memcpy(text, body, (size_t)(end - body));
  text[end - body] = 0;
  colon = strstr(text, ":/");
  if (!colon) return Fail("a DataItem that is not file:/dataset: ", text);
  *colon = 0;
  snprintf(h5, sizeof(h5), "%s%s", dir, text);
  for (char *t = strtok(dims, " "); t && nd < 8; t = strtok(NULL, " ")) want[nd++] = atol(t), nv *= want[nd - 1];
  f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return Fail("cannot open ", h5);
  ds = H5Dopen2(f, colon + 1, H5P_DEFAULT);
  if (ds < 0) return Fail("no dataset ", colon + 1);
  sp = H5Dget_space(ds);
  rank = H5Sget_simple_extent_dims(sp, shape, NULL);
  if (rank != nd) {
    fprintf(stderr, "xdmfcheck: %s has %d dimensions, the .xmf says %d\n", colon + 1, rank, nd);
    return 1;
  }
  for (int k = 0; k < nd; k++)
    if ((long)shape[k] != want[k]) {
      fprintf(stderr, "xdmfcheck: %s: dimension %d is %ld, the .xmf says %ld\n", colon + 1, k, (long)shape[k], want[k]);
      return 1;
    }
  a->n = nv;
  a->ncomp = 1; /* set by the caller from the element that holds the item */
  a->v = malloc(sizeof(double) * (nv + 1));
  if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a->v) < 0) return Fail("cannot read ", colon + 1);
  H5Sclose(sp);
  H5Dclose(ds);
  H5Fclose(f);
  printf("xdmfcheck: %s:%s read (%d dimensions as the .xmf says)\n", text, colon + 1, nd);
  return 0;
}

static int Compare(const Array *ref, const Array *got, const long *perm, double rtol, double atol)
{
  double scale = 0, worst = 0;
  long rows;
  if (ref->n != got->n || ref->ncomp != got->ncomp) {
    fprintf(stderr, "xdmfcheck: %s: %ld values in %d components in the reference, %ld in %d in the XDMF\n", ref->name, ref->n, ref->ncomp, got->n,
            got->ncomp);
    return 1;
  }
  rows = ref->n / ref->ncomp;
  for (long k = 0; k < ref->n; k++) scale = fmax(scale, fabs(ref->v[k]));
  for (long r = 0; r < rows; r++)
    for (int c = 0; c < ref->ncomp; c++) {
      const double a = ref->v[r * ref->ncomp + c], b = got->v[(perm ? perm[r] : r) * ref->ncomp + c];
      worst = fmax(worst, fabs(a - b));
      if (!(fabs(a - b) <= rtol * scale + atol)) {
        fprintf(stderr, "xdmfcheck: %s row %ld component %d: %.17g in the reference, %.17g in the XDMF\n", ref->name, r, c, a, b);
        return 1;
      }
    }
  printf("xdmfcheck: %s: %ld x %d equal (max difference %.3g, scale %.3g)\n", ref->name, rows, ref->ncomp, worst, scale);
  return 0;
}

int main(int argc, char **argv)
{
  Array ref[MAXARR], got[MAXARR];
  int nref = 0, ngot = 0, nattr = 0;
  long len, *perm = NULL;
  char *xmf, dir[512] = "", *slash, *p;
  const Array *geom = NULL, *topo = NULL;
  double rtol, atol;

  if (argc != 4 && argc != 5) return Fail("usage: xdmfcheck FRAME.xmf REFERENCE.vtu|.vti RTOL [ATOL]", NULL);
  rtol = atof(argv[3]);
  atol = argc == 5 ? atof(argv[4]) : 0;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (!(xmf = ReadFile(argv[1], &len))) return Fail("cannot read ", argv[1]);
  if ((slash = strrchr(argv[1], '/'))) snprintf(dir, sizeof(dir), "%.*s/", (int)(slash - argv[1]), argv[1]);
  if (ReadVTK(argv[2], ref, &nref)) return 1;
  /* the XDMF's arrays: geometry, topology, then the attributes by name */
  for (p = xmf; (p = strstr(p, "<DataItem")); p++) {
    const char *owner = NULL, *q;
    Array *a = &got[ngot];
    char fmt[16] = "";
    Attr(p, "Format", fmt, sizeof(fmt));
    if (strcmp(fmt, "HDF")) continue;
    if (ngot == MAXARR) return Fail("too many arrays", NULL);
    for (q = p; q > xmf && !owner; q--)
      if (!strncmp(q, "<Attribute", 10) || !strncmp(q, "<Geometry", 9) || !strncmp(q, "<Topology", 9)) owner = q;
    if (!owner) return Fail("a DataItem outside Geometry, Topology or Attribute", NULL);
    if (ReadItem(dir, p, a)) return 1;
    if (!strncmp(owner, "<Geometry", 9)) snprintf(a->name, sizeof(a->name), "Points"), geom = a, a->ncomp = 3;
    else if (!strncmp(owner, "<Topology", 9)) snprintf(a->name, sizeof(a->name), "topology"), topo = a;
    else {
      char type[16] = "Scalar", dims[128], *last;
      Attr(owner, "Name", a->name, sizeof(a->name)), nattr++;
      Attr(owner, "AttributeType", type, sizeof(type));
      Attr(p, "Dimensions", dims, sizeof(dims));
      last = strrchr(dims, ' ');
      if (strcmp(type, "Scalar")) a->ncomp = last ? atoi(last + 1) : 1; /* vectors and tensors: the last dimension */
    }
    ngot++;
  }
  if (!nattr) return Fail("no attribute in ", argv[1]);
  /* particles written by another number of ranks: match rows by id */
  if (Find(ref, nref, "id") && Find(got, ngot, "id")) {
    const Array *ri = Find(ref, nref, "id"), *gi = Find(got, ngot, "id");
    long n = ri->n;
    if (gi->n != n) return Fail("the id arrays differ in length", NULL);
    perm = malloc(sizeof(long) * (n + 1));
    for (long r = 0; r < n; r++) {
      perm[r] = -1;
      for (long s = 0; s < n && perm[r] < 0; s++)
        if (gi->v[s] == ri->v[r]) perm[r] = s;
      if (perm[r] < 0) return Fail("an id of the reference is missing in the XDMF", NULL);
    }
    printf("xdmfcheck: rows matched by id\n");
  }
  for (int k = 0; k < nref; k++) {
    const Array *r = &ref[k];
    if (!strcmp(r->name, "connectivity") || !strcmp(r->name, "offsets") || !strcmp(r->name, "types")) continue;
    if (!strcmp(r->name, "Points")) {
      if (!geom) return Fail("the reference has points, the XDMF no geometry", NULL);
      if (Compare(r, geom, perm, rtol, atol)) return 1;
      continue;
    }
    if (!Find(got, ngot, r->name)) return Fail("no XDMF attribute for the reference's array ", r->name);
    if (Compare(r, Find(got, ngot, r->name), perm, rtol, atol)) return 1;
  }
  for (int k = 0; k < ngot; k++)
    if (strcmp(got[k].name, "Points") && strcmp(got[k].name, "topology") && !Find(ref, nref, got[k].name))
      return Fail("an XDMF attribute the reference lacks: ", got[k].name);
  if (topo) { /* Mixed (type, [count,] vertices) against VTK's connectivity, offsets and types */
    static const int vtk[7] = {0, 1, 3, 0, 5, 0, 10}, nvert[7] = {0, 0, 0, 0, 3, 0, 4};
    const Array *conn = Find(ref, nref, "connectivity"), *off = Find(ref, nref, "offsets"), *types = Find(ref, nref, "types");
    long k = 0, c = 0, prev = 0;
    if (!conn || !off || !types) return Fail("the XDMF has a topology, the reference no cells", NULL);
    for (; k < topo->n; c++) {
      const int t = (int)topo->v[k++];
      const int n = t >= 0 && t <= 6 ? (t <= 2 ? (int)topo->v[k++] : nvert[t]) : 0;
      if (c >= types->n || !n || vtk[t] != (int)types->v[c] || off->v[c] - prev != n) return Fail("the cells differ from the reference's", NULL);
      for (int j = 0; j < n; j++)
        if (topo->v[k + j] != conn->v[prev + j]) return Fail("the cell vertices differ from the reference's", NULL);
      k += n, prev = (long)off->v[c];
    }
    if (c != types->n) return Fail("the number of cells differs from the reference's", NULL);
    printf("xdmfcheck: %ld cells equal\n", c);
  }
  printf("xdmfcheck: %s matches %s\n", argv[1], argv[2]);
  for (int k = 0; k < nref; k++) free(ref[k].v);
  for (int k = 0; k < ngot; k++) free(got[k].v);
  free(perm);
  free(xmf);
  return 0;
}
