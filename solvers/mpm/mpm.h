/* Private side of the mpm solver (hybrid particle-grid methods: PIC, FLIP, APIC, MLS-MPM): its
 * data, the B-spline weights, the transfer phases and the plasticity registry. Tests include it to
 * check the pieces one by one. */
#pragma once
#include "framework/solver_impl.h"
#include "framework/material.h"
#include "framework/linalg/isotropic.h"
#include "problems/particles/particles.h"
#include <petscsf.h>

/* ---- B-spline weights (Jiang et al. 2016, "The material point method for simulating continuum
 * materials", SIGGRAPH course, eqs. 122-124) ----
 * Along one axis, a particle at xh = (x - lo) / h (in cells) touches K nodes base .. base + K - 1
 * (K = 3: quadratic, K = 4: cubic); fx = xh - base, so node base + i sits at (i - fx) h from it.
 * w[i] is the weight and dw[i] = dw/dxh (the gradient in x is dw / h). Requires xh >= 1 (the solver
 * keeps every particle at least one cell from the box sides), so the truncating cast is floor. */
static inline PetscInt MPMWeights1(const int K, PetscReal xh, PetscReal w[4], PetscReal dw[4], PetscReal *fx_out)
{
  if (K == 3) { /* N(d) = 3/4 - d^2 (|d| < 1/2), (3/2 - |d|)^2 / 2 (1/2 <= |d| < 3/2) */
    const PetscInt base = (PetscInt)(xh - 0.5);
    const PetscReal fx = xh - (PetscReal)base, a = 1.5 - fx, b = fx - 1.0, c = fx - 0.5;
    w[0] = 0.5 * a * a, w[1] = 0.75 - b * b, w[2] = 0.5 * c * c;
    dw[0] = -a, dw[1] = -2 * b, dw[2] = c;
    *fx_out = fx;
    return base;
  } else { /* N(d) = |d|^3/2 - d^2 + 2/3 (|d| < 1), (2 - |d|)^3 / 6 (1 <= |d| < 2) */
    const PetscInt base = (PetscInt)xh - 1;
    const PetscReal fx = xh - (PetscReal)base, a = 2.0 - fx, b = fx - 1.0; /* a = |d_0| - ..., both in (0, 1] */
    w[0] = a * a * a / 6, w[1] = 0.5 * b * b * b - b * b + 2.0 / 3, w[2] = 0.5 * a * a * a - a * a + 2.0 / 3, w[3] = b * b * b / 6;
    dw[0] = -0.5 * a * a, dw[1] = 1.5 * b * b - 2 * b, dw[2] = -(1.5 * a * a - 2 * a), dw[3] = 0.5 * b * b;
    *fx_out = fx;
    return base;
  }
}

/* A kernel: K nodes per axis and the inverse of the inertia-like tensor D_p = sum_i w_ip (x_i -
 * x_p)(x_i - x_p)^T = dinv^-1 h^2 I (Jiang et al. 2015, APIC, section 5.3: h^2/4 quadratic, h^2/3
 * cubic), so D^-1 = dinv / h^2 (Hu et al. 2018: D^-1 = 4/h^2 for quadratic). */
typedef struct {
  const char *name;
  PetscInt K;
  PetscReal dinv;
} MPMKernel;

/* A transfer scheme (a row of a table, mpm.c): affine: particles carry the affine velocity C (APIC,
 * MLS); mls: the stress enters P2G through C's moving-least-squares form and F advances with C (Hu et
 * al. 2018, eqs. 16-18) instead of the kernel gradients; flip: G2P adds the grid's velocity change
 * to the particle's (Brackbill & Ruppel 1986), blended with PIC by -mpm_flip_ratio. */
typedef struct {
  const char *name;
  const char *help;
  PetscBool affine, mls, flip;
} MPMTransfer;

/* ---- plasticity: a small registry of return mappings (plasticity.c, snow.c, sand.c, fluid.c) ----
 * A model acts after G2P's F update, on the trial elastic F (3x3 row-major; a 2D F is embedded with
 * F33 = 1 and stays so), and returns the elastic F on or inside its yield surface, one real of
 * plastic state per particle, a stress scale (snow's hardening) and the SVD of the returned F in the
 * layout of framework/linalg/isotropic.h (U 9, s 3, V 9: SIM_ISOTROPIC_NDEC values, U and V
 * rotations), which the material's evaluate op then uses instead of its own. */
