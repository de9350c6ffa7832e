/* The pbf solver: position-based fluids (Macklin & Mueller 2013) on a particles problem, sharing the
 * particle fluids' kernel, ghosts, neighbour lists and boundary particles (fluid.h). Per substep h:
 *   v += h g, x* = x + h v; ghosts and neighbours at x* (kept for the iterations);
 *   iterations: rho_i by summation (boundary particles as Psi_b = rho0 V_b, Akinci et al. 2012),
 *     C_i = rho_i / rho0 - 1, lambda_i = -C_i / (sum_k |grad_k C_i|^2 + eps) with
 *     grad_k C_i = m_k / rho0 grad W_ik, and
 *     dx_i = sum_j m_j / rho0 (lambda_i + lambda_j + s_corr,ij) grad W_ij + sum_b Psi_b / rho0 lambda_i grad W_ib,
 *     s_corr,ij = -k (W_ij / W(dq))^n / D0 (the tensile term, D0 the denominator of a particle in a
 *     full lattice, so that k is a fraction of the correction of a unit density error);
 *   v = (x* - x) / h; vorticity confinement f = eps_vc (N x omega), N = grad|omega| / |grad|omega||,
 *     omega_i = sum_j m_j / rho_j (v_j - v_i) x grad_i W_ij; XSPH v_i += c sum_j m_j / rho_j (v_j - v_i) W_ij.
 * The density constraint is unilateral (C_i clamped at 0 from below: a free surface is not pulled
 * together), as in the paper's implementations. The pair passes run over half neighbour lists
 * (SimNeighborsFindHalf): a pair of own fluid particles is evaluated once (distance, W, grad W) and
 * its terms are added to both particles, with the other's mass. */
#include "framework/solver_impl.h"
#include "framework/text.h"
#include "solvers/sph/fluid.h"

typedef struct {
  SimFluid *fl;
  char kernel[32];
  PetscReal support, rho0, eps, k_corr, dq, n_corr, xsph, vorticity;
  PetscInt iterations, substeps;
  PetscReal spacing, D0, Wdq;
  PetscReal gravity[3];
  PetscReal *xold, *rho, *lambda, *dx, *w;
  PetscInt capxold, caprho, caplambda, capdx, capw;
  PetscReal *gs, *s2; /* per particle: the sums of grad_k C_i (3) and of |grad_k C_i|^2 over the half lists */
  PetscInt capgs, caps2;
  PetscReal *pw, *pg; /* per neighbour-list entry: W_ij and g_ij (grad_i W_ij = g_ij (x_i - x_j)) at the current positions */
  PetscInt cappair;
  PetscReal *mb, *mir; /* per particle: m_j or Psi_b, and that / rho0 */
  PetscInt capmb, capmir;
  PetscReal rho_err_max, rho_err_mean, rho_min, vmax, avg_neighbors;
  PetscInt nfluid, nboundary;
} PBF;

