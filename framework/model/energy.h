/* Energy terms of the Lagrangian model: the public contract every term (springs, gravity,
 * colliders, FEM elements, ...) implements. */
#pragma once
#include <petscsys.h>
#include <petscviewer.h>

/* What a term contributes.
 * POTENTIAL:   E(x), a conservative energy; the force is -dE/dx.
 * DISSIPATION: a Rayleigh function D(x, v) = 1/2 v^T B(x) v, quadratic in v; the force is -dD/dv.
 *              Value, gradient and Hessian are taken with respect to v, the x-dependence of B
 *              is frozen (implicit integrators lag it at the start of the step). */
typedef enum { SIM_ENERGY_POTENTIAL, SIM_ENERGY_DISSIPATION } SimEnergyKind;

typedef struct _p_SimEnergy *SimEnergy;

/* Operations of one term. Arrays are flat, interleaved xyz per vertex (length 3*nv).
 * value:    *E = term value at (x, v)
 * gradient: g += dE/dx (potential) or dD/dv (dissipation); g is accumulated, never zeroed here
 * hessian:  writes 9 values per 3x3 block, row-major, into vals, in the order of the block
 *           pattern from `pattern` (the model adds them into the CSR values of its matrix on one
 *           rank, with MatSetValuesCOO on several; see also the optional hessian_add). With psd
 *           true each block set must be the exact PSD projection of the term's Hessian.
 * pattern:  nblocks and the block (row vertex, column vertex) pairs; called at setup, first with
 *           brow = bcol = NULL (count only), then with arrays of that length.
 *           A term without a Hessian (gravity) reports 0 blocks.
 * destroy:  frees data.
 *
 * Optional projective-dynamics ops (Bouaziz et al. 2014; the `pd` solver). A POTENTIAL
 * term that provides them is a sum of nc constraints, each on a stencil of nvert vertices,
 *   E(x) = sum_c w_c/2 || A_c x_c - p_c(x) ||_F^2,
 * where x_c is the nvert x 3 matrix of the stencil's positions, A_c is nrows x nvert (the SAME
 * scalar matrix for x, y and z) and p_c(x) (nrows x 3) is the projection of A_c x_c onto the
 * constraint manifold, i.e. the closest point to A_c x_c on it. E must equal `value` exactly.
 * pd_count:   *nc constraints with *nvert vertices and *nrows rows each. nc = 0 declares a linear
 *             term E = c + b^T x (gravity): the solver evaluates `gradient` once per step and
 *             moves -b to the right-hand side. A term whose energy has no such form in its
 *             current configuration (FEM with a material other than arap) returns an error
 *             that names it.
 * pd_stencil: the constant data, written once at setup: vert[nc*nvert] (vertex indices),
 *             A[nc*nrows*nvert] (row-major per constraint: A[(c*nrows + r)*nvert + a]) and
 *             w[nc] (weights, >= 0; units of the term's stiffness).
 * pd_project: the local step, p[nc*nrows*3] (row r, component k at (c*nrows + r)*3 + k) at x.
 * A term without pd_count cannot be run by the `pd` solver, which refuses it by name. */
