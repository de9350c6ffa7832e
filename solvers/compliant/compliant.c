/* Implicit compliant constraints (Tournier, Nesme, Gilles & Faure 2015, "Stable constrained
 * dynamics") on the mesh problem: every term with scalar constraints (energy.h cons_*) is a set of
 * constraints phi_c(x) = C_c(x) with compliance c = 1/w_c (0: hard), and a step solves the
 * linearized implicit Euler KKT system with the geometric stiffness (docs/compliant.md):
 *
 *   [ M - h^2 K~   -J^T  ] [ v+ ]   [ M v_n + h f_ext - h^2 K~ v_k ]       K~ = sum_c lambda_c d2phi_c/dx2
 *   [ J           C/h^2 ] [ mu  ] = [ -phi(z_k)/h + J v_k          ]       mu = h lambda
 *
 * linearized at z_k = x_n + h v_k (Tournier's step: k = 0, v_0 = 0, z_0 = x_n), with J, phi, K~ at
 * z_k. -compliant_max_it > 1 repeats it (Newton on the implicit Euler equations in (v, lambda)),
 * which converges to the implicit Euler step on the energy sum_c 1/(2 c_c) phi_c^2 (c > 0), or on
 * the hard constraints (c = 0). Solved as the symmetric indefinite KKT matrix (MUMPS LU by default)
 * or, without geometric stiffness (M - h^2 K~ = M diagonal), through the Schur complement
 * (J M^-1 J^T + C/h^2) mu = b2 - J M^-1 b1 by CHOLMOD. Both matrices are assembled by COO with a
 * pattern fixed at set-up. */
#include <petscksp.h>
#include "framework/solver_impl.h"
#include "framework/linalg/psd.h"
#include "framework/text.h"
#include "problems/mesh/mesh.h"

#define COMPLIANT_MAX_VERT 12 /* the largest constraint stencil (a tet or a hinge: 4 vertices) times 3 */

/* The scalar constraints of one energy term. */
typedef struct {
  SimEnergy term;
  PetscInt nc, nvert, off; /* constraints, vertices per stencil, first row in the multipliers */
  PetscInt *vert, *idx;    /* nc*nvert stencils; idx = 0 .. nc-1 (cons_eval's list) */
  PetscReal *comp;         /* nc compliances 1/w (m/N for a distance) */
  PetscBool *active;       /* nc: w > 0 (or a compliance set by option) and a free vertex in the stencil */
  PetscReal *C, *G, *H;    /* nc values, nc*3nvert gradients, nc*(3nvert)^2 second derivatives (NULL: linear term) */
} CBlock;

typedef struct {
  PetscInt solve;           /* 0: KKT, 1: Schur complement */
  PetscBool geometric;      /* -compliant_geometric_stiffness */
  PetscBool geometric_psd;  /* -compliant_geometric_psd: each constraint's block of -K~ projected onto PSD */
  PetscInt max_it;          /* linearized solves per step (1: Tournier's step) */
  PetscReal rtol;           /* stop when the positions change by <= rtol times the step's motion */
  PetscReal compliance;     /* -compliant_compliance (when compliance_set; else each term's 1/w) */
  PetscBool compliance_set;
  PetscInt nblocks, nlinear, m, n; /* n = 3 nv */
  CBlock block[SIM_MAX_TERMS];
  SimEnergy linear[SIM_MAX_TERMS];
  PetscReal *lambda, *lambda_prev; /* m: multipliers of the iterate and of the last step (N for a distance) */
  PetscReal *fext, *xn, *vk, *z, *Kv, *invm; /* 3nv (Kv: -K~ v_k) */
  Mat A;
  KSP ksp;
  Vec rhs, sol;
  PetscCount ncoo;
  PetscScalar *coo;
  PetscInt *inc_start, *inc_blk, *inc_slot; /* Schur: the constraints on vertex v are entries inc_start[v] .. inc_start[v+1]) of
                                               (block, constraint * nvert + stencil vertex) */
  PetscReal violation;     /* max |phi + c lambda| at the end of the step */
  PetscInt its;
} Compliant;

static const char *const solves[] = {"kkt", "schur"};

static PetscErrorCode SetKSPDefaults(Compliant *d)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPSetType(d->ksp, KSPPREONLY));
  PetscCall(KSPGetPC(d->ksp, &pc));
  /* the KKT matrix is symmetric indefinite (a zero block for hard constraints): LU with pivoting */
  PetscCall(PCSetType(pc, d->solve ? PCCHOLESKY : PCLU));
  PetscCall(PCFactorSetMatSolverType(pc, d->solve ? MATSOLVERCHOLMOD : MATSOLVERMUMPS));
  PetscFunctionReturn(0);
}

