/* PNG snapshots without ParaView: a small orthographic rasterizer over cairo. */
#pragma once
#include "framework/model/model.h"

/* A camera looking at a bounding box from a fixed direction (elevation/azimuth in degrees),
 * fitted once from the initial state so that frames of a run share one view. */
typedef struct {
  PetscReal center[3];
  PetscReal radius;    /* half the bounding-box diagonal, m */
  PetscReal azimuth;   /* degrees about +y */
  PetscReal elevation; /* degrees above the horizontal */
  PetscInt width, height;
} SimCamera;

/* Fits the camera to the bounding box of npoints points x (flat 3*npoints), enlarged by `margin` (fraction); the radius
 * is at least 1 mm so that a single point still gets a view. Sets every field: the view direction
 * and size to the defaults (azimuth 30, elevation 20, 800x600), which the caller may then change. */
PetscErrorCode SimCameraFit(PetscInt npoints, const PetscReal *x, PetscReal margin, SimCamera *cam);
/* Renders the model at x: triangles (or, without any, the tetrahedra's faces) flat-shaded in
 * painter's order with two-sided lighting, segments as lines, vertices of point-only models as
 * dots, pinned vertices marked in red, and a caption (e.g. "cloth  t = 1.00 s") in the top-left
 * corner. The image is written to path + ".tmp" and renamed. */
PetscErrorCode SimPNGWrite(SimModel model, const PetscReal *x, const SimCamera *cam, const char *caption, const char *path);

/* n points x (flat 3n) as discs of `radius` pixels seen by cam, back to front, coloured by values[i]
 * on the ramp over [vmin, vmax] (values NULL: one colour), with the caption; particles, bodies. */
PetscErrorCode SimPNGWritePoints(PetscInt n, const PetscReal *x, const PetscReal *values, PetscReal vmin, PetscReal vmax, PetscReal radius,
                                 const SimCamera *cam, const char *caption, const char *path);
/* A colour-mapped raster image of a scalar field: values[i + nx j] on an nx x ny grid, j = 0 at
 * the bottom; each grid cell becomes a square of `scale` pixels (nearest neighbour), coloured by
 * a perceptual ramp (dark blue - teal - yellow, viridis-like) over [vmin, vmax] (values outside
 * are clamped), with the caption and the range in the top-left corner. Written to path + ".tmp"
 * and renamed. */
PetscErrorCode SimPNGWriteRaster(PetscInt nx, PetscInt ny, const PetscReal *values, PetscReal vmin, PetscReal vmax, PetscInt scale,
                                 const char *caption, const char *path);
