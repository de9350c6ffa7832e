/* CHOLMOD's supernodal factor applied in single precision (single_cholesky.h). */
#include <cholmod.h>
#include "framework/linalg/single_cholesky.h"

struct _p_SimSingleCholesky {
  cholmod_common cm;
  PetscBool started;
  cholmod_factor *L; /* CHOLMOD's supernodal factor, double: its numeric factorization is redone in place */
  PetscObjectId mat_id;
  PetscObjectState mat_nz; /* the nonzero state L's symbolic analysis was made for */
  PetscInt n;
  /* The solve's copy: L's values as floats, the reciprocals of its diagonal in double (the division
   * of a substitution sits on its dependency chain; the diagonal is a 1/n-th of the values) */
  float *val;
  size_t nval;
  PetscReal *dinv;
  PetscReal *y, *t; /* the permuted right-hand side (n) and one supernode's rows below its diagonal block */
  PetscInt nbelow;
  PetscBool posdef;
};

PetscErrorCode SimSingleCholeskyCreate(SimSingleCholesky *chol)
{
  PetscFunctionBeginUser;
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "The single-precision Cholesky preconditioner uses CHOLMOD's int interface: PETSc with 64-bit indices is not supported");
  PetscCall(PetscNew(chol));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckCholmod(SimSingleCholesky c, const char *what)
{
  PetscFunctionBeginUser;
  PetscCheck(c->cm.status >= CHOLMOD_OK || c->cm.status == CHOLMOD_NOT_POSDEF, PETSC_COMM_SELF, PETSC_ERR_LIB,
             "CHOLMOD %s failed (status %d)", what, c->cm.status);
  PetscFunctionReturn(0);
}

/* The solve's copy of L: floats, reciprocal diagonal, scratch sized by the widest supernode. */
static PetscErrorCode CopyFactor(SimSingleCholesky c)
{
  const cholmod_factor *L = c->L;
  const int *super = L->super, *pi = L->pi, *px = L->px;
  const double *Lx = L->x;
  const size_t nval = (size_t)px[L->nsuper];
  PetscInt nbelow = 0;

  PetscFunctionBeginUser;
  if (nval != c->nval) {
    PetscCall(PetscFree(c->val));
    PetscCall(PetscMalloc1(nval, &c->val));
    c->nval = nval;
  }
  for (size_t k = 0; k < nval; k++) c->val[k] = (float)Lx[k];
  for (size_t s = 0; s < L->nsuper; s++) {
    const int k1 = super[s], nc = super[s + 1] - k1, nr = pi[s + 1] - pi[s];
    for (int j = 0; j < nc; j++) c->dinv[k1 + j] = 1.0 / Lx[px[s] + (size_t)j * nr + j];
    nbelow = PetscMax(nbelow, nr - nc);
  }
  if (nbelow > c->nbelow) {
    PetscCall(PetscFree(c->t));
    PetscCall(PetscMalloc1(nbelow, &c->t));
    c->nbelow = nbelow;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimSingleCholeskyFactor(SimSingleCholesky c, Mat A, PetscBool *posdef)
{
  const PetscInt *ia, *ja;
  const PetscScalar *a;
  PetscInt n;
  PetscBool done, isaij;
  PetscObjectId id;
  PetscObjectState nz;
  cholmod_sparse S;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &isaij));
  if (!isaij) {
    MatType type;
    PetscCall(MatGetType(A, &type));
    SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
            "The single-precision Cholesky preconditioner factors a sequential AIJ matrix (one rank), not a %s", type);
  }
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No CSR structure for the single-precision Cholesky factorization");
  PetscCall(MatSeqAIJGetArrayRead(A, &a));
  /* A's CSR rows read as CSC columns are A^T = A; stype -1 (the lower triangle of that CSC) is the
   * upper triangle of A's rows */
  PetscCall(PetscMemzero(&S, sizeof(S)));
  S.nrow = S.ncol = (size_t)n;
  S.nzmax = (size_t)ia[n];
  S.p = (void *)ia;
  S.i = (void *)ja;
  S.x = (void *)a;
  S.stype = -1;
  S.itype = CHOLMOD_INT;
  S.xtype = CHOLMOD_REAL;
  S.dtype = CHOLMOD_DOUBLE;
  S.sorted = 1;
  S.packed = 1;
  if (!c->started) {
    cholmod_start(&c->cm);
    c->cm.supernodal = CHOLMOD_SUPERNODAL; /* the solve below is the supernodal one */
    c->cm.print = 0;
    c->started = PETSC_TRUE;
  }
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  PetscCall(MatGetNonzeroState(A, &nz));
  if (c->L && (id != c->mat_id || nz != c->mat_nz || n != c->n)) cholmod_free_factor(&c->L, &c->cm);
  if (!c->L) {
    c->L = cholmod_analyze(&S, &c->cm);
    PetscCall(CheckCholmod(c, "analysis"));
    PetscCheck(c->L, PETSC_COMM_SELF, PETSC_ERR_LIB, "CHOLMOD analysis returned no factor");
    c->mat_id = id;
    c->mat_nz = nz;
    if (n != c->n) {
      PetscCall(PetscFree2(c->y, c->dinv));
      PetscCall(PetscMalloc2(n, &c->y, n, &c->dinv));
      c->n = n;
    }
  }
  cholmod_factorize(&S, c->L, &c->cm);
  PetscCall(MatSeqAIJRestoreArrayRead(A, &a));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(CheckCholmod(c, "factorization"));
  PetscCheck(c->L->is_super, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CHOLMOD returned a simplicial factor where a supernodal one was asked for");
  c->posdef = (PetscBool)(c->cm.status == CHOLMOD_OK && c->L->minor == c->L->n);
  if (c->posdef) PetscCall(CopyFactor(c));
  *posdef = c->posdef;
  PetscFunctionReturn(0);
}