static PetscErrorCode SetFromOptions_PBF(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  PBF *pb = (PBF *)s->data;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, "pbf: position-based fluids (docs/sph.md)");
  PetscCall(PetscOptionsString("-pbf_kernel", "smoothing kernel: cubic, wendland, poly6, spiky", "", pb->kernel, pb->kernel, sizeof(pb->kernel), NULL));
  PetscCall(PetscOptionsReal("-pbf_support", "kernel support radius / particle spacing", "", pb->support, &pb->support, NULL));
  PetscCall(PetscOptionsReal("-pbf_rho0", "rest density (0: the density of the scene's particle lattice)", "", pb->rho0, &pb->rho0, NULL));
  PetscCall(PetscOptionsInt("-pbf_iterations", "density constraint iterations per substep", "", pb->iterations, &pb->iterations, NULL));
  PetscCall(PetscOptionsInt("-pbf_substeps", "substeps per step", "", pb->substeps, &pb->substeps, NULL));
  PetscCall(PetscOptionsReal("-pbf_eps", "constraint relaxation eps, relative to the full-lattice denominator", "", pb->eps, &pb->eps, NULL));
  PetscCall(PetscOptionsReal("-pbf_scorr_k", "tensile instability term k (0: off)", "", pb->k_corr, &pb->k_corr, NULL));
  PetscCall(PetscOptionsReal("-pbf_scorr_dq", "tensile term's dq / h", "", pb->dq, &pb->dq, NULL));
  PetscCall(PetscOptionsReal("-pbf_scorr_n", "tensile term's exponent n", "", pb->n_corr, &pb->n_corr, NULL));
  PetscCall(PetscOptionsReal("-pbf_xsph", "XSPH viscosity c", "", pb->xsph, &pb->xsph, NULL));
  PetscCall(PetscOptionsReal("-pbf_vorticity", "vorticity confinement eps (m/s^2 per 1/s; 0: off)", "", pb->vorticity, &pb->vorticity, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(pb->support >= 1 && pb->support <= 6, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-pbf_support must be in [1, 6] (got %g)", (double)pb->support);
  PetscCheck(pb->rho0 >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-pbf_rho0 must be > 0, or 0 for the lattice's density (got %g)", (double)pb->rho0);
  PetscCheck(pb->iterations >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-pbf_iterations must be >= 1 (got %" PetscInt_FMT ")", pb->iterations);
  PetscCheck(pb->substeps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-pbf_substeps must be >= 1 (got %" PetscInt_FMT ")", pb->substeps);
  PetscCheck(pb->eps > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-pbf_eps must be > 0 (got %g)", (double)pb->eps);
  PetscCheck(pb->k_corr >= 0 && pb->dq > 0 && pb->dq < 1 && pb->n_corr >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-pbf_scorr_k >= 0, -pbf_scorr_dq in (0, 1), -pbf_scorr_n >= 1 (got %g, %g, %g)", (double)pb->k_corr, (double)pb->dq, (double)pb->n_corr);
  PetscCheck(pb->xsph >= 0 && pb->xsph <= 1 && pb->vorticity >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-pbf_xsph must be in [0, 1] and -pbf_vorticity >= 0 (got %g, %g)", (double)pb->xsph, (double)pb->vorticity);
  PetscFunctionReturn(0);
}

/* The denominator sum_k |grad_k C_i|^2 of a particle inside a full lattice of spacing s and mass m. */
static PetscReal LatticeDenominator(const SimKernel *k, PetscReal s, PetscReal m, PetscReal rho0)
{
  const PetscInt K = (PetscInt)PetscCeilReal(k->h / s) + 1, kz = k->dim == 3 ? K : 0;
  PetscReal sum2 = 0, gsum[3] = {0, 0, 0};

  for (PetscInt c = -kz; c <= kz; c++)
    for (PetscInt b = -K; b <= K; b++)
      for (PetscInt a = -K; a <= K; a++) {
        const PetscReal x[3] = {a * s, b * s, c * s}, r = s * PetscSqrtReal((PetscReal)(a * a + b * b + c * c));
        PetscReal w, g;
        if (r == 0) continue;
        SimKernelWGrad(k, r, &w, &g);
        for (PetscInt d = 0; d < k->dim; d++) gsum[d] += m / rho0 * g * x[d], sum2 += PetscSqr(m / rho0 * g * x[d]);
      }
  return sum2 + gsum[0] * gsum[0] + gsum[1] * gsum[1] + gsum[2] * gsum[2];
}

static PetscErrorCode SetUp_PBF(SimSolver s)
{
  PBF *pb = (PBF *)s->data;
  SimProblem p = s->problem;
  SimParticlesInfo in;
  PetscReal mass, height;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetInfo(p, &in));
  for (int d = 0; d < 3; d++) pb->gravity[d] = in.gravity[d];
  PetscCall(SimFluidCreate(p, pb->kernel, "-pbf_kernel", in.h, &pb->fl));
  PetscCall(SimFluidGather(pb->fl));
  PetscCall(SimFluidGeometry(pb->fl, pb->gravity, &pb->spacing, &mass, &height));
  PetscCall(SimFluidDestroy(&pb->fl));
  PetscCall(SimFluidCreate(p, pb->kernel, "-pbf_kernel", pb->support * pb->spacing, &pb->fl));
  pb->fl->half = PETSC_TRUE; /* the pair passes take each pair of own fluid particles once */
  PetscCall(SimFluidBoundaryVolumes(pb->fl, PETSC_FALSE)); /* those of sampled obstacle surfaces */
  PetscCall(SimFluidCounts(pb->fl, &pb->nfluid, &pb->nboundary));
  if (pb->rho0 == 0) pb->rho0 = SimFluidLatticeDensity(&pb->fl->kernel, pb->spacing, mass);
  pb->D0 = LatticeDenominator(&pb->fl->kernel, pb->spacing, mass, pb->rho0);
  pb->Wdq = SimKernelW(&pb->fl->kernel, pb->dq * pb->fl->kernel.h);
  PetscFunctionReturn(0);
}

/* Grows the per-pair arrays (W_ij and the gradient factor g_ij of each neighbour-list entry) to the
 * current lists. */
static PetscErrorCode EnsurePairs(PBF *pb)
{
  const PetscInt need = pb->fl->list.offset[pb->fl->nf];

  PetscFunctionBeginUser;
  if (need <= pb->cappair && pb->pw) PetscFunctionReturn(0);
  PetscCall(PetscFree(pb->pw));
  PetscCall(PetscFree(pb->pg));
  pb->cappair = PetscMax(need, 5 * pb->cappair / 4) + 64;
  PetscCall(PetscMalloc1(pb->cappair, &pb->pw));
  PetscCall(PetscMalloc1(pb->cappair, &pb->pg));
  PetscFunctionReturn(0);
}

/* Each particle's mass as the fluid sees it, m_j or Psi_b = rho0 V_b (boundary), and that over rho0
 * (the products the pair sums take first, so the same values), for the own particles and ghosts. */
static PetscErrorCode Masses(PBF *pb)
{
  SimFluid *f = pb->fl;
  const PetscReal rho0 = pb->rho0, irho0 = 1 / pb->rho0;

  PetscFunctionBeginUser;
  PetscCall(SimFluidEnsure(f, 1, &pb->capmb, &pb->mb));
  PetscCall(SimFluidEnsure(f, 1, &pb->capmir, &pb->mir));
  for (PetscInt j = 0; j < f->n + f->ng; j++) {
    pb->mb[j] = f->bnd[j] ? rho0 * f->vol[j] : f->m[j];
    pb->mir[j] = pb->mb[j] * irho0;
  }
  PetscFunctionReturn(0);
}

/* Zeroes the fluid particles' entries (bs reals each) of a per-particle array: the own ones and the
 * ghosts (a pair's mirror term may go to a ghost fluid particle: the owner's sum replaces it in the
 * exchange). */
static inline void ZeroFluid(const SimFluid *f, PetscInt bs, PetscReal *a)
{
  for (PetscInt q = 0; q < f->nf; q++)
    for (PetscInt c = 0; c < bs; c++) a[bs * f->fluid[q] + c] = 0;
  for (PetscInt j = bs * f->n; j < bs * (f->n + f->ng); j++) a[j] = 0;
}

/* The density of the own fluid particles at the current positions, keeping each pair's W_ij and
 * gradient factor g_ij (grad_i W_ij = g_ij (x_i - x_j)) for the passes that follow at the same
 * positions; with `lambda`, also the constraint multipliers. One pass over the half lists (a pair of
 * own fluid particles once, its terms added to both), for a compile-time dim and kernel
 * (SIM_FLUID_PAIR_DISPATCH). The own fluid particles run in increasing index and a pair of two of
 * them is listed with the lower index, so particle i's sums are complete at the end of its list. */
static inline __attribute__((always_inline)) void DensityPairsDim(PBF *pb, PetscBool lambda, const PetscInt dim, const SimKernelType kt)
{
  SimFluid *f = pb->fl;
  const PetscInt *off = f->list.offset, *idx = f->list.index;
  const PetscReal irho0 = 1 / pb->rho0, eps = pb->eps * pb->D0, w0 = SimKernelW(&f->kernel, 0);
  const PetscReal *x = f->x, *mb = pb->mb, *mir = pb->mir;
  const unsigned char *bnd = f->bnd;
  PetscReal *pw = pb->pw, *pg = pb->pg, *rho = pb->rho, *gs = pb->gs, *s2 = pb->s2;
  const SimKernel kern = f->kernel; /* local copies: the stores below cannot alias them */

  ZeroFluid(f, 1, rho);
  if (lambda) ZeroFluid(f, 1, s2), ZeroFluid(f, 3, gs);
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    const PetscReal xi[3] = {x[dim * i], x[dim * i + 1], dim == 3 ? x[dim * i + 2] : 0}, mi = mb[i], mri = mir[i];
    PetscReal sum = rho[i] + mi * w0, gi[3] = {gs[3 * i], gs[3 * i + 1], gs[3 * i + 2]}, sum2 = s2[i];
    for (PetscInt k = off[q]; k < off[q + 1]; k++) {
      const PetscInt j = idx[k];
      const PetscReal *xj = x + dim * j;
      PetscReal r2 = 0, xij[3], w, g;
      for (PetscInt d = 0; d < dim; d++) xij[d] = xi[d] - xj[d], r2 += xij[d] * xij[d];
      SimKernelWGradT(&kern, kt, PetscSqrtReal(r2), &w, &g);
      pw[k] = w, pg[k] = g;
      sum += mb[j] * w;
      if (lambda) {
        const PetscReal mg = mir[j] * g;
        for (PetscInt d = 0; d < dim; d++) gi[d] += mg * xij[d];
        if (!bnd[j]) { /* |grad_j C_i|^2 (grad_j C_i = -m_j / rho0 g_ij x_ij) and the mirror terms of j */
          const PetscReal mgi = mri * g;
          sum2 += mg * mg * r2;
          rho[j] += mi * w;
          s2[j] += mgi * mgi * r2;
          for (PetscInt d = 0; d < dim; d++) gs[3 * j + d] -= mgi * xij[d];
        }
      } else if (!bnd[j]) rho[j] += mi * w;
    }
    rho[i] = sum;
    if (lambda) {
      const PetscReal C = PetscMax(sum * irho0 - 1, 0);
      for (PetscInt d = 0; d < dim; d++) sum2 += gi[d] * gi[d];
      pb->lambda[i] = -C / (sum2 + eps);
    }
  }
}

/* (w / W(dq))^n of the tensile term: repeated multiplication for an integer n up to 4 (the default
 * 4; differs from pow by round-off), pow otherwise. */
static inline PetscReal SCorrPow(PetscReal t, PetscReal n, PetscInt ni)
{
  PetscReal r;
  switch (ni) {
  case 1:
    return t;
  case 2:
    return t * t;
  case 3:
    return t * t * t;
  case 4:
    r = t * t;
    return r * r;
  default:
    return PetscPowReal(t, n);
  }
}

/* The position corrections of the own fluid particles (pb->dx, per particle) from the pairs' stored W
 * and g over the half lists, for a compile-time dim (and tensile exponent ni, see SCorrPow):
 * dx_i += m_j / rho0 s_ij g_ij x_ij and dx_j -= m_i / rho0 s_ij g_ij x_ij, s_ij = lambda_i + lambda_j + s_corr. */
static inline __attribute__((always_inline)) void CorrectDim(PBF *pb, const PetscInt ni, const PetscInt dim, const SimKernelType kt)
{
  SimFluid *f = pb->fl;
  const PetscInt *off = f->list.offset, *idx = f->list.index;
  const PetscReal kc = pb->k_corr / pb->D0, Wdq = pb->Wdq, ncorr = pb->n_corr;
  const PetscReal *x = f->x, *mir = pb->mir, *lambda = pb->lambda, *pw = pb->pw, *pg = pb->pg;
  const unsigned char *bnd = f->bnd;
  PetscReal *dx = pb->dx;

  (void)kt;
  ZeroFluid(f, dim, dx);
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    const PetscReal xi[3] = {x[dim * i], x[dim * i + 1], dim == 3 ? x[dim * i + 2] : 0}, li = lambda[i], mri = mir[i];
    PetscReal dxi[3];
    for (PetscInt d = 0; d < dim; d++) dxi[d] = dx[dim * i + d];
    for (PetscInt k = off[q]; k < off[q + 1]; k++) {
      const PetscInt j = idx[k];
      const PetscReal *xj = x + dim * j, g = pg[k];
      if (bnd[j]) {
        const PetscReal c = mir[j] * li * g;
        for (PetscInt d = 0; d < dim; d++) dxi[d] += c * (xi[d] - xj[d]);
      } else {
        const PetscReal sc = kc > 0 ? -kc * SCorrPow(pw[k] / Wdq, ncorr, ni) : 0, sg = (li + lambda[j] + sc) * g;
        const PetscReal ci = mir[j] * sg, cj = mri * sg;
        for (PetscInt d = 0; d < dim; d++) {
          const PetscReal xij = xi[d] - xj[d];
          dxi[d] += ci * xij;
          dx[dim * j + d] -= cj * xij;
        }
      }
    }
    for (PetscInt d = 0; d < dim; d++) dx[dim * i + d] = dxi[d];
  }
}

/* Density and constraint multipliers of the own fluid particles at the current positions (the pairs'
 * W and g kept), the multipliers exchanged with the ghosts. */
static PetscErrorCode Lambdas(SimSolver s)
{
  PBF *pb = (PBF *)s->data;
  SimFluid *f = pb->fl;

  PetscFunctionBeginUser;
  SIM_FLUID_PAIR_DISPATCH(f, DensityPairsDim, pb, PETSC_TRUE);
  PetscCall(SimFluidExchange(f, 1, pb->lambda));
  PetscFunctionReturn(0);
}

/* The position corrections of the own fluid particles, applied, and the ghosts' positions updated. */
static PetscErrorCode Correct(SimSolver s)
{
  PBF *pb = (PBF *)s->data;
  SimFluid *f = pb->fl;
  const PetscInt dim = f->dim, ni = pb->n_corr == PetscFloorReal(pb->n_corr) && pb->n_corr <= 4 ? (PetscInt)pb->n_corr : 0;

  PetscFunctionBeginUser;
  if (pb->k_corr > 0 && ni == 4) SIM_FLUID_PAIR_DISPATCH(f, CorrectDim, pb, 4); /* the default */
  else SIM_FLUID_PAIR_DISPATCH(f, CorrectDim, pb, ni);
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    for (PetscInt d = 0; d < dim; d++) f->x[dim * i + d] += pb->dx[dim * i + d];
  }
  PetscCall(SimFluidExchange(f, dim, f->x));
  PetscFunctionReturn(0);
}

/* Vorticity confinement and XSPH on the new velocities (ghosts' exchanged first), from the pairs' W and g
 * stored by the last density pass (at the final positions), over the half lists (a pair's term added
 * to both particles, each weighted by the other's m / rho). */
static PetscErrorCode Velocities(SimSolver s, PetscReal h)
{
  PBF *pb = (PBF *)s->data;
  SimFluid *f = pb->fl;
  const PetscInt dim = f->dim, nw = dim == 2 ? 1 : 3, *off = f->list.offset, *idx = f->list.index;
  PetscReal *dv = pb->dx;

  PetscFunctionBeginUser;
  PetscCall(SimFluidExchange(f, dim, f->v));
  PetscCall(SimFluidExchange(f, 1, pb->rho));
  ZeroFluid(f, dim, dv);
  if (pb->vorticity > 0) {
    PetscReal *om = pb->w, *eta = pb->gs;
    /* omega_i = sum_j m_j / rho_j (v_j - v_i) x grad_i W_ij (fluid j); the pair's (v_j - v_i) x g_ij x_ij
       is the same for j (grad_j W_ji = -g_ij x_ij, v_i - v_j) */
    ZeroFluid(f, nw, om);
    for (PetscInt q = 0; q < f->nf; q++) {
      const PetscInt i = f->fluid[q];
      const PetscReal *xi = f->x + dim * i, *vi = f->v + dim * i, ci = f->m[i] / pb->rho[i];
      for (PetscInt k = off[q]; k < off[q + 1]; k++) {
        const PetscInt j = idx[k];
        const PetscReal *xj = f->x + dim * j, *vj = f->v + dim * j;
        const PetscReal g = pb->pg[k];
        PetscReal gw[3] = {0, 0, 0}, vji[3] = {0, 0, 0}, cr[3], cj;
        if (f->bnd[j]) continue;
        cj = f->m[j] / pb->rho[j];
        for (PetscInt d = 0; d < dim; d++) gw[d] = g * (xi[d] - xj[d]), vji[d] = vj[d] - vi[d];
        if (dim == 2) cr[0] = vji[0] * gw[1] - vji[1] * gw[0];
        else {
          cr[0] = vji[1] * gw[2] - vji[2] * gw[1];
          cr[1] = vji[2] * gw[0] - vji[0] * gw[2];
          cr[2] = vji[0] * gw[1] - vji[1] * gw[0];
        }
        for (PetscInt d = 0; d < nw; d++) om[nw * i + d] += cj * cr[d], om[nw * j + d] += ci * cr[d];
      }
    }
    PetscCall(SimFluidExchange(f, nw, om));
    /* eta = grad |omega| = sum_j m_j / rho_j |omega_j| grad_i W_ij, N = eta / |eta|, a_i = eps (N x omega_i) */
    ZeroFluid(f, 3, eta);
    for (PetscInt q = 0; q < f->nf; q++) {
      const PetscInt i = f->fluid[q];
      const PetscReal *xi = f->x + dim * i, *oi = om + nw * i;
      PetscReal oni = 0;
      for (PetscInt d = 0; d < nw; d++) oni += oi[d] * oi[d];
      oni = f->m[i] / pb->rho[i] * PetscSqrtReal(oni);
      for (PetscInt k = off[q]; k < off[q + 1]; k++) {
        const PetscInt j = idx[k];
        const PetscReal *xj = f->x + dim * j, *oj = om + nw * j;
        const PetscReal g = pb->pg[k];
        PetscReal on = 0;
        if (f->bnd[j]) continue;
        for (PetscInt d = 0; d < nw; d++) on += oj[d] * oj[d];
        on = f->m[j] / pb->rho[j] * PetscSqrtReal(on);
        for (PetscInt d = 0; d < dim; d++) {
          const PetscReal gx = g * (xi[d] - xj[d]);
          eta[3 * i + d] += on * gx, eta[3 * j + d] -= oni * gx;
        }
      }
    }
    for (PetscInt q = 0; q < f->nf; q++) {
      const PetscInt i = f->fluid[q];
      const PetscReal *oi = om + nw * i;
      PetscReal e[3] = {0, 0, 0}, en = 0, a[3] = {0, 0, 0};
      for (PetscInt d = 0; d < dim; d++) e[d] = eta[3 * i + d], en += e[d] * e[d];
      en = PetscSqrtReal(en);
      if (en < 1e-12) continue;
      for (PetscInt d = 0; d < dim; d++) e[d] /= en;
      if (dim == 2) a[0] = e[1] * oi[0], a[1] = -e[0] * oi[0];
      else {
        a[0] = e[1] * oi[2] - e[2] * oi[1];
        a[1] = e[2] * oi[0] - e[0] * oi[2];
        a[2] = e[0] * oi[1] - e[1] * oi[0];
      }
      for (PetscInt d = 0; d < dim; d++) dv[dim * i + d] = h * pb->vorticity * a[d];
    }
  }
  /* XSPH from the velocities before confinement: dv_i += c m_j / rho_j (v_j - v_i) W_ij, and the mirror for j */
  if (pb->xsph > 0)
    for (PetscInt q = 0; q < f->nf; q++) {
      const PetscInt i = f->fluid[q];
      const PetscReal *vi = f->v + dim * i, ci = pb->xsph * f->m[i] / pb->rho[i];
      for (PetscInt k = off[q]; k < off[q + 1]; k++) {
        const PetscInt j = idx[k];
        const PetscReal *vj = f->v + dim * j;
        if (f->bnd[j]) continue;
        const PetscReal cj = pb->xsph * f->m[j] / pb->rho[j] * pb->pw[k], cw = ci * pb->pw[k];
        for (PetscInt d = 0; d < dim; d++) {
          const PetscReal vji = vj[d] - vi[d];
          dv[dim * i + d] += cj * vji, dv[dim * j + d] -= cw * vji;
        }
      }
    }
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    for (PetscInt d = 0; d < dim; d++) f->v[dim * i + d] += dv[dim * i + d];
  }
  PetscFunctionReturn(0);
}

/* Density figures and the swarm's density field (boundary: rho0). */
static PetscErrorCode StoreFields(SimSolver s)
{
  PBF *pb = (PBF *)s->data;
  SimFluid *f = pb->fl;
  const PetscInt dim = f->dim;
  PetscReal *rho, e[4] = {0, 0, -PETSC_MAX_REAL, 0};
  DM sw;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetSwarm(s->problem, &sw));
  PetscCall(DMSwarmGetField(sw, "density", NULL, NULL, (void **)&rho));
  for (PetscInt i = 0; i < f->n; i++) rho[i] = pb->rho0;
  for (PetscInt q = 0; q < f->nf; q++) {
    const PetscInt i = f->fluid[q];
    const PetscReal r = pb->rho[i], err = PetscMax(r / pb->rho0 - 1, 0);
    PetscReal v2 = 0;
    rho[i] = r;
    for (PetscInt d = 0; d < dim; d++) v2 += f->v[dim * i + d] * f->v[dim * i + d];
    e[0] = PetscMax(e[0], err), e[1] += err, e[2] = PetscMax(e[2], -r / pb->rho0), e[3] = PetscMax(e[3], v2);
  }
  PetscCall(DMSwarmRestoreField(sw, "density", NULL, NULL, (void **)&rho));
  {
    PetscReal mx[3] = {e[0], e[2], e[3]};
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, mx, 3, MPIU_REAL, MPIU_MAX, s->comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &e[1], 1, MPIU_REAL, MPIU_SUM, s->comm));
    e[0] = mx[0], e[2] = mx[1], e[3] = mx[2];
  }
  pb->rho_err_max = e[0];
  pb->rho_err_mean = e[1] / PetscMax(pb->nfluid, 1);
  pb->rho_min = -e[2];
  pb->vmax = PetscSqrtReal(e[3]);
  PetscFunctionReturn(0);
}

