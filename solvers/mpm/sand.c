/* Sand: Drucker-Prager plasticity by return mapping in log strain (Klar, Gast, Pradhana, Fu,
 * Schroeder, Jiang, Teran 2016, "Drucker-Prager elastoplasticity for sand animation", section 7.3
 * and Algorithm 2), with their hardening of the friction angle by the plastic strain q. The yield
 * surface is on the Kirchhoff stress of the Hencky (log-strain St. Venant-Kirchhoff) model with the
 * material's mu and lambda, tau = 2 mu eps + lambda tr(eps) I in the principal frame:
 *   y(tau) = |dev tau|_F + alpha tr(tau) <= 0,  alpha = sqrt(2/3) 2 sin(phi) / (3 - sin(phi)),
 * equivalently |dev eps|_F + alpha (d lambda + 2 mu) / (2 mu) tr(eps) <= 0. A trial state in
 * tension (tr eps > 0) returns to the tip (eps = 0); one outside the cone returns along its
 * deviatoric direction (no plastic volume change). In 2D the continuum is planar: d = 2 and the
 * strains are the two in-plane ones (F33 stays 1). */
#include "solvers/mpm/mpm.h"

enum { H0, H1, H2, H3 };

static PetscErrorCode SetFromOptions_Sand(MPMPlasticity pl, const char *prefix)
{
  PetscReal *p = pl->par;

  PetscFunctionBeginUser;
  /* Klar et al. 2016, section 7.3: phi_F = h0 + (h1 q - h3) exp(-h2 q), in degrees */
  p[H0] = 35, p[H1] = 9, p[H2] = 0.2, p[H3] = 10;
  PetscOptionsBegin(PETSC_COMM_WORLD, prefix, "Sand plasticity (Drucker-Prager, Klar et al. 2016)", "");
  PetscCall(PetscOptionsReal("-sand_h0", "friction angle phi = h0 + (h1 q - h3) exp(-h2 q): h0 (degrees)", "", p[H0], &p[H0], NULL));
  PetscCall(PetscOptionsReal("-sand_h1", "hardening h1 (degrees)", "", p[H1], &p[H1], NULL));
  PetscCall(PetscOptionsReal("-sand_h2", "hardening h2", "", p[H2], &p[H2], NULL));
  PetscCall(PetscOptionsReal("-sand_h3", "hardening h3 (degrees)", "", p[H3], &p[H3], NULL));
  PetscOptionsEnd();
  PetscCheck(p[H0] > 0 && p[H0] < 90 && p[H0] - p[H3] > 0 && p[H2] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-%ssand_h0 must be in (0, 90) degrees with h0 - h3 > 0 and h2 >= 0 (got h0 %g, h3 %g, h2 %g)", prefix, (double)p[H0], (double)p[H3],
             (double)p[H2]);
  PetscFunctionReturn(0);
}

/* alpha of the friction angle at plastic strain q (Klar et al. 2016, eq. 27 and section 7.3) */
static inline PetscReal Alpha(const PetscReal *p, PetscReal q)
{
  const PetscReal phi = (p[H0] + (p[H1] * q - p[H3]) * PetscExpReal(-p[H2] * q)) * PETSC_PI / 180, sp = PetscSinReal(phi);
  return PetscSqrtReal(2.0 / 3.0) * 2 * sp / (3 - sp);
}

/* state = q, the accumulated plastic strain. */
static void Project_Sand(const MPMPlasticity pl, PetscInt dim, PetscInt n, PetscReal *F, PetscReal *state, PetscReal *dec, PetscReal *scale)
{
  const PetscReal mu = pl->mu, lambda = pl->lambda;

  for (PetscInt q = 0; q < n; q++) {
    PetscReal *d = dec + 21 * q, *s = d + 9, eps[3], tr = 0, dev[3], ndev = 0, dq;
    MPMSvdDim(dim, F + 9 * q, d);
    scale[q] = 1;
    for (PetscInt k = 0; k < dim; k++) {
      eps[k] = PetscLogReal(PetscMax(s[k], PETSC_SMALL)); /* J > 0 is checked before: s > 0 */
      tr += eps[k];
    }
    for (PetscInt k = 0; k < dim; k++) {
      dev[k] = eps[k] - tr / dim;
      ndev += dev[k] * dev[k];
    }
    ndev = PetscSqrtReal(ndev);
    if (tr >= 0) { /* case II: tension, back to the tip of the cone */
      dq = 0;
      for (PetscInt k = 0; k < dim; k++) dq += eps[k] * eps[k], s[k] = 1;
      dq = PetscSqrtReal(dq);
    } else {
      const PetscReal dgamma = ndev + (dim * lambda + 2 * mu) / (2 * mu) * tr * Alpha(pl->par, state[q]);
      if (dgamma <= 0) dq = 0; /* case I: inside the cone, elastic */
      else {                   /* case III: along dev eps onto the cone */
        dq = dgamma;
        for (PetscInt k = 0; k < dim; k++) s[k] = PetscExpReal(eps[k] - dgamma / ndev * dev[k]);
      }
    }
    state[q] += dq;
    if (dq > 0) MPMComposeSvdDim(dim, d, F + 9 * q);
  }
}

const MPMPlasticityType MPMPlasticity_Sand = {.name = "sand",
                                              .help = "Klar et al. 2016: Drucker-Prager return mapping in log strain, friction angle hardening with q",
                                              .state0 = 0,
                                              .state_name = "q, the accumulated plastic strain",
                                              .setfromoptions = SetFromOptions_Sand,
                                              .project = Project_Sand};
