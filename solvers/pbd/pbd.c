/* Position-based dynamics (Müller et al. 2007) and XPBD (Macklin et al. 2016) with substeps
 * (Macklin et al. 2019) on the mesh problem. The constraints are the energy terms' own
 * projective-dynamics form (energy.h, pd_* ops), so springs, bending, triangle strain, ARAP tets,
 * attachments and colliders run without a second copy of their data. docs/pbd.md.
 *
 * A term's constraint c (stencil x_c, nvert vertices; A_c nrows x nvert; weight w_c; projection
 * p_c(x)) is the nrows x 3 block of scalar constraints
 *   C_c(x) = A_c x_c - p_c,   grad C_c = A_c (x, y, z alike),   compliance alpha_c = 1/w_c,
 * with p_c taken at the positions the projection sees (Gauss-Seidel: the current ones). Since p_c is
 * the closest point of the constraint manifold, w_c/2 |C_c|^2 is the term's energy and its gradient
 * w_c A_c^T C_c is the term's gradient (the derivative of p_c drops out), so a converged XPBD step
 * (alpha~ lambda_c + C_c = 0, M (x - x~) = sum A_c^T lambda_c) is exactly a converged implicit Euler
 * step on the same energy. PBD sets alpha = 0: every constraint is projected onto its manifold. */
#include <stdint.h>
#include "solvers/pbd/pbd_impl.h"
#include "framework/linalg/svd3.h"
#include "problems/mesh/mesh.h"

#define PBD_MAX_ROWS 3
#define PBD_MAX_VERT 12
#define PBD_COLOR_WORDS 4 /* at most 64 * 4 colours per term */

/* The constraints of one energy term, with the solver's data for them. */
/* The per-constraint arrays below `order` are stored in colour order (slot q holds constraint
 * order[q]), so that a sweep reads them front to back. */
typedef struct {
  SimEnergy term;
  PetscInt nc, nvert, nrows;
  PetscInt *vert;      /* nc*nvert (the term's pd_stencil, the term's order) */
  PetscInt ncolor;     /* Gauss-Seidel order: constraints of colour k are order[off[k] .. off[k+1]) */
  PetscInt *color_off, *order;
  PetscInt *sv;        /* nc*nvert: the stencils in colour order, as offsets 3 v into x */
  PetscReal *A, *w;    /* nc*nrows*nvert, nc: in colour order */
  PetscReal *WA;       /* nc*nrows*nvert: A with each column scaled by its vertex's 1/m (colour order) */
  PetscReal *p;        /* nc*nrows*3: projections (in colour order when the term projects some, else the term's order) */
  PetscReal *lambda;   /* nc*nrows*3: XPBD multipliers of the current substep (colour order) */
  PetscReal *Sinv;     /* nc*nrows*nrows: (A W A^T + alpha~ I)^+ for the current substep length (colour order) */
  PetscReal *at;       /* nc: alpha~ = 1/(w h^2) for the current substep length (XPBD; 0 for PBD; colour order) */
  PetscReal *jscale;   /* nc: Jacobi scale omega / (largest constraint count of the stencil's vertices) (colour order) */
  PetscReal stiffness; /* PBD: k in [0, 1] (Müller et al. 2007, Sec. 3.3) */
  PetscBool cons;      /* a nonlinear scalar constraint term (energy.h cons_*): nrows = 1, A unused */
  PetscReal *C, *G;    /* cons: nc values and 3 nvert nc gradients of the constraints (colour order) */
} PBDBlock;

typedef struct {
  PetscBool xpbd;      /* compliance (XPBD) or none (PBD) */
  PetscInt iterations, substeps;
  PetscInt method;     /* 0: Gauss-Seidel in colour order, 1: Jacobi */
  PetscReal omega;     /* Jacobi relaxation */
  PetscReal stiffness; /* PBD default stiffness of every term */
  PetscInt nblocks, nlinear;
  PBDBlock block[SIM_MAX_TERMS];
  SimEnergy linear[SIM_MAX_TERMS];
  PetscReal *invm;     /* nv: 1/m, 0 for pinned vertices */
  PetscReal *fext;     /* 3nv: force of the linear terms (gravity) */
  PetscReal *xprev;    /* 3nv: positions at the start of the substep */
  PetscReal *dx;       /* 3nv: Jacobi accumulator */
  PetscReal hcache;    /* the substep length Sinv was built for */
  PetscReal residual;  /* |alpha~ lambda + C| over the last sweep */
  PetscInt ncolors;    /* sum over the terms */
} PBD;

