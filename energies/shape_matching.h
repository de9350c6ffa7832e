/* Shape matching (Müller, Heidelberger, Teschner & Gross 2005, "Meshless deformations based on shape
 * matching") as projective constraints for the pbd and xpbd solvers: overlapping clusters of
 * vertices, each pulled towards the goal positions g_i = c + T q_i of its best-fitting rigid, linear
 * or quadratic motion of its rest shape. docs/pbd.md. */
#pragma once
#include "framework/model/model.h"

/* The deformation a cluster's goal may take (Müller et al. 2005, Secs. 3.3-4.2): index into
 * SimShapeModes. */
enum { SIM_SHAPE_RIGID, SIM_SHAPE_LINEAR, SIM_SHAPE_QUADRATIC };
extern const char *const SimShapeModes[]; /* "rigid", "linear", "quadratic" */

/* A shape-matching term over nv vertices with rest positions rest[3 nv] and masses mass[nv] (> 0;
 * only their ratios within a cluster matter): nc clusters of n vertices each, cluster[n nc]
 * (overlapping; n <= 27), the deformation mode, beta in [0, 1] (the blend of the linear or quadratic
 * fit with the rotation; ignored by rigid) and the stiffness k > 0 (N/m). A cluster must determine
 * its fit: linear needs 4 points that are not coplanar, quadratic 10 points in general position
 * (not on a common quadric), rigid 3 points not on a line; an error names the cluster otherwise.
 *
 * For cluster c with mass fractions mu_i = m_i / sum m, rest centre c0 = sum mu_i x0_i, current centre
 * c = sum mu_i x_i, q_i the rest offsets x0_i - c0 (linear, rigid) or the 9-vector (q, q_x^2, q_y^2,
 * q_z^2, q_x q_y, q_y q_z, q_z q_x) less its mass-weighted mean (quadratic; centred so that the goals
 * keep the centre and a quadratic deformation is reproduced exactly), and p_i = x_i - c:
 *   A_pq = sum mu_i p_i q_i^T, A_qq = (sum mu_i q_i q_i^T)^-1, R the rotation of the polar
 *   decomposition of A_pq's first 3 columns;
 *   rigid: T = R; linear: T = beta A / det(A)^(1/3) + (1 - beta) R with A = A_pq A_qq (T = R where
 *   det A <= 0); quadratic: T = beta A_pq A_qq + (1 - beta) [R 0 0];
 *   E_c = k/2 sum_i mu_i |x_i - c - T q_i|^2,
 * in the projective form of energy.h: A_c = diag(sqrt mu)(I - 1 mu^T) (n x n), p_c,i = sqrt(mu_i) T q_i.
 * A projection of PBD (stiffness 1) moves the cluster onto its goals and keeps its linear and angular
 * momentum; -pbd_<name>_stiffness is Müller's alpha. No Hessian: a solver that assembles one is
 * refused by name (its pattern op returns the error). */
PetscErrorCode SimShapeMatchingCreate(const char *name, PetscInt nv, const PetscReal *rest, const PetscReal *mass, PetscInt nc,
                                      PetscInt n, const PetscInt *cluster, PetscInt mode, PetscReal beta, PetscReal k,
                                      SimEnergy *term);

/* Clusters of a point set: for every point of the lattice of spacing h that starts h/2 inside the
 * bounding box of xyz[3 nv], the n points nearest to it (ties broken by index); duplicates dropped.
 * Every point must be in some cluster (an error otherwise: lower h or raise n). *cluster (n *nc) is
 * allocated (PetscFree). */
PetscErrorCode SimShapeClustersGrid(PetscInt nv, const PetscReal *xyz, PetscReal h, PetscInt n, PetscInt *nc, PetscInt **cluster);
