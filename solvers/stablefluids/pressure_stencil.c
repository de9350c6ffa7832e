/* The projection's pressure operator, assembled and matrix-free, and its red-black Gauss-Seidel
 * smoother (see pressure_stencil.h). */
#include "solvers/stablefluids/pressure_stencil.h"

/* The geometry of one level of the hierarchy: along axis d its M[d] cells are aggregates of fine
 * cells, cell I covering the fine cells [I 2^t, min((I + 1) 2^t, n)) after t halvings of the n fine
 * cells (pairs, the last one ragged when a count is odd: SimPressureCoarsenDA), so M[d] =
 * ceil(n / 2^t) gives t. The operator is the finite-volume Laplacian on that tensor grid of cells of
 * widths W (in fine cells): the coupling across a face normal to d is s (product of the widths of
 * the cell along the other axes) C_d(face), with s = h^(d-2) of the fine grid and C_d = 2 / (sum of
 * the widths of the two cells along d) inside, 2 / width at an open face (p = 0 on the face) and 0
 * at a wall (Bridson eq. 5.9 times the cell volume, on an uneven grid). On a level of equal cells of
 * width w it is the rediscretization at h w (couplings s w^(d-2)); on the finest, the MAC operator.
 * W[d][I] and C[d][I] (the low face of cell I; C[d][M[d]] the high boundary face) by global index. */
typedef struct {
  PetscInt dim, M[3];
  PetscReal *W[3], *C[3]; /* one allocation each per axis */
} Geometry;