static const char *const methods[] = {"gauss_seidel", "jacobi"};

static PetscErrorCode SetFromOptions_PBD(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  PBD *d = (PBD *)s->data;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, d->xpbd ? "XPBD (Macklin et al. 2016), -solver xpbd" : "PBD (Müller et al. 2007), -solver pbd");
  PetscCall(PetscOptionsInt("-pbd_iterations", "constraint sweeps per substep (>= 1)", "", d->iterations, &d->iterations, NULL));
  PetscCall(PetscOptionsInt("-pbd_substeps", "substeps per time step (Macklin et al. 2019, >= 1)", "", d->substeps, &d->substeps, NULL));
  PetscCall(PetscOptionsEList("-pbd_method", "constraint sweep: gauss_seidel (in colour order) or jacobi (averaged, -pbd_omega)", "", methods, 2,
                              methods[d->method], &d->method, NULL));
  PetscCall(PetscOptionsReal("-pbd_omega", "Jacobi over-relaxation omega in (0, 2)", "", d->omega, &d->omega, NULL));
  if (!d->xpbd)
    PetscCall(PetscOptionsReal("-pbd_stiffness", "stiffness k in [0, 1] of every term (-pbd_<term>_stiffness for one term)", "",
                               d->stiffness, &d->stiffness, NULL));
  PetscOptionsHeadEnd();
  PetscCheck(d->iterations >= 1 && d->iterations <= 1000000, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-pbd_iterations %" PetscInt_FMT " is out of range: must be in [1, 1e6]", d->iterations);
  PetscCheck(d->substeps >= 1 && d->substeps <= 1000000, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-pbd_substeps %" PetscInt_FMT " is out of range: must be in [1, 1e6]", d->substeps);
  PetscCheck(d->omega > 0 && d->omega < 2, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-pbd_omega %g is out of range: must be in (0, 2)", (double)d->omega);
  PetscCheck(d->stiffness >= 0 && d->stiffness <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-pbd_stiffness %g is out of range: must be in [0, 1]",
             (double)d->stiffness);
  PetscFunctionReturn(0);
}

/* Greedy colouring of a term's constraints: two constraints that share a free vertex get different
 * colours, so the constraints of one colour can be projected in any order (or in parallel) and a
 * Gauss-Seidel sweep is a sweep over the colours. Pinned vertices do not move and create no conflict. */
static PetscErrorCode Colour(SimSolver s, PBDBlock *b, const PetscReal *invm, PetscInt nv)
{
  PetscInt *color, *count;
  uint64_t (*used)[PBD_COLOR_WORDS];

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc2(nv, &used, b->nc, &color));
  b->ncolor = 0;
  for (PetscInt c = 0; c < b->nc; c++) {
    uint64_t taken[PBD_COLOR_WORDS] = {0};
    PetscInt k = 0;
    for (PetscInt a = 0; a < b->nvert; a++) {
      PetscInt v = b->vert[c * b->nvert + a];
      if (invm[v] > 0)
        for (int q = 0; q < PBD_COLOR_WORDS; q++) taken[q] |= used[v][q];
    }
    while (k < 64 * PBD_COLOR_WORDS && (taken[k / 64] >> (k % 64) & 1)) k++;
    PetscCheck(k < 64 * PBD_COLOR_WORDS, s->comm, PETSC_ERR_SUP, "%s: term '%s' needs more than %d colours (a vertex in too many constraints)",
               s->type, b->term->name, 64 * PBD_COLOR_WORDS);
    color[c] = k;
    b->ncolor = PetscMax(b->ncolor, k + 1);
    for (PetscInt a = 0; a < b->nvert; a++) {
      PetscInt v = b->vert[c * b->nvert + a];
      if (invm[v] > 0) used[v][k / 64] |= (uint64_t)1 << (k % 64);
    }
  }
  /* counting sort by colour */
  PetscCall(PetscCalloc1(b->ncolor + 1, &b->color_off));
  PetscCall(PetscMalloc1(b->nc, &b->order));
  PetscCall(PetscCalloc1(b->ncolor + 1, &count));
  for (PetscInt c = 0; c < b->nc; c++) b->color_off[color[c] + 1]++;
  for (PetscInt k = 0; k < b->ncolor; k++) b->color_off[k + 1] += b->color_off[k];
  for (PetscInt c = 0; c < b->nc; c++) b->order[b->color_off[color[c]] + count[color[c]]++] = c;
  PetscCall(PetscFree(count));
  PetscCall(PetscFree2(used, color));
  PetscFunctionReturn(0);
}

/* Gathers the constraints of every term; refuses, by name, terms without a constraint form. */
static PetscErrorCode Setup_PBD(SimSolver s)
{
  PBD *d = (PBD *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscScalar *mass;
  PetscInt *count;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(m->nv, &d->invm, 3 * m->nv, &d->fext, 3 * m->nv, &d->xprev, 3 * m->nv, &d->dx));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  for (PetscInt i = 0; i < m->nv; i++) d->invm[i] = m->pinned[i] ? 0 : 1.0 / mass[3 * i];
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  for (PetscInt t = 0; t < m->nterms; t++) {
    SimEnergy e = m->term[t];
    PetscInt nc, nvert, nrows;
    const PetscBool cons = e->ops.cons_count ? PETSC_TRUE : PETSC_FALSE;
    PetscCheck(e->kind == SIM_ENERGY_POTENTIAL && (e->ops.pd_count || cons), s->comm, PETSC_ERR_SUP,
               "%s: energy term '%s' has no constraint form (%s); %s runs springs, bending, triangles, gravity, attachments, "
               "plane/sphere colliders, tet volume and FEM with the arap material. Remove the term or use -solver implicit_euler",
               s->type, e->name, e->kind == SIM_ENERGY_DISSIPATION ? "damping is not supported" : "no pd_count or cons_count op", s->type);
    if (cons) {
      PetscCall(e->ops.cons_count(e, &nc, &nvert));
      nrows = 1;
      if (nc == 0) continue;
      PetscCheck(e->ops.cons_stencil && e->ops.cons_eval, s->comm, PETSC_ERR_SUP, "%s: energy term '%s' has cons_count but no cons_stencil/cons_eval",
                 s->type, e->name);
    } else {
      PetscCall(e->ops.pd_count(e, &nc, &nvert, &nrows));
      if (nc == 0) {
        d->linear[d->nlinear++] = e;
        continue;
      }
    }
    PetscCheck((cons || (e->ops.pd_stencil && e->ops.pd_project)) && nvert > 0 && nvert <= PBD_MAX_VERT && nrows > 0 && nrows <= PBD_MAX_ROWS,
               s->comm, PETSC_ERR_SUP,
               "%s: energy term '%s' has constraints of %" PetscInt_FMT " rows on %" PetscInt_FMT " vertices; %s takes 1 to %d rows on 1 to %d vertices",
               s->type, e->name, nrows, nvert, s->type, PBD_MAX_ROWS, PBD_MAX_VERT);
    {
      PBDBlock *b = &d->block[d->nblocks++];
      char opt[128];
      b->term = e, b->nc = nc, b->nvert = nvert, b->nrows = nrows, b->cons = cons;
      PetscReal *A, *w;
      PetscCall(PetscMalloc4(nc * nvert, &b->vert, nc * nrows * nvert, &b->A, nc, &b->w, 3 * nc * nrows, &b->p));
      PetscCall(PetscMalloc4(3 * nc * nrows, &b->lambda, nc * nrows * nrows, &b->Sinv, nc, &b->jscale, nc, &b->at));
      PetscCall(PetscMalloc2(nc * nvert, &b->sv, nc * nrows * nvert, &b->WA));
      PetscCall(PetscMalloc2(nc * nrows * nvert, &A, nc, &w));
      if (cons) {
        PetscCall(e->ops.cons_stencil(e, b->vert, w));
        PetscCall(PetscArrayzero(A, nc * nvert));
        PetscCall(PetscMalloc2(nc, &b->C, 3 * nc * nvert, &b->G));
      } else PetscCall(e->ops.pd_stencil(e, b->vert, A, w));
      for (PetscInt c = 0; c < nc; c++)
        PetscCheck(w[c] >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: term '%s', constraint %" PetscInt_FMT ": weight %g < 0", s->type, e->name,
                   c, (double)w[c]);
      PetscCall(Colour(s, b, d->invm, m->nv));
      /* the stencils, matrices and weights in colour order; W A */
      for (PetscInt q = 0; q < nc; q++) {
        const PetscInt c = b->order[q];
        b->w[q] = w[c];
        for (PetscInt a = 0; a < nvert; a++) b->sv[q * nvert + a] = 3 * b->vert[c * nvert + a];
        for (PetscInt r = 0; r < nrows * nvert; r++) {
          b->A[q * nrows * nvert + r] = A[c * nrows * nvert + r];
          b->WA[q * nrows * nvert + r] = A[c * nrows * nvert + r] * d->invm[b->vert[c * nvert + r % nvert]];
        }
      }
      PetscCall(PetscFree2(A, w));
      d->ncolors += b->ncolor;
      b->stiffness = d->stiffness;
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-pbd_%s_stiffness", e->name));
      if (!d->xpbd) PetscCall(PetscOptionsGetReal(NULL, NULL, opt, &b->stiffness, NULL));
      PetscCheck(b->stiffness >= 0 && b->stiffness <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g is out of range: must be in [0, 1]", opt,
                 (double)b->stiffness);
    }
  }
  /* Jacobi: a constraint's correction is scaled by omega over the largest number of constraints
   * that share one of its free vertices (Macklin et al. 2014 average per vertex; one scale per
   * constraint keeps XPBD's multiplier equal to the displacement it caused) */
  PetscCall(PetscCalloc1(m->nv, &count));
  for (PetscInt k = 0; k < d->nblocks; k++)
    for (PetscInt i = 0; i < d->block[k].nc * d->block[k].nvert; i++) count[d->block[k].vert[i]]++;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    PBDBlock *b = &d->block[k];
    for (PetscInt q = 0; q < b->nc; q++) {
      PetscInt cmax = 1;
      for (PetscInt a = 0; a < b->nvert; a++)
        if (d->invm[b->sv[q * b->nvert + a] / 3] > 0) cmax = PetscMax(cmax, count[b->sv[q * b->nvert + a] / 3]);
      b->jscale[q] = d->omega / cmax;
    }
  }
  PetscCall(PetscFree(count));
  PetscFunctionReturn(0);
}

