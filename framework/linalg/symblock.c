/* The product of a symmetric 3x3-block SeqAIJ matrix from its upper block triangle (see symblock.h). */
#include "framework/linalg/symblock.h"
#include "framework/linalg/csr.h"

typedef struct {
  Mat A;                /* the matrix (a reference) */
  PetscInt nb;          /* block rows: vertices */
  PetscInt nu;          /* stored blocks strictly above the diagonal */
  PetscInt *ui;         /* nb + 1: block row I's upper blocks are [ui[I], ui[I + 1]) */
  PetscInt *uj;         /* nu: the first column, 3 J, of each upper block */
  PetscReal *d;         /* 9 nb: the diagonal blocks, row-major, followed by */
  PetscReal *u;         /* 9 nu: the upper blocks, row-major (u = d + 9 nb) */
  PetscInt *src;        /* 9 (nb + nu): where each value of d then u is in A's value array, -1: 0 */
  PetscInt *mirror;     /* 9 (nb + nu): where its mirror entry (c, r) is, -1: absent pair */
  PetscInt nnz;         /* A's nonzeros when the pattern was built */
  PetscObjectState nzs; /* A's nonzero state when the pattern was built */
  PetscBool checked;    /* values checked symmetric since the pattern was built */
  PetscBool filled;     /* d and u hold values (a copy succeeded since the pattern was built) */
} SymBlock;

static PetscErrorCode Free_SymBlock(SymBlock *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(s->ui));
  PetscCall(PetscFree(s->uj));
  PetscCall(PetscFree(s->d)); /* u is d + 9 nb */
  s->u = NULL;
  PetscCall(PetscFree2(s->src, s->mirror));
  s->filled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* The block pattern from A's: block row I holds every block column J > I that any of the rows
 * 3I, 3I + 1, 3I + 2 touches, sorted; src maps each stored value to A's, mirror to its transpose. */
