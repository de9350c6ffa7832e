/* SimProblem: the state a method advances, as an opaque registered object (DESIGN §3). A scene
 * builds one, a solver advances it, and the run loop, output and the harness use it through these
 * calls without knowing its kind — as PETSc's TS never asks which DM it holds. The kinds
 * ("problem types") live in problems/<type>/ and are rows of the registry (SIM_KIND_PROBLEM):
 * mesh (the Lagrangian model), grid (an Eulerian box), particles (a DMSwarm over a DMDA), rigid
 * (bodies with x, q, v, omega). docs/guide.md shows how to add one. */
#pragma once
#include <petscvec.h>
#include <petscviewer.h>
#include "framework/registry.h"
#include "framework/report.h"

typedef struct _p_SimProblem *SimProblem;

/* Constructor signature a problem-type registration carries (SIM_KIND_PROBLEM). */
typedef PetscErrorCode (*SimProblemCreateFn)(SimProblem);

/* Creates an empty problem of a registered type on comm; `name` (e.g. the scene's name) labels
 * messages and output files. The scene fills it, then SimProblemSetUp checks and completes it. */
PetscErrorCode SimProblemCreate(SimRegistry reg, const char *type, const char *name, MPI_Comm comm, SimProblem *problem);
/* After the scene filled the problem: checks it and derives what it needs (once; collective). */
PetscErrorCode SimProblemSetUp(SimProblem problem);
PetscErrorCode SimProblemGetType(SimProblem problem, const char **type);
PetscErrorCode SimProblemGetName(SimProblem problem, const char **name);
PetscErrorCode SimProblemGetComm(SimProblem problem, MPI_Comm *comm);
PetscErrorCode SimProblemGetRegistry(SimProblem problem, SimRegistry *reg);
/* Its size for the harness and the banner: *count items of *unit ("vertices", "cells",
 * "particles", "bodies"), summed over ranks. */
PetscErrorCode SimProblemGetSize(SimProblem problem, PetscInt *count, const char **unit);
/* One line for the run's banner, e.g. "4096 vertices, 2 pinned" or "2D grid, 64 x 128 cells". */
PetscErrorCode SimProblemSummary(SimProblem problem, char *buf, size_t len);
/* The extension of its ParaView frames ("vtu", "vti"). */
PetscErrorCode SimProblemGetFrameExtension(SimProblem problem, const char **ext);
/* The state the problem holds as one Vec (not a copy; do not destroy), e.g. the mesh's positions;
 * NULL when the solver owns the state (a grid problem: see SimSolverGetState). */
PetscErrorCode SimProblemGetState(SimProblem problem, Vec *state);
/* Hooks around every step [t, t + dt], called by SimSolverStep (e.g. scripted pins). */
PetscErrorCode SimProblemBeforeStep(SimProblem problem, PetscReal t, PetscReal dt);
PetscErrorCode SimProblemAfterStep(SimProblem problem, PetscReal t, PetscReal dt);
/* Energy and momentum of the state it holds; *has is PETSC_FALSE when it holds none. */
PetscErrorCode SimProblemReport(SimProblem problem, SimEnergyReport *rep, PetscBool *has);
/* Whether the state it holds is finite (PETSC_TRUE when it holds none). Collective. */
PetscErrorCode SimProblemIsFinite(SimProblem problem, PetscBool *finite);
/* Whether the state it holds is admissible beyond being finite (e.g. a mesh with barrier contact: no
 * intersection, no inverted element): why = "" when it is (and when the problem has no such rule),
 * else one line saying what is wrong. */
PetscErrorCode SimProblemAdmissible(SimProblem problem, char *why, size_t len);
/* Keeps a copy of the state it holds (restore = PETSC_FALSE) or puts it back (PETSC_TRUE): the
 * run's "last good state". */
PetscErrorCode SimProblemStash(SimProblem problem, PetscBool restore);
/* A ParaView frame at path / a PNG with a caption at path; *written is PETSC_FALSE when the
 * problem has no such output. Collective (the implementation decides which ranks write). */
PetscErrorCode SimProblemWriteFrame(SimProblem problem, const char *path, PetscBool *written);
PetscErrorCode SimProblemWriteXDMF(SimProblem problem, const char *path, PetscBool *written); /* path: .xmf (+ .h5); NULL: only *written, whether it has XDMF output */
PetscErrorCode SimProblemWriteImage(SimProblem problem, const char *caption, const char *path, PetscBool *written);
/* Checkpoint: writes / reads the state it holds to / from a binary viewer on its communicator. */
PetscErrorCode SimProblemSave(SimProblem problem, PetscViewer viewer);
PetscErrorCode SimProblemLoad(SimProblem problem, PetscViewer viewer);
PetscErrorCode SimProblemView(SimProblem problem, PetscViewer viewer);
PetscErrorCode SimProblemDestroy(SimProblem *problem); /* accepts NULL */