static PetscErrorCode SetFromOptions_Compliant(SimSolver s, PetscOptionItems *PetscOptionsObject)
{
  Compliant *d = (Compliant *)s->data;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, "Compliant constraints (Tournier et al. 2015), -solver compliant");
  PetscCall(PetscOptionsEList("-compliant_solve", "linear system: kkt (the saddle point, -compliant_ksp/pc_*) or schur (J M^-1 J^T + C/h^2 by CHOLMOD; no geometric stiffness)",
                              "", solves, 2, solves[d->solve], &d->solve, &set));
  PetscCall(PetscOptionsBool("-compliant_geometric_stiffness", "include K~ = sum lambda d2phi/dx2 in the system matrix", "", d->geometric, &d->geometric, NULL));
  PetscCall(PetscOptionsBool("-compliant_geometric_psd", "project each constraint's geometric stiffness block onto PSD (drops it for compressed springs)", "",
                             d->geometric_psd, &d->geometric_psd, NULL));
  PetscCall(PetscOptionsInt("-compliant_max_it", "linearized solves per step (1: Tournier's step; more: Newton towards implicit Euler)", "", d->max_it,
                            &d->max_it, NULL));
  PetscCall(PetscOptionsReal("-compliant_rtol", "stop the iterations when the positions change by <= rtol times the step's motion", "", d->rtol, &d->rtol,
                             NULL));
  PetscCall(PetscOptionsReal("-compliant_compliance", "compliance of every constraint (>= 0; 0: hard); default each term's 1/stiffness", "", d->compliance,
                             &d->compliance, &d->compliance_set));
  PetscOptionsHeadEnd();
  PetscCheck(d->max_it >= 1 && d->max_it <= 1000, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-compliant_max_it %" PetscInt_FMT " is out of range: must be in [1, 1000]",
             d->max_it);
  PetscCheck(d->rtol >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-compliant_rtol %g is out of range: must be >= 0", (double)d->rtol);
  PetscCheck(!d->compliance_set || d->compliance >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-compliant_compliance %g is out of range: a compliance must be >= 0 (0: hard constraints)", (double)d->compliance);
  PetscCheck(!(d->solve == 1 && d->geometric), s->comm, PETSC_ERR_ARG_INCOMP,
             "-compliant_solve schur needs -compliant_geometric_stiffness 0: with K~ the matrix M - h^2 K~ is not diagonal and has no cheap inverse");
  if (set) PetscCall(SetKSPDefaults(d));
  PetscCall(KSPSetFromOptions(d->ksp));
  PetscFunctionReturn(0);
}

/* ---- set-up: the constraints and the matrix pattern ---- */

/* Gathers the terms' constraints; refuses, by name, terms without a scalar constraint form. */
static PetscErrorCode GatherConstraints(SimSolver s, Compliant *d, SimModel m)
{
  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < m->nterms; t++) {
    SimEnergy e = m->term[t];
    PetscInt nc = 0, nvert = 0;
    PetscBool linear = PETSC_FALSE;
    if (e->kind == SIM_ENERGY_POTENTIAL && !e->ops.cons_count && e->ops.pd_count) {
      /* a linear term (gravity) declares 0 PD constraints: an external force. A term whose pd_count
       * fails (FEM with a material other than arap) is refused below for what this solver needs. */
      PetscInt nr;
      PetscErrorCode ierr;
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = e->ops.pd_count(e, &nc, &nvert, &nr);
      PetscCall(PetscPopErrorHandler());
      linear = (PetscBool)(!ierr && nc == 0);
    }
    if (linear) {
      d->linear[d->nlinear++] = e;
      continue;
    }
    PetscCheck(e->kind == SIM_ENERGY_POTENTIAL && e->ops.cons_count && e->ops.cons_stencil && e->ops.cons_eval, s->comm, PETSC_ERR_SUP,
               "compliant: energy term '%s' has no scalar constraint form (%s); compliant runs springs, attachments, isometric bending, tet volume and "
               "gravity. Remove the term or use -solver implicit_euler",
               e->name, e->kind == SIM_ENERGY_DISSIPATION ? "damping is not supported" : "no cons_count/cons_stencil/cons_eval ops");
    PetscCall(e->ops.cons_count(e, &nc, &nvert));
    PetscCheck(nvert >= 1 && 3 * nvert <= COMPLIANT_MAX_VERT, s->comm, PETSC_ERR_SUP, "compliant: term '%s' has constraints on %" PetscInt_FMT " vertices; 1 to %d are supported",
               e->name, nvert, COMPLIANT_MAX_VERT / 3);
    if (nc == 0) continue;
    {
      CBlock *b = &d->block[d->nblocks++];
      PetscReal *w, tc = d->compliance, wbad = 0;
      PetscBool tset = d->compliance_set, flg;
      PetscInt bad = -1;
      char opt[128] = "";
      const PetscInt N = 3 * nvert;
      b->term = e, b->nc = nc, b->nvert = nvert, b->off = d->m;
      d->m += nc;
      PetscCall(PetscMalloc4(nc * nvert, &b->vert, nc, &b->idx, nc, &b->comp, nc, &b->active));
      PetscCall(PetscMalloc2(nc, &b->C, nc * N, &b->G));
      if (e->ops.cons_hessian) PetscCall(PetscMalloc1(nc * N * N, &b->H));
      PetscCall(SimStrAppend(opt, "-compliant_", sizeof(opt)));
      PetscCall(SimStrAppend(opt, e->name, sizeof(opt)));
      PetscCall(SimStrAppend(opt, "_compliance", sizeof(opt)));
      PetscCall(PetscOptionsGetReal(NULL, NULL, opt, &tc, &flg));
      tset = (PetscBool)(tset || flg);
      PetscCheck(!tset || tc >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g is out of range: a compliance must be >= 0 (0: hard constraints)", opt,
                 (double)tc);
      /* w is scratch: the checks below come after its PetscFree (a failed check must not leak it) */
      PetscCall(PetscMalloc1(nc, &w));
      PetscCall(e->ops.cons_stencil(e, b->vert, w));
      for (PetscInt c = 0; c < nc; c++) {
        PetscBool free = PETSC_FALSE;
        if (!(w[c] >= 0) && bad < 0) bad = c, wbad = w[c];
        for (PetscInt a = 0; a < nvert; a++) free = (PetscBool)(free || !m->pinned[b->vert[c * nvert + a]]);
        b->idx[c] = c;
        b->comp[c] = tset ? tc : (w[c] > 0 ? 1 / w[c] : 0);
        b->active[c] = (PetscBool)(free && (tset || w[c] > 0)); /* w = 0 without an override: no constraint */
      }
      PetscCall(PetscFree(w));
      PetscCheck(bad < 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "compliant: term '%s', constraint %" PetscInt_FMT ": weight %g < 0", e->name, bad, (double)wbad);
    }
  }
  PetscFunctionReturn(0);
}

