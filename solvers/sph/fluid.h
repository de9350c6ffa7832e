/* What the particle fluids (sph, pbf) share: the kernel, ghosts and neighbour lists over a particles
 * problem, the particles as flat arrays (this rank's, then its ghosts'), boundary particles (Akinci
 * et al. 2012) and the pair terms of the SPH sums.
 *
 * Particles whose material is SIM_PARTICLES_BOUNDARY_MATERIAL (< 0) are static boundary particles
 * (walls, obstacles): they never move, and their "volume" field holds Akinci's boundary volume
 * V_b = 1 / sum_k W_bk over the boundary particles k (set by SimFluidBoundaryVolumes); a fluid
 * particle i sees a boundary neighbour b as the mass Psi_b = rho0 V_b (Akinci et al. 2012, eq. 4-5,
 * 10). */
#pragma once
#include "problems/particles/particles.h"
#include "problems/particles/neighbors.h"
#include "problems/particles/ghosts.h"
#include "solvers/sph/kernel.h"

/* Calls F(args..., dim, kernel type) with the dimension and, for the cubic kernel (the default), the
 * kernel's shape as compile-time constants, so that an always_inline pair loop F is compiled with
 * straight-line coordinate arithmetic and without the kernel's switch per pair. */
#define SIM_FLUID_PAIR_DISPATCH(f, F, ...) \
  do { \
    if ((f)->dim == 3 && (f)->kernel.type == SIM_KERNEL_CUBIC) F(__VA_ARGS__, 3, SIM_KERNEL_CUBIC); \
    else if ((f)->dim == 2 && (f)->kernel.type == SIM_KERNEL_CUBIC) F(__VA_ARGS__, 2, SIM_KERNEL_CUBIC); \
    else if ((f)->dim == 3) F(__VA_ARGS__, 3, (f)->kernel.type); \
    else F(__VA_ARGS__, 2, (f)->kernel.type); \
  } while (0)

typedef struct {
  SimProblem problem;
  MPI_Comm comm;
  PetscInt dim;
  SimKernel kernel;     /* of support h */
  SimParticleGhosts ghosts;
  SimNeighbors nb;
  SimNeighborList list; /* neighbours of this rank's fluid particles: of fluid[q] at q */
  PetscBool half;       /* half lists (SimNeighborsFindHalf): a pair of own fluid particles only in the list of the lower index */
  /* after SimFluidGather: n own particles, then ng ghosts */
  PetscInt n, ng, nf;
  PetscInt *fluid;      /* nf: own fluid particles (indices < n) */
  PetscReal *x, *v;     /* dim * (n + ng) */
  PetscReal *m, *vol;   /* n + ng: mass [kg]; volume (Akinci's V_b for boundary particles) */
  unsigned char *bnd;   /* n + ng: 1 for a boundary particle */
  PetscInt cap;         /* allocated particles */
  PetscReal *pack;      /* exchange buffer */
  PetscInt cappack;
} SimFluid;

/* The fluid on a particles problem with kernel `kernel` (a kernel.h name) of support h; `option`
 * names the kernel's option in messages. */
PetscErrorCode SimFluidCreate(SimProblem problem, const char *kernel, const char *option, PetscReal h, SimFluid **f);
PetscErrorCode SimFluidDestroy(SimFluid **f);
/* Reads this rank's particles from the swarm, receives the ghosts (positions, velocities, masses,
 * volumes, kinds) and finds the neighbours of the own fluid particles. Collective. */
PetscErrorCode SimFluidGather(SimFluid *f);
/* Reads only this rank's particles (no ghosts: ng = 0, no neighbour lists), e.g. to move them before
 * a migration. Not collective. */
PetscErrorCode SimFluidGatherOwn(SimFluid *f);
/* Grows per-particle arrays *a of bs reals to the current n + ng (keeping nothing). */
PetscErrorCode SimFluidEnsure(SimFluid *f, PetscInt bs, PetscInt *cap, PetscReal **a);
/* Fills the ghost part of a (bs reals per particle: a[bs*n .. bs*(n+ng))) from the owners' own
 * part. Collective. */
