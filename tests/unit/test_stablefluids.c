/* The stablefluids solver: semi-Lagrangian advection (constant fields exact, backtrace and
 * observed orders on a smooth field), Taylor-Green decay against the analytic solution and the
 * lid-driven cavity against Ghia et al. under refinement, the divergence after a full step,
 * 2 ranks = 1 rank on a smoke plume, conformance and bad input. Run on one rank and under
 * mpirun -np 2 (tests/cli/mpi.cmake; the refinement studies on one rank only). */
#include "testing.h"
#include "solvers/stablefluids/sf_impl.h"

/* A grid solver on a registered grid scene (options replace the database) or on a problem the
 * test fills in (scene NULL, problem given). */
typedef struct {
  SimRegistry reg;
  SimScene scene;
  SimProblem problem;
  SimSolver solver;
  SF *sf;
} GridSim;

static PetscErrorCode GridSimCreate(MPI_Comm comm, const char *scene, const SimGridProblem *prob, const char *opts, GridSim *g)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  PetscCall(TestSetOptions(opts));
  PetscCall(TestRegistryCreate(&g->reg));
  if (scene) {
    PetscCall(SimSceneCreate(g->reg, scene, &g->scene));
    PetscCall(SimSceneBuild(g->scene, comm, &g->problem));
  } else PetscCall(SimGridProblemCreateFromDescription(g->reg, comm, prob, "test", &g->problem));
  PetscCall(SimSolverCreate(g->reg, "stablefluids", g->problem, &g->solver));
  PetscCall(SimSolverSetFromOptions(g->solver));
  PetscCall(SimSolverSetUp(g->solver));
  g->sf = (SF *)g->solver->data;
  PetscFunctionReturn(0);
}

static PetscErrorCode GridSimDestroy(GridSim *g)
{
  PetscFunctionBeginUser;
  PetscCall(SimSolverDestroy(&g->solver));
  PetscCall(SimProblemDestroy(&g->problem));
  PetscCall(SimSceneDestroy(&g->scene));
  PetscCall(SimRegistryDestroy(&g->reg));
  PetscCall(TestSetOptions(NULL));
  PetscFunctionReturn(0);
}

/* The whole of a DMDA global vector in natural order, on every rank. */
static PetscErrorCode GatherNatural(Vec v, Vec *all)
{
  DM dm;
  Vec nat;
  VecScatter sc;

  PetscFunctionBeginUser;
  PetscCall(VecGetDM(v, &dm));
  PetscCall(DMDACreateNaturalVector(dm, &nat));
  PetscCall(DMDAGlobalToNaturalBegin(dm, v, INSERT_VALUES, nat));
  PetscCall(DMDAGlobalToNaturalEnd(dm, v, INSERT_VALUES, nat));
  PetscCall(VecScatterCreateToAll(nat, &sc, all));
  PetscCall(VecScatterBegin(sc, nat, *all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, *all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(0);
}

/* Fills the owned entries of a global vector of dm (dof components) with f(x) at the sample
 * positions: faces (component c) or cells. */
typedef PetscReal (*PointFn)(const PetscReal x[3], PetscInt c, void *ctx);
static PetscErrorCode Fill(SF *sf, DM dm, PetscBool faces, Vec v, PointFn f, void *ctx)
{
  PetscInt xs, ys, zs, xm, ym, zm, dof;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(dm, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(v, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < dof; c++) {
          PetscReal x[3];
          if (faces)
            SFFacePosition(sf, c, i, j, k, x);
          else
            SFCellPosition(sf, i, j, k, x);
          a[l * dof + c] = f(x, c, ctx);
        }
  PetscCall(VecRestoreArray(v, &a));
  PetscFunctionReturn(0);
}

static PetscErrorCode OneDensity(void *ctx, const PetscReal x[3], PetscReal t, PetscReal *v)
{
  *v = 1;
  return 0;
}

/* A problem with smoke fields (so that density vectors exist), walls everywhere. */
static void AdvectionProblem(PetscInt dim, PetscInt n, SimGridProblem *p)
{
  CHECK_PETSC(SimGridProblemSetDefaults(p));
  p->dim = dim;
  for (PetscInt d = 0; d < 3; d++) p->n[d] = d < dim ? n : 1, p->extent[d] = d < dim ? 1.0 : 1.0 / n;
  CHECK_PETSC(SimGridProblemAddScalar(p, "density", OneDensity, NULL));
}

static PetscReal RandomishVelocity(const PetscReal x[3], PetscInt c, void *ctx)
{
  /* a rough, non-divergence-free field up to 1.6 cells per step at dt = h: backtraces cross ranks */
  return 1.6 * PetscSinReal(37.0 * x[0] + 11.0 * c + 5.0 * x[1] * x[1] + 3.0 * x[2]);
}
static PetscReal Constant(const PetscReal x[3], PetscInt c, void *ctx)
{
  return *(PetscReal *)ctx + c;
}

/* Semi-Lagrangian advection of a constant field (cells and faces) returns it to round-off, for
 * every scheme, on one rank and across the rank boundary under mpirun. */
static void CheckConstantExact(PetscInt dim, PetscInt n, const char *scheme)
{
  GridSim g;
  SimGridProblem p;
  PetscReal c0 = 3.7, err, errc, cmax;
  char opts[64];
  Vec vl, q, qn, u, un, ref;

  AdvectionProblem(dim, n, &p);
  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-sf_advection %s", scheme));
  CHECK_PETSC(GridSimCreate(PETSC_COMM_WORLD, NULL, &p, opts, &g));
  CHECK_PETSC(DMGetLocalVector(g.sf->dav, &vl));
  CHECK_PETSC(DMGetGlobalVector(g.sf->dav, &u));
  CHECK_PETSC(Fill(g.sf, g.sf->dav, PETSC_TRUE, u, RandomishVelocity, NULL));
  CHECK_PETSC(SimMACZeroPadding(g.sf->mac, u));
  CHECK_PETSC(DMGlobalToLocal(g.sf->dav, u, INSERT_VALUES, vl));
  CHECK_PETSC(DMGetGlobalVector(g.sf->dac, &q));
  CHECK_PETSC(DMGetGlobalVector(g.sf->dac, &qn));
  CHECK_PETSC(VecSet(q, c0));
  CHECK_PETSC(SFAdvectCells(g.sf, vl, g.sf->h, q, NULL, qn));
  CHECK_PETSC(VecShift(qn, -c0));
  CHECK_PETSC(VecNorm(qn, NORM_INFINITY, &errc));
  ck_assert_msg(errc <= 1e-14 * c0, "%s: a constant cell field changed by %g", scheme, (double)errc);

  /* faces: the constant (c0 + c) per component, padding 0 */
  CHECK_PETSC(DMGetGlobalVector(g.sf->dav, &un));
  CHECK_PETSC(DMGetGlobalVector(g.sf->dav, &ref));
  CHECK_PETSC(Fill(g.sf, g.sf->dav, PETSC_TRUE, ref, Constant, &c0));
  CHECK_PETSC(SimMACZeroPadding(g.sf->mac, ref));
  CHECK_PETSC(SFAdvectFaces(g.sf, vl, g.sf->h, ref, NULL, un));
  CHECK_PETSC(VecAXPY(un, -1.0, ref));
  CHECK_PETSC(VecNorm(un, NORM_INFINITY, &err));
  CHECK_PETSC(VecNorm(ref, NORM_INFINITY, &cmax));
  ck_assert_msg(err <= 1e-14 * cmax, "%s: a constant face field changed by %g", scheme, (double)err);
  CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "constant advection %" PetscInt_FMT "D %s: max change cells %.1e, faces %.1e\n", dim,
                          scheme, (double)errc, (double)err));
  CHECK_PETSC(DMRestoreGlobalVector(g.sf->dav, &ref));
  CHECK_PETSC(DMRestoreGlobalVector(g.sf->dav, &un));
  CHECK_PETSC(DMRestoreGlobalVector(g.sf->dac, &qn));
  CHECK_PETSC(DMRestoreGlobalVector(g.sf->dac, &q));
  CHECK_PETSC(DMRestoreGlobalVector(g.sf->dav, &u));
  CHECK_PETSC(DMRestoreLocalVector(g.sf->dav, &vl));
  CHECK_PETSC(GridSimDestroy(&g));
}

START_TEST(constant_field_exact)
{
  const char *schemes[3] = {"rk2", "rk3", "bfecc"};
  for (PetscInt s = 0; s < 3; s++) {
    CheckConstantExact(2, 32, schemes[s]);
    CheckConstantExact(3, 16, schemes[s]);
  }
}
END_TEST

/* The reference: advection, buoyancy and vorticity confinement as the solver computed them before
 * its kernels were rewritten as batched loops (one sample at a time, generic in the dimension,
 * everything in physical units); the kernels must give the same numbers to round-off. */
static PetscReal RefSample(const SFField *L, PetscInt c, PetscInt dim, const PetscReal off[3], const PetscInt n[3], PetscReal ih,
                           const PetscReal x[3])
{
  PetscInt i0[3] = {0, 0, 0};
  PetscReal t[3] = {0, 0, 0}, v = 0;

  for (PetscInt d = 0; d < dim; d++) {
    PetscReal f = x[d] * ih - off[d];
    f = f < 0 ? 0 : (f > n[d] - 1 ? n[d] - 1 : f);
    i0[d] = (PetscInt)f;
    if (i0[d] > n[d] - 2) i0[d] = n[d] - 2;
    t[d] = f - i0[d];
    ck_assert_msg(i0[d] >= L->gs[d] && i0[d] + 1 < L->ge[d], "reference sample outside the ghosted patch");
  }
  for (PetscInt dk = 0; dk < (dim == 3 ? 2 : 1); dk++)
    for (PetscInt dj = 0; dj < 2; dj++)
      for (PetscInt di = 0; di < 2; di++)
        v += (di ? t[0] : 1 - t[0]) * (dj ? t[1] : 1 - t[1]) * (dim == 3 ? (dk ? t[2] : 1 - t[2]) : 1) *
             L->a[SF_IDX(L, i0[0] + di, i0[1] + dj, i0[2] + dk) + c];
  return v;
}

static void RefRange(const SFField *L, PetscInt c, PetscInt dim, const PetscReal off[3], const PetscInt n[3], PetscReal ih,
                     const PetscReal x[3], PetscReal *lo, PetscReal *hi)
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
        PetscReal v = L->a[SF_IDX(L, i0[0] + di, i0[1] + dj, i0[2] + dk) + c];
        *lo = PetscMin(*lo, v), *hi = PetscMax(*hi, v);
      }
}