static PetscErrorCode Build_SymBlock(SymBlock *s)
{
  const PetscInt *ia, *ja;
  PetscInt n, nb = s->nb, *mark, *pos, nlow = 0, nup = 0, bad[2] = {-1, -1};
  PetscBool done;

  PetscFunctionBeginUser;
  PetscCall(Free_SymBlock(s));
  PetscCall(MatGetRowIJ(s->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done && n == 3 * nb, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "SimSymBlock: no CSR pattern of the %" PetscInt_FMT "-row matrix", 3 * nb);
  PetscCall(PetscMalloc2(nb, &mark, nb, &pos));
  for (PetscInt bj = 0; bj < nb; bj++) mark[bj] = -1;
  /* count, then list the upper block columns of every block row */
  PetscCall(PetscMalloc1(nb + 1, &s->ui));
  s->ui[0] = 0;
  for (PetscInt bi = 0; bi < nb; bi++) {
    PetscInt cnt = 0;
    for (PetscInt r = 3 * bi; r < 3 * bi + 3; r++)
      for (PetscInt q = ia[r]; q < ia[r + 1]; q++) {
        const PetscInt bj = ja[q] / 3;
        if (bj > bi && mark[bj] != bi) mark[bj] = bi, cnt++;
      }
    s->ui[bi + 1] = s->ui[bi] + cnt;
  }
  s->nu = s->ui[nb];
  PetscCall(PetscMalloc1(s->nu, &s->uj));
  for (PetscInt bj = 0; bj < nb; bj++) mark[bj] = -1;
  for (PetscInt bi = 0; bi < nb; bi++) {
    PetscInt cnt = s->ui[bi];
    for (PetscInt r = 3 * bi; r < 3 * bi + 3; r++)
      for (PetscInt q = ia[r]; q < ia[r + 1]; q++) {
        const PetscInt bj = ja[q] / 3;
        if (bj > bi && mark[bj] != bi) mark[bj] = bi, s->uj[cnt++] = bj;
      }
    PetscCall(PetscSortInt(cnt - s->ui[bi], s->uj + s->ui[bi]));
  }
  /* where each stored value comes from and where its mirror is */
  PetscCall(PetscMalloc1(9 * (nb + s->nu), &s->d));
  s->u = s->d + 9 * nb;
  PetscCall(PetscMalloc2(9 * (nb + s->nu), &s->src, 9 * (nb + s->nu), &s->mirror));
  for (PetscInt k = 0; k < 9 * (nb + s->nu); k++) s->src[k] = s->mirror[k] = -1;
  for (PetscInt bi = 0; bi < nb; bi++) {
    for (PetscInt b = s->ui[bi]; b < s->ui[bi + 1]; b++) pos[s->uj[b]] = b;
    for (PetscInt rr = 0; rr < 3; rr++) {
      const PetscInt r = 3 * bi + rr;
      for (PetscInt q = ia[r]; q < ia[r + 1]; q++) {
        const PetscInt c = ja[q], bj = c / 3;
        PetscInt k, m;
        if (bj < bi) {
          nlow++;
          continue;
        }
        k = bj == bi ? 9 * bi + 3 * rr + c % 3 : 9 * (nb + pos[bj]) + 3 * rr + c % 3;
        m = SimCsrPlace(ia, ja, c, r);
        if (m < 0 && bad[0] < 0) bad[0] = r, bad[1] = c;
        s->src[k] = q;
        s->mirror[k] = m;
        if (bj > bi) nup++;
      }
    }
  }
  s->nnz = ia[n];
  for (PetscInt b = 0; b < s->nu; b++) s->uj[b] *= 3;
  PetscCall(MatRestoreRowIJ(s->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(PetscFree2(mark, pos));
  if (bad[0] >= 0 || nlow != nup) PetscCall(Free_SymBlock(s)); /* no pattern: the next update tries again */
  PetscCheck(bad[0] < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "SimSymBlock: the matrix is not structurally symmetric: entry (%" PetscInt_FMT ", %" PetscInt_FMT
             ") is in its pattern, (%" PetscInt_FMT ", %" PetscInt_FMT ") is not",
             bad[0], bad[1], bad[1], bad[0]);
  PetscCheck(nlow == nup, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "SimSymBlock: the matrix is not structurally symmetric: %" PetscInt_FMT
             " entries below the diagonal blocks, %" PetscInt_FMT " above",
             nlow, nup);
  PetscCall(MatGetNonzeroState(s->A, &s->nzs));
  s->checked = PETSC_FALSE;
  s->filled = PETSC_FALSE;
  PetscCall(PetscInfo(s->A,
                      "SimSymBlock: %" PetscInt_FMT " vertices, %" PetscInt_FMT " blocks above the diagonal (%" PetscInt_FMT
                      " nonzeros in A)\n",
                      nb, s->nu, s->nnz));
  PetscFunctionReturn(0);
}

/* Stored value k (global entry (r, c), A's place q) against its mirror, relative to the pair's scale. */
static PetscErrorCode CheckEntry_SymBlock(const SymBlock *s, const PetscScalar *a, PetscInt k, PetscInt r, PetscInt c)
{
  const PetscInt q = s->src[k], m = s->mirror[k], dr = s->src[9 * (r / 3) + 4 * (r % 3)], dc = s->src[9 * (c / 3) + 4 * (c % 3)];
  PetscReal scale;

  PetscFunctionBeginUser;
  if (q < 0) PetscFunctionReturn(0);
  scale = PetscAbsScalar(a[q]) + PetscAbsScalar(a[m]) +
          PetscSqrtReal(PetscAbsScalar(dr >= 0 ? a[dr] : 0) * PetscAbsScalar(dc >= 0 ? a[dc] : 0));
  PetscCheck(PetscAbsScalar(a[q] - a[m]) <= 1e-10 * scale, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "SimSymBlock: the matrix is not symmetric: A(%" PetscInt_FMT ", %" PetscInt_FMT ") = %.17g, A(%" PetscInt_FMT
             ", %" PetscInt_FMT ") = %.17g; the symmetric product needs a symmetric matrix",
             r, c, (double)a[q], c, r, (double)a[m]);
  PetscFunctionReturn(0);
}

/* Every stored entry against its mirror, once per pattern (see symblock.h): the diagonal blocks,
 * then each block row's upper blocks. */
static PetscErrorCode Check_SymBlock(SymBlock *s, const PetscScalar *a)
{
  const PetscInt nb = s->nb;

  PetscFunctionBeginUser;
  for (PetscInt bi = 0; bi < nb; bi++)
    for (PetscInt e = 0; e < 9; e++) PetscCall(CheckEntry_SymBlock(s, a, 9 * bi + e, 3 * bi + e / 3, 3 * bi + e % 3));
  for (PetscInt bi = 0; bi < nb; bi++)
    for (PetscInt b = s->ui[bi]; b < s->ui[bi + 1]; b++)
      for (PetscInt e = 0; e < 9; e++) PetscCall(CheckEntry_SymBlock(s, a, 9 * (nb + b) + e, 3 * bi + e / 3, s->uj[b] + e % 3));
  s->checked = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSymBlockUpdate(Mat S)
{
  SymBlock *s;
  PetscObjectState nzs;
  const PetscScalar *a;
  PetscBool assembled;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(S, &s));
  PetscCall(MatAssembled(s->A, &assembled));
  PetscCheck(assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "SimSymBlock: the matrix is not assembled");
  PetscCall(MatGetNonzeroState(s->A, &nzs));
  if (!s->src || nzs != s->nzs) PetscCall(Build_SymBlock(s));
  PetscCall(MatSeqAIJGetArrayRead(s->A, &a));
  if (!s->checked) PetscCall(Check_SymBlock(s, a));
  /* the diagonal and the upper blocks are contiguous (d, then u): one gather */
  {
    const PetscInt nval = 9 * (s->nb + s->nu), *restrict src = s->src;
    PetscReal *restrict v = s->d;
    for (PetscInt k = 0; k < nval; k++) v[k] = src[k] >= 0 ? a[src[k]] : 0.0;
  }
  s->filled = PETSC_TRUE;
  PetscCall(MatSeqAIJRestoreArrayRead(s->A, &a));
  PetscFunctionReturn(0);
}

/* y = (U + U^T - D) x in one pass over the block rows: row I's diagonal block and upper blocks give
 * y_I (accumulated in registers), each upper block (I, J) also adds U_IJ^T x_I to y_J, J > I, which
 * later rows only add to. */
static void Product_SymBlock(const SymBlock *s, const PetscReal *restrict x, PetscReal *restrict y)
{
  const PetscInt nb = s->nb, *restrict ui = s->ui, *restrict uj = s->uj;
  const PetscReal *restrict d = s->d, *restrict u = s->u;

  for (PetscInt k = 0; k < 3 * nb; k++) y[k] = 0;
  for (PetscInt bi = 0; bi < nb; bi++) {
    const PetscReal *D = d + 9 * bi, x0 = x[3 * bi], x1 = x[3 * bi + 1], x2 = x[3 * bi + 2];
    PetscReal y0 = D[0] * x0 + D[1] * x1 + D[2] * x2;
    PetscReal y1 = D[3] * x0 + D[4] * x1 + D[5] * x2;
    PetscReal y2 = D[6] * x0 + D[7] * x1 + D[8] * x2;
    for (PetscInt b = ui[bi]; b < ui[bi + 1]; b++) {
      const PetscReal *U = u + 9 * b;
      const PetscInt c = uj[b];
      const PetscReal z0 = x[c], z1 = x[c + 1], z2 = x[c + 2];
      y0 += U[0] * z0 + U[1] * z1 + U[2] * z2;
      y1 += U[3] * z0 + U[4] * z1 + U[5] * z2;
      y2 += U[6] * z0 + U[7] * z1 + U[8] * z2;
      y[c] += U[0] * x0 + U[3] * x1 + U[6] * x2;
      y[c + 1] += U[1] * x0 + U[4] * x1 + U[7] * x2;
      y[c + 2] += U[2] * x0 + U[5] * x1 + U[8] * x2;
    }
    y[3 * bi] += y0;
    y[3 * bi + 1] += y1;
    y[3 * bi + 2] += y2;
  }
}

/* The context of S, which must hold values (the operations below read them). */
static PetscErrorCode GetFilled_SymBlock(Mat S, SymBlock **s)
{
  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(S, s));
  PetscCheck((*s)->filled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "SimSymBlock: no values yet: call SimSymBlockUpdate after assembling the matrix");
  PetscFunctionReturn(0);
}

static PetscErrorCode Mult_SymBlock(Mat S, Vec x, Vec y)
{
  SymBlock *s;
  const PetscScalar *xa;
  PetscScalar *ya;

  PetscFunctionBeginUser;
  PetscCall(GetFilled_SymBlock(S, &s));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  Product_SymBlock(s, xa, ya);
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogFlops(36.0 * s->nu + 15.0 * s->nb));
  PetscFunctionReturn(0);
}

static PetscErrorCode GetDiagonal_SymBlock(Mat S, Vec v)
{
  SymBlock *s;
  PetscScalar *va;

  PetscFunctionBeginUser;
  PetscCall(GetFilled_SymBlock(S, &s));
  PetscCall(VecGetArrayWrite(v, &va));
  for (PetscInt k = 0; k < 3 * s->nb; k++) va[k] = s->d[9 * (k / 3) + 4 * (k % 3)];
  PetscCall(VecRestoreArrayWrite(v, &va));
  PetscFunctionReturn(0);
}

static PetscErrorCode View_SymBlock(Mat S, PetscViewer viewer)
{
  SymBlock *s;
  PetscBool iascii;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(MatShellGetContext(S, &s));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "symmetric product from the upper 3x3 blocks: %" PetscInt_FMT " diagonal and %" PetscInt_FMT
                                   " off-diagonal blocks (of a SeqAIJ with %" PetscInt_FMT " nonzeros)\n",
                                   s->nb, s->nu, s->nnz));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_SymBlock(void *ctx)
{
  SymBlock *s = (SymBlock *)ctx;

  PetscFunctionBeginUser;
  PetscCall(Free_SymBlock(s));
  PetscCall(MatDestroy(&s->A));
  PetscCall(PetscFree(s));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSymBlockCreate(Mat A, Mat *S)
{
  SymBlock *s;
  PetscBool aij;
  PetscInt m, n, bs;
  MatType type;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &aij));
  PetscCall(MatGetType(A, &type));
  PetscCheck(aij, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
             "SimSymBlock: the matrix is %s; the symmetric block product needs a MATSEQAIJ (one rank)", type);
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCheck(bs == 3 && m == n && m % 3 == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "SimSymBlock: the matrix is %" PetscInt_FMT " x %" PetscInt_FMT " with block size %" PetscInt_FMT
             "; the symmetric block product needs a square matrix of 3x3 vertex blocks (block size 3)",
             m, n, bs);
  PetscCall(PetscNew(&s));
  PetscCall(PetscObjectReference((PetscObject)A));
  s->A = A;
  s->nb = m / 3;
  PetscCall(MatCreate(PETSC_COMM_SELF, S));
  PetscCall(MatSetSizes(*S, m, m, m, m));
  PetscCall(MatSetBlockSize(*S, 3));
  PetscCall(MatSetType(*S, MATSHELL));
  PetscCall(MatShellSetContext(*S, s));
  PetscCall(MatShellSetContextDestroy(*S, Destroy_SymBlock));
  PetscCall(MatShellSetOperation(*S, MATOP_MULT, (void (*)(void))Mult_SymBlock));
  PetscCall(MatShellSetOperation(*S, MATOP_MULT_TRANSPOSE, (void (*)(void))Mult_SymBlock));
  PetscCall(MatShellSetOperation(*S, MATOP_GET_DIAGONAL, (void (*)(void))GetDiagonal_SymBlock));
  PetscCall(MatShellSetOperation(*S, MATOP_VIEW, (void (*)(void))View_SymBlock));
  PetscCall(MatSetUp(*S));
  PetscCall(MatSetOption(*S, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*S, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscFunctionReturn(0);
}
