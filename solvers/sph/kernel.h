/* SPH smoothing kernels W(r) of support radius h (W = 0 for r >= h), in 2D and 3D, normalized so that
 * their integral is 1: W(r) = sigma_d / h^d f(q), q = r / h, grad_i W(x_i - x_j) = sigma_d / h^(d+1)
 * f'(q) (x_i - x_j) / r. The table (kernel.c) has
 *   cubic    Monaghan's cubic spline (the M4 B-spline, in the support-h form of SPlisHSPlasH):
 *            f = 6 (q^3 - q^2) + 1 for q <= 1/2, 2 (1 - q)^3 for q <= 1; sigma = 40/(7 pi), 8/pi
 *   wendland Wendland C2 (Dehnen & Aly 2012): f = (1 - q)^4 (1 + 4 q); sigma = 7/pi, 21/(2 pi)
 *   poly6    Mueller et al. 2003: f = (1 - q^2)^3; sigma = 4/pi, 315/(64 pi)
 *   spiky    Mueller et al. 2003 (for gradients): f = (1 - q)^3; sigma = 10/pi, 15/pi
 * The seed notes' kernel Laplacian (003) repeats the gradient; the methods here use no Laplacian
 * (viscosity is Monaghan's artificial viscosity and XSPH, both built on W and grad W). */
#pragma once
#include <petscsys.h>

typedef enum { SIM_KERNEL_CUBIC = 0, SIM_KERNEL_WENDLAND, SIM_KERNEL_POLY6, SIM_KERNEL_SPIKY } SimKernelType;

typedef struct {
  SimKernelType type;
  PetscInt dim;
  PetscReal h, inv_h;
  PetscReal norm;  /* sigma_d / h^d */
  PetscReal gnorm; /* sigma_d / h^(d+1) */
} SimKernel;

/* The kernel `name` (cubic, wendland, poly6, spiky) of support h > 0 in dim = 2 or 3; an unknown
 * name is an error listing the valid ones, `option` (e.g. "-sph_kernel") naming where it came from. */
PetscErrorCode SimKernelSetUp(const char *name, const char *option, PetscInt dim, PetscReal h, SimKernel *k);
/* The valid names, comma-separated. */
const char *SimKernelNames(void);

/* f(q) and f'(q) of the kernel's shape, q in [0, 1]. */
static inline void SimKernelShape(SimKernelType t, PetscReal q, PetscReal *f, PetscReal *df)
{
  PetscReal a, b;
  if (q >= 1) {
    *f = 0, *df = 0;
    return;
  }
  switch (t) {
  case SIM_KERNEL_CUBIC:
    if (q <= 0.5) *f = 6 * (q * q * q - q * q) + 1, *df = 6 * q * (3 * q - 2);
    else a = 1 - q, *f = 2 * a * a * a, *df = -6 * a * a;
    break;
  case SIM_KERNEL_WENDLAND:
    a = 1 - q, b = a * a * a;
    *f = b * a * (1 + 4 * q), *df = -20 * q * b;
    break;
  case SIM_KERNEL_POLY6:
    a = 1 - q * q;
    *f = a * a * a, *df = -6 * q * a * a;
    break;
  default: /* spiky */
    a = 1 - q;
    *f = a * a * a, *df = -3 * a * a;
    break;
  }
}

/* W(r) for a distance r >= 0. */
static inline PetscReal SimKernelW(const SimKernel *k, PetscReal r)
{
  PetscReal f, df;
  SimKernelShape(k->type, r * k->inv_h, &f, &df);
  return k->norm * f;
}

/* W(r) and the factor g with grad_i W(x_i - x_j) = g (x_i - x_j), for r = |x_i - x_j| > 0. */
static inline void SimKernelWGrad(const SimKernel *k, PetscReal r, PetscReal *w, PetscReal *g)
{
  PetscReal f, df;
  SimKernelShape(k->type, r * k->inv_h, &f, &df);
  *w = k->norm * f;
  *g = r > 0 ? k->gnorm * df / r : 0;
}

/* SimKernelW and SimKernelWGrad with the shape t given (the same arithmetic): a pair loop inlined with
 * a compile-time t (SIM_FLUID_PAIR_DISPATCH in fluid.h) has no switch per pair. */
static inline PetscReal SimKernelWT(const SimKernel *k, SimKernelType t, PetscReal r)
{
  PetscReal f, df;
  SimKernelShape(t, r * k->inv_h, &f, &df);
  return k->norm * f;
}

static inline void SimKernelWGradT(const SimKernel *k, SimKernelType t, PetscReal r, PetscReal *w, PetscReal *g)
{
  PetscReal f, df;
  SimKernelShape(t, r * k->inv_h, &f, &df);
  *w = k->norm * f;
  *g = r > 0 ? k->gnorm * df / r : 0;
}
