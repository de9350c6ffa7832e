/* Projective dynamics (Bouaziz et al. 2014): implicit Euler by local projections and one
 * prefactorized CHOLMOD solve with three right-hand sides per iteration. */
#include <cholmod.h>
#include "solvers/pd/pd_impl.h"
#include "solvers/pd/anderson.h"
#include "framework/newton/newton.h"

/* The constraints of one energy term (energy.h, pd_* ops): nc constraints on stencils of nvert
 * vertices with nrows rows each; p is the term's local-step output. */
typedef struct {
  SimEnergy term;
  PetscInt nc, nvert, nrows;
  PetscInt *vert; /* nc*nvert */
  PetscReal *A;   /* nc*nrows*nvert */
  PetscReal *w;   /* nc */
  PetscReal *p;   /* nc*nrows*3 */
  /* terms with a changing constraint set (pd_active, e.g. colliders): the current set and the one
   * the factor was built for; NULL for terms whose constraints are always active */
  PetscBool *active, *active_fact;
  /* -pd_contact_release: constraints released this step (at most once each), and the set at x */
  PetscBool *released, *now;
  /* set with the factor: fvert[c*nvert + a] = the free index of the stencil's vertex a (-1: pinned),
   * and whether constraint c touches a pinned vertex (its right-hand side then moves their columns) */
  PetscInt *fvert;
  PetscBool *touch_pinned;
  /* -pd_contact normal: the term acts along the solver's contact normal only (pd_direction); its
   * constraints are then in the normal coordinate's matrix only (Factor_PD, RhsNormal_PD) */
  PetscBool dir;
} PDBlock;

typedef struct {
  /* options */
  PetscInt max_it;
  PetscReal rtol;
  PetscBool monitor;
  PetscBool reference; /* -pd_reference_newton: solve each step by Newton too, for the gap */
  PetscBool chebyshev;
  PetscReal rho, gamma;
  PetscInt cheb_delay;
  PetscInt anderson_m; /* -pd_anderson: history size (0: off) */
  SimAnderson aa;      /* its history (anderson.c), allocated at setup when on */
  PetscInt naa_reject; /* accelerated iterates refused by the energy safeguard, since creation */
  /* constraints and linear terms, gathered at setup */
  PetscInt nblocks, nlinear;
  PDBlock block[SIM_MAX_TERMS];
  SimEnergy linear[SIM_MAX_TERMS];
  /* unknowns: the free (unpinned) vertices, numbered 0..nfree-1; fidx[v] = -1 for pinned v */
  PetscInt nfree;
  PetscInt *fidx;
  PetscBool *pinned_fact; /* the pins the factor was built for */
  PetscReal hfact;        /* the step the factor was built for (0: none yet) */
  PetscInt nfactor;
  PetscInt nsetchange; /* factorizations caused by a change of the active constraint set */
  SimNewton newton;    /* the reference minimizer (-pd_reference_newton) */
  Vec xref;
  /* the step's series (SimSolverGetSeries): wall time of the solve up to each iteration (excluding
   * the monitor's evaluations), and Newton's minimum Phi* of the step's objective */
  PetscReal elapsed_ms[SIM_MAX_HISTORY];
  PetscInt nelapsed;
  PetscReal reference_objective;
  PetscBool has_reference;
  /* CHOLMOD: the factor of L = M/h^2 + sum w A^T A (nfree x nfree) and solve workspaces */
  PetscBool cm_started;
  cholmod_common cm;
  cholmod_factor *L;
  cholmod_dense *B, *X, *Y, *E; /* B, X: nfree x 3, column k = coordinate k */
  const double *sol;            /* the global step's solution, nfree x 3 (column k = world coordinate k): X->x or xsplit */
  /* -pd_contact normal (the split frame): the coordinates along the contact normal n = frame[0..2]
   * and two tangents frame[3..5], frame[6..8]. L (above) is the normal coordinate's matrix, with the
   * directional constraints; L0 the tangential ones', without them: factored per step size and pins
   * only, never for a change of the active set. */
  PetscBool contact_normal;  /* the option */
  PetscBool contact_release; /* -pd_contact_release: an active constraint whose vertex lifted off leaves the set, once a step */
  PetscBool split;           /* in use: the option and at least one directional term */
  PetscReal frame[9];
  cholmod_factor *L0;
  cholmod_dense *Bn, *Bt, *Xn, *Xt, *Yn, *Yt, *En, *Et; /* nfree x 1 (normal) and nfree x 2 (tangents) */
  double *xsplit;                                       /* nfree x 3, the solution back in world coordinates */
  /* work, 3*nv each: the minimization's target y, guess x0, previous iterate (Chebyshev), constant
   * right-hand side b0 (free numbering), gradient; the step's own y and iterate */
  PetscReal *y, *x0, *xprev, *b0, *g;
  PetscReal *glin;      /* 3*nv: the linear terms' (constant) gradient, for the surrogate energy */
  PetscReal *gaa, *xaa; /* 3*nv: with -pd_anderson, the plain iterate G(x) and the accelerated one */
  PetscReal *ystep, *xstep;
  PetscReal *mass; /* nv, per vertex */
} PD;

/* Wraps a CHOLMOD status into a PetscErrorCode at the call. */
#define PDCheckCholmod(pd, ok, what)                                                                                             \
  PetscCheck((ok) && (pd)->cm.status >= CHOLMOD_OK, PETSC_COMM_SELF, PETSC_ERR_LIB, "pd: CHOLMOD %s failed (status %d)", what,   \
             (pd)->cm.status)

