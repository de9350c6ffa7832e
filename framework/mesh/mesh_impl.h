/* Private interface between SimMeshRead (mesh.c) and the per-format readers (obj.c, gmsh.c,
 * tetgen.c): the reader entry points and a line reader that counts lines for error messages. */
#pragma once
#include <stdio.h>
#include "framework/mesh/mesh.h"

/* Each reader fills a zeroed *mesh from `path` (already known to exist and be readable) or
 * raises an error naming the file, and the line where the format has lines. Vertex indices are
 * 0-based; tetrahedra may come in either orientation (SimMeshRead makes them positive). */
PetscErrorCode SimMeshRead_Obj(const char *path, SimMesh *mesh);
PetscErrorCode SimMeshRead_Gmsh(const char *path, SimMesh *mesh);
PetscErrorCode SimMeshRead_TetGen(const char *path, SimMesh *mesh);

/* Reads a text file line by line with no length limit. `line` holds the current line without
 * its newline; `lineno` is its 1-based number. */
typedef struct {
  const char *path;
  FILE *fp;
  char *line;
  size_t cap;
  PetscInt lineno;
} SimMeshLineReader;

/* Opens `path`; a file that cannot be opened is an error "Cannot open mesh file '<path>': <why>".
 */
PetscErrorCode SimMeshLineReaderOpen(const char *path, SimMeshLineReader *r);
/* Advances to the next line; *more is PETSC_FALSE at the end of the file. */
PetscErrorCode SimMeshLineReaderNext(SimMeshLineReader *r, PetscBool *more);
/* Bytes left after the current position (for a header count that the rest of the file must hold). */
PetscErrorCode SimMeshLineReaderRemaining(SimMeshLineReader *r, size_t *bytes);
PetscErrorCode SimMeshLineReaderClose(SimMeshLineReader *r);
