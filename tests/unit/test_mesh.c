/* Unit tests of mesh input (.obj, Gmsh .msh, TetGen .node/.ele), the derived topology (edges,
 * bending pairs, boundary faces) and the "file" scene built from a mesh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testing.h"
#include "framework/mesh/mesh.h"
#include "framework/scene.h"

#define DATA(name) PBSIM_TEST_DATA "/" name
/* Real-world meshes shared next to the repository; absent on a user's clone, so tests skip. */
#define SHARED_MESHES PBSIM_SOURCE_DIR "/../shared/meshes"

/* ---- helpers ---- */

/* Runs `call` expecting it to fail, and returns PETSc's message of the first error (the one the
 * user sees) in msg. */
#define EXPECT_ERROR(call, msg)                                                                    \
  do {                                                                                             \
    PetscErrorCode ierr_;                                                                          \
    char *specific_ = NULL;                                                                        \
    CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));                             \
    ierr_ = (call);                                                                                \
    CHECK_PETSC(PetscPopErrorHandler());                                                           \
    ck_assert_msg(ierr_ != 0, "%s should have failed", #call);                                     \
    CHECK_PETSC(PetscErrorMessage(ierr_, NULL, &specific_));                                       \
    snprintf(msg, sizeof(msg), "%s", specific_ ? specific_ : "");                                  \
  } while (0)

#define ASSERT_CONTAINS(msg, part)                                                                 \
  ck_assert_msg(strstr(msg, part) != NULL, "message '%s' lacks '%s'", msg, part)

/* Reading `path` must fail with a message containing both parts, and leave the mesh empty. */
static void ExpectReadError(const char *path, const char *part1, const char *part2)
{
  SimMesh mesh;
  char msg[1024];

  EXPECT_ERROR(SimMeshRead(PETSC_COMM_SELF, path, &mesh), msg);
  ASSERT_CONTAINS(msg, part1);
  if (part2) ASSERT_CONTAINS(msg, part2);
  ck_assert_int_eq(mesh.nv, 0);
  ck_assert_ptr_null(mesh.xyz);
  ck_assert_ptr_null(mesh.tri);
  ck_assert_ptr_null(mesh.tet);
}

static PetscReal TetVolume(const PetscReal *xyz, const PetscInt *t)
{
  const PetscReal *a = xyz + 3 * t[0];
  PetscReal u[3], v[3], w[3];

  for (int k = 0; k < 3; k++) {
    u[k] = xyz[3 * t[1] + k] - a[k];
    v[k] = xyz[3 * t[2] + k] - a[k];
    w[k] = xyz[3 * t[3] + k] - a[k];
  }
  return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
          u[2] * (v[0] * w[1] - v[1] * w[0])) /
         6;
}

/* Total volume; every tet must be positively oriented (SimMeshRead's promise). */
static PetscReal TotalVolume(const SimMesh *mesh)
{
  PetscReal vol = 0;

  for (PetscInt e = 0; e < mesh->ntet; e++) {
    PetscReal v = TetVolume(mesh->xyz, mesh->tet + 4 * e);
    ck_assert_msg(v > 0, "tet %d has volume %g", (int)e, (double)v);
    vol += v;
  }
  return vol;
}

/* Volume enclosed by the boundary faces, as the sum of the cones from point c to each face
 * (divergence theorem). It equals the tet volume only if every face points outward. With
 * each_positive, every single cone must be positive (true for a convex body and c inside). */
