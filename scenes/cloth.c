/* The cloth scene: an n x m grid of masses with structural, shear and bending springs (the
 * classic mass-spring cloth of the seed notes), pinned at corners or along an edge. */
#include "scenes/scenes.h"
#include "framework/sizes.h"
#include "energies/springs.h"
#include "energies/attachments.h"
#include "energies/triangles.h"
#include "energies/bending.h"

/* Vertex layouts for pins and soft attachments, as a table so that -help lists them and a new one
 * is one row. Each writes the indices of its vertices into v (at most n + 4 of them) and returns
 * their count. Vertex (i, j) of the n x m grid has index j n + i; the far edge is j = m - 1. */
#define V(i, j) ((j) * n + (i))
static PetscInt Layout_TwoCorners(PetscInt n, PetscInt m, PetscInt *v)
{
  v[0] = V(0, m - 1), v[1] = V(n - 1, m - 1);
  return 2;
}
static PetscInt Layout_Corners(PetscInt n, PetscInt m, PetscInt *v)
{
  Layout_TwoCorners(n, m, v);
  v[2] = V(0, 0), v[3] = V(n - 1, 0);
  return 4;
}
static PetscInt Layout_Edge(PetscInt n, PetscInt m, PetscInt *v)
{
  for (PetscInt i = 0; i < n; i++) v[i] = V(i, m - 1);
  return n;
}
static PetscInt Layout_None(PetscInt n, PetscInt m, PetscInt *v)
{
  return 0;
}
#undef V

typedef struct {
  const char *name;
  PetscInt (*vertices)(PetscInt n, PetscInt m, PetscInt *v);
} VertexLayout;
static const VertexLayout layouts[] = {
  {"two_corners", Layout_TwoCorners}, /* the two corners of the far edge */
  {"corners", Layout_Corners},
  {"edge", Layout_Edge},              /* the whole far edge */
  {"none", Layout_None},              /* free fall */
};
#define NLAYOUT ((PetscInt)(sizeof(layouts) / sizeof(layouts[0])))

/* -cloth_attach LAYOUT: the layout's vertices held softly at their initial positions by an
 * "attachment" term of stiffness -cloth_attach_stiffness (instead of, or besides, the pins). */
static PetscErrorCode AddAttachments(SimModel model, const PetscReal *xyz, PetscInt nvert, const PetscInt *vert, PetscReal k)
{
  PetscReal *target, *kk;
  SimEnergy term;

  PetscFunctionBeginUser;
  if (!nvert) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(3 * nvert, &target, nvert, &kk));
  for (PetscInt q = 0; q < nvert; q++) {
    for (int d = 0; d < 3; d++) target[3 * q + d] = xyz[3 * vert[q] + d];
    kk[q] = k;
  }
  PetscCall(SimAttachmentsCreate("attachment", model->nv, nvert, vert, target, kk, &term));
  PetscCall(SimModelAddTerm(model, term));
  PetscCall(PetscFree2(target, kk));
  PetscFunctionReturn(0);
}

/* The elastic model of the cloth (-cloth_model), as a table: what a grid of n x m vertices with its
 * triangles gets. */
typedef struct {
  PetscInt n, m;
  const PetscReal *xyz;
  PetscInt ntri;
  const PetscInt *tri;
  PetscReal ks, kshear, kbend, kd; /* springs */
  PetscReal mu, kb;                /* membrane (N/m) and bending (N m) */
  PetscReal kiso;                  /* springs: isometric bending (N m) over the triangles' interior edges, 0: none */
} ClothGrid;

/* Structural, shear and bending springs (the classic mass-spring cloth). */
static PetscErrorCode Model_Springs(SimModel model, const ClothGrid *c)
{
  const PetscInt n = c->n, m = c->m;
  SimSpringList springs = {0};

  PetscFunctionBeginUser;
#define V(i, j) ((j) * n + (i))
  for (PetscInt j = 0; j < m; j++)
    for (PetscInt i = 0; i < n; i++) {
      if (i + 1 < n) PetscCall(SimSpringListAdd(&springs, V(i, j), V(i + 1, j), c->ks, c->kd));
      if (j + 1 < m) PetscCall(SimSpringListAdd(&springs, V(i, j), V(i, j + 1), c->ks, c->kd));
      if (i + 1 < n && j + 1 < m && c->kshear > 0) {
        PetscCall(SimSpringListAdd(&springs, V(i, j), V(i + 1, j + 1), c->kshear, c->kd));
        PetscCall(SimSpringListAdd(&springs, V(i + 1, j), V(i, j + 1), c->kshear, c->kd));
      }
      if (i + 2 < n && c->kbend > 0) PetscCall(SimSpringListAdd(&springs, V(i, j), V(i + 2, j), c->kbend, c->kd));
      if (j + 2 < m && c->kbend > 0) PetscCall(SimSpringListAdd(&springs, V(i, j), V(i, j + 2), c->kbend, c->kd));
    }
#undef V
  PetscCall(SimSpringListAddToModel(&springs, model, "spring"));
  PetscCall(SimSpringListFree(&springs));
  if (c->kiso > 0) { /* the Bergou et al. 2006 term, in place of (or beside) the bending springs */
    SimEnergy term;
    PetscCall(SimBendingCreate("bending", c->n * c->m, c->xyz, c->ntri, c->tri, c->kiso, &term));
    PetscCall(SimModelAddTerm(model, term));
  }
  PetscFunctionReturn(0);
}

