/* Snow plasticity (Stomakhin, Schroeder, Chai, Teran, Selle 2013, "A material point method for snow
 * simulation", section 5): the elastic singular values are clamped to [1 - theta_c, 1 + theta_s],
 * what is clamped away becomes plastic, and the stress hardens with the plastic compression:
 * scale = exp(xi (1 - Jp)), Jp = det F_P (their eq. 7 with both Lame parameters scaled). */
#include "solvers/mpm/mpm.h"

enum { THETA_C, THETA_S, XI, JP_MIN, JP_MAX };

static PetscErrorCode SetFromOptions_Snow(MPMPlasticity pl, const char *prefix)
{
  PetscReal *p = pl->par;

  PetscFunctionBeginUser;
  /* the defaults of the 88-line MLS-MPM (Hu et al. 2018), which also bounds Jp to [0.6, 20] */
  p[THETA_C] = 2.5e-2, p[THETA_S] = 7.5e-3, p[XI] = 10, p[JP_MIN] = 0.6, p[JP_MAX] = 20;
  PetscOptionsBegin(PETSC_COMM_WORLD, prefix, "Snow plasticity (Stomakhin et al. 2013)", "");
  PetscCall(PetscOptionsReal("-snow_theta_c", "critical compression: singular values >= 1 - theta_c", "", p[THETA_C], &p[THETA_C], NULL));
  PetscCall(PetscOptionsReal("-snow_theta_s", "critical stretch: singular values <= 1 + theta_s", "", p[THETA_S], &p[THETA_S], NULL));
  PetscCall(PetscOptionsReal("-snow_hardening", "hardening xi: stress scale exp(xi (1 - Jp))", "", p[XI], &p[XI], NULL));
  PetscCall(PetscOptionsReal("-snow_jp_min", "lower bound of the plastic volume ratio Jp", "", p[JP_MIN], &p[JP_MIN], NULL));
  PetscCall(PetscOptionsReal("-snow_jp_max", "upper bound of Jp", "", p[JP_MAX], &p[JP_MAX], NULL));
  PetscOptionsEnd();
  PetscCheck(p[THETA_C] > 0 && p[THETA_C] < 1 && p[THETA_S] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-%ssnow_theta_c must be in (0, 1) and -%ssnow_theta_s > 0 (got %g, %g)", prefix, prefix, (double)p[THETA_C], (double)p[THETA_S]);
  PetscCheck(p[XI] >= 0 && p[JP_MIN] > 0 && p[JP_MIN] <= 1 && p[JP_MAX] >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-%ssnow_hardening must be >= 0 and 0 < -%ssnow_jp_min <= 1 <= -%ssnow_jp_max (got %g, %g, %g)", prefix, prefix, prefix, (double)p[XI],
             (double)p[JP_MIN], (double)p[JP_MAX]);
  PetscFunctionReturn(0);
}

/* state = Jp. The clamp keeps det of the total deformation: Jp J_E = Jp_old J_trial. */
static void Project_Snow(const MPMPlasticity pl, PetscInt dim, PetscInt n, PetscReal *F, PetscReal *state, PetscReal *dec, PetscReal *scale)
{
  const PetscReal *p = pl->par, lo = 1 - p[THETA_C], hi = 1 + p[THETA_S];

  for (PetscInt q = 0; q < n; q++) {
    PetscReal *d = dec + 21 * q, *s = d + 9, Jtrial, Je = 1;
    MPMSvdDim(dim, F + 9 * q, d);
    Jtrial = s[0] * s[1] * s[2];
    for (PetscInt k = 0; k < dim; k++) {
      s[k] = PetscMin(PetscMax(s[k], lo), hi);
      Je *= s[k];
    }
    if (dim == 2) Je *= s[2]; /* s[2] = 1 */
    state[q] = PetscMin(PetscMax(state[q] * Jtrial / Je, p[JP_MIN]), p[JP_MAX]);
    scale[q] = PetscExpReal(p[XI] * (1 - state[q]));
    MPMComposeSvdDim(dim, d, F + 9 * q);
  }
}

static PetscReal Hardening_Snow(const MPMPlasticity pl, PetscReal Jp)
{
  return PetscExpReal(pl->par[XI] * (1 - Jp));
}

const MPMPlasticityType MPMPlasticity_Snow = {.name = "snow",
                                              .help = "Stomakhin et al. 2013: singular values clamped to [1 - theta_c, 1 + theta_s], hardening exp(xi (1 - Jp))",
                                              .state0 = 1,
                                              .state_name = "Jp, the plastic volume ratio det F_P",
                                              .setfromoptions = SetFromOptions_Snow,
                                              .project = Project_Snow,
                                              .hardening = Hardening_Snow};
