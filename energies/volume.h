/* Tet volume constraints: E = sum_e k/(2 V0_e) (V_e - V0_e)^2 = sum_e k V0_e/2 (J_e - 1)^2, one
 * scalar constraint C_e = V_e - V0_e per tet with compliance V0_e / k (the XPBD volume constraint,
 * Macklin et al. 2016; Mueller et al. 2007's for PBD). Value, gradient, Hessian (Newton) and the
 * nonlinear constraint form (energy.h cons_*). docs/pbd.md. */
#pragma once
#include "framework/model/model.h"

/* ntet tets tet[4 ntet] over nv vertices with rest positions rest[3 nv] (positively oriented:
 * the signed rest volume must be > 0), stiffness k > 0 (Pa, a bulk modulus). Arrays are copied. */
PetscErrorCode SimVolumeCreate(const char *name, PetscInt nv, const PetscReal *rest, PetscInt ntet, const PetscInt *tet, PetscReal k, SimEnergy *term);
/* Signed volume of the tet (x0, x1, x2, x3) and, when g is not NULL, its gradient g[12]. */
PetscReal SimTetVolume(const PetscReal *x0, const PetscReal *x1, const PetscReal *x2, const PetscReal *x3, PetscReal *g);
