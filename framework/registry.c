/* The registry: one growable table of (name, help, constructor, flags) rows per kind. */
#include "framework/registry.h"
#include "framework/text.h"

typedef struct {
  SimRegEntry *rows;
  PetscInt n, cap;
} SimTable;

struct _p_SimRegistry {
  SimTable table[SIM_KIND_COUNT];
};

static const char *const kind_names[SIM_KIND_COUNT] = {"solver", "scene", "energy", "material", "problem type"};
static const char *const kind_titles[SIM_KIND_COUNT] = {"Solvers (-solver)", "Scenes (-scene)", "Energy terms",
                                                        "Materials (-material)", "Problem types (what a scene builds and a solver advances)"};

const char *SimKindName(SimKind kind)
{
  return (kind >= 0 && kind < SIM_KIND_COUNT) ? kind_names[kind] : "unknown";
}

PetscErrorCode SimRegistryCreate(SimRegistry *reg)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(reg));
  PetscFunctionReturn(0);
}

PetscErrorCode SimRegistryDestroy(SimRegistry *reg)
{
  PetscFunctionBeginUser;
  if (!reg || !*reg) PetscFunctionReturn(0);
  for (int k = 0; k < SIM_KIND_COUNT; k++) PetscCall(PetscFree((*reg)->table[k].rows));
  PetscCall(PetscFree(*reg));
  PetscFunctionReturn(0);
}

PetscErrorCode SimRegistryLookup(SimRegistry reg, SimKind kind, const char *name, const SimRegEntry **entry)
{
  PetscFunctionBeginUser;
  PetscCheck(kind >= 0 && kind < SIM_KIND_COUNT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Bad registry kind %d", (int)kind);
  *entry = NULL;
  if (!name) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < reg->table[kind].n; i++)
    if (!strcmp(reg->table[kind].rows[i].name, name)) *entry = &reg->table[kind].rows[i];
  PetscFunctionReturn(0);
}

