/* PNG snapshots: an orthographic painter's-algorithm rasterizer of a model over cairo. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <cairo.h>
#include "framework/io/png.h"

/* Defaults of SimCameraFit: a three-quarter view from slightly above. */
#define CAMERA_AZIMUTH 30.0   /* degrees */
#define CAMERA_ELEVATION 20.0 /* degrees */
#define CAMERA_WIDTH 800
#define CAMERA_HEIGHT 600
#define CAMERA_MIN_RADIUS 1e-3 /* m: a single point or a flat box still gets a finite view */
#define CAMERA_MAX_PIXELS 16384

/* Outlines and segments drawn over a fine mesh would turn it into a dark smear. */
#define OUTLINE_MAX_TRIANGLES 2000
#define SEGMENTS_OVER_TRIANGLES_MAX 2000

static const double kBackground[3] = {0.86, 0.89, 0.94}; /* light grey-blue */
static const double kCloth[3] = {0.32, 0.53, 0.86};
static const double kInk[3] = {0.15, 0.17, 0.22}; /* segments, dots, caption */
static const double kPin[3] = {0.85, 0.10, 0.10};

/* An orthographic view: screen axes and the direction to the viewer, all unit vectors in world
 * coordinates (y up), and the pixel mapping. */
typedef struct {
  double center[3];
  double right[3], up[3], toward[3];
  double scale;    /* pixels per metre */
  double cx, cy;   /* image centre, pixels */
  double light[3]; /* unit, fixed to the camera: above, left and in front of the viewer */
} View;

/* Depth of a face along `toward` (larger is nearer) and its index; sorted ascending, the faces are
 * drawn back to front. */
typedef struct {
  double depth;
  PetscInt face;
} DepthKey;