/* The substitutions, supernode by supernode. Supernode s owns the columns [k1, k1 + nc) of the
 * permuted factor; its values are a dense nr x nc column-major block: the lower triangle of the
 * diagonal block L11 (rows k1..), then L21, whose rows are rows[nc..nr) of its row list.
 *   forward  (L y = b):    y1 = L11^-1 y1, then y[below] -= L21 y1
 *   backward (L^T x = y):  x1 -= L21^T x[below], then x1 = L11^-T x1
 * L21 y1 is accumulated in t four columns at a time (one pass over t per four columns), and
 * L21^T x[below] reads the gathered x[below] once per column. The reductions may be reordered
 * (omp simd): the result differs from CHOLMOD's by round-off, which the float factor dominates.
 * GCC builds an AVX2/FMA clone beside the baseline SSE2 one and picks it at load time. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
  #define SIM_SOLVE_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
#else
  #define SIM_SOLVE_CLONES
#endif

SIM_SOLVE_CLONES
static void Forward(size_t nsuper, const int *super, const int *pi, const int *px, const int *rows, const float *val,
                    const PetscReal *dinv, PetscReal *restrict y, PetscReal *restrict t)
{
  for (size_t s = 0; s < nsuper; s++) {
    const int k1 = super[s], nc = super[s + 1] - k1, nr = pi[s + 1] - pi[s], nb = nr - nc;
    const int *below = rows + pi[s] + nc;
    const float *A = val + px[s];
    PetscReal *restrict x1 = y + k1;
    int j = 0;

    for (int c = 0; c < nc; c++) {
      const float *col = A + (size_t)c * nr;
      const PetscReal xc = x1[c] * dinv[k1 + c];
      x1[c] = xc;
      for (int i = c + 1; i < nc; i++) x1[i] -= col[i] * xc;
    }
    if (!nb) continue;
    for (int i = 0; i < nb; i++) t[i] = 0;
    for (; j + 4 <= nc; j += 4) {
      const float *c0 = A + (size_t)j * nr + nc, *c1 = c0 + nr, *c2 = c1 + nr, *c3 = c2 + nr;
      const PetscReal a0 = x1[j], a1 = x1[j + 1], a2 = x1[j + 2], a3 = x1[j + 3];
      for (int i = 0; i < nb; i++) t[i] += c0[i] * a0 + c1[i] * a1 + c2[i] * a2 + c3[i] * a3;
    }
    for (; j < nc; j++) {
      const float *col = A + (size_t)j * nr + nc;
      const PetscReal a0 = x1[j];
      for (int i = 0; i < nb; i++) t[i] += col[i] * a0;
    }
    for (int i = 0; i < nb; i++) y[below[i]] -= t[i];
  }
}

SIM_SOLVE_CLONES
static void Backward(size_t nsuper, const int *super, const int *pi, const int *px, const int *rows, const float *val,
                     const PetscReal *dinv, PetscReal *restrict y, PetscReal *restrict t)
{
  for (size_t s = nsuper; s-- > 0;) {
    const int k1 = super[s], nc = super[s + 1] - k1, nr = pi[s + 1] - pi[s], nb = nr - nc;
    const int *below = rows + pi[s] + nc;
    const float *A = val + px[s];
    PetscReal *restrict x1 = y + k1;

    if (nb) {
      for (int i = 0; i < nb; i++) t[i] = y[below[i]];
      for (int j = 0; j < nc; j++) {
        const float *col = A + (size_t)j * nr + nc;
        PetscReal d = 0;
#pragma omp simd reduction(+ : d)
        for (int i = 0; i < nb; i++) d += col[i] * t[i];
        x1[j] -= d;
      }
    }
    for (int c = nc - 1; c >= 0; c--) {
      const float *col = A + (size_t)c * nr;
      PetscReal u = 0;
#pragma omp simd reduction(+ : u)
      for (int i = c + 1; i < nc; i++) u += col[i] * x1[i];
      x1[c] = (x1[c] - u) * dinv[k1 + c];
    }
  }
}

PetscErrorCode SimSingleCholeskySolve(SimSingleCholesky c, const PetscReal *b, PetscReal *x)
{
  const int *perm;

  PetscFunctionBeginUser;
  PetscCheck(c->L && c->posdef, PETSC_COMM_SELF, PETSC_ERR_ORDER,
             c->L ? "The single-precision Cholesky factor is unusable: the matrix is not positive definite"
                  : "The single-precision Cholesky preconditioner has no factor: call SimSingleCholeskyFactor first");
  perm = c->L->Perm;
  for (PetscInt k = 0; k < c->n; k++) c->y[k] = b[perm[k]];
  Forward(c->L->nsuper, c->L->super, c->L->pi, c->L->px, c->L->s, c->val, c->dinv, c->y, c->t);
  Backward(c->L->nsuper, c->L->super, c->L->pi, c->L->px, c->L->s, c->val, c->dinv, c->y, c->t);
  for (PetscInt k = 0; k < c->n; k++) x[perm[k]] = c->y[k];
  PetscCall(PetscLogFlops(4.0 * (PetscLogDouble)c->nval));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSingleCholeskyGetInfo(SimSingleCholesky c, PetscInt *n, PetscInt *nsuper, PetscInt64 *nvalues)
{
  PetscFunctionBeginUser;
  if (n) *n = c->L ? c->n : 0;
  if (nsuper) *nsuper = c->L ? (PetscInt)c->L->nsuper : 0;
  if (nvalues) *nvalues = c->L ? (PetscInt64)((const int *)c->L->px)[c->L->nsuper] : 0;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSingleCholeskyDestroy(SimSingleCholesky *chol)
{
  SimSingleCholesky c;

  PetscFunctionBeginUser;
  if (!chol || !*chol) PetscFunctionReturn(0);
  c = *chol;
  if (c->L) cholmod_free_factor(&c->L, &c->cm);
  if (c->started) cholmod_finish(&c->cm);
  PetscCall(PetscFree(c->val));
  PetscCall(PetscFree2(c->y, c->dinv));
  PetscCall(PetscFree(c->t));
  PetscCall(PetscFree(*chol));
  PetscFunctionReturn(0);
}

/* ---- as a PETSc preconditioner ---- */
static const char SHELL_NAME[] = "single-precision supernodal Cholesky (CHOLMOD factorization)";