#define MPM_MAX_PLASTIC_PARAMS 8
typedef struct _MPMPlasticity *MPMPlasticity;
typedef struct {
  const char *name;
  const char *help;
  PetscReal state0; /* the plastic state of an undeformed particle (snow: Jp = 1) */
  const char *state_name; /* what the state is, for docs and output */
  /* reads the model's parameters (options -<prefix><name>_<param>) into pl->par */
  PetscErrorCode (*setfromoptions)(MPMPlasticity pl, const char *prefix);
  /* n particles in dimension dim: F (9n, in: trial, out: elastic), state (n), dec (21n, out), scale (n, out) */
  void (*project)(const MPMPlasticity pl, PetscInt dim, PetscInt n, PetscReal *F, PetscReal *state, PetscReal *dec, PetscReal *scale);
  /* optional: the stress scale of a plastic state (what project returns in scale; NULL: 1) */
  PetscReal (*hardening)(const MPMPlasticity pl, PetscReal state);
} MPMPlasticityType;

struct _MPMPlasticity {
  const MPMPlasticityType *type;
  PetscReal par[MPM_MAX_PLASTIC_PARAMS];
  PetscReal mu, lambda; /* the elastic material's Lame parameters (sand's yield surface is in their stress) */
};

/* Creates the model registered as `name` for a material with Lame parameters mu, lambda, reading its
 * options under prefix; an unknown name lists the valid ones. */
PetscErrorCode MPMPlasticityCreate(const char *name, const char *prefix, PetscReal mu, PetscReal lambda, MPMPlasticity *pl);
PetscErrorCode MPMPlasticityDestroy(MPMPlasticity *pl);
PetscErrorCode MPMPlasticityNames(char *buf, size_t len);
/* The rotation-variant SVD of a 2x2 F (row-major) as a 3x3 decomposition with s[2] = 1 (U, V
 * rotations; s[0] >= |s[1]|, s[1] < 0 when det F < 0), by the polar decomposition and a symmetric
 * 2x2 eigenproblem (no trigonometry). */
void MPMSvd2(const PetscReal F[4], PetscReal dec[21]);
/* The SVD of a 3x3 F (2D: the upper 2x2 block, F33 = 1) into dec; F = U diag(s) V^T. */
PetscErrorCode MPMSvd(PetscInt dim, const PetscReal F[9], PetscReal dec[21]);
/* The rotation R of the polar decomposition F = R S of a 3x3 F with det F > 0 (the R of SimPolar3)
 * by Newton's iteration X <- (g X + X^-T / g) / 2 from X = F (Higham 1986; g the Frobenius-norm
 * scaling while X is far from R), until an update is below 1e-9 (its error then ~1e-18). Returns
 * PETSC_FALSE (R undefined) when det X <= 0 or no convergence in 30 iterations: then use SimPolar3. */
PetscBool MPMPolarNewton(const PetscReal F[9], PetscReal R[9]);
/* Fixed corotated elasticity (psi = mu ||F - R||^2 + lambda/2 (J - 1)^2) without plasticity: for n
 * trial F (3x3; 2D: F33 = 1) with det F > 0, the Kirchhoff stress times V0, c (2 mu (F - R) F^T +
 * lambda (J - 1) J I), symmetric (tau: xx, yy, xy / xx, yy, zz, xy, yz, xz) with c = vol, and J. */
PetscErrorCode MPMCorotatedStress(PetscInt dim, PetscInt n, const PetscReal *F9, const PetscReal *vol, PetscReal mu, PetscReal lambda, PetscReal *tau,
                                  PetscReal *J);
/* The 3D case of MPMCorotatedStress four particles at a time in AVX registers, bit for bit its results
 * (call it only when the CPU has AVX: MPM.avx); fma: with fused multiply-add (the CPU has AVX2 and FMA:
 * MPM.fma), its results to round-off. */