static PetscErrorCode Step_PBF(SimSolver s, PetscReal dt)
{
  PBF *pb = (PBF *)s->data;
  SimFluid *f = pb->fl;
  const PetscInt dim = f->dim;
  const PetscReal h = dt / pb->substeps;
  PetscReal nbrs = 0;

  PetscFunctionBeginUser;
  for (PetscInt sub = 0; sub < pb->substeps; sub++) {
    DM sw;
    PetscReal *xo;
    PetscBool failed;
    /* predict, carrying the old positions along with the particles through the migration (the own
       particles only: ghosts and neighbours come after the migration) */
    PetscCall(SimFluidGatherOwn(f));
    PetscCall(SimParticlesGetSwarm(s->problem, &sw));
    PetscCall(DMSwarmGetField(sw, "x_old", NULL, NULL, (void **)&xo));
    for (PetscInt q = 0; q < f->nf; q++) {
      const PetscInt i = f->fluid[q];
      for (PetscInt d = 0; d < dim; d++) {
        xo[dim * i + d] = f->x[dim * i + d];
        f->v[dim * i + d] += h * pb->gravity[d];
        f->x[dim * i + d] += h * f->v[dim * i + d];
      }
    }
    PetscCall(DMSwarmRestoreField(sw, "x_old", NULL, NULL, (void **)&xo));
    PetscCall(SimFluidCheckInBox(f, &failed, s->stats.reason, sizeof(s->stats.reason)));
    if (failed) {
      s->stats.outcome = SIM_STEP_FAILED;
      PetscCall(SimStrAppend(s->stats.reason, " (lower -dt or raise -pbf_substeps)", sizeof(s->stats.reason)));
      PetscFunctionReturn(0);
    }
    PetscCall(SimFluidScatter(f));
    PetscCall(SimFluidGather(f));
    PetscCall(SimFluidEnsure(f, 1, &pb->caprho, &pb->rho));
    PetscCall(SimFluidEnsure(f, 1, &pb->caplambda, &pb->lambda));
    PetscCall(SimFluidEnsure(f, dim, &pb->capdx, &pb->dx));
    PetscCall(SimFluidEnsure(f, 3, &pb->capw, &pb->w));
    PetscCall(SimFluidEnsure(f, 3, &pb->capgs, &pb->gs));
    PetscCall(SimFluidEnsure(f, 1, &pb->caps2, &pb->s2));
    PetscCall(EnsurePairs(pb));
    PetscCall(Masses(pb));
    for (PetscInt it = 0; it < pb->iterations; it++) {
      PetscCall(Lambdas(s));
      PetscCall(Correct(s));
    }
    PetscCall(EnsurePairs(pb));
    /* the density at the final positions, the pairs' W and g kept for the velocity passes */
    SIM_FLUID_PAIR_DISPATCH(f, DensityPairsDim, pb, PETSC_FALSE);
    /* v = (x* - x) / h */
    PetscCall(DMSwarmGetField(sw, "x_old", NULL, NULL, (void **)&xo));
    for (PetscInt q = 0; q < f->nf; q++) {
      const PetscInt i = f->fluid[q];
      for (PetscInt d = 0; d < dim; d++) f->v[dim * i + d] = (f->x[dim * i + d] - xo[dim * i + d]) / h;
    }
    PetscCall(DMSwarmRestoreField(sw, "x_old", NULL, NULL, (void **)&xo));
    PetscCall(Velocities(s, h));
    { /* neighbours per fluid particle: a half list's pair of own fluid particles counts for both */
      const PetscInt ne = f->nf ? f->list.offset[f->nf] : 0;
      PetscInt own = 0;
      for (PetscInt k = 0; k < ne; k++) own += f->list.index[k] < f->n && !f->bnd[f->list.index[k]];
      nbrs += f->nf ? (PetscReal)(ne + own) / f->nf : 0;
    }
    PetscCall(SimFluidCheckInBox(f, &failed, s->stats.reason, sizeof(s->stats.reason)));
    if (failed) {
      s->stats.outcome = SIM_STEP_FAILED;
      PetscCall(SimStrAppend(s->stats.reason, " (lower -dt or raise -pbf_substeps)", sizeof(s->stats.reason)));
      PetscFunctionReturn(0);
    }
    PetscCall(StoreFields(s));
    PetscCall(SimFluidScatter(f));
  }
  pb->avg_neighbors = nbrs / pb->substeps;
  s->stats.outcome = SIM_STEP_OK;
  s->stats.substeps = pb->substeps;
  s->stats.nonlinear_its = pb->iterations * pb->substeps;
  PetscFunctionReturn(0);
}