static PetscErrorCode SetFromOptions_PD(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  PD *pd = (PD *)s->data;
  PetscBool monitor_set;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, "Projective dynamics (Bouaziz et al. 2014), -solver pd");
  PetscCall(
      PetscOptionsInt("-pd_iterations", "maximum local/global iterations per step (>= 1)", "", pd->max_it, &pd->max_it, NULL));
  PetscCall(PetscOptionsReal("-pd_rtol",
                             "stop when ||x_{k+1} - x_k|| <= rtol ||x_{k+1} - x_0|| (x_0: the guess y; 0: always -pd_iterations)",
                             "", pd->rtol, &pd->rtol, NULL));
  PetscCall(PetscOptionsBool("-pd_monitor",
                             "record the incremental potential and its gradient norm per iteration (costs one evaluation; "
                             "default: on with -pd_reference_newton, whose gap needs it, else off)",
                             "", pd->monitor, &pd->monitor, &monitor_set));
  PetscCall(PetscOptionsBool("-pd_reference_newton",
                             "also minimize each step's incremental potential by Newton (framework/newton, options "
                             "-pd_ref_newton_*, tight by default) from the same state and report Phi* for the gap",
                             "", pd->reference, &pd->reference, NULL));
  PetscCall(PetscOptionsBool("-pd_chebyshev", "Chebyshev semi-iterative acceleration (Wang 2015)", "", pd->chebyshev,
                             &pd->chebyshev, NULL));
  PetscCall(
      PetscOptionsReal("-pd_rho", "spectral radius estimate of the plain PD iteration, in (0, 1)", "", pd->rho, &pd->rho, NULL));
  PetscCall(
      PetscOptionsReal("-pd_gamma", "under-relaxation of the Chebyshev update, in (0, 1]", "", pd->gamma, &pd->gamma, NULL));
  PetscCall(PetscOptionsInt("-pd_chebyshev_delay", "plain iterations before Chebyshev starts (>= 1)", "", pd->cheb_delay,
                            &pd->cheb_delay, NULL));
  {
    const char *contact[] = {"isotropic", "normal"};
    PetscInt choice = pd->contact_normal ? 1 : 0;
    PetscCall(
        PetscOptionsEList("-pd_contact",
                          "collider constraints in the global step: isotropic (every coordinate, the original treatment) or "
                          "normal (the plane normal's coordinate only; the tangential ones stay free, as in the energy)",
                          "", contact, 2, contact[choice], &choice, NULL));
    pd->contact_normal = (PetscBool)(choice == 1);
  }
  PetscCall(PetscOptionsBool("-pd_contact_release",
                             "drop an active collider constraint from the set when its vertex has lifted off (at most once per "
                             "vertex and step; refactors); default: kept for the rest of the step",
                             "", pd->contact_release, &pd->contact_release, NULL));
  PetscCall(PetscOptionsInt("-pd_anderson",
                            "Anderson acceleration (Peng et al. 2018) with this many past iterates, in [0, 100]; 0: off. "
                            "An accelerated iterate that raises the energy is replaced by the plain one",
                            "", pd->anderson_m, &pd->anderson_m, NULL));
  PetscOptionsHeadEnd();
  if (!monitor_set) pd->monitor = pd->reference;
  PetscCheck(pd->max_it >= 1 && pd->max_it <= 1000000, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-pd_iterations %" PetscInt_FMT " is out of range: must be in [1, 1e6]", pd->max_it);
  PetscCheck(pd->rtol >= 0 && pd->rtol < 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-pd_rtol %g is out of range: must be in [0, 1)",
             (double)pd->rtol);
  PetscCheck(pd->rho > 0 && pd->rho < 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-pd_rho %g is out of range: must be in (0, 1)",
             (double)pd->rho);
  PetscCheck(pd->gamma > 0 && pd->gamma <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-pd_gamma %g is out of range: must be in (0, 1]", (double)pd->gamma);
  PetscCheck(pd->cheb_delay >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-pd_chebyshev_delay %" PetscInt_FMT " is out of range: must be >= 1", pd->cheb_delay);
  PetscCheck(pd->anderson_m >= 0 && pd->anderson_m <= 100, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-pd_anderson %" PetscInt_FMT " is out of range: must be in [0, 100] (the history size; 0: off)", pd->anderson_m);
  PetscCheck(!(pd->anderson_m > 0 && pd->chebyshev), s->comm, PETSC_ERR_ARG_INCOMP,
             "-pd_anderson and -pd_chebyshev cannot be used together: choose one acceleration");
  PetscFunctionReturn(0);
}

/* -pd_contact normal: every term with a changing constraint set (the colliders) must act along one
 * fixed direction (pd_direction; a plane), the same for all; the frame (n, t1, t2) is built from it.
 * The energy is unchanged, only the global step's matrix: along t1 and t2 these constraints add
 * nothing (x - p is parallel to n), so keeping them out of the tangential matrix is exact, where
 * the isotropic form holds every active vertex at its previous tangential position with the
 * penalty stiffness (a frictionless contact that PD can only let slide by ~M/(h^2 k) per iteration). */
static PetscErrorCode SetupSplit_PD(SimSolver s)
{
  PD *pd = (PD *)s->data;
  PetscReal *n = pd->frame, *t1 = pd->frame + 3, *t2 = pd->frame + 6, a[3] = {0, 0, 0}, len;
  PetscBool have = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < pd->nblocks; q++) {
    PDBlock *b = &pd->block[q];
    PetscReal d[3];
    if (!b->active) continue;
    PetscCheck(b->term->ops.pd_direction, s->comm, PETSC_ERR_SUP,
               "-pd_contact normal: energy term '%s' has a changing constraint set but no fixed direction (a sphere's normal "
               "varies); use -pd_contact isotropic",
               b->term->name);
    PetscCall(b->term->ops.pd_direction(b->term, d));
    if (!have) n[0] = d[0], n[1] = d[1], n[2] = d[2], have = PETSC_TRUE;
    PetscCheck(
        PetscAbsReal(PetscAbsReal(d[0] * n[0] + d[1] * n[1] + d[2] * n[2]) - 1) < 1e-12, s->comm, PETSC_ERR_SUP,
        "-pd_contact normal: energy term '%s' acts along (%g, %g, %g), another along (%g, %g, %g): one direction only; use "
        "-pd_contact isotropic",
        b->term->name, (double)d[0], (double)d[1], (double)d[2], (double)n[0], (double)n[1], (double)n[2]);
    b->dir = PETSC_TRUE;
  }
  pd->split = have;
  if (!have) PetscFunctionReturn(0);
  /* t1 = n x a / |n x a| with a the axis least aligned with n, t2 = n x t1 */
  a[PetscAbsReal(n[0]) <= PetscAbsReal(n[1]) && PetscAbsReal(n[0]) <= PetscAbsReal(n[2]) ? 0
    : PetscAbsReal(n[1]) <= PetscAbsReal(n[2])                                           ? 1
                                                                                         : 2] = 1;
  t1[0] = n[1] * a[2] - n[2] * a[1], t1[1] = n[2] * a[0] - n[0] * a[2], t1[2] = n[0] * a[1] - n[1] * a[0];
  len = PetscSqrtReal(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
  for (int k = 0; k < 3; k++) t1[k] /= len;
  t2[0] = n[1] * t1[2] - n[2] * t1[1], t2[1] = n[2] * t1[0] - n[0] * t1[2], t2[2] = n[0] * t1[1] - n[1] * t1[0];
  PetscFunctionReturn(0);
}

/* Gathers the constraints of every term; refuses terms PD cannot run, by name. */
static PetscErrorCode Setup_PD(SimSolver s)
{
  PD *pd = (PD *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscInt n = 3 * m->nv;
  const PetscScalar *mass;

  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < m->nterms; t++) {
    SimEnergy e = m->term[t];
    PetscInt nc, nvert, nrows;
    PetscCheck(e->kind == SIM_ENERGY_POTENTIAL && e->ops.pd_count, s->comm, PETSC_ERR_SUP,
               "pd: energy term '%s' has no projective-dynamics form (%s); the pd solver runs springs, gravity, attachments, "
               "plane/sphere colliders and FEM with the arap material. Remove the term or use -solver implicit_euler",
               e->name, e->kind == SIM_ENERGY_DISSIPATION ? "damping is not supported" : "no pd_count op");
    PetscCall(e->ops.pd_count(e, &nc, &nvert, &nrows));
    if (nc == 0) {
      pd->linear[pd->nlinear++] = e;
      continue;
    }
    PetscCheck(e->ops.pd_stencil && e->ops.pd_project && nvert > 0 && nrows > 0, s->comm, PETSC_ERR_PLIB,
               "pd: energy term '%s' declares %" PetscInt_FMT
               " constraints but lacks pd_stencil/pd_project or has an empty stencil",
               e->name, nc);
    {
      PDBlock *b = &pd->block[pd->nblocks++];
      b->term = e, b->nc = nc, b->nvert = nvert, b->nrows = nrows;
      PetscCall(PetscMalloc4(nc * nvert, &b->vert, nc * nrows * nvert, &b->A, nc, &b->w, 3 * nc * nrows, &b->p));
      PetscCall(PetscMalloc2(nc * nvert, &b->fvert, nc, &b->touch_pinned));
      PetscCall(e->ops.pd_stencil(e, b->vert, b->A, b->w));
      if (e->ops.pd_active) PetscCall(PetscCalloc4(nc, &b->active, nc, &b->active_fact, nc, &b->released, nc, &b->now));
      for (PetscInt c = 0; c < nc; c++)
        PetscCheck(b->w[c] >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "pd: term '%s', constraint %" PetscInt_FMT ": weight %g < 0",
                   e->name, c, (double)b->w[c]);
    }
  }
  if (pd->contact_normal) PetscCall(SetupSplit_PD(s));
  PetscCall(PetscMalloc5(n, &pd->y, n, &pd->x0, n, &pd->xprev, n, &pd->b0, n, &pd->g));
  PetscCall(PetscMalloc2(n, &pd->ystep, n, &pd->xstep));
  PetscCall(PetscMalloc3(n, &pd->glin, n, &pd->gaa, n, &pd->xaa));
  if (pd->anderson_m > 0) PetscCall(SimAndersonCreate(n, pd->anderson_m, &pd->aa));
  PetscCall(PetscMalloc3(m->nv, &pd->fidx, m->nv, &pd->pinned_fact, m->nv, &pd->mass));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  for (PetscInt i = 0; i < m->nv; i++) pd->mass[i] = mass[3 * i];
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  cholmod_start(&pd->cm);
  pd->cm_started = PETSC_TRUE;
  pd->cm.supernodal = CHOLMOD_SUPERNODAL; /* default ordering: AMD, METIS tried when AMD fills badly */
  pd->cm.print = 0;
  PetscFunctionReturn(0);
}

/* Global matrix (Bouaziz et al. 2014, the global system matrix) on the free vertices,
 *   L = M/h^2 + sum_c w_c A_c^T A_c    (S_c is the selection of the stencil),
 * one scalar nfree x nfree matrix shared by x, y and z. Pinned vertices are eliminated: their
 * columns move to the right-hand side (Rhs_PD), so they stay exactly where they are and L is SPD
 * whenever every free vertex has a mass. Assembled as upper-triangle triplets (duplicates
 * summed), analyzed (supernodal, fill-reducing ordering) and factored once per constraint set. */
static PetscErrorCode Factor_PD(SimSolver s, PetscReal h, PetscBool tangential)
{
  PD *pd = (PD *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscReal ih2 = 1.0 / (h * h);
  cholmod_triplet *T;
  cholmod_sparse *S;
  PetscInt nnz;
  int *ti, *tj;
  double *tx;
  cholmod_factor **F = tangential ? &pd->L0 : &pd->L;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(s->ev.assemble, 0, 0, 0, 0));
  pd->nfree = 0;
  for (PetscInt i = 0; i < m->nv; i++) {
    pd->fidx[i] = m->pinned[i] ? -1 : pd->nfree++;
    pd->pinned_fact[i] = m->pinned[i];
  }
  PetscCheck(pd->nfree > 0, s->comm, PETSC_ERR_ARG_WRONG, "pd: every vertex is pinned; nothing to solve");
  nnz = pd->nfree;
  for (PetscInt k = 0; k < pd->nblocks; k++) nnz += pd->block[k].nc * pd->block[k].nvert * (pd->block[k].nvert + 1) / 2;
  T = cholmod_allocate_triplet((size_t)pd->nfree, (size_t)pd->nfree, (size_t)nnz, 1, CHOLMOD_REAL, &pd->cm);
  PDCheckCholmod(pd, T != NULL, "allocate_triplet");
  ti = (int *)T->i, tj = (int *)T->j, tx = (double *)T->x;
  nnz = 0;
  for (PetscInt i = 0; i < m->nv; i++)
    if (pd->fidx[i] >= 0) ti[nnz] = tj[nnz] = (int)pd->fidx[i], tx[nnz++] = pd->mass[i] * ih2;
  for (PetscInt k = 0; k < pd->nblocks; k++) {
    PDBlock *b = &pd->block[k];
    const PetscInt nv = b->nvert, nr = b->nrows;
    for (PetscInt c = 0; c < b->nc; c++) {
      b->touch_pinned[c] = PETSC_FALSE;
      for (PetscInt a = 0; a < nv; a++) {
        b->fvert[c * nv + a] = pd->fidx[b->vert[c * nv + a]];
        if (b->fvert[c * nv + a] < 0) b->touch_pinned[c] = PETSC_TRUE;
      }
    }
    if (tangential && b->dir) continue; /* the tangential matrix of the split frame has no directional constraint */
    if (b->active) PetscCall(PetscArraycpy(b->active_fact, b->active, b->nc));
    for (PetscInt c = 0; c < b->nc; c++) {
      const PetscInt *vc = b->vert + c * nv;
      const PetscReal *Ac = b->A + c * nr * nv;
      if (b->active && !b->active[c]) continue;
      for (PetscInt a = 0; a < nv; a++)
        for (PetscInt bb = a; bb < nv; bb++) {
          PetscInt fa = pd->fidx[vc[a]], fb = pd->fidx[vc[bb]];
          PetscReal v = 0;
          if (fa < 0 || fb < 0) continue;
          for (PetscInt r = 0; r < nr; r++) v += Ac[r * nv + a] * Ac[r * nv + bb];
          ti[nnz] = (int)PetscMin(fa, fb), tj[nnz] = (int)PetscMax(fa, fb), tx[nnz++] = b->w[c] * v;
        }
    }
  }
  T->nnz = (size_t)nnz;
  S = cholmod_triplet_to_sparse(T, (size_t)nnz, &pd->cm);
  cholmod_free_triplet(&T, &pd->cm);
  PDCheckCholmod(pd, S != NULL, "triplet_to_sparse");
  PetscCall(PetscLogEventEnd(s->ev.assemble, 0, 0, 0, 0));

  PetscCall(PetscLogEventBegin(s->ev.factor, 0, 0, 0, 0));
  if (*F) cholmod_free_factor(F, &pd->cm);
  *F = cholmod_analyze(S, &pd->cm);
  if (!*F || pd->cm.status < CHOLMOD_OK) cholmod_free_sparse(&S, &pd->cm);
  PDCheckCholmod(pd, *F != NULL, "analyze");
  {
    int ok = cholmod_factorize(S, *F, &pd->cm);
    cholmod_free_sparse(&S, &pd->cm);
    PDCheckCholmod(pd, ok, "factorize");
  }
  PetscCheck((*F)->minor == (*F)->n, s->comm, PETSC_ERR_MAT_CH_ZRPVT,
             "pd: the global matrix M/h^2 + sum w A^T A is not positive definite (CHOLMOD failed at column %d of %d); "
             "every free vertex needs a positive mass",
             (int)(*F)->minor, (int)(*F)->n);
  PetscCall(PetscLogEventEnd(s->ev.factor, 0, 0, 0, 0));
  /* right-hand side and solution, nfree x 3 */
  if (pd->B) cholmod_free_dense(&pd->B, &pd->cm);
  pd->B = cholmod_allocate_dense((size_t)pd->nfree, 3, (size_t)pd->nfree, CHOLMOD_REAL, &pd->cm);
  PDCheckCholmod(pd, pd->B != NULL, "allocate_dense");
  if (pd->split) { /* the split frame's right-hand sides (normal, tangents) and the solution in world coordinates */
    if (pd->Bn) cholmod_free_dense(&pd->Bn, &pd->cm);
    if (pd->Bt) cholmod_free_dense(&pd->Bt, &pd->cm);
    pd->Bn = cholmod_allocate_dense((size_t)pd->nfree, 1, (size_t)pd->nfree, CHOLMOD_REAL, &pd->cm);
    pd->Bt = cholmod_allocate_dense((size_t)pd->nfree, 2, (size_t)pd->nfree, CHOLMOD_REAL, &pd->cm);
    PDCheckCholmod(pd, pd->Bn && pd->Bt, "allocate_dense");
    PetscCall(PetscFree(pd->xsplit));
    PetscCall(PetscMalloc1(3 * pd->nfree, &pd->xsplit));
  }
  pd->hfact = h;
  pd->nfactor++;
  PetscCall(PetscInfo(
      NULL, "pd: factored the %" PetscInt_FMT " x %" PetscInt_FMT " global matrix (h = %g, factorization %" PetscInt_FMT ")\n",
      pd->nfree, pd->nfree, (double)h, pd->nfactor));
  PetscFunctionReturn(0);
}

/* Whether the active constraints differ from those the factor was built for. */
static PetscBool ActiveSetChanged(const PD *pd)
{
  for (PetscInt q = 0; q < pd->nblocks; q++) {
    const PDBlock *b = &pd->block[q];
    if (!b->active) continue;
    for (PetscInt c = 0; c < b->nc; c++)
      if (b->active[c] != b->active_fact[c]) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* Refactors when the constraint set changed: a new step size, new pins or a new set of active
 * constraints (colliders); each refactorization is logged (-info) and counted. */
static PetscErrorCode EnsureFactor_PD(SimSolver s, PetscReal h)
{
  PD *pd = (PD *)s->data;
  PetscBool same = (PetscBool)(pd->L && PetscAbsReal(h - pd->hfact) <= 1e-14 * h);

  PetscFunctionBeginUser;
  for (PetscInt i = 0; same && i < SimMeshModel(s->problem)->nv; i++)
    if (pd->pinned_fact[i] != SimMeshModel(s->problem)->pinned[i]) same = PETSC_FALSE;
  if (!same) {
    PetscCall(Factor_PD(s, h, PETSC_FALSE));
    if (pd->split) PetscCall(Factor_PD(s, h, PETSC_TRUE));
  } else if (ActiveSetChanged(pd)) { /* only the matrix with the active constraints (the normal one in the split frame) */
    pd->nsetchange++;
    PetscCall(PetscInfo(NULL, "pd: the active constraint set changed at the start of the step: refactoring\n"));
    PetscCall(Factor_PD(s, h, PETSC_FALSE));
  }
  PetscFunctionReturn(0);
}

/* The active sets at x from scratch (start of a step). */
static PetscErrorCode GatherActive_PD(PD *pd, const PetscReal *x)
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < pd->nblocks; q++) {
    PDBlock *b = &pd->block[q];
    if (!b->active) continue;
    PetscCall(PetscArrayzero(b->active, b->nc));
    PetscCall(PetscArrayzero(b->released, b->nc));
    PetscCall(b->term->ops.pd_active(b->term, x, b->active));
  }
  PetscFunctionReturn(0);
}

/* Adds the constraints x violates to the active sets; *grew tells whether the sets changed. Needed
 * after every iteration: an inactive constraint is left out of the surrogate, so an iterate that
 * violates it would converge to the minimizer of a different Phi (e.g. a vertex falling through
 * the plane within one step). */
static PetscErrorCode GrowActive_PD(PD *pd, const PetscReal *x, PetscBool *grew)
{
  PetscFunctionBeginUser;
  *grew = PETSC_FALSE;
  for (PetscInt q = 0; q < pd->nblocks; q++) {
    PDBlock *b = &pd->block[q];
    PetscInt before = 0, after = 0;
    if (!b->active) continue;
    if (pd->contact_release) { /* also release, once per step, a constraint whose vertex x has lifted off */
      PetscCall(PetscArrayzero(b->now, b->nc));
      PetscCall(b->term->ops.pd_active(b->term, x, b->now));
      for (PetscInt c = 0; c < b->nc; c++) {
        if (b->now[c] && !b->active[c])
          b->active[c] = PETSC_TRUE, *grew = PETSC_TRUE;
        else if (!b->now[c] && b->active[c] && !b->released[c])
          b->active[c] = PETSC_FALSE, b->released[c] = PETSC_TRUE, *grew = PETSC_TRUE;
      }
      continue;
    }
    for (PetscInt c = 0; c < b->nc; c++) before += b->active[c];
    PetscCall(b->term->ops.pd_active(b->term, x, b->active));
    for (PetscInt c = 0; c < b->nc; c++) after += b->active[c];
    if (after != before) *grew = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* Phi(x) = 1/(2h^2) |x - y|_M^2 + E(x) and ||grad Phi||_2 (pinned entries excluded). */
static PetscErrorCode Objective_PD(SimSolver s, PetscReal h, const PetscReal *x, PetscReal *phi, PetscReal *gnorm)
{
  PD *pd = (PD *)s->data;
  SimModel m = SimMeshModel(s->problem);
  PetscReal E, kin = 0, gg = 0;

  PetscFunctionBeginUser;
  PetscCall(SimModelEnergy(m, SIM_ENERGY_POTENTIAL, x, NULL, &E));
  PetscCall(SimModelGradient(m, SIM_ENERGY_POTENTIAL, x, NULL, pd->g));
  for (PetscInt i = 0; i < 3 * m->nv; i++) {
    const PetscReal d = x[i] - pd->y[i], r = pd->mass[i / 3] * d / (h * h) + pd->g[i];
    kin += pd->mass[i / 3] * d * d;
    if (!m->pinned[i / 3]) gg += r * r;
  }
  *phi = 0.5 * kin / (h * h) + E;
  *gnorm = PetscSqrtReal(gg);
  PetscFunctionReturn(0);
}

/* Global step right-hand side (Bouaziz et al. 2014, the global step):
 *   b = M y / h^2 - dE_lin/dx + sum_c w_c A_c,f^T (p_c - A_c,p x_p)
 * on the free vertices, where A_c,f / A_c,p are the columns of A_c on free / pinned vertices
 * (the eliminated pinned columns). b0 holds the constant first two terms. */
static void Rhs_PD(PD *pd, const PetscReal *x)
{
  const PetscInt nf = pd->nfree;
  double *B = (double *)pd->B->x;

  for (PetscInt k = 0; k < 3; k++)
    for (PetscInt f = 0; f < nf; f++) B[k * nf + f] = pd->b0[3 * f + k];
  for (PetscInt q = 0; q < pd->nblocks; q++) {
    const PDBlock *b = &pd->block[q];
    const PetscInt nv = b->nvert, nr = b->nrows;
    for (PetscInt c = 0; c < b->nc; c++) {
      const PetscInt *vc = b->vert + c * nv, *fc = b->fvert + c * nv;
      const PetscReal *Ac = b->A + c * nr * nv, *pc = b->p + 3 * c * nr, w = b->w[c];
      if ((b->active && !b->active[c]) || (pd->split && b->dir)) continue; /* split: RhsNormal_PD adds them */
      if (!b->touch_pinned[c] && nv == 4 && nr == 3) { /* the same with the tet's sizes as constants (unrolled) */
        for (int a = 0; a < 4; a++) {
          PetscReal t0 = 0, t1 = 0, t2 = 0;
          for (int r = 0; r < 3; r++) {
            const PetscReal ar = Ac[r * 4 + a];
            t0 += ar * pc[3 * r], t1 += ar * pc[3 * r + 1], t2 += ar * pc[3 * r + 2];
          }
          B[fc[a]] += w * t0, B[nf + fc[a]] += w * t1, B[2 * nf + fc[a]] += w * t2;
        }
        continue;
      }
      if (!b->touch_pinned[c]) { /* every vertex free: B(f_a, :) += w (A_c^T p_c)(a, :) */
        for (PetscInt a = 0; a < nv; a++) {
          PetscReal t0 = 0, t1 = 0, t2 = 0;
          for (PetscInt r = 0; r < nr; r++) {
            const PetscReal ar = Ac[r * nv + a];
            t0 += ar * pc[3 * r], t1 += ar * pc[3 * r + 1], t2 += ar * pc[3 * r + 2];
          }
          B[fc[a]] += w * t0, B[nf + fc[a]] += w * t1, B[2 * nf + fc[a]] += w * t2;
        }
        continue;
      }
      for (PetscInt r = 0; r < nr; r++) {
        PetscReal t[3] = {pc[3 * r], pc[3 * r + 1], pc[3 * r + 2]};
        for (PetscInt a = 0; a < nv; a++)
          if (pd->fidx[vc[a]] < 0)
            for (int k = 0; k < 3; k++) t[k] -= Ac[r * nv + a] * x[3 * vc[a] + k];
        for (PetscInt a = 0; a < nv; a++) {
          const PetscInt f = pd->fidx[vc[a]];
          const PetscReal wa = w * Ac[r * nv + a];
          if (f < 0) continue;
          B[f] += wa * t[0], B[nf + f] += wa * t[1], B[2 * nf + f] += wa * t[2];
        }
      }
    }
  }
}

/* The global step in the split frame (-pd_contact normal): the world right-hand side B of the
 * isotropic constraints (Rhs_PD) is turned into the frame, B n and B t1, B t2; the directional
 * constraints add w A^T (n . (p - A_pinned x_pinned)) to the normal one; then L x_n = b_n (with the
 * contact constraints) and L0 [x_t1 x_t2] = [b_t1 b_t2] (without), and x = x_n n + x_t1 t1 + x_t2 t2. */
static PetscErrorCode SolveSplit_PD(PD *pd, const PetscReal *x)
{
  const PetscInt nf = pd->nfree;
  const PetscReal *e = pd->frame;
  const double *B = (const double *)pd->B->x, *Xn, *Xt;
  double *bn = (double *)pd->Bn->x, *bt = (double *)pd->Bt->x;

  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < nf; f++) {
    const double b0 = B[f], b1 = B[nf + f], b2 = B[2 * nf + f];
    bn[f] = e[0] * b0 + e[1] * b1 + e[2] * b2;
    bt[f] = e[3] * b0 + e[4] * b1 + e[5] * b2;
    bt[nf + f] = e[6] * b0 + e[7] * b1 + e[8] * b2;
  }
  for (PetscInt q = 0; q < pd->nblocks; q++) {
    const PDBlock *b = &pd->block[q];
    const PetscInt nv = b->nvert, nr = b->nrows;
    if (!b->dir) continue;
    for (PetscInt c = 0; c < b->nc; c++) {
      const PetscInt *vc = b->vert + c * nv;
      const PetscReal *Ac = b->A + c * nr * nv, *pc = b->p + 3 * c * nr;
      if (b->active && !b->active[c]) continue;
      for (PetscInt r = 0; r < nr; r++) {
        PetscReal t = e[0] * pc[3 * r] + e[1] * pc[3 * r + 1] + e[2] * pc[3 * r + 2];
        for (PetscInt a = 0; a < nv; a++)
          if (pd->fidx[vc[a]] < 0)
            t -= Ac[r * nv + a] * (e[0] * x[3 * vc[a]] + e[1] * x[3 * vc[a] + 1] + e[2] * x[3 * vc[a] + 2]);
        for (PetscInt a = 0; a < nv; a++)
          if (pd->fidx[vc[a]] >= 0) bn[pd->fidx[vc[a]]] += b->w[c] * Ac[r * nv + a] * t;
      }
    }
  }
  PDCheckCholmod(pd, cholmod_solve2(CHOLMOD_A, pd->L, pd->Bn, NULL, &pd->Xn, NULL, &pd->Yn, &pd->En, &pd->cm), "solve");
  PDCheckCholmod(pd, cholmod_solve2(CHOLMOD_A, pd->L0, pd->Bt, NULL, &pd->Xt, NULL, &pd->Yt, &pd->Et, &pd->cm), "solve");
  Xn = (const double *)pd->Xn->x, Xt = (const double *)pd->Xt->x;
  for (PetscInt k = 0; k < 3; k++)
    for (PetscInt f = 0; f < nf; f++) pd->xsplit[k * nf + f] = Xn[f] * e[k] + Xt[f] * e[3 + k] + Xt[nf + f] * e[6 + k];
  pd->sol = pd->xsplit;
  PetscFunctionReturn(0);
}

/* Local step (Bouaziz et al. 2014): p_c = projection of A_c x_c, one flat loop per term. */
static PetscErrorCode LocalStep_PD(SimSolver s, const PetscReal *x)
{
  PD *pd = (PD *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(s->ev.force, 0, 0, 0, 0));
  for (PetscInt q = 0; q < pd->nblocks; q++) PetscCall(pd->block[q].term->ops.pd_project(pd->block[q].term, x, pd->block[q].p));
  PetscCall(PetscLogEventEnd(s->ev.force, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* PD's surrogate energy right after the local step at x (the projections p are x's):
 *   S(x) = 1/(2h^2) |x - y|_M^2 + sum_c w_c/2 |A_c x_c - p_c|^2 + g_lin . x,
 * which is Phi(x) up to the linear terms' constant (each term's PD energy is its value, and an
 * inactive collider constraint has no energy at x because the active set contains every
 * penetrating vertex). One pass over the constraints, no SVD: the Anderson safeguard's test. */
static PetscReal Surrogate_PD(const PD *pd, PetscInt nv, PetscReal h, const PetscReal *x)
{
  PetscReal kin = 0, lin = 0, con = 0;

  for (PetscInt i = 0; i < 3 * nv; i++) {
    const PetscReal d = x[i] - pd->y[i];
    kin += pd->mass[i / 3] * d * d, lin += pd->glin[i] * x[i];
  }
  for (PetscInt q = 0; q < pd->nblocks; q++) {
    const PDBlock *b = &pd->block[q];
    const PetscInt nvt = b->nvert, nr = b->nrows;
    for (PetscInt c = 0; c < b->nc; c++) {
      const PetscInt *vc = b->vert + c * nvt;
      const PetscReal *Ac = b->A + c * nr * nvt, *pc = b->p + 3 * c * nr;
      PetscReal r2 = 0;
      if (b->active && !b->active[c]) continue;
      for (PetscInt r = 0; r < nr; r++) {
        PetscReal ax[3] = {-pc[3 * r], -pc[3 * r + 1], -pc[3 * r + 2]};
        for (PetscInt a = 0; a < nvt; a++)
          for (int k = 0; k < 3; k++) ax[k] += Ac[r * nvt + a] * x[3 * vc[a] + k];
        r2 += ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2];
      }
      con += 0.5 * b->w[c] * r2;
    }
  }
  return 0.5 * kin / (h * h) + con + lin;
}

/* Grows the active sets with the constraints x violates and refactors if they grew; *grew tells. */
static PetscErrorCode GrowAndRefactor_PD(SimSolver s, PetscReal h, PetscInt it, const PetscReal *x, PetscBool *grew)
{
  PD *pd = (PD *)s->data;

  PetscFunctionBeginUser;
  PetscCall(GrowActive_PD(pd, x, grew));
  if (*grew) {
    pd->nsetchange++;
    PetscCall(PetscInfo(NULL,
                        pd->contact_release ? "pd: iteration %" PetscInt_FMT
                                              " violates inactive constraints or lifted off active ones: refactoring\n"
                                            : "pd: iteration %" PetscInt_FMT " violates inactive constraints: refactoring\n",
                        it));
    PetscCall(Factor_PD(s, h, PETSC_FALSE));
  }
  PetscFunctionReturn(0);
}

/* The plain PD update x = G(x) after the global solve, or Chebyshev's (Wang 2015, "A Chebyshev
 * semi-iterative approach for accelerating projective and position-based dynamics"): after `delay`
 * plain iterations, omega_{k+1} = 4 / (4 - rho^2 omega_k) (omega = 2 / (2 - rho^2) first) and
 * x_{k+1} = omega (gamma (xhat_{k+1} - x_k) + x_k - x_{k-1}) + x_{k-1}. Then the active sets grow
 * with what x violates. *dx, *disp: |x_{k+1} - x_k|^2 and |x_{k+1} - x_0|^2 for the stopping test. */
static PetscErrorCode PlainIterate_PD(SimSolver s, PetscReal h, PetscInt it, PetscReal *x, PetscReal *omega, PetscReal *dx,
                                      PetscReal *disp)
{
  PD *pd = (PD *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const double *X = pd->sol;
  const PetscBool accel = (PetscBool)(pd->chebyshev && it >= pd->cheb_delay);
  PetscBool grew;

  PetscFunctionBeginUser;
  if (accel) *omega = it == pd->cheb_delay ? 2 / (2 - pd->rho * pd->rho) : 4 / (4 - pd->rho * pd->rho * *omega);
  *dx = 0, *disp = 0;
  for (PetscInt i = 0; i < m->nv; i++) {
    const PetscInt f = pd->fidx[i];
    if (f < 0) continue;
    for (int k = 0; k < 3; k++) {
      const PetscInt d = 3 * i + k;
      const PetscReal xk = x[d], xhat = X[k * pd->nfree + f];
      const PetscReal xnew = !accel ? xhat : *omega * (pd->gamma * (xhat - xk) + xk - pd->xprev[d]) + pd->xprev[d];
      pd->xprev[d] = xk;
      x[d] = xnew;
      *dx += (xnew - xk) * (xnew - xk);
      *disp += (xnew - pd->x0[d]) * (xnew - pd->x0[d]);
    }
  }
  PetscCall(GrowAndRefactor_PD(s, h, it, x, &grew));
  PetscFunctionReturn(0);
}

/* One Anderson-accelerated iteration (Peng et al. 2018, Algorithm 2) after the global solve
 * (pd->X = G(x), the plain PD iterate). On entry *energy is S(x); on exit x is the accepted
 * iterate, its local step is done (pd->block[].p) and *energy = S(x), unless the plain iterate
 * already passes the stopping test (*converged; x = G(x), no local step). *dx, *disp: |G(x) - x|^2
 * and |G(x) - x_0|^2 on the free DOFs, plain PD's stopping-test quantities at the same x.
 *   The safeguard: plain PD never raises S (local and global step each minimize it), so the plain
 * iterate G(x) is always acceptable; the accelerated one is taken only if S does not rise, else
 * G(x) is, and the history restarts (a history from a map that failed to predict is not reused).
 * A refactorization (the active set grew) changes the map G, so it restarts the history too. */
static PetscErrorCode AndersonIterate_PD(SimSolver s, PetscReal h, PetscInt it, PetscReal *x, PetscReal *dx, PetscReal *disp,
                                         PetscReal *energy, PetscBool *converged)
{
  PD *pd = (PD *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscInt n = 3 * m->nv;
  const double *X = pd->sol;
  PetscBool accelerated, grew;
  PetscReal e;

  PetscFunctionBeginUser;
  *dx = 0, *disp = 0;
  for (PetscInt i = 0; i < m->nv; i++) {
    const PetscInt f = pd->fidx[i];
    for (int k = 0; k < 3; k++) {
      const PetscInt d = 3 * i + k;
      pd->gaa[d] = f < 0 ? x[d] : X[k * pd->nfree + f];
      *dx += (pd->gaa[d] - x[d]) * (pd->gaa[d] - x[d]);
      *disp += (pd->gaa[d] - pd->x0[d]) * (pd->gaa[d] - pd->x0[d]);
    }
  }
  *converged = (PetscBool)(pd->rtol > 0 && PetscSqrtReal(*dx) <= pd->rtol * PetscSqrtReal(*disp));
  if (*converged || !PetscIsNormalReal(*dx + 1.0)) {
    PetscCall(PetscArraycpy(x, pd->gaa, n));
    PetscCall(GrowAndRefactor_PD(s, h, it, x, &grew));
    PetscFunctionReturn(0);
  }
  PetscCall(SimAndersonUpdate(&pd->aa, x, pd->gaa, pd->xaa, &accelerated));
  PetscCall(PetscArraycpy(x, pd->xaa, n));
  PetscCall(GrowAndRefactor_PD(s, h, it, x, &grew));
  if (grew) SimAndersonReset(&pd->aa);
  PetscCall(LocalStep_PD(s, x));
  e = Surrogate_PD(pd, m->nv, h, x);
  if (accelerated && !(e <= *energy)) { /* also refuses a non-finite energy */
    pd->naa_reject++;
    PetscCall(PetscInfo(
        NULL, "pd: Anderson iterate %" PetscInt_FMT " raised the energy (%.17g > %.17g): plain iterate taken, history reset\n",
        it, (double)e, (double)*energy));
    SimAndersonReset(&pd->aa);
    PetscCall(PetscArraycpy(x, pd->gaa, n));
    PetscCall(GrowAndRefactor_PD(s, h, it, x, &grew));
    PetscCall(LocalStep_PD(s, x));
    e = Surrogate_PD(pd, m->nv, h, x);
  }
  *energy = e;
  PetscFunctionReturn(0);
}

PetscErrorCode SimPDMinimize(SimSolver s, PetscReal h, const PetscReal *y, PetscReal *x, SimStepStats *stats)
{
  PD *pd;
  SimModel m = SimMeshModel(s->problem);
  const PetscInt n = 3 * m->nv;
  PetscBool ispd;
  PetscReal omega = 1, phi, gnorm;
  PetscReal energy = 0;              /* with -pd_anderson: the surrogate energy of the current x */
  PetscBool projected = PETSC_FALSE; /* with -pd_anderson: the local step of the current x is done */
  PetscLogDouble t0, t1, tmon = 0;   /* wall time of the minimization, less the monitor's evaluations */
  SimStepStats local;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(s->type, "pd", &ispd));
  PetscCheck(ispd, s->comm, PETSC_ERR_ARG_WRONG, "SimPDMinimize needs a 'pd' solver, not '%s'", s->type);
  PetscCheck(h > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "pd: step %g must be > 0", (double)h);
  PetscCall(SimSolverSetUp(s));
  pd = (PD *)s->data;
  if (!stats) stats = &local;
  PetscCall(PetscMemzero(stats, sizeof(*stats)));
  PetscCall(PetscTime(&t0));
  PetscCall(GatherActive_PD(pd, x));
  PetscCall(EnsureFactor_PD(s, h));

  /* constant part of the right-hand side: M y / h^2 minus the linear terms' gradient */
  PetscCall(PetscArraycpy(pd->y, y, n));
  PetscCall(PetscArraycpy(pd->x0, x, n));
  PetscCall(PetscArrayzero(pd->g, n));
  for (PetscInt t = 0; t < pd->nlinear; t++) PetscCall(pd->linear[t]->ops.gradient(pd->linear[t], x, NULL, pd->g));
  PetscCall(PetscArraycpy(pd->glin, pd->g, n));
  for (PetscInt i = 0; i < m->nv; i++) {
    const PetscInt f = pd->fidx[i];
    if (f < 0) continue;
    for (int k = 0; k < 3; k++) pd->b0[3 * f + k] = pd->mass[i] * y[3 * i + k] / (h * h) - pd->g[3 * i + k];
  }
  PetscCall(PetscArraycpy(pd->xprev, x, n));
  if (pd->monitor) {
    PetscLogDouble a, b;
    PetscCall(PetscTime(&a));
    PetscCall(Objective_PD(s, h, x, &phi, &gnorm));
    PetscCall(PetscTime(&b));
    tmon += b - a;
    stats->objective[0] = phi, stats->history[0] = gnorm, stats->nhistory = 1;
    stats->residual = gnorm;
  }
  PetscCall(PetscTime(&t1));
  pd->elapsed_ms[0] = 1e3 * (t1 - t0 - tmon);
  pd->nelapsed = 1;
  stats->outcome = pd->rtol > 0 ? SIM_STEP_NOT_CONVERGED : SIM_STEP_OK;
  if (pd->anderson_m > 0) { /* Anderson does the local step of each accepted iterate itself (its energy test needs it) */
    SimAndersonReset(&pd->aa);
    PetscCall(LocalStep_PD(s, x));
    energy = Surrogate_PD(pd, m->nv, h, x);
    projected = PETSC_TRUE;
  }

  for (PetscInt it = 1; it <= pd->max_it; it++) {
    PetscReal dx = 0, disp = 0;

    if (!projected) PetscCall(LocalStep_PD(s, x));
    projected = PETSC_FALSE;

    /* global step: L x = b, one solve with the three coordinates as right-hand sides */
    Rhs_PD(pd, x);
    PetscCall(PetscLogEventBegin(s->ev.solve, 0, 0, 0, 0));
    if (pd->split)
      PetscCall(SolveSplit_PD(pd, x));
    else {
      PDCheckCholmod(pd, cholmod_solve2(CHOLMOD_A, pd->L, pd->B, NULL, &pd->X, NULL, &pd->Y, &pd->E, &pd->cm), "solve");
      pd->sol = (const double *)pd->X->x;
    }
    PetscCall(PetscLogEventEnd(s->ev.solve, 0, 0, 0, 0));

    if (pd->anderson_m > 0) {
      PetscBool converged;
      PetscCall(AndersonIterate_PD(s, h, it, x, &dx, &disp, &energy, &converged));
      projected = (PetscBool)!converged;
    } else
      PetscCall(PlainIterate_PD(s, h, it, x, &omega, &dx, &disp));
    stats->nonlinear_its = it;
    PetscCall(PetscTime(&t1));
    if (it < SIM_MAX_HISTORY) pd->elapsed_ms[it] = 1e3 * (t1 - t0 - tmon), pd->nelapsed = it + 1;
    if (pd->monitor) {
      PetscLogDouble a, b;
      PetscCall(PetscTime(&a));
      PetscCall(Objective_PD(s, h, x, &phi, &gnorm));
      PetscCall(PetscTime(&b));
      tmon += b - a;
      if (it < SIM_MAX_HISTORY) stats->objective[it] = phi, stats->history[it] = gnorm, stats->nhistory = it + 1;
      stats->residual = gnorm;
    } else
      stats->residual = disp > 0 ? PetscSqrtReal(dx / disp) : PetscSqrtReal(dx); /* the stopping test's quantity */
    if (!PetscIsNormalReal(dx + 1.0)) {
      stats->outcome = SIM_STEP_NONFINITE;
      PetscFunctionReturn(0);
    }
    if (pd->rtol > 0 && PetscSqrtReal(dx) <= pd->rtol * PetscSqrtReal(disp)) {
      stats->outcome = SIM_STEP_OK;
      break;
    }
  }
  PetscFunctionReturn(0);
}

/* -pd_reference_newton: Phi* of the step, from SimNewton (framework/newton) minimizing the same
 * incremental potential from the same guess (xguess, pins included) to tight tolerance. Its
 * defaults (-pd_ref_newton_rtol 1e-11 -pd_ref_newton_atol 0 -pd_ref_newton_vtol 0
 * -pd_ref_newton_max_it 100) are put in the options database unless set. */
static PetscErrorCode Reference_PD(SimSolver s, PetscReal h, const PetscReal *xn, const PetscReal *xguess)
{
  PD *pd = (PD *)s->data;
  static const char *defaults[][2] = {{"-pd_ref_newton_rtol", "1e-11"},
                                      {"-pd_ref_newton_atol", "0"},
                                      {"-pd_ref_newton_vtol", "0"},
                                      {"-pd_ref_newton_max_it", "100"}};
  SimStepStats st;
  PetscReal *a;

  PetscFunctionBeginUser;
  if (!pd->newton) {
    for (size_t k = 0; k < sizeof(defaults) / sizeof(defaults[0]); k++) {
      PetscBool set;
      PetscCall(PetscOptionsHasName(NULL, NULL, defaults[k][0], &set));
      if (!set) PetscCall(PetscOptionsSetValue(NULL, defaults[k][0], defaults[k][1]));
    }
    PetscCall(SimNewtonCreate(SimMeshModel(s->problem), "pd_ref_newton_", &pd->newton));
    PetscCall(SimNewtonSetFromOptions(pd->newton));
    PetscCall(VecDuplicate(SimMeshModel(s->problem)->x, &pd->xref));
  }
  PetscCall(VecGetArray(pd->xref, &a));
  PetscCall(PetscArraycpy(a, xguess, 3 * SimMeshModel(s->problem)->nv));
  PetscCall(VecRestoreArray(pd->xref, &a));
  PetscCall(SimNewtonMinimize(pd->newton, h, pd->ystep, xn, xn, pd->xref, &st));
  if (st.outcome != SIM_STEP_OK)
    PetscCall(PetscInfo(NULL, "pd: the Newton reference did not converge (|grad| = %g after %" PetscInt_FMT " iterations)\n",
                        (double)st.residual, st.nonlinear_its));
  PetscFunctionReturn(0);
}

/* Implicit Euler: x* = argmin Phi with y = x_n + h v_n (guess y, pins at x_n), v = (x* - x_n)/h. */
static PetscErrorCode Step_PD(SimSolver s, PetscReal h)
{
  PD *pd = (PD *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscInt n = 3 * m->nv;
  PetscReal *x, *v;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  for (PetscInt i = 0; i < n; i++) {
    pd->ystep[i] = x[i] + h * v[i];
    pd->xstep[i] = m->pinned[i / 3] ? x[i] : pd->ystep[i];
  }
  pd->has_reference = PETSC_FALSE;
  if (pd->reference) PetscCall(Reference_PD(s, h, x, pd->xstep));
  PetscCall(SimPDMinimize(s, h, pd->ystep, pd->xstep, &s->stats));
  if (pd->reference) { /* Phi* by the same evaluation as the monitor's Phi_k (pd->y is the step's y now) */
    const PetscReal *a;
    PetscReal gn;
    PetscCall(VecGetArrayRead(pd->xref, &a));
    PetscCall(Objective_PD(s, h, a, &pd->reference_objective, &gn));
    PetscCall(VecRestoreArrayRead(pd->xref, &a));
    pd->has_reference = PETSC_TRUE;
  }
  if (s->stats.outcome != SIM_STEP_NONFINITE) { /* otherwise keep the last good state */
    for (PetscInt i = 0; i < n; i++) {
      v[i] = m->pinned[i / 3] ? 0 : (pd->xstep[i] - x[i]) / h;
      x[i] = pd->xstep[i];
    }
  }
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArray(m->x, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode View_PD(SimSolver s, PetscViewer viewer)
{
  PD *pd = (PD *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(
      viewer, "pd: projective dynamics (Bouaziz et al. 2014), implicit Euler; at most %" PetscInt_FMT " iterations, rtol %g%s\n",
      pd->max_it, (double)pd->rtol,
      pd->chebyshev        ? ", Chebyshev (Wang 2015)"
      : pd->anderson_m > 0 ? ", Anderson (Peng et al. 2018)"
                           : ""));
  if (pd->split)
    PetscCall(PetscViewerASCIIPrintf(
        viewer, "  contact along the normal (%g, %g, %g) only (-pd_contact normal): tangential matrix factored apart\n",
        (double)pd->frame[0], (double)pd->frame[1], (double)pd->frame[2]));
  if (pd->anderson_m > 0)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "  Anderson: history %" PetscInt_FMT
                                     ", accelerated iterates refused by the energy safeguard: %" PetscInt_FMT "\n",
                                     pd->anderson_m, pd->naa_reject));
  if (pd->chebyshev)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  Chebyshev: rho %g, gamma %g, delay %" PetscInt_FMT "\n", (double)pd->rho,
                                     (double)pd->gamma, pd->cheb_delay));
  for (PetscInt q = 0; q < pd->nblocks; q++)
    PetscCall(PetscViewerASCIIPrintf(
        viewer, "  term '%s': %" PetscInt_FMT " constraints on %" PetscInt_FMT " vertices, %" PetscInt_FMT " rows\n",
        pd->block[q].term->name, pd->block[q].nc, pd->block[q].nvert, pd->block[q].nrows));
  for (PetscInt q = 0; q < pd->nlinear; q++)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  term '%s': linear (right-hand side)\n", pd->linear[q]->name));
  PetscCall(PetscViewerASCIIPrintf(
      viewer, "  global matrix %" PetscInt_FMT " x %" PetscInt_FMT " (CHOLMOD supernodal), factorizations: %" PetscInt_FMT "\n",
      pd->nfree, pd->nfree, pd->nfactor));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  refactorizations for a new active constraint set: %" PetscInt_FMT "%s\n",
                                   pd->nsetchange, pd->reference ? "; Newton reference per step (-pd_reference_newton)" : ""));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_PD(SimSolver s)
{
  PD *pd = (PD *)s->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < pd->nblocks; q++) {
    PetscCall(PetscFree4(pd->block[q].vert, pd->block[q].A, pd->block[q].w, pd->block[q].p));
    PetscCall(PetscFree4(pd->block[q].active, pd->block[q].active_fact, pd->block[q].released, pd->block[q].now));
    PetscCall(PetscFree2(pd->block[q].fvert, pd->block[q].touch_pinned));
  }
  PetscCall(SimNewtonDestroy(&pd->newton));
  PetscCall(VecDestroy(&pd->xref));
  if (pd->cm_started) {
    if (pd->L) cholmod_free_factor(&pd->L, &pd->cm);
    if (pd->B) cholmod_free_dense(&pd->B, &pd->cm);
    if (pd->X) cholmod_free_dense(&pd->X, &pd->cm);
    if (pd->Y) cholmod_free_dense(&pd->Y, &pd->cm);
    if (pd->E) cholmod_free_dense(&pd->E, &pd->cm);
    if (pd->L0) cholmod_free_factor(&pd->L0, &pd->cm);
    cholmod_dense **split[] = {&pd->Bn, &pd->Bt, &pd->Xn, &pd->Xt, &pd->Yn, &pd->Yt, &pd->En, &pd->Et};
    for (size_t k = 0; k < sizeof(split) / sizeof(split[0]); k++)
      if (*split[k]) cholmod_free_dense(split[k], &pd->cm);
    cholmod_finish(&pd->cm);
  }
  PetscCall(PetscFree5(pd->y, pd->x0, pd->xprev, pd->b0, pd->g));
  PetscCall(PetscFree2(pd->ystep, pd->xstep));
  PetscCall(PetscFree3(pd->glin, pd->gaa, pd->xaa));
  PetscCall(PetscFree(pd->xsplit));
  PetscCall(SimAndersonDestroy(&pd->aa));
  PetscCall(PetscFree3(pd->fidx, pd->pinned_fact, pd->mass));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

/* The PD data of s, for the counters below; an error naming caller if s is another solver. */
static PetscErrorCode GetPD(SimSolver s, const char *caller, PD **pd)
{
  PetscBool ispd;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(s->type, "pd", &ispd));
  PetscCheck(ispd, s->comm, PETSC_ERR_ARG_WRONG, "%s needs a 'pd' solver, not '%s'", caller, s->type);
  *pd = (PD *)s->data;
  PetscFunctionReturn(0);
}

PetscErrorCode SimPDGetFactorizations(SimSolver s, PetscInt *count)
{
  PD *pd = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetPD(s, "SimPDGetFactorizations", &pd));
  *count = pd->nfactor;
  PetscFunctionReturn(0);
}

PetscErrorCode SimPDGetConstraintSetChanges(SimSolver s, PetscInt *count)
{
  PD *pd = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetPD(s, "SimPDGetConstraintSetChanges", &pd));
  *count = pd->nsetchange;
  PetscFunctionReturn(0);
}