static PetscErrorCode GeometryCreate(SimMAC mac, DM dm, Geometry *G)
{
  PetscReal s = mac->dim == 2 ? 1.0 : mac->h;

  PetscFunctionBegin;
  G->dim = mac->dim;
  G->M[0] = G->M[1] = G->M[2] = 1;
  PetscCall(DMDAGetInfo(dm, NULL, &G->M[0], &G->M[1], &G->M[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  for (PetscInt d = 0; d < 3; d++) {
    const PetscInt n = mac->n[d], M = G->M[d];
    PetscInt t = 0;
    while (((n + (1 << t) - 1) >> t) > M) t++;
    PetscCheck(((n + (1 << t) - 1) >> t) == M, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
               "a pressure level of %" PetscInt_FMT " cells along axis %" PetscInt_FMT " is not a halving of the grid's %" PetscInt_FMT, M, d, n);
    PetscCall(PetscMalloc2(M, &G->W[d], M + 1, &G->C[d]));
    for (PetscInt ic = 0; ic < M; ic++) G->W[d][ic] = (PetscReal)(PetscMin((ic + 1) << t, n) - (ic << t));
    for (PetscInt ic = 1; ic < M; ic++) G->C[d][ic] = 2.0 / (G->W[d][ic - 1] + G->W[d][ic]);
    if (d < mac->dim) {
      G->C[d][0] = mac->bc[2 * d] == SIM_MAC_OPEN ? 2.0 / G->W[d][0] : 0;
      G->C[d][M] = mac->bc[2 * d + 1] == SIM_MAC_OPEN ? 2.0 / G->W[d][M - 1] : 0;
    } else G->C[d][0] = G->C[d][M] = 0;
  }
  for (PetscInt ic = 0; ic <= G->M[0]; ic++) G->C[0][ic] *= s; /* s once, on the x faces' factor and in Row */
  PetscFunctionReturn(0);
}

static PetscErrorCode GeometryDestroy(Geometry *G)
{
  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree2(G->W[d], G->C[d]));
  PetscFunctionReturn(0);
}

/* The couplings of row (j, k) that do not depend on i: the x faces' factor (times C_x), and the
 * y and z faces' (low, high) (times W_x). s is folded into C_x; the y and z factors carry it too. */
typedef struct {
  PetscReal ax, ylo, yhi, zlo, zhi;
} RowCoef;

static inline __attribute__((always_inline)) RowCoef RowCoefficients(const Geometry *G, PetscReal s, PetscInt j, PetscInt k)
{
  RowCoef r;
  const PetscReal wz = G->dim == 3 ? G->W[2][k] : 1;

  r.ax = G->W[1][j] * wz;
  r.ylo = s * G->C[1][j] * wz;
  r.yhi = s * G->C[1][j + 1] * wz;
  r.zlo = G->dim == 3 ? s * G->C[2][k] * G->W[1][j] : 0;
  r.zhi = G->dim == 3 ? s * G->C[2][k + 1] * G->W[1][j] : 0;
  return r;
}

PetscErrorCode SimPressureAssemble(SimMAC mac, DM dm, Mat A)
{
  PetscInt xs, ys, zs, xm, ym, zm, dim = mac->dim;
  PetscReal s = mac->dim == 2 ? 1.0 : mac->h;
  PetscBool allwalls;
  Geometry G;

  PetscFunctionBegin;
  PetscCall(GeometryCreate(mac, dm, &G));
  PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++) {
      const RowCoef r = RowCoefficients(&G, s, j, k);
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil row = {.i = i, .j = j, .k = k}, col[7];
        PetscScalar val[7], diag = 0;
        const PetscReal wx = G.W[0][i];
        /* neighbour couplings: -x, +x, -y, +y, -z, +z */
        const PetscReal cpl[6] = {r.ax * G.C[0][i], r.ax * G.C[0][i + 1], wx * r.ylo, wx * r.yhi, wx * r.zlo, wx * r.zhi};
        const PetscInt idx[3] = {i, j, k};
        PetscInt nc = 1;

        for (PetscInt c = 0; c < dim; c++)
          for (PetscInt side = 0; side < 2; side++) {
            PetscInt nb = idx[c] + (side ? 1 : -1);
            diag += cpl[2 * c + side];
            if (nb >= 0 && nb < G.M[c]) {
              PetscInt *at[3] = {&col[nc].i, &col[nc].j, &col[nc].k};
              col[nc] = row;
              *at[c] = nb;
              val[nc++] = -cpl[2 * c + side];
            }
          }
        col[0] = row;
        val[0] = diag;
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, val, INSERT_VALUES));
      }
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(GeometryDestroy(&G));
  PetscCall(SimMACAllWalls(mac, &allwalls));
  if (allwalls) {
    MatNullSpace ns;
    PetscCall(MatNullSpaceCreate(PetscObjectComm((PetscObject)A), PETSC_TRUE, 0, NULL, &ns));
    PetscCall(MatSetNullSpace(A, ns));
    PetscCall(MatNullSpaceDestroy(&ns));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode SimPressureCreateGhostedDA(SimMAC mac, DM *da)
{
  const PetscInt *own[3] = {NULL, NULL, NULL};
  PetscInt p[3], *n = mac->n;
  DMBoundaryType g = DM_BOUNDARY_GHOSTED;
  MPI_Comm comm = PetscObjectComm((PetscObject)mac->da);

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(mac->da, NULL, NULL, NULL, NULL, &p[0], &p[1], &p[2], NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(mac->da, &own[0], &own[1], &own[2]));
  if (mac->dim == 2)
    PetscCall(DMDACreate2d(comm, g, g, DMDA_STENCIL_STAR, n[0], n[1], p[0], p[1], 1, 1, own[0], own[1], da));
  else
    PetscCall(DMDACreate3d(comm, g, g, g, DMDA_STENCIL_STAR, n[0], n[1], n[2], p[0], p[1], p[2], 1, 1, own[0], own[1], own[2], da));
  PetscCall(DMDASetInterpolationType(*da, DMDA_Q0));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPressureCoarsenDA(SimMAC mac, DM fine, const PetscBool axes[3], DM *coarse)
{
  PetscInt M[3] = {1, 1, 1}, p[3] = {1, 1, 1}, Mc[3];
  const PetscInt *own[3] = {NULL, NULL, NULL};
  PetscInt *ownc[3] = {NULL, NULL, NULL};
  PetscBool ok = PETSC_TRUE;
  DMBoundaryType g = DM_BOUNDARY_GHOSTED;
  MPI_Comm comm = PetscObjectComm((PetscObject)fine);

  PetscFunctionBegin;
  *coarse = NULL;
  PetscCall(DMDAGetInfo(fine, NULL, &M[0], &M[1], &M[2], &p[0], &p[1], &p[2], NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(fine, &own[0], &own[1], &own[2]));
  for (PetscInt d = 0; d < mac->dim; d++) {
    PetscInt start = 0;
    Mc[d] = axes[d] ? (M[d] + 1) / 2 : M[d];
    PetscCall(PetscMalloc1(p[d], &ownc[d]));
    /* coarse cell ic (fine cells 2I, 2I + 1) goes to the rank that owns fine cell 2I */
    for (PetscInt r = 0; r < p[d]; r++) {
      PetscInt end = start + own[d][r];
      ownc[d][r] = axes[d] ? (end + 1) / 2 - (start + 1) / 2 : own[d][r];
      if (ownc[d][r] < 1) ok = PETSC_FALSE;
      start = end;
    }
  }
  if (ok) {
    if (mac->dim == 2) PetscCall(DMDACreate2d(comm, g, g, DMDA_STENCIL_STAR, Mc[0], Mc[1], p[0], p[1], 1, 1, ownc[0], ownc[1], coarse));
    else
      PetscCall(DMDACreate3d(comm, g, g, g, DMDA_STENCIL_STAR, Mc[0], Mc[1], Mc[2], p[0], p[1], p[2], 1, 1, ownc[0], ownc[1], ownc[2],
                             coarse));
    PetscCall(DMSetUp(*coarse));
  }
  for (PetscInt d = 0; d < mac->dim; d++) PetscCall(PetscFree(ownc[d]));
  PetscFunctionReturn(0);
}

/* PETSc's global index of each cell along one axis split: start[r] = first cell of rank r. */
static PetscErrorCode RankStarts(PetscInt p, const PetscInt own[], PetscInt *start)
{
  PetscFunctionBegin;
  start[0] = 0;
  for (PetscInt r = 0; r < p; r++) start[r + 1] = start[r] + own[r];
  PetscFunctionReturn(0);
}

/* The piecewise-constant transfer without a matrix, when every aggregate lies on one rank: the
 * owned fine box [lo, hi) and the first owned coarse cell lc; fine cell i of an axis with shift 1
 * belongs to coarse cell i >> 1. */
typedef struct {
  PetscInt lo[3], hi[3], lc[3], cm[3], shift[3]; /* cm: owned coarse counts */
} Transfer;

/* y (fine) = or += P x (coarse): each fine cell takes its aggregate's value. */
static PetscErrorCode TransferProlong(Mat P, Vec x, Vec y, PetscBool add)
{
  Transfer *T;
  const PetscScalar *xc;
  PetscScalar *yf;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &T));
  PetscCall(VecGetArrayRead(x, &xc));
  PetscCall(add ? VecGetArray(y, &yf) : VecGetArrayWrite(y, &yf));
  for (PetscInt k = T->lo[2], l = 0; k < T->hi[2]; k++)
    for (PetscInt j = T->lo[1]; j < T->hi[1]; j++, l += T->hi[0] - T->lo[0]) {
      const PetscScalar *c = xc + T->cm[0] * (((j >> T->shift[1]) - T->lc[1]) + T->cm[1] * ((k >> T->shift[2]) - T->lc[2])) - T->lc[0];
      PetscScalar *f = yf + l - T->lo[0];
      PetscInt i = T->lo[0];
      if (T->shift[0]) { /* pairs (lo[0] is even: every aggregate is on this rank), a ragged last cell */
        if (add)
          for (; i + 1 < T->hi[0]; i += 2) f[i] += c[i >> 1], f[i + 1] += c[i >> 1];
        else
          for (; i + 1 < T->hi[0]; i += 2) f[i] = c[i >> 1], f[i + 1] = c[i >> 1];
      }
      if (add)
        for (; i < T->hi[0]; i++) f[i] += c[i >> T->shift[0]];
      else
        for (; i < T->hi[0]; i++) f[i] = c[i >> T->shift[0]];
    }
  PetscCall(add ? VecRestoreArray(y, &yf) : VecRestoreArrayWrite(y, &yf));
  PetscCall(VecRestoreArrayRead(x, &xc));
  PetscFunctionReturn(0);
}

/* y (coarse) = or += P^T x (fine): each aggregate sums its fine cells. */
static PetscErrorCode TransferRestrict(Mat P, Vec x, Vec y, PetscBool add)
{
  Transfer *T;
  const PetscScalar *xf;
  PetscScalar *yc;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(P, &T));
  if (!add) PetscCall(VecSet(y, 0));
  PetscCall(VecGetArrayRead(x, &xf));
  PetscCall(VecGetArray(y, &yc));
  for (PetscInt k = T->lo[2], l = 0; k < T->hi[2]; k++)
    for (PetscInt j = T->lo[1]; j < T->hi[1]; j++, l += T->hi[0] - T->lo[0]) {
      PetscScalar *c = yc + T->cm[0] * (((j >> T->shift[1]) - T->lc[1]) + T->cm[1] * ((k >> T->shift[2]) - T->lc[2])) - T->lc[0];
      const PetscScalar *f = xf + l - T->lo[0];
      PetscInt i = T->lo[0];
      /* pairs: c + f_2I + f_2I+1, summed in the same order as one fine cell at a time */
      if (T->shift[0])
        for (; i + 1 < T->hi[0]; i += 2) c[i >> 1] = c[i >> 1] + f[i] + f[i + 1];
      for (; i < T->hi[0]; i++) c[i >> T->shift[0]] += f[i];
    }
  PetscCall(VecRestoreArray(y, &yc));
  PetscCall(VecRestoreArrayRead(x, &xf));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMult_Transfer(Mat P, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(TransferProlong(P, x, y, PETSC_FALSE));
  PetscFunctionReturn(0);
}
static PetscErrorCode MatMultAdd_Transfer(Mat P, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  if (y != z) PetscCall(VecCopy(y, z));
  PetscCall(TransferProlong(P, x, z, PETSC_TRUE));
  PetscFunctionReturn(0);
}
static PetscErrorCode MatMultTranspose_Transfer(Mat P, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(TransferRestrict(P, x, y, PETSC_FALSE));
  PetscFunctionReturn(0);
}
static PetscErrorCode MatMultTransposeAdd_Transfer(Mat P, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  if (y != z) PetscCall(VecCopy(y, z));
  PetscCall(TransferRestrict(P, x, z, PETSC_TRUE));
  PetscFunctionReturn(0);
}
static PetscErrorCode TransferDestroy(void *ctx)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(0);
}

