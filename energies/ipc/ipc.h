/* The IPC contact term (energies/ipc/ipc.c, docs/ipc.md): barrier, CCD step bound, lagged friction. */
#pragma once
#include "framework/model/model.h"

/* What the term measured (cumulative times in seconds since creation, counts; the rest as of now). */
typedef struct {
  PetscReal diameter, dhat, kappa, mass_avg;
  PetscReal dmin;      /* the smallest contact distance at the last admissibility check (PETSC_MAX_REAL: none) */
  PetscInt contacts;   /* constraints within dhat there */
  PetscInt friction_contacts;
  PetscInt builds, ccds, lags;
  PetscLogDouble build_s, barrier_s, ccd_s;
} SimIPCStats;

/* -colliders ipc; options under prefix (ipc_): -dhat, -kappa, -self, -plane, -plane_point, -plane_normal,
 * -sphere_radius, -sphere_center, -ccd_eta, -mu, -eps_v, -friction_its, -broad, -check. */
PetscErrorCode SimEnergyCreate_IPC(SimModel model, const char *prefix, SimEnergy *term);
PetscErrorCode SimIPCGetStats(SimEnergy term, SimIPCStats *stats);
/* The effective step beta the friction smoothing eps_v * beta uses before the first minimization. */
PetscErrorCode SimIPCSetStep(SimEnergy term, PetscReal beta);