static PetscErrorCode Figures_PBF(SimSolver s, PetscInt *n, const char *names[], PetscReal values[])
{
  PBF *pb = (PBF *)s->data;

  PetscFunctionBeginUser;
  *n = 0;
  names[*n] = "density_error_max", values[(*n)++] = pb->rho_err_max;
  names[*n] = "density_error_mean", values[(*n)++] = pb->rho_err_mean;
  names[*n] = "density_min", values[(*n)++] = pb->rho_min;
  names[*n] = "max_speed", values[(*n)++] = pb->vmax;
  names[*n] = "neighbors", values[(*n)++] = pb->avg_neighbors;
  PetscFunctionReturn(0);
}

static PetscErrorCode View_PBF(SimSolver s, PetscViewer viewer)
{
  PBF *pb = (PBF *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "%s kernel, support %g m (%g spacings), rho0 %g, %" PetscInt_FMT " substeps x %" PetscInt_FMT
                                   " iterations, eps %g, s_corr k %g dq %g n %g, xsph %g, vorticity %g; %" PetscInt_FMT " fluid + %" PetscInt_FMT
                                   " boundary particles\n",
                                   pb->kernel, (double)(pb->support * pb->spacing), (double)pb->support, (double)pb->rho0, pb->substeps, pb->iterations,
                                   (double)pb->eps, (double)pb->k_corr, (double)pb->dq, (double)pb->n_corr, (double)pb->xsph, (double)pb->vorticity,
                                   pb->nfluid, pb->nboundary));
  PetscFunctionReturn(0);
}

