/* Per-run performance figures from pbsim's PETSc log events and the process's peak memory
 * (DESIGN §8, performance). */
#pragma once
#include <petscsys.h>

/* The events the harness reads, in this order (framework/events.h): SimStep, SimForce, SimAssemble,
 * SimFactor, SimSolve, SimLineSearch, SimOutput. */
#define BENCH_NEVENTS 7
/* Short name of event i ("step", "force", ...), used as CSV/JSON column stems. */
const char *BenchEventName(PetscInt i);

/* Events a term or a solver registers when it is created, read by name where present (0 otherwise),
 * in this order: the IPC term's IPCBuild, IPCValue, IPCGradient, IPCHessian, IPCCCD
 * (energies/ipc/ipc.c); the stablefluids phases FluidAdvect, FluidForces, FluidViscosity
 * (solvers/stablefluids/stablefluids.c). */
#define BENCH_NTERM_EVENTS 8
#define BENCH_FLUID_EVENT  5 /* the first stablefluids event */
/* Short name of term event i ("ipc_build", ...). */
const char *BenchTermEventName(PetscInt i);

/* Cumulative figures of every event at one moment (current log stage). */
typedef struct {
  PetscLogDouble time[BENCH_NEVENTS]; /* s, inclusive of nested events */
  int count[BENCH_NEVENTS];
  int depth[BENCH_NEVENTS]; /* > 0: begun and not ended */
  PetscLogDouble term_time[BENCH_NTERM_EVENTS];
  int term_count[BENCH_NTERM_EVENTS], term_depth[BENCH_NTERM_EVENTS];
} BenchEventSnapshot;

/* Turns on PETSc's default logging if nothing else did (the event counters need it). */
PetscErrorCode BenchTimingStart(void);
PetscErrorCode BenchEventsSnapshot(BenchEventSnapshot *s);
/* Ends the events a failed run left open (an error unwinding out of a logged phase), so that later
 * runs are timed again (PETSc stops timing an event while it is nested in itself). */
PetscErrorCode BenchEventsRebalance(const BenchEventSnapshot *before, const BenchEventSnapshot *after);

/* One run's figures, per step (ms) unless stated. */
typedef struct {
  PetscReal ms_per_step;             /* wall time of SimSolverStep, mean over the steps run */
  PetscReal event_ms[BENCH_NEVENTS]; /* inclusive event time / steps */
  PetscReal other_ms;                /* step - (force + assemble + factor + solve + line search), >= 0 */
  PetscReal throughput;              /* vertices * steps / s of stepping */
  PetscReal peak_rss_mb;             /* process peak resident set so far (getrusage), MB */
  PetscReal term_ms[BENCH_NTERM_EVENTS];    /* a term event's time / steps */
  PetscReal term_calls[BENCH_NTERM_EVENTS]; /* its calls / steps (0: the run had no such event) */
} BenchTiming;

/* Figures of a run of `steps` steps on nv vertices that took wall_ms in SimSolverStep, from the
 * snapshots taken before and after it. */
PetscErrorCode BenchTimingCompute(const BenchEventSnapshot *before, const BenchEventSnapshot *after, PetscInt steps, PetscInt nv,
                                  PetscReal wall_ms, BenchTiming *t);
