/* The "mesh" problem type: the Lagrangian model with its option-driven terms, scripted pins,
 * output (.vtu frames, PNG), last-good stash and checkpoint. */
#include "framework/problem_impl.h"
#include "framework/io/vtk.h"
#include "framework/io/xdmf.h"
#include "framework/io/png.h"
#include "problems/mesh/mesh.h"

typedef struct {
  SimModel model;
  PetscBool owns_model;
  char default_colliders[64];
  SimCamera camera;   /* fitted at set-up, so every image of a run (and of its restart) shares it */
  Vec xstash, vstash; /* the last good state */
  PetscReal *xold;    /* 3*nv: positions before a step with scripted pins */
} Mesh;

static PetscErrorCode Size_Mesh(SimProblem p, PetscInt *count, const char **unit);

/* The mesh of a problem, checked by the identity of its ops (a plugin may register the type under
 * another name; it is still this implementation). */
static PetscErrorCode GetMesh(SimProblem p, Mesh **mesh)
{
  PetscFunctionBeginUser;
  PetscCheck(p->ops.size == Size_Mesh, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Problem '%s' is a %s problem, not a mesh", p->name, p->type);
  *mesh = (Mesh *)p->data;
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshProblemGetModel(SimProblem p, SimModel *model)
{
  Mesh *mesh = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetMesh(p, &mesh));
  *model = mesh->model;
  PetscFunctionReturn(0);
}

SimModel SimMeshModel(SimProblem p)
{
  return p->ops.size == Size_Mesh ? ((Mesh *)p->data)->model : NULL;
}

PetscErrorCode SimMeshProblemSetDefaultColliders(SimProblem p, const char *names)
{
  Mesh *mesh = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetMesh(p, &mesh));
  PetscCall(PetscStrncpy(mesh->default_colliders, names, sizeof(mesh->default_colliders)));
  PetscFunctionReturn(0);
}

/* Adds the -colliders terms names[0..n), each created with the prefix "<name>_". */
static PetscErrorCode AddColliders(SimProblem p, SimModel model, char **names, PetscInt n)
{
  const SimRegEntry *e;
  SimEnergy term;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < n; c++) {
    char prefix[80];
    if (!strcmp(names[c], "none")) continue;
    PetscCall(SimRegistryFind(p->reg, SIM_KIND_ENERGY, names[c], &e));
    PetscCheck(e->create, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "-colliders: energy term '%s' is built by scenes and cannot be created from options", names[c]);
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", names[c]));
    PetscCall(((SimEnergyCreateFn)e->create)(model, prefix, &term));
    PetscCall(SimModelAddTerm(model, term));
  }
  PetscFunctionReturn(0);
}

/* Adds the option-driven terms: gravity, then each name in -colliders (looked up in the energy
 * table). */
static PetscErrorCode AddOptionTerms(SimProblem p, Mesh *mesh)
{
  SimModel model = mesh->model;
  const SimRegEntry *e;
  SimEnergy term;
  char *names[16];
  PetscInt n = 16;
  PetscBool set;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryLookup(p->reg, SIM_KIND_ENERGY, "gravity", &e));
  if (e && e->create) {
    PetscCall(((SimEnergyCreateFn)e->create)(model, NULL, &term));
    if (term) PetscCall(SimModelAddTerm(model, term));
  }
  /* "-colliders none" turns off a scene's default collider */
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-colliders", names, &n, &set));
  if (!set && mesh->default_colliders[0]) {
    PetscCall(PetscStrallocpy(mesh->default_colliders, &names[0]));
    n = 1;
    set = PETSC_TRUE;
  }
  if (!set) n = 0;
  ierr = AddColliders(p, model, names, n);
  for (PetscInt c = 0; c < n; c++) PetscCall(PetscFree(names[c])); /* also after an error in a term */
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* One view for the whole run: the body's initial box plus the same box moved down (along gravity)
 * by the body's diameter, the space a hanging or falling body swings into. */
