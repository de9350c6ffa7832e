/* Event-based timing and peak memory of one run (see timing.h). */
#include <stddef.h>
#include <sys/resource.h>
#include "benchmarks/timing.h"
#include "framework/events.h"

/* The events as data: a short name and where SimEvents keeps the id. */
static const struct {
  const char *name;
  size_t offset;
} events[BENCH_NEVENTS] = {
    {"step", offsetof(SimEvents, step)},         {"force", offsetof(SimEvents, force)},
    {"assemble", offsetof(SimEvents, assemble)}, {"factor", offsetof(SimEvents, factor)},
    {"solve", offsetof(SimEvents, solve)},       {"linesearch", offsetof(SimEvents, linesearch)},
    {"output", offsetof(SimEvents, output)},
};

static const struct {
  const char *name, *petsc;
} term_events[BENCH_NTERM_EVENTS] = {
    {"ipc_build", "IPCBuild"},         {"ipc_value", "IPCValue"},         {"ipc_gradient", "IPCGradient"},
    {"ipc_hessian", "IPCHessian"},     {"ipc_ccd", "IPCCCD"},             {"fluid_advect", "FluidAdvect"},
    {"fluid_forces", "FluidForces"},   {"fluid_viscosity", "FluidViscosity"},
};

const char *BenchTermEventName(PetscInt i)
{
  return (i >= 0 && i < BENCH_NTERM_EVENTS) ? term_events[i].name : "?";
}

/* A term event's id, -1 while no term registered it. */
static PetscErrorCode TermEventId(PetscInt i, PetscLogEvent *id)
{
  PetscFunctionBeginUser;
  *id = -1;
  PetscCall(PetscLogEventGetId(term_events[i].petsc, id));
  PetscFunctionReturn(0);
}

const char *BenchEventName(PetscInt i)
{
  return (i >= 0 && i < BENCH_NEVENTS) ? events[i].name : "?";
}

static PetscLogEvent EventId(const SimEvents *ev, PetscInt i)
{
  return *(const PetscLogEvent *)((const char *)ev + events[i].offset);
}

PetscErrorCode BenchTimingStart(void)
{
  PetscBool active;
  SimEvents ev;

  PetscFunctionBeginUser;
  PetscCall(PetscLogIsActive(&active));
  if (!active) PetscCall(PetscLogDefaultBegin());
  PetscCall(SimEventsGet(&ev));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchEventsSnapshot(BenchEventSnapshot *s)
{
  SimEvents ev;

  PetscFunctionBeginUser;
  PetscCall(SimEventsGet(&ev));
  for (PetscInt i = 0; i < BENCH_NEVENTS; i++) {
    PetscEventPerfInfo info;
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, EventId(&ev, i), &info));
    s->time[i] = info.time;
    s->count[i] = info.count;
    s->depth[i] = info.depth;
  }
  for (PetscInt i = 0; i < BENCH_NTERM_EVENTS; i++) {
    PetscEventPerfInfo info;
    PetscLogEvent id;
    PetscCall(TermEventId(i, &id));
    s->term_time[i] = 0, s->term_count[i] = s->term_depth[i] = 0;
    if (id < 0) continue;
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, id, &info));
    s->term_time[i] = info.time, s->term_count[i] = info.count, s->term_depth[i] = info.depth;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BenchEventsRebalance(const BenchEventSnapshot *before, const BenchEventSnapshot *after)
{
  SimEvents ev;

  PetscFunctionBeginUser;
  PetscCall(SimEventsGet(&ev));
  for (PetscInt i = 0; i < BENCH_NEVENTS; i++)
    for (int k = before->depth[i]; k < after->depth[i]; k++) PetscCall(PetscLogEventEnd(EventId(&ev, i), 0, 0, 0, 0));
  for (PetscInt i = 0; i < BENCH_NTERM_EVENTS; i++) {
    PetscLogEvent id;
    PetscCall(TermEventId(i, &id));
    if (id >= 0)
      for (int k = before->term_depth[i]; k < after->term_depth[i]; k++) PetscCall(PetscLogEventEnd(id, 0, 0, 0, 0));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BenchTimingCompute(const BenchEventSnapshot *before, const BenchEventSnapshot *after, PetscInt steps, PetscInt nv,
                                  PetscReal wall_ms, BenchTiming *t)
{
  struct rusage ru;
  PetscReal inner = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(t, sizeof(*t)));
  if (steps > 0) {
    t->ms_per_step = wall_ms / steps;
    for (PetscInt i = 0; i < BENCH_NEVENTS; i++) t->event_ms[i] = 1e3 * (after->time[i] - before->time[i]) / steps;
    /* the phases nested in a step: force, assemble, factor, solve, line search (indices 1..5) */
    for (PetscInt i = 1; i <= 5; i++) inner += t->event_ms[i];
    t->other_ms = PetscMax(0, t->event_ms[0] - inner);
    for (PetscInt i = 0; i < BENCH_NTERM_EVENTS; i++) {
      t->term_ms[i] = 1e3 * (after->term_time[i] - before->term_time[i]) / steps;
      t->term_calls[i] = (PetscReal)(after->term_count[i] - before->term_count[i]) / steps;
    }
    if (wall_ms > 0) t->throughput = (PetscReal)nv * steps / (1e-3 * wall_ms);
  }
  if (!getrusage(RUSAGE_SELF, &ru)) t->peak_rss_mb = ru.ru_maxrss / 1024.0; /* Linux: kilobytes */
  PetscFunctionReturn(0);
}