static void RefOffsets(SF *sf, PetscInt c, PetscReal off[3], PetscInt n[3])
{
  for (PetscInt d = 0; d < 3; d++) {
    off[d] = c < 0 ? 0.5 : (c == d ? 0.0 : 0.5);
    n[d] = sf->mac->n[d] + (c == d ? 1 : 0);
  }
}

static void RefBacktrace(SF *sf, const SFField *V, PetscReal dt, const PetscReal x[3], PetscReal xb[3])
{
  const SFAdvection *a = sf->adv;
  PetscInt dim = sf->mac->dim;
  PetscReal k[3][3] = {{0}}, y[3];

  for (PetscInt s = 0; s < a->stages; s++) {
    for (PetscInt d = 0; d < 3; d++) {
      y[d] = x[d];
      for (PetscInt r = 0; r < s; r++) y[d] -= dt * a->a[s][r] * k[r][d];
    }
    for (PetscInt c = 0; c < dim; c++) {
      PetscReal off[3];
      PetscInt n[3];
      RefOffsets(sf, c, off, n);
      k[s][c] = RefSample(V, c, dim, off, n, 1.0 / sf->h, y);
    }
  }
  for (PetscInt d = 0; d < 3; d++) {
    xb[d] = x[d];
    for (PetscInt s = 0; s < a->stages; s++) xb[d] -= dt * a->b[s] * k[s][d];
  }
}

/* One pass of the reference over the owned points of dm: faces (prescribed ones copied, padding 0)
 * or cells (every component). */
