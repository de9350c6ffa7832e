/* Ghost particles for the particle methods on several ranks: each rank receives copies of the
 * particles of other ranks that lie within a width w (the kernel's support) of its part of the
 * box, so that a neighbour search over its own particles and these ghosts finds every neighbour
 * closer than w (problems/particles/neighbors.h). The plan (who sends which particle where) is
 * made once from the positions after a migration; any field is then exchanged along it.
 *
 * A rank's part of the box is the cells the DMDA gives it; a particle goes to every other rank
 * whose part is closer than w to it (a particle near a corner goes to several). Ghosts arrive in
 * the order of their rank, then of their index there, so the result is reproducible. On one rank
 * there are none. */
#pragma once
#include "problems/particles/particles.h"

typedef struct _p_SimParticleGhosts *SimParticleGhosts;

/* Ghosts of width w > 0 [m] for the particles problem p (its swarm must exist). */
PetscErrorCode SimParticleGhostsCreate(SimProblem p, PetscReal width, SimParticleGhosts *g);
/* Makes the plan from this rank's n particles at x (dim*n) and gives the number of ghosts it
 * will receive. Collective. */
PetscErrorCode SimParticleGhostsSetUp(SimParticleGhosts g, PetscInt n, const PetscReal *x, PetscInt *nghost);
/* Sends bs reals per particle (local: bs*n, as given to SetUp) and receives the ghosts' (ghost:
 * bs*nghost). Collective. */
PetscErrorCode SimParticleGhostsExchange(SimParticleGhosts g, PetscInt bs, const PetscReal *local, PetscReal *ghost);
/* This rank's part of the box [lo, hi] (lo[2] = hi[2] = 0 in 2D). */
PetscErrorCode SimParticleGhostsGetBox(SimParticleGhosts g, PetscReal lo[3], PetscReal hi[3]);
PetscErrorCode SimParticleGhostsDestroy(SimParticleGhosts *g); /* accepts NULL */
