/* Semi-Lagrangian advection on the MAC grid (Stam 1999 sec. 2.2; Bridson ch. 3): every sample
 * point is traced back through the velocity field by an explicit Runge-Kutta step and takes the
 * multilinearly interpolated value found there; BFECC (Kim et al. 2005) with clamping (Selle et
 * al. 2008) as an option. The passes are plain loops over the owned box of flat ghosted arrays,
 * specialized for 2D and 3D: no call through a pointer and no index bookkeeping per sample, one
 * backtrace for all the scalars of a cell, and the velocity evaluated once per backtrace stage
 * with each axis located once per sample grid. */
#include "solvers/stablefluids/sf_impl.h"
#include "framework/text.h"

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
    PetscCall(SimStrAppend(valid, s ? ", " : "", sizeof(valid)));
    PetscCall(SimStrAppend(valid, schemes[s].name, sizeof(valid)));
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -sf_advection '%s'. Valid: %s", name, valid);
}

PetscErrorCode SFFieldGet(DM dm, Vec local, SFField *F)
{
  PetscInt dim, dof, gx[3], gm[3] = {1, 1, 1};

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(dm, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetGhostCorners(dm, &gx[0], &gx[1], &gx[2], &gm[0], &gm[1], &gm[2]));
  if (dim == 2) gx[2] = 0, gm[2] = 1;
  F->sx = dof;
  F->sy = dof * gm[0];
  F->sz = dof * gm[0] * gm[1];
  F->o = -(gx[0] * F->sx + gx[1] * F->sy + gx[2] * F->sz);
  for (PetscInt d = 0; d < 3; d++) F->gs[d] = gx[d], F->ge[d] = gx[d] + gm[d];
  PetscCall(VecGetArrayRead(local, &F->a));
  PetscFunctionReturn(0);
}

PetscErrorCode SFFieldRestore(Vec local, SFField *F)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayRead(local, &F->a));
  PetscFunctionReturn(0);
}

/* The kernels work on batches of SF_BATCH samples of one row, one step of the backtrace at a time
 * for the whole batch (structure of arrays): the steps of one sample depend on each other, those
 * of different samples do not, so a batch keeps the core busy (and the compiler may vectorize)
 * where a sample at a time would wait on each load. Coordinates are in cells. */
#define SF_BATCH 16
/* Every kernel helper is inlined into the pass that calls it (and so into each of its compiled versions). */
#if defined(__GNUC__)
  #define SF_INLINE static inline __attribute__((always_inline))
#else
  #define SF_INLINE static inline
#endif

/* What a pass needs to trace: the grid (n cells per axis; on each axis the face-normal sample grid
 * has offset 0 and n + 1 samples, the cell grid offset 1/2 and n samples: top = the last sample's
 * index as a real), and the tableau times dt/h. */
typedef struct {
  PetscInt n[3], stages;
  PetscReal top[3][2], ca[3][3], cb[3]; /* dt/h a_sr, dt/h b_s */
} Trace;

/* The interpolation stencils of SF_BATCH coordinates X on one axis of a sample grid (offset off,
 * last sample top): X is clamped into the sample range (a backtrace that leaves the box reads the
 * boundary values); i: the lower sample, t: the weight of the upper one. */