PetscErrorCode SimRegistryAdd(SimRegistry reg, SimKind kind, const char *name, const char *help,
                              SimGenericFn create, unsigned flags)
{
  PetscFunctionBeginUser;
  PetscCheck(kind != SIM_KIND_SOLVER && kind != SIM_KIND_SCENE && kind != SIM_KIND_PROBLEM, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s '%s': scenes, solvers and problem types are registered with SimRegistryAddFor (they name a problem type)",
             kind_names[kind], name);
  PetscCall(SimRegistryAddFor(reg, kind, name, help, create, flags, NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode SimRegistryAddFor(SimRegistry reg, SimKind kind, const char *name, const char *help,
                                 SimGenericFn create, unsigned flags, const char *problem)
{
  const SimRegEntry *existing;
  SimTable *t;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryLookup(reg, kind, name, &existing));
  PetscCheck(!existing, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "A %s named '%s' is already registered", kind_names[kind], name);
  PetscCheck(strlen(name) < sizeof(existing->name), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Name '%s' is too long", name);
  /* `pbsim list` shows the help line whole: a longer one would be cut mid-word */
  PetscCheck(!help || strlen(help) < sizeof(existing->help), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The help line of %s '%s' has %zu characters (at most %zu)",
             kind_names[kind], name, strlen(help), sizeof(existing->help) - 1);
  t = &reg->table[kind];
  if (t->n == t->cap) {
    PetscInt cap = t->cap ? 2 * t->cap : 16;
    PetscCall(PetscRealloc(sizeof(SimRegEntry) * cap, &t->rows));
    t->cap = cap;
  }
  PetscCall(PetscMemzero(&t->rows[t->n], sizeof(SimRegEntry)));
  PetscCall(PetscStrncpy(t->rows[t->n].name, name, sizeof(t->rows[t->n].name)));
  PetscCall(PetscStrncpy(t->rows[t->n].help, help ? help : "", sizeof(t->rows[t->n].help)));
  t->rows[t->n].create = create;
  t->rows[t->n].flags = flags;
  PetscCheck(!problem || strlen(problem) < sizeof(t->rows[t->n].problem), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s '%s': problem list '%s' is too long",
             kind_names[kind], name, problem);
  PetscCall(PetscStrncpy(t->rows[t->n].problem, problem ? problem : "", sizeof(t->rows[t->n].problem)));
  t->n++;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRegistryNames(SimRegistry reg, SimKind kind, char *buf, size_t len)
{
  PetscFunctionBeginUser;
  buf[0] = 0;
  for (PetscInt i = 0; i < reg->table[kind].n; i++) {
    if (i) PetscCall(SimStrAppend(buf, ", ", len));
    PetscCall(SimStrAppend(buf, reg->table[kind].rows[i].name, len));
  }
  PetscFunctionReturn(0);
}

PetscBool SimRegistrySolverFits(const SimRegEntry *solver, const char *type)
{
  const char *p = solver->problem;
  size_t n = strlen(type);

  if (!n) return PETSC_FALSE;
  while (*p) { /* the comma-separated list holds `type` as a whole item */
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && !strncmp(p, type, n)) return PETSC_TRUE;
    if (!end) break;
    p = end + 1;
  }
  return PETSC_FALSE;
}

PetscErrorCode SimRegistrySolversFor(SimRegistry reg, const char *type, char *buf, size_t len)
{
  const SimTable *t = &reg->table[SIM_KIND_SOLVER];

  PetscFunctionBeginUser;
  buf[0] = 0;
  for (PetscInt i = 0; i < t->n; i++) {
    if (!SimRegistrySolverFits(&t->rows[i], type)) continue;
    PetscCall(SimStrAppendItem(buf, ", ", t->rows[i].name, len));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimRegistryScenesFor(SimRegistry reg, const SimRegEntry *solver, char *buf, size_t len)
{
  const SimTable *t = &reg->table[SIM_KIND_SCENE];

  PetscFunctionBeginUser;
  buf[0] = 0;
  for (PetscInt i = 0; i < t->n; i++) {
    if (!SimRegistrySolverFits(solver, t->rows[i].problem)) continue;
    PetscCall(SimStrAppendItem(buf, ", ", t->rows[i].name, len));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimRegistryFind(SimRegistry reg, SimKind kind, const char *name, const SimRegEntry **entry)
{
  char names[2048];

  PetscFunctionBeginUser;
  PetscCall(SimRegistryLookup(reg, kind, name, entry));
  if (*entry) PetscFunctionReturn(0);
  PetscCall(SimRegistryNames(reg, kind, names, sizeof(names)));
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown %s '%s'. Valid %ss: %s", kind_names[kind],
          name ? name : "(none)", kind_names[kind], names[0] ? names : "(none registered)");
}

PetscErrorCode SimRegistryCount(SimRegistry reg, SimKind kind, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = reg->table[kind].n;
  PetscFunctionReturn(0);
}

PetscErrorCode SimRegistrySetDefaultSolver(SimRegistry reg, const char *scene, const char *solver)
{
  const SimRegEntry *e;

  PetscFunctionBeginUser;
  PetscCall(SimRegistryFind(reg, SIM_KIND_SCENE, scene, &e));
  PetscCheck(solver && solver[0] && strlen(solver) < sizeof(e->solver), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "Scene '%s': the default solver name must be 1..%d characters", scene, (int)sizeof(e->solver) - 1);
  PetscCall(PetscStrncpy(((SimRegEntry *)e)->solver, solver, sizeof(e->solver)));
  PetscFunctionReturn(0);
}

PetscErrorCode SimRegistryGet(SimRegistry reg, SimKind kind, PetscInt i, const SimRegEntry **entry)
{
  PetscFunctionBeginUser;
  PetscCheck(i >= 0 && i < reg->table[kind].n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Entry %" PetscInt_FMT " out of range", i);
  *entry = &reg->table[kind].rows[i];
  PetscFunctionReturn(0);
}

PetscErrorCode SimRegistryView(SimRegistry reg, FILE *out)
{
  PetscFunctionBeginUser;
  for (int k = 0; k < SIM_KIND_COUNT; k++) {
    const SimTable *t = &reg->table[k];
    fprintf(out, "%s%s:\n", k ? "\n" : "", kind_titles[k]);
    if (!t->n) fprintf(out, "  (none registered yet)\n");
    for (PetscInt i = 0; i < t->n; i++) {
      const SimRegEntry *e = &t->rows[i];
      const char *par = (k == SIM_KIND_SOLVER) ? ((e->flags & SIM_REG_MPI) ? "  [MPI]" : "  [serial]") : "";
      /* the pairing: what a scene builds, what a solver advances, a problem type's default solver */
      const char *pre = k == SIM_KIND_PROBLEM ? "  [default solver: " : "  [";
      if (e->problem[0] && e->solver[0]) fprintf(out, "  %-20s %s%s%s%s; default solver: %s]\n", e->name, e->help, par, pre, e->problem, e->solver);
      else if (e->problem[0]) fprintf(out, "  %-20s %s%s%s%s]\n", e->name, e->help, par, pre, e->problem);
      else fprintf(out, "  %-20s %s%s\n", e->name, e->help, par);
    }
  }
  PetscFunctionReturn(0);
}
