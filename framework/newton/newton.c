/* The Newton minimizer of the incremental potential: Newton-CG preconditioned by the PSD-projected
 * Hessian (or plain projected Newton) with an Armijo line search (see newton.h). */
#include "framework/newton/newton.h"
#include "framework/events.h"
#include "framework/linalg/csr.h"
#include "framework/linalg/psd.h"
#include "framework/linalg/symblock.h"
#include "framework/linalg/single_cholesky.h"

struct _p_SimNewton {
  SimModel model; /* not owned */
  MPI_Comm comm;
  char prefix[64];
  PetscInt n; /* 3*nv */
  /* options */
  PetscReal rtol, atol, vtol;
  PetscReal vtol_rel; /* step criterion relative to the scene: ||p||_inf / beta <= vtol_rel * diameter (0: off) */
  PetscReal diameter; /* the bounding-box diagonal of the model at creation, m */
  PetscInt max_it, ls_max;
  PetscBool psd;
  PetscBool exact_operator; /* Newton-CG: Krylov on the exact Hessian, preconditioned by the projected one */
  PetscInt lag_its;         /* Newton-CG: keep the factorization while the Krylov solve takes <= lag_its */
  PetscBool forcing;        /* inexact Newton: Krylov rtol = max(ksp_rtol, min(0.01, |g_k|/|g_0|)) */
  PetscReal ksp_rtol;       /* the KSP's own rtol: the floor of the forcing term */
  PetscBool pc_sparsify;    /* Newton-CG: factor P (midpoint couplings rerouted, see SparsifySetUp_Newton) instead of H */
  PetscBool symmetric_product; /* Newton-CG: the Krylov operator is Hs, Hx's product from its upper 3x3 blocks */
  PetscBool pc_single;      /* -pc_precision single: the Cholesky factor applied in single precision (single_cholesky.h) */
  PetscBool symmetric_auto; /* -symmetric_product auto: on where the run allows it (one rank, the AIJ Hessian) */
  PetscBool pc_auto;        /* -pc_precision auto: single where it applies (one rank, CHOLMOD's Cholesky, a Krylov KSP) */
  /* state */
  PetscBool newton_cg;       /* the mode of the current minimization (Prepare_Newton) */
  PetscBool krylov;          /* the KSP is not preonly */
  PetscBool pc_ready;        /* the preconditioner holds a factorization */
  PetscBool refactor;        /* the last solve was slow: refactor at the next iteration */
  PetscBool has_dissipation; /* the model has DISSIPATION terms (else D and its derivatives vanish) */
  /* linear algebra, created once: the Hessian pattern is fixed, so the symbolic factorization is
   * reused by every numeric factorization */
  KSP ksp;
  Mat H;  /* the Hessian (projected when psd): the preconditioning matrix */
  Mat Hx; /* the exact Hessian, the Krylov operator (exact_operator only) */
  Mat Hs; /* -symmetric_product: Hx multiplied from its upper blocks (SimSymBlock, a copy refreshed per assembly) */
  /* Parallel layout (see framework/model/model.h): g, p, diag are distributed like the matrix
   * (this rank's rows 3*[vstart, vend)); the objective and the line search work on replicated flat
   * arrays. gfull is the gradient (3*nv, the same on every rank; its owned part is copied into g
   * before a solve) and pall the direction gathered to every rank after it.
   * With a distributed state (model->local_state) the flat arrays are this rank's owned + ghost
   * vertices: gfull is that local gradient, the direction goes into plocal (owned rows from p, ghost
   * rows by one forward exchange) and no array of the whole model exists. */
  Vec g, p, diag;
  PetscReal *gfull;
  Vec pall;
  VecScatter p2all;
  PetscReal *plocal;
  /* flat scratch, 3*nv each: trial point, velocity v(x), a second gradient */
  PetscReal *xt, *vel, *work;
  PetscReal *gt;     /* gradient at the trial point (the line search's gradient test) */
  PetscBool gt_at_x; /* gt is the gradient at the point the line search accepted */
  /* where H was last assembled (x, X, xd: 3 * n) and with which beta: what a checkpoint saves of
   * the lagged factorization (SimNewtonSave) */
  PetscReal *lag_point, lag_beta;
  /* contact-like terms: the model's pattern version each matrix was preallocated for, and the
   * pattern changes seen in the current minimization (SimStepStats.pattern_changes) */
  PetscInt H_version, Hx_version, pattern_changes;
  /* -pc_sparsify: P, the preconditioning matrix with H's couplings (i, j) that have a vertex m at
   * their midpoint rerouted through m (SparsifySetUp_Newton); built for pattern P_version */
  Mat P;
  PetscInt P_version;
  PetscReal *xref;  /* the vertices at creation (3 nv): where midpoints are judged */
  PetscInt nrun;    /* the kept nonzeros of H as runs contiguous in both H and P ... */
  PetscInt *run;    /* ... 3 per run: first place in H, first place in P, length */
  PetscInt ntrip;   /* rerouted couplings (i, j) through m */
  PetscInt *hij;    /* per coupling: the 9 places of block (i, j) in H */
  PetscInt *ppos;   /* per coupling: the 9 places of each block ii, jj, mm, im, mi, mj, jm in P (63) */
  SimEvents ev;
};

static const PetscReal ARMIJO_C = 1e-4; /* sufficient-decrease constant (Nocedal & Wright, 3.4) */

/* v(x) = (x - X) / beta: the velocity the dissipation terms see. */
static void Velocity_Newton(PetscInt n, PetscReal beta, const PetscReal *X, const PetscReal *x, PetscReal *v)
{
  const PetscReal ib = 1.0 / beta;
  for (PetscInt i = 0; i < n; i++) v[i] = (x[i] - X[i]) * ib;
}

/* Phi(x) = 1/(2 beta^2) (x - y)^T M (x - y) + E(x) + beta D(xd, v(x)). *scale is the sum of the
 * magnitudes of the three parts: the size of Phi's round-off, used by the line search. */
static PetscErrorCode Value_Newton(SimNewton nt, PetscReal beta, const PetscReal *y, const PetscReal *X, const PetscReal *xd,
                                   const PetscReal *x, PetscReal *phi, PetscReal *scale)
{
  SimModel model = nt->model;
  const PetscReal *m;
  PetscReal inertia = 0, E = 0, D = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(model->mass, &m));
  for (PetscInt i = 0; i < 3 * model->nown; i++) { /* every vertex, or the owned ones summed over the ranks */
    const PetscReal d = x[i] - y[i];
    if (!model->pinned[i / 3]) inertia += m[i] * d * d;
  }
  PetscCall(VecRestoreArrayRead(model->mass, &m));
  PetscCall(SimModelSumOwned(model, 1, &inertia));
  inertia *= 0.5 / (beta * beta);
  Velocity_Newton(nt->n, beta, X, x, nt->vel);
  PetscCall(SimModelEnergy(model, SIM_ENERGY_POTENTIAL, x, nt->vel, &E));
  if (nt->has_dissipation) PetscCall(SimModelEnergy(model, SIM_ENERGY_DISSIPATION, xd, nt->vel, &D));
  *phi = inertia + E + beta * D;
  if (scale) *scale = PetscAbsReal(inertia) + PetscAbsReal(E) + PetscAbsReal(beta * D);
  PetscFunctionReturn(0);
}

/* grad Phi = M (x - y) / beta^2 + dE/dx(x) + dD/dv(xd, v(x))   (chain rule: d v / dx = I / beta,
 * so the beta in front of D cancels); pinned entries are zero. */