static PetscErrorCode Save_PBF(SimSolver s, PetscViewer viewer)
{
  PBF *pb = (PBF *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryWrite(viewer, &pb->rho0, 1, PETSC_REAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_PBF(SimSolver s, PetscViewer viewer)
{
  PBF *pb = (PBF *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryRead(viewer, &pb->rho0, 1, NULL, PETSC_REAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_PBF(SimSolver s)
{
  PBF *pb = (PBF *)s->data;

  PetscFunctionBeginUser;
  PetscCall(SimFluidDestroy(&pb->fl));
  PetscCall(PetscFree(pb->rho));
  PetscCall(PetscFree(pb->lambda));
  PetscCall(PetscFree(pb->dx));
  PetscCall(PetscFree(pb->w));
  PetscCall(PetscFree(pb->gs));
  PetscCall(PetscFree(pb->s2));
  PetscCall(PetscFree(pb->pw));
  PetscCall(PetscFree(pb->pg));
  PetscCall(PetscFree(pb->mb));
  PetscCall(PetscFree(pb->mir));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_PBF(SimSolver s)
{
  static const SimSolverOps ops = {.setfromoptions = SetFromOptions_PBF,
                                   .setup = SetUp_PBF,
                                   .step = Step_PBF,
                                   .view = View_PBF,
                                   .destroy = Destroy_PBF,
                                   .figures = Figures_PBF,
                                   .save = Save_PBF,
                                   .load = Load_PBF};
  PBF *pb;
  SimParticlesInfo in;

  PetscFunctionBeginUser;
  PetscCall(SimParticlesGetInfo(s->problem, &in));
  PetscCall(SimParticlesRegisterField(s->problem, "density", 1));
  PetscCall(SimParticlesRegisterField(s->problem, "x_old", in.dim));
  PetscCall(PetscNew(&pb));
  PetscCall(PetscStrncpy(pb->kernel, "cubic", sizeof(pb->kernel)));
  pb->support = 2;
  pb->iterations = 4;
  pb->substeps = 1;
  pb->eps = 1e-4;
  pb->k_corr = 0.1;
  pb->dq = 0.2;
  pb->n_corr = 4;
  pb->xsph = 0.01;
  pb->vorticity = 0;
  s->data = pb;
  s->ops = ops;
  PetscFunctionReturn(0);
}