/* Triangle strain (membrane, "triangles") and quadratic bending ("bending") on the grid's triangles. */
static PetscErrorCode Model_FEM(SimModel model, const ClothGrid *c)
{
  SimEnergy term;

  PetscFunctionBeginUser;
  PetscCheck(c->kd == 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "-cloth_damping acts along springs: it needs -cloth_model springs");
  PetscCall(SimTrianglesCreate("triangles", c->n * c->m, c->xyz, c->ntri, c->tri, c->mu, &term));
  PetscCall(SimModelAddTerm(model, term));
  if (c->kb > 0) {
    PetscCall(SimBendingCreate("bending", c->n * c->m, c->xyz, c->ntri, c->tri, c->kb, &term));
    PetscCall(SimModelAddTerm(model, term));
  }
  PetscFunctionReturn(0);
}

typedef struct {
  const char *name;
  PetscErrorCode (*build)(SimModel, const ClothGrid *);
} ClothModel;
static const ClothModel cloth_models[] = {
  {"springs", Model_Springs}, /* the default */
  {"fem", Model_FEM},         /* triangle strain + bending */
};
#define NMODEL ((PetscInt)(sizeof(cloth_models) / sizeof(cloth_models[0])))

static PetscErrorCode Build_Cloth(SimScene scene, SimProblem problem)
{
  SimModel model;
  PetscInt n = 32, m = -1, layout = 0, attach = NLAYOUT - 1, npin_extra = 64, pin_extra[64] = {0}, nsel, *sel;
  PetscReal size = 1, density = 0.2, height = 0, ks = 1e3, kshear = -1, kbend = -1, kd = 0, kattach = 1e4, mu = -1, kb = 1e-3, kiso = 0;
  PetscInt model_kind = 0;
  const char *model_names[NMODEL];
  PetscBool vertical = PETSC_FALSE, extra;
  const char *layout_names[NLAYOUT];
  char pinlist[1024] = "";
  PetscReal *xyz, h;
  PetscInt *tri;

  PetscFunctionBeginUser;
  PetscCall(SimMeshProblemGetModel(problem, &model));
  for (PetscInt l = 0; l < NLAYOUT; l++) layout_names[l] = layouts[l].name;
  for (PetscInt l = 0; l < NMODEL; l++) model_names[l] = cloth_models[l].name;
  PetscOptionsBegin(model->comm, "cloth_", "Cloth scene", "");
  PetscCall(PetscOptionsInt("-n", "vertices along x", "", n, &n, NULL));
  PetscCall(PetscOptionsInt("-m", "vertices along the other side (default n)", "", m, &m, NULL));
  PetscCall(PetscOptionsReal("-size", "side length along x (m)", "", size, &size, NULL));
  PetscCall(PetscOptionsReal("-density", "area density (kg/m^2)", "", density, &density, NULL));
  PetscCall(PetscOptionsReal("-height", "height of the cloth (m)", "", height, &height, NULL));
  PetscCall(PetscOptionsReal("-k_struct", "structural spring stiffness (N/m)", "", ks, &ks, NULL));
  PetscCall(PetscOptionsReal("-k_shear", "shear spring stiffness (N/m; default k_struct/10)", "", kshear, &kshear, NULL));
  PetscCall(PetscOptionsReal("-k_bend", "bending spring stiffness (N/m; default k_struct/100)", "", kbend, &kbend, NULL));
  PetscCall(PetscOptionsEList("-model", "elastic model: springs, or fem (triangle strain + quadratic bending)", "", model_names, NMODEL,
                              model_names[model_kind], &model_kind, NULL));
  PetscCall(PetscOptionsReal("-mu", "membrane stiffness of -cloth_model fem (N/m; default k_struct)", "", mu, &mu, NULL));
  PetscCall(PetscOptionsReal("-bending", "bending stiffness of -cloth_model fem (N m; 0: none)", "", kb, &kb, NULL));
  PetscCall(PetscOptionsReal("-isometric_bending", "springs model: add quadratic isometric bending (Bergou et al. 2006) of this stiffness (N m; 0: none)", "",
                             kiso, &kiso, NULL));
  PetscCall(PetscOptionsReal("-damping", "damping along every spring (N s/m)", "", kd, &kd, NULL));
  PetscCall(PetscOptionsBool("-vertical", "hang in the xy plane instead of lying in xz", "", vertical, &vertical, NULL));
  PetscCall(PetscOptionsEList("-pin", "pinned vertices", "", layout_names, NLAYOUT, layout_names[layout], &layout, NULL));
  PetscCall(PetscOptionsEList("-attach", "vertices held softly at their initial positions (an attachment term)", "", layout_names,
                              NLAYOUT, layout_names[attach], &attach, NULL));
  PetscCall(PetscOptionsReal("-attach_stiffness", "stiffness of each attachment (N/m)", "", kattach, &kattach, NULL));
  /* read as a string first, so that -help shows an empty default (an int array option prints its
   * first element, which is no default here) */
  PetscCall(PetscOptionsString("-pin_vertices", "extra pinned vertex indices, comma-separated (default: none)", "", pinlist, pinlist,
                               sizeof(pinlist), &extra));
  if (extra) PetscCall(PetscOptionsGetIntArray(NULL, "cloth_", "-pin_vertices", pin_extra, &npin_extra, NULL));
  PetscOptionsEnd();
  if (m < 0) m = n;
  if (kshear < 0) kshear = ks / 10;
  if (kbend < 0) kbend = ks / 100;
  if (mu < 0) mu = ks;
  PetscCheck(kb >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_bending must be >= 0 (got %g N m)", (double)kb);
  PetscCheck(kiso >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_isometric_bending must be >= 0 (got %g N m)", (double)kiso);
  PetscCheck(kiso == 0 || model_kind == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "-cloth_isometric_bending adds bending to the springs model; -cloth_model fem has its own: use -cloth_bending");
  PetscCheck(n >= 2 && m >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_n and -cloth_m must be >= 2 (got %" PetscInt_FMT ", %" PetscInt_FMT ")", n, m);
  PetscCheck(size > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_size must be > 0 (got %g)", (double)size);
  PetscCheck(density > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_density must be > 0 (got %g): masses come from it", (double)density);
  PetscCheck(ks >= 0 && kshear >= 0 && kbend >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Cloth stiffnesses must be >= 0 (-cloth_k_struct %g, -cloth_k_shear %g, -cloth_k_bend %g)", (double)ks, (double)kshear, (double)kbend);
  PetscCheck(kd >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_damping must be >= 0 (got %g)", (double)kd);
  PetscCheck(kattach > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cloth_attach_stiffness must be > 0 (got %g N/m)", (double)kattach);

  {
    char opts[96];
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-cloth_n %" PetscInt_FMT " -cloth_m %" PetscInt_FMT, n, m));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "vertices", (PetscReal)n * m, 3));
    PetscCall(SimCheckSize(PETSC_COMM_SELF, opts, "triangles", 2.0 * (n - 1) * (m - 1), 3));
  }
  h = size / (n - 1);
  PetscCall(PetscMalloc3(3 * n * m, &xyz, 6 * (n - 1) * (m - 1), &tri, n + 4, &sel));
#define V(i, j) ((j) * n + (i))
  for (PetscInt j = 0; j < m; j++)
    for (PetscInt i = 0; i < n; i++) {
      PetscReal *p = xyz + 3 * V(i, j);
      p[0] = i * h - 0.5 * size;
      p[1] = vertical ? height + j * h : height;
      p[2] = vertical ? 0 : 0.5 * (m - 1) * h - j * h;
    }
  PetscCall(SimModelSetVertices(model, n * m, xyz));
  /* lumped mass: each vertex carries the area of its Voronoi cell of the grid */
  for (PetscInt j = 0; j < m; j++)
    for (PetscInt i = 0; i < n; i++) {
      PetscReal wx = (i == 0 || i == n - 1) ? 0.5 : 1, wy = (j == 0 || j == m - 1) ? 0.5 : 1;
      PetscCall(SimModelSetVertexMass(model, V(i, j), density * h * h * wx * wy));
    }
  for (PetscInt j = 0; j + 1 < m; j++)
    for (PetscInt i = 0; i + 1 < n; i++) {
      PetscInt *t = tri + 6 * (j * (n - 1) + i);
      t[0] = V(i, j), t[1] = V(i + 1, j), t[2] = V(i + 1, j + 1);
      t[3] = V(i, j), t[4] = V(i + 1, j + 1), t[5] = V(i, j + 1);
    }
#undef V
  {
    const ClothGrid grid = {.n = n, .m = m, .xyz = xyz, .ntri = 2 * (n - 1) * (m - 1), .tri = tri, .ks = ks, .kshear = kshear,
                            .kbend = kbend, .kd = kd, .mu = mu, .kb = kb, .kiso = kiso};
    PetscCall(cloth_models[model_kind].build(model, &grid));
  }
  PetscCall(SimModelSetTopology(model, 2 * (n - 1) * (m - 1), tri, 0, NULL, 0, NULL));
  nsel = layouts[layout].vertices(n, m, sel);
  for (PetscInt q = 0; q < nsel; q++) PetscCall(SimModelPin(model, sel[q], "-cloth_pin"));
  nsel = layouts[attach].vertices(n, m, sel);
  PetscCall(AddAttachments(model, xyz, nsel, sel, kattach));
  for (PetscInt p = 0; extra && p < npin_extra; p++) PetscCall(SimModelPin(model, pin_extra[p], "-cloth_pin_vertices"));
  PetscCall(PetscFree3(xyz, tri, sel));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSceneCreate_Cloth(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_Cloth;
  PetscFunctionReturn(0);
}