PetscErrorCode MPMCorotatedStress3Avx(PetscInt n, const PetscReal *F9, const PetscReal *vol, PetscReal mu, PetscReal lambda, PetscReal *tau, PetscReal *J,
                                      PetscBool fma);
/* The same for n elastic F after a return mapping, from their SVD dec (SIM_ISOTROPIC_NDEC each,
 * F = U diag(s) V^T): (F - R) F^T = U diag(s (s - 1)) U^T and J = s0 s1 s2, times c = vol scale. */
void MPMCorotatedStressSvd(PetscInt dim, PetscInt n, const PetscReal *dec, const PetscReal *vol, const PetscReal *scale, PetscReal mu, PetscReal lambda,
                           PetscReal *tau);
/* F = U diag(s) V^T from dec (3x3). */
void MPMComposeSvd(const PetscReal dec[21], PetscReal F[9]);
/* The same in dimension dim: in 2D (U, V with the third row and column of the identity, s[2] = 1) only
 * the 2 x 2 block is summed, giving what MPMComposeSvd gives bit for bit (its third terms are +0). */
static inline void MPMComposeSvdDim(PetscInt dim, const PetscReal dec[21], PetscReal F[9])
{
  if (dim == 2) {
    const PetscReal *U = dec, *s = dec + 9, *V = dec + 12;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) F[3 * i + j] = U[3 * i] * s[0] * V[3 * j] + U[3 * i + 1] * s[1] * V[3 * j + 1] + 0.0;
    F[2] = F[5] = F[6] = F[7] = 0, F[8] = 1;
  } else MPMComposeSvd(dec, F);
}
/* MPMSvd without the error code (2D: MPMSvd2 on the upper 2 x 2 block directly). */
static inline void MPMSvdDim(PetscInt dim, const PetscReal F[9], PetscReal dec[21])
{
  if (dim == 2) {
    const PetscReal F2[4] = {F[0], F[1], F[3], F[4]};
    MPMSvd2(F2, dec);
  } else (void)MPMSvd(dim, F, dec);
}

/* ---- the solver ---- */
#define MPM_CHUNK 128 /* particles per batched material / plasticity call */

/* What each described material id becomes: its elastic material, its plasticity, and the largest
 * P-wave modulus lambda + 2 mu (for the time step limit). */
typedef struct {
  SimMaterial elastic;
  MPMPlasticity plastic;
  PetscReal modulus;
  char label[32];
  PetscBool corotated; /* fixed corotated without plasticity: the stress from the polar R alone (MPMCorotatedStress) */
  PetscBool corotated_dec; /* fixed corotated with plasticity: the stress from the return mapping's SVD (MPMCorotatedStressSvd) */
} MPMMaterial;