SF_INLINE void Locate(const PetscReal *restrict X, PetscReal off, PetscReal top, PetscInt *restrict i, PetscReal *restrict t)
{
  const PetscInt last = (PetscInt)top - 1; /* the last interval's lower sample */

#if defined(__GNUC__) && !defined(PETSC_USE_64BIT_INDICES) && !defined(PETSC_USE_REAL_SINGLE) && !defined(PETSC_USE_REAL___FLOAT128)
  /* The same operations in GCC's vector types, four samples at a time: left to itself, GCC judges
   * the loop below not worth vectorizing and compiles the clamps to branches, one sample at a time
   * (a third of the 2D face pass's time went to the scalar Locate and the scalar stage loops).
   * f < 0 ? 0 : f and f < top ? f : top as masks (the same selects: NaN -> top), the truncation
   * to int and back as the scalar casts do. */
  typedef double v4d __attribute__((vector_size(32)));
  typedef long long v4l __attribute__((vector_size(32)));
  typedef int v4i __attribute__((vector_size(16)));
  const v4d zero = {0, 0, 0, 0}, topv = {top, top, top, top}, offv = {off, off, off, off};
  const v4i lastv = {last, last, last, last};

  for (PetscInt q = 0; q < SF_BATCH; q += 4) {
    v4d f, x;
    v4l m;
    v4i i0, mi;
    __builtin_memcpy(&x, X + q, sizeof(x));
    f = x - offv;
    m = f < zero;
    f = (v4d)((v4l)f & ~m);
    m = f < topv;
    f = (v4d)(((v4l)f & m) | ((v4l)topv & ~m));
    i0 = __builtin_convertvector(f, v4i);
    mi = i0 < lastv;
    i0 = (i0 & mi) | (lastv & ~mi); /* f == top: the last interval, weight 1 */
    f = f - __builtin_convertvector(i0, v4d);
    __builtin_memcpy(i + q, &i0, sizeof(i0));
    __builtin_memcpy(t + q, &f, sizeof(f));
  }
#else
  for (PetscInt q = 0; q < SF_BATCH; q++) {
    PetscReal f = X[q] - off;
    PetscInt i0;
    f = f < 0 ? 0 : f;
    f = f < top ? f : top;
    i0 = (PetscInt)f;
    i0 = i0 < last ? i0 : last; /* f == top: the last interval, weight 1 */
    i[q] = i0;
    t[q] = f - i0;
  }
#endif
}

/* The stencils of a batch on every axis of one sample grid. */
typedef struct {
  PetscInt i[3][SF_BATCH];
  PetscReal t[3][SF_BATCH];
} Stencils;

/* The stencil arrays of one interpolation: axis d from grid g[d] (each axis may come from another
 * Stencils: a velocity component is face-normal along its own axis). */
typedef struct {
  const PetscInt *i[3];
  const PetscReal *t[3];
} Axes;

/* out = component c of F interpolated multilinearly (nested lerps) with the stencils A. */
SF_INLINE void Interp(const SFField *F, PetscInt c, const Axes *A, PetscReal *restrict out, const PetscInt dim)
{
  const PetscScalar *restrict a = F->a;
  const PetscInt sx = F->sx, sy = F->sy, sz = F->sz, o = F->o + c;
  const PetscInt *restrict i0 = A->i[0], *restrict i1 = A->i[1], *restrict i2 = A->i[2];
  const PetscReal *restrict w0 = A->t[0], *restrict w1 = A->t[1], *restrict w2 = A->t[2];

  /* the corners' base pointers once, so that each lane's loads share one index (GCC otherwise
   * forms, and moves out of a vector register, an index per corner) */
  const PetscScalar *restrict a0 = a + o, *restrict a1 = a + o + sx, *restrict a2 = a + o + sy, *restrict a3 = a + o + sx + sy;

  if (dim == 2) {
    for (PetscInt q = 0; q < SF_BATCH; q++) {
      const PetscInt b = i0[q] * sx + i1[q] * sy;
      const PetscReal t0 = w0[q], v0 = a0[b] + t0 * (a1[b] - a0[b]), v1 = a2[b] + t0 * (a3[b] - a2[b]);
      out[q] = v0 + w1[q] * (v1 - v0);
    }
  } else {
    const PetscScalar *restrict a4 = a0 + sz, *restrict a5 = a1 + sz, *restrict a6 = a2 + sz, *restrict a7 = a3 + sz;
    for (PetscInt q = 0; q < SF_BATCH; q++) {
      const PetscInt b = i0[q] * sx + i1[q] * sy + i2[q] * sz;
      const PetscReal t0 = w0[q], t1 = w1[q];
      const PetscReal v00 = a0[b] + t0 * (a1[b] - a0[b]), v10 = a2[b] + t0 * (a3[b] - a2[b]);
      const PetscReal v01 = a4[b] + t0 * (a5[b] - a4[b]);
      const PetscReal v11 = a6[b] + t0 * (a7[b] - a6[b]);
      const PetscReal v0 = v00 + t1 * (v10 - v00), v1 = v01 + t1 * (v11 - v01);
      out[q] = v0 + w2[q] * (v1 - v0);
    }
  }
}