/* The COO pattern. KKT, unknowns (v, nu = -mu), rows 0 .. n-1 then n .. n+m-1, symmetric:
 *   the diagonal of M (n), K~'s blocks per constraint ((3 nvert)^2 each, when geometric and the term
 *   has cons_hessian), J and J^T (3 nvert each, twice), -C/h^2 (m).
 * Schur, m x m: per free vertex and pair of constraints on it, (J M^-1 J^T)_cd; then C/h^2 (m). */
static PetscErrorCode BuildPattern(Compliant *d, SimModel m, PetscInt **ii, PetscInt **jj)
{
  const PetscInt n = d->n;
  PetscInt k = 0, *ri, *cj;

  PetscFunctionBeginUser;
  if (d->solve == 0) {
    d->ncoo = n + d->m;
    for (PetscInt q = 0; q < d->nblocks; q++) {
      const CBlock *b = &d->block[q];
      const PetscInt N = 3 * b->nvert;
      d->ncoo += b->nc * (2 * N + (d->geometric && b->H ? N * N : 0));
    }
    PetscCall(PetscMalloc2(d->ncoo, &ri, d->ncoo, &cj));
    for (PetscInt i = 0; i < n; i++) ri[k] = cj[k] = i, k++;
    for (PetscInt q = 0; q < d->nblocks; q++) {
      const CBlock *b = &d->block[q];
      const PetscInt nv = b->nvert;
      if (d->geometric && b->H)
        for (PetscInt c = 0; c < b->nc; c++)
          for (PetscInt r = 0; r < 3 * nv; r++)
            for (PetscInt t = 0; t < 3 * nv; t++) ri[k] = 3 * b->vert[c * nv + r / 3] + r % 3, cj[k] = 3 * b->vert[c * nv + t / 3] + t % 3, k++;
      for (PetscInt c = 0; c < b->nc; c++)
        for (PetscInt r = 0; r < 3 * nv; r++) {
          const PetscInt dof = 3 * b->vert[c * nv + r / 3] + r % 3;
          ri[k] = n + b->off + c, cj[k] = dof, k++;
          ri[k] = dof, cj[k] = n + b->off + c, k++;
        }
    }
    for (PetscInt r = 0; r < d->m; r++) ri[k] = cj[k] = n + r, k++;
  } else {
    /* the constraints on each vertex (term, constraint and stencil order) */
    PetscInt *cnt;
    PetscCall(PetscCalloc1(m->nv + 1, &d->inc_start));
    PetscCall(PetscCalloc1(m->nv, &cnt));
    for (PetscInt q = 0; q < d->nblocks; q++)
      for (PetscInt i = 0; i < d->block[q].nc * d->block[q].nvert; i++) cnt[d->block[q].vert[i]]++;
    d->ncoo = d->m;
    for (PetscInt v = 0; v < m->nv; v++) {
      d->inc_start[v + 1] = d->inc_start[v] + cnt[v];
      if (!m->pinned[v]) d->ncoo += cnt[v] * cnt[v];
      cnt[v] = 0;
    }
    PetscCall(PetscMalloc2(d->inc_start[m->nv], &d->inc_blk, d->inc_start[m->nv], &d->inc_slot));
    for (PetscInt q = 0; q < d->nblocks; q++)
      for (PetscInt i = 0; i < d->block[q].nc * d->block[q].nvert; i++) {
        const PetscInt v = d->block[q].vert[i];
        d->inc_blk[d->inc_start[v] + cnt[v]] = q, d->inc_slot[d->inc_start[v] + cnt[v]++] = i;
      }
    PetscCall(PetscFree(cnt));
    PetscCall(PetscMalloc2(d->ncoo, &ri, d->ncoo, &cj));
    for (PetscInt v = 0; v < m->nv; v++)
      if (!m->pinned[v])
        for (PetscInt a = d->inc_start[v]; a < d->inc_start[v + 1]; a++)
          for (PetscInt b = d->inc_start[v]; b < d->inc_start[v + 1]; b++) {
            const CBlock *ba = &d->block[d->inc_blk[a]], *bb = &d->block[d->inc_blk[b]];
            ri[k] = ba->off + d->inc_slot[a] / ba->nvert, cj[k] = bb->off + d->inc_slot[b] / bb->nvert, k++;
          }
    for (PetscInt r = 0; r < d->m; r++) ri[k] = cj[k] = r, k++;
  }
  *ii = ri, *jj = cj;
  PetscFunctionReturn(0);
}