static PetscReal EnclosedVolume(const SimMesh *mesh, PetscInt nface, const PetscInt *face,
                                const PetscReal c[3], PetscBool each_positive)
{
  PetscReal *xyz, vol = 0;
  PetscInt nv = mesh->nv;

  /* the apex c is appended as vertex nv of a scratch copy */
  xyz = malloc(sizeof(PetscReal) * 3 * (nv + 1));
  memcpy(xyz, mesh->xyz, sizeof(PetscReal) * 3 * nv);
  for (int k = 0; k < 3; k++)
    xyz[3 * nv + k] = c[k];
  for (PetscInt f = 0; f < nface; f++) {
    PetscInt t[4] = {nv, face[3 * f], face[3 * f + 1], face[3 * f + 2]};
    PetscReal v = TetVolume(xyz, t);
    if (each_positive) ck_assert_msg(v > 0, "boundary face %d points inward", (int)f);
    vol += v;
  }
  free(xyz);
  return vol;
}

static PetscBool HasEdge(PetscInt n, const PetscInt *e, PetscInt i, PetscInt j)
{
  for (PetscInt k = 0; k < n; k++)
    if (e[2 * k] == i && e[2 * k + 1] == j) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Edges must come out with i < j, strictly increasing (so unique). */
static void AssertEdgesSorted(PetscInt n, const PetscInt *e)
{
  for (PetscInt k = 0; k < n; k++) {
    ck_assert_int_lt(e[2 * k], e[2 * k + 1]);
    if (k)
      ck_assert(e[2 * k - 2] < e[2 * k] ||
                (e[2 * k - 2] == e[2 * k] && e[2 * k - 1] < e[2 * k + 1]));
  }
}

static int CompareQuad(const void *pa, const void *pb)
{
  const PetscInt *a = pa, *b = pb;
  for (int k = 0; k < 4; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

static int CompareInt(const void *pa, const void *pb)
{
  PetscInt a = *(const PetscInt *)pa, b = *(const PetscInt *)pb;
  return a < b ? -1 : a > b;
}

/* The tets as sets of vertices, sorted: equal for two readers that agree up to orientation. */
static PetscInt *SortedTetSets(const SimMesh *mesh)
{
  PetscInt *t = malloc(sizeof(PetscInt) * 4 * mesh->ntet);
  memcpy(t, mesh->tet, sizeof(PetscInt) * 4 * mesh->ntet);
  for (PetscInt e = 0; e < mesh->ntet; e++)
    qsort(t + 4 * e, 4, sizeof(PetscInt), CompareInt);
  qsort(t, (size_t)mesh->ntet, 4 * sizeof(PetscInt), CompareQuad);
  return t;
}

/* ---- .obj ---- */

START_TEST(test_obj_square)
{
  static const PetscReal xyz[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  static const PetscInt tri[6] = {0, 1, 2, 0, 2, 3};
  SimMesh mesh;
  PetscInt nedge, *edge, npair, *pair;

  CHECK_PETSC(SimMeshRead(PETSC_COMM_SELF, DATA("square.obj"), &mesh));
  ck_assert_int_eq(mesh.nv, 4);
  ck_assert_int_eq(mesh.ntri, 2);
  ck_assert_int_eq(mesh.ntet, 0);
  for (int k = 0; k < 12; k++)
    ck_assert_double_eq(mesh.xyz[k], xyz[k]);
  for (int k = 0; k < 6; k++)
    ck_assert_int_eq(mesh.tri[k], tri[k]); /* a/t/n and a//n forms */

  CHECK_PETSC(SimMeshEdges(&mesh, &nedge, &edge));
  ck_assert_int_eq(nedge, 5);
  AssertEdgesSorted(nedge, edge);
  ck_assert(HasEdge(nedge, edge, 0, 2)); /* the shared diagonal, once */
  ck_assert(!HasEdge(nedge, edge, 1, 3));

  /* one interior edge (0-2): its bending spring joins the opposite corners 1 and 3 */
  CHECK_PETSC(SimMeshBendingPairs(&mesh, &npair, &pair));
  ck_assert_int_eq(npair, 1);
  ck_assert_int_eq(PetscMin(pair[0], pair[1]), 1);
  ck_assert_int_eq(PetscMax(pair[0], pair[1]), 3);
  CHECK_PETSC(PetscFree(edge));
  CHECK_PETSC(PetscFree(pair));
  CHECK_PETSC(SimMeshFree(&mesh));
  CHECK_PETSC(SimMeshFree(&mesh)); /* a freed mesh is zeroed: freeing again is harmless */
}
END_TEST

START_TEST(test_obj_polygons)
{
  /* quad 1 2 3 4 -> (0,1,2), (0,2,3); relative quad -5 -2 -1 -4 after 6 vertices = 2 5 6 3 */
  static const PetscInt tri[12] = {0, 1, 2, 0, 2, 3, 1, 4, 5, 1, 5, 2};
  SimMesh mesh;

  CHECK_PETSC(SimMeshRead(PETSC_COMM_SELF, DATA("polygons.obj"), &mesh));
  ck_assert_int_eq(mesh.nv, 6);
  ck_assert_int_eq(mesh.ntri, 4);
  for (int k = 0; k < 12; k++)
    ck_assert_int_eq(mesh.tri[k], tri[k]);
  CHECK_PETSC(SimMeshFree(&mesh));
}
END_TEST

START_TEST(test_obj_errors)
{
  ExpectReadError(DATA("bad_index.obj"),
                  "bad_index.obj:5:", "face index 7 out of range (file has 3 vertices so far)");
  ExpectReadError(DATA("bad_vertex.obj"), "bad_vertex.obj:3:", "expected 3 coordinates after 'v'");
  ExpectReadError(DATA("no_faces.obj"), "no_faces.obj: no faces", NULL);
  ExpectReadError(DATA("missing.obj"), "Cannot open mesh file '" DATA("missing.obj") "'",
                  "No such file or directory");
  ExpectReadError(DATA("square.stl"), "square.stl",
                  ".obj (Wavefront), .msh (Gmsh), .node/.ele (TetGen)");
}
END_TEST

/* ---- topology on meshes built in memory ---- */

START_TEST(test_edges_single_tet)
{
  PetscReal xyz[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  PetscInt tet[4] = {0, 1, 2, 3}, tri[3] = {3, 1, 2};
  SimMesh mesh = {.nv = 4, .xyz = xyz, .ntet = 1, .tet = tet};
  PetscInt nedge, *edge, nface, *face;
  const PetscReal c[3] = {0.25, 0.25, 0.25};

  CHECK_PETSC(SimMeshEdges(&mesh, &nedge, &edge));
  ck_assert_int_eq(nedge, 6);
  AssertEdgesSorted(nedge, edge);
  CHECK_PETSC(PetscFree(edge));

  /* a triangle on one of its faces adds no edge */
  mesh.ntri = 1;
  mesh.tri = tri;
  CHECK_PETSC(SimMeshEdges(&mesh, &nedge, &edge));
  ck_assert_int_eq(nedge, 6);
  CHECK_PETSC(PetscFree(edge));

  /* all 4 faces are boundary, outward whichever the tet's orientation */
  for (int flip = 0; flip < 2; flip++) {
    if (flip) tet[2] = 3, tet[3] = 2;
    CHECK_PETSC(SimMeshBoundaryFaces(&mesh, &nface, &face));
    ck_assert_int_eq(nface, 4);
    ck_assert_double_eq_tol(EnclosedVolume(&mesh, nface, face, c, PETSC_TRUE), 1.0 / 6, 1e-15);
    CHECK_PETSC(PetscFree(face));
  }
}
END_TEST

/* A Freudenthal (Kuhn) grid: n^3 unit-cube cells of side 1/n, 6 tets each around the cell's
 * (0,0,0)-(1,1,1) diagonal, half of them negatively oriented. Large enough (48k tets) that a
 * quadratic topology pass would make the suite crawl; no wall-time assert, which valgrind and
 * sanitizers would break. */
static void KuhnGrid(PetscInt n, SimMesh *mesh)
{
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const PetscInt n1 = n + 1;
  PetscInt e = 0;

  mesh->nv = n1 * n1 * n1;
  mesh->ntri = 0;
  mesh->tri = NULL;
  mesh->ntet = 6 * n * n * n;
  CHECK_PETSC(PetscMalloc1(3 * mesh->nv, &mesh->xyz));
  CHECK_PETSC(PetscMalloc1(4 * mesh->ntet, &mesh->tet));
  for (PetscInt k = 0; k < n1; k++)
    for (PetscInt j = 0; j < n1; j++)
      for (PetscInt i = 0; i < n1; i++) {
        PetscReal *p = mesh->xyz + 3 * ((k * n1 + j) * n1 + i);
        p[0] = (PetscReal)i / n, p[1] = (PetscReal)j / n, p[2] = (PetscReal)k / n;
      }
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++)
        for (int p = 0; p < 6; p++) {
          PetscInt c[3] = {i, j, k};
          mesh->tet[4 * e] = (c[2] * n1 + c[1]) * n1 + c[0];
          for (int s = 0; s < 3; s++) {
            c[perm[p][s]]++;
            mesh->tet[4 * e + s + 1] = (c[2] * n1 + c[1]) * n1 + c[0];
          }
          e++;
        }
}

START_TEST(test_kuhn_grid_topology)
{
  const PetscInt n = 20; /* 48000 tets */
  const PetscReal c[3] = {0.5, 0.5, 0.5};
  SimMesh mesh;
  PetscInt nedge, *edge, nface, *face;

  KuhnGrid(n, &mesh);
  CHECK_PETSC(SimMeshEdges(&mesh, &nedge, &edge));
  CHECK_PETSC(SimMeshBoundaryFaces(&mesh, &nface, &face));
  /* axis edges + one diagonal per square face + one per cell */
  ck_assert_int_eq(nedge, 3 * n * (n + 1) * (n + 1) + 3 * n * n * (n + 1) + n * n * n);
  AssertEdgesSorted(nedge, edge);
  ck_assert_int_eq(nface, 6 * 2 * n * n);
  ck_assert_double_eq_tol(EnclosedVolume(&mesh, nface, face, c, PETSC_TRUE), 1.0, 1e-12);
  CHECK_PETSC(PetscFree(edge));
  CHECK_PETSC(PetscFree(face));
  CHECK_PETSC(SimMeshFree(&mesh));
}
END_TEST

/* ---- tetrahedral files: the same cube as Gmsh and as TetGen ---- */

/* The unit cube in 6 tets: 8 vertices, 19 edges, 12 outward boundary triangles, volume 1. */
static void CheckCube(const char *path)
{
  const PetscReal c[3] = {0.5, 0.5, 0.5};
  SimMesh mesh;
  PetscInt nedge, *edge, nface, *face;

  CHECK_PETSC(SimMeshRead(PETSC_COMM_SELF, path, &mesh));
  ck_assert_int_eq(mesh.nv, 8);
  ck_assert_int_eq(mesh.ntet, 6);
  ck_assert_int_eq(mesh.ntri, 0); /* the .msh file's boundary triangles and point are not cells */
  ck_assert_double_eq_tol(TotalVolume(&mesh), 1.0, 1e-12);
  CHECK_PETSC(SimMeshEdges(&mesh, &nedge, &edge));
  ck_assert_int_eq(nedge, 19);
  CHECK_PETSC(SimMeshBoundaryFaces(&mesh, &nface, &face));
  ck_assert_int_eq(nface, 12);
  ck_assert_double_eq_tol(EnclosedVolume(&mesh, nface, face, c, PETSC_TRUE), 1.0, 1e-12);
  CHECK_PETSC(PetscFree(edge));
  CHECK_PETSC(PetscFree(face));
  CHECK_PETSC(SimMeshFree(&mesh));
}

START_TEST(test_cube_msh)
{
  CheckCube(DATA("cube.msh"));
}
END_TEST

START_TEST(test_cube_tetgen)
{
  CheckCube(DATA("cube.node"));
  CheckCube(DATA("cube.ele")); /* either name of the pair */
}
END_TEST

/* Two readers of the same mesh agree: vertices in file order (so -file_pin indices mean the
 * same), and the same tets up to orientation. */
static void CompareReaders(const char *a, const char *b, PetscReal rtol)
{
  SimMesh ma, mb;
  PetscInt *ta, *tb;
  PetscReal va, vb;

  CHECK_PETSC(SimMeshRead(PETSC_COMM_SELF, a, &ma));
  CHECK_PETSC(SimMeshRead(PETSC_COMM_SELF, b, &mb));
  ck_assert_int_eq(ma.nv, mb.nv);
  ck_assert_int_eq(ma.ntet, mb.ntet);
  for (PetscInt k = 0; k < 3 * ma.nv; k++)
    ck_assert_double_eq_tol(ma.xyz[k], mb.xyz[k], 1e-12 * (1 + PetscAbsReal(ma.xyz[k])));
  ta = SortedTetSets(&ma);
  tb = SortedTetSets(&mb);
  ck_assert_int_eq(memcmp(ta, tb, sizeof(PetscInt) * 4 * ma.ntet), 0);
  va = TotalVolume(&ma);
  vb = TotalVolume(&mb);
  ck_assert_double_eq_tol(va, vb, rtol * va);
  free(ta);
  free(tb);
  CHECK_PETSC(SimMeshFree(&ma));
  CHECK_PETSC(SimMeshFree(&mb));
}

START_TEST(test_cube_msh_vs_tetgen)
{
  CompareReaders(DATA("cube.msh"), DATA("cube.node"), 1e-12);
}
END_TEST

/* A closed surface as Gmsh triangles and one quadrilateral (the square base of a pyramid of
 * height 1): z is kept (DMPlex alone would read a 2D mesh as planar), the quad becomes two
 * triangles, vertices keep the file order and faces their (outward) orientation. */
START_TEST(test_msh_surface)
{
  static const PetscReal xyz[15] = {0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0.5, 1, 0.5};
  const PetscReal c[3] = {0.5, 0.25, 0.5};
  SimMesh mesh;
  PetscInt npair, *pair;

  CHECK_PETSC(SimMeshRead(PETSC_COMM_SELF, DATA("pyramid.msh"), &mesh));
  ck_assert_int_eq(mesh.nv, 5);
  ck_assert_int_eq(mesh.ntri, 6);
  ck_assert_int_eq(mesh.ntet, 0);
  for (int k = 0; k < 15; k++)
    ck_assert_double_eq(mesh.xyz[k], xyz[k]);
  ck_assert_double_eq_tol(EnclosedVolume(&mesh, mesh.ntri, mesh.tri, c, PETSC_TRUE), 1.0 / 3,
                          1e-14);
  /* closed: all 9 edges (8 + the quad's diagonal) are interior */
  CHECK_PETSC(SimMeshBendingPairs(&mesh, &npair, &pair));
  ck_assert_int_eq(npair, 9);
  CHECK_PETSC(PetscFree(pair));
  CHECK_PETSC(SimMeshFree(&mesh));
}
END_TEST

START_TEST(test_msh_errors)
{
  ExpectReadError(DATA("bad_header.msh"), "bad_header.msh:1:", "not a valid Gmsh file");
  /* cut short inside $Elements */
  ExpectReadError(DATA("bad_body.msh"), "bad_body.msh:14:", "file ends where a node tag of an element is expected");
  ExpectReadError(DATA("missing.msh"), "Cannot open mesh file", "missing.msh");
}
END_TEST

/* The same cube in MSH 2.2 ASCII, 4.1 ASCII, 2.2 binary and 4.1 binary (the 4.1 files number their
 * nodes 10, 20, ..., 80 and split them into two blocks): the same vertices and tetrahedra. */
START_TEST(test_msh_formats)
{
  const char *files[] = {DATA("cube41.msh"), DATA("cube22_bin.msh"), DATA("cube41_bin.msh")};
  SimMesh ref, mesh;
  PetscInt *tref, *t;

  CHECK_PETSC(SimMeshRead(PETSC_COMM_SELF, DATA("cube.msh"), &ref));
  tref = SortedTetSets(&ref);
  for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
    CHECK_PETSC(SimMeshRead(PETSC_COMM_SELF, files[f], &mesh));
    ck_assert_int_eq(mesh.nv, ref.nv);
    ck_assert_int_eq(mesh.ntet, ref.ntet);
    ck_assert_int_eq(mesh.ntri, 0);
    for (PetscInt i = 0; i < 3 * ref.nv; i++) ck_assert_double_eq(mesh.xyz[i], ref.xyz[i]);
    t = SortedTetSets(&mesh);
    ck_assert_msg(!memcmp(t, tref, sizeof(PetscInt) * 4 * ref.ntet), "%s: other tetrahedra than cube.msh", files[f]);
    free(t);
    CHECK_PETSC(SimMeshFree(&mesh));
  }
  free(tref);
  CHECK_PETSC(SimMeshFree(&ref));
}
END_TEST

START_TEST(test_tetgen_errors)
{
  char dir[PETSC_MAX_PATH_LEN] = "/tmp/pbsim_test_mesh_XXXXXX", node[PETSC_MAX_PATH_LEN + 16];
  FILE *fp;

  ExpectReadError(DATA("bad_tet.ele"), "bad_tet.ele:4:", "point number 9 out of range [0, 3]");
  /* a .node without its .ele names the missing file */
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(node, sizeof(node), "%s/lonely.node", dir);
  fp = fopen(node, "w");
  ck_assert_ptr_nonnull(fp);
  fputs("1 3 0 0\n0 0 0 0\n", fp);
  fclose(fp);
  ExpectReadError(node, "Cannot open mesh file", "lonely.ele': No such file or directory");
  ck_assert_int_eq(unlink(node), 0);
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* ---- shared real-world meshes (skipped when absent) ---- */

static PetscBool HaveShared(const char *name)
{
  char path[PETSC_MAX_PATH_LEN];

  snprintf(path, sizeof(path), "%s/%s", SHARED_MESHES, name);
  if (access(path, R_OK)) {
    fprintf(stderr, "test_mesh: skipping checks on %s (not found)\n", path);
    return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

START_TEST(test_shared_armadillo)
{
  SimMesh mesh;
  PetscInt nface, *face;
  const PetscReal origin[3] = {0, 0, 0};
  PetscReal vol;

  if (!HaveShared("armadillo_4k.msh") || !HaveShared("armadillo_4k.node")) return;
  CHECK_PETSC(SimMeshRead(PETSC_COMM_SELF, SHARED_MESHES "/armadillo_4k.msh", &mesh));
  ck_assert_int_eq(mesh.nv, 1180);
  ck_assert_int_eq(mesh.ntet, 3717);
  vol = TotalVolume(&mesh);
  /* a non-convex surface: the cones need not be positive one by one, but they add up */
  CHECK_PETSC(SimMeshBoundaryFaces(&mesh, &nface, &face));
  ck_assert_double_eq_tol(EnclosedVolume(&mesh, nface, face, origin, PETSC_FALSE), vol, 1e-9 * vol);
  CHECK_PETSC(PetscFree(face));
  CHECK_PETSC(SimMeshFree(&mesh));
  CompareReaders(SHARED_MESHES "/armadillo_4k.msh", SHARED_MESHES "/armadillo_4k.node", 1e-9);
}
END_TEST

START_TEST(test_shared_bunny)
{
  SimMesh mesh;
  PetscInt nedge, *edge, npair, *pair;

  if (!HaveShared("bunny_10k.obj")) return;
  CHECK_PETSC(SimMeshRead(PETSC_COMM_SELF, SHARED_MESHES "/bunny_10k.obj", &mesh));
  ck_assert_int_gt(mesh.ntri, 9000);
  /* a closed manifold surface: every edge is shared by two triangles */
  CHECK_PETSC(SimMeshEdges(&mesh, &nedge, &edge));
  CHECK_PETSC(SimMeshBendingPairs(&mesh, &npair, &pair));
  ck_assert_int_eq(2 * nedge, 3 * mesh.ntri);
  ck_assert_int_eq(npair, nedge);
  CHECK_PETSC(PetscFree(edge));
  CHECK_PETSC(PetscFree(pair));
  CHECK_PETSC(SimMeshFree(&mesh));
}
END_TEST

/* ---- the file scene ---- */

/* Builds the "file" scene's model with `opts`. On failure *model may hold a partial model for
 * the caller to destroy; the scene and registry are always freed. */
/* The file scene's problem (destroy it with SimProblemDestroy) and its model; the registry is gone
 * when this returns, which a built problem no longer needs. */
static PetscErrorCode BuildFileScene(const char *opts, SimProblem *problem, SimModel *model)
{
  SimRegistry reg = NULL;
  SimScene scene = NULL;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  *problem = NULL;
  *model = NULL;
  PetscCall(TestSetOptions(opts));
  PetscCall(TestRegistryCreate(&reg));
  ierr = SimSceneCreate(reg, "file", &scene);
  if (!ierr) ierr = SimSceneBuild(scene, PETSC_COMM_SELF, problem);
  if (*problem) *model = SimMeshModel(*problem);
  PetscCall(SimSceneDestroy(&scene));
  PetscCall(SimRegistryDestroy(&reg));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscReal TotalMass(SimModel model)
{
  PetscScalar m;
  CHECK_PETSC(VecSum(model->mass, &m));
  return PetscRealPart(m) / 3;
}

START_TEST(test_scene_tets)
{
  SimModel model;
  SimProblem problem;
  SimEnergy spring;
  PetscReal E, g[24] = {0};
  const PetscScalar *x;

  CHECK_PETSC(
      BuildFileScene("-file_mesh " DATA("cube.msh") " -file_density 500 -file_pin 0,7", &problem, &model));
  ck_assert_int_eq(model->nv, 8);
  ck_assert_double_eq_tol(TotalMass(model), 500.0, 1e-10);
  ck_assert_int_eq(model->ntet, 6);
  ck_assert_int_eq(model->ntri, 12); /* the boundary, for pictures */
  ck_assert_int_eq(model->npinned, 2);
  ck_assert(model->pinned[0] && model->pinned[7]);
  ck_assert_double_eq(model->gravity[1], -9.81);
  /* springs at rest: zero energy and force in the file's configuration */
  CHECK_PETSC(SimModelFindTerm(model, "spring", &spring));
  ck_assert_ptr_nonnull(spring);
  CHECK_PETSC(VecGetArrayRead(model->x, &x));
  CHECK_PETSC(spring->ops.value(spring, x, NULL, &E));
  CHECK_PETSC(spring->ops.gradient(spring, x, NULL, g));
  CHECK_PETSC(VecRestoreArrayRead(model->x, &x));
  ck_assert_double_eq_tol(E, 0, 1e-12);
  for (int k = 0; k < 24; k++)
    ck_assert_double_eq_tol(g[k], 0, 1e-9);
  CHECK_PETSC(SimProblemDestroy(&problem));
}
END_TEST

START_TEST(test_scene_surface)
{
  SimModel model;
  SimProblem problem;
  const PetscScalar *x;

  /* default density 0.1 kg/m^2 on a square of side 2 (scaled) */
  CHECK_PETSC(BuildFileScene(
      "-file_mesh " DATA(
          "square.obj") " -file_scale 2 -file_translate 1,2,3 -file_pin_top_fraction 0.5",
      &problem, &model));
  ck_assert_int_eq(model->nv, 4);
  ck_assert_double_eq_tol(TotalMass(model), 0.4, 1e-14);
  ck_assert_int_eq(model->ntri, 2);
  ck_assert_int_eq(model->ntet, 0);
  CHECK_PETSC(VecGetArrayRead(model->x, &x));
  ck_assert_double_eq_tol(PetscRealPart(x[6]), 3, 1e-14); /* vertex 2: (1,1,0) * 2 + (1,2,3) */
  ck_assert_double_eq_tol(PetscRealPart(x[7]), 4, 1e-14);
  ck_assert_double_eq_tol(PetscRealPart(x[8]), 3, 1e-14);
  CHECK_PETSC(VecRestoreArrayRead(model->x, &x));
  /* the top half in y: vertices 2 and 3 */
  ck_assert_int_eq(model->npinned, 2);
  ck_assert(model->pinned[2] && model->pinned[3]);
  CHECK_PETSC(SimProblemDestroy(&problem));
}
END_TEST

START_TEST(test_scene_errors)
{
  SimModel model;
  SimProblem problem;
  char msg[1024];

  EXPECT_ERROR(BuildFileScene("-steps 1", &problem, &model), msg);
  ASSERT_CONTAINS(msg, "-file_mesh");
  CHECK_PETSC(SimProblemDestroy(&problem));

  EXPECT_ERROR(BuildFileScene("-file_mesh " DATA("square.obj") " -file_pin 1,4", &problem, &model), msg);
  ASSERT_CONTAINS(msg, "-file_pin");
  ASSERT_CONTAINS(msg, "[0, 4)");
  CHECK_PETSC(SimProblemDestroy(&problem));

  EXPECT_ERROR(BuildFileScene("-file_mesh " DATA("degenerate.obj"), &problem, &model), msg);
  ASSERT_CONTAINS(msg, "Triangle 1 ");
  ASSERT_CONTAINS(msg, "degenerate");
  CHECK_PETSC(SimProblemDestroy(&problem));

  EXPECT_ERROR(BuildFileScene("-file_mesh " DATA("missing.obj"), &problem, &model), msg);
  ASSERT_CONTAINS(msg, "Cannot open mesh file");
  CHECK_PETSC(SimProblemDestroy(&problem));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("mesh");
  TCase *obj = tcase_create("obj"), *topo = tcase_create("topology"), *tet = tcase_create("tet"),
        *shared = tcase_create("shared"), *scene = tcase_create("scene");

  tcase_add_test(obj, test_obj_square);
  tcase_add_test(obj, test_obj_polygons);
  tcase_add_test(obj, test_obj_errors);
  tcase_add_test(topo, test_edges_single_tet);
  tcase_add_test(topo, test_kuhn_grid_topology);
  tcase_add_test(tet, test_cube_msh);
  tcase_add_test(tet, test_cube_tetgen);
  tcase_add_test(tet, test_cube_msh_vs_tetgen);
  tcase_add_test(tet, test_msh_surface);
  tcase_add_test(tet, test_msh_errors);
  tcase_add_test(tet, test_msh_formats);
  tcase_add_test(tet, test_tetgen_errors);
  tcase_add_test(shared, test_shared_armadillo);
  tcase_add_test(shared, test_shared_bunny);
  tcase_add_test(scene, test_scene_tets);
  tcase_add_test(scene, test_scene_surface);
  tcase_add_test(scene, test_scene_errors);
  tcase_set_timeout(shared, 60);
  suite_add_tcase(s, obj);
  suite_add_tcase(s, topo);
  suite_add_tcase(s, tet);
  suite_add_tcase(s, shared);
  suite_add_tcase(s, scene);
  return s;
}