static PetscErrorCode RefPass(SF *sf, const SFField *V, PetscReal dt, DM dm, PetscBool faces, Vec q, Vec qnew, Vec qclamp)
{
  Vec ql, cl = NULL;
  SFField Q, C;
  PetscScalar *out;
  PetscInt xs, ys, zs, xm, ym, zm, dim = sf->mac->dim, dof;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(dm, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMGetLocalVector(dm, &ql));
  PetscCall(DMGlobalToLocal(dm, q, INSERT_VALUES, ql));
  PetscCall(SFFieldGet(dm, ql, &Q));
  if (qclamp) {
    PetscCall(DMGetLocalVector(dm, &cl));
    PetscCall(DMGlobalToLocal(dm, qclamp, INSERT_VALUES, cl));
    PetscCall(SFFieldGet(dm, cl, &C));
  }
  PetscCall(DMDAGetCorners(dm, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(qnew, &out));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < dof; c++) {
          const PetscInt idx[3] = {i, j, k};
          PetscReal x[3], xb[3], off[3], v;
          PetscInt n[3];
          if (faces && SFFacePadding(sf, c, idx)) {
            out[l * dof + c] = 0;
            continue;
          }
          if (faces && SFFacePrescribed(sf, c, idx)) {
            out[l * dof + c] = Q.a[SF_IDX(&Q, i, j, k) + c];
            continue;
          }
          if (faces) SFFacePosition(sf, c, i, j, k, x);
          else SFCellPosition(sf, i, j, k, x);
          RefOffsets(sf, faces ? c : -1, off, n);
          RefBacktrace(sf, V, dt, x, xb);
          v = RefSample(&Q, c, dim, off, n, 1.0 / sf->h, xb);
          if (qclamp) {
            PetscReal lo, hi;
            RefRange(&C, c, dim, off, n, 1.0 / sf->h, xb, &lo, &hi);
            v = PetscMax(lo, PetscMin(hi, v));
          }
          out[l * dof + c] = v;
        }
  PetscCall(VecRestoreArray(qnew, &out));
  PetscCall(SFFieldRestore(ql, &Q));
  PetscCall(DMRestoreLocalVector(dm, &ql));
  if (qclamp) {
    PetscCall(SFFieldRestore(cl, &C));
    PetscCall(DMRestoreLocalVector(dm, &cl));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode RefAdvect(SF *sf, Vec vl, PetscReal dt, DM dm, PetscBool faces, Vec q, Vec qnew)
{
  SFField V;

  PetscFunctionBeginUser;
  PetscCall(SFFieldGet(sf->dav, vl, &V));
  if (!sf->adv->bfecc) PetscCall(RefPass(sf, &V, dt, dm, faces, q, qnew, NULL));
  else {
    Vec q1, q2;
    PetscCall(DMGetGlobalVector(dm, &q1));
    PetscCall(DMGetGlobalVector(dm, &q2));
    PetscCall(RefPass(sf, &V, dt, dm, faces, q, q1, NULL));
    PetscCall(RefPass(sf, &V, -dt, dm, faces, q1, q2, NULL));
    PetscCall(VecAXPBYPCZ(q1, 1.5, -0.5, 0.0, q, q2));
    PetscCall(RefPass(sf, &V, dt, dm, faces, q1, qnew, q));
    PetscCall(DMRestoreGlobalVector(dm, &q2));
    PetscCall(DMRestoreGlobalVector(dm, &q1));
  }
  PetscCall(SFFieldRestore(vl, &V));
  PetscFunctionReturn(0);
}

/* The reference forces: body force and buoyancy on the free faces, then vorticity confinement from
 * the updated u: omega and f on the owned cells, exchanged through a width-1 cell DMDA. */
static PetscErrorCode RefForces(SF *sf, PetscReal dt, Vec u)
{
  const PetscInt *n = sf->mac->n, dim = sf->mac->dim;
  const PetscReal h = sf->h;
  PetscInt xs, ys, zs, xm, ym, zm;
  PetscReal up[3] = {0, 0, 0}, g = 0;
  DM d3;
  Vec sl, ul, w, wl, f, fl;
  SFField S, U, W, F;
  PetscScalar *a;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) g += sf->prob->gravity[d] * sf->prob->gravity[d];
  for (PetscInt d = 0; d < 3; d++) up[d] = -sf->prob->gravity[d] / PetscSqrtReal(g);
  PetscCall(DMGetLocalVector(sf->dac, &sl));
  PetscCall(DMGlobalToLocal(sf->dac, sf->s, INSERT_VALUES, sl));
  PetscCall(SFFieldGet(sf->dac, sl, &S));
  PetscCall(DMDAGetCorners(sf->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(u, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < dim; c++) {
          const PetscInt idx[3] = {i, j, k};
          PetscInt lo[3] = {i, j, k}, hi[3] = {i, j, k};
          PetscReal fc = sf->body[c];
          if (SFFacePadding(sf, c, idx) || SFFacePrescribed(sf, c, idx)) continue;
          lo[c] = PetscMax(idx[c] - 1, 0);
          hi[c] = PetscMin(idx[c], n[c] - 1);
          if (up[c] != 0)
            fc += (-sf->buoyancy[0] * (0.5 * (S.a[SF_IDX(&S, lo[0], lo[1], lo[2]) + SF_DENSITY] + S.a[SF_IDX(&S, hi[0], hi[1], hi[2]) + SF_DENSITY])) +
                   sf->buoyancy[1] *
                       (0.5 * (S.a[SF_IDX(&S, lo[0], lo[1], lo[2]) + SF_TEMPERATURE] + S.a[SF_IDX(&S, hi[0], hi[1], hi[2]) + SF_TEMPERATURE]))) *
                  up[c];
          a[l * dim + c] += dt * fc;
        }
  PetscCall(VecRestoreArray(u, &a));
  PetscCall(SFFieldRestore(sl, &S));
  PetscCall(DMRestoreLocalVector(sf->dac, &sl));

  PetscCall(DMDACreateCompatibleDMDA(sf->mac->da, 3, &d3));
  PetscCall(DMGetLocalVector(sf->dav, &ul));
  PetscCall(DMGlobalToLocal(sf->dav, u, INSERT_VALUES, ul));
  PetscCall(SFFieldGet(sf->dav, ul, &U));
  PetscCall(DMCreateGlobalVector(d3, &w));
  PetscCall(VecDuplicate(w, &f));
  PetscCall(DMCreateLocalVector(d3, &wl));
  PetscCall(VecDuplicate(wl, &fl));
  PetscCall(DMDAGetCorners(d3, &xs, &ys, &zs, &xm, &ym, &zm));
#define CU(q, c) (0.5 * (U.a[SF_IDX(&U, (q)[0], (q)[1], (q)[2]) + (c)] + U.a[SF_IDX(&U, (q)[0] + ((c) == 0), (q)[1] + ((c) == 1), (q)[2] + ((c) == 2)) + (c)]))
  PetscCall(VecGetArray(w, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        const PetscInt idx[3] = {i, j, k};
        PetscReal du[3][3] = {{0}};
        for (PetscInt c = 0; c < dim; c++)
          for (PetscInt ax = 0; ax < dim; ax++) {
            PetscInt lo[3] = {i, j, k}, hi[3] = {i, j, k};
            if (ax == c) continue;
            lo[ax] = PetscMax(idx[ax] - 1, 0);
            hi[ax] = PetscMin(idx[ax] + 1, n[ax] - 1);
            du[c][ax] = (CU(hi, c) - CU(lo, c)) / ((hi[ax] - lo[ax]) * h);
          }
        a[3 * l + 0] = du[2][1] - du[1][2];
        a[3 * l + 1] = du[0][2] - du[2][0];
        a[3 * l + 2] = du[1][0] - du[0][1];
      }
#undef CU
  PetscCall(VecRestoreArray(w, &a));
  PetscCall(DMGlobalToLocal(d3, w, INSERT_VALUES, wl));
  PetscCall(SFFieldGet(d3, wl, &W));
#define MAG(q) \
  PetscSqrtReal(W.a[SF_IDX(&W, (q)[0], (q)[1], (q)[2])] * W.a[SF_IDX(&W, (q)[0], (q)[1], (q)[2])] + \
                W.a[SF_IDX(&W, (q)[0], (q)[1], (q)[2]) + 1] * W.a[SF_IDX(&W, (q)[0], (q)[1], (q)[2]) + 1] + \
                W.a[SF_IDX(&W, (q)[0], (q)[1], (q)[2]) + 2] * W.a[SF_IDX(&W, (q)[0], (q)[1], (q)[2]) + 2])
  PetscCall(VecGetArray(f, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        const PetscInt idx[3] = {i, j, k};
        PetscReal eta[3] = {0, 0, 0}, len, N[3], om[3];
        for (PetscInt ax = 0; ax < dim; ax++) {
          PetscInt lo[3] = {i, j, k}, hi[3] = {i, j, k};
          lo[ax] = PetscMax(idx[ax] - 1, 0);
          hi[ax] = PetscMin(idx[ax] + 1, n[ax] - 1);
          eta[ax] = (MAG(hi) - MAG(lo)) / ((hi[ax] - lo[ax]) * h);
        }
        len = PetscSqrtReal(eta[0] * eta[0] + eta[1] * eta[1] + eta[2] * eta[2]);
        for (PetscInt d = 0; d < 3; d++) N[d] = len > 1e-12 ? eta[d] / len : 0, om[d] = W.a[SF_IDX(&W, i, j, k) + d];
        a[3 * l + 0] = sf->vorticity * h * (N[1] * om[2] - N[2] * om[1]);
        a[3 * l + 1] = sf->vorticity * h * (N[2] * om[0] - N[0] * om[2]);
        a[3 * l + 2] = sf->vorticity * h * (N[0] * om[1] - N[1] * om[0]);
      }
#undef MAG
  PetscCall(VecRestoreArray(f, &a));
  PetscCall(SFFieldRestore(wl, &W));
  PetscCall(SFFieldRestore(ul, &U));
  PetscCall(DMRestoreLocalVector(sf->dav, &ul));
  PetscCall(DMGlobalToLocal(d3, f, INSERT_VALUES, fl));
  PetscCall(SFFieldGet(d3, fl, &F));
  PetscCall(DMDAGetCorners(sf->dav, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(u, &a));
  for (PetscInt k = zs, l = 0; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++)
        for (PetscInt c = 0; c < dim; c++) {
          const PetscInt idx[3] = {i, j, k};
          PetscInt lo[3] = {i, j, k}, hi[3] = {i, j, k};
          if (SFFacePadding(sf, c, idx) || SFFacePrescribed(sf, c, idx)) continue;
          lo[c] = PetscMax(idx[c] - 1, 0);
          hi[c] = PetscMin(idx[c], n[c] - 1);
          a[l * dim + c] += dt * 0.5 * (F.a[SF_IDX(&F, lo[0], lo[1], lo[2]) + c] + F.a[SF_IDX(&F, hi[0], hi[1], hi[2]) + c]);
        }
  PetscCall(VecRestoreArray(u, &a));
  PetscCall(SFFieldRestore(fl, &F));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&wl));
  PetscCall(VecDestroy(&fl));
  PetscCall(DMDestroy(&d3));
  PetscFunctionReturn(0);
}

static PetscReal Wavy(const PetscReal x[3], PetscInt c, void *ctx)
{
  return 0.3 + PetscSinReal(9.0 * x[0] + 4.0 * c) * PetscCosReal(7.0 * x[1] - 2.0 * x[2] + c);
}

/* max |a - b| / max |b| */
static PetscReal RelDiff(Vec a, Vec b)
{
  PetscReal d, m;
  Vec t;
  CHECK_PETSC(VecDuplicate(a, &t));
  CHECK_PETSC(VecWAXPY(t, -1.0, b, a));
  CHECK_PETSC(VecNorm(t, NORM_INFINITY, &d));
  CHECK_PETSC(VecNorm(b, NORM_INFINITY, &m));
  CHECK_PETSC(VecDestroy(&t));
  return m > 0 ? d / m : d;
}

/* The advection, buoyancy and confinement kernels against the reference: a rough velocity (up to
 * 1.6 cells per step, so backtraces cross rank boundaries under mpirun) on a smoke plume box (an
 * inflow, an open top, walls), every scheme, 2D and 3D, faces and both scalars. */
START_TEST(kernels_match_reference)
{
  const char *schemes[3] = {"rk2", "rk3", "bfecc"};

  for (PetscInt dim = 2; dim <= 3; dim++)
    for (PetscInt s = 0; s < 3; s++) {
      GridSim g;
      char opts[128];
      Vec u, vl, un, ur, ua, qn, qr;
      PetscReal eu, eq, ef;
      SF *sf;

      CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-smoke_plume_dim %" PetscInt_FMT " -smoke_plume_n %d -sf_advection %s -sf_body_force 0.1,-0.2%s",
                                dim, dim == 2 ? 24 : 13, schemes[s], dim == 3 ? ",0.3" : ""));
      CHECK_PETSC(GridSimCreate(PETSC_COMM_WORLD, "smoke_plume", NULL, opts, &g));
      sf = g.sf;
      CHECK_PETSC(DMGetGlobalVector(sf->dav, &u));
      CHECK_PETSC(DMGetLocalVector(sf->dav, &vl));
      CHECK_PETSC(VecDuplicate(u, &un));
      CHECK_PETSC(VecDuplicate(u, &ur));
      CHECK_PETSC(VecDuplicate(u, &ua));
      CHECK_PETSC(VecDuplicate(sf->s, &qn));
      CHECK_PETSC(VecDuplicate(sf->s, &qr));
      CHECK_PETSC(Fill(sf, sf->dav, PETSC_TRUE, u, RandomishVelocity, NULL));
      CHECK_PETSC(SimMACZeroPadding(sf->mac, u));
      CHECK_PETSC(DMGlobalToLocal(sf->dav, u, INSERT_VALUES, vl));
      CHECK_PETSC(Fill(sf, sf->dac, PETSC_FALSE, sf->s, Wavy, NULL));
      CHECK_PETSC(SFAdvectFaces(sf, vl, sf->h, u, vl, un));
      CHECK_PETSC(RefAdvect(sf, vl, sf->h, sf->dav, PETSC_TRUE, u, ur));
      CHECK_PETSC(SFAdvectCells(sf, vl, sf->h, sf->s, NULL, qn));
      CHECK_PETSC(RefAdvect(sf, vl, sf->h, sf->dac, PETSC_FALSE, sf->s, qr));
      eu = RelDiff(un, ur);
      eq = RelDiff(qn, qr);
      /* forces on the advected state: the solver's kernels on sf->u, the reference on ur */
      CHECK_PETSC(VecCopy(qn, sf->s));
      CHECK_PETSC(VecCopy(un, sf->u));
      CHECK_PETSC(VecCopy(un, ur));
      CHECK_PETSC(SFAddForces(sf, 0.01));
      CHECK_PETSC(VecCopy(sf->u, ua)); /* the state before the confinement */
      CHECK_PETSC(DMGlobalToLocal(sf->dav, sf->u, INSERT_VALUES, sf->ul));
      CHECK_PETSC(SFAddVorticityConfinement(sf, sf->ul, 0.01));
      {
        /* the same from the velocity as the step passes it (SFExchange: on one rank sf->u itself,
         * which the confinement reads and writes plane by plane): bit for bit the copy's result */
        Vec keep = sf->u, r;
        PetscBool same;
        sf->u = ua;
        CHECK_PETSC(SFExchange(sf, sf->dav, ua, sf->ul, &r));
        CHECK_PETSC(SFAddVorticityConfinement(sf, r, 0.01));
        sf->u = keep;
        CHECK_PETSC(VecEqual(ua, sf->u, &same));
        ck_assert_msg(same, "%dD %s: the confinement reading u itself differs from the one reading its copy", (int)dim, schemes[s]);
      }
      CHECK_PETSC(RefForces(sf, 0.01, ur));
      /* the forces' change of u, both ways */
      CHECK_PETSC(VecAYPX(un, -1.0, sf->u));
      CHECK_PETSC(VecAXPY(ur, -1.0, sf->u));
      CHECK_PETSC(VecAXPY(ur, 1.0, un)); /* ur - u0 = (ur - u_solver) + (u_solver - u0) */
      ef = RelDiff(un, ur);
      CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "kernels vs reference %" PetscInt_FMT "D %-5s: faces %.1e, scalars %.1e, forces %.1e\n", dim,
                              schemes[s], (double)eu, (double)eq, (double)ef));
      ck_assert_msg(eu <= 1e-13 && eq <= 1e-13, "%dD %s: advection differs from the reference (faces %g, scalars %g)", (int)dim, schemes[s],
                    (double)eu, (double)eq);
      ck_assert_msg(ef <= 1e-12, "%dD %s: the forces differ from the reference by %g", (int)dim, schemes[s], (double)ef);
      CHECK_PETSC(VecDestroy(&un));
      CHECK_PETSC(VecDestroy(&ur));
      CHECK_PETSC(VecDestroy(&ua));
      CHECK_PETSC(VecDestroy(&qn));
      CHECK_PETSC(VecDestroy(&qr));
      CHECK_PETSC(DMRestoreLocalVector(sf->dav, &vl));
      CHECK_PETSC(DMRestoreGlobalVector(sf->dav, &u));
      CHECK_PETSC(GridSimDestroy(&g));
    }
}
END_TEST