typedef struct {
  /* options */
  const MPMTransfer *transfer;
  const MPMKernel *kernel;
  PetscReal flip_ratio, cfl;
  PetscInt substeps; /* per step; 0: from the time step limit */
  PetscBool avx; /* the 3D MLS transfers in AVX registers (the CPU has AVX; -mpm_avx) */
  PetscBool fma; /* those transfers with fused multiply-add (avx and the CPU has AVX2 and FMA; -mpm_fma): round-off apart from the AVX ones */
  PetscInt sort_every; /* sort the particles by cell before every sort_every-th step (0: never) */
  /* the problem */
  SimParticlesInfo info;
  PetscInt dim;
  PetscInt nmat;
  MPMMaterial mat[SIM_PARTICLES_MAX_MATERIALS];
  /* the grid: nodes (cells + 1 per axis) on the cells' decomposition, ghost width 2 + margin (a
   * particle in cell c touches nodes c - 1 .. c + 2; the margin lets particles stray that many cells
   * out of the rank's cells before a migration); per node [momentum/velocity (dim), mass] and, for
   * FLIP, [velocity before forces (dim)] */
  DM da;
  Vec gl; /* the ghosted local patch: P2G scatters into it, the grid update and G2P work on it */
  PetscInt dof, margin;
  PetscInt gs[3], gm[3]; /* the patch's corner and size in nodes (2D: gs[2] = 0, gm[2] = 1) */
  /* the nodes P2G wrote, so that the clear and the grid update visit only those. A node row (fixed
   * j, k of the patch; ny * nz of them) holds its written nodes in [rlo, rhi] (rlo > rhi: none); mlo,
   * mhi record, per row of particle bases (base y, base z), the lowest and highest base x. */
  PetscInt nrows, ny, *rlo, *rhi, *mlo, *mhi;
  /* more than one rank: the ghost nodes' sums go to their owners and the owners' totals back
   * (ghost_sf: leaves the patch's reals at nodes another rank owns, roots the owners' reals); band:
   * the patch's nodes in that exchange (its leaves and roots), cleared before every P2G and updated
   * with the written rows, so that every node of the patch holds its velocity after the update */
  PetscSF ghost_sf;
  PetscInt nband, *band;
  /* the box of global nodes the exchange covers (lo[d] = sfbox[2 d], hi[d] = sfbox[2 d + 1], inclusive;
   * empty at set-up): only nodes in it take part, and it grows (never shrinks, so that the band keeps
   * every node an exchange wrote) when a P2G writes outside it on some rank (MPMGhostExchangeCover) */
  PetscInt sfbox[6], sfbuilds;
  PetscInt migrations; /* particle migrations so far (a substep migrates only when a particle strayed beyond the margin) */
  /* scratch for one chunk */
  PetscReal *F9, *dec, *P, *scale, *state;
  PetscInt *idx;
  /* figures */
  PetscReal dt_limit, last_substeps, wave_speed;
  PetscReal speed_last; /* the largest wave + particle speed after the last step's last substep (valid: speed_valid) */
  PetscBool speed_valid;
  PetscLogEvent ev_p2g, ev_grid, ev_g2p, ev_migrate;
  PetscReal time; /* simulated time at the start of the substep (moving colliders) */
} MPM;

/* Fields the solver adds to the particles problem. */
#define MPM_FIELD_C "C"             /* affine velocity (dim x dim, row-major) [1/s] */
#define MPM_FIELD_F "F"             /* elastic deformation gradient (dim x dim) */
#define MPM_FIELD_PLASTIC "plastic" /* the plasticity's state (snow: Jp; sand: hardening q) */
#define MPM_FIELD_J "J"             /* det F */
#define MPM_FIELD_STRESS "stress"   /* V0 times the Kirchhoff stress P F^T (symmetric: xx,yy,xy / xx,yy,zz,xy,yz,xz) [J] */

/* More than one rank: makes the ghost exchange cover the nodes [box[2 d], box[2 d + 1]] (global node
 * indices, the union over the ranks: the same on every rank), rebuilding it over a larger box when they
 * are not all in it. Collective. */
PetscErrorCode MPMGhostExchangeCover(SimSolver s, MPM *mpm, const PetscInt box[6]);
/* The phases of one substep (transfer.c), in physical order. */
PetscErrorCode MPMParticlesToGrid(SimSolver s, MPM *mpm, PetscReal dt);
PetscErrorCode MPMGridUpdate(SimSolver s, MPM *mpm, PetscReal dt);
/* G2P, F update and advection, then the return mapping and the next stress. bad receives the first
 * particle left in a bad state: {id (-1: none), kind (1: it left the grid's interior, 2: det F <= 0),
 * x, y, z, det F, material}; *speed the largest wave speed plus particle speed [m/s]; *strays the
 * number of this rank's particles whose kernel no longer fits in the patch (they must migrate before
 * the next P2G). */
PetscErrorCode MPMGridToParticles(SimSolver s, MPM *mpm, PetscReal dt, PetscReal bad[7], PetscReal *speed, PetscInt *strays);
/* Plasticity and stress of n particles of one material: F9 (in: trial, out: elastic), state; tau
 * (sym. V0 tau, dim(dim+1)/2 each) and J out. */
PetscErrorCode MPMConstitutive(MPM *mpm, PetscInt m, PetscInt n, PetscReal *F9, PetscReal *state, const PetscReal *vol, PetscReal *tau,
                               PetscReal *J, PetscReal *speed2, const PetscReal *mass);
/* The stress field from F at set-up (or after a restart), and the largest wave speed. */
PetscErrorCode MPMComputeStress(SimSolver s, MPM *mpm, PetscReal *speed);
