/* ParaView output of a Lagrangian model: one binary .vtu per frame plus a .pvd index. */
#pragma once
#include "framework/model/model.h"

/* Writes positions x (flat 3*nv) and velocities v as an UnstructuredGrid with the model's output
 * topology (triangles, segments, tetrahedra; vertices as VTK_VERTEX cells when it has none) and
 * point data "velocity" and "mass" and "pinned". Binary appended raw encoding. The file is written
 * to a temporary name and renamed, so a crash never leaves a truncated frame. */
PetscErrorCode SimVTKWriteFrame(SimModel model, const PetscReal *x, const PetscReal *v, const char *path);

/* A named per-point field of a point cloud: ncomp values per point, point-major. */
typedef struct {
  const char *name;
  PetscInt ncomp;
  const PetscReal *data;
} SimVTKField;
/* Writes n points (xyz: 3n, z = 0 in 2D) with point-data fields as an UnstructuredGrid of VTK_VERTEX
 * cells (particles, bodies' centres). Temporary file + rename, as SimVTKWriteFrame. */
PetscErrorCode SimVTKWritePoints(const char *path, PetscInt n, const PetscReal *xyz, PetscInt nfields, const SimVTKField fields[]);
/* The .pvd index: a collection of (time, file) entries. Created empty (via a temporary file and a
 * rename); each added frame is appended in place before the closing tags, so the file is valid
 * after every call and adding costs the same at frame 10 and frame 10,000. */
typedef struct _p_SimPVD *SimPVD;
PetscErrorCode SimPVDCreate(const char *path, SimPVD *pvd);
PetscErrorCode SimPVDAdd(SimPVD pvd, PetscReal time, const char *file); /* file relative to the .pvd */
PetscErrorCode SimPVDDestroy(SimPVD *pvd); /* accepts NULL */
