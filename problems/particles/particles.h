/* The "particles" problem type: particles in a DMSwarm (PIC) over a DMDA background grid on a box,
 * for the particle methods (MPM, SPH, PBF). Each rank holds the particles inside its part of the
 * grid (the DMDA's decomposition), and SimParticlesMigrate moves the ones that left it.
 *
 * Every particle carries the standard fields position (dim), velocity (dim), mass, volume,
 * material (an id, stored as a real) and id (its index in the order the scene added it, stored as a
 * real, for messages that name a particle); a solver registers the fields its method needs (MLS-MPM's
 * affine C and F, SPH's density, ...) in its create op, before the first SimParticlesGetSwarm.
 * All fields are PETSC_REAL with a block size. Output: a .vtu point cloud with every field of
 * block size <= 9 as point data, and a PNG of the particles coloured by material. */
#pragma once
#include <petscdmswarm.h>
#include <petscdmda.h>
#include "framework/problem.h"

/* The standard fields' names. */
#define SIM_PARTICLES_POSITION "position"
#define SIM_PARTICLES_VELOCITY "velocity"
#define SIM_PARTICLES_MASS "mass"
#define SIM_PARTICLES_VOLUME "volume"
#define SIM_PARTICLES_MATERIAL "material"
/* The material id of static boundary particles (the walls and obstacles of the particle fluids,
 * Akinci et al. 2012): they never move; methods without boundary particles refuse them. A boundary
 * particle added with volume 0 (a sampled obstacle surface) gets its volume from its boundary
 * neighbours at the solver's set-up (Akinci's V_b, solvers/sph/fluid.h); one added with a volume
 * (lattice walls) keeps it. */
#define SIM_PARTICLES_BOUNDARY_MATERIAL (-1)
#define SIM_PARTICLES_ID "id"

/* How a wall or collider treats the velocity of the continuum touching it (Stomakhin et al. 2013,
 * section 8): sticky stops it; slip removes its normal component (both ways); separate removes it
 * only when moving into the obstacle, and Coulomb friction (coefficient `friction`) reduces the
 * tangential part of slip and separate by friction * |normal part|. */
typedef enum { SIM_PARTICLES_STICKY, SIM_PARTICLES_SLIP, SIM_PARTICLES_SEPARATE } SimParticlesBoundary;
extern const char *const SimParticlesBoundaryNames[]; /* "sticky", "slip", "separate" */

/* The box walls: the condition on each side (x-, x+, y-, y+[, z-, z+]) acts on everything within
 * `thickness` of that side. */
typedef struct {
  SimParticlesBoundary bc[6];
  PetscReal thickness; /* [m] */
  PetscReal friction[6]; /* Coulomb coefficient of each side (slip and separate; >= 0) */
} SimParticlesWalls;

/* An analytic collider inside the box. Shapes: "plane" (a = a point on it, b = its normal toward
 * the free side), "sphere" (a = centre, b[0] = radius; the inside is solid), "box" (a = lo, b = hi
 * corners; the inside is solid). Each moves rigidly at `velocity` from its place at t = 0. */
typedef struct {
  char shape[16];
  SimParticlesBoundary bc;
  PetscReal friction;
  PetscReal a[3], b[3];
  PetscReal velocity[3]; /* [m/s] */
} SimParticlesCollider;
#define SIM_PARTICLES_MAX_COLLIDERS 8

/* What a scene says about the particles of one material id: a registered elastic material
 * (framework/material.h) with the scene's defaults for its parameters, which the options under
 * `prefix` override (-<prefix>youngs, -<prefix>poisson, -<prefix>density, its own), and a flow rule
 * the solver applies to it (MPM: "none", "snow", "sand", "fluid"; solvers/mpm/plasticity.h). */
typedef struct {
  char label[32];   /* names it in messages and output, e.g. "jelly" */
  char elastic[64]; /* a registered material, e.g. "fixed_corotated" */
  char plastic[32]; /* the flow rule, e.g. "none" */
  char prefix[64];  /* options prefix of its parameters, e.g. "jelly_blocks_jelly_" */
  PetscReal youngs, poisson, density;
} SimParticlesMaterial;
#define SIM_PARTICLES_MAX_MATERIALS 16