static PetscErrorCode Gradient_Newton(SimNewton nt, PetscReal beta, const PetscReal *y, const PetscReal *X, const PetscReal *xd,
                                      const PetscReal *x, PetscReal *g)
{
  SimModel model = nt->model;
  const PetscReal *m;
  const PetscReal ib2 = 1.0 / (beta * beta);

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(nt->ev.force, 0, 0, 0, 0));
  Velocity_Newton(nt->n, beta, X, x, nt->vel);
  PetscCall(SimModelGradient(model, SIM_ENERGY_POTENTIAL, x, nt->vel, g));
  if (nt->has_dissipation) {
    PetscCall(SimModelGradient(model, SIM_ENERGY_DISSIPATION, xd, nt->vel, nt->work));
    for (PetscInt i = 0; i < nt->n; i++) g[i] += nt->work[i];
  }
  PetscCall(VecGetArrayRead(model->mass, &m));
  for (PetscInt i = 0; i < nt->n; i++) g[i] += m[i] * (x[i] - y[i]) * ib2;
  PetscCall(VecRestoreArrayRead(model->mass, &m));
  PetscCall(SimModelZeroPinned(model, g));
  PetscCall(PetscLogEventEnd(nt->ev.force, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* ---- -pc_sparsify: a cheaper preconditioning matrix for Newton-CG ----
 * A coupling (i, j) of the projected Hessian H whose midpoint (in the configuration at creation) is a
 * vertex m coupled to both (a cloth's bending spring, vertex (i, j) to (i + 2, j) of the grid) widens the
 * matrix's graph, and with it the fill of the Cholesky factor (the 64 x 64 cloth: 424 MFlop and 1.77e6
 * nonzeros in L with these couplings, 116 MFlop and 0.92e6 without). P reroutes each such coupling
 * through m: with B the symmetric part of -H_ij and B+ its PSD projection,
 *   P = H - S_ij(B) + 2 S_im(B+) + 2 S_mj(B+),   S_ab(C) = [C, -C; -C, C] on the vertices (a, b),
 * i.e. the coupling k (u_i - u_j)^T B (u_i - u_j) is replaced by two springs of twice its stiffness
 * through the midpoint. The two agree on every displacement with u_m = (u_i + u_j)/2 and
 * P - H = (u_i - 2 u_m + u_j)^T B+ (...) + S_ij(B+ - B) is PSD, so P is SPD wherever H is, and CG on the
 * exact Hessian preconditioned by P converges about as fast as with H (the bending springs are 1% of the
 * cloth's stiffness). A coupling is rerouted only when its halves (i, m), (m, j) are kept; pinned
 * vertices are left alone. Sequential AIJ Hessians only (else H itself is factored). */
static PetscErrorCode SparsifyDestroy_Newton(SimNewton nt)
{
  PetscFunctionBeginUser;
  PetscCall(MatDestroy(&nt->P));
  PetscCall(PetscFree(nt->run));
  nt->nrun = 0;
  PetscCall(PetscFree2(nt->hij, nt->ppos));
  nt->ntrip = 0;
  PetscFunctionReturn(0);
}

/* Is vertex b a block neighbour of a (the vertex graph: the columns of row 3a that are multiples of 3)? */
static PetscBool Adjacent_Newton(const PetscInt *ia, const PetscInt *ja, PetscInt a, PetscInt b)
{
  return (PetscBool)(SimCsrPlace(ia, ja, 3 * a, 3 * b) >= 0);
}

/* Whether H's kept place q (hp[q] >= 0: its place in P) starts a run of places contiguous in both H
 * and P, i.e. the place before it in H was not copied to the place before it in P. */
static inline PetscBool RunStart_Newton(const PetscInt *hp, PetscInt q)
{
  return (PetscBool)!(q > 0 && hp[q - 1] >= 0 && hp[q - 1] + 1 == hp[q]);
}

/* Finds the couplings to reroute from H's pattern and the positions at creation, and builds P. */
static PetscErrorCode SparsifySetUp_Newton(SimNewton nt)
{
  SimModel m = nt->model;
  const PetscInt nv = m->nv, n = 3 * nv;
  const PetscInt *ia, *ja, *pia, *pja;
  PetscInt nrow, ncand = 0, *cand = NULL, *keep, *nnz, *cols, *hp;
  PetscBool done, isaij;
  PetscReal *zeros;

  PetscFunctionBeginUser;
  PetscCall(SparsifyDestroy_Newton(nt));
  nt->P_version = m->pattern_version;
  PetscCall(PetscObjectTypeCompare((PetscObject)nt->H, MATSEQAIJ, &isaij));
  if (!isaij || m->size > 1 || m->local_state) PetscFunctionReturn(0);
  PetscCall(MatGetRowIJ(nt->H, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
  if (!done || nrow != n) {
    if (done) PetscCall(MatRestoreRowIJ(nt->H, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
    PetscFunctionReturn(0);
  }
  /* candidates (i < j, m): m a common block neighbour at the midpoint of x_i x_j (1% of |x_i - x_j|) */
  for (int pass = 0; pass < 2; pass++) {
    ncand = 0;
    for (PetscInt i = 0; i < nv; i++) {
      if (m->pinned[i]) continue;
      for (PetscInt q = ia[3 * i]; q < ia[3 * i + 1]; q++) {
        const PetscInt j = ja[q] / 3;
        PetscReal mid[3], L2 = 0;
        if (ja[q] % 3 || j <= i || m->pinned[j]) continue;
        for (int d = 0; d < 3; d++) {
          mid[d] = 0.5 * (nt->xref[3 * i + d] + nt->xref[3 * j + d]);
          L2 += PetscSqr(nt->xref[3 * i + d] - nt->xref[3 * j + d]);
        }
        for (PetscInt r = ia[3 * i]; r < ia[3 * i + 1]; r++) {
          const PetscInt k = ja[r] / 3;
          PetscReal e2 = 0;
          if (ja[r] % 3 || k == i || k == j || m->pinned[k]) continue;
          for (int d = 0; d < 3; d++) e2 += PetscSqr(nt->xref[3 * k + d] - mid[d]);
          if (e2 <= 1e-4 * L2 && Adjacent_Newton(ia, ja, k, j)) {
            if (pass) cand[3 * ncand] = i, cand[3 * ncand + 1] = j, cand[3 * ncand + 2] = k;
            ncand++;
            break;
          }
        }
      }
    }
    if (!pass) PetscCall(PetscMalloc1(3 * ncand + 1, &cand));
  }
  /* keep a candidate only when neither half is itself a candidate (their blocks stay in P); the
   * candidates are sorted by (i, j), the order they were found in */
  PetscCall(PetscCalloc1(ncand + 1, &keep));
  for (PetscInt c = 0; c < ncand; c++) {
    PetscBool ok = PETSC_TRUE;
    for (int h = 0; h < 2 && ok; h++) {
      const PetscInt u = cand[3 * c + 2], w = cand[3 * c + h], a = PetscMin(u, w), b = PetscMax(u, w);
      PetscInt lo = 0, hi = ncand - 1;
      while (lo <= hi) {
        const PetscInt mid = lo + (hi - lo) / 2, ci = cand[3 * mid], cj = cand[3 * mid + 1];
        if (ci == a && cj == b) {
          ok = PETSC_FALSE;
          break;
        }
        if (ci < a || (ci == a && cj < b)) lo = mid + 1;
        else hi = mid - 1;
      }
    }
    keep[c] = ok;
    if (ok) nt->ntrip++;
  }
  /* P's pattern: H's without the rerouted blocks (i, j), (j, i) */
  PetscCall(PetscCalloc1(ia[n], &hp)); /* per nonzero of H: its place in P, -1 where the block is dropped */
  for (PetscInt c = 0; c < ncand; c++) {
    if (!keep[c]) continue;
    for (int h = 0; h < 2; h++) {
      const PetscInt a = cand[3 * c + h], b = cand[3 * c + 1 - h];
      for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) hp[SimCsrPlace(ia, ja, 3 * a + r, 3 * b + s)] = -1;
    }
  }
  PetscCall(PetscMalloc3(n, &nnz, n, &cols, n, &zeros));
  PetscCall(PetscArrayzero(zeros, n));
  for (PetscInt r = 0; r < n; r++) {
    nnz[r] = 0;
    for (PetscInt q = ia[r]; q < ia[r + 1]; q++) nnz[r] += hp[q] >= 0;
  }
  PetscCall(MatCreate(PETSC_COMM_SELF, &nt->P));
  PetscCall(MatSetSizes(nt->P, n, n, n, n));
  PetscCall(MatSetType(nt->P, MATSEQAIJ));
  PetscCall(MatSetBlockSize(nt->P, 3));
  PetscCall(MatSeqAIJSetPreallocation(nt->P, 0, nnz));
  for (PetscInt r = 0; r < n; r++) {
    PetscInt cnt = 0;
    for (PetscInt q = ia[r]; q < ia[r + 1]; q++)
      if (hp[q] >= 0) cols[cnt++] = ja[q];
    PetscCall(MatSetValues(nt->P, 1, &r, cnt, cols, zeros, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(nt->P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(nt->P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(nt->P, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(nt->P, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(MatSetOption(nt->P, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree3(nnz, cols, zeros));
  /* the places: H nonzero -> P nonzero (P's rows are H's with entries left out, both sorted) */
  PetscCall(MatGetRowIJ(nt->P, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &pia, &pja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No CSR pattern for the sparsified preconditioning matrix");
  for (PetscInt r = 0; r < n; r++) {
    PetscInt t = pia[r];
    for (PetscInt q = ia[r]; q < ia[r + 1]; q++) {
      if (hp[q] < 0) continue;
      PetscCheck(t < pia[r + 1] && pja[t] == ja[q], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Sparsified pattern mismatch in row %" PetscInt_FMT, r);
      hp[q] = t++;
    }
  }
  /* the copy of H's kept values into P as runs (a few per row: the dropped blocks cut them) */
  nt->nrun = 0;
  for (PetscInt q = 0; q < ia[n]; q++)
    if (hp[q] >= 0 && RunStart_Newton(hp, q)) nt->nrun++;
  PetscCall(PetscMalloc1(3 * nt->nrun + 1, &nt->run));
  for (PetscInt q = 0, k = -1; q < ia[n]; q++) {
    if (hp[q] < 0) continue;
    if (RunStart_Newton(hp, q)) {
      k++;
      nt->run[3 * k] = q, nt->run[3 * k + 1] = hp[q], nt->run[3 * k + 2] = 0;
    }
    nt->run[3 * k + 2]++;
  }
  PetscCall(PetscFree(hp));
  PetscCall(PetscMalloc2(9 * nt->ntrip + 1, &nt->hij, 63 * nt->ntrip + 1, &nt->ppos));
  for (PetscInt c = 0, t = 0; c < ncand; c++) {
    const PetscInt i = cand[3 * c], j = cand[3 * c + 1], k = cand[3 * c + 2];
    const PetscInt blk[7][2] = {{i, i}, {j, j}, {k, k}, {i, k}, {k, i}, {k, j}, {j, k}};
    if (!keep[c]) continue;
    for (int r = 0; r < 3; r++)
      for (int s = 0; s < 3; s++) {
        nt->hij[9 * t + 3 * r + s] = SimCsrPlace(ia, ja, 3 * i + r, 3 * j + s);
        for (int b = 0; b < 7; b++) {
          const PetscInt pl = SimCsrPlace(pia, pja, 3 * blk[b][0] + r, 3 * blk[b][1] + s);
          PetscCheck(pl >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Sparsified pattern lacks a block of a rerouted coupling");
          nt->ppos[63 * t + 9 * b + 3 * r + s] = pl;
        }
      }
    t++;
  }
  PetscCall(MatRestoreRowIJ(nt->P, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &pia, &pja, &done));
  PetscCall(MatRestoreRowIJ(nt->H, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
  PetscCall(PetscFree(cand));
  PetscCall(PetscFree(keep));
  PetscCall(PetscInfo(nt->ksp, "Sparsified preconditioner: %" PetscInt_FMT " couplings rerouted through their midpoint vertex; H copied in %" PetscInt_FMT " runs\n", nt->ntrip, nt->nrun));
  if (!nt->ntrip) PetscCall(SparsifyDestroy_Newton(nt)); /* nothing to gain: factor H */
  PetscFunctionReturn(0);
}

/* P from the freshly assembled H (see SparsifySetUp_Newton). */
static PetscErrorCode SparsifyFill_Newton(SimNewton nt)
{
  const PetscScalar *h;
  PetscScalar *p;

  PetscFunctionBeginUser;
  PetscCall(MatSeqAIJGetArrayRead(nt->H, &h));
  PetscCall(MatSeqAIJGetArrayWrite(nt->P, &p));
  for (PetscInt k = 0; k < nt->nrun; k++) { /* H's kept values (runs of ~9) */
    const PetscScalar *src = h + nt->run[3 * k];
    PetscScalar *dst = p + nt->run[3 * k + 1];
    for (PetscInt e = 0; e < nt->run[3 * k + 2]; e++) dst[e] = src[e];
  }
  for (PetscInt t = 0; t < nt->ntrip; t++) {
    static const PetscReal w[7] = {2, 2, 4, -2, -2, -2, -2}; /* B+ weights of ii, jj, mm, im, mi, mj, jm */
    PetscReal B[9], Bp[9];
    const PetscInt *pp = nt->ppos + 63 * t;
    for (int r = 0; r < 3; r++)
      for (int s = 0; s < 3; s++) B[3 * r + s] = -0.5 * (h[nt->hij[9 * t + 3 * r + s]] + h[nt->hij[9 * t + 3 * s + r]]);
    PetscCall(PetscArraycpy(Bp, B, 9));
    PetscCall(SimSymProjectPSD(3, Bp));
    for (int b = 0; b < 7; b++)
      for (int e = 0; e < 9; e++) p[pp[9 * b + e]] += w[b] * Bp[e] - (b < 2 ? B[e] : 0.0);
  }
  PetscCall(MatSeqAIJRestoreArrayWrite(nt->P, &p));
  PetscCall(MatSeqAIJRestoreArrayRead(nt->H, &h));
  PetscCall(MatAssemblyBegin(nt->P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(nt->P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(nt->P, MAT_SPD, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* Hessian = M / beta^2 + d2E/dx2(x) + (1/beta) d2D/dv2(xd, v(x)), pinned rows/columns identity.
 * H gets the per-term PSD projection when psd is on; Hx (Newton-CG mode only) the exact Hessian.
 * pmat false skips H: the preconditioner's lagged factorization is kept. */
static PetscErrorCode Hessian_Newton(SimNewton nt, PetscReal beta, const PetscReal *X, const PetscReal *xd, const PetscReal *x,
                                     PetscBool pmat)
{
  const PetscReal cM = 1.0 / (beta * beta), cD = nt->has_dissipation ? 1.0 / beta : 0.0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(nt->ev.assemble, 0, 0, 0, 0));
  Velocity_Newton(nt->n, beta, X, x, nt->vel);
  if (pmat) {
    /* where the preconditioning matrix is assembled: a checkpoint restores it from these */
    if (!nt->lag_point) PetscCall(PetscMalloc1(3 * nt->n, &nt->lag_point));
    if (nt->lag_point != x) PetscCall(PetscArraycpy(nt->lag_point, x, nt->n));
    PetscCall(PetscArraycpy(nt->lag_point + nt->n, X, nt->n));
    PetscCall(PetscArraycpy(nt->lag_point + 2 * nt->n, xd, nt->n));
    nt->lag_beta = beta;
    PetscCall(SimModelHessianAssemble(nt->model, x, xd, nt->vel, cM, 1.0, cD, nt->psd, nt->H));
    /* Assembly may reset the structural flags; restate them so Cholesky/ICC/CG accept the matrix. */
    PetscCall(MatSetOption(nt->H, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatSetOption(nt->H, MAT_SPD, nt->psd));
    if (nt->pc_sparsify && nt->newton_cg) {
      if (nt->P_version != nt->model->pattern_version) PetscCall(SparsifySetUp_Newton(nt));
      if (nt->P) PetscCall(SparsifyFill_Newton(nt));
    }
  }
  if (nt->Hx) {
    PetscCall(SimModelHessianAssemble(nt->model, x, xd, nt->vel, cM, 1.0, cD, PETSC_FALSE, nt->Hx));
    PetscCall(MatSetOption(nt->Hx, MAT_SYMMETRIC, PETSC_TRUE));
    if (nt->Hs) PetscCall(SimSymBlockUpdate(nt->Hs)); /* the copy of the upper blocks: counted in the assembly */
  }
  PetscCall(PetscLogEventEnd(nt->ev.assemble, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* Chooses the mode from the options and the KSP type, once per minimization: Newton-CG on the
 * exact Hessian (psd, exact_operator and a Krylov method) or the plain projected Newton. */
static PetscErrorCode Prepare_Newton(SimNewton nt)
{
  PetscBool preonly;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)nt->ksp, KSPPREONLY, &preonly));
  nt->krylov = (PetscBool)!preonly;
  nt->newton_cg = (PetscBool)(nt->psd && nt->exact_operator && !preonly);
  if (nt->newton_cg && !nt->Hx) {
    PetscCall(SimModelHessianCreate(nt->model, &nt->Hx));
    nt->Hx_version = nt->model->pattern_version;
    PetscCall(MatSetOption(nt->Hx, MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatSetOption(nt->Hx, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  }
  if (nt->newton_cg && nt->symmetric_product && !nt->Hs) PetscCall(SimSymBlockCreate(nt->Hx, &nt->Hs));
  if (!nt->newton_cg || !nt->symmetric_product) PetscCall(MatDestroy(&nt->Hs));
  if (!nt->newton_cg) PetscCall(MatDestroy(&nt->Hx));
  PetscFunctionReturn(0);
}

/* One linear solve for the direction: H p = -g (projected Newton), or Hx p = -g by the Krylov
 * method preconditioned with the factorization of H (Newton-CG). *slope = g.p. */
static PetscErrorCode Solve_Newton(SimNewton nt, PetscBool reuse, PetscInt *its, KSPConvergedReason *reason, PetscReal *slope)
{
  PetscFunctionBeginUser;
  PetscCall(KSPSetOperators(nt->ksp, nt->Hs ? nt->Hs : nt->Hx ? nt->Hx : nt->H, nt->P && nt->newton_cg ? nt->P : nt->H));
  PetscCall(KSPSetReusePreconditioner(nt->ksp, reuse));
  PetscCall(PetscLogEventBegin(nt->ev.factor, 0, 0, 0, 0));
  PetscCall(KSPSetUp(nt->ksp));
  PetscCall(PetscLogEventEnd(nt->ev.factor, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(nt->ev.solve, 0, 0, 0, 0));
  PetscCall(KSPSolve(nt->ksp, nt->g, nt->p));
  PetscCall(PetscLogEventEnd(nt->ev.solve, 0, 0, 0, 0));
  PetscCall(VecScale(nt->p, -1.0));
  PetscCall(KSPGetIterationNumber(nt->ksp, its));
  PetscCall(KSPGetConvergedReason(nt->ksp, reason));
  PetscCall(VecDot(nt->g, nt->p, slope));
  PetscFunctionReturn(0);
}

static PetscBool Descent_Newton(PetscReal slope)
{
  return (PetscBool)(slope < 0 && !PetscIsInfOrNanReal(slope));
}

/* The owned part of the replicated gradient gfull into the distributed Vec g. */
static PetscErrorCode SetGradient_Newton(SimNewton nt)
{
  PetscScalar *g;
  PetscInt nlocal;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(nt->g, &nlocal));
  PetscCall(VecGetArray(nt->g, &g));
  PetscCall(PetscArraycpy(g, nt->gfull + 3 * SimModelOwnedFirst(nt->model), nlocal));
  PetscCall(VecRestoreArray(nt->g, &g));
  PetscFunctionReturn(0);
}

/* The direction as a flat array of the model's local vertices (all of them when replicated). */
static PetscErrorCode GetDirection_Newton(SimNewton nt, const PetscReal **p)
{
  PetscFunctionBeginUser;
  if (nt->plocal) *p = nt->plocal;
  else PetscCall(VecGetArrayRead(nt->pall, p));
  PetscFunctionReturn(0);
}

static PetscErrorCode RestoreDirection_Newton(SimNewton nt, const PetscReal **p)
{
  PetscFunctionBeginUser;
  if (nt->plocal) *p = NULL;
  else PetscCall(VecRestoreArrayRead(nt->pall, p));
  PetscFunctionReturn(0);
}

/* The distributed direction p gathered into pall on every rank (the line search needs all of it).
 * Pinned entries are zeroed first: a direct solve gives exactly 0 there (identity rows, zero
 * gradient), an iterative one (CG + GAMG) only approximately, and a pinned vertex must not move. */
static PetscErrorCode GatherDirection_Newton(SimNewton nt)
{
  SimModel m = nt->model;
  const PetscInt first = SimModelOwnedFirst(m), nown = m->vend - m->vstart;
  PetscScalar *p;

  PetscFunctionBeginUser;
  if (m->npinned) {
    PetscCall(VecGetArray(nt->p, &p));
    for (PetscInt i = 0; i < nown; i++)
      if (m->pinned[first + i]) p[3 * i] = p[3 * i + 1] = p[3 * i + 2] = 0;
    PetscCall(VecRestoreArray(nt->p, &p));
  }
  if (m->local_state) { /* owned rows, then the ghosts' from their owners */
    PetscCall(VecGetArray(nt->p, &p));
    PetscCall(PetscArraycpy(nt->plocal, p, 3 * nown));
    PetscCall(VecRestoreArray(nt->p, &p));
    PetscCall(SimModelGhostUpdate(m, nt->plocal));
    PetscFunctionReturn(0);
  }
  PetscCall(VecScatterBegin(nt->p2all, nt->p, nt->pall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(nt->p2all, nt->p, nt->pall, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}

/* The Newton direction at x (gradient in nt->g), into nt->p, with its slope g.p < 0.
 * Newton-CG: CG on the exact Hessian, preconditioned by the Cholesky factorization of the projected
 * Hessian. The factorization is lagged (kept across iterations and steps) while CG needs at most
 * lag_its iterations. Where the exact Hessian is indefinite CG stops early (its direction is then
 * still checked for descent); an unusable direction is retried with a fresh factorization, then
 * replaced by the projected Newton direction -H^-1 g (one preconditioner application).
 * Projected Newton (psd without Newton-CG, or psd off): H p = -g, refactored every iteration.
 * gratio = |g_k|/|g_0| sets the Krylov tolerance when forcing is on.
 * Last resort (possible with -newton_psd 0): the Jacobi-scaled gradient -g/|diag H|. */
static PetscErrorCode Direction_Newton(SimNewton nt, PetscReal beta, const PetscReal *X, const PetscReal *xd, const PetscReal *x,
                                       PetscReal gratio, PetscInt *its, PetscReal *slope, PetscBool *lagged)
{
  KSPConvergedReason reason;
  PetscBool fresh, changed;
  PetscInt it;

  PetscFunctionBeginUser;
  /* A term whose Hessian pattern follows x (contact): new structure, so a new symbolic factorization. */
  PetscCall(SimModelHessianUpdatePattern(nt->model, x, &changed));
  if (nt->H_version != nt->model->pattern_version) {
    PetscCall(SimModelHessianRepreallocate(nt->model, nt->H));
    nt->H_version = nt->model->pattern_version;
    nt->pc_ready = PETSC_FALSE;
    nt->pattern_changes++;
  }
  if (nt->Hx && nt->Hx_version != nt->model->pattern_version) {
    PetscCall(SimModelHessianRepreallocate(nt->model, nt->Hx));
    nt->Hx_version = nt->model->pattern_version;
  }
  fresh = (PetscBool)(!nt->newton_cg || !nt->pc_ready || nt->refactor);
  /* Inexact Newton forcing term (Eisenstat & Walker 1996, choice eta_k ~ |g_k|/|g_0|): loose solves
   * far from the minimizer, tighter ones near it, which keeps the convergence superlinear. */
  if (nt->krylov && nt->forcing)
    PetscCall(
        KSPSetTolerances(nt->ksp, PetscMax(nt->ksp_rtol, PetscMin(0.01, gratio)), PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(Hessian_Newton(nt, beta, X, xd, x, fresh));
  PetscCall(Solve_Newton(nt, (PetscBool)!fresh, &it, &reason, slope));
  *its = it;
  nt->pc_ready = PETSC_TRUE;
  if (nt->newton_cg && !fresh && (!Descent_Newton(*slope) || reason < 0)) {
    PetscCall(PetscInfo(nt->ksp, "Lagged preconditioner failed (%s): refactoring\n", KSPConvergedReasons[reason]));
    PetscCall(Hessian_Newton(nt, beta, X, xd, x, PETSC_TRUE));
    PetscCall(Solve_Newton(nt, PETSC_FALSE, &it, &reason, slope));
    *its += it;
    fresh = PETSC_TRUE;
  }
  /* Lag policy: refactor at the next iteration when this solve was slow. */
  nt->refactor = (PetscBool)(nt->newton_cg && (it > nt->lag_its || reason < 0));
  if (nt->newton_cg && !Descent_Newton(*slope)) {
    PC pc;

    PetscCall(PetscInfo(nt->ksp, "Exact-Hessian direction unusable (%s, g.p = %g): projected Newton direction\n",
                        KSPConvergedReasons[reason], (double)*slope));
    PetscCall(KSPGetPC(nt->ksp, &pc));
    PetscCall(PCApply(pc, nt->g, nt->p));
    PetscCall(VecScale(nt->p, -1.0));
    PetscCall(VecDot(nt->g, nt->p, slope));
  }
  if (!Descent_Newton(*slope)) {
    const PetscReal *g, *d;
    PetscReal *p;
    PetscInt nlocal;

    PetscCall(PetscInfo(nt->ksp, "Newton direction unusable (%s, g.p = %g): scaled gradient instead\n",
                        KSPConvergedReasons[reason], (double)*slope));
    PetscCall(MatGetDiagonal(nt->H, nt->diag));
    PetscCall(VecGetArrayRead(nt->g, &g));
    PetscCall(VecGetArrayRead(nt->diag, &d));
    PetscCall(VecGetArray(nt->p, &p));
    PetscCall(VecGetLocalSize(nt->p, &nlocal));
    for (PetscInt i = 0; i < nlocal; i++) {
      const PetscReal a = PetscAbsReal(d[i]);
      p[i] = -g[i] / (a > 0 ? a : 1.0);
    }
    PetscCall(VecRestoreArray(nt->p, &p));
    PetscCall(VecRestoreArrayRead(nt->diag, &d));
    PetscCall(VecRestoreArrayRead(nt->g, &g));
    PetscCall(VecDot(nt->g, nt->p, slope));
  }
  *lagged = (PetscBool)(nt->newton_cg && !fresh);
  PetscCall(GatherDirection_Newton(nt));
  PetscFunctionReturn(0);
}

/* Backtracking (Armijo) line search from x along p: the first alpha = 2^-j with
 *   Phi(x + alpha p) <= Phi(x) + c alpha g.p + slack,
 * where slack = 64 eps * scale absorbs the round-off of Phi near the minimum (there the decrease is
 * below what double precision resolves). On success x = x + alpha p and *phi is updated;
 * *phiscale is the round-off scale of *phi (in: at x; out: at the accepted point);
 * *ok is false after ls_max halvings (x unchanged).
 * Round-off regime: where the decrease the full step predicts (-g.p) is within ROUNDOFF_FLAT slacks, Phi
 * cannot judge the step (its evaluation error is about the slack, the decrease not much larger), and an
 * Armijo test on it accepts or cuts the step at random: a cut Newton step then reduces the gradient by
 * only 1 - alpha per iteration and Newton crawls (seen on the twist: 17-30 iterations at |g| ~ 1e-6 with
 * steps of 1e-10 m, the count changing with the last bit of the Hessian). There the full step is judged
 * first by the gradient norm, the quantity the stopping test drives to 0; only a step that does not
 * reduce it goes through the Armijo search. */
static const PetscReal ROUNDOFF_FLAT = 1e4;

/* Accepts x + alpha p (xt) when Phi is finite there and the gradient norm decreases from |g(x)|. */
static PetscErrorCode GradientTest_Newton(SimNewton nt, PetscReal beta, const PetscReal *y, const PetscReal *X,
                                          const PetscReal *xd, PetscReal *x, const PetscReal *p, PetscReal alpha, PetscReal *phi,
                                          PetscReal *phiscale, PetscBool *ok)
{
  PetscReal g0, g1 = 0, trial, tscale;

  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  PetscCall(VecNorm(nt->g, NORM_2, &g0));
  for (PetscInt i = 0; i < nt->n; i++) nt->xt[i] = x[i] + alpha * p[i];
  PetscCall(Value_Newton(nt, beta, y, X, xd, nt->xt, &trial, &tscale));
  if (PetscIsInfOrNanReal(trial)) PetscFunctionReturn(0);
  PetscCall(Gradient_Newton(nt, beta, y, X, xd, nt->xt, nt->gt));
  /* the same norm as VecNorm(g): each DOF once (replicated: rows [vstart, vend) summed over the ranks) */
  {
    const PetscInt first = 3 * SimModelOwnedFirst(nt->model), nown = 3 * (nt->model->vend - nt->model->vstart);
    for (PetscInt i = first; i < first + nown; i++) g1 += nt->gt[i] * nt->gt[i];
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &g1, 1, MPIU_REAL, MPIU_SUM, nt->comm));
  }
  g1 = PetscSqrtReal(g1);
  if (g1 < g0) {
    PetscCall(PetscArraycpy(x, nt->xt, nt->n));
    nt->gt_at_x = PETSC_TRUE;
    *phi = trial;
    *phiscale = tscale;
    *ok = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode LineSearch_Newton(SimNewton nt, PetscReal beta, const PetscReal *y, const PetscReal *X, const PetscReal *xd,
                                        PetscReal *x, PetscReal slope, PetscReal *phi, PetscReal *phiscale, PetscInt *cuts,
                                        PetscBool *ok)
{
  const PetscReal *p;
  PetscReal alpha, alpha_max, slack = 64 * PETSC_MACHINE_EPSILON * *phiscale;
  const PetscBool flat = (PetscBool)(-slope <= ROUNDOFF_FLAT * slack);

  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  PetscCall(PetscLogEventBegin(nt->ev.linesearch, 0, 0, 0, 0));
  PetscCall(GetDirection_Newton(nt, &p));
  /* terms that bound the step (IPC's CCD): no trial point is ever past their admissible step */
  PetscCall(SimModelMaxStep(nt->model, x, p, &alpha_max));
  alpha = alpha_max;
  if (alpha_max == 0) { /* no admissible motion along p at all */
    PetscCall(RestoreDirection_Newton(nt, &p));
    PetscCall(PetscLogEventEnd(nt->ev.linesearch, 0, 0, 0, 0));
    PetscFunctionReturn(0);
  }
  if (flat) PetscCall(GradientTest_Newton(nt, beta, y, X, xd, x, p, alpha_max, phi, phiscale, ok));
  for (PetscInt j = 0; !*ok && j <= nt->ls_max; j++, alpha *= 0.5) {
    PetscReal trial, tscale;

    for (PetscInt i = 0; i < nt->n; i++) nt->xt[i] = x[i] + alpha * p[i];
    PetscCall(Value_Newton(nt, beta, y, X, xd, nt->xt, &trial, &tscale));
    if (!PetscIsInfOrNanReal(trial) && trial <= *phi + ARMIJO_C * alpha * slope + slack) {
      PetscCall(PetscArraycpy(x, nt->xt, nt->n));
      *phi = trial;
      *phiscale = tscale;
      *ok = PETSC_TRUE;
      break;
    }
    (*cuts)++;
  }
  PetscCall(RestoreDirection_Newton(nt, &p));
  PetscCall(PetscLogEventEnd(nt->ev.linesearch, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

static void Record_Newton(SimStepStats *st, PetscInt k, PetscReal gnorm, PetscReal phi)
{
  if (k < SIM_MAX_HISTORY) {
    st->history[k] = gnorm;
    st->objective[k] = phi;
    st->nhistory = k + 1;
  }
  st->residual = gnorm;
}

/* The six rigid-body modes at the current positions (owned vertices) as the near-null space of the
 * preconditioning matrix: what algebraic multigrid (-newton_pc_type gamg) needs to build good coarse
 * spaces for elasticity; direct solvers ignore it. */
static PetscErrorCode AttachRigidBodyModes_Newton(SimNewton nt)
{
  SimModel m = nt->model;
  MatNullSpace nsp;
  Vec coords;
  const PetscScalar *x;
  PetscScalar *c;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(nt->g, &coords));
  PetscCall(VecSetBlockSize(coords, 3));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArray(coords, &c));
  PetscCall(PetscArraycpy(c, x + 3 * SimModelOwnedFirst(m), 3 * (m->vend - m->vstart)));
  PetscCall(VecRestoreArray(coords, &c));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscCall(MatNullSpaceCreateRigidBody(coords, &nsp));
  PetscCall(MatSetNearNullSpace(nt->H, nsp));
  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(VecDestroy(&coords));
  PetscFunctionReturn(0);
}

PetscErrorCode SimNewtonCreate(SimModel model, const char *prefix, SimNewton *newton)
{
  SimNewton nt;
  PC pc;

  PetscFunctionBeginUser;
  PetscCheck(model, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "SimNewtonCreate needs a model");
  PetscCheck(model->nv > 0, model->comm, PETSC_ERR_ARG_WRONGSTATE, "SimNewtonCreate: the model has no vertices");
  PetscCall(PetscNew(&nt));
  nt->model = model;
  nt->comm = model->comm;
  nt->n = 3 * model->nv;
  PetscCall(PetscStrncpy(nt->prefix, prefix ? prefix : "newton_", sizeof(nt->prefix)));
  nt->rtol = 1e-8;
  nt->atol = 1e-10;
  nt->vtol = 1e-9;
  nt->max_it = 50;
  { /* the scene's size, for -vtol_rel */
    const PetscScalar *x;
    PetscReal lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL};
    PetscCall(VecGetArrayRead(model->x, &x));
    for (PetscInt i = 0; i < model->nv; i++)
      for (int d = 0; d < 3; d++) lo[d] = PetscMin(lo[d], x[3 * i + d]), hi[d] = PetscMax(hi[d], x[3 * i + d]);
    PetscCall(VecRestoreArrayRead(model->x, &x));
    if (model->local_state) { /* each rank sees its vertices only */
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, lo, 3, MPIU_REAL, MPIU_MIN, model->comm));
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, hi, 3, MPIU_REAL, MPIU_MAX, model->comm));
    }
    nt->diameter = PetscSqrtReal(PetscSqr(hi[0] - lo[0]) + PetscSqr(hi[1] - lo[1]) + PetscSqr(hi[2] - lo[2]));
  }
  nt->ls_max = 30;
  nt->psd = PETSC_TRUE;
  nt->exact_operator = PETSC_TRUE;
  nt->lag_its = 25;
  nt->forcing = PETSC_TRUE;
  nt->ksp_rtol = 1e-6;
  nt->P_version = -1;
  if (!model->local_state) { /* the configuration at creation, where -pc_sparsify judges midpoints */
    const PetscScalar *x;
    PetscCall(PetscMalloc1(nt->n, &nt->xref));
    PetscCall(VecGetArrayRead(model->x, &x));
    PetscCall(PetscArraycpy(nt->xref, x, nt->n));
    PetscCall(VecRestoreArrayRead(model->x, &x));
  }
  for (PetscInt t = 0; t < model->nterms; t++)
    if (model->term[t]->kind == SIM_ENERGY_DISSIPATION) nt->has_dissipation = PETSC_TRUE;
  PetscCall(SimEventsGet(&nt->ev));

  PetscCall(SimModelHessianSetISFromOptions(model, nt->prefix)); /* -<prefix>pc_type bddc: an unassembled (MATIS) Hessian */
  PetscCall(SimModelHessianCreate(model, &nt->H));
  PetscCall(MatSetOption(nt->H, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(nt->H, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(MatCreateVecs(nt->H, &nt->p, &nt->g));
  PetscCall(VecDuplicate(nt->g, &nt->diag));
  if (model->local_state) PetscCall(PetscMalloc1(nt->n, &nt->plocal));
  else PetscCall(VecScatterCreateToAll(nt->p, &nt->p2all, &nt->pall));
  PetscCall(PetscMalloc5(nt->n, &nt->xt, nt->n, &nt->vel, nt->n, &nt->work, nt->n, &nt->gt, nt->n, &nt->gfull));
  PetscCall(AttachRigidBodyModes_Newton(nt));

  /* Defaults before KSPSetFromOptions, so -<prefix>ksp_type / -<prefix>pc_type override them. */
  PetscCall(KSPCreate(nt->comm, &nt->ksp));
  PetscCall(KSPSetOptionsPrefix(nt->ksp, nt->prefix));
  PetscCall(KSPSetType(nt->ksp, KSPCG));
  PetscCall(KSPSetTolerances(nt->ksp, 1e-6, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(KSPGetPC(nt->ksp, &pc));
  PetscCall(PCSetType(pc, PCCHOLESKY));
  /* CHOLMOD is sequential; on several ranks the parallel Cholesky of MUMPS */
  PetscCall(PCFactorSetMatSolverType(pc, model->size > 1 ? MATSOLVERMUMPS : MATSOLVERCHOLMOD));
  *newton = nt;
  PetscFunctionReturn(0);
}

/* -pc_precision: the Cholesky preconditioner (CHOLMOD on one rank) becomes the single-precision one,
 * or back. It applies to CHOLMOD's Cholesky on one rank: auto takes it there under a Krylov method and
 * leaves any other choice alone; single elsewhere is an error naming what is in the way. */
static PetscErrorCode SetPrecision_Newton(SimNewton nt)
{
  PC pc;
  PCType type;
  PetscBool single, chol, cholmod = PETSC_FALSE, preonly;
  MatSolverType st = NULL;

  PetscFunctionBeginUser;
  PetscCall(KSPGetPC(nt->ksp, &pc));
  PetscCall(SimPCIsSingleCholesky(pc, &single));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCCHOLESKY, &chol));
  if (chol) PetscCall(PCFactorGetMatSolverType(pc, &st));
  if (st) PetscCall(PetscStrcmp(st, MATSOLVERCHOLMOD, &cholmod));
  PetscCall(PetscObjectTypeCompare((PetscObject)nt->ksp, KSPPREONLY, &preonly));
  if (nt->pc_auto) nt->pc_single = (PetscBool)(single || (nt->model->size == 1 && cholmod && !preonly));
  if (single == nt->pc_single) PetscFunctionReturn(0);
  if (!nt->pc_single) { /* back to the default */
    PetscCall(PCSetType(pc, PCCHOLESKY));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERCHOLMOD));
    PetscFunctionReturn(0);
  }
  PetscCheck(nt->model->size == 1, nt->comm, PETSC_ERR_SUP,
             "-%spc_precision single needs one rank (its factorization is CHOLMOD's); on %d ranks the Cholesky factorization "
             "is MUMPS's, applied in double",
             nt->prefix, nt->model->size);
  PetscCall(PCGetType(pc, &type));
  PetscCheck(chol, nt->comm, PETSC_ERR_SUP,
             "-%spc_precision single applies to the Cholesky preconditioner (-%spc_type cholesky, the default), not -%spc_type %s",
             nt->prefix, nt->prefix, nt->prefix, type);
  PetscCheck(cholmod, nt->comm, PETSC_ERR_SUP,
             "-%spc_precision single applies to CHOLMOD's factorization (the default on one rank), not -%spc_factor_mat_solver_type %s",
             nt->prefix, nt->prefix, st ? st : "(none)");
  PetscCall(SimPCSetSingleCholesky(pc));
  PetscFunctionReturn(0);
}

PetscErrorCode SimNewtonSetFromOptions(SimNewton nt)
{
  PetscFunctionBeginUser;
  PetscOptionsBegin(nt->comm, nt->prefix, "Newton minimizer of the incremental potential", "SimNewton");
  PetscCall(PetscOptionsReal("-rtol", "Relative gradient tolerance (to the gradient at the guess), in [0, 1)",
                             "SimNewtonMinimize", nt->rtol, &nt->rtol, NULL));
  PetscCall(PetscOptionsReal("-atol", "Absolute gradient tolerance, N, >= 0", "SimNewtonMinimize", nt->atol, &nt->atol, NULL));
  PetscCall(PetscOptionsReal("-vtol", "Step tolerance ||p||_inf/beta, m/s, >= 0 (0: off)", "SimNewtonMinimize", nt->vtol,
                             &nt->vtol, NULL));
  PetscCall(PetscOptionsReal("-vtol_rel",
                             "Step tolerance relative to the scene (the contact criterion of Li et al. 2020): converged when "
                             "||p||_inf/beta <= vtol_rel * (bounding-box diagonal), 1/s; the gradient tests off; >= 0 (0: off)",
                             "SimNewtonMinimize", nt->vtol_rel, &nt->vtol_rel, NULL));
  PetscCall(
      PetscOptionsInt("-max_it", "Newton iterations per minimization, >= 1", "SimNewtonMinimize", nt->max_it, &nt->max_it, NULL));
  PetscCall(PetscOptionsInt("-ls_max", "Line-search halvings before giving up, in [0, 60]", "SimNewtonMinimize", nt->ls_max,
                            &nt->ls_max, NULL));
  PetscCall(PetscOptionsBool("-psd", "Project each term's Hessian onto PSD", "SimNewtonMinimize", nt->psd, &nt->psd, NULL));
  PetscCall(PetscOptionsBool(
      "-exact_operator",
      "Newton-CG: with -psd and a Krylov -ksp_type, the exact Hessian is the operator, the projected one the preconditioner",
      "SimNewtonMinimize", nt->exact_operator, &nt->exact_operator, NULL));
  PetscCall(PetscOptionsBool("-forcing", "Inexact Newton: Krylov rtol = max(-ksp_rtol, min(0.01, |g_k|/|g_0|))",
                             "SimNewtonMinimize", nt->forcing, &nt->forcing, NULL));
  PetscCall(PetscOptionsInt("-pc_lag_its",
                            "Newton-CG: keep the preconditioner's factorization while the Krylov solve takes at most this many "
                            "iterations (0: refactor every iteration)",
                            "SimNewtonMinimize", nt->lag_its, &nt->lag_its, NULL));
  PetscCall(PetscOptionsBool("-pc_sparsify",
                             "Newton-CG: factor the projected Hessian with each coupling that has a vertex at its midpoint (a cloth's "
                             "bending springs) rerouted through that vertex: a sparser factor, about as good a preconditioner",
                             "SimNewtonMinimize", nt->pc_sparsify, &nt->pc_sparsify, NULL));
  {
    /* true, false or auto; a bare -symmetric_product is true */
    char val[16];
    PetscBool set, b;

    PetscCall(PetscOptionsString("-symmetric_product",
                                 "Newton-CG, one rank: multiply by the exact Hessian from its upper 3x3 blocks (half the bytes of the AIJ "
                                 "product; a different summation order, so different round-off): true, false, or auto (true where the run "
                                 "allows it: one rank, the AIJ Hessian)",
                                 "SimNewtonMinimize", nt->symmetric_auto ? "auto" : nt->symmetric_product ? "true" : "false", val,
                                 sizeof(val), &set));
    if (set) {
      PetscCall(PetscStrcasecmp(val, "auto", &nt->symmetric_auto));
      if (!val[0]) nt->symmetric_product = PETSC_TRUE;
      else if (!nt->symmetric_auto) {
        const char *const ok[] = {"true", "false", "yes", "no", "on", "off", "1", "0"};
        PetscBool known = PETSC_FALSE;
        for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]) && !known; i++) PetscCall(PetscStrcasecmp(val, ok[i], &known));
        PetscCheck(known, nt->comm, PETSC_ERR_ARG_WRONG, "-%ssymmetric_product %s: must be true, false or auto", nt->prefix, val);
        PetscCall(PetscOptionsStringToBool(val, &b));
        nt->symmetric_product = b;
      }
    }
  }
  {
    const char *const precisions[] = {"double", "single", "auto"};
    PetscInt which = nt->pc_auto ? 2 : nt->pc_single ? 1 : 0;
    PetscCall(PetscOptionsEList("-pc_precision",
                                "Precision the Cholesky preconditioner's factor is applied in: single stores CHOLMOD's factor as "
                                "floats (half the bytes per triangular solve; one rank); auto: single where it applies (one rank, "
                                "CHOLMOD's Cholesky preconditioning a Krylov method), double elsewhere",
                                "SimNewtonMinimize", precisions, 3, precisions[which], &which, NULL));
    nt->pc_auto = (PetscBool)(which == 2);
    nt->pc_single = (PetscBool)(which == 1);
  }
  PetscOptionsEnd();
  if (nt->symmetric_auto) nt->symmetric_product = (PetscBool)(nt->model->size == 1 && !nt->model->hessian_is);
  PetscCheck(!nt->symmetric_product || (nt->model->size == 1 && !nt->model->hessian_is), nt->comm, PETSC_ERR_SUP,
             "-%ssymmetric_product needs the one-rank AIJ Hessian; this run has %d ranks%s: leave the option off", nt->prefix,
             nt->model->size, nt->model->hessian_is ? " and an unassembled (MATIS) Hessian" : "");
  PetscCheck(nt->rtol >= 0 && nt->rtol < 1, nt->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%srtol %g is out of range: must be in [0, 1)",
             nt->prefix, (double)nt->rtol);
  PetscCheck(nt->atol >= 0, nt->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%satol %g is out of range: must be >= 0", nt->prefix,
             (double)nt->atol);
  PetscCheck(nt->vtol >= 0, nt->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%svtol %g is out of range: must be >= 0", nt->prefix,
             (double)nt->vtol);
  PetscCheck(nt->vtol_rel >= 0, nt->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%svtol_rel %g is out of range: must be >= 0", nt->prefix,
             (double)nt->vtol_rel);
  PetscCheck(nt->rtol > 0 || nt->atol > 0 || nt->vtol > 0 || nt->vtol_rel > 0, nt->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-%srtol, -%satol, -%svtol and -%svtol_rel are all 0: Newton could never converge; set one > 0", nt->prefix, nt->prefix,
             nt->prefix, nt->prefix);
  PetscCheck(nt->max_it >= 1, nt->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smax_it %" PetscInt_FMT " is out of range: must be >= 1",
             nt->prefix, nt->max_it);
  PetscCheck(nt->ls_max >= 0 && nt->ls_max <= 60, nt->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-%sls_max %" PetscInt_FMT " is out of range: must be in [0, 60]", nt->prefix, nt->ls_max);
  PetscCheck(nt->lag_its >= 0, nt->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-%spc_lag_its %" PetscInt_FMT " is out of range: must be >= 0", nt->prefix, nt->lag_its);
  PetscCall(KSPSetFromOptions(nt->ksp));
  PetscCall(KSPGetTolerances(nt->ksp, &nt->ksp_rtol, NULL, NULL, NULL));
  PetscCall(SetPrecision_Newton(nt));
  nt->pc_ready = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimNewtonObjective(SimNewton nt, PetscReal beta, const PetscReal *y, const PetscReal *X, const PetscReal *xd,
                                  const PetscReal *x, PetscReal *phi, PetscReal *g)
{
  PetscFunctionBeginUser;
  PetscCheck(beta > 0, nt->comm, PETSC_ERR_ARG_OUTOFRANGE, "SimNewton: beta = %g must be > 0", (double)beta);
  PetscCall(Value_Newton(nt, beta, y, X, xd, x, phi, NULL));
  if (g) PetscCall(Gradient_Newton(nt, beta, y, X, xd, x, g));
  PetscFunctionReturn(0);
}

PetscErrorCode SimNewtonHessian(SimNewton nt, PetscReal beta, const PetscReal *X, const PetscReal *xd, const PetscReal *x, Mat *H)
{
  PetscFunctionBeginUser;
  PetscCheck(beta > 0, nt->comm, PETSC_ERR_ARG_OUTOFRANGE, "SimNewton: beta = %g must be > 0", (double)beta);
  PetscCall(Prepare_Newton(nt));
  PetscCall(Hessian_Newton(nt, beta, X, xd, x, PETSC_TRUE));
  nt->refactor = PETSC_TRUE; /* H no longer matches the lagged factorization */
  *H = nt->H;
  PetscFunctionReturn(0);
}

/* Whether a Newton step of inf-norm pinf is below the resolution of x: at most 4 units in the last
 * place of x's largest coordinate (over every rank: with a distributed state x is this rank's part).
 * No iterate can then change Phi or its gradient by more than their round-off. */
static PetscErrorCode StepBelowRoundoff_Newton(SimNewton nt, const PetscReal *x, PetscReal pinf, PetscBool *below)
{
  PetscReal xinf = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nt->n; i++) xinf = PetscMax(xinf, PetscAbsReal(x[i]));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &xinf, 1, MPIU_REAL, MPIU_MAX, nt->comm));
  *below = (PetscBool)(pinf <= 4 * PETSC_MACHINE_EPSILON * xinf);
  PetscFunctionReturn(0);
}

/* One minimization from x (flat, in/out) with the lagged state fixed: the Newton loop. Iterations
 * continue the numbering of st (a re-solve after a lag update appends to the history). back is
 * where an infeasible guess is pulled toward. Sets st->outcome. */
static PetscErrorCode Iterate_Newton(SimNewton nt, PetscReal beta, const PetscReal *y, const PetscReal *X, const PetscReal *xd,
                                     const PetscReal *back, PetscReal *x, SimStepStats *st)
{
  const PetscInt k0 = st->nonlinear_its;
  const PetscBool bounded = SimModelHasMaxStep(nt->model);
  const PetscReal steptol = PetscMax(nt->vtol, nt->vtol_rel * nt->diameter);
  PetscReal phi, scale, gnorm, gnorm0, tol;
  PetscBool converged;

  PetscFunctionBeginUser;
  /* k = 0: the guess. Where the energy is +inf there (the guess y = x_n + h v_n of a fast soft
   * body can invert an element of a material undefined for J <= 0), it is pulled back toward the
   * feasible point back (xd = x_n, or with a step-bounding term the model's state, the start of the
   * guess's checked path): free DOFs at back + t (x - back), t = 1/2, 1/4, ..., then t = 0. Every
   * later iterate stays feasible: the line search rejects +inf. */
  PetscCall(Value_Newton(nt, beta, y, X, xd, x, &phi, &scale));
  for (PetscInt j = 1; PetscIsInfReal(phi) && phi > 0 && j <= nt->ls_max + 1; j++) {
    const PetscReal t = j <= nt->ls_max ? 0.5 : 0.0; /* halve the distance to back; at last, back itself */
    for (PetscInt i = 0; i < nt->n; i++)
      if (!nt->model->pinned[i / 3]) x[i] = back[i] + t * (x[i] - back[i]);
    PetscCall(Value_Newton(nt, beta, y, X, xd, x, &phi, &scale));
    st->linesearch_cuts++;
  }
  if (PetscIsInfOrNanReal(phi)) { /* back itself infeasible (or a NaN): no gradient exists */
    Record_Newton(st, k0, phi, phi);
    st->outcome = SIM_STEP_NONFINITE;
    PetscFunctionReturn(0);
  }
  PetscCall(Gradient_Newton(nt, beta, y, X, xd, x, nt->gfull));
  PetscCall(SetGradient_Newton(nt));
  PetscCall(VecNorm(nt->g, NORM_2, &gnorm));
  Record_Newton(st, k0, gnorm, phi);
  if (PetscIsInfOrNanReal(gnorm)) {
    st->outcome = SIM_STEP_NONFINITE;
    PetscFunctionReturn(0);
  }
  gnorm0 = gnorm;
  /* The relative step criterion alone decides when it is on: a barrier's gradient near contact is too stiff for
   * a relative gradient test (an exactly zero gradient still stops) */
  tol = nt->vtol_rel > 0 ? 0 : PetscMax(nt->atol, nt->rtol * gnorm);
  converged = (PetscBool)(gnorm <= tol);

  for (PetscInt k = 1; !converged && k <= nt->max_it; k++) {
    PetscInt its = 0;
    PetscReal slope, pinf;
    PetscBool ok, lagged, at_floor = PETSC_FALSE;

  direction:
    nt->gt_at_x = PETSC_FALSE;
    /* The Newton direction (Newton-CG or projected Newton, see Direction_Newton), then the step. */
    PetscCall(Direction_Newton(nt, beta, X, xd, x, gnorm0 > 0 ? gnorm / gnorm0 : 0, &its, &slope, &lagged));
    st->linear_its += its;
    st->nonlinear_its = k0 + k;
    PetscCall(VecNorm(nt->p, NORM_INFINITY, &pinf));
    at_floor = PETSC_FALSE; /* only asked (a reduction) where the step tolerance has not already stopped */
    if (!bounded && pinf / beta > steptol) PetscCall(StepBelowRoundoff_Newton(nt, x, pinf, &at_floor));

    if ((pinf / beta <= steptol || at_floor) && !bounded) {
      /* The step changes no velocity by more than the step tolerance, or no coordinate by more than a
       * few units in the last place of the largest: take it whole and stop; its decrease of Phi is
       * below round-off, so the line search could not judge it. The second case is the gradient's
       * round-off floor (a tolerance below it otherwise spun to -max_it: 50 iterations of 6e-17 m
       * steps at |g| 1.03e-11 against atol 1e-11 on the twist). */
      if (pinf / beta > steptol)
        PetscCall(PetscInfo(nt->ksp, "Newton iteration %" PetscInt_FMT ": the step (|p|inf %g) is below the round-off of x: stopping at |g| %g\n",
                            k, (double)pinf, (double)gnorm));
      const PetscReal *p;

      PetscCall(GetDirection_Newton(nt, &p));
      for (PetscInt i = 0; i < nt->n; i++) x[i] += p[i];
      PetscCall(RestoreDirection_Newton(nt, &p));
      PetscCall(Value_Newton(nt, beta, y, X, xd, x, &phi, &scale));
      converged = PETSC_TRUE;
    } else {
      /* With a step-bounding term (a barrier) even a small step goes through the line search: a
       * barrier's wall may be closer than the tolerance, and an iterate the bound left near it (the
       * filtered guess) must still be pushed off it. The small step then ends the minimization. */
      const PetscBool small = (PetscBool)(pinf / beta <= steptol);
      PetscCall(LineSearch_Newton(nt, beta, y, X, xd, x, slope, &phi, &scale, &st->linesearch_cuts, &ok));
      if (small)
        converged = PETSC_TRUE;
      else if (!ok && lagged) {
        /* A direction from a lagged factorization may be poor where the Hessian has changed since (CG
         * stops at its forcing tolerance in the lagged metric): before giving the step up, the
         * direction again from a fresh factorization at x */
        PetscCall(PetscInfo(
            nt->ksp, "Newton iteration %" PetscInt_FMT ": line search failed with the lagged factorization: refactoring\n", k));
        nt->refactor = PETSC_TRUE;
        goto direction;
      } else if (!ok) {
        PetscCall(PetscInfo(
            nt->ksp, "Newton iteration %" PetscInt_FMT ": line search failed after %" PetscInt_FMT " halvings (g.p = %g)\n", k,
            nt->ls_max, (double)slope));
        break;
      }
    }
    if (nt->gt_at_x)
      PetscCall(PetscArraycpy(nt->gfull, nt->gt, nt->n)); /* the line search's gradient test computed it */
    else
      PetscCall(Gradient_Newton(nt, beta, y, X, xd, x, nt->gfull));
    PetscCall(SetGradient_Newton(nt));
    PetscCall(VecNorm(nt->g, NORM_2, &gnorm));
    Record_Newton(st, k0 + k, gnorm, phi);
    PetscCall(PetscInfo(nt->ksp,
                        "Newton %" PetscInt_FMT ": |g| %.6e (tol %.3e) Phi %.17g, %" PetscInt_FMT
                        " Krylov its, |p|inf %.3e, g.p %.3e, cuts so far %" PetscInt_FMT "\n",
                        k0 + k, (double)gnorm, (double)tol, (double)phi, its, (double)pinf, (double)slope, st->linesearch_cuts));
    if (gnorm <= tol) converged = PETSC_TRUE;
  }
  st->outcome = converged ? SIM_STEP_OK : SIM_STEP_NOT_CONVERGED;
  PetscFunctionReturn(0);
}

PetscErrorCode SimNewtonMinimize(SimNewton nt, PetscReal beta, const PetscReal *y, const PetscReal *X, const PetscReal *xd,
                                 Vec xvec, SimStepStats *stats)
{
  SimModel m = nt->model;
  SimStepStats local;
  SimStepStats *st = stats ? stats : &local;
  const PetscScalar *x0;
  PetscReal *x;
  const PetscBool bounded = SimModelHasMaxStep(m), lagged = SimModelHasLag(m);
  PetscInt n;

  PetscFunctionBeginUser;
  PetscCheck(beta > 0 && !PetscIsInfOrNanReal(beta), nt->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "SimNewtonMinimize: beta = %g must be finite and > 0", (double)beta);
  PetscCall(VecGetLocalSize(xvec, &n));
  PetscCheck(n == nt->n, nt->comm, PETSC_ERR_ARG_SIZ,
             "SimNewtonMinimize: x has %" PetscInt_FMT " entries, the model %" PetscInt_FMT, n, nt->n);
  PetscCall(PetscMemzero(st, sizeof(*st)));
  nt->pattern_changes = 0;
  PetscCall(Prepare_Newton(nt));
  PetscCall(VecGetArray(xvec, &x));
  PetscCall(VecGetArrayRead(m->x, &x0));
  /* The guess, filtered by the step-bounding terms (continuous collision detection): the straight path from the model's
   * state (the last accepted one, admissible) to the guess is cut where it would first become
   * inadmissible, so the minimization starts from an admissible point (the inertial guess y of a
   * fast body may lie through an obstacle, where a barrier alone would not see it). */
  if (bounded) {
    PetscReal alpha = 1;
    for (PetscInt i = 0; i < nt->n; i++) nt->work[i] = x[i] - x0[i];
    PetscCall(SimModelMaxStep(m, x0, nt->work, &alpha));
    if (alpha < 1)
      for (PetscInt i = 0; i < nt->n; i++) x[i] = x0[i] + alpha * nt->work[i];
  }
  /* Lagged state (friction, barrier stiffness) from the model's state; then minimize, update it at
   * the minimizer and minimize again while a term asks for it. */
  if (lagged) {
    PetscBool again;
    PetscCall(Gradient_Newton(nt, beta, y, X, xd, x0, nt->gt));
    PetscCall(SimModelLag(m, x0, nt->gt, beta, 0, &again));
  }
  for (PetscInt lag = 1;; lag++) {
    PetscBool again = PETSC_FALSE;
    PetscCall(Iterate_Newton(nt, beta, y, X, xd, bounded ? x0 : xd, x, st));
    if (!lagged || st->outcome != SIM_STEP_OK || lag > 100) break;
    PetscCall(SimModelLag(m, x, NULL, beta, lag, &again));
    if (!again) break;
  }
  PetscCall(VecRestoreArrayRead(m->x, &x0));
  PetscCall(VecRestoreArray(xvec, &x));
  st->pattern_changes = nt->pattern_changes;
  PetscFunctionReturn(0);
}

PetscErrorCode SimNewtonSave(SimNewton nt, PetscViewer viewer)
{
  PetscInt flags[2] = {nt->pc_ready, nt->refactor};

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryWrite(viewer, flags, 2, PETSC_INT));
  if (!nt->pc_ready) PetscFunctionReturn(0);
  PetscCall(PetscViewerBinaryWrite(viewer, &nt->lag_beta, 1, PETSC_REAL));
  for (int k = 0; k < 3; k++) PetscCall(SimModelWriteArray(nt->model, nt->lag_point + k * nt->n, viewer));
  PetscFunctionReturn(0);
}

PetscErrorCode SimNewtonLoad(SimNewton nt, PetscViewer viewer)
{
  PetscInt flags[2];
  PetscReal beta;
  PetscReal *pt;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryRead(viewer, flags, 2, NULL, PETSC_INT));
  nt->pc_ready = (PetscBool)(flags[0] != 0);
  nt->refactor = (PetscBool)(flags[1] != 0);
  if (!nt->pc_ready) PetscFunctionReturn(0);
  /* Reassemble H where the lagged factorization was computed: the same inputs give the same matrix,
   * and the first solve factors it as the uninterrupted run did. */
  PetscCall(PetscViewerBinaryRead(viewer, &beta, 1, NULL, PETSC_REAL));
  PetscCall(PetscMalloc1(3 * nt->n, &pt));
  for (int k = 0; k < 3; k++) PetscCall(SimModelReadArray(nt->model, pt + k * nt->n, viewer));
  PetscCall(Prepare_Newton(nt)); /* the mode decides whether -pc_sparsify's P is filled too */
  PetscCall(Hessian_Newton(nt, beta, pt + nt->n, pt + 2 * nt->n, pt, PETSC_TRUE));
  PetscCall(PetscFree(pt));
  PetscFunctionReturn(0);
}

PetscErrorCode SimNewtonGetKSP(SimNewton nt, KSP *ksp)
{
  PetscFunctionBeginUser;
  *ksp = nt->ksp;
  PetscFunctionReturn(0);
}

PetscErrorCode SimNewtonView(SimNewton nt, PetscViewer viewer)
{
  PetscBool iascii;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(Prepare_Newton(nt));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "Newton (prefix -%s): %s; rtol %g, atol %g, vtol %g m/s, max_it %" PetscInt_FMT
                                   ", line search up to %" PetscInt_FMT " halvings\n",
                                   nt->prefix,
                                   nt->newton_cg ? "Newton-CG on the exact Hessian, preconditioned by the PSD-projected one"
                                                 : (nt->psd ? "projected Newton (PSD per term)" : "Newton on the exact Hessian"),
                                   (double)nt->rtol, (double)nt->atol, (double)nt->vtol, nt->max_it, nt->ls_max));
  if (nt->newton_cg)
    PetscCall(PetscViewerASCIIPrintf(
        viewer, "  factorization kept while the Krylov solve takes <= %" PetscInt_FMT " iterations%s%s\n", nt->lag_its,
        nt->pc_sparsify ? "; midpoint couplings rerouted in the factored matrix (-pc_sparsify)" : "",
        nt->symmetric_product ? "; operator multiplied from its upper 3x3 blocks (-symmetric_product)" : ""));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(KSPView(nt->ksp, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

PetscErrorCode SimNewtonDestroy(SimNewton *newton)
{
  SimNewton nt;

  PetscFunctionBeginUser;
  if (!newton || !*newton) PetscFunctionReturn(0);
  nt = *newton;
  PetscCall(KSPDestroy(&nt->ksp));
  PetscCall(MatDestroy(&nt->H));
  PetscCall(MatDestroy(&nt->Hs));
  PetscCall(MatDestroy(&nt->Hx));
  PetscCall(SparsifyDestroy_Newton(nt));
  PetscCall(PetscFree(nt->xref));
  PetscCall(VecDestroy(&nt->g));
  PetscCall(VecDestroy(&nt->p));
  PetscCall(VecDestroy(&nt->diag));
  PetscCall(VecDestroy(&nt->pall));
  PetscCall(VecScatterDestroy(&nt->p2all));
  PetscCall(PetscFree5(nt->xt, nt->vel, nt->work, nt->gt, nt->gfull));
  PetscCall(PetscFree(nt->lag_point));
  PetscCall(PetscFree(nt->plocal));
  PetscCall(PetscFree(*newton));
  PetscFunctionReturn(0);
}
