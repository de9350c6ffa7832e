/* Weakly compressible fluid: only the volume ratio J is elastic (the shear is forgotten every step),
 * so F returns to J^(1/d) I and the stress is the pressure the elastic material gives at that F, a
 * barotropic equation of state p(J) = -tr(tau) / (d J) (as the fluid of Taichi's mpm99, Hu et al.
 * 2018; Tampubolon et al. 2017 treat the fluid phase the same way). In 2D F33 stays 1. */
#include "solvers/mpm/mpm.h"

static void Project_Fluid(const MPMPlasticity pl, PetscInt dim, PetscInt n, PetscReal *F, PetscReal *state, PetscReal *dec, PetscReal *scale)
{
  for (PetscInt q = 0; q < n; q++) {
    PetscReal *Fq = F + 9 * q, *d = dec + 21 * q, J, r;
    J = dim == 2 ? Fq[0] * Fq[4] - Fq[1] * Fq[3]
                 : Fq[0] * (Fq[4] * Fq[8] - Fq[5] * Fq[7]) - Fq[1] * (Fq[3] * Fq[8] - Fq[5] * Fq[6]) + Fq[2] * (Fq[3] * Fq[7] - Fq[4] * Fq[6]);
    r = dim == 2 ? PetscSqrtReal(J) : PetscCbrtReal(J); /* J > 0 is checked before */
    for (int k = 0; k < 21; k++) d[k] = 0;
    d[0] = d[4] = d[8] = d[12] = d[16] = d[20] = 1; /* U = V = I */
    d[9] = d[10] = r, d[11] = dim == 2 ? 1 : r;
    for (int k = 0; k < 9; k++) Fq[k] = 0;
    Fq[0] = Fq[4] = r, Fq[8] = d[11];
    state[q] = J;
    scale[q] = 1;
  }
}

const MPMPlasticityType MPMPlasticity_Fluid = {.name = "fluid",
                                               .help = "weakly compressible fluid: F = J^(1/d) I, pressure from the elastic material at that F",
                                               .state0 = 1,
                                               .state_name = "J, the volume ratio",
                                               .project = Project_Fluid};
