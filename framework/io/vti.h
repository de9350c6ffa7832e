/* ParaView output of grid fields: one VTK ImageData (.vti) file of cell data per frame. */
#pragma once
#include <petscsys.h>

/* One cell-data array: ncomp values per cell, cells in x-fastest order (i + n0 (j + n1 k)). */
typedef struct {
  const char *name;
  PetscInt ncomp; /* 1 (scalar) or 3 (vector) */
  const PetscReal *data;
} SimVTIField;

/* Writes the box [0, n0 h] x [0, n1 h] (x [0, n2 h]) with origin 0 and spacing h as ImageData
 * with the fields as cell data (binary appended raw Float64). In 2D (dim 2) the image is one
 * layer of cells. The file is written to a temporary name and renamed. Not collective: call it
 * on the rank that holds the gathered fields. */
PetscErrorCode SimVTIWrite(const char *path, PetscInt dim, const PetscInt n[3], PetscReal h, PetscInt nfields,
                           const SimVTIField fields[]);