/* A smooth bump, and the velocity that carries it: a solid-body rotation about the box centre. */
typedef struct {
  PetscReal omega, t, x0[2], sigma;
} Rotation;

static PetscReal RotationVelocity(const PetscReal x[3], PetscInt c, void *ctx)
{
  Rotation *r = (Rotation *)ctx;
  return c == 0 ? -r->omega * (x[1] - 0.5) : r->omega * (x[0] - 0.5);
}

static PetscReal Bump(const PetscReal x[3], PetscInt c, void *ctx)
{
  Rotation *r = (Rotation *)ctx;
  PetscReal a = -r->omega * r->t, cx = x[0] - 0.5, cy = x[1] - 0.5;
  /* the point that arrives at x after rotating by omega t started at R(-omega t) x */
  PetscReal px = 0.5 + PetscCosReal(a) * cx - PetscSinReal(a) * cy, py = 0.5 + PetscSinReal(a) * cx + PetscCosReal(a) * cy;
  PetscReal d2 = (px - r->x0[0]) * (px - r->x0[0]) + (py - r->x0[1]) * (py - r->x0[1]);
  return PetscExpReal(-d2 / (r->sigma * r->sigma));
}

/* RMS error after advecting the bump a quarter turn on an n^2 grid at CFL ~0.7. */
static PetscReal RotationError(PetscInt n, const char *scheme)
{
  GridSim g;
  SimGridProblem p;
  Rotation r = {2 * PETSC_PI, 0, {0.5, 0.3}, 0.1};
  char opts[64];
  Vec vl, u, q, qn, ex;
  PetscReal dt, T = 0.1, err;
  PetscInt steps, N;

  AdvectionProblem(2, n, &p);
  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-sf_advection %s", scheme));
  CHECK_PETSC(GridSimCreate(PETSC_COMM_WORLD, NULL, &p, opts, &g));
  steps = (PetscInt)PetscCeilReal(T * r.omega * 0.5 * n / 0.7); /* max |u| on the bump's path ~ omega/2 */
  dt = T / steps;
  CHECK_PETSC(DMGetLocalVector(g.sf->dav, &vl));
  CHECK_PETSC(DMGetGlobalVector(g.sf->dav, &u));
  CHECK_PETSC(Fill(g.sf, g.sf->dav, PETSC_TRUE, u, RotationVelocity, &r));
  CHECK_PETSC(SimMACZeroPadding(g.sf->mac, u));
  CHECK_PETSC(DMGlobalToLocal(g.sf->dav, u, INSERT_VALUES, vl));
  CHECK_PETSC(DMGetGlobalVector(g.sf->dac, &q));
  CHECK_PETSC(DMGetGlobalVector(g.sf->dac, &qn));
  CHECK_PETSC(DMGetGlobalVector(g.sf->dac, &ex));
  CHECK_PETSC(Fill(g.sf, g.sf->dac, PETSC_FALSE, q, Bump, &r));
  for (PetscInt s = 0; s < steps; s++) {
    CHECK_PETSC(SFAdvectCells(g.sf, vl, dt, q, NULL, qn));
    CHECK_PETSC(VecCopy(qn, q));
  }
  r.t = T;
  CHECK_PETSC(Fill(g.sf, g.sf->dac, PETSC_FALSE, ex, Bump, &r));
  CHECK_PETSC(VecAXPY(q, -1.0, ex));
  CHECK_PETSC(VecNorm(q, NORM_2, &err));
  CHECK_PETSC(VecGetSize(q, &N));
  CHECK_PETSC(DMRestoreGlobalVector(g.sf->dac, &ex));
  CHECK_PETSC(DMRestoreGlobalVector(g.sf->dac, &qn));
  CHECK_PETSC(DMRestoreGlobalVector(g.sf->dac, &q));
  CHECK_PETSC(DMRestoreGlobalVector(g.sf->dav, &u));
  CHECK_PETSC(DMRestoreLocalVector(g.sf->dav, &vl));
  CHECK_PETSC(GridSimDestroy(&g));
  return err / PetscSqrtReal((PetscReal)N);
}

/* Observed order of each scheme on the rotating bump at a fixed Courant number: multilinear
 * interpolation loses O(h^2) per step over O(1/h) steps, so RK2 and RK3 converge at first order
 * (their backtraces are second and third order, below the interpolation error); BFECC cancels
 * the leading interpolation error and converges at second order. */
START_TEST(smooth_advection_order)
{
  const char *schemes[3] = {"rk2", "rk3", "bfecc"};
  const PetscReal lo[3] = {0.8, 0.8, 1.6};
  const PetscInt sizes[3] = {64, 128, 256};

  for (PetscInt s = 0; s < 3; s++) {
    PetscReal e[3], order;
    for (PetscInt k = 0; k < 3; k++) e[k] = RotationError(sizes[k], schemes[s]);
    order = PetscLog2Real(e[1] / e[2]);
    CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "advection %-5s RMS error n=64 %.3e, 128 %.3e, 256 %.3e: orders %.2f, %.2f\n",
                            schemes[s], (double)e[0], (double)e[1], (double)e[2], (double)PetscLog2Real(e[0] / e[1]),
                            (double)order));
    ck_assert_msg(e[1] < e[0] && e[2] < e[1], "%s: the error does not decrease under refinement", schemes[s]);
    ck_assert_msg(order >= lo[s], "%s: observed order %g < %g", schemes[s], (double)order, (double)lo[s]);
  }
}
END_TEST