static inline Axes AxesOf(const Stencils *S)
{
  Axes A = {{S->i[0], S->i[1], S->i[2]}, {S->t[0], S->t[1], S->t[2]}};
  return A;
}

/* v = clamp(v, smallest, largest of the 2^dim samples of component c of C that Interp reads). */
SF_INLINE void Clamp(const SFField *C, PetscInt c, const Axes *S, PetscReal *restrict v, const PetscInt dim)
{
  const PetscInt sx = C->sx, sy = C->sy, sz = C->sz;

  for (PetscInt q = 0; q < SF_BATCH; q++) {
    const PetscInt b = C->o + c + S->i[0][q] * sx + S->i[1][q] * sy + (dim == 3 ? S->i[2][q] * sz : 0);
    PetscReal l = PETSC_MAX_REAL, h = PETSC_MIN_REAL;
    for (PetscInt dk = 0; dk < (dim == 3 ? 2 : 1); dk++)
      for (PetscInt dj = 0; dj < 2; dj++)
        for (PetscInt di = 0; di < 2; di++) {
          PetscReal w = C->a[b + di * sx + dj * sy + dk * sz];
          l = PetscMin(l, w), h = PetscMax(h, w);
        }
    v[q] = PetscMax(l, PetscMin(h, v[q]));
  }
}

/* u(Y) from the ghosted faces V: each axis located once on each of its two grids, then each
 * component interpolated on its own (face-normal along its axis, across the others). */
SF_INLINE void Velocity(const Trace *T, const SFField *V, PetscReal Y[3][SF_BATCH], PetscReal u[3][SF_BATCH], const PetscInt dim)
{
  Stencils normal, across;

  for (PetscInt d = 0; d < dim; d++) {
    Locate(Y[d], 0.0, T->top[d][0], normal.i[d], normal.t[d]);
    Locate(Y[d], 0.5, T->top[d][1], across.i[d], across.t[d]);
  }
  for (PetscInt c = 0; c < dim; c++) {
    Axes A;
    for (PetscInt d = 0; d < 3; d++) {
      const Stencils *from = d == c ? &normal : &across;
      A.i[d] = from->i[d], A.t[d] = from->t[d];
    }
    Interp(V, c, &A, u[c], dim);
  }
}

/* X_b = X - (dt/h) sum_s b_s k_s with k_s = u(X - (dt/h) sum_r a_sr k_r) for a batch; k_0 is given
 * (the velocity at the sample point, which lies on the grid). *disp: the largest
 * coordinate distance of a stage point or of X_b from X [cells]. */
SF_INLINE void Backtrace(const Trace *T, const SFField *V, PetscReal X[3][SF_BATCH], PetscReal k[3][3][SF_BATCH],
                             PetscReal Xb[3][SF_BATCH], PetscReal *disp, const PetscInt dim, const PetscInt stages)
{
  PetscReal Y[3][SF_BATCH], m = *disp, ml[SF_BATCH];

  /* the largest distance lane by lane (a reduction into one m kept these loops scalar), then over
   * the lanes: the same maximum (PetscMax's select, so a NaN distance is skipped as before) */
  for (PetscInt q = 0; q < SF_BATCH; q++) ml[q] = 0;
  for (PetscInt s = 1; s < stages; s++) {
    for (PetscInt d = 0; d < dim; d++)
      for (PetscInt q = 0; q < SF_BATCH; q++) {
        PetscReal y = X[d][q];
        for (PetscInt r = 0; r < s; r++) y -= T->ca[s][r] * k[r][d][q];
        Y[d][q] = y;
        ml[q] = PetscMax(ml[q], PetscAbsReal(y - X[d][q]));
      }
    Velocity(T, V, Y, k[s], dim);
  }
  for (PetscInt d = 0; d < dim; d++)
    for (PetscInt q = 0; q < SF_BATCH; q++) {
      PetscReal y = X[d][q];
      for (PetscInt s = 0; s < stages; s++) y -= T->cb[s] * k[s][d][q];
      Xb[d][q] = y;
      ml[q] = PetscMax(ml[q], PetscAbsReal(y - X[d][q]));
    }
  for (PetscInt q = 0; q < SF_BATCH; q++) m = PetscMax(m, ml[q]);
  *disp = m;
}

