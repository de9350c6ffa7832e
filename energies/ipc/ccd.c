/* Additive CCD (Li, Kaufman and Jiang 2021, Alg. 1) for the IPC stencils and the analytic obstacles
 * (energies/ipc/ccd.h). */
#include "energies/ipc/ccd.h"
#include "framework/linalg/vec3.h"

static inline PetscReal StencilDistance(IPCStencil k, const PetscReal *x)
{
  return PetscSqrtReal(IPCSqDistance(k, x, IPCClassify(k, x), NULL, NULL));
}

PetscReal IPCAdditiveCCD(IPCStencil k, const PetscReal *x, const PetscReal *p, PetscReal eta, PetscReal xi, PetscReal tmax,
                         PetscInt max_iter, PetscInt *iters)
{
  const int n = IPCStencilSize[k];
  PetscReal q[12], len[4], mean[3] = {0, 0, 0}, y[12], lp, d, gap, t = 0;
  PetscInt it = 0;

  /* the relative motion: the mean displacement moves both primitives alike and never closes them */
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) mean[c] += p[3 * i + c] / n;
  for (int i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) q[3 * i + c] = p[3 * i + c] - mean[c];
    len[i] = Vec3Norm(q + 3 * i);
  }
  /* l_p: a bound on the rate at which the distance between the two primitives can shrink */
  switch (k) {
  case IPC_STENCIL_PP:
    lp = len[0] + len[1];
    break;
  case IPC_STENCIL_PE:
    lp = len[0] + PetscMax(len[1], len[2]);
    break;
  case IPC_STENCIL_PT:
    lp = len[0] + PetscMax(len[1], PetscMax(len[2], len[3]));
    break;
  default:
    lp = PetscMax(len[0], len[1]) + PetscMax(len[2], len[3]);
  }
  d = StencilDistance(k, x);
  if (iters) *iters = 1;
  if (!(d > xi)) return 0; /* already touching (or NaN): no admissible motion */
  if (lp == 0) return tmax;
  gap = (1 - eta) * (d - xi);
  for (;;) {
    const PetscReal tl = eta * (d - xi) / lp, trial = t + tl;
    if (t > tmax) return tmax;
    if (++it > max_iter) break; /* conservative: t is known to be free */
    for (int i = 0; i < 3 * n; i++) y[i] = x[i] + trial * p[i];
    d = StencilDistance(k, y);
    if (t > 0 && !(d - xi >= gap)) break; /* the next advance would pass the gap: stop at t */
    t = trial;
  }
  if (iters) *iters = it;
  return PetscMin(t, tmax);
}

PetscReal IPCPlaneCCD(const PetscReal *x, const PetscReal *p, const PetscReal *o, const PetscReal *n, PetscReal eta, PetscReal tmax)
{
  PetscReal r[3], phi, rate;

  Vec3Sub(x, o, r);
  phi = Vec3Dot(r, n), rate = Vec3Dot(p, n);
  if (!(phi > 0)) return 0;
  if (rate >= 0) return tmax;
  return PetscMin(tmax, eta * phi / -rate); /* phi(t) = phi + t rate stays >= (1 - eta) phi */
}

PetscReal IPCSphereCCD(const PetscReal *x, const PetscReal *p, const PetscReal *c, PetscReal r, PetscReal eta, PetscReal tmax,
                       PetscInt max_iter)
{
  const PetscReal lp = Vec3Norm(p);
  PetscReal y[3], d, gap, t = 0;

  Vec3Sub(x, c, y);
  d = Vec3Norm(y) - r;
  if (!(d > 0)) return 0;
  if (lp == 0) return tmax;
  gap = (1 - eta) * d;
  for (PetscInt it = 0; it < max_iter; it++) {
    const PetscReal trial = t + eta * d / lp;
    if (t > tmax) return tmax;
    for (int k = 0; k < 3; k++) y[k] = x[k] + trial * p[k] - c[k];
    d = Vec3Norm(y) - r;
    if (t > 0 && !(d >= gap)) break;
    t = trial;
  }
  return PetscMin(t, tmax);
}
