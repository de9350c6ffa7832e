/* The per-step CSV log: time, dt, energies by term, momentum, solver statistics. */
#pragma once
#include "framework/model/model.h"
#include "framework/solver.h"

typedef struct _p_SimCSVLog *SimCSVLog;

/* Opens path and writes the header from the report's term names:
 * step,time,dt,kinetic,<term names...>,potential,total,dissipation_rate,px,py,pz,
 * nonlinear_its,linear_its,linesearch_cuts,residual,substeps,rejected,wall_ms */
PetscErrorCode SimCSVLogCreate(const char *path, const SimEnergyReport *rep, SimCSVLog *log);
/* Appends one row and flushes (so a crash keeps every finished step). stats may be NULL (the row of
 * the initial state): the solver columns are then 0. */
PetscErrorCode SimCSVLogRow(SimCSVLog log, PetscInt step, PetscReal time, PetscReal dt, const SimEnergyReport *rep,
                            const SimStepStats *stats, PetscReal wall_ms);
/* The same with nfig named figure columns after wall_ms (a solver's and a scene's figures, see
 * SimRunGetFigures); every row must then give nfig values. */
PetscErrorCode SimCSVLogCreateWithFigures(const char *path, const SimEnergyReport *rep, PetscInt nfig, const char *const names[],
                                          SimCSVLog *log);
PetscErrorCode SimCSVLogRowWithFigures(SimCSVLog log, PetscInt step, PetscReal time, PetscReal dt, const SimEnergyReport *rep,
                                       const SimStepStats *stats, PetscReal wall_ms, PetscInt nfig, const PetscReal values[]);
PetscErrorCode SimCSVLogDestroy(SimCSVLog *log); /* accepts NULL */