static PetscErrorCode FitCamera(Mesh *mesh)
{
  SimModel model = mesh->model;
  const PetscScalar *x;
  PetscReal *both, lo[3], hi[3], diam = 0, g = 0, gdir[3] = {0, -1, 0};
  PetscInt nv = model->nv;
  PetscReal *xall = NULL;

  PetscFunctionBeginUser;
  for (int d = 0; d < 3; d++) g += model->gravity[d] * model->gravity[d];
  if (g > 0)
    for (int d = 0; d < 3; d++) gdir[d] = model->gravity[d] / PetscSqrtReal(g);
  PetscCall(VecGetArrayRead(model->x, &x));
  if (model->local_state) { /* the whole body (set-up only), so every rank fits the serial run's camera */
    PetscCall(PetscMalloc1(3 * model->nglobal, &xall));
    PetscCall(SimModelGatherGlobal(model, 3, x, PETSC_TRUE, xall));
    PetscCall(VecRestoreArrayRead(model->x, &x));
    x = xall;
    nv = model->nglobal;
  }
  for (int d = 0; d < 3; d++) lo[d] = PETSC_MAX_REAL, hi[d] = PETSC_MIN_REAL;
  for (PetscInt i = 0; i < nv; i++)
    for (int d = 0; d < 3; d++) lo[d] = PetscMin(lo[d], x[3 * i + d]), hi[d] = PetscMax(hi[d], x[3 * i + d]);
  for (int d = 0; d < 3; d++) diam += (hi[d] - lo[d]) * (hi[d] - lo[d]);
  diam = PetscSqrtReal(diam);
  PetscCall(PetscMalloc1(6 * nv, &both));
  for (PetscInt k = 0; k < 3 * nv; k++) both[k] = x[k], both[3 * nv + k] = x[k] + (g > 0 ? diam * gdir[k % 3] : 0);
  if (xall) PetscCall(PetscFree(xall));
  else PetscCall(VecRestoreArrayRead(model->x, &x));
  PetscCall(SimCameraFit(2 * nv, both, 0.1, &mesh->camera));
  PetscCall(PetscFree(both));
  PetscFunctionReturn(0);
}