static PetscErrorCode Setup_Compliant(SimSolver s)
{
  Compliant *d = (Compliant *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscScalar *mass;
  PetscInt *ri, *cj, size;

  PetscFunctionBeginUser;
  PetscCheck(m->size == 1, s->comm, PETSC_ERR_SUP, "compliant runs on one rank (its KKT system is assembled serially); run without mpirun -np > 1");
  d->n = 3 * m->nv;
  PetscCall(GatherConstraints(s, d, m));
  PetscCall(PetscCalloc2(d->m, &d->lambda, d->m, &d->lambda_prev));
  PetscCall(PetscMalloc6(d->n, &d->fext, d->n, &d->xn, d->n, &d->vk, d->n, &d->z, d->n, &d->Kv, m->nv, &d->invm));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  for (PetscInt i = 0; i < m->nv; i++) d->invm[i] = m->pinned[i] ? 0 : 1 / mass[3 * i];
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscCall(BuildPattern(d, m, &ri, &cj));
  size = d->solve == 0 ? d->n + d->m : d->m;
  PetscCall(MatCreate(PETSC_COMM_SELF, &d->A));
  PetscCall(MatSetSizes(d->A, size, size, size, size));
  PetscCall(MatSetType(d->A, MATSEQAIJ));
  PetscCall(MatSetPreallocationCOO(d->A, d->ncoo, ri, cj));
  PetscCall(MatSetOption(d->A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(d->A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(PetscFree2(ri, cj));
  PetscCall(PetscMalloc1(d->ncoo, &d->coo));
  PetscCall(MatCreateVecs(d->A, &d->sol, &d->rhs));
  PetscFunctionReturn(0);
}

/* ---- a step ---- */

/* phi, J (and d2phi when geometric) of every constraint at x. */
static PetscErrorCode Evaluate(Compliant *d, const PetscReal *x, PetscBool hessian)
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < d->nblocks; q++) {
    CBlock *b = &d->block[q];
    PetscCall(b->term->ops.cons_eval(b->term, x, b->nc, b->idx, b->C, b->G));
    if (hessian && b->H) PetscCall(b->term->ops.cons_hessian(b->term, x, b->nc, b->idx, b->H));
  }
  PetscFunctionReturn(0);
}

/* The geometric stiffness as per-constraint blocks, in place of d2phi: S_c = -lambda_c d2phi_c
 * (N x N, so K~ = -sum_c S_c), each projected onto the PSD cone with -compliant_geometric_psd. A
 * spring's S_c = -lambda (I - d d^T)/l (pair blocks) is PSD in tension (lambda < 0) and is dropped
 * in compression, as the projected spring Hessian of linearized_implicit drops it. */
static PetscErrorCode GeometricBlocks(Compliant *d)
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < d->nblocks; q++) {
    const CBlock *b = &d->block[q];
    const PetscInt N = 3 * b->nvert;
    if (!b->H) continue;
    for (PetscInt c = 0; c < b->nc; c++) {
      const PetscReal l = b->active[c] ? d->lambda[b->off + c] : 0;
      PetscReal *S = b->H + c * N * N;
      for (PetscInt r = 0; r < N * N; r++) S[r] *= -l;
      if (d->geometric_psd && l != 0) PetscCall(SimSymProjectPSD(N, S));
    }
  }
  PetscFunctionReturn(0);
}