PetscErrorCode SimPDGetAndersonRejections(SimSolver s, PetscInt *count)
{
  PD *pd = NULL;

  PetscFunctionBeginUser;
  PetscCall(GetPD(s, "SimPDGetAndersonRejections", &pd));
  *count = pd->naa_reject;
  PetscFunctionReturn(0);
}

/* "elapsed_ms" (one per iteration of the last step) and "reference_objective" (one value, with
 * -pd_reference_newton). */
static PetscErrorCode Series_PD(SimSolver s, const char *name, PetscInt *n, const PetscReal **values)
{
  PD *pd = (PD *)s->data;

  PetscFunctionBeginUser;
  if (!strcmp(name, "elapsed_ms"))
    *n = pd->nelapsed, *values = pd->elapsed_ms;
  else if (!strcmp(name, "reference_objective") && pd->has_reference)
    *n = 1, *values = &pd->reference_objective;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_PD(SimSolver s)
{
  static const SimSolverOps ops = {.setfromoptions = SetFromOptions_PD,
                                   .setup = Setup_PD,
                                   .step = Step_PD,
                                   .view = View_PD,
                                   .destroy = Destroy_PD,
                                   .series = Series_PD};
  PD *pd;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&pd));
  pd->max_it = 200;
  pd->rtol = 1e-3;
  pd->monitor = PETSC_FALSE;
  pd->rho = 0.9;
  pd->gamma = 0.9;
  pd->cheb_delay = 10;
  s->data = pd;
  s->ops = ops;
  PetscFunctionReturn(0);
}