static void TraceSetUp(const SF *sf, PetscReal dt, Trace *T)
{
  const SFAdvection *a = sf->adv;
  const PetscReal lambda = dt / sf->h;

  for (PetscInt d = 0; d < 3; d++) {
    T->n[d] = sf->mac->n[d];
    T->top[d][0] = sf->mac->n[d];
    T->top[d][1] = sf->mac->n[d] - 1;
  }
  T->stages = a->stages;
  for (PetscInt s = 0; s < 3; s++) {
    T->cb[s] = lambda * a->b[s];
    for (PetscInt r = 0; r < 3; r++) T->ca[s][r] = lambda * a->a[s][r];
  }
}

void SFBacktrace(const SF *sf, const SFField *V, PetscReal dt, const PetscReal x[3], PetscReal xb[3])
{
  Trace T;
  PetscReal disp = 0, X[3][SF_BATCH], Xb[3][SF_BATCH], k[3][3][SF_BATCH];
  const PetscInt dim = sf->mac->dim;

  TraceSetUp(sf, dt, &T);
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt q = 0; q < SF_BATCH; q++) X[d][q] = x[d] / sf->h;
  if (dim == 2) {
    Velocity(&T, V, X, k[0], 2);
    if (T.stages == 2) Backtrace(&T, V, X, k, Xb, &disp, 2, 2);
    else Backtrace(&T, V, X, k, Xb, &disp, 2, 3);
  } else {
    Velocity(&T, V, X, k[0], 3);
    if (T.stages == 2) Backtrace(&T, V, X, k, Xb, &disp, 3, 2);
    else Backtrace(&T, V, X, k, Xb, &disp, 3, 3);
  }
  for (PetscInt d = 0; d < 3; d++) xb[d] = d < dim ? Xb[d][0] * sf->h : x[d];
}

/* One row of a pass: the samples i = i0 + q (q < m <= SF_BATCH; the other lanes repeat the last)
 * at fixed (j, k). Faces of component c (c >= 0) or cells (c = -1). */
typedef struct {
  PetscInt i0, m, j, k;
} Row;

/* The batch's points X and k[0] = u at them: the sample points lie on the grid, where u is
 * exact from the faces around them. For a face of component c: u_c itself, and each other
 * component the average of its four faces around the point in the (c, e) plane (two on a box face,
 * where the clamped interpolation reads the boundary layer twice). For a cell: each component the
 * average of its two faces. Component by component over the batch, with the row's offsets hoisted
 * (only for c = 0, along the row, do the box faces i = 0 and n[0] change them lane by lane). */
SF_INLINE void Start(const Trace *T, const SFField *V, const Row *R, PetscInt c, PetscReal X[3][SF_BATCH],
                         PetscReal k0[3][SF_BATCH], const PetscInt dim)
{
  const PetscInt *n = T->n, st[3] = {V->sx, V->sy, V->sz}, jk[3] = {0, R->j, R->k}, b0 = SF_IDX(V, R->i0, R->j, R->k);
  const PetscScalar *restrict a = V->a;
  PetscInt ii[SF_BATCH];

  for (PetscInt q = 0; q < SF_BATCH; q++) ii[q] = R->i0 + PetscMin(q, R->m - 1);
  for (PetscInt q = 0; q < SF_BATCH; q++) X[0][q] = ii[q] + (c == 0 ? 0.0 : 0.5);
  for (PetscInt d = 1; d < dim; d++)
    for (PetscInt q = 0; q < SF_BATCH; q++) X[d][q] = jk[d] + (d == c ? 0.0 : 0.5);
  for (PetscInt e = 0; e < dim; e++) {
    const PetscInt se = st[e] + e;
    if (c < 0)
      for (PetscInt q = 0; q < SF_BATCH; q++) {
        const PetscInt b = b0 + (ii[q] - R->i0) * st[0];
        k0[e][q] = 0.5 * (a[b + e] + a[b + se]);
      }
    else if (e == c)
      for (PetscInt q = 0; q < SF_BATCH; q++) k0[e][q] = a[b0 + (ii[q] - R->i0) * st[0] + c];
    else if (c > 0) {
      const PetscInt dlo = jk[c] > 0 ? st[c] : 0, dhi = jk[c] == n[c] ? st[c] : 0;
      for (PetscInt q = 0; q < SF_BATCH; q++) {
        const PetscInt b = b0 + (ii[q] - R->i0) * st[0], lo = b - dlo, hi = b - dhi;
        k0[e][q] = 0.25 * (a[lo + e] + a[hi + e] + a[lo + se] + a[hi + se]);
      }
    } else
      for (PetscInt q = 0; q < SF_BATCH; q++) {
        const PetscInt b = b0 + (ii[q] - R->i0) * st[0], lo = b - (ii[q] > 0 ? st[0] : 0), hi = b - (ii[q] == n[0] ? st[0] : 0);
        k0[e][q] = 0.25 * (a[lo + e] + a[hi + e] + a[lo + se] + a[hi + se]);
      }
  }
}