static double Dot(const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void Cross(const double a[3], const double b[3], double c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

PetscErrorCode SimCameraFit(PetscInt npoints, const PetscReal *x, PetscReal margin, SimCamera *cam)
{
  PetscReal lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, diag2 = 0;

  PetscFunctionBeginUser;
  PetscCheck(margin >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Camera margin %g must be non-negative", (double)margin);
  for (PetscInt i = 0; i < npoints; i++) {
    for (int d = 0; d < 3; d++) {
      const PetscReal c = x[3 * i + d];
      lo[d] = i == 0 || c < lo[d] ? c : lo[d];
      hi[d] = i == 0 || c > hi[d] ? c : hi[d];
    }
  }
  for (int d = 0; d < 3; d++) {
    cam->center[d] = 0.5 * (lo[d] + hi[d]);
    diag2 += (hi[d] - lo[d]) * (hi[d] - lo[d]);
  }
  cam->radius = (PetscMax(0.5 * PetscSqrtReal(diag2), CAMERA_MIN_RADIUS)) * (1 + margin);
  cam->azimuth = CAMERA_AZIMUTH;
  cam->elevation = CAMERA_ELEVATION;
  cam->width = CAMERA_WIDTH;
  cam->height = CAMERA_HEIGHT;
  PetscFunctionReturn(0);
}

/* The camera looks from direction (azimuth about +y, elevation above the horizontal) at the
 * centre; the sphere of radius `radius` fills the smaller image side. */
static void ViewSetUp(const SimCamera *cam, View *view)
{
  const double az = cam->azimuth * PETSC_PI / 180, el = cam->elevation * PETSC_PI / 180;
  double l[3], len;

  for (int d = 0; d < 3; d++)
    view->center[d] = cam->center[d];
  view->toward[0] = cos(el) * sin(az);
  view->toward[1] = sin(el);
  view->toward[2] = cos(el) * cos(az);
  view->right[0] = cos(az);
  view->right[1] = 0;
  view->right[2] = -sin(az);
  Cross(view->toward, view->right, view->up);
  view->scale = 0.5 * (double)PetscMin(cam->width, cam->height) / cam->radius;
  view->cx = 0.5 * (double)cam->width;
  view->cy = 0.5 * (double)cam->height;
  for (int d = 0; d < 3; d++)
    l[d] = -0.4 * view->right[d] + 0.6 * view->up[d] + 0.7 * view->toward[d];
  len = sqrt(Dot(l, l));
  for (int d = 0; d < 3; d++)
    view->light[d] = l[d] / len;
}

/* Screen position (pixels, y down) and depth of every vertex: s is 3*nv. */
static void Project(const View *view, PetscInt nv, const PetscReal *x, double *s)
{
  for (PetscInt i = 0; i < nv; i++) {
    const double p[3] = {x[3 * i] - view->center[0], x[3 * i + 1] - view->center[1],
                         x[3 * i + 2] - view->center[2]};

    s[3 * i] = view->cx + view->scale * Dot(p, view->right);
    s[3 * i + 1] = view->cy - view->scale * Dot(p, view->up);
    s[3 * i + 2] = Dot(p, view->toward);
  }
}

static int CompareDepth(const void *a, const void *b)
{
  const double da = ((const DepthKey *)a)->depth, db = ((const DepthKey *)b)->depth;
  return (da > db) - (da < db);
}

/* The surfaces to shade: the triangles, or for a volume model without them every face of every
 * tetrahedron (painter's order hides the interior faces behind the boundary ones). *owned is the
 * array to free, NULL when the faces are the model's triangles. */
static PetscErrorCode CollectFaces(SimModel model, PetscInt *nface, const PetscInt **faces,
                                   PetscInt **owned)
{
  static const int tet_face[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

  PetscFunctionBeginUser;
  *owned = NULL;
  if (model->ntri > 0 || model->ntet == 0) {
    *nface = model->ntri;
    *faces = model->tri;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMalloc1(12 * model->ntet, owned));
  for (PetscInt e = 0; e < model->ntet; e++)
    for (int f = 0; f < 4; f++)
      for (int j = 0; j < 3; j++)
        (*owned)[12 * e + 3 * f + j] = model->tet[4 * e + tet_face[f][j]];
  *nface = 4 * model->ntet;
  *faces = *owned;
  PetscFunctionReturn(0);
}

/* Outward offset of a triangle's edges when it is filled without an outline, pixels. Adjacent
 * antialiased fills let the background show through their shared edge as a hairline seam; growing
 * every triangle by half a pixel under its nearer neighbours covers it, at the cost of one fill
 * (stroking every triangle in its own colour would cost twice as much). */
#define SEAM_GROW 0.5
/* Cap of a vertex's displacement: a sliver or edge-on triangle must not grow spikes. */
#define SEAM_GROW_MAX (3 * SEAM_GROW)

/* The screen triangle (a, b, c) as a closed path; with grow > 0 each vertex moves out along its
 * angle bisector by grow / sin(angle / 2), which offsets both edges through it by `grow`. */
static void TrianglePath(cairo_t *cr, const double *a, const double *b, const double *c,
                         double grow)
{
  const double *p[3] = {a, b, c};
  double q[3][2];

  for (int j = 0; j < 3; j++) {
    const double *o = p[j], *p1 = p[(j + 1) % 3], *p2 = p[(j + 2) % 3];
    double u1[2] = {p1[0] - o[0], p1[1] - o[1]}, u2[2] = {p2[0] - o[0], p2[1] - o[1]};
    const double l1 = hypot(u1[0], u1[1]), l2 = hypot(u2[0], u2[1]);
    double out[2], lo, half_sin;

    q[j][0] = o[0];
    q[j][1] = o[1];
    if (grow <= 0 || l1 == 0 || l2 == 0) continue;
    for (int d = 0; d < 2; d++) {
      u1[d] /= l1;
      u2[d] /= l2;
      out[d] = -(u1[d] + u2[d]);
    }
    lo = hypot(out[0], out[1]);
    if (lo == 0) continue; /* a straight angle: the vertex lies on an edge, nothing to offset */
    half_sin = sqrt(0.5 * (1 - (u1[0] * u2[0] + u1[1] * u2[1])));
    for (int d = 0; d < 2; d++)
      q[j][d] += PetscMin(grow / half_sin, SEAM_GROW_MAX) * out[d] / lo;
  }
  cairo_move_to(cr, q[0][0], q[0][1]);
  cairo_line_to(cr, q[1][0], q[1][1]);
  cairo_line_to(cr, q[2][0], q[2][1]);
  cairo_close_path(cr);
}

/* Flat shading with two-sided lighting |n.l| (cloth is seen from both sides), back to front.
 * Small meshes get a darker outline that shows the elements; large ones are grown to hide seams. */
static void DrawFaces(cairo_t *cr, const View *view, const PetscReal *x, const double *s,
                      PetscInt nface, const PetscInt *faces, DepthKey *keys)
{
  const PetscBool outline = nface < OUTLINE_MAX_TRIANGLES;

  for (PetscInt f = 0; f < nface; f++) {
    const PetscInt *t = faces + 3 * f;
    keys[f].depth = s[3 * t[0] + 2] + s[3 * t[1] + 2] + s[3 * t[2] + 2];
    keys[f].face = f;
  }
  if (nface > 0) qsort(keys, (size_t)nface, sizeof(DepthKey), CompareDepth); /* keys is NULL without faces */

  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_width(cr, 0.8);
  for (PetscInt k = 0; k < nface; k++) {
    const PetscInt *t = faces + 3 * keys[k].face;
    const PetscReal *a = x + 3 * t[0], *b = x + 3 * t[1], *c = x + 3 * t[2];
    const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]},
                 e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3], len, shade;

    Cross(e1, e2, n);
    len = sqrt(Dot(n, n));
    shade = 0.35 + 0.65 * (len > 0 ? fabs(Dot(n, view->light)) / len : 0);
    TrianglePath(cr, s + 3 * t[0], s + 3 * t[1], s + 3 * t[2], outline ? 0 : SEAM_GROW);
    cairo_set_source_rgb(cr, shade * kCloth[0], shade * kCloth[1], shade * kCloth[2]);
    if (outline) {
      cairo_fill_preserve(cr);
      cairo_set_source_rgb(cr, 0.6 * shade * kCloth[0], 0.6 * shade * kCloth[1],
                           0.6 * shade * kCloth[2]);
      cairo_stroke(cr);
    } else {
      cairo_fill(cr);
    }
  }
}

/* All segments as one path: one stroke is much cheaper than one per segment. */
static void DrawSegments(cairo_t *cr, const double *s, PetscInt nseg, const PetscInt *seg,
                         double width)
{
  for (PetscInt e = 0; e < nseg; e++) {
    cairo_move_to(cr, s[3 * seg[2 * e]], s[3 * seg[2 * e] + 1]);
    cairo_line_to(cr, s[3 * seg[2 * e + 1]], s[3 * seg[2 * e + 1] + 1]);
  }
  cairo_set_source_rgb(cr, kInk[0], kInk[1], kInk[2]);
  cairo_set_line_width(cr, width);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  cairo_stroke(cr);
}

/* Dots at the vertices, all pinned ones (only_pinned) or all, as one filled path. */
static void DrawDots(cairo_t *cr, const double *s, PetscInt nv, const PetscBool *pinned,
                     PetscBool only_pinned, double radius, const double rgb[3])
{
  for (PetscInt i = 0; i < nv; i++) {
    if (only_pinned && !(pinned && pinned[i])) continue;
    cairo_new_sub_path(cr);
    cairo_arc(cr, s[3 * i], s[3 * i + 1], radius, 0, 2 * PETSC_PI);
  }
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_fill(cr);
}

static void DrawCaption(cairo_t *cr, const char *caption)
{
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 15);
  cairo_set_source_rgb(cr, kInk[0], kInk[1], kInk[2]);
  cairo_move_to(cr, 10, 22);
  cairo_show_text(cr, caption);
}