/* The matrix-free transfer, or NULL when some aggregate straddles two ranks (then the AIJ one). */
static PetscErrorCode CreateShellTransfer(DM coarse, DM fine, const PetscInt shift[3], Mat *P)
{
  Transfer *T;
  PetscInt xs, ys, zs, xm, ym, zm, Xs, Ys, Zs, Xm, Ym, Zm, Mf[3] = {1, 1, 1};
  PetscBool local, all;
  MPI_Comm comm = PetscObjectComm((PetscObject)fine);

  PetscFunctionBegin;
  *P = NULL;
  PetscCall(DMDAGetInfo(fine, NULL, &Mf[0], &Mf[1], &Mf[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(fine, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetCorners(coarse, &Xs, &Ys, &Zs, &Xm, &Ym, &Zm));
  {
    const PetscInt lo[3] = {xs, ys, zs}, hi[3] = {xs + xm, ys + ym, zs + zm}, clo[3] = {Xs, Ys, Zs}, chi[3] = {Xs + Xm, Ys + Ym, Zs + Zm};
    local = PETSC_TRUE;
    for (PetscInt d = 0; d < 3; d++)
      local = (PetscBool)(local && (lo[d] >> shift[d]) == clo[d] && ((hi[d] - 1) >> shift[d]) == chi[d] - 1 &&
                          (lo[d] % (1 << shift[d])) == 0);
  }
  PetscCallMPI(MPI_Allreduce(&local, &all, 1, MPIU_BOOL, MPI_LAND, comm));
  if (!all) PetscFunctionReturn(0);
  PetscCall(PetscNew(&T));
  T->lo[0] = xs, T->lo[1] = ys, T->lo[2] = zs;
  T->hi[0] = xs + xm, T->hi[1] = ys + ym, T->hi[2] = zs + zm;
  T->lc[0] = Xs, T->lc[1] = Ys, T->lc[2] = Zs;
  T->cm[0] = Xm, T->cm[1] = Ym, T->cm[2] = Zm;
  for (PetscInt d = 0; d < 3; d++) T->shift[d] = shift[d];
  PetscCall(MatCreateShell(comm, xm * ym * zm, Xm * Ym * Zm, PETSC_DETERMINE, PETSC_DETERMINE, T, P));
  PetscCall(MatShellSetContextDestroy(*P, TransferDestroy));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT, (void (*)(void))MatMult_Transfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_ADD, (void (*)(void))MatMultAdd_Transfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_TRANSPOSE, (void (*)(void))MatMultTranspose_Transfer));
  PetscCall(MatShellSetOperation(*P, MATOP_MULT_TRANSPOSE_ADD, (void (*)(void))MatMultTransposeAdd_Transfer));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPressureCreateInterpolation(SimMAC mac, DM coarse, DM fine, Mat *P)
{
  PetscInt Mf[3] = {1, 1, 1}, Mc[3] = {1, 1, 1}, p[3] = {1, 1, 1}, xs, ys, zs, xm, ym, zm, shift[3], nlocal, ncoarse;
  const PetscInt *own[3] = {NULL, NULL, NULL};
  PetscInt *start[3] = {NULL, NULL, NULL}, *rankof[3] = {NULL, NULL, NULL}, *rows, *cols, *offset;
  PetscScalar *vals;
  MPI_Comm comm = PetscObjectComm((PetscObject)fine);

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(fine, NULL, &Mf[0], &Mf[1], &Mf[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetInfo(coarse, NULL, &Mc[0], &Mc[1], &Mc[2], &p[0], &p[1], &p[2], NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(coarse, &own[0], &own[1], &own[2]));
  for (PetscInt d = 0; d < 3; d++) {
    shift[d] = Mc[d] == Mf[d] ? 0 : 1;
    PetscCheck((Mf[d] + shift[d]) >> shift[d] == Mc[d], comm, PETSC_ERR_ARG_INCOMP, "pressure levels of %" PetscInt_FMT " and %" PetscInt_FMT
               " cells along axis %" PetscInt_FMT " are not a halving", Mf[d], Mc[d], d);
    if (d >= mac->dim) p[d] = 1;
    PetscCall(PetscMalloc2(p[d] + 1, &start[d], Mc[d], &rankof[d]));
    if (d < mac->dim) PetscCall(RankStarts(p[d], own[d], start[d]));
    else start[d][0] = 0, start[d][1] = 1;
    for (PetscInt r = 0; r < p[d]; r++)
      for (PetscInt ic = start[d][r]; ic < start[d][r + 1]; ic++) rankof[d][ic] = r;
  }
  PetscCall(CreateShellTransfer(coarse, fine, shift, P));
  if (*P) {
    for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree2(start[d], rankof[d]));
    PetscFunctionReturn(0);
  }
  /* the first global index of each rank of the coarse DMDA (ranks ordered x fastest) */
  PetscCall(PetscMalloc1(p[0] * p[1] * p[2], &offset));
  for (PetscInt r = 0, o = 0; r < p[0] * p[1] * p[2]; r++) {
    PetscInt rx = r % p[0], ry = (r / p[0]) % p[1], rz = r / (p[0] * p[1]);
    offset[r] = o;
    o += (start[0][rx + 1] - start[0][rx]) * (start[1][ry + 1] - start[1][ry]) * (start[2][rz + 1] - start[2][rz]);
  }
  PetscCall(DMDAGetCorners(fine, &xs, &ys, &zs, &xm, &ym, &zm));
  nlocal = xm * ym * zm;
  PetscCall(DMDAGetCorners(coarse, NULL, NULL, NULL, &ncoarse, NULL, NULL));
  {
    PetscInt cy, cz;
    PetscCall(DMDAGetCorners(coarse, NULL, NULL, NULL, NULL, &cy, &cz));
    ncoarse *= cy * cz;
  }
  PetscCall(PetscMalloc3(nlocal + 1, &rows, nlocal, &cols, nlocal, &vals));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        const PetscInt ic = i >> shift[0], jc = j >> shift[1], kc = k >> shift[2];
        const PetscInt rx = rankof[0][ic], ry = rankof[1][jc], rz = rankof[2][kc];
        const PetscInt ox = start[0][rx], oy = start[1][ry], oz = start[2][rz];
        const PetscInt mx = start[0][rx + 1] - ox, my = start[1][ry + 1] - oy;
        rows[l] = l;
        cols[l] = offset[rx + p[0] * (ry + p[1] * rz)] + (ic - ox) + mx * ((jc - oy) + my * (kc - oz));
        vals[l] = 1;
      }
  rows[nlocal] = nlocal;
  /* one entry per fine row (its aggregate); the CSR preallocation copies the arrays */
  PetscCall(MatCreate(comm, P));
  PetscCall(MatSetSizes(*P, nlocal, ncoarse, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*P, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*P, rows, cols, vals));
  PetscCall(MatMPIAIJSetPreallocationCSR(*P, rows, cols, vals));
  PetscCall(PetscFree3(rows, cols, vals));
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree2(start[d], rankof[d]));
  PetscCall(PetscFree(offset));
  PetscFunctionReturn(0);
}

/* One level's stencil. Flat arrays: a local (ghosted) array is indexed (i - gxs) + gx ((j - gys) +
 * gy (k - gzs)), an owned (global) one (i - xs) + xm ((j - ys) + ym (k - zs)). The couplings come from
 * the level's geometry (row factors times C_x and W_x along the row); the ghost slots beyond the
 * physical boundary hold 0, so a boundary face needs no branch (its coupling is 0 for a wall). */
typedef struct {
  DM da;
  Vec xl; /* ghosted work vector; the slots beyond the physical boundary are never written: 0 */
  /* several ranks: the face-ghost slots of xl filled from a global vector (no owned entries), and a
   * global work vector holding the owned surface layer between the two colours of a sweep */
  VecScatter ghosts;
  Vec xg;
  PetscInt dim, M[3], xs, ys, zs, xm, ym, zm, gxs, gys, gzs, gx, gy;
  PetscReal s;
  Geometry G;
  PetscMPIInt size;
  /* the inverse diagonal along the row of the last sweep, recomputed only when a row's couplings
   * differ from the previous row's (a few times per plane on an even level) */
  PetscReal *invd;
  RowCoef invd_row;
  PetscReal *row;  /* a row of the sweep's updates */
  PetscScalar *zero; /* a row of zeros: the rows beyond the boundary on one rank (Rows) */
} Stencil;

/* S->invd for row coefficients r (recomputed only for new ones). */
static inline __attribute__((always_inline)) const PetscReal *InverseDiagonal(Stencil *S, const RowCoef *r)
{
  const RowCoef *c = &S->invd_row;

  if (c->ax != r->ax || c->ylo != r->ylo || c->yhi != r->yhi || c->zlo != r->zlo || c->zhi != r->zhi) {
    const PetscReal *cx = S->G.C[0] + S->xs, *wx = S->G.W[0] + S->xs, ryz = r->ylo + r->yhi + r->zlo + r->zhi;
    for (PetscInt i = 0; i < S->xm; i++) S->invd[i] = 1.0 / (r->ax * (cx[i] + cx[i + 1]) + wx[i] * ryz);
    S->invd_row = *r;
  }
  return S->invd;
}

/* Offset of the first owned cell of row (j,k) in the local and in the owned array. */
static inline __attribute__((always_inline)) PetscInt LocalRow(const Stencil *S, PetscInt j, PetscInt k)
{
  return (S->xs - S->gxs) + S->gx * ((j - S->gys) + S->gy * (k - S->gzs));
}
static inline __attribute__((always_inline)) PetscInt OwnedRow(const Stencil *S, PetscInt j, PetscInt k)
{
  return S->xm * ((j - S->ys) + S->ym * (k - S->zs));
}

/* The rows a stencil reads around row (j, k) of x: the row itself (c) and its neighbours along y (s,
 * n) and z (b, t; 3D), and the values beyond its two ends (left, right). On the ghosted local array
 * they are its ghost slots (0 beyond the physical boundary). On one rank the owned array is the
 * whole grid: a row beyond the boundary is S->zero and so are the values beyond the ends, the same
 * numbers the ghost slots hold, so both give the same arithmetic. */
typedef struct {
  PetscScalar *c;
  const PetscScalar *s, *n, *b, *t;
  PetscScalar left, right;
} Rows;

static inline __attribute__((always_inline)) Rows RowsOf(const Stencil *S, PetscScalar *x, PetscBool ghosted, PetscInt j, PetscInt k)
{
  Rows R;

  if (ghosted) {
    const PetscInt sy = S->gx, sz = S->gx * S->gy;
    R.c = x + LocalRow(S, j, k);
    R.s = R.c - sy, R.n = R.c + sy, R.b = R.c - sz, R.t = R.c + sz;
    R.left = R.c[-1], R.right = R.c[S->xm];
  } else {
    const PetscInt sy = S->xm, sz = S->xm * S->ym;
    R.c = x + OwnedRow(S, j, k);
    R.s = j > S->ys ? R.c - sy : S->zero;
    R.n = j < S->ys + S->ym - 1 ? R.c + sy : S->zero;
    R.b = k > S->zs ? R.c - sz : S->zero;
    R.t = k < S->zs + S->zm - 1 ? R.c + sz : S->zero;
    R.left = R.right = 0;
  }
  return R;
}

/* y = A x (b == NULL) or y = b - A x, from x (ghosted: the local array; otherwise, on one rank, the
 * owned one): per cell, sum over the faces of coupling (x - x_neighbour). The first and last cells of
 * a row take their outer neighbour from Rows. */
SF_KERNEL static void Apply(const Stencil *S, const PetscScalar *xa, PetscBool ghosted, const PetscScalar *b, PetscScalar *y)
{
  const PetscReal *restrict cx = S->G.C[0] + S->xs, *restrict wx = S->G.W[0] + S->xs;
  const PetscInt xm = S->xm;

  for (PetscInt k = S->zs; k < S->zs + S->zm; k++)
    for (PetscInt j = S->ys; j < S->ys + S->ym; j++) {
      const Rows R = RowsOf(S, (PetscScalar *)xa, ghosted, j, k);
      const PetscScalar *restrict x = R.c, *restrict xs = R.s, *restrict xn = R.n, *restrict xb = R.b, *restrict xt = R.t;
      const PetscScalar *restrict br = b ? b + OwnedRow(S, j, k) : NULL;
      PetscScalar *restrict yr = y + OwnedRow(S, j, k);
      const RowCoef r = RowCoefficients(&S->G, S->s, j, k);
#define SF_APPLY(i, XL, XR) \
  (S->dim == 2 ? r.ax * (cx[i] * (x[i] - (XL)) + cx[i + 1] * (x[i] - (XR))) + wx[i] * (r.ylo * (x[i] - xs[i]) + r.yhi * (x[i] - xn[i])) \
               : r.ax * (cx[i] * (x[i] - (XL)) + cx[i + 1] * (x[i] - (XR))) + \
                   wx[i] * (r.ylo * (x[i] - xs[i]) + r.yhi * (x[i] - xn[i]) + r.zlo * (x[i] - xb[i]) + r.zhi * (x[i] - xt[i])))
      if (xm == 1) {
        const PetscReal v = SF_APPLY(0, R.left, R.right);
        yr[0] = br ? br[0] - v : v;
        continue;
      }
      {
        const PetscReal v = SF_APPLY(0, R.left, x[1]);
        yr[0] = br ? br[0] - v : v;
      }
      if (S->dim == 2)
        for (PetscInt i = 1; i < xm - 1; i++) {
          const PetscReal v = r.ax * (cx[i] * (x[i] - x[i - 1]) + cx[i + 1] * (x[i] - x[i + 1])) + wx[i] * (r.ylo * (x[i] - xs[i]) + r.yhi * (x[i] - xn[i]));
          yr[i] = br ? br[i] - v : v;
        }
      else
        for (PetscInt i = 1; i < xm - 1; i++) {
          const PetscReal v = r.ax * (cx[i] * (x[i] - x[i - 1]) + cx[i + 1] * (x[i] - x[i + 1])) +
                              wx[i] * (r.ylo * (x[i] - xs[i]) + r.yhi * (x[i] - xn[i]) + r.zlo * (x[i] - xb[i]) + r.zhi * (x[i] - xt[i]));
          yr[i] = br ? br[i] - v : v;
        }
      {
        const PetscReal v = SF_APPLY(xm - 1, x[xm - 2], R.right);
        yr[xm - 1] = br ? br[xm - 1] - v : v;
      }
#undef SF_APPLY
    }
}

/* Gauss-Seidel on the cells of one colour ((i+j+k) % 2 == colour) of the owned rows (j, k) in
 * [j0, j1) x [k0, k1) of x (ghosted, or on one rank the owned array; Rows): x_c = (b_c + sum_nb
 * coupling x_nb) / sum_nb coupling, zero beyond the boundary. zero: x is taken as 0 on entry, so the
 * colour's cells get b / diag and the other colour is set to 0. */
SF_KERNEL static void HalfSweep(Stencil *S, PetscScalar *xa, PetscBool ghosted, const PetscScalar *b, PetscInt colour, PetscBool zero,
                                PetscInt j0, PetscInt j1, PetscInt k0, PetscInt k1)
{
  const PetscInt x0 = S->xs, xm = S->xm;
  const PetscReal *restrict cx = S->G.C[0] + S->xs, *restrict wx = S->G.W[0] + S->xs;

  for (PetscInt k = k0; k < k1; k++)
    for (PetscInt j = j0; j < j1; j++) {
      const Rows R = RowsOf(S, xa, ghosted, j, k);
      PetscScalar *restrict x = R.c;
      const PetscScalar *restrict xs = R.s, *restrict xn = R.n, *restrict xb = R.b, *restrict xt = R.t;
      const PetscScalar *restrict br = b + OwnedRow(S, j, k);
      const RowCoef r = RowCoefficients(&S->G, S->s, j, k);
      const PetscReal *restrict id = InverseDiagonal(S, &r);
      PetscReal *restrict t = S->row;
      PetscInt first = (x0 + j + k + colour) & 1; /* offset of the first cell of this colour in the row */

      /* The update of this colour reads only the other one: computed for the whole row (contiguous,
       * vectorizable), then stored on this colour's cells. */
      if (zero) {
        for (PetscInt i = 1 - first; i < xm; i += 2) x[i] = 0;
        for (PetscInt i = first; i < xm; i += 2) x[i] = br[i] * id[i];
        continue;
      }
#define SF_SWEEP(i, XL, XR) \
  (S->dim == 2 ? (br[i] + r.ax * (cx[i] * (XL) + cx[i + 1] * (XR)) + wx[i] * (r.ylo * xs[i] + r.yhi * xn[i])) * id[i] \
               : (br[i] + r.ax * (cx[i] * (XL) + cx[i + 1] * (XR)) + wx[i] * (r.ylo * xs[i] + r.yhi * xn[i] + r.zlo * xb[i] + r.zhi * xt[i])) * id[i])
      if (xm == 1) t[0] = SF_SWEEP(0, R.left, R.right);
      else {
        t[0] = SF_SWEEP(0, R.left, x[1]);
        if (S->dim == 2)
          for (PetscInt i = 1; i < xm - 1; i++) t[i] = (br[i] + r.ax * (cx[i] * x[i - 1] + cx[i + 1] * x[i + 1]) + wx[i] * (r.ylo * xs[i] + r.yhi * xn[i])) * id[i];
        else
          for (PetscInt i = 1; i < xm - 1; i++)
            t[i] = (br[i] + r.ax * (cx[i] * x[i - 1] + cx[i + 1] * x[i + 1]) + wx[i] * (r.ylo * xs[i] + r.yhi * xn[i] + r.zlo * xb[i] + r.zhi * xt[i])) *
                   id[i];
        t[xm - 1] = SF_SWEEP(xm - 1, x[xm - 2], R.right);
      }
#undef SF_SWEEP
      for (PetscInt i = first; i < xm; i += 2) x[i] = t[i];
    }
}

/* The scatter filling the face ghosts of xl (points outside the owned box in exactly one
 * coordinate and inside the domain: the stencil reads no edge or corner ghost) from a global vector. */
static PetscErrorCode CreateGhostScatter(Stencil *S)
{
  ISLocalToGlobalMapping ltog;
  PetscInt n = 0, *from, *to, gxm = S->gx, gym = S->gy, gzm, lo[3], hi[3];
  IS isf, ist;

  PetscFunctionBegin;
  PetscCall(DMDAGetGhostCorners(S->da, NULL, NULL, NULL, NULL, NULL, &gzm));
  PetscCall(DMGetLocalToGlobalMapping(S->da, &ltog));
  lo[0] = S->xs, lo[1] = S->ys, lo[2] = S->zs;
  hi[0] = S->xs + S->xm, hi[1] = S->ys + S->ym, hi[2] = S->zs + S->zm;
  PetscCall(PetscMalloc2(gxm * gym * gzm, &from, gxm * gym * gzm, &to));
  for (PetscInt k = S->gzs; k < S->gzs + gzm; k++)
    for (PetscInt j = S->gys; j < S->gys + gym; j++)
      for (PetscInt i = S->gxs; i < S->gxs + gxm; i++) {
        PetscInt idx[3] = {i, j, k}, outside = 0, inside = 1;
        for (PetscInt c = 0; c < 3; c++) {
          outside += idx[c] < lo[c] || idx[c] >= hi[c];
          inside = inside && idx[c] >= 0 && idx[c] < S->M[c];
        }
        if (outside != 1 || !inside) continue;
        to[n++] = (i - S->gxs) + gxm * ((j - S->gys) + gym * (k - S->gzs));
      }
  PetscCall(ISLocalToGlobalMappingApply(ltog, n, to, from));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, from, PETSC_COPY_VALUES, &isf));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, to, PETSC_COPY_VALUES, &ist));
  PetscCall(DMCreateGlobalVector(S->da, &S->xg));
  PetscCall(VecScatterCreate(S->xg, isf, S->xl, ist, &S->ghosts));
  PetscCall(ISDestroy(&isf));
  PetscCall(ISDestroy(&ist));
  PetscCall(PetscFree2(from, to));
  PetscFunctionReturn(0);
}