/* Sinv_c = (A W A^T + alpha~ I)^+, the block's "effective inverse mass" (Macklin et al. 2016 eq. 18
 * for nrows = 1), for a substep h: alpha~ = 1/(w h^2) (XPBD) or 0 (PBD). The pseudo-inverse (through
 * the eigenvalues) gives the minimum-norm correction when pins leave the block rank-deficient; a
 * constraint with w = 0 or only pinned vertices gets 0 and never moves anything. */
static PetscErrorCode BuildSinv(PBD *d, PetscReal h)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    PBDBlock *b = &d->block[k];
    const PetscInt nv = b->nvert, nr = b->nrows;
    for (PetscInt c = 0; c < b->nc; c++) {
      const PetscReal *Ac = b->A + c * nr * nv, *WAc = b->WA + c * nr * nv;
      const PetscReal at = (d->xpbd && b->w[c] > 0) ? 1.0 / (b->w[c] * h * h) : 0;
      PetscReal S[9] = {0}, lam[3], Q[9], tol, *Si = b->Sinv + c * nr * nr;
      b->at[c] = at;
      for (PetscInt r = 0; r < nr * nr; r++) Si[r] = 0;
      if (b->w[c] == 0) continue;
      for (PetscInt r = 0; r < nr; r++)
        for (PetscInt q = 0; q < nr; q++) {
          PetscReal sum = r == q ? at : 0;
          for (PetscInt a = 0; a < nv; a++) sum += Ac[r * nv + a] * WAc[q * nv + a];
          S[3 * r + q] = sum;
        }
      if (nr == 1) {
        if (S[0] > 0) Si[0] = 1.0 / S[0];
        continue;
      }
      PetscCall(SimSymEig3(S, lam, Q));
      tol = 1e-12 * PetscMax(PetscMax(PetscAbsReal(lam[0]), PetscAbsReal(lam[1])), PetscAbsReal(lam[2]));
      for (PetscInt r = 0; r < nr; r++)
        for (PetscInt q = 0; q < nr; q++)
          for (int e = 0; e < 3; e++)
            if (lam[e] > tol) Si[r * nr + q] += Q[3 * r + e] * Q[3 * q + e] / lam[e];
    }
  }
  d->hcache = h;
  PetscFunctionReturn(0);
}

