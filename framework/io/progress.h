/* The progress line on stderr: step, simulated time, ms/step, ETA; only when stderr is a terminal. */
#pragma once
#include <petscsys.h>

typedef struct {
  PetscBool enabled;   /* stderr is a tty and -progress was not turned off */
  PetscLogDouble start; /* wall clock at start, s */
  PetscLogDouble last;  /* last time the line was drawn */
  PetscInt nsteps;
} SimProgress;

PetscErrorCode SimProgressStart(SimProgress *p, PetscInt nsteps, PetscBool want);
/* Redraws at most ~10 times a second. */
PetscErrorCode SimProgressUpdate(SimProgress *p, PetscInt step, PetscReal time);
PetscErrorCode SimProgressFinish(SimProgress *p, PetscInt step, PetscReal time);
