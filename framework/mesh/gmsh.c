/* Gmsh .msh reader through PETSc's DMPlex: tetrahedra, or the triangles and quads of a surface. */
#include <ctype.h>
#include <string.h>
#include <petscdmplex.h>
#include "framework/mesh/mesh_impl.h"

/* Reads the first two lines ourselves, so that a file that is not Gmsh at all gets a plain
 * message, and to learn whether it is ASCII or binary (DMPlex needs the matching viewer). */
static PetscErrorCode ReadHeader(SimMeshLineReader *r, PetscBool *binary)
{
  PetscBool more;
  const char *s;
  double version = 0;
  int type = -1, size = 0;

  PetscFunctionBeginUser;
  PetscCall(SimMeshLineReaderNext(r, &more));
  s = more ? r->line : "";
  while (isspace((unsigned char)*s))
    s++;
  PetscCheck(!strncmp(s, "$MeshFormat", 11), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "%s:1: not a valid Gmsh file: it must start with $MeshFormat", r->path);
  PetscCall(SimMeshLineReaderNext(r, &more));
  PetscCheck(
      more && sscanf(r->line, "%lf %d %d", &version, &type, &size) == 3 && (type == 0 || type == 1),
      PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
      "%s:2: not a valid Gmsh file: expected '<version> <0 = ASCII or 1 = binary> <data size>'",
      r->path);
  /* The versions DMPlex reads (plexgmsh.c): 2.2, 4.0 and 4.1. */
  PetscCheck(version >= 2.2 - 1e-9 && version <= 4.1 + 1e-9 && (int)version != 3, PETSC_COMM_SELF,
             PETSC_ERR_FILE_UNEXPECTED,
             "%s:2: Gmsh format version %g is not supported (2.2, 4.0 and 4.1 are)", r->path,
             version);
  *binary = type == 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* DMPlexCreateGmshFromFile cannot be told to keep z for a surface mesh (its embedding dimension
 * defaults to the topological one), so the viewer is built here, as it does, with the reader's
 * options in a private database: the user's options are untouched and -options_left sees none. */
static PetscErrorCode CreatePlex(const char *path, PetscBool binary, DM *dm)
{
  PetscOptions opts;
  PetscViewer viewer;
  PetscErrorCode ierr;
  char msg[1024] = "";

  PetscFunctionBeginUser;
  *dm = NULL;
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsSetValue(opts, "-dm_plex_gmsh_spacedim", "3"));
  /* Vertex coordinates only: a high-order or periodic mesh would store them per cell. */
  PetscCall(PetscOptionsSetValue(opts, "-dm_plex_gmsh_highorder", "false"));
  PetscCall(PetscOptionsSetValue(opts, "-dm_plex_gmsh_periodic", "false"));
  PetscCall(PetscViewerCreate(PETSC_COMM_SELF, &viewer));
  PetscCall(PetscObjectSetOptions((PetscObject)viewer, opts));
  PetscCall(PetscViewerSetType(viewer, binary ? PETSCVIEWERBINARY : PETSCVIEWERASCII));
  if (binary) {
    PetscCall(PetscViewerBinarySetSkipInfo(viewer, PETSC_TRUE));
    PetscCall(PetscViewerBinarySetSkipOptions(viewer, PETSC_TRUE));
  }
  PetscCall(PetscViewerFileSetMode(viewer, FILE_MODE_READ));
  PetscCall(PetscViewerFileSetName(viewer, path));

  /* PETSc's reader reports a malformed file as an error of its own; catch it silently and
   * raise one that names the file, with PETSc's message as the reason. */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = DMPlexCreateGmsh(PETSC_COMM_SELF, viewer, PETSC_FALSE, dm);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char *text = NULL;
    char *specific = NULL;

    /* PETSc's own message, or the generic text of its error code when it gave none */
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    if (!specific || !specific[0] || specific[0] == ' ')
      specific = (char *)(text ? text : "unknown error");
    PetscCall(PetscStrncpy(msg, specific, sizeof(msg)));
    /* The reader creates the DM before it parses; what it allocated for parsing is its own. */
    if (*dm) {
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      (void)DMDestroy(dm);
      PetscCall(PetscPopErrorHandler());
      *dm = NULL;
    }
  }
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(PetscOptionsDestroy(&opts));
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "'%s' is not a valid Gmsh file: %s",
             path, msg);
  PetscFunctionReturn(0);
}