/* Sv = -K~ v_k = sum_c S_c v_k (free DOFs only; 0 when not geometric). */
static void GeometricTimes(Compliant *d, const PetscBool *pinned, const PetscReal *v, PetscReal *Sv)
{
  for (PetscInt i = 0; i < d->n; i++) Sv[i] = 0;
  if (!d->geometric) return;
  for (PetscInt q = 0; q < d->nblocks; q++) {
    const CBlock *b = &d->block[q];
    const PetscInt nv = b->nvert, N = 3 * nv;
    if (!b->H) continue;
    for (PetscInt c = 0; c < b->nc; c++) {
      const PetscReal *S = b->H + c * N * N;
      const PetscInt *vc = b->vert + c * nv;
      for (PetscInt r = 0; r < N; r++) {
        PetscReal sum = 0;
        if (pinned[vc[r / 3]]) continue;
        for (PetscInt t = 0; t < N; t++) sum += S[r * N + t] * v[3 * vc[t / 3] + t % 3];
        Sv[3 * vc[r / 3] + r % 3] += sum;
      }
    }
  }
}

/* The COO values in BuildPattern's order and the right-hand side:
 *   b1 = M v_n + h f_ext - h^2 K~ v_k (0 on pinned DOFs),  b2 = -phi/h + J v_k,
 * KKT: [M - h^2 K~, J^T; J, -C/h^2] (v, nu) = (b1, b2); Schur: (J M^-1 J^T + C/h^2) mu = b2 - J M^-1 b1.
 * A pinned DOF has a unit row and no J or K~ entries; an inactive constraint a unit diagonal and no J. */
