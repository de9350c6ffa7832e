/* Contact detection for the rigid-body solvers (one copy for `rigid` and `xpbd_rigid`): every
 * overlapping pair of bodies, and every body against the planes, as contact points with a normal,
 * the two bodies' deepest points and the penetration. docs/rigid.md, "Contacts". */
#pragma once
#include "problems/rigid/rigid.h"

/* One contact point between body a and body b (b = -1 - k: plane k). The normal n points from b
 * to a; pa is the deepest point of a (on a's surface), pb that of b, pen = (pb - pa) . n the
 * overlap (> 0; down to -margin for the speculative contacts of SimRigidCollide); p is where the sequential-impulse solver applies its impulses (the incident feature);
 * key names the pair and the feature, so the next step's contact of the same feature finds this
 * one (warm starting). */
typedef struct {
  PetscInt a, b, key;
  PetscReal n[3], p[3], pa[3], pb[3], pen;
} SimRigidContact;

typedef struct {
  PetscInt n, cap;
  SimRigidContact *c;
  PetscReal *work; /* the narrow phase's scratch (hull vertices and planes in the world) */
  PetscInt nwork;
} SimRigidContactList;

/* Keys: (pair index) * SIM_RIGID_KEY_FEATURES + feature (features beyond it wrap: only warm
 * starting reads keys, and a wrapped key only loses a warm start). */
#define SIM_RIGID_KEY_FEATURES 64

/* Every contact at the bodies' current positions, in a deterministic order (planes per body, then
 * the pairs i < j), including the features apart by less than margin (XPBD's speculative
 * contacts: a correction elsewhere in the Gauss-Seidel pass may push them into contact; 0: only
 * the overlapping ones). skip_joined: no contacts between two bodies a joint links (their ends touch at
 * the joint, and a hard contact there fights the hard joint). */
PetscErrorCode SimRigidCollide(const SimRigidBodies *B, PetscReal margin, PetscBool skip_joined, SimRigidContactList *list);
PetscErrorCode SimRigidContactListDestroy(SimRigidContactList *list);

/* The pair's Coulomb coefficient sqrt(mu_a mu_b) and restitution max(e_a, e_b) (b < 0: plane -1 - b). */
void SimRigidContactMaterial(const SimRigidBodies *B, PetscInt a, PetscInt b, PetscReal *mu, PetscReal *e);

/* The figures both rigid solvers report (CSV columns): the angular momentum about the origin
 * (Lx, Ly, Lz) and their contact count. */
PetscErrorCode SimRigidSolverFigures(SimProblem problem, PetscInt ncontacts, PetscInt *n, const char *names[], PetscReal values[]);
