/* Particle seeding for the particle scenes: random points in a box from a seeded generator (the same
 * sequence on every rank, as SimParticlesAdd requires) and lattices filling a shape. */
#pragma once
#include <stdint.h>
#include <petscsys.h>
#include "framework/problem.h"

/* n points uniformly at random in the box [lo, hi] (dim coordinates each, written to x[dim * n]) from
 * the generator state *seed (splitmix64; advanced, so consecutive calls continue the sequence). */
void SimFillBoxRandom(PetscInt dim, const PetscReal lo[], const PetscReal hi[], PetscInt n, uint64_t *seed, PetscReal *x);

/* The points of the lattice of spacing s (points at lo + (k + 1/2) s) inside the box [lo, hi] for
 * which inside(ctx, x) holds (NULL: all): *n of them in *x (allocated with PetscMalloc1; free it). */
PetscErrorCode SimFillLattice(PetscInt dim, const PetscReal lo[], const PetscReal hi[], PetscReal s, PetscBool (*inside)(void *, const PetscReal *),
                              void *ctx, PetscInt *n, PetscReal **x);

/* Adds the lattice of SimFillLattice to a particles problem: each particle the volume s^dim and the
 * mass density s^dim, with velocity v0 (dim entries; NULL: at rest) and material id 0. */
PetscErrorCode SimAddLattice(SimProblem problem, PetscInt dim, const PetscReal lo[], const PetscReal hi[], PetscReal s,
                             PetscBool (*inside)(void *, const PetscReal *), void *ctx, PetscReal density, const PetscReal v0[]);
