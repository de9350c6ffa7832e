/* Positional attachments: soft springs of zero rest length pulling chosen vertices to fixed
 * target points, E = sum_i k_i/2 |x_i - t_i|^2 (Bouaziz et al. 2014, positional constraints). */
#pragma once
#include "framework/model/model.h"

/* n attachments: vertex vert[i] to target[3i..3i+2] with stiffness k[i] > 0 (N/m); arrays are
 * copied. A vertex index outside [0, nv) or a stiffness <= 0 is an input error naming it. */
PetscErrorCode SimAttachmentsCreate(const char *name, PetscInt nv, PetscInt n, const PetscInt *vert, const PetscReal *target,
                                    const PetscReal *k, SimEnergy *term);