/* The backtrace alone: a solid-body rotation is linear in x, so multilinear interpolation samples
 * it exactly and the backtrace error is the Runge-Kutta error, O(dt^3) per step for RK2 and
 * O(dt^4) for RK3 (local error of an order-p method: p + 1), against the exact rotation by
 * -omega dt (on PETSC_COMM_SELF: the point is a property of the tableau, not of the decomposition). */
START_TEST(backtrace_order)
{
  const char *schemes[2] = {"rk2", "rk3"};
  const PetscReal expect[2] = {2.8, 3.8};
  Rotation r = {2 * PETSC_PI, 0, {0, 0}, 0};

  for (PetscInt s = 0; s < 2; s++) {
    GridSim g;
    SimGridProblem p;
    char opts[64];
    Vec u, vl;
    SFField V;
    PetscReal e[3], x[3], xb[3];

    AdvectionProblem(2, 32, &p);
    CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-sf_advection %s", schemes[s]));
    CHECK_PETSC(GridSimCreate(PETSC_COMM_SELF, NULL, &p, opts, &g));
    CHECK_PETSC(DMGetGlobalVector(g.sf->dav, &u));
    CHECK_PETSC(DMGetLocalVector(g.sf->dav, &vl));
    CHECK_PETSC(Fill(g.sf, g.sf->dav, PETSC_TRUE, u, RotationVelocity, &r));
    CHECK_PETSC(DMGlobalToLocal(g.sf->dav, u, INSERT_VALUES, vl));
    CHECK_PETSC(SFFieldGet(g.sf->dav, vl, &V));
    for (PetscInt k = 0; k < 3; k++) {
      PetscReal dt = 0.02 / (1 << k), a = -r.omega * dt;
      x[0] = 0.5, x[1] = 0.8, x[2] = 0;
      SFBacktrace(g.sf, &V, dt, x, xb);
      /* exact: x rotated about the centre by -omega dt */
      e[k] = PetscHypotReal(xb[0] - (0.5 - PetscSinReal(a) * 0.3), xb[1] - (0.5 + PetscCosReal(a) * 0.3));
    }
    CHECK_PETSC(SFFieldRestore(vl, &V));
    CHECK_PETSC(DMRestoreLocalVector(g.sf->dav, &vl));
    CHECK_PETSC(DMRestoreGlobalVector(g.sf->dav, &u));
    CHECK_PETSC(GridSimDestroy(&g));
    CHECK_PETSC(PetscPrintf(
        PETSC_COMM_WORLD, "backtrace %s: error %.2e, %.2e, %.2e (dt 0.02, 0.01, 0.005): local orders %.2f, %.2f\n", schemes[s],
        (double)e[0], (double)e[1], (double)e[2], (double)PetscLog2Real(e[0] / e[1]), (double)PetscLog2Real(e[1] / e[2])));
    ck_assert_msg(PetscLog2Real(e[1] / e[2]) >= expect[s], "%s: local order %g < %g", schemes[s],
                  (double)PetscLog2Real(e[1] / e[2]), (double)expect[s]);
  }
}
END_TEST

/* The foot of the BDF2 scalar transport (the smoke scalars go once over dt through the velocity
 * extrapolated to t_{n+1/2}): with u^{n-1}, u^n solid-body rotations at rates omega - a dt and
 * omega (a rate growing linearly in time), the exact foot is x rotated by -dt (omega + a dt / 2),
 * and a linear scalar, which multilinear interpolation samples exactly, returns c . X at every
 * cell. The extrapolated midpoint leaves only the RK2 backtrace's O(dt^3) local error; tracing
 * through u^n alone is off by a dt^2 / 2 in angle, O(dt^2). Taylor-Green cannot see this: there
 * the foot error lies along u, a gradient the projection removes. */
static PetscReal LinearScalar(const PetscReal x[3], PetscInt c, void *ctx)
{
  return 0.7 * x[0] - 1.3 * x[1];
}

START_TEST(bdf2_scalar_foot_order)
{
  const PetscReal omega = 2 * PETSC_PI, a = 40.0;
  PetscReal e[3];

  for (PetscInt k = 0; k < 3; k++) {
    const PetscReal dt = 0.01 / (1 << k), ang = -dt * (omega + 0.5 * a * dt);
    GridSim g;
    SimGridProblem p;
    Rotation now = {omega, 0, {0, 0}, 0}, before = {omega - a * dt, 0, {0, 0}, 0};
    PetscReal dt_eff, err = 0;
    const PetscScalar *sv;
    PetscInt xs, ys, xm, ym;

    AdvectionProblem(2, 32, &p);
    CHECK_PETSC(GridSimCreate(PETSC_COMM_SELF, NULL, &p, "-sf_time sl_bdf2 -sf_advection rk2", &g));
    ck_assert(g.sf->bdf2 && g.sf->smoke);
    CHECK_PETSC(Fill(g.sf, g.sf->dav, PETSC_TRUE, g.sf->u, RotationVelocity, &now));
    CHECK_PETSC(Fill(g.sf, g.sf->dav, PETSC_TRUE, g.sf->uprev, RotationVelocity, &before));
    CHECK_PETSC(Fill(g.sf, g.sf->dac, PETSC_FALSE, g.sf->s, LinearScalar, NULL));
    CHECK_PETSC(DMGlobalToLocal(g.sf->dav, g.sf->u, INSERT_VALUES, g.sf->ul));
    g.sf->dt_prev = dt;
    CHECK_PETSC(SFBDF2Advect(g.sf, g.sf->ul, dt, &dt_eff));
    CHECK_PETSC(DMDAGetCorners(g.sf->dac, &xs, &ys, NULL, &xm, &ym, NULL));
    CHECK_PETSC(VecGetArrayRead(g.sf->s, &sv));
    for (PetscInt j = ys, l = 0; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, l++) {
        PetscReal x[3], cx, cy, foot[3];
        SFCellPosition(g.sf, i, j, 0, x);
        cx = x[0] - 0.5, cy = x[1] - 0.5;
        if (cx * cx + cy * cy > 0.35 * 0.35) continue; /* away from the walls */
        foot[0] = 0.5 + PetscCosReal(ang) * cx - PetscSinReal(ang) * cy;
        foot[1] = 0.5 + PetscSinReal(ang) * cx + PetscCosReal(ang) * cy;
        foot[2] = 0;
        err = PetscMax(err, PetscAbsReal(sv[l * SF_NSCALARS] - LinearScalar(foot, 0, NULL)));
      }
    CHECK_PETSC(VecRestoreArrayRead(g.sf->s, &sv));
    CHECK_PETSC(GridSimDestroy(&g));
    e[k] = err;
  }
  CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "sl_bdf2 scalar foot: max error %.2e, %.2e, %.2e (dt 0.01, 0.005, 0.0025): local orders %.2f, %.2f\n",
                          (double)e[0], (double)e[1], (double)e[2], (double)PetscLog2Real(e[0] / e[1]), (double)PetscLog2Real(e[1] / e[2])));
  ck_assert_msg(PetscLog2Real(e[1] / e[2]) >= 2.8, "sl_bdf2 scalar foot: local order %g < 2.8", (double)PetscLog2Real(e[1] / e[2]));
}
END_TEST

/* Steps taylor_green (options opts) to t = T at CFL 0.5 with n cells per axis; returns the
 * kinetic energy ratio E(T)/E(0), and the velocity RMS error at T. */
static void RunTaylorGreenWith(PetscInt n, PetscReal re, PetscReal T, const char *extra, PetscReal *ratio, PetscReal *err)
{
  GridSim g;
  char opts[256];
  SimEnergyReport r0, r1;
  PetscInt steps = (PetscInt)(2 * T * n + 0.5);

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-taylor_green_n %" PetscInt_FMT " -taylor_green_re %g %s", n, (double)re, extra));
  CHECK_PETSC(GridSimCreate(PETSC_COMM_WORLD, "taylor_green", NULL, opts, &g));
  CHECK_PETSC(SimSolverEnergy(g.solver, &r0));
  for (PetscInt s = 0; s < steps; s++) CHECK_PETSC(SimSolverStep(g.solver, T / steps, NULL));
  CHECK_PETSC(SimSolverEnergy(g.solver, &r1));
  CHECK_PETSC(SFVelocityError(g.sf, T, err));
  *ratio = r1.kinetic / r0.kinetic;
  CHECK_PETSC(GridSimDestroy(&g));
}

static void RunTaylorGreen(PetscInt n, PetscReal re, PetscReal T, PetscReal *ratio, PetscReal *err)
{
  RunTaylorGreenWith(n, re, T, "", ratio, err);
}