/* One constraint block's correction (Macklin et al. 2016 eqs. 17-18, per block), slot q:
 *   dlambda = Sinv (-C - alpha~ lambda),   C = A x_c - p   (nr x 3),
 * then lambda += s dlambda and x_a += s invm_a sum_r A_ra dlambda_r (writing into xw, reading x);
 * returns |C + alpha~ lambda|^2. Always inlined with literal nv, nr (see Kernel) so that the loops
 * unroll for the common stencils; the per-constraint data are read front to back. */
static inline __attribute__((always_inline)) PetscReal Update(const PetscInt *restrict vc, const PetscReal *restrict Ac, const PetscReal *restrict WAc,
                                                              const PetscReal *restrict Si, PetscReal at, PetscReal *restrict lam, const PetscReal *restrict p,
                                                              PetscReal s, PetscBool first, PetscBool wres, const PetscReal *x, PetscReal *xw,
                                                              const PetscInt nv, const PetscInt nr)
{
  PetscReal rhs[3 * PBD_MAX_ROWS], dl[3 * PBD_MAX_ROWS], lm[3 * PBD_MAX_ROWS], res = 0;

  for (PetscInt r = 0; r < 3 * nr; r++) lm[r] = first ? 0 : lam[r]; /* the first sweep of a substep starts from lambda = 0 */
  for (PetscInt r = 0; r < nr; r++) {
    PetscReal C0 = -p[3 * r], C1 = -p[3 * r + 1], C2 = -p[3 * r + 2];
    for (PetscInt a = 0; a < nv; a++) {
      const PetscReal *xa = x + vc[a], A = Ac[r * nv + a];
      C0 += A * xa[0], C1 += A * xa[1], C2 += A * xa[2];
    }
    rhs[3 * r] = -C0 - at * lm[3 * r], rhs[3 * r + 1] = -C1 - at * lm[3 * r + 1], rhs[3 * r + 2] = -C2 - at * lm[3 * r + 2];
    if (wres) res += rhs[3 * r] * rhs[3 * r] + rhs[3 * r + 1] * rhs[3 * r + 1] + rhs[3 * r + 2] * rhs[3 * r + 2];
  }
  for (PetscInt r = 0; r < nr; r++)
    for (int k = 0; k < 3; k++) {
      PetscReal sum = 0;
      for (PetscInt q = 0; q < nr; q++) sum += Si[r * nr + q] * rhs[3 * q + k];
      dl[3 * r + k] = s * sum;
      lam[3 * r + k] = lm[3 * r + k] + dl[3 * r + k];
    }
  for (PetscInt a = 0; a < nv; a++) {
    PetscReal *xa = xw + vc[a], d0 = 0, d1 = 0, d2 = 0;
    for (PetscInt r = 0; r < nr; r++) {
      const PetscReal W = WAc[r * nv + a];
      d0 += W * dl[3 * r], d1 += W * dl[3 * r + 1], d2 += W * dl[3 * r + 2];
    }
    xa[0] += d0, xa[1] += d1, xa[2] += d2;
  }
  return res;
}