/* The whole picture, in drawing order: background, surfaces, lines, particles, pins, caption. */
static void DrawModel(cairo_t *cr, SimModel model, const View *view, const PetscReal *x,
                      const double *s, PetscInt nface, const PetscInt *faces, DepthKey *keys,
                      const char *caption)
{
  cairo_set_source_rgb(cr, kBackground[0], kBackground[1], kBackground[2]);
  cairo_paint(cr);
  DrawFaces(cr, view, x, s, nface, faces, keys);
  if (nface == 0 || model->nseg < SEGMENTS_OVER_TRIANGLES_MAX)
    DrawSegments(cr, s, model->nseg, model->seg, nface == 0 ? 1.5 : 1.0);
  if (nface == 0 && model->nseg == 0) DrawDots(cr, s, model->nv, NULL, PETSC_FALSE, 2.5, kInk);
  DrawDots(cr, s, model->nv, model->pinned, PETSC_TRUE, 3.5, kPin);
  if (caption && caption[0]) DrawCaption(cr, caption);
}

PetscErrorCode SimPNGWrite(SimModel model, const PetscReal *x, const SimCamera *cam,
                           const char *caption, const char *path)
{
  char tmp[PETSC_MAX_PATH_LEN];
  const PetscInt *faces = NULL;
  PetscInt *owned = NULL, nface = 0;
  DepthKey *keys;
  double *s;
  View view;
  cairo_surface_t *surface;
  cairo_t *cr;
  cairo_status_t status;

  PetscFunctionBeginUser;
  PetscCheck(x && cam && path, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "SimPNGWrite needs positions, a camera and a path");
  PetscCheck(cam->width > 0 && cam->height > 0 && cam->width <= CAMERA_MAX_PIXELS &&
                 cam->height <= CAMERA_MAX_PIXELS,
             PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Cannot render '%s': image size %" PetscInt_FMT "x%" PetscInt_FMT " is outside 1..%d",
             path, cam->width, cam->height, CAMERA_MAX_PIXELS);
  PetscCheck(cam->radius > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Cannot render '%s': camera radius %g must be positive (fit it with SimCameraFit)",
             path, (double)cam->radius);
  PetscCheck(snprintf(tmp, sizeof(tmp), "%s.tmp", path) < (int)sizeof(tmp), PETSC_COMM_SELF,
             PETSC_ERR_ARG_SIZ, "Output path '%s' is too long", path);

  /* Everything that can fail with a PETSc error happens before cairo objects exist, so that no
   * early return leaks them. */
  PetscCall(CollectFaces(model, &nface, &faces, &owned));
  PetscCall(PetscMalloc2(3 * model->nv, &s, nface, &keys));
  ViewSetUp(cam, &view);
  Project(&view, model->nv, x, s);

  surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)cam->width, (int)cam->height);
  cr = cairo_create(surface);
  status = cairo_status(cr);
  if (status == CAIRO_STATUS_SUCCESS) {
    DrawModel(cr, model, &view, x, s, nface, faces, keys, caption);
    status = cairo_status(cr);
  }
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_write_to_png(surface, tmp);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  PetscCall(PetscFree2(s, keys));
  PetscCall(PetscFree(owned));

  if (status != CAIRO_STATUS_SUCCESS) remove(tmp);
  PetscCheck(status == CAIRO_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE,
             "Cannot write '%s': %s (cairo)", path, cairo_status_to_string(status));
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE,
             "Cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
  PetscFunctionReturn(0);
}