/* Taylor-Green on the unit box, U = 1, Re = 100 (nu = 0.01) and inviscid: E(t)/E(0) against
 * exp(-4 nu k^2 t), k = pi, and the velocity error against the analytic field, at 16^2, 32^2,
 * 64^2 (CFL 0.5): both errors must decrease under refinement (semi-Lagrangian advection is first
 * order at a fixed Courant number, so by about 2x per level). */
START_TEST(taylor_green_decay)
{
  const PetscInt sizes[3] = {16, 32, 64};
  const PetscReal res[2] = {100, 0}, T = 0.5;

  for (PetscInt r = 0; r < 2; r++) {
    PetscReal nu = res[r] > 0 ? 1.0 / res[r] : 0, exact = PetscExpReal(-4 * nu * PETSC_PI * PETSC_PI * T),
              rate = 4 * nu * PETSC_PI * PETSC_PI;
    PetscReal eE[3], eU[3];
    for (PetscInt k = 0; k < 3; k++) {
      PetscReal ratio;
      RunTaylorGreen(sizes[k], res[r], T, &ratio, &eU[k]);
      eE[k] = PetscAbsReal(ratio - exact);
      CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD,
                              "taylor_green Re=%g n=%3" PetscInt_FMT
                              ": E(T)/E(0) %.5f, analytic exp(-4 nu k^2 T) %.5f (decay rate %.4f vs %.4f 1/s); "
                              "velocity RMS error %.3e m/s\n",
                              (double)res[r], sizes[k], (double)ratio, (double)exact, (double)(-PetscLogReal(ratio) / T),
                              (double)rate, (double)eU[k]));
    }
    for (PetscInt k = 1; k < 3; k++) {
      ck_assert_msg(eE[k] < 0.75 * eE[k - 1], "Re=%g: the energy error does not decrease (%g -> %g)", (double)res[r],
                    (double)eE[k - 1], (double)eE[k]);
      ck_assert_msg(eU[k] < 0.75 * eU[k - 1], "Re=%g: the velocity error does not decrease (%g -> %g)", (double)res[r],
                    (double)eU[k - 1], (double)eU[k]);
    }
    ck_assert_msg(eE[2] < 0.1 * exact, "Re=%g: E(T)/E(0) is off by %g at 64^2", (double)res[r], (double)eE[2]);
  }
}
END_TEST

/* The time schemes on Taylor-Green (Re = 100) at a fixed Courant number 0.5, 16^2 -> 32^2 -> 64^2,
 * both with BFECC advection (third-order interpolation error per step, so second order in space
 * over O(1/h) steps): the first-order split step (Chorin) converges at first order — its
 * advection-projection splitting error, O(dt) — and the semi-Lagrangian BDF2 step at second order. */
START_TEST(taylor_green_time_order)
{
  const char *schemes[2] = {"-sf_time chorin -sf_advection bfecc", "-sf_time sl_bdf2 -sf_advection bfecc"};
  const PetscInt sizes[3] = {16, 32, 64};
  PetscReal e[2][3], order[2][2];

  for (PetscInt t = 0; t < 2; t++) {
    for (PetscInt k = 0; k < 3; k++) {
      PetscReal ratio;
      RunTaylorGreenWith(sizes[k], 100, 0.5, schemes[t], &ratio, &e[t][k]);
    }
    for (PetscInt k = 0; k < 2; k++) order[t][k] = PetscLog2Real(e[t][k] / e[t][k + 1]);
    CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD, "taylor_green %s: velocity RMS error %.3e, %.3e, %.3e; orders %.2f, %.2f\n", schemes[t],
                            (double)e[t][0], (double)e[t][1], (double)e[t][2], (double)order[t][0], (double)order[t][1]));
  }
  ck_assert_msg(order[0][0] < 1.3 && order[0][1] < 1.3, "the split step converges faster than first order (%g, %g)?",
                (double)order[0][0], (double)order[0][1]);
  ck_assert_msg(order[1][0] >= 1.8 && order[1][1] >= 1.8, "sl_bdf2: observed orders %g, %g < 1.8", (double)order[1][0],
                (double)order[1][1]);
  ck_assert_msg(e[1][2] < 0.1 * e[0][2], "sl_bdf2 is not 10x more accurate than the split step at 64^2 (%g vs %g)",
                (double)e[1][2], (double)e[0][2]);
}
END_TEST

/* After a full smoke step (advection, buoyancy, confinement, projection) the discrete divergence
 * is below the pressure solver's tolerance relative to the divergence it removed. */
START_TEST(divergence_after_step)
{
  GridSim g;
  PetscReal l2;

  CHECK_PETSC(GridSimCreate(PETSC_COMM_WORLD, "smoke_plume", NULL, "-smoke_plume_n 16", &g));
  for (PetscInt s = 0; s < 5; s++) {
    CHECK_PETSC(SimSolverStep(g.solver, 0.02, NULL));
    CHECK_PETSC(SFDivergenceNorms(g.sf, g.sf->u, NULL, NULL, &l2));
    ck_assert_msg(g.sf->div_before > 0, "nothing to project");
    ck_assert_msg(l2 <= 1.01e-8 * g.sf->div_before, "step %d: |div u|_2 = %g after projecting |div u*|_2 = %g", (int)s,
                  (double)l2, (double)g.sf->div_before);
  }
  CHECK_PETSC(GridSimDestroy(&g));
}
END_TEST

/* The bytes model of a step (traffic.c, docs/stablefluids.md) against a hand count on one rank, where
 * there is no exchange (SFExchange, SimMACGhosted: the passes read the global vectors, the ghosted
 * copy would be the same array): the 2D plume at n = 16 (16 x 32 cells, N = 512), face entries
 * F = 17 * 33 * 2 = 1122, smoke scalars S = 2 N = 1024, confinement scratch omega and f 3 N = 1536
 * entries, 8 bytes each:
 *   rk2 advection: face pass (read u once, it advects itself; write: 2F), cell pass (read u, s;
 *     write: F + 2S)                                                              = 3F + 2S;
 *   bfecc: faces 2F (pass 1) + 3F (pass 2) + 3F (q + (q - q2)/2) + 4F (pass 3, reading the clamp
 *     field too) = 12F; cells (F + 2S) + (F + 2S) + 3S + (S + F + 2S) = 3F + 10S   = 15F + 10S;
 *   forces: buoyancy read s, read and write u (S + 2F); confinement read u, omega and f written and
 *     read, read and write u (F + 2 * 1536 + 2F)                                  = S + 5F + 3072;
 *   other: CFL max|u| (F), two sources reading and writing s (4S), the projection beside its solve
 *     (divergence F + N, |b| N, scaling 2N, no null space with the open top, gradient N + 2F) and the
 *     divergence norms after it (F + N + 2N)                                      = 5F + 4S + 8N,
 *     and the pressure's initial guess (stablefluids.c, PressureGuess): a copy of p (2N) in the first
 *     two steps, then the linear (read two, write: 3N) and the quadratic extrapolation (read three,
 *     write: 4N);
 *   solve: iterations x (152 N + 120 (N + N/4)) (one rank: no ghosted copies, one pass per smoothing;
 *     two smoothed levels, 16 x 32 and 8 x 16, above the 4 x 8 coarsest one). */
START_TEST(bytes_model_hand_count)
{
  const PetscReal F = 1122, S = 1024, N = 512;
  const char *opts[2] = {"-smoke_plume_n 16", "-smoke_plume_n 16 -sf_advection bfecc"};
  const PetscReal advect[2] = {8 * (3 * F + 2 * S), 8 * (15 * F + 10 * S)};
  const char *names[4] = {"fluid_advect_bytes", "fluid_forces_bytes", "solve_bytes", "fluid_other_bytes"};

  for (PetscInt o = 0; o < 2; o++) {
    GridSim g;
    CHECK_PETSC(GridSimCreate(PETSC_COMM_SELF, "smoke_plume", NULL, opts[o], &g));
    for (PetscInt step = 0; step < 4; step++) {
      const PetscReal guess = (step < 2 ? 2 : step == 2 ? 3 : 4) * N;
      const PetscReal want[4] = {advect[o], 8 * (S + 5 * F + 2 * 1536), 0, 8 * (5 * F + 4 * S + 8 * N + guess)};
      CHECK_PETSC(SimSolverStep(g.solver, 0.02, NULL));
      for (PetscInt p = 0; p < 4; p++) {
        PetscInt n;
        const PetscReal *v;
        const PetscReal expect = p == 2 ? g.sf->pressure_its * (152 * N + 120 * (N + N / 4)) : want[p];
        CHECK_PETSC(SimSolverGetSeries(g.solver, names[p], &n, &v));
        ck_assert_msg(n == 1 && v[0] == expect, "%s, step %d, %s: %g bytes, hand count %g", opts[o], (int)step, names[p],
                      n ? (double)v[0] : -1.0, (double)expect);
      }
      ck_assert_msg(g.sf->pressure_its > 0, "no pressure iterations");
    }
    CHECK_PETSC(GridSimDestroy(&g));
  }
}
END_TEST