/* The box, its grid, and what the scene set; read by solvers. */
typedef struct {
  PetscInt dim;       /* 2 or 3 */
  PetscReal lo[3], hi[3]; /* the box [m]; lo[2] = hi[2] = 0 in 2D */
  PetscInt cells[3];  /* background grid cells per axis (cells[2] = 1 in 2D) */
  PetscReal h;        /* cell size [m] (the same on every axis) */
  PetscReal gravity[3]; /* [m/s^2], -gravity overrides the scene's */
  SimParticlesWalls walls; /* -walls and -wall_thickness override the scene's */
  PetscInt ncolliders;
  SimParticlesCollider colliders[SIM_PARTICLES_MAX_COLLIDERS];
  PetscInt nmaterials; /* described material ids 0 .. nmaterials-1 */
  SimParticlesMaterial materials[SIM_PARTICLES_MAX_MATERIALS];
} SimParticlesInfo;

/* Constructor of the registration (problems/register.c). */
PetscErrorCode SimProblemCreate_Particles(SimProblem problem);

/* Scene side, in build. The box [lo, hi] with `cells` cells along x (cubic cells; the other axes
 * get extent / h cells, which must come out whole). */
PetscErrorCode SimParticlesSetDomain(SimProblem problem, PetscInt dim, const PetscReal lo[3], const PetscReal hi[3], PetscInt cells);
PetscErrorCode SimParticlesSetGravity(SimProblem problem, const PetscReal g[3]);
/* The walls: `bcs` is one condition for every side ("sticky", "slip", "separate") or one per side,
 * comma-separated, in the order x-,x+,y-,y+[,z-,z+], each optionally with its own friction after a
 * colon ("separate:0.5"); thickness [m] > 0; friction >= 0 for the sides without one. Default:
 * sticky, one cell thick, no friction. Options -walls BCS, -wall_thickness T and -wall_friction MU
 * (every side) override. */
PetscErrorCode SimParticlesSetWalls(SimProblem problem, const char *bcs, PetscReal thickness, PetscReal friction);
/* Adds an analytic collider (at most SIM_PARTICLES_MAX_COLLIDERS). */
PetscErrorCode SimParticlesAddCollider(SimProblem problem, const SimParticlesCollider *collider);
/* Describes material id `id` (0 <= id < SIM_PARTICLES_MAX_MATERIALS); ids are described in order. */
PetscErrorCode SimParticlesSetMaterial(SimProblem problem, PetscInt id, const SimParticlesMaterial *material);
/* Adds n particles: x (dim*n) [m], v (dim*n, NULL: at rest) [m/s], m (n) [kg], vol (n) [m^3, m^2 in
 * 2D], material (n, NULL: 0). Call it identically on every rank: each rank keeps the particles in
 * its part of the grid at set-up. A particle outside the box is an error naming it. */
PetscErrorCode SimParticlesAdd(SimProblem problem, PetscInt n, const PetscReal *x, const PetscReal *v, const PetscReal *m, const PetscReal *vol,
                               const PetscReal *material);

/* Solver side. Registers a real field of `blocksize` components (zero-initialized) before the swarm
 * exists; registering a name twice with the same block size is allowed (solvers may share one). */
PetscErrorCode SimParticlesRegisterField(SimProblem problem, const char *name, PetscInt blocksize);
/* The swarm (created with every registered field and filled on the first call) and the grid. */
PetscErrorCode SimParticlesGetSwarm(SimProblem problem, DM *swarm);
PetscErrorCode SimParticlesGetGrid(SimProblem problem, DM *da);
PetscErrorCode SimParticlesGetInfo(SimProblem problem, SimParticlesInfo *info);
/* After particles moved: sends each to the rank that owns its cell. A particle outside the box is
 * an error naming it (the solver's walls or colliders must keep particles in). Collective. */
PetscErrorCode SimParticlesMigrate(SimProblem problem);
/* Reorders this rank's particles: new particle i is old particle perm[i] (perm a permutation of 0 ..
 * nlocal - 1), in every registered field. Solvers sort particles by cell with it (memory locality). */
PetscErrorCode SimParticlesPermute(SimProblem problem, const PetscInt *perm);
/* Local number of particles and the global one. */
PetscErrorCode SimParticlesGetSizes(SimProblem problem, PetscInt *nlocal, PetscInt *nglobal);