/* One row of a pass: face component c (or cells, c = -1, every one of the ns scalars): out at the
 * row's samples (stride ns) = Q at the backtraced points, clamped with C (BFECC's last pass). */
SF_INLINE void AdvectRow(const Trace *T, const SFField *V, const SFField *Q, const SFField *C, const Row *R, PetscInt c, PetscInt ns,
                             PetscScalar *restrict out, PetscReal *disp, const PetscInt dim, const PetscInt stages)
{
  PetscReal X[3][SF_BATCH], k[3][3][SF_BATCH], Xb[3][SF_BATCH], v[SF_BATCH];
  Stencils S;

  Start(T, V, R, c, X, k[0], dim);
  Backtrace(T, V, X, k, Xb, disp, dim, stages);
  for (PetscInt d = 0; d < dim; d++) {
    const PetscInt g = d == c ? 0 : 1;
    Locate(Xb[d], g ? 0.5 : 0.0, T->top[d][g], S.i[d], S.t[d]);
  }
  for (PetscInt e = (c < 0 ? 0 : c); e < (c < 0 ? ns : c + 1); e++) {
    const Axes A = AxesOf(&S);
    Interp(Q, e, &A, v, dim);
    if (C) Clamp(C, e, &A, v, dim);
    for (PetscInt q = 0; q < R->m; q++) out[q * ns + e] = v[q];
  }
}

/* One pass over the owned faces (component by component, row by row): out = Q(backtrace(x)),
 * prescribed boundary-normal faces copied from Q, padding 0. */
SF_INLINE void FacePass(const SF *sf, const Trace *T, const SFField *V, const SFField *Q, const SFField *C, const PetscInt lo[3], const PetscInt hi[3], PetscScalar *out, PetscReal *disp, const PetscInt dim, const PetscInt stages)
{
  const PetscInt *n = T->n, xm = hi[0] - lo[0], ym = hi[1] - lo[1];

  for (PetscInt c = 0; c < dim; c++) {
    const PetscBool fixed[2] = {(PetscBool)(sf->prob->face[2 * c] != SIM_GRID_OPEN), (PetscBool)(sf->prob->face[2 * c + 1] != SIM_GRID_OPEN)};
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++) {
        const PetscInt idx[3] = {0, j, k};
        PetscScalar *row = out + dim * xm * ((j - lo[1]) + ym * (k - lo[2]));
        PetscBool pad = PETSC_FALSE, copy;
        PetscInt iend = hi[0];
        for (PetscInt d = 1; d < dim; d++) pad = (PetscBool)(pad || (d != c && idx[d] == n[d]));
        copy = (PetscBool)(c > 0 && ((idx[c] == 0 && fixed[0]) || (idx[c] == n[c] && fixed[1])));
        if (c > 0 && iend > n[0]) iend = n[0]; /* the face at i = n[0] of a component c > 0 is padding */
        if (!pad && !copy)
          for (PetscInt i0 = lo[0]; i0 < iend; i0 += SF_BATCH) {
            const Row R = {i0, PetscMin(SF_BATCH, iend - i0), j, k};
            AdvectRow(T, V, Q, C, &R, c, dim, row + dim * (i0 - lo[0]), disp, dim, stages);
          }
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          PetscScalar *o = row + dim * (i - lo[0]) + c;
          if (pad || (c > 0 && i == n[0])) *o = 0;
          else if (copy || (c == 0 && ((i == 0 && fixed[0]) || (i == n[0] && fixed[1])))) *o = Q->a[SF_IDX(Q, i, j, k) + c];
        }
      }
  }
}