/* The constraints in slots lo .. hi) of a block, Gauss-Seidel (xw = x) or Jacobi (xw = the
 * accumulator, scale jscale), with the stencil's sizes as literals. p holds the projections of the
 * slots (some) or of the constraints in the term's order. */
static inline __attribute__((always_inline)) PetscReal Kernel(const PBDBlock *b, PetscInt lo, PetscInt hi, PetscBool gs, PetscBool some, PetscReal kk,
                                                              PetscBool first, PetscBool wres, const PetscReal *x, PetscReal *xw, const PetscInt nv,
                                                              const PetscInt nr)
{
  const PetscInt *restrict sv = b->sv, *restrict order = b->order;
  const PetscReal *restrict A = b->A, *restrict WA = b->WA, *restrict Sinv = b->Sinv, *restrict at = b->at, *restrict js = b->jscale, *restrict p = b->p;
  PetscReal *restrict lambda = b->lambda, res = 0;

  for (PetscInt q = lo; q < hi; q++)
    res += Update(sv + q * nv, A + q * nr * nv, WA + q * nr * nv, Sinv + q * nr * nr, at[q], lambda + 3 * nr * q, p + 3 * nr * (some ? q : order[q]),
                  gs ? kk : kk * js[q], first, wres, x, xw, nv, nr);
  return res;
}