/* max |a - b| over two natural-order gathers, and max |b|. */
static void MaxDiff(Vec a, Vec b, PetscReal *diff, PetscReal *scale)
{
  Vec ga, gb;
  CHECK_PETSC(GatherNatural(a, &ga));
  CHECK_PETSC(GatherNatural(b, &gb));
  CHECK_PETSC(VecNorm(gb, NORM_INFINITY, scale));
  CHECK_PETSC(VecAXPY(ga, -1.0, gb));
  CHECK_PETSC(VecNorm(ga, NORM_INFINITY, diff));
  CHECK_PETSC(VecDestroy(&ga));
  CHECK_PETSC(VecDestroy(&gb));
}

/* 20 steps of a small smoke plume on all ranks of PETSC_COMM_WORLD match the same run on each
 * rank alone (PETSC_COMM_SELF) within the pressure tolerance (relative residual 1e-8 per solve;
 * the decompositions change the MG smoother and the rounding). */
START_TEST(parallel_matches_serial)
{
  /* the default step, and the second-order one (its extrapolations and two-step backtrace) */
  const char *opts[2] = {"-smoke_plume_n 16", "-smoke_plume_n 16 -sf_time sl_bdf2 -sf_advection bfecc"};

  for (PetscInt o = 0; o < 2; o++) {
    GridSim gw, gs;
    PetscReal du, su, dd, sd;
    PetscMPIInt size;

    CHECK_PETSC(GridSimCreate(PETSC_COMM_WORLD, "smoke_plume", NULL, opts[o], &gw));
    CHECK_PETSC(GridSimCreate(PETSC_COMM_SELF, "smoke_plume", NULL, opts[o], &gs));
    for (PetscInt s = 0; s < 20; s++) {
      CHECK_PETSC(SimSolverStep(gw.solver, 0.02, NULL));
      CHECK_PETSC(SimSolverStep(gs.solver, 0.02, NULL));
    }
    MaxDiff(gw.sf->u, gs.sf->u, &du, &su);
    MaxDiff(gw.sf->s, gs.sf->s, &dd, &sd);
    CHECK_PETSC(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD,
                            "smoke plume 16x32 (%s), 20 steps, %d rank(s) vs 1: |u_p - u_1|_inf %.3e (|u| %.3e), |d_p - d_1|_inf "
                            "%.3e (|d| %.3e)\n",
                            opts[o], (int)size, (double)du, (double)su, (double)dd, (double)sd));
    ck_assert_msg(su > 0.1 && sd > 0.5, "the plume did not move");
    ck_assert_msg(du <= 1e-6 * su && dd <= 1e-6 * sd, "%s: parallel run differs: velocity %g, density %g", opts[o], (double)du,
                  (double)dd);
    CHECK_PETSC(GridSimDestroy(&gs));
    CHECK_PETSC(GridSimDestroy(&gw));
  }
}
END_TEST

/* Ghia, Ghia and Shin (1982), Table I, Re = 100: u along the vertical centreline x = 0.5. */
static const PetscReal ghia_y[] = {0.9766, 0.9688, 0.9609, 0.9531, 0.8516, 0.7344, 0.6172, 0.5,
                                   0.4531, 0.2813, 0.1719, 0.1016, 0.0703, 0.0625, 0.0547};
static const PetscReal ghia_u[] = {0.84123,  0.78871,  0.73722,  0.68717,  0.23151,  0.00332,  -0.13641, -0.20581,
                                   -0.21090, -0.15662, -0.10150, -0.06434, -0.04775, -0.04192, -0.03717};

/* Runs the Re = 100 cavity on n^2 cells to t = T; returns max |u - u_Ghia| on the centreline
 * (u faces at x = 0.5, linear in y between cell centres and the walls) and the largest change of
 * u over the last second (how steady it is). */
static void LidCavityGhia(PetscInt n, PetscReal dt, PetscReal T, PetscReal *maxerr, PetscReal *change)
{
  GridSim g;
  char opts[64];
  Vec all, before;
  const PetscScalar *a;
  PetscInt steps = (PetscInt)(T / dt + 0.5), last = (PetscInt)(1.0 / dt + 0.5);

  CHECK_PETSC(PetscSNPrintf(opts, sizeof(opts), "-lid_cavity_n %" PetscInt_FMT " -sf_ghost 4", n)); /* CFL up to 3 */
  CHECK_PETSC(GridSimCreate(PETSC_COMM_WORLD, "lid_cavity", NULL, opts, &g));
  CHECK_PETSC(VecDuplicate(g.sf->u, &before));
  for (PetscInt s = 0; s < steps; s++) {
    if (s == steps - last) CHECK_PETSC(VecCopy(g.sf->u, before));
    CHECK_PETSC(SimSolverStep(g.solver, dt, NULL));
  }
  CHECK_PETSC(VecAXPY(before, -1.0, g.sf->u));
  CHECK_PETSC(VecNorm(before, NORM_INFINITY, change));
  CHECK_PETSC(GatherNatural(g.sf->u, &all));
  CHECK_PETSC(VecGetArrayRead(all, &a));
  *maxerr = 0;
  for (size_t q = 0; q < sizeof(ghia_y) / sizeof(ghia_y[0]); q++) {
    PetscReal f = ghia_y[q] * n - 0.5, u0, u1, t; /* cell-centre index coordinate */
    PetscInt j = (PetscInt)PetscFloorReal(f);
#define U_AT(jj) ((jj) < 0 ? 0.0 : (jj) >= n ? 1.0 : a[((jj) * (n + 1) + n / 2) * 2 + 0])
    u0 = U_AT(j), u1 = U_AT(j + 1);
#undef U_AT
    t = f - j;
    if (j == n - 1) t = (ghia_y[q] * n - (n - 0.5)) / 0.5; /* between the last centre and the lid */
    if (j < 0) t = ghia_y[q] * n / 0.5, u0 = 0, u1 = a[(0 * (n + 1) + n / 2) * 2];
    *maxerr = PetscMax(*maxerr, PetscAbsReal((1 - t) * u0 + t * u1 - ghia_u[q]));
  }
  CHECK_PETSC(VecRestoreArrayRead(all, &a));
  CHECK_PETSC(VecDestroy(&all));
  CHECK_PETSC(VecDestroy(&before));
  CHECK_PETSC(GridSimDestroy(&g));
}

/* The steady lid-driven cavity at Re = 100 against Ghia et al.: the centreline profile approaches
 * theirs under refinement (32^2 -> 64^2), within 0.02 U at 64^2 after 10 s (semi-Lagrangian numerical
 * diffusion lowers the effective Reynolds number on coarse grids). */
START_TEST(lid_cavity_ghia)
{
  PetscReal e32, e64, c32, c64;

  LidCavityGhia(32, 0.04, 10.0, &e32, &c32);
  LidCavityGhia(64, 0.04, 10.0, &e64, &c64);
  CHECK_PETSC(PetscPrintf(PETSC_COMM_WORLD,
                          "lid cavity Re=100 centreline vs Ghia 1982: max |u - u_G| 32^2 %.4f, 64^2 %.4f (U = 1; change over the "
                          "last second %.1e, %.1e)\n",
                          (double)e32, (double)e64, (double)c32, (double)c64));
  ck_assert_msg(c64 < 1e-3, "the 64^2 cavity is not steady after 10 s (change %g)", (double)c64);
  ck_assert_msg(e64 < e32, "the profile error does not decrease under refinement (%g -> %g)", (double)e32, (double)e64);
  ck_assert_msg(e64 < 0.02, "the 64^2 profile differs from Ghia et al. by %g", (double)e64);
}
END_TEST

/* Conformance: every registered grid solver sets up on every grid scene of its family (small), takes
 * two steps with a finite, non-negative kinetic energy (stablefluids: and a divergence-free result),
 * and is destroyed. A family is the scenes whose default solver it is: the grid type's
 * (stablefluids) or the one a scene names (shallow_water for the height-field scenes, whose
 * problems carry fields the incompressible solvers refuse). */