/* Colour ramp stops (approximately matplotlib's viridis at 0, 1/4, 1/2, 3/4, 1). */
static const double kRamp[5][3] = {{0.267, 0.005, 0.329}, {0.229, 0.322, 0.546}, {0.128, 0.567, 0.551}, {0.369, 0.789, 0.383}, {0.993, 0.906, 0.144}};

static void RampColour(double s, double rgb[3])
{
  double x = PetscMax(0.0, PetscMin(1.0, s)) * 4;
  int k = (int)PetscMin(3.0, floor(x));
  double t = x - k;
  for (int c = 0; c < 3; c++) rgb[c] = (1 - t) * kRamp[k][c] + t * kRamp[k + 1][c];
}

PetscErrorCode SimPNGWriteRaster(PetscInt nx, PetscInt ny, const PetscReal *values, PetscReal vmin, PetscReal vmax, PetscInt scale,
                                 const char *caption, const char *path)
{
  char tmp[PETSC_MAX_PATH_LEN], text[256];
  cairo_surface_t *surface;
  cairo_t *cr;
  cairo_status_t status;
  unsigned char *pix;
  int stride, W, H;
  double range = vmax > vmin ? vmax - vmin : 1.0;

  PetscFunctionBeginUser;
  PetscCheck(nx > 0 && ny > 0 && scale > 0 && nx * scale <= CAMERA_MAX_PIXELS && ny * scale <= CAMERA_MAX_PIXELS, PETSC_COMM_SELF,
             PETSC_ERR_ARG_OUTOFRANGE, "Cannot render '%s': %" PetscInt_FMT "x%" PetscInt_FMT " cells at %" PetscInt_FMT " pixels each", path, nx,
             ny, scale);
  PetscCheck(snprintf(tmp, sizeof(tmp), "%s.tmp", path) < (int)sizeof(tmp), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Output path '%s' is too long",
             path);
  W = (int)(nx * scale);
  H = (int)(ny * scale);
  surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
  status = cairo_surface_status(surface);
  if (status == CAIRO_STATUS_SUCCESS) {
    cairo_surface_flush(surface);
    pix = cairo_image_surface_get_data(surface);
    stride = cairo_image_surface_get_stride(surface);
    for (int py = 0; py < H; py++)
      for (int px = 0; px < W; px++) {
        PetscInt i = px / scale, j = (H - 1 - py) / scale; /* row 0 of the image is the top of the box */
        double rgb[3];
        uint32_t *p = (uint32_t *)(pix + (size_t)py * stride) + px;
        RampColour((values[i + nx * j] - vmin) / range, rgb);
        *p = ((uint32_t)(255 * rgb[0] + 0.5) << 16) | ((uint32_t)(255 * rgb[1] + 0.5) << 8) | (uint32_t)(255 * rgb[2] + 0.5);
      }
    cairo_surface_mark_dirty(surface);
  }
  cr = cairo_create(surface);
  status = cairo_status(cr);
  if (status == CAIRO_STATUS_SUCCESS && caption && caption[0]) {
    snprintf(text, sizeof(text), "%s  [%.3g, %.3g]", caption, (double)vmin, (double)vmax);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 13);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_move_to(cr, 8, 18);
    cairo_show_text(cr, text);
    status = cairo_status(cr);
  }
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_write_to_png(surface, tmp);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) remove(tmp);
  PetscCheck(status == CAIRO_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write '%s': %s (cairo)", path,
             cairo_status_to_string(status));
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
  PetscFunctionReturn(0);
}