/* Dispatch on the stencil: springs (2, 1), colliders and attachments (1, 1), triangles (3, 2),
 * bending (4, 1), tets (4, 3); anything else (up to PBD_MAX_VERT vertices) through the general loop.
 * wres: sum the residual (only the last sweep of a step reports it, so the others skip it). */
#define PBD_DISPATCH(WRES) \
  switch (b->nvert * 8 + b->nrows) { \
  case 2 * 8 + 1: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, 2, 1); \
  case 1 * 8 + 1: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, 1, 1); \
  case 3 * 8 + 2: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, 3, 2); \
  case 4 * 8 + 1: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, 4, 1); \
  case 4 * 8 + 3: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, 4, 3); \
  default: return Kernel(b, lo, hi, gs, some, kk, first, WRES, x, xw, b->nvert, b->nrows); \
  }
__attribute__((target_clones("arch=x86-64-v3", "default"))) static PetscReal RunKernel(const PBDBlock *b, PetscInt lo, PetscInt hi, PetscBool gs, PetscBool some,
                                                                                             PetscReal kk, PetscBool first, PetscBool wres, const PetscReal *x,
                                                                                             PetscReal *xw)
{
  if (wres) { PBD_DISPATCH(PETSC_TRUE) }
  else { PBD_DISPATCH(PETSC_FALSE) }
}
#undef PBD_DISPATCH

/* The nonlinear scalar constraints in slots lo .. hi) (Macklin et al. 2016 eq. 18), C and G in the
 * block's slots: dlambda = s (-C - alpha~ lambda) / (sum_a invm_a |grad_a C|^2 + alpha~),
 * x_a += s invm_a grad_a C dlambda (into xw). Returns the summed squared residuals when wres. */
static PetscReal ConsKernel(const PBDBlock *b, PetscInt lo, PetscInt hi, PetscBool gs, PetscReal kk, PetscBool first, PetscBool wres,
                            const PetscReal *invm, PetscReal *xw)
{
  const PetscInt nv = b->nvert;
  PetscReal res = 0;

  for (PetscInt q = lo; q < hi; q++) {
    const PetscInt *vc = b->sv + q * nv;
    const PetscReal *g = b->G + 3 * nv * q, at = b->at[q], lm = first ? 0 : b->lambda[3 * q], rhs = -b->C[q] - at * lm;
    const PetscReal sc = gs ? kk : kk * b->jscale[q];
    PetscReal den = at, dl;
    if (wres) res += rhs * rhs;
    b->lambda[3 * q] = lm;
    if (b->w[q] == 0) continue;
    for (PetscInt a = 0; a < nv; a++) den += invm[vc[a] / 3] * (g[3 * a] * g[3 * a] + g[3 * a + 1] * g[3 * a + 1] + g[3 * a + 2] * g[3 * a + 2]);
    if (!(den > 0)) continue;
    dl = sc * rhs / den;
    b->lambda[3 * q] = lm + dl;
    for (PetscInt a = 0; a < nv; a++) {
      const PetscReal f = invm[vc[a] / 3] * dl;
      xw[vc[a]] += f * g[3 * a], xw[vc[a] + 1] += f * g[3 * a + 1], xw[vc[a] + 2] += f * g[3 * a + 2];
    }
  }
  return res;
}

/* One Gauss-Seidel sweep: term by term, colour by colour, each constraint corrected at the
 * positions its predecessors left. A term with pd_project_some projects one colour at a time;
 * otherwise its projections are taken once at the start of the sweep. */
