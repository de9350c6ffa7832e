/* A plugin that adds a kind of state pbsim does not have, with a solver and a scene for it, in this
 * file alone (issue 10's acceptance 1; docs/guide.md, "Adding a problem type"):
 *   problem type "orbiters": N point masses in the central field of a fixed mass GM at the origin,
 *     U = -GM m / |x|; x, v in flat arrays (replicated on every rank; rank 0 writes output);
 *   solver "orbit_symplectic": symplectic Euler, v += h a(x), x += h v;
 *   scene "orbits": the masses on circular orbits of radius 1, 2, 3, ... in the xy plane.
 * Loaded with -plugin; tests/cli/plugins.cmake runs it through `pbsim run` and `pbsim bench`. */
#include "framework/problem_impl.h"
#include "framework/solver_impl.h"
#include "framework/scene.h"
#include "framework/plugin.h"
#include "framework/io/vtk.h"
#include "framework/io/png.h"

/* ---- the problem type ---- */
typedef struct {
  PetscInt n;
  PetscReal gm;            /* GM of the centre [m^3/s^2] */
  Vec x, v;                /* 3n each, sequential, the same on every rank */
  Vec xs, vs;              /* the last good state */
  PetscReal *m;            /* n masses [kg] */
  SimCamera camera;
} Orbiters;

static PetscErrorCode Size_Orbiters(SimProblem p, PetscInt *count, const char **unit)
{
  PetscFunctionBeginUser;
  *count = ((Orbiters *)p->data)->n;
  *unit = "bodies";
  PetscFunctionReturn(0);
}

static PetscErrorCode Summary_Orbiters(SimProblem p, char *buf, size_t len)
{
  Orbiters *o = (Orbiters *)p->data;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(buf, len, "%" PetscInt_FMT " bodies around GM = %g", o->n, (double)o->gm));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUp_Orbiters(SimProblem p)
{
  Orbiters *o = (Orbiters *)p->data;
  const PetscScalar *x;
  PetscReal box[6] = {0, 0, 0, 0, 0, 0};

  PetscFunctionBeginUser;
  PetscCheck(o->n > 0, p->comm, PETSC_ERR_ARG_WRONGSTATE, "Scene '%s' placed no bodies", p->name);
  PetscCall(VecGetArrayRead(o->x, &x));
  for (PetscInt i = 0; i < o->n; i++) /* the whole orbits: a square of the largest radius */
    for (int d = 0; d < 2; d++) box[d] = PetscMin(box[d], -PetscAbsReal(x[3 * i]) - PetscAbsReal(x[3 * i + 1])), box[3 + d] = -box[d];
  PetscCall(VecRestoreArrayRead(o->x, &x));
  PetscCall(SimCameraFit(2, box, 0.1, &o->camera));
  o->camera.azimuth = o->camera.elevation = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode State_Orbiters(SimProblem p, Vec *state)
{
  PetscFunctionBeginUser;
  *state = ((Orbiters *)p->data)->x;
  PetscFunctionReturn(0);
}

static PetscErrorCode Report_Orbiters(SimProblem p, SimEnergyReport *rep)
{
  Orbiters *o = (Orbiters *)p->data;
  const PetscScalar *x, *v;
  PetscReal ke = 0, pe = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(rep, sizeof(*rep)));
  PetscCall(VecGetArrayRead(o->x, &x));
  PetscCall(VecGetArrayRead(o->v, &v));
  for (PetscInt i = 0; i < o->n; i++) {
    const PetscReal *xi = &x[3 * i], *vi = &v[3 * i];
    ke += 0.5 * o->m[i] * (vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]);
    pe -= o->gm * o->m[i] / PetscSqrtReal(xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]);
    for (int d = 0; d < 3; d++) rep->momentum[d] += o->m[i] * vi[d];
  }
  PetscCall(VecRestoreArrayRead(o->v, &v));
  PetscCall(VecRestoreArrayRead(o->x, &x));
  rep->kinetic = ke;
  rep->nterms = 1;
  rep->term_name[0] = "central";
  rep->term[0] = rep->potential = pe;
  rep->total = ke + pe;
  PetscFunctionReturn(0);
}

