/* Semi-Lagrangian advection on the MAC grid (Stam 1999 sec. 2.2; Bridson ch. 3): every sample
 * point is traced back through the velocity field by an explicit Runge-Kutta step and takes the
 * multilinearly interpolated value found there; BFECC (Kim et al. 2005) with clamping (Selle et
 * al. 2008) as an option. */
#include "solvers/stablefluids/sf_impl.h"

/* The schemes, as Butcher tableaux of the backtrace dx/ds = -u(x) (Bridson sec. 3.1 recommends
 * RK2 at least and Ralston's RK3 for accuracy). */
static const SFAdvection schemes[] = {
    {"rk2", "midpoint RK2 backtrace (default)", 2, {{0}, {0.5}}, {0, 1}, PETSC_FALSE},
    {"rk3", "Ralston's RK3 backtrace", 3, {{0}, {0.5}, {0, 0.75}}, {2.0 / 9, 3.0 / 9, 4.0 / 9}, PETSC_FALSE},
    {"bfecc",
     "RK2 backtrace with BFECC error compensation and clamping (second order in space)",
     2,
     {{0}, {0.5}},
     {0, 1},
     PETSC_TRUE},
};
#define NSCHEMES ((PetscInt)(sizeof(schemes) / sizeof(schemes[0])))

PetscErrorCode SFAdvectionFind(const char *name, const SFAdvection **adv)
{
  char valid[256] = "";

  PetscFunctionBegin;
  for (PetscInt s = 0; s < NSCHEMES; s++) {
    if (!strcmp(schemes[s].name, name)) {
      *adv = &schemes[s];
      PetscFunctionReturn(0);
    }
    PetscCall(PetscStrlcat(valid, s ? ", " : "", sizeof(valid)));
    PetscCall(PetscStrlcat(valid, schemes[s].name, sizeof(valid)));
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -sf_advection '%s'. Valid: %s", name, valid);
}

PetscErrorCode SFLocalGet(DM dm, Vec local, SFLocal *L)
{
  PetscInt dim;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(dm, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &L->dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetGhostCorners(dm, &L->s[0], &L->s[1], &L->s[2], &L->m[0], &L->m[1], &L->m[2]));
  if (dim == 2) L->s[2] = 0, L->m[2] = 1;
  PetscCall(VecGetArrayRead(local, &L->a));
  PetscFunctionReturn(0);
}

/* x_b = x - dt sum_s b_s k_s with k_s = u(x - dt sum_r a_sr k_r). */
static inline void Backtrace(const SF *sf, const SFLocal *V, PetscReal dt, const PetscReal x[3], PetscReal xb[3], PetscBool *bad)
{
  const SFAdvection *a = sf->adv;
  PetscReal k[3][3], y[3];

  for (PetscInt s = 0; s < a->stages; s++) {
    for (PetscInt d = 0; d < 3; d++) {
      y[d] = x[d];
      for (PetscInt r = 0; r < s; r++) y[d] -= dt * a->a[s][r] * k[r][d];
    }
    SFVelocity(sf, V, y, k[s], bad);
  }
  for (PetscInt d = 0; d < 3; d++) {
    xb[d] = x[d];
    for (PetscInt s = 0; s < a->stages; s++) xb[d] -= dt * a->b[s] * k[s][d];
  }
}

void SFBacktrace(const SF *sf, const SFLocal *V, PetscReal dt, const PetscReal x[3], PetscReal xb[3], PetscBool *bad)
{
  Backtrace(sf, V, dt, x, xb, bad);
}

/* Smallest and largest of the 2^dim samples SFSample interpolates between at x. */
static inline void StencilRange(const SFLocal *L, PetscInt c, PetscInt dim, const PetscReal off[3], const PetscInt n[3],
                                PetscReal ih, const PetscReal x[3], PetscReal *lo, PetscReal *hi)
{
  PetscInt i0[3] = {0, 0, 0};

  for (PetscInt d = 0; d < dim; d++) {
    PetscReal f = x[d] * ih - off[d];
    f = f < 0 ? 0 : (f > n[d] - 1 ? n[d] - 1 : f);
    i0[d] = PetscMin((PetscInt)f, n[d] - 2);
  }
  *lo = PETSC_MAX_REAL, *hi = PETSC_MIN_REAL;
  for (PetscInt dk = 0; dk < (dim == 3 ? 2 : 1); dk++)
    for (PetscInt dj = 0; dj < 2; dj++)
      for (PetscInt di = 0; di < 2; di++) {
        PetscReal v = SF_AT(L, i0[0] + di, i0[1] + dj, i0[2] + dk, c);
        *lo = PetscMin(*lo, v), *hi = PetscMax(*hi, v);
      }
}

/* One semi-Lagrangian pass over the owned points of dm (cells, or faces with `faces`):
 * qnew = q(backtrace(x)), with the advecting velocity V. With qclamp, each value is clamped to
 * the range of qclamp's samples around the plain backtrace point (BFECC's last pass). */
static PetscErrorCode Pass(SF *sf, const SFLocal *V, PetscReal dt, DM dm, PetscBool faces, Vec q, Vec qnew, Vec qclamp)
{
  Vec ql, cl = NULL;
  SFLocal Q, C;
  PetscScalar *out;
  PetscInt xs, ys, zs, xm, ym, zm, dim = sf->mac->dim, ncomp = faces ? dim : 1;
  PetscReal ih = 1.0 / sf->h;
  PetscBool bad = PETSC_FALSE, anybad;

  PetscFunctionBegin;
  PetscCall(DMGetLocalVector(dm, &ql));
  PetscCall(DMGlobalToLocal(dm, q, INSERT_VALUES, ql));
  PetscCall(SFLocalGet(dm, ql, &Q));
  if (qclamp) {
    PetscCall(DMGetLocalVector(dm, &cl));
    PetscCall(DMGlobalToLocal(dm, qclamp, INSERT_VALUES, cl));
    PetscCall(SFLocalGet(dm, cl, &C));
  }
  PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(qnew, &out));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < ncomp; c++) {
          const PetscInt idx[3] = {i, j, k};
          const PetscReal *off = faces ? sf->face_off[c] : sf->cell_off;
          const PetscInt *n = faces ? sf->face_n[c] : sf->cell_n;
          PetscReal x[3], xb[3], v;

          if (faces && SFFacePadding(sf, c, idx)) {
            out[l * ncomp + c] = 0;
            continue;
          }
          if (faces && SFFacePrescribed(sf, c, idx)) {
            out[l * ncomp + c] = SF_AT(&Q, i, j, k, c);
            continue;
          }
          if (faces)
            SFFacePosition(sf, c, i, j, k, x);
          else
            SFCellPosition(sf, i, j, k, x);
          Backtrace(sf, V, dt, x, xb, &bad);
          v = SFSample(&Q, c, dim, off, n, ih, xb, &bad);
          if (qclamp) {
            PetscReal lo, hi;
            StencilRange(&C, c, dim, off, n, ih, xb, &lo, &hi);
            v = PetscMax(lo, PetscMin(hi, v));
          }
          out[l * ncomp + c] = v;
        }
  PetscCall(VecRestoreArray(qnew, &out));
  PetscCall(VecRestoreArrayRead(ql, &Q.a));
  PetscCall(DMRestoreLocalVector(dm, &ql));
  if (qclamp) {
    PetscCall(VecRestoreArrayRead(cl, &C.a));
    PetscCall(DMRestoreLocalVector(dm, &cl));
  }
  PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)dm)));
  PetscCheck(!anybad, PetscObjectComm((PetscObject)dm), PETSC_ERR_PLIB,
             "semi-Lagrangian backtrace left the ghost region of width %" PetscInt_FMT " (the CFL check should have caught this)",
             sf->ghost);
  PetscFunctionReturn(0);
}