/* One pass over the owned cells: one backtrace per cell for all ns scalars of Q. */
SF_INLINE void CellPass(const Trace *T, const SFField *V, const SFField *Q, const SFField *C, PetscInt ns, const PetscInt lo[3], const PetscInt hi[3], PetscScalar *out, PetscReal *disp, const PetscInt dim, const PetscInt stages)
{
  const PetscInt xm = hi[0] - lo[0], ym = hi[1] - lo[1];

  for (PetscInt k = lo[2]; k < hi[2]; k++)
    for (PetscInt j = lo[1]; j < hi[1]; j++)
      for (PetscInt i0 = lo[0]; i0 < hi[0]; i0 += SF_BATCH) {
        const Row R = {i0, PetscMin(SF_BATCH, hi[0] - i0), j, k};
        AdvectRow(T, V, Q, C, &R, -1, ns, out + ns * ((i0 - lo[0]) + xm * ((j - lo[1]) + ym * (k - lo[2]))), disp, dim, stages);
      }
}

/* The passes for 2D and 3D (SF_KERNEL, mac.h: also compiled for AVX2, where the batch loops run four
 * samples per instruction). */

typedef void (*FacePassFn)(const SF *, const Trace *, const SFField *, const SFField *, const SFField *, const PetscInt[3],
                           const PetscInt[3], PetscScalar *, PetscReal *);
typedef void (*CellPassFn)(const Trace *, const SFField *, const SFField *, const SFField *, PetscInt, const PetscInt[3],
                           const PetscInt[3], PetscScalar *, PetscReal *);
#define SF_PASSES(D, S) \
  SF_KERNEL static void FacePass##D##S(const SF *sf, const Trace *T, const SFField *V, const SFField *Q, const SFField *C, const PetscInt lo[3], \
                                       const PetscInt hi[3], PetscScalar *out, PetscReal *disp) \
  { \
    FacePass(sf, T, V, Q, C, lo, hi, out, disp, D, S); \
  } \
  SF_KERNEL static void CellPass##D##S(const Trace *T, const SFField *V, const SFField *Q, const SFField *C, PetscInt ns, const PetscInt lo[3], \
                                       const PetscInt hi[3], PetscScalar *out, PetscReal *disp) \
  { \
    CellPass(T, V, Q, C, ns, lo, hi, out, disp, D, S); \
  }
SF_PASSES(2, 2)
SF_PASSES(2, 3)
SF_PASSES(3, 2)
SF_PASSES(3, 3)
/* [dim - 2][stages - 2] */
static const FacePassFn face_passes[2][2] = {{FacePass22, FacePass23}, {FacePass32, FacePass33}};
static const CellPassFn cell_passes[2][2] = {{CellPass22, CellPass23}, {CellPass32, CellPass33}};

/* One semi-Lagrangian pass of the global vector q of dm (faces or cells) into qnew, with the
 * advecting velocity V; ql: q's ghosted local vector (NULL: exchanged here); qclamp: BFECC's clamp
 * field (global, or NULL). A backtrace may move at most ghost - 1/2 cells for every sample it
 * interpolates to lie in the ghosted patch (the CFL check keeps it within ghost - 1). */