static PetscErrorCode SweepGaussSeidel(PBD *d, PetscBool first, PetscBool wres, PetscReal *x)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    PBDBlock *b = &d->block[k];
    const PetscInt nr = b->nrows;
    const PetscBool some = b->term->ops.pd_project_some ? PETSC_TRUE : PETSC_FALSE;
    const PetscReal kk = d->xpbd ? 1 : 1 - PetscPowReal(1 - b->stiffness, 1.0 / d->iterations);
    if (b->cons) {
      for (PetscInt col = 0; col < b->ncolor; col++) {
        const PetscInt lo = b->color_off[col], hi = b->color_off[col + 1];
        PetscCall(b->term->ops.cons_eval(b->term, x, hi - lo, b->order + lo, b->C + lo, b->G + 3 * b->nvert * lo));
        d->residual += ConsKernel(b, lo, hi, PETSC_TRUE, kk, first, wres, d->invm, x);
      }
      continue;
    }
    if (!some) PetscCall(b->term->ops.pd_project(b->term, x, b->p));
    for (PetscInt col = 0; col < b->ncolor; col++) {
      const PetscInt lo = b->color_off[col], hi = b->color_off[col + 1];
      if (some) PetscCall(b->term->ops.pd_project_some(b->term, x, hi - lo, b->order + lo, b->p + 3 * nr * lo));
      d->residual += RunKernel(b, lo, hi, PETSC_TRUE, some, kk, first, wres, x, x);
    }
  }
  PetscFunctionReturn(0);
}

/* One Jacobi sweep: every correction from the sweep's starting positions, summed, each scaled by
 * jscale (omega over the largest vertex count of its stencil). */
static PetscErrorCode SweepJacobi(PBD *d, PetscBool first, PetscBool wres, PetscInt n, PetscReal *x)
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(d->dx, n));
  for (PetscInt k = 0; k < d->nblocks; k++) {
    PBDBlock *b = &d->block[k];
    const PetscReal kk = d->xpbd ? 1 : 1 - PetscPowReal(1 - b->stiffness, 1.0 / d->iterations);
    if (b->cons) {
      PetscCall(b->term->ops.cons_eval(b->term, x, b->nc, b->order, b->C, b->G));
      d->residual += ConsKernel(b, 0, b->nc, PETSC_FALSE, kk, first, wres, d->invm, d->dx);
      continue;
    }
    PetscCall(b->term->ops.pd_project(b->term, x, b->p));
    d->residual += RunKernel(b, 0, b->nc, PETSC_FALSE, PETSC_FALSE, kk, first, wres, x, d->dx);
  }
  for (PetscInt i = 0; i < n; i++) x[i] += d->dx[i];
  PetscFunctionReturn(0);
}

/* Small steps (Macklin et al. 2019): per substep of length h = dt / substeps,
 *   v += h M^-1 f_ext;  x~ = x + h v;  lambda = 0;  iterations sweeps from x~;  v = (x - x_prev) / h.
 * (lambda = 0 is the first sweep's: it reads no multiplier and writes each one.) */
