/* The energy and momentum report every problem gives after each step (the CSV log's standard
 * columns, the harness's energy metric): DESIGN §8, E = kinetic + potential. */
#pragma once
#include <petscsys.h>

#define SIM_MAX_TERMS 32 /* named terms in a report (and energy terms in a model) */

typedef struct {
  PetscReal kinetic;
  PetscReal potential;           /* sum of the potential terms */
  PetscReal total;               /* kinetic + potential */
  PetscReal dissipation_rate;    /* power lost to dissipation (damping, viscosity), J/s */
  PetscInt nterms;               /* per-term values (potential and dissipation), in the problem's order */
  const char *term_name[SIM_MAX_TERMS];
  PetscReal term[SIM_MAX_TERMS];
  PetscReal momentum[3];         /* sum m v, kg m/s */
} SimEnergyReport;
