/* IPC narrow phase (Li et al. 2020, Sec. 4 and the supplement): squared distances between surface
 * primitives with their gradients and Hessians, the closest-feature classification that picks the
 * smooth formula valid at a configuration, the log barrier and the parallel edge-edge mollifier. */
#pragma once
#include <math.h>
#include <petscsys.h>

/* A constraint's stencil: the vertices it acts on, in the order every function here expects
 * (flat 3n coordinates, n = IPCStencilSize[k]):
 *   PP: (p, q)   PE: (p, e0, e1)   PT: (p, t0, t1, t2)   EE: (ea0, ea1, eb0, eb1). */
typedef enum { IPC_STENCIL_PP = 0, IPC_STENCIL_PE, IPC_STENCIL_PT, IPC_STENCIL_EE } IPCStencil;
extern const int IPCStencilSize[4];

/* The distance formula valid near a configuration (the closest features), on a sub-stencil:
 *   IPC_FORM_PP     |x_v0 - x_v1|^2                                  (point-point)
 *   IPC_FORM_PL     |(x_v0 - x_v1) x (x_v2 - x_v1)|^2 / |x_v2 - x_v1|^2  (point to the line v1 v2)
 *   IPC_FORM_PPLANE ((x_v0 - x_v1) . n)^2 / |n|^2, n = (x_v2 - x_v1) x (x_v3 - x_v1) (point-plane)
 *   IPC_FORM_LL     ((x_v2 - x_v0) . n)^2 / |n|^2, n = (x_v1 - x_v0) x (x_v3 - x_v2) (line-line)
 * v[] are indices into the stencil. Each is smooth where it is used; the squared distance of a
 * stencil is C1 across the boundaries between types. */
typedef enum { IPC_FORM_PP = 0, IPC_FORM_PL, IPC_FORM_PPLANE, IPC_FORM_LL } IPCForm;
typedef struct {
  IPCForm form;
  int v[4];
} IPCDistType;

/* The closest features of the stencil's primitives at x (3n): for PT the vertex, edge or face
 * region of the triangle the point projects to (Ericson 2004, 5.1.5); for EE the clamping of the
 * segments' closest-point parameters, with nearly parallel edges (sin^2 of the angle < 1e-10)
 * reduced to the nearest of their four point-edge distances; for PE the clamping of the projection. */
IPCDistType IPCClassify(IPCStencil k, const PetscReal *x);

/* Squared distance of type t at x (3n coordinates of stencil k); g (3n, may be NULL) its gradient,
 * H (3n x 3n row-major, may be NULL; needs g) its Hessian, both with respect to all 3n coordinates. */
PetscReal IPCSqDistance(IPCStencil k, const PetscReal *x, IPCDistType t, PetscReal *g, PetscReal *H);

/* The nearest PSD matrix (Frobenius) to the Hessian of b(s(x)) with respect to the 3n stencil
 * coordinates, b'' g g^T + b' Hs, for the distance of type t at x, with db = b'(s), d2b = b''(s):
 * computed exactly in the distance formula's own variables (an eigenproblem of size 3, 6 or 9 for
 * point-point, point-line and point-plane/line-line; point-point in closed form). *projected false:
 * that Hessian is already PSD and H (3n x 3n) is left untouched; true: H holds the projection. */
PetscErrorCode IPCBarrierHessianPSD(IPCStencil k, const PetscReal *x, IPCDistType t, PetscReal db, PetscReal d2b, PetscReal *H, PetscBool *projected);

/* |ea x eb|^2 of an EE stencil (ea = ea1 - ea0, eb = eb1 - eb0) with its gradient (12) and Hessian
 * (144; may be NULL): the quantity the parallel-edge mollifier acts on. */
PetscReal IPCEdgeCross(const PetscReal *x, PetscReal *g, PetscReal *H);

/* Whether the segment a b passes through the triangle t0 t1 t2 (the admissibility check's
 * intersection test): true only when a and b lie strictly on opposite sides of the triangle's plane
 * beyond the orientation's round-off and the segment's line passes inside the triangle. A segment
 * (nearly) in the plane, or touching the triangle, is false here: there a point-triangle or edge-edge
 * distance is ~0, which the distance check reports. */
PetscBool IPCSegmentCrossesTriangle(const PetscReal *a, const PetscReal *b, const PetscReal *t0, const PetscReal *t1, const PetscReal *t2);

/* The barrier on squared distances s (Li et al. 2020, eq. 6 on d^2): with sh = dhat^2,
 *   b(s) = -(s - sh)^2 ln(s / sh) for 0 < s < sh, 0 for s >= sh, +inf for s <= 0;
 * C2 at s = sh. db, d2b (may be NULL) get b'(s) and b''(s). */
static inline PetscReal IPCBarrier(PetscReal s, PetscReal sh, PetscReal *db, PetscReal *d2b)
{
  PetscReal r, l;
  if (s >= sh) {
    if (db) *db = 0;
    if (d2b) *d2b = 0;
    return 0;
  }
  if (s <= 0) {
    if (db) *db = -(PetscReal)INFINITY; /* IEEE infinities: PETSC_INFINITY is a finite sentinel */
    if (d2b) *d2b = (PetscReal)INFINITY;
    return (PetscReal)INFINITY;
  }
  r = s - sh, l = PetscLogReal(s / sh);
  if (db) *db = -2 * r * l - r * r / s;
  if (d2b) *d2b = -2 * l - 4 * r / s + r * r / (s * s);
  return -r * r * l;
}

/* The parallel edge-edge mollifier (Li et al. 2020, Sec. 4.3) on c = |ea x eb|^2 with threshold
 * eps_x = 1e-3 |ea_rest|^2 |eb_rest|^2: m(c) = -c^2/eps^2 + 2c/eps below eps, 1 above; dm, d2m get
 * m'(c) and m''(c). */
static inline PetscReal IPCMollifier(PetscReal c, PetscReal eps, PetscReal *dm, PetscReal *d2m)
{
  if (c >= eps) {
    *dm = 0, *d2m = 0;
    return 1;
  }
  *dm = 2 / eps - 2 * c / (eps * eps);
  *d2m = -2 / (eps * eps);
  return c * (2 / eps - c / (eps * eps));
}