/* Copies vertex coordinates and cells out of the (uninterpolated) DMPlex: each cell's cone is
 * its vertices, numbered from the start of the vertex stratum. */
static PetscErrorCode ExtractMesh(const char *path, DM dm, SimMesh *mesh)
{
  PetscInt dim, cdim, cStart, cEnd, vStart, vEnd, nsplit = 0;
  PetscSection cs;
  Vec coords;
  const PetscScalar *c;

  PetscFunctionBeginUser;
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "'%s': its highest elements have dimension %" PetscInt_FMT
             "; pbsim reads tetrahedra or surface triangles",
             path, dim);
  PetscCheck(cEnd > cStart && vEnd > vStart, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
             "'%s': no elements", path);

  mesh->nv = vEnd - vStart;
  PetscCall(PetscMalloc1(3 * mesh->nv, &mesh->xyz));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &coords));
  PetscCall(VecGetArrayRead(coords, &c));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt off, dof;

    PetscCall(PetscSectionGetOffset(cs, v, &off));
    PetscCall(PetscSectionGetDof(cs, v, &dof));
    for (PetscInt k = 0; k < 3; k++)
      mesh->xyz[3 * (v - vStart) + k] = k < PetscMin(dof, cdim) ? PetscRealPart(c[off + k]) : 0;
  }
  PetscCall(VecRestoreArrayRead(coords, &c));

  /* Cell types first, to size the element arrays (quadrilaterals become two triangles). */
  for (PetscInt e = cStart; e < cEnd; e++) {
    PetscInt n;

    PetscCall(DMPlexGetConeSize(dm, e, &n));
    PetscCheck(dim == 3 ? n == 4 : (n == 3 || n == 4), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "'%s': element %" PetscInt_FMT " has %" PetscInt_FMT " vertices; pbsim reads %s",
               path, e - cStart, n,
               dim == 3 ? "tetrahedra only (no hexahedra, prisms or pyramids)"
                        : "triangles and quadrilaterals");
    if (n == 4 && dim == 2) nsplit++;
  }
  if (dim == 3)
    PetscCall(PetscMalloc1(4 * (cEnd - cStart), &mesh->tet));
  else
    PetscCall(PetscMalloc1(3 * (cEnd - cStart + nsplit), &mesh->tri));
  for (PetscInt e = cStart; e < cEnd; e++) {
    const PetscInt *cone;
    PetscInt n;

    PetscCall(DMPlexGetConeSize(dm, e, &n));
    PetscCall(DMPlexGetCone(dm, e, &cone));
    for (PetscInt k = 0; k < n; k++) {
      PetscCheck(cone[k] >= vStart && cone[k] < vEnd, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "'%s': element %" PetscInt_FMT " refers to a point that is not a vertex", path,
                 e - cStart);
    }
    if (dim == 3) {
      for (PetscInt k = 0; k < 4; k++)
        mesh->tet[4 * mesh->ntet + k] = cone[k] - vStart;
      mesh->ntet++;
    } else {
      /* A quadrilateral's cone is cyclic, so the fan (0,1,2), (0,2,3) splits it. */
      for (PetscInt k = 1; k + 1 < n; k++) {
        PetscInt *t = mesh->tri + 3 * mesh->ntri++;
        t[0] = cone[0] - vStart;
        t[1] = cone[k] - vStart;
        t[2] = cone[k + 1] - vStart;
      }
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshRead_Gmsh(const char *path, SimMesh *mesh)
{
  SimMeshLineReader r;
  PetscBool binary = PETSC_FALSE;
  PetscErrorCode ierr;
  DM dm;

  PetscFunctionBeginUser;
  PetscCall(SimMeshLineReaderOpen(path, &r));
  ierr = ReadHeader(&r, &binary);
  PetscCall(SimMeshLineReaderClose(&r));
  PetscCall(ierr);
  PetscCall(CreatePlex(path, binary, &dm));
  ierr = ExtractMesh(path, dm, mesh);
  PetscCall(DMDestroy(&dm));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}