/* The scene has set vertices, masses, pins and its terms: add the option-driven terms and check. */
static PetscErrorCode SetUp_Mesh(SimProblem p)
{
  Mesh *mesh = (Mesh *)p->data;
  SimModel model = mesh->model;

  PetscFunctionBeginUser;
  if (!mesh->owns_model) PetscFunctionReturn(0); /* wrapped by hand: already complete */
  PetscCheck(model->x, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Scene '%s' built no vertices", p->name);
  PetscCall(VecAssemblyBegin(model->mass));
  PetscCall(VecAssemblyEnd(model->mass));
  PetscCall(AddOptionTerms(p, mesh));
  PetscCall(SimModelFinalize(model));
  PetscCall(FitCamera(mesh));
  PetscFunctionReturn(0);
}

static PetscErrorCode Size_Mesh(SimProblem p, PetscInt *count, const char **unit)
{
  PetscFunctionBeginUser;
  *count = ((Mesh *)p->data)->model->nglobal;
  *unit = "vertices";
  PetscFunctionReturn(0);
}

static PetscErrorCode Summary_Mesh(SimProblem p, char *buf, size_t len)
{
  SimModel m = ((Mesh *)p->data)->model;

  PetscFunctionBeginUser;
  if (m->local_state) /* pins are counted per rank (owned and ghost copies): no collective here */
    PetscCall(PetscSNPrintf(buf, len, "%" PetscInt_FMT " vertices, distributed (%" PetscInt_FMT " on this rank)", m->nglobal, m->nv));
  else PetscCall(PetscSNPrintf(buf, len, "%" PetscInt_FMT " vertices, %" PetscInt_FMT " pinned", m->nv, m->npinned));
  PetscFunctionReturn(0);
}

static PetscErrorCode State_Mesh(SimProblem p, Vec *state)
{
  PetscFunctionBeginUser;
  *state = ((Mesh *)p->data)->model->x;
  PetscFunctionReturn(0);
}

/* Scripted pins, before the step: the pinned vertices jump to their positions at t + dt with zero
 * velocity, so every integrator treats them as fixed during the step. */
static PetscErrorCode BeforeStep_Mesh(SimProblem p, PetscReal t, PetscReal dt)
{
  Mesh *mesh = (Mesh *)p->data;
  SimModel m = mesh->model;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  if (!m->kinematic) PetscFunctionReturn(0);
  if (!mesh->xold) PetscCall(PetscMalloc1(3 * m->nv, &mesh->xold));
  PetscCall(VecGetArray(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  PetscCall(PetscArraycpy(mesh->xold, x, 3 * m->nv));
  PetscCall(m->kinematic(m->kinematic_ctx, t + dt, x));
  for (PetscInt i = 0; i < m->nv; i++)
    if (m->pinned[i]) v[3 * i] = v[3 * i + 1] = v[3 * i + 2] = 0;
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArray(m->x, &x));
  PetscFunctionReturn(0);
}

/* After the step: the pinned vertices carry the velocity of their scripted motion (for energy and
 * momentum reports and damping at the next step). */
static PetscErrorCode AfterStep_Mesh(SimProblem p, PetscReal t, PetscReal dt)
{
  Mesh *mesh = (Mesh *)p->data;
  SimModel m = mesh->model;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  if (!m->kinematic) PetscFunctionReturn(0);
  PetscCall(VecGetArray(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  for (PetscInt i = 0; i < m->nv; i++)
    if (m->pinned[i])
      for (int d = 0; d < 3; d++) v[3 * i + d] = (x[3 * i + d] - mesh->xold[3 * i + d]) / dt;
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArray(m->x, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode Report_Mesh(SimProblem p, SimEnergyReport *rep)
{
  SimModel m = ((Mesh *)p->data)->model;

  PetscFunctionBeginUser;
  PetscCall(SimModelReport(m, m->x, m->v, rep));
  PetscFunctionReturn(0);
}

static PetscErrorCode IsFinite_Mesh(SimProblem p, PetscBool *finite)
{
  SimModel m = ((Mesh *)p->data)->model;
  PetscReal nx, nv;

  PetscFunctionBeginUser;
  PetscCall(VecNorm(m->x, NORM_INFINITY, &nx));
  PetscCall(VecNorm(m->v, NORM_INFINITY, &nv));
  *finite = (PetscBool)(!PetscIsInfOrNanReal(nx) && !PetscIsInfOrNanReal(nv));
  if (m->local_state) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, finite, 1, MPIU_BOOL, MPI_LAND, m->comm)); /* every rank decides alike */
  PetscFunctionReturn(0);
}

/* The rules energy terms set on a state (barrier contact: no intersection, no inverted element). */
static PetscErrorCode Admissible_Mesh(SimProblem p, char *why, size_t len)
{
  SimModel m = ((Mesh *)p->data)->model;
  const PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(SimModelAdmissible(m, x, why, len));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode Stash_Mesh(SimProblem p, PetscBool restore)
{
  Mesh *mesh = (Mesh *)p->data;
  SimModel m = mesh->model;

  PetscFunctionBeginUser;
  if (!mesh->xstash) {
    PetscCall(VecDuplicate(m->x, &mesh->xstash));
    PetscCall(VecDuplicate(m->v, &mesh->vstash));
  }
  if (restore) {
    PetscCall(VecCopy(mesh->xstash, m->x));
    PetscCall(VecCopy(mesh->vstash, m->v));
  } else {
    PetscCall(VecCopy(m->x, mesh->xstash));
    PetscCall(VecCopy(m->v, mesh->vstash));
  }
  PetscFunctionReturn(0);
}

/* With a distributed state the writers (.vtu, PNG) still run on rank 0 over the whole model: the
 * owned rows of x, v, masses and pins are gathered there in global order, and for the call the
 * model is viewed as replicated (its vertex count, pins and masses swapped for the gathered ones;
 * the output topology and the natural map are global already). Collective; x, v on rank 0 only. */
typedef struct {
  PetscInt nv;
  PetscBool *pinned;
  Vec mass;
  PetscReal *x, *v;
} Gathered;

static PetscErrorCode GatherBegin(SimModel m, PetscBool want_v, Gathered *gv)
{
  const PetscScalar *a;
  PetscReal *pl, *pg = NULL;
  PetscScalar *mg = NULL;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(m->comm, &rank));
  PetscCall(PetscMemzero(gv, sizeof(*gv)));
  if (!rank) {
    PetscCall(PetscMalloc2(3 * m->nglobal, &gv->x, 3 * m->nglobal, &gv->v));
    PetscCall(PetscMalloc1(m->nglobal, &pg));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3 * m->nglobal, &gv->mass));
    PetscCall(VecGetArray(gv->mass, &mg));
  }
  PetscCall(VecGetArrayRead(m->x, &a));
  PetscCall(SimModelGatherGlobal(m, 3, a, PETSC_FALSE, gv->x));
  PetscCall(VecRestoreArrayRead(m->x, &a));
  if (want_v) {
    PetscCall(VecGetArrayRead(m->v, &a));
    PetscCall(SimModelGatherGlobal(m, 3, a, PETSC_FALSE, gv->v));
    PetscCall(VecRestoreArrayRead(m->v, &a));
  }
  PetscCall(VecGetArrayRead(m->mass, &a));
  PetscCall(SimModelGatherGlobal(m, 3, a, PETSC_FALSE, mg));
  PetscCall(VecRestoreArrayRead(m->mass, &a));
  PetscCall(PetscMalloc1(m->nv + 1, &pl));
  for (PetscInt i = 0; i < m->nv; i++) pl[i] = m->pinned[i] ? 1 : 0;
  PetscCall(SimModelGatherGlobal(m, 1, pl, PETSC_FALSE, pg));
  PetscCall(PetscFree(pl));
  if (rank) PetscFunctionReturn(0);
  PetscCall(VecRestoreArray(gv->mass, &mg));
  gv->nv = m->nv;
  gv->pinned = m->pinned;
  PetscCall(PetscMalloc1(m->nglobal, &m->pinned));
  for (PetscInt g = 0; g < m->nglobal; g++) m->pinned[g] = (PetscBool)(pg[g] != 0);
  PetscCall(PetscFree(pg));
  m->nv = m->nglobal;
  { /* swap the masses */
    Vec t = m->mass;
    m->mass = gv->mass;
    gv->mass = t;
  }
  PetscFunctionReturn(0);
}

/* Rank 0: the model's own arrays back; frees the gathered ones. */
static PetscErrorCode GatherEnd(SimModel m, Gathered *gv)
{
  PetscFunctionBeginUser;
  if (gv->mass) {
    Vec t = m->mass;
    m->mass = gv->mass;
    gv->mass = t;
    PetscCall(PetscFree(m->pinned));
    m->pinned = gv->pinned;
    m->nv = gv->nv;
    PetscCall(VecDestroy(&gv->mass));
  }
  PetscCall(PetscFree2(gv->x, gv->v));
  PetscFunctionReturn(0);
}

/* rank 0 writes the frame and the image (a distributed state gathered there first) */
static PetscErrorCode WriteFrame_Mesh(SimProblem p, const char *path)
{
  SimModel m = ((Mesh *)p->data)->model;
  const PetscScalar *x, *v;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  if (m->local_state) {
    Gathered gv;
    PetscErrorCode ierr = 0;
    PetscCall(GatherBegin(m, PETSC_TRUE, &gv));
    if (!rank) ierr = SimVTKWriteFrame(m, gv.x, gv.v, path);
    PetscCall(GatherEnd(m, &gv));
    PetscCall(ierr);
    PetscFunctionReturn(0);
  }
  if (rank) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArrayRead(m->v, &v));
  PetscCall(SimVTKWriteFrame(m, x, v, path));
  PetscCall(VecRestoreArrayRead(m->v, &v));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscFunctionReturn(0);
}

/* XDMF + HDF5, collectively: the state is replicated, so each rank writes its share of the vertices
 * (in the input order, as the .vtu) and of the cells (triangles, segments, tetrahedra; one vertex
 * cell per vertex without any), with the .vtu's point data. */
static PetscErrorCode WriteXDMF_Mesh(SimProblem p, const char *path)
{
  SimModel m = ((Mesh *)p->data)->model;
  const PetscInt nv = m->nglobal, *nat = m->natural;
  const PetscInt kn[3] = {m->ntri, m->nseg, m->ntet}, kv[3] = {3, 2, 4};
  const PetscInt *kidx[3] = {m->tri, m->seg, m->tet};
  const PetscScalar *x, *v, *mass;
  PetscInt lo = 0, n = PETSC_DECIDE, nvg = nv, clo = 0, cn = PETSC_DECIDE, ncell = 0, c = 0, k = 0, *cnv, *coff, *conn;
  PetscReal *xl, *vl, *ml, *pl;
  SimXDMF out;

  PetscFunctionBeginUser;
  ncell = kn[0] + kn[1] + kn[2] ? kn[0] + kn[1] + kn[2] : nv;
  PetscCall(PetscSplitOwnership(p->comm, &n, &nvg));
  PetscCallMPI(MPI_Exscan(&n, &lo, 1, MPIU_INT, MPI_SUM, p->comm));
  PetscCall(PetscSplitOwnership(p->comm, &cn, &ncell));
  PetscCallMPI(MPI_Exscan(&cn, &clo, 1, MPIU_INT, MPI_SUM, p->comm));
  PetscCall(PetscMalloc4(3 * n + 1, &xl, 3 * n + 1, &vl, n + 1, &ml, n + 1, &pl));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArrayRead(m->v, &v));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  if (m->local_state) { /* this rank's rows of the file come straight from their owners */
    PetscReal *w, *mp;
    PetscCall(SimModelNaturalRows(m, 3, x, lo, n, xl));
    PetscCall(SimModelNaturalRows(m, 3, v, lo, n, vl));
    PetscCall(PetscMalloc2(2 * m->nown + 1, &w, 2 * n + 1, &mp)); /* mass and pin flag, one row */
    for (PetscInt i = 0; i < m->nown; i++) w[2 * i] = mass[3 * i], w[2 * i + 1] = m->pinned[i] ? 1 : 0;
    PetscCall(SimModelNaturalRows(m, 2, w, lo, n, mp));
    for (PetscInt o = 0; o < n; o++) ml[o] = mp[2 * o], pl[o] = mp[2 * o + 1];
    PetscCall(PetscFree2(w, mp));
  }
  for (PetscInt i = 0; !m->local_state && i < nv; i++) { /* vertex i is written at its input number nat[i] */
    const PetscInt o = (nat ? nat[i] : i) - lo;
    if (o < 0 || o >= n) continue;
    for (int d = 0; d < 3; d++) xl[3 * o + d] = x[3 * i + d], vl[3 * o + d] = v[3 * i + d];
    ml[o] = mass[3 * i];
    pl[o] = m->pinned && m->pinned[i] ? 1 : 0;
  }
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscCall(VecRestoreArrayRead(m->v, &v));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscCall(PetscMalloc3(cn + 1, &cnv, cn + 1, &coff, 4 * cn + 1, &conn));
  if (kn[0] + kn[1] + kn[2]) {
    for (PetscInt s = 0, g = 0; s < 3; s++)
      for (PetscInt e = 0; e < kn[s]; e++, g++) {
        if (g < clo || g >= clo + cn) continue;
        cnv[c] = kv[s], coff[c++] = k;
        for (PetscInt j = 0; j < kv[s]; j++) {
          const PetscInt q = kidx[s][e * kv[s] + j];
          conn[k++] = nat ? nat[q] : q;
        }
      }
  } else
    for (PetscInt g = clo; g < clo + cn; g++) cnv[c] = 1, coff[c++] = k, conn[k++] = g;
  PetscCall(SimXDMFOpen(p->comm, path, &out));
  PetscCall(SimXDMFSetMesh(out, n, xl, cn, cnv, coff, conn));
  PetscCall(SimXDMFAddField(out, "velocity", 3, n, vl));
  PetscCall(SimXDMFAddField(out, "mass", 1, n, ml));
  PetscCall(SimXDMFAddField(out, "pinned", 1, n, pl));
  PetscCall(SimXDMFClose(&out));
  PetscCall(PetscFree3(cnv, coff, conn));
  PetscCall(PetscFree4(xl, vl, ml, pl));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteImage_Mesh(SimProblem p, const char *caption, const char *path)
{
  Mesh *mesh = (Mesh *)p->data;
  const PetscScalar *x;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  if (mesh->model->local_state) {
    Gathered gv;
    PetscErrorCode ierr = 0;
    PetscCall(GatherBegin(mesh->model, PETSC_FALSE, &gv));
    if (!rank) ierr = SimPNGWrite(mesh->model, gv.x, &mesh->camera, caption, path);
    PetscCall(GatherEnd(mesh->model, &gv));
    PetscCall(ierr);
    PetscFunctionReturn(0);
  }
  if (rank) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(mesh->model->x, &x));
  PetscCall(SimPNGWrite(mesh->model, x, &mesh->camera, caption, path));
  PetscCall(VecRestoreArrayRead(mesh->model->x, &x));
  PetscFunctionReturn(0);
}