static PetscErrorCode Assemble(Compliant *d, SimModel m, PetscReal h, const PetscReal *mass, const PetscReal *v)
{
  const PetscInt n = d->n;
  const PetscBool *pinned = m->pinned;
  PetscScalar *a = d->coo, *rhs;
  PetscInt k = 0;

  PetscFunctionBeginUser;
  GeometricTimes(d, pinned, d->vk, d->Kv);
  PetscCall(VecGetArray(d->rhs, &rhs));
  if (d->solve == 0) {
    for (PetscInt i = 0; i < n; i++) {
      a[k++] = pinned[i / 3] ? 1 : mass[i];
      rhs[i] = pinned[i / 3] ? 0 : mass[i] * v[i] + h * d->fext[i] + h * h * d->Kv[i];
    }
    for (PetscInt q = 0; q < d->nblocks; q++) {
      const CBlock *b = &d->block[q];
      const PetscInt nv = b->nvert, N = 3 * nv;
      if (d->geometric && b->H)
        for (PetscInt c = 0; c < b->nc; c++) {
          const PetscReal *S = b->H + c * N * N;
          for (PetscInt r = 0; r < N; r++)
            for (PetscInt t = 0; t < N; t++) a[k++] = (pinned[b->vert[c * nv + r / 3]] || pinned[b->vert[c * nv + t / 3]]) ? 0 : h * h * S[r * N + t];
        }
      for (PetscInt c = 0; c < b->nc; c++) {
        const PetscReal *G = b->G + c * N;
        PetscReal Jv = 0;
        for (PetscInt r = 0; r < N; r++) {
          const PetscInt dof = 3 * b->vert[c * nv + r / 3] + r % 3;
          const PetscReal g = (b->active[c] && !pinned[dof / 3]) ? G[r] : 0;
          a[k++] = g, a[k++] = g;
          Jv += g * d->vk[dof];
        }
        rhs[n + b->off + c] = b->active[c] ? -b->C[c] / h + Jv : 0;
      }
    }
    for (PetscInt q = 0; q < d->nblocks; q++)
      for (PetscInt c = 0; c < d->block[q].nc; c++) a[k++] = d->block[q].active[c] ? -d->block[q].comp[c] / (h * h) : -1;
  } else {
    /* M^-1 b1 into z (scratch), the right-hand side, then the pairs per vertex in BuildPattern's order */
    for (PetscInt i = 0; i < n; i++) d->z[i] = pinned[i / 3] ? 0 : (mass[i] * v[i] + h * d->fext[i]) * d->invm[i / 3];
    for (PetscInt q = 0; q < d->nblocks; q++) {
      const CBlock *b = &d->block[q];
      const PetscInt nv = b->nvert, N = 3 * nv;
      for (PetscInt c = 0; c < b->nc; c++) {
        const PetscReal *G = b->G + c * N;
        PetscReal JMb = 0, Jv = 0;
        for (PetscInt r = 0; r < N; r++) {
          const PetscInt dof = 3 * b->vert[c * nv + r / 3] + r % 3;
          if (!pinned[dof / 3]) JMb += G[r] * d->z[dof], Jv += G[r] * d->vk[dof];
        }
        rhs[b->off + c] = b->active[c] ? -b->C[c] / h + Jv - JMb : 0;
      }
    }
    for (PetscInt v = 0; v < m->nv; v++) {
      if (pinned[v]) continue;
      for (PetscInt p = d->inc_start[v]; p < d->inc_start[v + 1]; p++)
        for (PetscInt r = d->inc_start[v]; r < d->inc_start[v + 1]; r++) {
          const CBlock *bp = &d->block[d->inc_blk[p]], *br = &d->block[d->inc_blk[r]];
          const PetscInt cp = d->inc_slot[p] / bp->nvert, cr = d->inc_slot[r] / br->nvert;
          const PetscReal *gp = bp->G + 3 * d->inc_slot[p], *gr = br->G + 3 * d->inc_slot[r];
          a[k++] = (bp->active[cp] && br->active[cr]) ? d->invm[v] * (gp[0] * gr[0] + gp[1] * gr[1] + gp[2] * gr[2]) : 0;
        }
    }
    for (PetscInt q = 0; q < d->nblocks; q++)
      for (PetscInt c = 0; c < d->block[q].nc; c++) a[k++] = d->block[q].active[c] ? d->block[q].comp[c] / (h * h) : 1;
  }
  PetscCall(VecRestoreArray(d->rhs, &rhs));
  PetscCall(MatSetValuesCOO(d->A, d->coo, INSERT_VALUES));
  PetscFunctionReturn(0);
}

/* From the solution: v (into vk, via scratch) and lambda = mu / h. Returns max |v_new - v_k| h. */
static PetscErrorCode Extract(Compliant *d, SimModel m, PetscReal h, PetscReal *change)
{
  const PetscScalar *sol;
  PetscReal dx = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(d->sol, &sol));
  if (d->solve == 0) {
    for (PetscInt i = 0; i < d->n; i++) {
      const PetscReal v = m->pinned[i / 3] ? 0 : sol[i];
      dx = PetscMax(dx, h * PetscAbsReal(v - d->vk[i]));
      d->vk[i] = v;
    }
    for (PetscInt r = 0; r < d->m; r++) d->lambda[r] = -sol[d->n + r] / h;
  } else {
    /* v = M^-1 (b1 + J^T mu); d->z still holds M^-1 b1 */
    for (PetscInt r = 0; r < d->m; r++) d->lambda[r] = sol[r] / h;
    for (PetscInt q = 0; q < d->nblocks; q++) {
      const CBlock *b = &d->block[q];
      const PetscInt nv = b->nvert, N = 3 * nv;
      for (PetscInt c = 0; c < b->nc; c++) {
        const PetscReal mu = b->active[c] ? sol[b->off + c] : 0;
        for (PetscInt r = 0; r < N; r++) {
          const PetscInt dof = 3 * b->vert[c * nv + r / 3] + r % 3;
          d->z[dof] += d->invm[dof / 3] * b->G[c * N + r] * mu;
        }
      }
    }
    for (PetscInt i = 0; i < d->n; i++) {
      dx = PetscMax(dx, h * PetscAbsReal(d->z[i] - d->vk[i]));
      d->vk[i] = d->z[i];
    }
  }
  PetscCall(VecRestoreArrayRead(d->sol, &sol));
  for (PetscInt q = 0; q < d->nblocks; q++)
    for (PetscInt c = 0; c < d->block[q].nc; c++)
      if (!d->block[q].active[c]) d->lambda[d->block[q].off + c] = 0;
  *change = dx;
  PetscFunctionReturn(0);
}

