/* Contact detection for the rigid-body solvers (one copy for `rigid` and `xpbd_rigid`): every
 * overlapping pair of bodies, and every body against the planes, as contact points with a normal,
 * the two bodies' deepest points and the penetration. docs/rigid.md, "Contacts". */
#pragma once
#include "problems/rigid/rigid.h"

/* One contact point between body a and body b (b = -1 - k: plane k). The normal n points from b
 * to a; pa is the deepest point of a (on a's surface), pb that of b, pen = (pb - pa) . n > 0 the
 * overlap; p is where the sequential-impulse solver applies its impulses (the incident feature);
 * key names the pair and the feature, so the next step's contact of the same feature finds this
 * one (warm starting). */
typedef struct {
  PetscInt a, b, key;
  PetscReal n[3], p[3], pa[3], pb[3], pen;
} SimRigidContact;

typedef struct {
  PetscInt n, cap;
  SimRigidContact *c;
} SimRigidContactList;

/* Keys: (pair index) * SIM_RIGID_KEY_FEATURES + feature (features beyond it wrap: only warm
 * starting reads keys, and a wrapped key only loses a warm start). */
#define SIM_RIGID_KEY_FEATURES 64

/* Every contact at the bodies' current positions, in a deterministic order (planes per body, then
 * the pairs i < j). */
PetscErrorCode SimRigidCollide(const SimRigidBodies *B, SimRigidContactList *list);
PetscErrorCode SimRigidContactListDestroy(SimRigidContactList *list);
