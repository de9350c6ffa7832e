/* The SimProblem front end: creation by registered type, set-up once, and the defaults for the
 * optional ops (problem_impl.h). Implementations only describe their state. */
#include "framework/problem_impl.h"

PetscErrorCode SimProblemCreate(SimRegistry reg, const char *type, const char *name, MPI_Comm comm, SimProblem *problem)
{
  const SimRegEntry *e;
  SimProblem p;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryFind(reg, SIM_KIND_PROBLEM, type, &e));
  PetscCall(PetscNew(&p));
  PetscCall(PetscStrncpy(p->type, type, sizeof(p->type)));
  PetscCall(PetscStrncpy(p->name, name ? name : type, sizeof(p->name)));
  p->comm = comm;
  p->reg = reg;
  PetscCall(((SimProblemCreateFn)e->create)(p));
  PetscCheck(p->ops.size && p->ops.summary, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Problem type '%s' must provide the size and summary operations",
             type);
  *problem = p;
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemSetUp(SimProblem p)
{
  PetscFunctionBeginUser;
  if (p->setupcalled) PetscFunctionReturn(0);
  if (p->ops.setup) PetscCall(p->ops.setup(p));
  p->setupcalled = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemGetType(SimProblem p, const char **type)
{
  PetscFunctionBeginUser;
  *type = p->type;
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemGetName(SimProblem p, const char **name)
{
  PetscFunctionBeginUser;
  *name = p->name;
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemGetComm(SimProblem p, MPI_Comm *comm)
{
  PetscFunctionBeginUser;
  *comm = p->comm;
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemGetRegistry(SimProblem p, SimRegistry *reg)
{
  PetscFunctionBeginUser;
  *reg = p->reg;
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemGetSize(SimProblem p, PetscInt *count, const char **unit)
{
  PetscFunctionBeginUser;
  PetscCall(p->ops.size(p, count, unit));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemSummary(SimProblem p, char *buf, size_t len)
{
  PetscFunctionBeginUser;
  buf[0] = 0;
  PetscCall(p->ops.summary(p, buf, len));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemGetFrameExtension(SimProblem p, const char **ext)
{
  PetscFunctionBeginUser;
  *ext = p->frame_ext[0] ? p->frame_ext : "vtu";
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemGetState(SimProblem p, Vec *state)
{
  PetscFunctionBeginUser;
  *state = NULL;
  if (p->ops.state) PetscCall(p->ops.state(p, state));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemBeforeStep(SimProblem p, PetscReal t, PetscReal dt)
{
  PetscFunctionBeginUser;
  if (p->ops.before_step) PetscCall(p->ops.before_step(p, t, dt));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemAfterStep(SimProblem p, PetscReal t, PetscReal dt)
{
  PetscFunctionBeginUser;
  if (p->ops.after_step) PetscCall(p->ops.after_step(p, t, dt));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemReport(SimProblem p, SimEnergyReport *rep, PetscBool *has)
{
  PetscFunctionBeginUser;
  *has = p->ops.report ? PETSC_TRUE : PETSC_FALSE;
  if (p->ops.report) PetscCall(p->ops.report(p, rep));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemIsFinite(SimProblem p, PetscBool *finite)
{
  Vec state;
  PetscReal nrm;

  PetscFunctionBeginUser;
  *finite = PETSC_TRUE;
  if (p->ops.is_finite) {
    PetscCall(p->ops.is_finite(p, finite));
    PetscFunctionReturn(0);
  }
  PetscCall(SimProblemGetState(p, &state));
  if (!state) PetscFunctionReturn(0);
  PetscCall(VecNorm(state, NORM_INFINITY, &nrm));
  *finite = (PetscBool)!PetscIsInfOrNanReal(nrm);
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemAdmissible(SimProblem p, char *why, size_t len)
{
  PetscFunctionBeginUser;
  why[0] = 0;
  if (p->ops.admissible) PetscCall(p->ops.admissible(p, why, len));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemStash(SimProblem p, PetscBool restore)
{
  PetscFunctionBeginUser;
  if (p->ops.stash) PetscCall(p->ops.stash(p, restore));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemWriteFrame(SimProblem p, const char *path, PetscBool *written)
{
  PetscFunctionBeginUser;
  *written = p->ops.write_frame ? PETSC_TRUE : PETSC_FALSE;
  if (p->ops.write_frame) PetscCall(p->ops.write_frame(p, path));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemWriteXDMF(SimProblem p, const char *path, PetscBool *written)
{
  PetscFunctionBeginUser;
  *written = p->ops.write_xdmf ? PETSC_TRUE : PETSC_FALSE;
  if (p->ops.write_xdmf && path) PetscCall(p->ops.write_xdmf(p, path));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemWriteImage(SimProblem p, const char *caption, const char *path, PetscBool *written)
{
  PetscFunctionBeginUser;
  *written = p->ops.write_image ? PETSC_TRUE : PETSC_FALSE;
  if (p->ops.write_image) PetscCall(p->ops.write_image(p, caption, path));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemSave(SimProblem p, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (p->ops.save) PetscCall(p->ops.save(p, viewer));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemLoad(SimProblem p, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (p->ops.load) PetscCall(p->ops.load(p, viewer));
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemView(SimProblem p, PetscViewer viewer)
{
  char summary[256];

  PetscFunctionBeginUser;
  PetscCall(SimProblemSummary(p, summary, sizeof(summary)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "SimProblem %s (%s): %s\n", p->type, p->name, summary));
  if (p->ops.view) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(p->ops.view(p, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimProblemDestroy(SimProblem *problem)
{
  PetscFunctionBeginUser;
  if (!problem || !*problem) PetscFunctionReturn(0);
  if ((*problem)->ops.destroy) PetscCall((*problem)->ops.destroy(*problem));
  PetscCall(PetscFree(*problem));
  PetscFunctionReturn(0);
}
