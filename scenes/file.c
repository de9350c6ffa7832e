/* The file scene: one body read from a mesh file (.obj surface: edge and bending springs; .msh or
 * .node/.ele tetrahedra: edge springs), with lumped masses from its density. */
#include "scenes/scenes.h"
#include "energies/springs.h"
#include "scenes/fem_body.h"
#include "framework/mesh/mesh.h"
#include "framework/linalg/vec3.h"

#define FILE_MAX_PINS 4096

typedef struct {
  char path[PETSC_MAX_PATH_LEN];
  PetscReal scale, translate[3], density, k, k_bend, damping, top_fraction;
  PetscBool density_set; /* else the default for the mesh read: volume or surface */
  PetscInt npin, *pin;
  char material[64]; /* empty: edge springs; else an FEM body of this material (tet meshes) */
} FileOptions;

static PetscErrorCode ReadOptions(MPI_Comm comm, FileOptions *o)
{
  PetscBool set, tset, kbset;
  PetscInt nt = 3;

  PetscFunctionBeginUser;
  o->scale = 1;
  o->translate[0] = o->translate[1] = o->translate[2] = 0;
  o->density = 1000;
  o->k = 1000;
  o->k_bend = 100;
  o->damping = 0;
  o->top_fraction = 0;
  o->npin = FILE_MAX_PINS;
  PetscCall(PetscMalloc1(FILE_MAX_PINS, &o->pin));
  PetscOptionsBegin(comm, "file_", "File scene (a body from a mesh file)", "");
  PetscCall(PetscOptionsString("-mesh",
                               "mesh file: .obj (surface), .msh (Gmsh) or .node/.ele (TetGen)", "",
                               o->path, o->path, sizeof(o->path), NULL));
  PetscCall(PetscOptionsReal("-scale", "uniform scale applied to the file's coordinates", "",
                             o->scale, &o->scale, NULL));
  PetscCall(PetscOptionsRealArray("-translate", "translation x,y,z (m), applied after scaling", "",
                                  o->translate, &nt, &tset));
  PetscCall(PetscOptionsReal(
      "-density", "kg/m^3 for tetrahedra (default 1000), kg/m^2 for surfaces (default 0.1)", "",
      o->density, &o->density, &o->density_set));
  PetscCall(PetscOptionsString("-material", "tet meshes: an FEM body of this material (-file_youngs, -file_poisson) instead of edge springs", "",
                               o->material, o->material, sizeof(o->material), NULL));
  PetscCall(PetscOptionsReal("-k", "edge spring stiffness (N/m)", "", o->k, &o->k, NULL));
  PetscCall(PetscOptionsReal(
      "-k_bend",
      "bending springs across interior edges of a surface (N/m; default 0.1 k; 0 = none)", "",
      o->k_bend, &o->k_bend, &kbset));
  PetscCall(PetscOptionsReal("-damping", "damping along the edge springs (N s/m)", "", o->damping,
                             &o->damping, NULL));
  PetscCall(PetscOptionsIntArray("-pin", "pinned vertex indices i,j,... (file order, from 0)", "",
                                 o->pin, &o->npin, &set));
  if (!set) o->npin = 0;
  PetscCheck(
      o->npin < FILE_MAX_PINS, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
      "-file_pin takes at most %d indices; use -file_pin_top_fraction for large pinned regions",
      FILE_MAX_PINS - 1);
  PetscCall(PetscOptionsReal(
      "-pin_top_fraction", "pin vertices whose y is within this fraction of the height of the top",
      "", o->top_fraction, &o->top_fraction, NULL));
  PetscOptionsEnd();

  PetscCheck(o->path[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "The file scene needs a mesh: -file_mesh PATH (.obj, .msh, or TetGen .node/.ele)");
  PetscCheck(o->scale > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-file_scale must be > 0 (got %g)", (double)o->scale);
  PetscCheck(!tset || nt == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "-file_translate takes 3 values x,y,z (got %" PetscInt_FMT ")", nt);
  PetscCheck(o->density > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-file_density must be > 0 (got %g): masses come from it", (double)o->density);
  PetscCheck(o->k >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-file_k must be >= 0 (got %g)",
             (double)o->k);
  if (!kbset) o->k_bend = 0.1 * o->k;
  PetscCheck(o->k_bend >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-file_k_bend must be >= 0 (got %g)", (double)o->k_bend);
  PetscCheck(o->damping >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-file_damping must be >= 0 (got %g)", (double)o->damping);
  PetscCheck(o->top_fraction >= 0 && o->top_fraction <= 1, PETSC_COMM_SELF,
             PETSC_ERR_ARG_OUTOFRANGE, "-file_pin_top_fraction must be in [0, 1] (got %g)",
             (double)o->top_fraction);
  PetscFunctionReturn(0);
}

/* Longest edge of an element with n corners: the length scale that decides "degenerate". */
static PetscReal LongestEdge(const PetscReal *xyz, const PetscInt *c, int n)
{
  PetscReal d[3], h = 0;
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++) {
      Vec3Sub(xyz + 3 * c[a], xyz + 3 * c[b], d);
      h = PetscMax(h, Vec3Norm(d));
    }
  return h;
}

/* Lumped mass: each element gives density * measure / (number of corners) to each corner.
 * An element whose measure is negligible against its longest edge is an input error (it would
 * give no mass and, for FEM, a singular rest shape). */
static PetscErrorCode LumpedMass(const SimMesh *mesh, const char *path, PetscReal density,
                                 PetscReal *mass)
{
  PetscReal u[3], v[3], c[3];

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(mass, mesh->nv));
  if (mesh->ntet) {
    for (PetscInt e = 0; e < mesh->ntet; e++) {
      const PetscInt *t = mesh->tet + 4 * e;
      PetscReal vol = Vec3TetVolume(mesh->xyz, t), h = LongestEdge(mesh->xyz, t, 4);
      PetscCheck(PetscAbsReal(vol) > 1e-12 * h * h * h, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "Tetrahedron %" PetscInt_FMT " of '%s' (vertices %" PetscInt_FMT " %" PetscInt_FMT
                 " %" PetscInt_FMT " %" PetscInt_FMT ") is degenerate: volume %g",
                 e, path, t[0], t[1], t[2], t[3], (double)vol);
      for (int k = 0; k < 4; k++)
        mass[t[k]] += density * PetscAbsReal(vol) / 4;
    }
  } else {
    for (PetscInt e = 0; e < mesh->ntri; e++) {
      const PetscInt *t = mesh->tri + 3 * e;
      PetscReal area, h = LongestEdge(mesh->xyz, t, 3);

      Vec3Sub(mesh->xyz + 3 * t[1], mesh->xyz + 3 * t[0], u);
      Vec3Sub(mesh->xyz + 3 * t[2], mesh->xyz + 3 * t[0], v);
      Vec3Cross(u, v, c);
      area = Vec3Norm(c) / 2;
      PetscCheck(area > 1e-12 * h * h, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "Triangle %" PetscInt_FMT " of '%s' (vertices %" PetscInt_FMT " %" PetscInt_FMT
                 " %" PetscInt_FMT ") is degenerate: area %g",
                 e, path, t[0], t[1], t[2], (double)area);
      for (int k = 0; k < 3; k++)
        mass[t[k]] += density * area / 3;
    }
  }
  /* A vertex no element uses would have no mass; say which one rather than fail in the model. */
  for (PetscInt i = 0; i < mesh->nv; i++) {
    PetscCheck(mass[i] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "Vertex %" PetscInt_FMT
               " of '%s' belongs to no %s, so it has no mass: remove unused vertices from the file",
               i, path, mesh->ntet ? "tetrahedron" : "triangle");
  }
  PetscFunctionReturn(0);
}

/* Springs: every edge (k, damping), and for a surface a bending spring across every interior
 * edge between the two opposite vertices (k_bend, undamped). */
static PetscErrorCode FillSprings(const SimMesh *mesh, const FileOptions *o, SimSpringList *springs)
{
  PetscInt nedge, *edge, npair = 0, *pair = NULL;

  PetscFunctionBeginUser;
  PetscCall(SimMeshEdges(mesh, &nedge, &edge));
  if (!mesh->ntet && o->k_bend > 0) PetscCall(SimMeshBendingPairs(mesh, &npair, &pair));
  for (PetscInt e = 0; (o->k > 0 || o->damping > 0) && e < nedge; e++) {
    PetscCall(SimSpringListAdd(springs, edge[2 * e], edge[2 * e + 1], o->k, o->damping));
  }
  for (PetscInt p = 0; p < npair; p++)
    PetscCall(SimSpringListAdd(springs, pair[2 * p], pair[2 * p + 1], o->k_bend, 0));
  PetscCall(PetscFree(edge));
  PetscCall(PetscFree(pair));
  PetscFunctionReturn(0);
}

static PetscErrorCode AddPins(const SimMesh *mesh, const FileOptions *o, SimModel model)
{
  PetscReal ymin = PETSC_MAX_REAL, ymax = PETSC_MIN_REAL;

  PetscFunctionBeginUser;
  for (PetscInt p = 0; p < o->npin; p++) {
    PetscCheck(o->pin[p] >= 0 && o->pin[p] < mesh->nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "-file_pin: vertex %" PetscInt_FMT
               " is out of range; '%s' has vertices [0, %" PetscInt_FMT ")",
               o->pin[p], o->path, mesh->nv);
    PetscInt j;
    PetscCall(SimModelVertexFromNatural(model, o->pin[p], &j)); /* the FEM body may renumber */
    PetscCall(SimModelPin(model, j, "-file_pin"));
  }
  if (o->top_fraction <= 0) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < mesh->nv; i++) {
    ymin = PetscMin(ymin, mesh->xyz[3 * i + 1]);
    ymax = PetscMax(ymax, mesh->xyz[3 * i + 1]);
  }
  for (PetscInt i = 0; i < mesh->nv; i++) {
    if (mesh->xyz[3 * i + 1] >= ymax - o->top_fraction * (ymax - ymin))
      PetscCall(SimModelPin(model, i, "-file_pin_top_fraction"));
  }
  PetscFunctionReturn(0);
}

/* Everything after reading: transform, masses, springs, topology, pins. */
static PetscErrorCode BuildBody(SimScene scene, const FileOptions *o, SimMesh *mesh, PetscReal *mass,
                                SimSpringList *springs, SimModel model)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < mesh->nv; i++)
    for (int d = 0; d < 3; d++)
      mesh->xyz[3 * i + d] = o->scale * mesh->xyz[3 * i + d] + o->translate[d];
  if (o->material[0]) {
    PetscCheck(mesh->ntet, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "-file_material needs a tetrahedral mesh; '%s' is a surface (drop -file_material to use springs)", o->path);
    PetscCall(SimSceneAddFEMBody(scene, model, mesh, "file_", o->material, 1e5));
    PetscCall(AddPins(mesh, o, model));
    PetscFunctionReturn(0);
  }
  PetscCall(
      LumpedMass(mesh, o->path, o->density_set ? o->density : (mesh->ntet ? 1000 : 0.1), mass));
  PetscCall(SimModelSetVertices(model, mesh->nv, mesh->xyz));
  for (PetscInt i = 0; i < mesh->nv; i++)
    PetscCall(SimModelSetVertexMass(model, i, mass[i]));
  PetscCall(FillSprings(mesh, o, springs));
  PetscCall(SimSpringListAddToModel(springs, model, "spring"));

  /* Output topology: the surface itself, or the boundary of the tets (so a picture shows a
   * surface) plus the tets for ParaView. */
  if (mesh->ntet) {
    PetscInt nface, *face;

    PetscCall(SimMeshBoundaryFaces(mesh, &nface, &face));
    PetscCall(SimModelSetTopology(model, nface, face, 0, NULL, mesh->ntet, mesh->tet));
    PetscCall(PetscFree(face));
  } else {
    PetscCall(SimModelSetTopology(model, mesh->ntri, mesh->tri, 0, NULL, 0, NULL));
  }
  PetscCall(AddPins(mesh, o, model));
  PetscFunctionReturn(0);
}

static PetscErrorCode Build_File(SimScene scene, SimProblem problem)
{
  SimModel model;
  FileOptions o;
  SimMesh mesh = {0};
  SimSpringList springs = {0};
  PetscReal *mass = NULL;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  PetscCall(PetscMemzero(&o, sizeof(o)));
  /* Bad input is expected here (a wrong path, a degenerate element, a pin out of range): free
   * what was allocated whichever step fails, then pass the error on. */
  ierr = ReadOptions(model->comm, &o);
  if (!ierr) ierr = SimMeshRead(model->comm, o.path, &mesh);
  if (!ierr) ierr = PetscMalloc1(mesh.nv, &mass);
  if (!ierr) ierr = BuildBody(scene, &o, &mesh, mass, &springs, model);
  PetscCall(SimSpringListFree(&springs));
  PetscCall(PetscFree(mass));
  PetscCall(PetscFree(o.pin));
  PetscCall(SimMeshFree(&mesh));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_File(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_File;
  PetscFunctionReturn(0);
}