typedef struct {
  PetscErrorCode (*value)(SimEnergy, const PetscReal *x, const PetscReal *v, PetscReal *E);
  PetscErrorCode (*gradient)(SimEnergy, const PetscReal *x, const PetscReal *v, PetscReal *g);
  PetscErrorCode (*hessian)(SimEnergy, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal *vals);
  PetscErrorCode (*pattern)(SimEnergy, PetscInt *nblocks, PetscInt *brow, PetscInt *bcol);
  PetscErrorCode (*destroy)(SimEnergy);
  /* optional, projective dynamics (above) */
  PetscErrorCode (*pd_count)(SimEnergy, PetscInt *nc, PetscInt *nvert, PetscInt *nrows);
  PetscErrorCode (*pd_stencil)(SimEnergy, PetscInt *vert, PetscReal *A, PetscReal *w);
  PetscErrorCode (*pd_project)(SimEnergy, const PetscReal *x, PetscReal *p);
  /* optional, projective dynamics with a changing constraint set (colliders): sets active[c] =
   * PETSC_TRUE for every constraint whose energy is not zero at x (it never clears an entry). The
   * solver keeps only the active constraints in its matrix (an inactive one contributes nothing
   * to E at the iterate), gathers the set at the start of each step, grows it when an iterate
   * violates an inactive constraint, and refactors only when the set changed. A term without this
   * op has every constraint active, always. */
  PetscErrorCode (*pd_active)(SimEnergy, const PetscReal *x, PetscBool *active);
  /* optional, constrained dynamics (the pbd/xpbd solvers, docs/pbd.md): pd_project restricted to the
   * n constraints idx[0..n), writing the projection of the q-th listed one at p[(q*nrows + r)*3 + k].
   * A Gauss-Seidel sweep projects one colour of constraints at a time through it, so every colour
   * sees the positions the previous ones left (the classic PBD distance projection for springs);
   * without it the solver calls pd_project once per sweep and the projections lag by that sweep. */
  PetscErrorCode (*pd_project_some)(SimEnergy, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *p);
  /* optional, constraints whose projection is a rotation (the pbd/xpbd solvers' fused tet kernel,
   * docs/pbd.md): for a term with nrows = 3 whose pd_project_some sets p_c = R_c^T, R_c the rotation
   * of the polar decomposition of F_c = (A_c x_c)^T reached by one Newton step
   * (SimPolar3WarmSteps(F_c, q_c, 1, ...)) from the quaternion q_c, sets *q to the term's quaternions
   * (4 per constraint, the term's order): a solver may then do that step itself, advancing q_c as
   * pd_project_some would (they are the term's warm start and checkpointed state). *q = NULL when the
   * projection is currently something else (FEM with strain limits). */
  PetscErrorCode (*pd_rotations)(SimEnergy, PetscReal **q);
  /* optional, a bound on the Newton line search (IPC's continuous collision detection): lowers *alpha
   * (in (0, 1] on entry) to the largest step such that the straight path x + s p, s in [0, *alpha],
   * stays admissible for the term (no intersection), with the term's own safety margin; never
   * raises it (0 when no motion along p is admissible). Called once per Newton iteration before the
   * first trial point, and on the initial guess, from the model's current state (SimModelMaxStep). */
  PetscErrorCode (*max_step)(SimEnergy, const PetscReal *x, const PetscReal *p, PetscReal *alpha);
  /* optional, a term whose Hessian blocks depend on x (a contact set): recomputes its block pattern
   * for x and sets *changed when it differs from the one `pattern` returned last; `pattern` then
   * returns the new one. The model rebuilds its COO layout and every Hessian is re-preallocated
   * (SimModelHessianUpdatePattern); a minimizer refactors symbolically and counts it. */
  PetscErrorCode (*update_pattern)(SimEnergy, const PetscReal *x, PetscBool *changed);
  /* optional, for a term that carries state from one step to the next (a warm start, a lagged
   * contact set): writes it to / reads it from a checkpoint (binary viewer, collective on its
   * communicator; a distributed term writes its own elements' share in rank order). The mesh
   * problem calls them for every term, in model order, after x and v. */
  PetscErrorCode (*save)(SimEnergy, PetscViewer);
  PetscErrorCode (*load)(SimEnergy, PetscViewer);
  /* optional, assembly straight into a CSR matrix (the model's one-rank path): adds c times the
   * blocks `hessian` would write (the same psd meaning) into the matrix values a: entry (r, s) of the
   * term's block b (pattern order) goes to a[off[b] + r * stride[brow_b] + s], where brow_b is the
   * block's row vertex; a block with off[b] < 0 is skipped (it touches a pinned vertex). Without it
   * the model writes the blocks with `hessian` into a scratch array and adds them the same way. */
  PetscErrorCode (*hessian_add)(SimEnergy, const PetscReal *x, const PetscReal *v, PetscBool psd, PetscReal c, const PetscInt *off,
                                const PetscInt *stride, PetscReal *a);
  /* optional, state a term lags over a minimization (a contact barrier's stiffness, friction's normal
   * forces and tangent bases): called by the minimizer with k = 0 at the start of each minimization, x being
   * the model's current (last accepted) state, grad the objective's gradient there (3*nv) and beta the
   * minimization's effective step; then with k = 1, 2, ... at each converged minimizer x (grad NULL),
   * where the term updates what it lags and sets *again when the minimizer should run again from x
   * with the new values (SimModelLag). A term never clears *again. */
  PetscErrorCode (*lag)(SimEnergy, const PetscReal *x, const PetscReal *grad, PetscReal beta, PetscInt k, PetscBool *again);
  /* optional, the state a step accepted is admissible for the term (contact: no intersection,
   * every distance > 0, no inverted element): writes "" to why when it is, else one line saying what is
   * wrong (at most len bytes). The mesh problem asks after every step (SimModelAdmissible); a step
   * whose state is not admissible stops the run with the last good state (SIM_STEP_INADMISSIBLE). */
  PetscErrorCode (*admissible)(SimEnergy, const PetscReal *x, char *why, size_t len);
  /* optional, nonlinear scalar constraints (the pbd/xpbd solvers, docs/pbd.md): a POTENTIAL term
   *   E(x) = sum_c w_c/2 C_c(x_c)^2   (w_c >= 0; XPBD's compliance is 1/w_c)
   * on stencils of nvert vertices, for constraints that have no projective form (a tet's volume, a
   * dihedral angle). E must equal `value` exactly.
   * cons_count:   *nc constraints on *nvert (<= 12) vertices each.
   * cons_stencil: vert[nc*nvert] and w[nc], written once at setup.
   * cons_eval:    for the n listed constraints idx[0..n): C[q] = C_idx[q](x) and its gradient
   *               grad[(q*nvert + a)*3 + k] = dC/dx_{vert a, k}.
   * A term that also has the pd_* ops is run by pbd/xpbd through those (they are faster); the
   * compliant solver uses only these. */
  PetscErrorCode (*cons_count)(SimEnergy, PetscInt *nc, PetscInt *nvert);
  PetscErrorCode (*cons_stencil)(SimEnergy, PetscInt *vert, PetscReal *w);
  PetscErrorCode (*cons_eval)(SimEnergy, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *C, PetscReal *grad);
  /* optional, the second derivatives of the cons_* constraints (the compliant solver's geometric
   * stiffness sum_c lambda_c d2C_c/dx2, docs/compliant.md): for the n listed constraints, with
   * N = 3 nvert, H[q N^2 + (3a + k) N + 3b + l] = d2C_idx[q] / dx_{vert a, k} dx_{vert b, l}.
   * NULL declares the term's constraints linear in x (attachments, quadratic bending): d2C = 0. */
  PetscErrorCode (*cons_hessian)(SimEnergy, const PetscReal *x, PetscInt n, const PetscInt *idx, PetscReal *H);
  /* optional, projective dynamics: the term's constraints act along one fixed unit direction n only
   * (a plane collider: A_c x_c - p_c(x) is parallel to n for every x), so
   *   E = sum_c w_c/2 (n . (A_c x_c) - n . p_c(x))^2
   * is the same energy as the pd_* form above. Writes n. The pd solver with -pd_contact normal then
   * puts these constraints only in the matrix of the coordinate along n (docs/pd.md, "Contact"). */
  PetscErrorCode (*pd_direction)(SimEnergy, PetscReal n[3]);
} SimEnergyOps;

