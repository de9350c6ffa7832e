/* PETSc log events for each phase of a step, registered once per process; `-log_view` and the
 * benchmark harness read the same events. */
#pragma once
#include <petscsys.h>

typedef struct {
  PetscClassId classid;
  PetscLogEvent step;     /* one SimSolverStep */
  PetscLogEvent force;    /* gradient / force evaluation */
  PetscLogEvent assemble; /* Hessian assembly (with PSD projection) */
  PetscLogEvent factor;   /* numeric factorization (KSPSetUp / PCSetUp) */
  PetscLogEvent solve;    /* linear solve (KSPSolve) */
  PetscLogEvent linesearch;
  PetscLogEvent output;   /* VTK / PNG / CSV writing */
} SimEvents;

/* Registers the events on first call and returns them (subsequent calls return the same ids). */
PetscErrorCode SimEventsGet(SimEvents *ev);
