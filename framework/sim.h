/* SimRun: one simulation run, from options to output (DESIGN §6-7). */
#pragma once
#include "framework/registry.h"
#include "framework/scene.h"
#include "framework/solver.h"

typedef struct _p_SimRun *SimRun;

/* Options (all in the PETSc options database, so a YAML config and the command line agree):
 *   -scene NAME  -solver NAME (default implicit_euler; for a grid scene the first grid solver)  -dt SECONDS  -steps N  -o DIR (default out)
 *   -output_every N (VTK frame every N steps, 0 = none; default 1)
 *   -snapshot_every N (PNG every N steps; the first and last frames always; 0 = only those)
 *   -snapshots (default true; false: no PNG at all)  -log (default true: DIR/log.csv)
 *   -progress (default on when stderr is a terminal)
 *   -checkpoint_every N (DIR/checkpoint_<step>.bin every N steps; 0 = none)  -restart FILE (continue
 *   from a checkpoint: same scene, solver and options; -steps still counts from the run's start) */
PetscErrorCode SimRunCreate(MPI_Comm comm, SimRegistry reg, SimRun *run);
PetscErrorCode SimRunSetFromOptions(SimRun run);
/* Runs every step, writing output; a non-finite state stops the run: the last good state is
 * written to DIR/last_good.<ext> and an error (PETSC_ERR_FP) says which step and what to try. */
PetscErrorCode SimRunExecute(SimRun run);
/* A monitor is called after every step (and once for step 0 with stats NULL) with the figures the
 * CSV log gets; the benchmark harness collects its metrics through monitors, so every number it
 * reports comes from the run code. */
typedef PetscErrorCode (*SimRunMonitorFn)(SimRun run, PetscInt step, PetscReal time, const SimEnergyReport *rep,
                                          const SimStepStats *stats, PetscReal wall_ms, void *ctx);
PetscErrorCode SimRunAddMonitor(SimRun run, SimRunMonitorFn fn, void *ctx);
PetscErrorCode SimRunGetSolver(SimRun run, SimSolver *solver);
PetscErrorCode SimRunGetScene(SimRun run, SimScene *scene);
PetscErrorCode SimRunGetProblem(SimRun run, SimProblem *problem);
/* The figures of the last step (or of the initial state before any): the solver's named
 * figures, then the scene's; the CSV log's columns after the standard ones. Valid until the
 * next step. */
PetscErrorCode SimRunGetFigures(SimRun run, PetscInt *n, const char *const **names, const PetscReal **values);
PetscErrorCode SimRunDestroy(SimRun *run); /* accepts NULL */
