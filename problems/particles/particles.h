/* The "particles" problem type: particles in a DMSwarm (PIC) over a DMDA background grid on a box,
 * for the particle methods (MPM, SPH, PBF). Each rank holds the particles inside its part of the
 * grid (the DMDA's decomposition), and SimParticlesMigrate moves the ones that left it.
 *
 * Every particle carries the standard fields position (dim), velocity (dim), mass, volume and
 * material (an id, stored as a real); a solver registers the fields its method needs (MLS-MPM's
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
 * Akinci et al. 2012): they never move; methods without boundary particles refuse them. */
#define SIM_PARTICLES_BOUNDARY_MATERIAL (-1)

/* The box, its grid, and what the scene set; read by solvers. */
typedef struct {
  PetscInt dim;       /* 2 or 3 */
  PetscReal lo[3], hi[3]; /* the box [m]; lo[2] = hi[2] = 0 in 2D */
  PetscInt cells[3];  /* background grid cells per axis (cells[2] = 1 in 2D) */
  PetscReal h;        /* cell size [m] (the same on every axis) */
  PetscReal gravity[3]; /* [m/s^2], -gravity overrides the scene's */
} SimParticlesInfo;

/* Constructor of the registration (problems/register.c). */
PetscErrorCode SimProblemCreate_Particles(SimProblem problem);

/* Scene side, in build. The box [lo, hi] with `cells` cells along x (cubic cells; the other axes
 * get extent / h cells, which must come out whole). */
PetscErrorCode SimParticlesSetDomain(SimProblem problem, PetscInt dim, const PetscReal lo[3], const PetscReal hi[3], PetscInt cells);
PetscErrorCode SimParticlesSetGravity(SimProblem problem, const PetscReal g[3]);
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
/* Local number of particles and the global one. */
PetscErrorCode SimParticlesGetSizes(SimProblem problem, PetscInt *nlocal, PetscInt *nglobal);