/* The face ghosts of S->xl from the global vector g (several ranks; on one there are none). */
static PetscErrorCode UpdateGhosts(Stencil *S, Vec g)
{
  PetscFunctionBegin;
  if (S->size == 1) PetscFunctionReturn(0);
  PetscCall(VecScatterBegin(S->ghosts, g, S->xl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(S->ghosts, g, S->xl, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}

/* x (global) -> S->xl: the owned part row by row (half the bytes of a general scatter, which reads an
 * index per entry), then the face ghosts. */
static PetscErrorCode ToLocal(Stencil *S, Vec x)
{
  const PetscScalar *xa;
  PetscScalar *xl;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(S->xl, &xl));
  for (PetscInt k = S->zs; k < S->zs + S->zm; k++)
    for (PetscInt j = S->ys; j < S->ys + S->ym; j++) PetscCall(PetscArraycpy(xl + LocalRow(S, j, k), xa + OwnedRow(S, j, k), S->xm));
  PetscCall(VecRestoreArray(S->xl, &xl));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(UpdateGhosts(S, x));
  PetscFunctionReturn(0);
}

/* S->xl (owned part) -> x (global); surface: only the owned cells on the subdomain's faces (what the
 * neighbours' ghosts read). */
static PetscErrorCode FromLocal(Stencil *S, Vec x, PetscBool surface)
{
  const PetscScalar *xl;
  PetscScalar *xa;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(S->xl, &xl));
  PetscCall(VecGetArrayWrite(x, &xa));
  for (PetscInt k = S->zs; k < S->zs + S->zm; k++)
    for (PetscInt j = S->ys; j < S->ys + S->ym; j++) {
      PetscScalar *dst = xa + OwnedRow(S, j, k);
      const PetscScalar *src = xl + LocalRow(S, j, k);
      PetscBool edge = (PetscBool)(j == S->ys || j == S->ys + S->ym - 1 || (S->dim == 3 && (k == S->zs || k == S->zs + S->zm - 1)));
      if (!surface || edge) PetscCall(PetscArraycpy(dst, src, S->xm));
      else dst[0] = src[0], dst[S->xm - 1] = src[S->xm - 1];
    }
  PetscCall(VecRestoreArrayWrite(x, &xa));
  PetscCall(VecRestoreArrayRead(S->xl, &xl));
  PetscFunctionReturn(0);
}

static PetscErrorCode Product(Mat A, Vec b, Vec x, Vec y)
{
  Stencil *S;
  const PetscScalar *xl, *ba = NULL;
  PetscScalar *ya;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &S));
  /* on one rank straight from x (Rows); otherwise from its ghosted copy */
  if (S->size > 1) PetscCall(ToLocal(S, x));
  PetscCall(VecGetArrayRead(S->size > 1 ? S->xl : x, &xl));
  if (b) PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(VecGetArrayWrite(y, &ya));
  Apply(S, xl, (PetscBool)(S->size > 1), ba, ya);
  PetscCall(VecRestoreArrayWrite(y, &ya));
  if (b) PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(VecRestoreArrayRead(S->size > 1 ? S->xl : x, &xl));
  PetscCall(PetscLogFlops((S->dim == 2 ? 7.0 : 9.0) * S->xm * S->ym * S->zm));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMult_Stencil(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(Product(A, NULL, x, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatResidual_Stencil(Mat A, Vec b, Vec x, Vec r)
{
  PetscFunctionBegin;
  PetscCall(Product(A, b, x, r));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetDiagonal_Stencil(Mat A, Vec d)
{
  Stencil *S;
  PetscScalar *da;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &S));
  PetscCall(VecGetArrayWrite(d, &da));
  for (PetscInt k = S->zs; k < S->zs + S->zm; k++)
    for (PetscInt j = S->ys; j < S->ys + S->ym; j++) {
      PetscScalar *dr = da + OwnedRow(S, j, k);
      const RowCoef r = RowCoefficients(&S->G, S->s, j, k);
      for (PetscInt i = S->xs; i < S->xs + S->xm; i++)
        dr[i - S->xs] = r.ax * (S->G.C[0][i] + S->G.C[0][i + 1]) + S->G.W[0][i] * (r.ylo + r.yhi + r.zlo + r.zhi);
    }
  PetscCall(VecRestoreArrayWrite(d, &da));
  PetscFunctionReturn(0);
}

static PetscErrorCode StencilDestroy(void *ctx)
{
  Stencil *S = (Stencil *)ctx;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&S->xl));
  PetscCall(VecDestroy(&S->xg));
  PetscCall(VecScatterDestroy(&S->ghosts));
  PetscCall(GeometryDestroy(&S->G));
  PetscCall(PetscFree2(S->invd, S->row));
  PetscCall(PetscFree(S->zero));
  PetscCall(DMDestroy(&S->da));
  PetscCall(PetscFree(S));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPressureCreateStencil(SimMAC mac, DM da, Mat *A)
{
  Stencil *S;
  PetscInt gxm, gym, gzm;
  PetscBool allwalls;
  MPI_Comm comm = PetscObjectComm((PetscObject)da);

  PetscFunctionBegin;
  PetscCall(PetscNew(&S));
  S->da = da;
  PetscCall(PetscObjectReference((PetscObject)da));
  S->dim = mac->dim;
  S->M[1] = S->M[2] = 1;
  PetscCall(DMDAGetInfo(da, NULL, &S->M[0], &S->M[1], &S->M[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &S->xs, &S->ys, &S->zs, &S->xm, &S->ym, &S->zm));
  PetscCall(DMDAGetGhostCorners(da, &S->gxs, &S->gys, &S->gzs, &gxm, &gym, &gzm));
  S->gx = gxm;
  S->gy = gym;
  S->s = mac->dim == 2 ? 1.0 : mac->h;
  PetscCall(GeometryCreate(mac, da, &S->G));
  PetscCall(PetscMalloc2(S->xm, &S->invd, S->xm, &S->row));
  PetscCall(PetscCalloc1(S->xm, &S->zero));
  S->invd_row.ax = -1; /* no row yet */
  PetscCallMPI(MPI_Comm_size(comm, &S->size));
  PetscCall(DMCreateLocalVector(da, &S->xl));
  PetscCall(VecSet(S->xl, 0));
  if (S->size > 1) PetscCall(CreateGhostScatter(S));

  PetscCall(MatCreateShell(comm, S->xm * S->ym * S->zm, S->xm * S->ym * S->zm, PETSC_DETERMINE, PETSC_DETERMINE, S, A));
  PetscCall(MatShellSetContextDestroy(*A, StencilDestroy));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))MatMult_Stencil));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, (void (*)(void))MatMult_Stencil));
  PetscCall(MatShellSetOperation(*A, MATOP_RESIDUAL, (void (*)(void))MatResidual_Stencil));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (void (*)(void))MatGetDiagonal_Stencil));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_FALSE));
  PetscCall(SimMACAllWalls(mac, &allwalls));
  if (allwalls) {
    MatNullSpace ns;
    PetscCall(MatNullSpaceCreate(comm, PETSC_TRUE, 0, NULL, &ns));
    PetscCall(MatSetNullSpace(*A, ns));
    PetscCall(MatNullSpaceDestroy(&ns));
  }
  PetscFunctionReturn(0);
}