static PetscErrorCode Stash_Orbiters(SimProblem p, PetscBool restore)
{
  Orbiters *o = (Orbiters *)p->data;

  PetscFunctionBeginUser;
  if (!o->xs) PetscCall(VecDuplicate(o->x, &o->xs));
  if (!o->vs) PetscCall(VecDuplicate(o->v, &o->vs));
  PetscCall(restore ? VecCopy(o->xs, o->x) : VecCopy(o->x, o->xs));
  PetscCall(restore ? VecCopy(o->vs, o->v) : VecCopy(o->v, o->vs));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteFrame_Orbiters(SimProblem p, const char *path)
{
  Orbiters *o = (Orbiters *)p->data;
  const PetscScalar *x, *v;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  if (rank) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(o->x, &x));
  PetscCall(VecGetArrayRead(o->v, &v));
  {
    const SimVTKField fields[2] = {{"velocity", 3, v}, {"mass", 1, o->m}};
    PetscCall(SimVTKWritePoints(path, o->n, x, 2, fields));
  }
  PetscCall(VecRestoreArrayRead(o->v, &v));
  PetscCall(VecRestoreArrayRead(o->x, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteImage_Orbiters(SimProblem p, const char *caption, const char *path)
{
  Orbiters *o = (Orbiters *)p->data;
  const PetscScalar *x;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  if (rank) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(o->x, &x));
  PetscCall(SimPNGWritePoints(o->n, x, o->m, 0, 1, 6, &o->camera, caption, path));
  PetscCall(VecRestoreArrayRead(o->x, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode Save_Orbiters(SimProblem p, PetscViewer viewer)
{
  Orbiters *o = (Orbiters *)p->data;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(o->x, &a));
  PetscCall(PetscViewerBinaryWrite(viewer, a, 3 * o->n, PETSC_REAL));
  PetscCall(VecRestoreArrayRead(o->x, &a));
  PetscCall(VecGetArrayRead(o->v, &a));
  PetscCall(PetscViewerBinaryWrite(viewer, a, 3 * o->n, PETSC_REAL));
  PetscCall(VecRestoreArrayRead(o->v, &a));
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_Orbiters(SimProblem p, PetscViewer viewer)
{
  Orbiters *o = (Orbiters *)p->data;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(o->x, &a));
  PetscCall(PetscViewerBinaryRead(viewer, a, 3 * o->n, NULL, PETSC_REAL));
  PetscCall(VecRestoreArray(o->x, &a));
  PetscCall(VecGetArray(o->v, &a));
  PetscCall(PetscViewerBinaryRead(viewer, a, 3 * o->n, NULL, PETSC_REAL));
  PetscCall(VecRestoreArray(o->v, &a));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Orbiters(SimProblem p)
{
  Orbiters *o = (Orbiters *)p->data;

  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&o->x));
  PetscCall(VecDestroy(&o->v));
  PetscCall(VecDestroy(&o->xs));
  PetscCall(VecDestroy(&o->vs));
  PetscCall(PetscFree(o->m));
  PetscCall(PetscFree(p->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode SimProblemCreate_Orbiters(SimProblem p)
{
  static const SimProblemOps ops = {.setup = SetUp_Orbiters,
                                    .size = Size_Orbiters,
                                    .summary = Summary_Orbiters,
                                    .state = State_Orbiters,
                                    .report = Report_Orbiters,
                                    .stash = Stash_Orbiters,
                                    .write_frame = WriteFrame_Orbiters,
                                    .write_image = WriteImage_Orbiters,
                                    .save = Save_Orbiters,
                                    .load = Load_Orbiters,
                                    .destroy = Destroy_Orbiters};

  PetscFunctionBeginUser;
  PetscCall(PetscNew((Orbiters **)&p->data));
  p->ops = ops;
  PetscCall(PetscStrncpy(p->frame_ext, "vtu", sizeof(p->frame_ext)));
  PetscFunctionReturn(0);
}

/* ---- the solver: symplectic Euler in the central field ---- */
static PetscErrorCode Step_OrbitSymplectic(SimSolver s, PetscReal h)
{
  Orbiters *o = (Orbiters *)s->problem->data;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(o->x, &x));
  PetscCall(VecGetArray(o->v, &v));
  for (PetscInt i = 0; i < o->n; i++) {
    PetscReal *xi = &x[3 * i], *vi = &v[3 * i];
    const PetscReal r = PetscSqrtReal(xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]), k = -o->gm / (r * r * r);
    for (int d = 0; d < 3; d++) vi[d] += h * k * xi[d];
    for (int d = 0; d < 3; d++) xi[d] += h * vi[d];
  }
  PetscCall(VecRestoreArray(o->v, &v));
  PetscCall(VecRestoreArray(o->x, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode SimSolverCreate_OrbitSymplectic(SimSolver s)
{
  static const SimSolverOps ops = {.step = Step_OrbitSymplectic};

  PetscFunctionBeginUser;
  s->ops = ops;
  PetscFunctionReturn(0);
}

/* ---- the scene: circular orbits of radius 1..n (v = sqrt(GM / r)), unit masses ---- */
static PetscErrorCode Build_Orbits(SimScene scene, SimProblem p)
{
  Orbiters *o = (Orbiters *)p->data;
  PetscInt n = 3;
  PetscReal gm = 1;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  PetscOptionsBegin(p->comm, "orbits_", "Orbits scene (plugin)", "");
  PetscCall(PetscOptionsInt("-n", "number of bodies", "", n, &n, NULL));
  PetscCall(PetscOptionsReal("-gm", "GM of the centre (m^3/s^2)", "", gm, &gm, NULL));
  PetscOptionsEnd();
  PetscCheck(n > 0 && gm > 0, p->comm, PETSC_ERR_ARG_OUTOFRANGE, "-orbits_n and -orbits_gm must be > 0");
  o->n = n;
  o->gm = gm;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3 * n, &o->x));
  PetscCall(VecDuplicate(o->x, &o->v));
  PetscCall(PetscMalloc1(n, &o->m));
  PetscCall(VecGetArray(o->x, &x));
  PetscCall(VecGetArray(o->v, &v));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal r = i + 1;
    x[3 * i] = r, x[3 * i + 1] = x[3 * i + 2] = 0;
    v[3 * i + 1] = PetscSqrtReal(gm / r), v[3 * i] = v[3 * i + 2] = 0;
    o->m[i] = 1;
  }
  PetscCall(VecRestoreArray(o->v, &v));
  PetscCall(VecRestoreArray(o->x, &x));
  PetscFunctionReturn(0);
}

/* The innermost body's distance from the centre, and its exact value (1: a circular orbit). */
static PetscErrorCode Figures_Orbits(SimScene scene, SimProblem p, PetscReal t, PetscInt *n, const char *names[], PetscReal values[])
{
  Orbiters *o = (Orbiters *)p->data;
  const PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(o->x, &x));
  names[0] = "r0", values[0] = PetscSqrtReal(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  names[1] = "r0_error", values[1] = values[0] - 1;
  *n = 2;
  PetscCall(VecRestoreArrayRead(o->x, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode SimSceneCreate_Orbits(SimScene scene)
{
  PetscFunctionBeginUser;
  scene->ops.build = Build_Orbits;
  scene->ops.figures = Figures_Orbits;
  PetscFunctionReturn(0);
}

/* ---- registration: one line each, through the same calls as the built-in tables ---- */
PetscErrorCode PbsimPluginRegister(SimRegistry reg)
{
  PetscFunctionBeginUser;
  PetscCall(SimRegistryAddFor(reg, SIM_KIND_PROBLEM, "orbiters", "point masses in a central field (plugin)", (SimGenericFn)SimProblemCreate_Orbiters, 0,
                              "orbit_symplectic"));
  PetscCall(SimRegistryAddFor(reg, SIM_KIND_SOLVER, "orbit_symplectic", "symplectic Euler in a central field (plugin)",
                              (SimGenericFn)SimSolverCreate_OrbitSymplectic, SIM_REG_MPI, "orbiters"));
  PetscCall(SimRegistryAddFor(reg, SIM_KIND_SCENE, "orbits", "bodies on circular orbits (plugin)", (SimGenericFn)SimSceneCreate_Orbits, 0, "orbiters"));
  PetscFunctionReturn(0);
}