/* Checkpoint: the vertex count, x and v in the input vertex order (SimModelWriteArray), then the
 * state of every term that carries one (SimEnergyOps save/load). */
static PetscErrorCode Save_Mesh(SimProblem p, PetscViewer viewer)
{
  SimModel m = ((Mesh *)p->data)->model;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryWrite(viewer, &m->nglobal, 1, PETSC_INT));
  PetscCall(VecGetArrayRead(m->x, &a));
  PetscCall(SimModelWriteArray(m, a, viewer));
  PetscCall(VecRestoreArrayRead(m->x, &a));
  PetscCall(VecGetArrayRead(m->v, &a));
  PetscCall(SimModelWriteArray(m, a, viewer));
  PetscCall(VecRestoreArrayRead(m->v, &a));
  for (PetscInt t = 0; t < m->nterms; t++)
    if (m->term[t]->ops.save) PetscCall(m->term[t]->ops.save(m->term[t], viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_Mesh(SimProblem p, PetscViewer viewer)
{
  SimModel m = ((Mesh *)p->data)->model;
  PetscScalar *a;
  PetscInt nv;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryRead(viewer, &nv, 1, NULL, PETSC_INT));
  PetscCheck(nv == m->nglobal, p->comm, PETSC_ERR_ARG_INCOMP, "The checkpoint has %" PetscInt_FMT " vertices; scene '%s' built %" PetscInt_FMT
             " (restart with the same scene options)", nv, p->name, m->nglobal);
  PetscCall(VecGetArray(m->x, &a));
  PetscCall(SimModelReadArray(m, a, viewer));
  PetscCall(VecRestoreArray(m->x, &a));
  PetscCall(VecGetArray(m->v, &a));
  PetscCall(SimModelReadArray(m, a, viewer));
  PetscCall(VecRestoreArray(m->v, &a));
  for (PetscInt t = 0; t < m->nterms; t++)
    if (m->term[t]->ops.load) PetscCall(m->term[t]->ops.load(m->term[t], viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode View_Mesh(SimProblem p, PetscViewer viewer)
{
  SimModel m = ((Mesh *)p->data)->model;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " energy terms:", m->nterms));
  for (PetscInt i = 0; i < m->nterms; i++) PetscCall(PetscViewerASCIIPrintf(viewer, " %s", m->term[i]->name));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Mesh(SimProblem p)
{
  Mesh *mesh = (Mesh *)p->data;

  PetscFunctionBeginUser;
  if (mesh->owns_model) PetscCall(SimModelDestroy(&mesh->model));
  PetscCall(VecDestroy(&mesh->xstash));
  PetscCall(VecDestroy(&mesh->vstash));
  PetscCall(PetscFree(mesh->xold));
  PetscCall(PetscFree(p->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemCreate_Mesh(SimProblem p)
{
  static const SimProblemOps ops = {.setup = SetUp_Mesh,
                                    .size = Size_Mesh,
                                    .summary = Summary_Mesh,
                                    .state = State_Mesh,
                                    .before_step = BeforeStep_Mesh,
                                    .after_step = AfterStep_Mesh,
                                    .report = Report_Mesh,
                                    .is_finite = IsFinite_Mesh,
                                    .admissible = Admissible_Mesh,
                                    .stash = Stash_Mesh,
                                    .write_frame = WriteFrame_Mesh,
                                    .write_xdmf = WriteXDMF_Mesh,
                                    .write_image = WriteImage_Mesh,
                                    .save = Save_Mesh,
                                    .load = Load_Mesh,
                                    .view = View_Mesh,
                                    .destroy = Destroy_Mesh};
  Mesh *mesh = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&mesh));
  PetscCall(SimModelCreate(p->comm, &mesh->model));
  mesh->model->gravity[1] = -9.81; /* DESIGN §6: y up; a scene may change it, -gravity overrides */
  mesh->owns_model = PETSC_TRUE;
  p->data = mesh;
  p->ops = ops;
  PetscCall(PetscStrncpy(p->frame_ext, "vtu", sizeof(p->frame_ext)));
  PetscFunctionReturn(0);
}

PetscErrorCode SimMeshProblemCreateFromModel(SimRegistry reg, SimModel model, SimProblem *problem)
{
  Mesh *mesh = NULL;

  PetscFunctionBeginUser;
  PetscCall(SimProblemCreate(reg, "mesh", "model", model->comm, problem));
  PetscCall(GetMesh(*problem, &mesh));
  PetscCall(SimModelDestroy(&mesh->model));
  mesh->model = model;
  mesh->owns_model = PETSC_FALSE;
  PetscCall(FitCamera(mesh));
  PetscCall(SimProblemSetUp(*problem));
  PetscFunctionReturn(0);
}