/* The smoother: a red-black sweep (or black-red) on the level's stencil. */
typedef struct {
  Mat A; /* holds the Stencil */
  PetscBool reverse;
} Smoother;

/* `sweeps` red-black (or black-red) Gauss-Seidel sweeps on A x = b from x (or from 0).
 * One rank: in place on x, all the half-sweeps in one pass, a wavefront over the slabs of the slowest
 * axis (the planes k in 3D, the rows j in 2D): half-sweep h on slab t - h at step t, h ascending.
 * Half-sweep h of a slab reads the other colour of the slab and of its two neighbours as half-sweep
 * h - 1 left them (done at step t or before) and before half-sweep h + 1 overwrites them (step t or
 * after, after h): every cell gets the same update from the same values as sweep by sweep, so the
 * result is bit for bit the same, while the slabs in flight stay in cache.
 * Several ranks: sweep by sweep on the ghosted copy, the ghosts refreshed between the two colours. */
static PetscErrorCode Sweeps(Smoother *sm, Vec b, Vec x, PetscInt sweeps, PetscBool zero)
{
  Stencil *S;
  const PetscScalar *ba;
  PetscScalar *xa;
  PetscInt first = sm->reverse ? 1 : 0;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(sm->A, &S));
  if (S->size == 1) {
    const PetscInt nhalf = 2 * sweeps, planes = S->dim == 3 && S->zm > 1, lo = planes ? S->zs : S->ys, n = planes ? S->zm : S->ym;
    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(zero ? VecGetArrayWrite(x, &xa) : VecGetArray(x, &xa));
    for (PetscInt t = 0; t < n + nhalf - 1; t++)
      for (PetscInt h = 0; h < nhalf; h++) {
        const PetscInt sl = lo + t - h, colour = (first + h) & 1;
        const PetscBool z = (PetscBool)(zero && h == 0);
        if (sl < lo || sl >= lo + n) continue;
        if (planes) HalfSweep(S, xa, PETSC_FALSE, ba, colour, z, S->ys, S->ys + S->ym, sl, sl + 1);
        else HalfSweep(S, xa, PETSC_FALSE, ba, colour, z, sl, sl + 1, S->zs, S->zs + S->zm);
      }
    PetscCall(zero ? VecRestoreArrayWrite(x, &xa) : VecRestoreArray(x, &xa));
    PetscCall(VecRestoreArrayRead(b, &ba));
  } else {
    if (!zero) PetscCall(ToLocal(S, x));
    for (PetscInt it = 0; it < sweeps; it++)
      for (PetscInt half = 0; half < 2; half++) {
        PetscCall(VecGetArrayRead(b, &ba));
        PetscCall(VecGetArray(S->xl, &xa));
        HalfSweep(S, xa, PETSC_TRUE, ba, (first + half) & 1, (PetscBool)(zero && it == 0 && half == 0), S->ys, S->ys + S->ym, S->zs, S->zs + S->zm);
        PetscCall(VecRestoreArray(S->xl, &xa));
        PetscCall(VecRestoreArrayRead(b, &ba));
        PetscCall(FromLocal(S, S->xg, PETSC_TRUE));
        PetscCall(UpdateGhosts(S, S->xg));
      }
    PetscCall(FromLocal(S, x, PETSC_FALSE));
  }
  PetscCall(PetscLogFlops((S->dim == 2 ? 7.0 : 9.0) * S->xm * S->ym * S->zm * sweeps));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCApplyRichardson_Smoother(PC pc, Vec b, Vec x, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol,
                                                 PetscInt its, PetscBool zero, PetscInt *outits,
                                                 PCRichardsonConvergedReason *reason)
{
  Smoother *sm;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &sm));
  PetscCall(Sweeps(sm, b, x, its, zero));
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  PetscFunctionReturn(0);
}

/* As a plain preconditioner: one sweep from x = 0. */
static PetscErrorCode PCApply_Smoother(PC pc, Vec b, Vec x)
{
  Smoother *sm;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &sm));
  PetscCall(Sweeps(sm, b, x, 1, PETSC_TRUE));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCDestroy_Smoother(PC pc)
{
  Smoother *sm;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &sm));
  PetscCall(MatDestroy(&sm->A));
  PetscCall(PetscFree(sm));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPressureSmootherSetUp(PC pc, Mat A, PetscBool reverse)
{
  Smoother *sm;

  PetscFunctionBegin;
  PetscCall(PetscNew(&sm));
  sm->A = A;
  sm->reverse = reverse;
  PetscCall(PetscObjectReference((PetscObject)A));
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, sm));
  PetscCall(PCShellSetName(pc, reverse ? "black-red Gauss-Seidel (matrix-free)" : "red-black Gauss-Seidel (matrix-free)"));
  PetscCall(PCShellSetApply(pc, PCApply_Smoother));
  PetscCall(PCShellSetApplyRichardson(pc, PCApplyRichardson_Smoother));
  PetscCall(PCShellSetDestroy(pc, PCDestroy_Smoother));
  PetscFunctionReturn(0);
}