/* One advection of q (global on dm) into qnew: a plain pass, or BFECC: q1 = A(q), q2 = A^-1(q1)
 * (the backward pass, dt -> -dt), then qnew = A(q + (q - q2)/2) clamped to q's local range. */
static PetscErrorCode Advect(SF *sf, Vec vl, PetscReal dt, DM dm, PetscBool faces, Vec q, Vec qnew)
{
  SFLocal V;

  PetscFunctionBegin;
  PetscCall(SFLocalGet(sf->dav, vl, &V));
  if (!sf->adv->bfecc)
    PetscCall(Pass(sf, &V, dt, dm, faces, q, qnew, NULL));
  else {
    Vec q1, q2;
    PetscCall(DMGetGlobalVector(dm, &q1));
    PetscCall(DMGetGlobalVector(dm, &q2));
    PetscCall(Pass(sf, &V, dt, dm, faces, q, q1, NULL));
    PetscCall(Pass(sf, &V, -dt, dm, faces, q1, q2, NULL));
    PetscCall(VecAXPBYPCZ(q1, 1.5, -0.5, 0.0, q, q2)); /* q1 <- q + (q - q2)/2 */
    PetscCall(Pass(sf, &V, dt, dm, faces, q1, qnew, q));
    PetscCall(DMRestoreGlobalVector(dm, &q2));
    PetscCall(DMRestoreGlobalVector(dm, &q1));
  }
  PetscCall(VecRestoreArrayRead(vl, &V.a));
  PetscFunctionReturn(0);
}

PetscErrorCode SFAdvectCells(SF *sf, Vec vl, PetscReal dt, Vec q, Vec qnew)
{
  PetscFunctionBegin;
  PetscCall(Advect(sf, vl, dt, sf->dac, PETSC_FALSE, q, qnew));
  PetscFunctionReturn(0);
}

PetscErrorCode SFAdvectFaces(SF *sf, Vec vl, PetscReal dt, Vec u, Vec unew)
{
  PetscFunctionBegin;
  PetscCall(Advect(sf, vl, dt, sf->dav, PETSC_TRUE, u, unew));
  PetscFunctionReturn(0);
}
