/* The projection's pressure operator, assembled and matrix-free, and its red-black Gauss-Seidel
 * smoother (see pressure_stencil.h). */
#include "solvers/stablefluids/pressure_stencil.h"

PetscErrorCode SimPressureAssemble(SimMAC mac, DM dm, Mat A)
{
  PetscInt M[3] = {1, 1, 1}, xs, ys, zs, xm, ym, zm, dim = mac->dim;
  PetscReal h, s;
  PetscBool allwalls;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(dm, NULL, &M[0], &M[1], &M[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  h = mac->h * (PetscReal)mac->n[0] / (PetscReal)M[0];
  s = dim == 2 ? 1.0 : h;
  PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil row = {.i = i, .j = j, .k = k}, col[7];
        PetscScalar val[7], diag = 0;
        PetscInt idx[3] = {i, j, k}, nc = 1;

        for (PetscInt c = 0; c < dim; c++)
          for (PetscInt side = 0; side < 2; side++) {
            PetscInt nb = idx[c] + (side ? 1 : -1);
            if (nb >= 0 && nb < M[c]) {
              PetscInt *at[3] = {&col[nc].i, &col[nc].j, &col[nc].k};
              col[nc] = row;
              *at[c] = nb;
              val[nc++] = -s;
              diag += s;
            } else if (mac->bc[2 * c + side] == SIM_MAC_OPEN)
              diag += 2 * s;
          }
        col[0] = row;
        val[0] = diag;
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, val, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
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

/* One level's stencil. Flat arrays: a local (ghosted) array is indexed (i - gxs) + gx ((j - gys) +
 * gy (k - gzs)), an owned (global) one (i - xs) + xm ((j - ys) + ym (k - zs)). The diagonal of cell
 * (i,j,k) is base plus, per axis, lo[c] on the first and hi[c] on the last cell: s (2d) in the
 * interior; a wall face removes one neighbour (-s), an open face adds s (2 s instead of s). */
typedef struct {
  DM da;
  Vec xl; /* ghosted work vector; the slots beyond the physical boundary are never written: 0 */
  /* several ranks: the face-ghost slots of xl filled from a global vector (no owned entries), and a
   * global work vector holding the owned surface layer between the two colours of a sweep */
  VecScatter ghosts;
  Vec xg;
  PetscInt dim, M[3], xs, ys, zs, xm, ym, zm, gxs, gys, gzs, gx, gy;
  PetscReal s, base, lo[3], hi[3];
  PetscMPIInt size;
} Stencil;

static inline PetscReal Adjust(const Stencil *S, PetscInt c, PetscInt i)
{
  return (i == 0 ? S->lo[c] : 0) + (i == S->M[c] - 1 ? S->hi[c] : 0);
}

/* Offset of the first owned cell of row (j,k) in the local and in the owned array. */
static inline PetscInt LocalRow(const Stencil *S, PetscInt j, PetscInt k)
{
  return (S->xs - S->gxs) + S->gx * ((j - S->gys) + S->gy * (k - S->gzs));
}
static inline PetscInt OwnedRow(const Stencil *S, PetscInt j, PetscInt k)
{
  return S->xm * ((j - S->ys) + S->ym * (k - S->zs));
}

/* y = A x (b == NULL) or y = b - A x, from the ghosted x. */
static void Apply(const Stencil *S, const PetscScalar *xl, const PetscScalar *b, PetscScalar *y)
{
  const PetscInt sy = S->gx, sz = S->gx * S->gy, x0 = S->xs;
  const PetscReal s = S->s;

  for (PetscInt k = S->zs; k < S->zs + S->zm; k++)
    for (PetscInt j = S->ys; j < S->ys + S->ym; j++) {
      const PetscScalar *x = xl + LocalRow(S, j, k);
      const PetscScalar *br = b ? b + OwnedRow(S, j, k) : NULL;
      PetscScalar *yr = y + OwnedRow(S, j, k);
      PetscReal dj = S->base + Adjust(S, 1, j) + (S->dim == 3 ? Adjust(S, 2, k) : 0);

      if (S->dim == 2) {
        if (br)
          for (PetscInt i = 0; i < S->xm; i++)
            yr[i] = br[i] - ((dj + Adjust(S, 0, x0 + i)) * x[i] - s * (x[i - 1] + x[i + 1] + x[i - sy] + x[i + sy]));
        else
          for (PetscInt i = 0; i < S->xm; i++)
            yr[i] = (dj + Adjust(S, 0, x0 + i)) * x[i] - s * (x[i - 1] + x[i + 1] + x[i - sy] + x[i + sy]);
      } else {
        if (br)
          for (PetscInt i = 0; i < S->xm; i++)
            yr[i] = br[i] - ((dj + Adjust(S, 0, x0 + i)) * x[i] -
                             s * (x[i - 1] + x[i + 1] + x[i - sy] + x[i + sy] + x[i - sz] + x[i + sz]));
        else
          for (PetscInt i = 0; i < S->xm; i++)
            yr[i] = (dj + Adjust(S, 0, x0 + i)) * x[i] - s * (x[i - 1] + x[i + 1] + x[i - sy] + x[i + sy] + x[i - sz] + x[i + sz]);
      }
    }
}

/* Gauss-Seidel on the cells of one colour ((i+j+k) % 2 == colour): x_c = (b_c + s sum_nb x_nb) / diag_c,
 * the neighbours being the ghosted x (zero beyond the boundary). zero: x is taken as 0 on entry, so the
 * colour's cells get b / diag and the other colour is set to 0. */
static void HalfSweep(const Stencil *S, PetscScalar *xl, const PetscScalar *b, PetscInt colour, PetscBool zero)
{
  const PetscInt sy = S->gx, sz = S->gx * S->gy, x0 = S->xs;
  const PetscReal s = S->s;

  for (PetscInt k = S->zs; k < S->zs + S->zm; k++)
    for (PetscInt j = S->ys; j < S->ys + S->ym; j++) {
      PetscScalar *x = xl + LocalRow(S, j, k);
      const PetscScalar *br = b + OwnedRow(S, j, k);
      PetscReal dj = S->base + Adjust(S, 1, j) + (S->dim == 3 ? Adjust(S, 2, k) : 0);
      PetscInt first = (x0 + j + k + colour) & 1; /* offset of the first cell of this colour in the row */

      if (zero) {
        for (PetscInt i = 1 - first; i < S->xm; i += 2) x[i] = 0;
        for (PetscInt i = first; i < S->xm; i += 2) x[i] = br[i] / (dj + Adjust(S, 0, x0 + i));
      } else if (S->dim == 2) {
        for (PetscInt i = first; i < S->xm; i += 2)
          x[i] = (br[i] + s * (x[i - 1] + x[i + 1] + x[i - sy] + x[i + sy])) / (dj + Adjust(S, 0, x0 + i));
      } else {
        for (PetscInt i = first; i < S->xm; i += 2)
          x[i] = (br[i] + s * (x[i - 1] + x[i + 1] + x[i - sy] + x[i + sy] + x[i - sz] + x[i + sz])) / (dj + Adjust(S, 0, x0 + i));
      }
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
  PetscCall(ToLocal(S, x));
  PetscCall(VecGetArrayRead(S->xl, &xl));
  if (b) PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(VecGetArrayWrite(y, &ya));
  Apply(S, xl, ba, ya);
  PetscCall(VecRestoreArrayWrite(y, &ya));
  if (b) PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(VecRestoreArrayRead(S->xl, &xl));
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
      PetscReal dj = S->base + Adjust(S, 1, j) + (S->dim == 3 ? Adjust(S, 2, k) : 0);
      for (PetscInt i = 0; i < S->xm; i++) dr[i] = dj + Adjust(S, 0, S->xs + i);
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
  PetscCall(DMDestroy(&S->da));
  PetscCall(PetscFree(S));
  PetscFunctionReturn(0);
}

PetscErrorCode SimPressureCreateStencil(SimMAC mac, DM da, Mat *A)
{
  Stencil *S;
  PetscInt gxm, gym, gzm;
  PetscReal h;
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
  h = mac->h * (PetscReal)mac->n[0] / (PetscReal)S->M[0];
  S->s = mac->dim == 2 ? 1.0 : h;
  S->base = 2 * mac->dim * S->s;
  for (PetscInt c = 0; c < 3; c++) {
    S->lo[c] = c < mac->dim ? (mac->bc[2 * c] == SIM_MAC_OPEN ? S->s : -S->s) : 0;
    S->hi[c] = c < mac->dim ? (mac->bc[2 * c + 1] == SIM_MAC_OPEN ? S->s : -S->s) : 0;
  }
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

/* `sweeps` red-black (or black-red) Gauss-Seidel sweeps on A x = b from x (or from 0). Between the
 * two colours the ghosts are refreshed (on several ranks; on one there are none to refresh). */
static PetscErrorCode Sweeps(Smoother *sm, Vec b, Vec x, PetscInt sweeps, PetscBool zero)
{
  Stencil *S;
  const PetscScalar *ba;
  PetscScalar *xl;
  PetscInt first = sm->reverse ? 1 : 0;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(sm->A, &S));
  if (!zero) PetscCall(ToLocal(S, x));
  for (PetscInt it = 0; it < sweeps; it++)
    for (PetscInt half = 0; half < 2; half++) {
      PetscCall(VecGetArrayRead(b, &ba));
      PetscCall(VecGetArray(S->xl, &xl));
      HalfSweep(S, xl, ba, (first + half) & 1, (PetscBool)(zero && it == 0 && half == 0));
      PetscCall(VecRestoreArray(S->xl, &xl));
      PetscCall(VecRestoreArrayRead(b, &ba));
      if (S->size > 1) {
        PetscCall(FromLocal(S, S->xg, PETSC_TRUE));
        PetscCall(UpdateGhosts(S, S->xg));
      }
    }
  PetscCall(FromLocal(S, x, PETSC_FALSE));
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