struct _p_SimEnergy {
  char name[64]; /* shown in logs: "spring", "gravity", "plane", ... */
  SimEnergyKind kind;
  SimEnergyOps ops;
  void *data;
  /* FALSE (default): replicated, every rank holds and evaluates the whole term identically.
   * TRUE: this rank holds only its share of the elements (the scene built it from the rank's owned
   * cells); the model sums its values, gradients and Hessian blocks over the model's ranks. */
  PetscBool distributed;
  /* TRUE: a vertex term (gravity, colliders) whose value and gradient are sums over the vertices it
   * was created on, the model's first nown; with a distributed state (model->local_state) those are
   * this rank's owned vertices and its value is summed over the ranks like a distributed term's. */
  PetscBool per_vertex;
};

/* Creation by an implementation: fills name, kind, ops and data. */
PetscErrorCode SimEnergyCreate(const char *name, SimEnergyKind kind, const SimEnergyOps *ops, void *data, SimEnergy *term);
PetscErrorCode SimEnergyDestroy(SimEnergy *term); /* accepts NULL */

/* The constructor an energy registration carries (SIM_KIND_ENERGY): builds the term from the
 * options database under `prefix` (e.g. "plane_") for the model it is added to. A registration
 * whose create is NULL is a term only scenes build (springs); it is listed for documentation. */
typedef struct _p_SimModel *SimModel;
typedef PetscErrorCode (*SimEnergyCreateFn)(SimModel model, const char *prefix, SimEnergy *term);