static PetscErrorCode Step_PBD(SimSolver s, PetscReal dt)
{
  PBD *d = (PBD *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscInt n = 3 * m->nv;
  const PetscReal h = dt / d->substeps, hinv = d->substeps / dt;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  if (h != d->hcache) PetscCall(BuildSinv(d, h));
  PetscCall(VecGetArray(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  PetscCall(PetscLogEventBegin(s->ev.force, 0, 0, 0, 0));
  PetscCall(PetscArrayzero(d->fext, n));
  for (PetscInt l = 0; l < d->nlinear; l++) PetscCall(d->linear[l]->ops.gradient(d->linear[l], x, v, d->fext));
  PetscCall(PetscLogEventEnd(s->ev.force, 0, 0, 0, 0));
  for (PetscInt sub = 0; sub < d->substeps; sub++) {
    for (PetscInt i = 0; i < m->nv; i++)
      for (int k = 0; k < 3; k++) {
        const PetscInt j = 3 * i + k;
        v[j] -= h * d->invm[i] * d->fext[j]; /* f_ext = -dE/dx of the linear terms */
        d->xprev[j] = x[j];
        x[j] += h * v[j];
      }
    PetscCall(PetscLogEventBegin(s->ev.solve, 0, 0, 0, 0));
    for (PetscInt it = 0; it < d->iterations; it++) {
      const PetscBool wres = (PetscBool)(sub == d->substeps - 1 && it == d->iterations - 1); /* the step reports its last sweep's */
      d->residual = 0;
      if (d->method == 0) PetscCall(SweepGaussSeidel(d, (PetscBool)(it == 0), wres, x));
      else PetscCall(SweepJacobi(d, (PetscBool)(it == 0), wres, n, x));
    }
    PetscCall(PetscLogEventEnd(s->ev.solve, 0, 0, 0, 0));
    for (PetscInt i = 0; i < m->nv; i++)
      if (d->invm[i] > 0)
        for (int k = 0; k < 3; k++) v[3 * i + k] = (x[3 * i + k] - d->xprev[3 * i + k]) * hinv;
  }
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArray(m->x, &x));
  s->stats.outcome = SIM_STEP_OK;
  s->stats.nonlinear_its = d->substeps * d->iterations;
  s->stats.residual = PetscSqrtReal(d->residual);
  s->stats.nhistory = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode Figures_PBD(SimSolver s, PetscInt *n, const char *names[], PetscReal values[])
{
  PBD *d = (PBD *)s->data;

  PetscFunctionBeginUser;
  names[0] = "constraint_residual", values[0] = PetscSqrtReal(d->residual);
  names[1] = "colors", values[1] = (PetscReal)d->ncolors;
  *n = 2;
  PetscFunctionReturn(0);
}

static PetscErrorCode View_PBD(SimSolver s, PetscViewer viewer)
{
  PBD *d = (PBD *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s: %" PetscInt_FMT " substeps x %" PetscInt_FMT " %s sweeps;", s->type, d->substeps, d->iterations,
                                   methods[d->method]));
  for (PetscInt k = 0; k < d->nblocks; k++)
    PetscCall(PetscViewerASCIIPrintf(viewer, " %s: %" PetscInt_FMT " constraints in %" PetscInt_FMT " colours;", d->block[k].term->name,
                                     d->block[k].nc, d->block[k].ncolor));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_PBD(SimSolver s)
{
  PBD *d = (PBD *)s->data;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    PBDBlock *b = &d->block[k];
    PetscCall(PetscFree4(b->vert, b->A, b->w, b->p));
    PetscCall(PetscFree4(b->lambda, b->Sinv, b->jscale, b->at));
    PetscCall(PetscFree2(b->sv, b->WA));
    PetscCall(PetscFree2(b->C, b->G));
    PetscCall(PetscFree(b->color_off));
    PetscCall(PetscFree(b->order));
  }
  PetscCall(PetscFree4(d->invm, d->fext, d->xprev, d->dx));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPBDGetColouring(SimSolver s, PetscInt k, const char **term, PetscInt *ncolor, const PetscInt **off, const PetscInt **order,
                                  PetscInt *nvert, const PetscInt **vert)
{
  PBD *d = (PBD *)s->data;

  PetscFunctionBeginUser;
  PetscCheck(s->ops.step == Step_PBD, s->comm, PETSC_ERR_ARG_WRONG, "SimPBDGetColouring: solver '%s' is not pbd or xpbd", s->type);
  PetscCall(SimSolverSetUp(s));
  PetscCheck(k >= 0 && k < d->nblocks, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "SimPBDGetColouring: term %" PetscInt_FMT " of %" PetscInt_FMT, k,
             d->nblocks);
  *term = d->block[k].term->name, *ncolor = d->block[k].ncolor, *off = d->block[k].color_off, *order = d->block[k].order;
  *nvert = d->block[k].nvert, *vert = d->block[k].vert;
  PetscFunctionReturn(0);
}

static PetscErrorCode Create(SimSolver s, PetscBool xpbd)
{
  PBD *d;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  d->xpbd = xpbd;
  d->iterations = xpbd ? 1 : 4;
  d->substeps = xpbd ? 10 : 1;
  d->omega = 1;
  d->stiffness = 1;
  s->data = d;
  s->ops.setfromoptions = SetFromOptions_PBD;
  s->ops.setup = Setup_PBD;
  s->ops.step = Step_PBD;
  s->ops.figures = Figures_PBD;
  s->ops.view = View_PBD;
  s->ops.destroy = Destroy_PBD;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_PBD(SimSolver s)
{
  return Create(s, PETSC_FALSE);
}
PetscErrorCode SimSolverCreate_XPBD(SimSolver s)
{
  return Create(s, PETSC_TRUE);
}