static PetscErrorCode PCSetUp_SingleCholesky(PC pc)
{
  SimSingleCholesky c;
  Mat A, P;
  PetscBool posdef;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &c));
  PetscCall(PCGetOperators(pc, &A, &P));
  PetscCall(SimSingleCholeskyFactor(c, P, &posdef));
  PetscCall(PCSetFailedReason(pc, posdef ? PC_NOERROR : PC_FACTOR_NUMERIC_ZEROPIVOT));
  if (!posdef) PetscCall(PetscInfo(pc, "Matrix not positive definite: CHOLMOD stopped at column %zu of %zu\n", c->L->minor, c->L->n));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCApply_SingleCholesky(PC pc, Vec b, Vec x)
{
  SimSingleCholesky c;
  const PetscScalar *pb;
  PetscScalar *px;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &c));
  if (!c->posdef) { /* as MatSolve does with a failed factorization: the Krylov method sees Inf and stops */
    PetscCall(VecSetInf(x));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGetArrayRead(b, &pb));
  PetscCall(VecGetArrayWrite(x, &px));
  PetscCall(SimSingleCholeskySolve(c, pb, px));
  PetscCall(VecRestoreArrayWrite(x, &px));
  PetscCall(VecRestoreArrayRead(b, &pb));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCView_SingleCholesky(PC pc, PetscViewer viewer)
{
  SimSingleCholesky c;
  PetscBool iascii;
  PetscInt n, ns;
  PetscInt64 nv;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(PCShellGetContext(pc, &c));
  PetscCall(SimSingleCholeskyGetInfo(c, &n, &ns, &nv));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", SHELL_NAME));
  if (c->L)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "  %" PetscInt_FMT " rows, %" PetscInt_FMT " supernodes, %" PetscInt64_FMT
                                     " values stored as float (%.1f MB), nnz(L) %.0f, %.3g flops per factorization\n",
                                     n, ns, nv, 4e-6 * (double)nv, c->cm.lnz, c->cm.fl));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCDestroy_SingleCholesky(PC pc)
{
  SimSingleCholesky c;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &c));
  PetscCall(SimSingleCholeskyDestroy(&c));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPCSetSingleCholesky(PC pc)
{
  SimSingleCholesky c;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  PetscCheck(size == 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
             "The single-precision Cholesky preconditioner is sequential (CHOLMOD): it needs one rank, not %d", size);
  PetscCall(SimSingleCholeskyCreate(&c));
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, c));
  PetscCall(PCShellSetName(pc, SHELL_NAME));
  PetscCall(PCShellSetSetUp(pc, PCSetUp_SingleCholesky));
  PetscCall(PCShellSetApply(pc, PCApply_SingleCholesky));
  PetscCall(PCShellSetView(pc, PCView_SingleCholesky));
  PetscCall(PCShellSetDestroy(pc, PCDestroy_SingleCholesky));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPCIsSingleCholesky(PC pc, PetscBool *is)
{
  const char *name = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCSHELL, is));
  if (*is) PetscCall(PCShellGetName(pc, &name));
  *is = (PetscBool)(*is && name && !strcmp(name, SHELL_NAME));
  PetscFunctionReturn(0);
}