static PetscErrorCode Pass(SF *sf, const SFField *V, PetscReal dt, DM dm, PetscBool faces, Vec q, Vec ql, Vec qnew, Vec qclamp)
{
  Vec qloc = ql, qlv = NULL, cl = NULL, clv = NULL;
  SFField Q, C;
  PetscScalar *out;
  PetscInt lo[3], hi[3], dim = sf->mac->dim, dof;
  PetscReal disp = 0, maxdisp;
  Trace T;

  PetscFunctionBegin;
  if (!qloc) {
    PetscCall(DMGetLocalVector(dm, &qlv));
    PetscCall(SFExchange(sf, dm, q, qlv, &qloc));
  }
  PetscCall(SFFieldGet(dm, qloc, &Q));
  if (qclamp) {
    PetscCall(DMGetLocalVector(dm, &clv));
    PetscCall(SFExchange(sf, dm, qclamp, clv, &cl));
    PetscCall(SFFieldGet(dm, cl, &C));
    SFTraffic(sf, SFEntries(sf, dm, PETSC_TRUE)); /* the pass reads the clamp field */
  }
  /* the pass reads the velocity (unless it advects itself: the same array) and q, writes qnew */
  SFTraffic(sf, (Q.a == V->a ? 0 : sf->ent_ul) + SFEntries(sf, dm, PETSC_TRUE) + SFEntries(sf, dm, PETSC_FALSE));
  PetscCall(DMDAGetInfo(dm, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(dm, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2]));
  for (PetscInt d = 0; d < 3; d++) hi[d] += lo[d];
  TraceSetUp(sf, dt, &T);
  PetscCall(VecGetArrayWrite(qnew, &out));
  if (faces) face_passes[dim - 2][T.stages - 2](sf, &T, V, &Q, qclamp ? &C : NULL, lo, hi, out, &disp);
  else cell_passes[dim - 2][T.stages - 2](&T, V, &Q, qclamp ? &C : NULL, dof, lo, hi, out, &disp);
  PetscCall(VecRestoreArrayWrite(qnew, &out));
  PetscCall(SFFieldRestore(qloc, &Q));
  if (qlv) PetscCall(DMRestoreLocalVector(dm, &qlv));
  if (qclamp) {
    PetscCall(SFFieldRestore(cl, &C));
    PetscCall(DMRestoreLocalVector(dm, &clv));
  }
  PetscCallMPI(MPI_Allreduce(&disp, &maxdisp, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)dm)));
  PetscCheck(maxdisp < sf->ghost - 0.5, PetscObjectComm((PetscObject)dm), PETSC_ERR_PLIB,
             "semi-Lagrangian backtrace moved %g cells, beyond the ghost region of width %" PetscInt_FMT
             " (the CFL check should have caught this)",
             (double)maxdisp, sf->ghost);
  PetscFunctionReturn(0);
}

/* One advection of q (global on dm) into qnew: a plain pass, or BFECC: q1 = A(q), q2 = A^-1(q1)
 * (the backward pass, dt -> -dt), then qnew = A(q + (q - q2)/2) clamped to q's local range. */
static PetscErrorCode Advect(SF *sf, Vec vl, PetscReal dt, DM dm, PetscBool faces, Vec q, Vec ql, Vec qnew)
{
  SFField V;

  PetscFunctionBegin;
  PetscCall(SFFieldGet(sf->dav, vl, &V));
  if (!sf->adv->bfecc) PetscCall(Pass(sf, &V, dt, dm, faces, q, ql, qnew, NULL));
  else {
    Vec q1, q2;
    PetscCall(DMGetGlobalVector(dm, &q1));
    PetscCall(DMGetGlobalVector(dm, &q2));
    PetscCall(Pass(sf, &V, dt, dm, faces, q, ql, q1, NULL));
    PetscCall(Pass(sf, &V, -dt, dm, faces, q1, NULL, q2, NULL));
    PetscCall(VecAXPBYPCZ(q1, 1.5, -0.5, 0.0, q, q2)); /* q1 <- q + (q - q2)/2 */
    SFTraffic(sf, 3 * SFEntries(sf, dm, PETSC_FALSE));
    PetscCall(Pass(sf, &V, dt, dm, faces, q1, NULL, qnew, q));
    PetscCall(DMRestoreGlobalVector(dm, &q2));
    PetscCall(DMRestoreGlobalVector(dm, &q1));
  }
  PetscCall(SFFieldRestore(vl, &V));
  PetscFunctionReturn(0);
}

PetscErrorCode SFAdvectCells(SF *sf, Vec vl, PetscReal dt, Vec q, Vec ql, Vec qnew)
{
  PetscFunctionBegin;
  PetscCall(Advect(sf, vl, dt, sf->dac, PETSC_FALSE, q, ql, qnew));
  PetscFunctionReturn(0);
}

PetscErrorCode SFAdvectFaces(SF *sf, Vec vl, PetscReal dt, Vec u, Vec ul, Vec unew)
{
  PetscFunctionBegin;
  PetscCall(Advect(sf, vl, dt, sf->dav, PETSC_TRUE, u, ul, unew));
  PetscFunctionReturn(0);
}