START_TEST(every_grid_solver_on_every_grid_scene)
{
  SimRegistry reg;
  const SimRegEntry *grid;
  PetscInt nso, nsc, pairs = 0;

  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimRegistryFind(reg, SIM_KIND_PROBLEM, "grid", &grid));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_SOLVER, &nso));
  CHECK_PETSC(SimRegistryCount(reg, SIM_KIND_SCENE, &nsc));
  for (PetscInt i = 0; i < nso; i++)
    for (PetscInt j = 0; j < nsc; j++) {
      const SimRegEntry *so, *sc;
      SimScene scene;
      SimProblem prob;
      SimSolver s;
      SimStepOutcome outcome;
      SimEnergyReport rep;
      PetscInt nfig;
      const char *names[SIM_MAX_FIGURES];
      PetscReal values[SIM_MAX_FIGURES];

      CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_SOLVER, i, &so));
      CHECK_PETSC(SimRegistryGet(reg, SIM_KIND_SCENE, j, &sc));
      if (strcmp(sc->problem, "grid") || !SimRegistrySolverFits(so, sc->problem)) continue;
      if (strcmp(sc->solver[0] ? sc->solver : grid->problem, so->name)) continue;
      CHECK_PETSC(TestSetOptions("-taylor_green_n 16 -lid_cavity_n 16 -smoke_plume_n 16 -dam_break_swe_n 20 -swe_drop_n 16"));
      CHECK_PETSC(SimSceneCreate(reg, sc->name, &scene));
      CHECK_PETSC(SimSceneBuild(scene, PETSC_COMM_WORLD, &prob));
      CHECK_PETSC(SimSolverCreate(reg, so->name, prob, &s));
      CHECK_PETSC(SimSolverSetFromOptions(s));
      for (int k = 0; k < 2; k++) CHECK_PETSC(SimSolverStep(s, 0.01, &outcome));
      ck_assert_msg(outcome == SIM_STEP_OK, "%s on %s: outcome %d", so->name, sc->name, (int)outcome);
      CHECK_PETSC(SimSolverEnergy(s, &rep));
      ck_assert_msg(PetscIsNormalReal(rep.kinetic) && rep.kinetic > 0, "%s on %s: kinetic energy %g", so->name, sc->name,
                    (double)rep.kinetic);
      CHECK_PETSC(SimSolverFigures(s, &nfig, names, values));
      if (!strcmp(so->name, "stablefluids"))
        ck_assert_msg(nfig >= 1 && !strcmp(names[0], "div_l2") && values[0] < 1e-6, "%s on %s: figures", so->name, sc->name);
      CHECK_PETSC(SimSolverDestroy(&s));
      CHECK_PETSC(SimProblemDestroy(&prob));
      CHECK_PETSC(SimSceneDestroy(&scene));
      pairs++;
    }
  ck_assert_int_ge(pairs, 5);
  CHECK_PETSC(SimRegistryDestroy(&reg));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

/* stablefluids on a grid problem made from a description by hand; the problem is gone on return
 * (the solver is only created, to see what its constructor refuses). */
static PetscErrorCode SolverOnDescription(SimRegistry reg, const SimGridProblem *q, SimSolver *s)
{
  SimProblem gp;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(SimGridProblemCreateFromDescription(reg, PETSC_COMM_WORLD, q, "test", &gp));
  ierr = SimSolverCreate(reg, "stablefluids", gp, s);
  if (!ierr) ierr = SimSolverDestroy(s);
  PetscCall(SimProblemDestroy(&gp));
  return ierr;
}

/* Bad input: a step beyond the ghost width, a ghost width below 2, an unknown scheme, and a grid
 * solver on a model (or a model solver on a grid problem). */
START_TEST(bad_inputs)
{
  GridSim g;
  SimGridProblem p;
  TestErrorCapture cap = {{0}};
  SimRegistry reg;
  SimProblem gp;
  SimSolver bad = NULL;
  TestSim t;
  PetscErrorCode ierr;

  CHECK_PETSC(GridSimCreate(PETSC_COMM_WORLD, "taylor_green", NULL, "-taylor_green_n 16", &g));
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimSolverStep(g.solver, 1.0, NULL); /* |u| = 1, h = 1/16: CFL 16 > 2 */
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0 && strstr(cap.msg, "CFL number") && strstr(cap.msg, "-sf_ghost"),
                "a too large step must be refused: '%s'", cap.msg);
  CHECK_PETSC(GridSimDestroy(&g));

  AdvectionProblem(2, 8, &p);
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = GridSimCreate(PETSC_COMM_WORLD, NULL, &p, "-sf_ghost 1", &g);
  ck_assert_msg(ierr != 0, "-sf_ghost 1 must fail");
  CHECK_PETSC(GridSimDestroy(&g)); /* what was made before the error */
  ierr = GridSimCreate(PETSC_COMM_WORLD, NULL, &p, "-sf_advection maccormack", &g);
  ck_assert_msg(ierr != 0, "an unknown -sf_advection must fail");
  CHECK_PETSC(GridSimDestroy(&g));
  CHECK_PETSC(PetscPopErrorHandler());

  /* method data the solver does not know: refused, naming it and what the solver knows */
  {
    const PetscReal one = 1;
    SimGridProblem q = p;
    CHECK_PETSC(SimGridProblemAddScalar(&q, "dye", NULL, NULL));
    CHECK_PETSC(TestRegistryCreate(&reg));
    cap.msg[0] = 0;
    CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
    ierr = SolverOnDescription(reg, &q, &bad);
    CHECK_PETSC(PetscPopErrorHandler());
    ck_assert_msg(ierr != 0 && strstr(cap.msg, "scalar field 'dye'") && strstr(cap.msg, "density, temperature"),
                  "an unknown scalar field: '%s'", cap.msg);
    q = p;
    CHECK_PETSC(SimGridProblemSetParameter(&q, "vorticity", 1, &one));
    CHECK_PETSC(SimGridProblemSetParameter(&q, "swirl", 1, &one));
    cap.msg[0] = 0;
    CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
    ierr = SolverOnDescription(reg, &q, &bad);
    CHECK_PETSC(PetscPopErrorHandler());
    ck_assert_msg(ierr != 0 && strstr(cap.msg, "parameter 'swirl'") && strstr(cap.msg, "buoyancy, vorticity"),
                  "an unknown parameter: '%s'", cap.msg);
    q = p;
    CHECK_PETSC(SimGridProblemSetParameter(&q, "buoyancy", 1, &one)); /* two values expected */
    cap.msg[0] = 0;
    CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
    ierr = SolverOnDescription(reg, &q, &bad);
    CHECK_PETSC(PetscPopErrorHandler());
    ck_assert_msg(ierr != 0 && strstr(cap.msg, "'buoyancy' has 1 value"), "a parameter of the wrong size: '%s'", cap.msg);
    CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SimGridProblemAddScalar(&q, "density", NULL, NULL);
    ierr = ierr ? ierr : SimGridProblemAddScalar(&q, "density", NULL, NULL);
    CHECK_PETSC(PetscPopErrorHandler());
    ck_assert_msg(ierr != 0, "a scalar field added twice must fail");
    CHECK_PETSC(SimRegistryDestroy(&reg));
  }

  CHECK_PETSC(TestSimCreate("oscillator", NULL, NULL, &t));
  cap.msg[0] = 0;
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimSolverCreate(t.reg, "stablefluids", t.problem, &bad);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0 && strstr(cap.msg, "Solvers for it: explicit_euler"), "stablefluids on a model: '%s'", cap.msg);
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestRegistryCreate(&reg));
  CHECK_PETSC(SimGridProblemCreateFromDescription(reg, PETSC_COMM_WORLD, &p, "test", &gp));
  cap.msg[0] = 0;
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = SimSolverCreate(reg, "implicit_euler", gp, &bad);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0 && strstr(cap.msg, "Solvers for it: stablefluids"), "implicit_euler on a grid: '%s'", cap.msg);
  CHECK_PETSC(SimProblemDestroy(&gp));
  CHECK_PETSC(SimRegistryDestroy(&reg));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("stablefluids");
  TCase *tc = tcase_create("stablefluids");
  PetscMPIInt size = 1;

  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, constant_field_exact);
  tcase_add_test(tc, kernels_match_reference);
  tcase_add_test(tc, backtrace_order);
  tcase_add_test(tc, bdf2_scalar_foot_order);
  tcase_add_test(tc, divergence_after_step);
  tcase_add_test(tc, bytes_model_hand_count);
  tcase_add_test(tc, parallel_matches_serial);
  tcase_add_test(tc, every_grid_solver_on_every_grid_scene);
  tcase_add_test(tc, bad_inputs);
  suite_add_tcase(s, tc);
  /* The refinement studies test the discretization, which does not depend on the decomposition
   * (parallel_matches_serial checks that): they run on one rank only, to keep the 2-rank ctest short. */
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size == 1) {
    TCase *conv = tcase_create("convergence");
    tcase_set_timeout(conv, 300);
    tcase_add_test(conv, smooth_advection_order);
    tcase_add_test(conv, taylor_green_decay);
    tcase_add_test(conv, taylor_green_time_order);
    tcase_add_test(conv, lid_cavity_ghia);
    suite_add_tcase(s, conv);
  }
  return s;
}
