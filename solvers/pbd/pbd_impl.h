/* Internals of the pbd/xpbd solvers (solvers/pbd/pbd.c) that their tests use: the Gauss-Seidel
 * colouring of each term's constraints. */
#pragma once
#include "framework/solver_impl.h"

/* The colouring of the k-th constraint term (in the model's term order, skipping linear terms such
 * as gravity) of a set-up pbd or xpbd solver: *ncolor colours, the constraints of colour c are
 * order[off[c] .. off[c+1]) (borrowed arrays), each on the nvert vertices vert[c*nvert ..]
 * (the term's stencil). An error when k is out of range or s is not a pbd/xpbd solver. */
PetscErrorCode SimPBDGetColouring(SimSolver s, PetscInt k, const char **term, PetscInt *ncolor, const PetscInt **off, const PetscInt **order,
                                  PetscInt *nvert, const PetscInt **vert);