/* Particles as discs coloured by value on the ramp, drawn back to front. */
PetscErrorCode SimPNGWritePoints(PetscInt n, const PetscReal *x, const PetscReal *values, PetscReal vmin, PetscReal vmax, PetscReal radius,
                                 const SimCamera *cam, const char *caption, const char *path)
{
  char tmp[PETSC_MAX_PATH_LEN];
  DepthKey *keys;
  double *s;
  View view;
  cairo_surface_t *surface;
  cairo_t *cr;
  cairo_status_t status;

  PetscFunctionBeginUser;
  PetscCheck(cam->width > 0 && cam->height > 0 && cam->width <= CAMERA_MAX_PIXELS && cam->height <= CAMERA_MAX_PIXELS && cam->radius > 0,
             PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Cannot render '%s': the camera is not fitted", path);
  PetscCheck(snprintf(tmp, sizeof(tmp), "%s.tmp", path) < (int)sizeof(tmp), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Output path '%s' is too long",
             path);
  PetscCall(PetscMalloc2(3 * n, &s, n, &keys));
  ViewSetUp(cam, &view);
  Project(&view, n, x, s);
  for (PetscInt i = 0; i < n; i++) keys[i].depth = Dot(&x[3 * i], view.toward), keys[i].face = i;
  if (n) qsort(keys, (size_t)n, sizeof(DepthKey), CompareDepth);
  surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)cam->width, (int)cam->height);
  cr = cairo_create(surface);
  status = cairo_status(cr);
  if (status == CAIRO_STATUS_SUCCESS) {
    cairo_set_source_rgb(cr, kBackground[0], kBackground[1], kBackground[2]);
    cairo_paint(cr);
    for (PetscInt k = 0; k < n; k++) {
      const PetscInt i = keys[k].face;
      double rgb[3];
      if (values) RampColour(vmax > vmin ? (values[i] - vmin) / (vmax - vmin) : 0.5, rgb);
      else rgb[0] = kCloth[0], rgb[1] = kCloth[1], rgb[2] = kCloth[2];
      cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
      cairo_new_sub_path(cr);
      cairo_arc(cr, s[3 * i], s[3 * i + 1], radius, 0, 2 * PETSC_PI);
      cairo_fill(cr);
    }
    if (caption && caption[0]) DrawCaption(cr, caption);
    status = cairo_status(cr);
  }
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_write_to_png(surface, tmp);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  PetscCall(PetscFree2(s, keys));
  if (status != CAIRO_STATUS_SUCCESS) remove(tmp);
  PetscCheck(status == CAIRO_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write '%s': %s (cairo)", path,
             cairo_status_to_string(status));
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
  PetscFunctionReturn(0);
}