PetscErrorCode SimFluidExchange(SimFluid *f, PetscInt bs, PetscReal *a);
/* Writes the own particles' x and v back to the swarm and migrates them. Collective. */
PetscErrorCode SimFluidScatter(SimFluid *f);
/* Akinci's boundary volumes V_b = 1 / (W(0) + sum_k W_bk), k the boundary particles within h,
 * into the boundary particles' "volume" field (once, at set-up): of every boundary particle (all),
 * or only of those the scene added with volume 0 (sampled obstacle surfaces; lattice walls keep
 * their own). Leaves the fluid gathered (SimFluidGather). Collective. */
PetscErrorCode SimFluidBoundaryVolumes(SimFluid *f, PetscBool all);
/* The density of a full lattice of spacing s of particles of mass m: m sum_k W(|k| s) (the rest
 * density a scene's initial block has, so that it starts at rest). */
PetscReal SimFluidLatticeDensity(const SimKernel *k, PetscReal s, PetscReal m);
/* SPH density of the own fluid particles: rho_i = m_i W(0) + sum_j m_j W_ij (fluid j) + sum_b rho0
 * V_b W_ib (boundary b); rho is indexed by particle (n + ng), only the fluid entries are set. */
PetscErrorCode SimFluidDensity(SimFluid *f, PetscReal rho0, PetscReal *rho);
/* Hydrostatic start: each fluid particle's mass times rho(d) / rho0 = (1 + rho0 |g| d / B)^(1/gamma), the
 * Tait density at its depth d below the top of the fluid above it (the highest particle of the
 * unbroken run of occupied lattice rows above it in its column of spacing s, along gravity), so that a
 * fluid at rest starts in equilibrium instead of falling into its own compression wave. Writes the
 * swarm's masses. Collective. */
PetscErrorCode SimFluidHydrostatic(SimFluid *f, const PetscReal g[3], PetscReal s, PetscReal rho0, PetscReal B, PetscReal gamma);
/* The particle spacing (the largest fluid particle volume^(1/d)), the largest fluid particle mass
 * and the fluid's height along gravity (plus a spacing), over every rank. Collective. */
PetscErrorCode SimFluidGeometry(SimFluid *f, const PetscReal g[3], PetscReal *spacing, PetscReal *mass, PetscReal *height);
/* Whether an own fluid particle (f->x, before SimFluidScatter) is outside the box, on any rank; if so
 * reason says which (its id) and along which axis. Collective. */
PetscErrorCode SimFluidCheckInBox(SimFluid *f, PetscBool *failed, char *reason, size_t len);
/* Global counts of fluid and boundary particles. Collective. */
PetscErrorCode SimFluidCounts(SimFluid *f, PetscInt *nfluid, PetscInt *nboundary);

/* The WCSPH accelerations of the own fluid particles and their XSPH corrections (dim per fluid
 * particle, in the order of f->fluid), from P = (rho, p / rho^2) per particle (own and ghosts):
 *   a_i = -sum_j m_j (p_i / rho_i^2 + p_j / rho_j^2 + Pi_ij) grad W_ij         fluid j (Monaghan 1992)
 *         -sum_b Psi_b (2 p_i / rho_i^2 + Pi_ib) grad W_ib                      boundary b, Psi_b = rho0 V_b
 *         + g,
 * Pi_ij = -alpha c mu_ij / rhobar_ij, mu_ij = h_s v_ij.x_ij / (|x_ij|^2 + 0.01 h_s^2) for v_ij.x_ij < 0
 * (Monaghan's artificial viscosity; rhobar = rho_i at a boundary); the boundary's pressure is the
 * fluid particle's, mirrored (Akinci et al. 2012 with p_b = p_i, rho_b = rho_i), so that a wall holds
 * a fluid at rest as fluid particles would. XSPH: dx_i = sum_j m_j / rhobar_ij (v_j - v_i) W_ij over
 * fluid j. The fluid-fluid terms are antisymmetric per pair: sum_i m_i a_i = m g when no boundary
 * particle is near. */
typedef struct {
  PetscReal rho0, alpha, c, hs; /* rest density, viscosity alpha, speed of sound [m/s], smoothing length h/2 [m] */
  PetscReal gravity[3];
} SimSPHForceParams;
void SimSPHAccelerations(const SimFluid *f, const SimSPHForceParams *prm, const PetscReal *P, PetscReal *acc, PetscReal *dx);