static PetscErrorCode Step_Compliant(SimSolver s, PetscReal h)
{
  Compliant *d = (Compliant *)s->data;
  SimModel m = SimMeshModel(s->problem);
  const PetscInt n = d->n;
  const PetscScalar *mass;
  PetscScalar *x, *v;
  PetscBool converged = PETSC_FALSE;
  PetscInt lits = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  PetscCall(VecGetArrayRead(m->mass, &mass));
  PetscCall(PetscLogEventBegin(s->ev.force, 0, 0, 0, 0));
  PetscCall(PetscArrayzero(d->fext, n));
  for (PetscInt l = 0; l < d->nlinear; l++) PetscCall(d->linear[l]->ops.gradient(d->linear[l], x, v, d->fext));
  for (PetscInt i = 0; i < n; i++) d->fext[i] = -d->fext[i];
  PetscCall(PetscLogEventEnd(s->ev.force, 0, 0, 0, 0));
  PetscCall(PetscArraycpy(d->xn, x, n));
  PetscCall(PetscArrayzero(d->vk, n));
  d->its = 0;
  for (PetscInt it = 0; it < d->max_it; it++) {
    PetscReal change = 0, motion = 0;
    KSPConvergedReason reason;
    PetscInt kits;
    /* z_k = x_n + h v_k */
    for (PetscInt i = 0; i < n; i++) d->z[i] = d->xn[i] + h * d->vk[i];
    PetscCall(PetscLogEventBegin(s->ev.assemble, 0, 0, 0, 0));
    PetscCall(Evaluate(d, d->z, d->geometric));
    /* the multipliers K~ takes at the first linearization: the force of a compliant constraint at x_n,
     * lambda = -phi(x_n)/c (so one step is the linearly implicit Euler step on the elastic energy), the
     * last step's for a hard one */
    if (it == 0)
      for (PetscInt q = 0; q < d->nblocks; q++)
        for (PetscInt c = 0; c < d->block[q].nc; c++) {
          const CBlock *b = &d->block[q];
          d->lambda[b->off + c] = b->comp[c] > 0 ? -b->C[c] / b->comp[c] : d->lambda_prev[b->off + c];
        }
    if (d->geometric) PetscCall(GeometricBlocks(d));
    PetscCall(Assemble(d, m, h, mass, v));
    PetscCall(PetscLogEventEnd(s->ev.assemble, 0, 0, 0, 0));
    PetscCall(KSPSetOperators(d->ksp, d->A, d->A));
    PetscCall(PetscLogEventBegin(s->ev.factor, 0, 0, 0, 0));
    PetscCall(KSPSetUp(d->ksp));
    PetscCall(PetscLogEventEnd(s->ev.factor, 0, 0, 0, 0));
    PetscCall(PetscLogEventBegin(s->ev.solve, 0, 0, 0, 0));
    PetscCall(KSPSolve(d->ksp, d->rhs, d->sol));
    PetscCall(PetscLogEventEnd(s->ev.solve, 0, 0, 0, 0));
    PetscCall(KSPGetConvergedReason(d->ksp, &reason));
    PetscCall(KSPGetIterationNumber(d->ksp, &kits));
    lits += kits;
    if (reason < 0) {
      s->stats.outcome = SIM_STEP_FAILED;
      PetscCall(PetscSNPrintf(s->stats.reason, sizeof(s->stats.reason),
                              "compliant: the linear solve failed (%s); hard constraints (compliance 0) need independent constraints: give them a small compliance",
                              KSPConvergedReasons[reason]));
      PetscCall(VecRestoreArrayRead(m->mass, &mass));
      PetscCall(VecRestoreArray(m->v, &v));
      PetscCall(VecRestoreArray(m->x, &x));
      PetscFunctionReturn(0);
    }
    PetscCall(Extract(d, m, h, &change));
    d->its++;
    for (PetscInt i = 0; i < n; i++) motion = PetscMax(motion, h * PetscAbsReal(d->vk[i]));
    if (change <= d->rtol * motion) {
      converged = PETSC_TRUE;
      break;
    }
  }
  /* x_{n+1} = x_n + h v_{n+1}; the constraint violation |phi + c lambda| there */
  for (PetscInt i = 0; i < n; i++) v[i] = d->vk[i], x[i] = d->xn[i] + h * d->vk[i];
  PetscCall(Evaluate(d, x, PETSC_FALSE));
  d->violation = 0;
  for (PetscInt q = 0; q < d->nblocks; q++)
    for (PetscInt c = 0; c < d->block[q].nc; c++)
      if (d->block[q].active[c]) d->violation = PetscMax(d->violation, PetscAbsReal(d->block[q].C[c] + d->block[q].comp[c] * d->lambda[d->block[q].off + c]));
  PetscCall(PetscArraycpy(d->lambda_prev, d->lambda, d->m));
  PetscCall(VecRestoreArrayRead(m->mass, &mass));
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArray(m->x, &x));
  s->stats.outcome = (converged || d->max_it == 1) ? SIM_STEP_OK : SIM_STEP_NOT_CONVERGED;
  s->stats.nonlinear_its = d->its;
  s->stats.linear_its = lits;
  s->stats.residual = d->violation;
  s->stats.nhistory = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode Figures_Compliant(SimSolver s, PetscInt *n, const char *names[], PetscReal values[])
{
  Compliant *d = (Compliant *)s->data;

  PetscFunctionBeginUser;
  names[0] = "constraint_violation", values[0] = d->violation;
  names[1] = "constraints", values[1] = (PetscReal)d->m;
  *n = 2;
  PetscFunctionReturn(0);
}

static PetscErrorCode View_Compliant(SimSolver s, PetscViewer viewer)
{
  Compliant *d = (Compliant *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "compliant (Tournier et al. 2015): %s solve, geometric stiffness %s, %" PetscInt_FMT " linearized solve(s) per step;",
                                   solves[d->solve], d->geometric ? "on" : "off", d->max_it));
  for (PetscInt q = 0; q < d->nblocks; q++) PetscCall(PetscViewerASCIIPrintf(viewer, " %s: %" PetscInt_FMT " constraints;", d->block[q].term->name, d->block[q].nc));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(KSPView(d->ksp, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

/* The multipliers carry over (a hard constraint's geometric stiffness takes the last step's). */
static PetscErrorCode Save_Compliant(SimSolver s, PetscViewer viewer)
{
  Compliant *d = (Compliant *)s->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryWrite(viewer, &d->m, 1, PETSC_INT));
  if (d->m) PetscCall(PetscViewerBinaryWrite(viewer, d->lambda_prev, d->m, PETSC_REAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_Compliant(SimSolver s, PetscViewer viewer)
{
  Compliant *d = (Compliant *)s->data;
  PetscInt m;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryRead(viewer, &m, 1, NULL, PETSC_INT));
  PetscCheck(m == d->m, s->comm, PETSC_ERR_FILE_UNEXPECTED, "compliant: the checkpoint has %" PetscInt_FMT " multipliers, this model %" PetscInt_FMT, m, d->m);
  if (m) PetscCall(PetscViewerBinaryRead(viewer, d->lambda_prev, m, NULL, PETSC_REAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_Compliant(SimSolver s)
{
  Compliant *d = (Compliant *)s->data;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < d->nblocks; q++) {
    CBlock *b = &d->block[q];
    PetscCall(PetscFree4(b->vert, b->idx, b->comp, b->active));
    PetscCall(PetscFree2(b->C, b->G));
    PetscCall(PetscFree(b->H));
  }
  PetscCall(PetscFree2(d->lambda, d->lambda_prev));
  PetscCall(PetscFree6(d->fext, d->xn, d->vk, d->z, d->Kv, d->invm));
  PetscCall(PetscFree(d->coo));
  PetscCall(PetscFree(d->inc_start));
  PetscCall(PetscFree2(d->inc_blk, d->inc_slot));
  PetscCall(MatDestroy(&d->A));
  PetscCall(VecDestroy(&d->rhs));
  PetscCall(VecDestroy(&d->sol));
  PetscCall(KSPDestroy(&d->ksp));
  PetscCall(PetscFree(s->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_Compliant(SimSolver s)
{
  static const SimSolverOps ops = {.setfromoptions = SetFromOptions_Compliant,
                                   .setup = Setup_Compliant,
                                   .step = Step_Compliant,
                                   .figures = Figures_Compliant,
                                   .view = View_Compliant,
                                   .save = Save_Compliant,
                                   .load = Load_Compliant,
                                   .destroy = Destroy_Compliant};
  Compliant *d;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  d->geometric = PETSC_TRUE;
  d->geometric_psd = PETSC_TRUE;
  d->max_it = 1;
  d->rtol = 1e-10;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &d->ksp));
  PetscCall(KSPSetOptionsPrefix(d->ksp, "compliant_"));
  PetscCall(SetKSPDefaults(d));
  s->data = d;
  s->ops = ops;
  PetscFunctionReturn(0);
}
