/* Solver "ts": the Lagrangian model as the first-order ODE u' = f(u), u = [x; v], handed to PETSc TS
 * so that every PETSc integrator (RK family, BDF, theta, generalized-alpha, adaptive control) runs on it. */
#include <petscts.h>
#include "framework/text.h"
#include "framework/solver_impl.h"
#include "problems/mesh/mesh.h"
#include "solvers/ts/ts_bridge.h"

/* State layout: one sequential Vec u of size 6 nv, positions first (u[0, 3nv)) then velocities
 * (u[3nv, 6nv)), each interleaved xyz per vertex like the model's arrays, so both halves are
 * passed to the model's flat-array API without copies. */
typedef struct {
  TS ts;
  Vec u;              /* [x; v], 6 nv: the TS solution */
  Vec xw, vw, aw;     /* 3 nv Vecs without storage, placed on halves of u or of f */
  Mat J;              /* RHS Jacobian, 6nv x 6nv SEQAIJ; pattern built once from the model Hessian's */
  Mat H;              /* model Hessian (3nv): K = d2E/dx2 and B = d2D/dv2 are assembled into it in turn */
  PetscInt nnz;       /* nonzeros of H */
  PetscInt *ia, *ja;  /* CSR pattern of H (copied at setup; MatSetValuesCOO never changes it) */
  PetscScalar *kvals; /* K's values in H's CSR order, kept while B is assembled into H */
  PetscBool has_dissipation;
  /* Dissipation forces -B(x) v depend on x through B's directions; the energy contract has no
   * d2D/dvdx, so that block is taken by colored finite differences of dD/dv in x. */
  Mat C; /* d(dD/dv)/dx, pattern of H; built on the first Jacobian evaluation */
  MatFDColoring fdc;
  const PetscReal *fd_v;                   /* velocities held fixed while fdc differentiates */
  PetscBool psd;                           /* -tsbridge_psd */
  PetscBool damping_fd;                    /* -tsbridge_damping_fd */
  PetscReal h_next;                        /* the adaptor's proposal after the last solve; 0 before the first */
  PetscInt substeps, rejected;             /* last SimSolverStep */
  PetscInt total_substeps, total_rejected; /* whole run */
  TSConvergedReason last_reason;
} TSBridge;

/* f(u) = [x'; v'] with x' = v and v' = M^-1 (-dE/dx - dD/dv); both are zero on pinned DOFs, so the
 * pinned components of u never change. */
static PetscErrorCode RHSFunction_TS(TS ts, PetscReal t, Vec U, Vec F, void *ctx)
{
  SimSolver solver = (SimSolver)ctx;
  TSBridge *b = (TSBridge *)solver->data;
  SimModel m = SimMeshModel(solver->problem);
  const PetscInt n3 = 3 * m->nv;
  const PetscScalar *u;
  PetscScalar *f;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(solver->ev.force, 0, 0, 0, 0));
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(VecGetArray(F, &f));
  for (PetscInt i = 0; i < m->nv; i++)
    for (int d = 0; d < 3; d++) f[3 * i + d] = m->pinned[i] ? 0.0 : u[n3 + 3 * i + d];
  PetscCall(VecPlaceArray(b->xw, u));
  PetscCall(VecPlaceArray(b->vw, u + n3));
  PetscCall(VecPlaceArray(b->aw, f + n3));
  PetscCall(SimModelAcceleration(m, b->xw, b->vw, b->aw));
  PetscCall(VecResetArray(b->aw));
  PetscCall(VecResetArray(b->vw));
  PetscCall(VecResetArray(b->xw));
  PetscCall(VecRestoreArray(F, &f));
  PetscCall(VecRestoreArrayRead(U, &u));
  PetscCall(PetscLogEventEnd(solver->ev.force, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* G = dD/dv(X, fd_v): the function MatFDColoring differentiates in X (signature fixed by PETSc). */
static PetscErrorCode DampingGradient_TS(void *sctx, Vec X, Vec G, void *ctx)
{
  SimSolver solver = (SimSolver)ctx;
  TSBridge *b = (TSBridge *)solver->data;
  const PetscScalar *x;
  PetscScalar *g;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArray(G, &g));
  PetscCall(SimModelGradient(SimMeshModel(solver->problem), SIM_ENERGY_DISSIPATION, x, b->fd_v, g));
  PetscCall(VecRestoreArray(G, &g));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscFunctionReturn(0);
}

/* Sets up C and its coloring. A dissipation term couples the same vertices in dD/dv as in its
 * v-Hessian, so H's pattern holds d(dD/dv)/dx too. */
static PetscErrorCode DampingColoringCreate_TS(SimSolver solver)
{
  TSBridge *b = (TSBridge *)solver->data;
  SimModel m = SimMeshModel(solver->problem);
  MatColoring mc;
  ISColoring isc;
  const PetscScalar *x;
  PetscReal lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL};
  PetscReal extent = 0;

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(b->H, MAT_DO_NOT_COPY_VALUES, &b->C));
  PetscCall(MatColoringCreate(b->C, &mc));
  PetscCall(MatColoringSetType(mc, MATCOLORINGSL));
  PetscCall(MatColoringSetDistance(mc, 2)); /* columns sharing a row get different colors */
  PetscCall(MatColoringApply(mc, &isc));
  PetscCall(MatColoringDestroy(&mc));
  PetscCall(MatFDColoringCreate(b->C, isc, &b->fdc));
  /* via void (*)(void), the one function type GCC lets every function pointer convert through */
  PetscCall(MatFDColoringSetFunction(b->fdc, (PetscErrorCode(*)(void))(void (*)(void))DampingGradient_TS, solver));
  /* PETSc perturbs x_j by err * max(|x_j|, umin): coordinates near the origin would get a step far
   * below the body's size, so umin is the body's extent (the natural length scale). */
  PetscCall(VecGetArrayRead(m->x, &x));
  for (PetscInt i = 0; i < m->nv; i++)
    for (int d = 0; d < 3; d++) {
      lo[d] = PetscMin(lo[d], x[3 * i + d]);
      hi[d] = PetscMax(hi[d], x[3 * i + d]);
    }
  PetscCall(VecRestoreArrayRead(m->x, &x));
  for (int d = 0; d < 3; d++) extent = PetscMax(extent, hi[d] - lo[d]);
  PetscCall(MatFDColoringSetParameters(b->fdc, PETSC_DEFAULT, extent > 0 ? extent : 1.0));
  PetscCall(MatFDColoringSetUp(b->C, isc, b->fdc));
  PetscCall(ISColoringDestroy(&isc));
  PetscFunctionReturn(0);
}

/* J = df/du = [[0, I], [-M^-1 (K + d(B v)/dx), -M^-1 B]] with K = d2E/dx2 (the true Hessian; PSD
 * projected per element with -tsbridge_psd) and B = d2D/dv2. Rows and columns of pinned DOFs are
 * zero: those components of u are constant, so J only needs to act on the free ones. Values are
 * written straight into J's CSR arrays, whose layout SetUp_TS fixed:
 *   row i < 3nv:  [i (0, kept so TS can shift J in place), 3nv + i (1)]
 *   row 3nv + r:  [H's columns of row r (lower-left), 3nv + H's columns (lower-right)] */
static PetscErrorCode RHSJacobian_TS(TS ts, PetscReal t, Vec U, Mat A, Mat P, void *ctx)
{
  SimSolver solver = (SimSolver)ctx;
  TSBridge *b = (TSBridge *)solver->data;
  SimModel m = SimMeshModel(solver->problem);
  const PetscInt n3 = 3 * m->nv, *ia = b->ia, *ja = b->ja;
  const PetscScalar *u, *h = NULL, *c = NULL, *im;
  PetscScalar *a;
  PetscBool isaij;
  MatInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQAIJ, &isaij));
  PetscCall(MatGetInfo(P, MAT_LOCAL, &info));
  PetscCheck(isaij && (PetscInt)info.nz_used == 2 * n3 + 2 * b->nnz, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "The ts bridge fills its own SEQAIJ Jacobian pattern; do not replace the TS Jacobian matrix");
  PetscCall(PetscLogEventBegin(solver->ev.assemble, 0, 0, 0, 0));
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(SimModelHessianAssemble(m, u, u, u + n3, 0.0, 1.0, 0.0, b->psd, b->H));
  PetscCall(MatSeqAIJGetArrayRead(b->H, &h));
  PetscCall(PetscArraycpy(b->kvals, h, b->nnz));
  PetscCall(MatSeqAIJRestoreArrayRead(b->H, &h));
  h = NULL;
  if (b->has_dissipation && b->damping_fd) {
    if (!b->C) PetscCall(DampingColoringCreate_TS(solver));
    b->fd_v = u + n3;
    PetscCall(VecPlaceArray(b->xw, u));
    PetscCall(MatFDColoringApply(b->C, b->fdc, b->xw, solver));
    PetscCall(VecResetArray(b->xw));
    b->fd_v = NULL;
    PetscCall(MatSeqAIJGetArrayRead(b->C, &c));
  }
  if (b->has_dissipation) {
    PetscCall(SimModelHessianAssemble(m, u, u, u + n3, 0.0, 0.0, 1.0, PETSC_FALSE, b->H));
    PetscCall(MatSeqAIJGetArrayRead(b->H, &h));
  }
  PetscCall(VecGetArrayRead(m->inv_mass, &im));
  PetscCall(MatSeqAIJGetArrayWrite(P, &a));
  for (PetscInt i = 0; i < n3; i++) {
    a[2 * i] = 0.0;
    a[2 * i + 1] = m->pinned[i / 3] ? 0.0 : 1.0;
  }
  for (PetscInt r = 0; r < n3; r++) {
    const PetscInt len = ia[r + 1] - ia[r];
    PetscScalar *lower_left = a + 2 * n3 + 2 * ia[r], *lower_right = lower_left + len;
    for (PetscInt q = 0; q < len; q++) {
      const PetscInt k = ia[r] + q;
      const PetscBool pinned_col = m->pinned[ja[k] / 3];
      /* im[r] is 0 on pinned rows, which zeroes them */
      lower_left[q] = pinned_col ? 0.0 : -im[r] * (b->kvals[k] + (c ? c[k] : 0.0));
      lower_right[q] = (pinned_col || !h) ? 0.0 : -im[r] * h[k];
    }
  }
  PetscCall(MatSeqAIJRestoreArrayWrite(P, &a));
  PetscCall(VecRestoreArrayRead(m->inv_mass, &im));
  if (h) PetscCall(MatSeqAIJRestoreArrayRead(b->H, &h));
  if (c) PetscCall(MatSeqAIJRestoreArrayRead(b->C, &c));
  PetscCall(VecRestoreArrayRead(U, &u));
  if (A != P) { /* a matrix-free operator (-snes_mf_operator) only needs to know u changed */
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscLogEventEnd(solver->ev.assemble, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* An unknown -ts_type is an error that lists the valid names (TSSetFromOptions would only say
 * "Unknown type"); checked before TSSetFromOptions opens its options block. */
static PetscErrorCode CheckType_TS(void)
{
  char type[256], valid[2048] = "";
  const char **names;
  int n;
  PetscBool set;
  PetscErrorCode (*create)(TS) = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ts_type", type, sizeof(type), &set));
  if (!set) PetscFunctionReturn(0);
  PetscCall(PetscFunctionListFind(TSList, type, &create));
  if (create) PetscFunctionReturn(0);
  PetscCall(PetscFunctionListGet(TSList, &names, &n));
  for (int i = 0; i < n; i++) {
    if (!names[i]) continue; /* PETSc 3.18 counts one NULL entry past the end */
    PetscCall(SimStrAppendItem(valid, ", ", names[i], sizeof(valid)));
  }
  PetscCall(PetscFree(names));
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -ts_type '%s'; PETSc TS types: %s", type, valid);
}

static PetscErrorCode SetFromOptions_TS(SimSolver solver, PetscOptionItems *PetscOptionsObject)
{
  TSBridge *b = (TSBridge *)solver->data;
  TSExactFinalTimeOption eft;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, "TS bridge (-solver ts): PETSc TS on u = [x; v]; see the -ts_ options below");
  PetscCall(PetscOptionsBool("-tsbridge_psd",
                             "Project the stiffness Hessian per element to PSD in the RHS Jacobian (then not the exact Jacobian)",
                             "", b->psd, &b->psd, NULL));
  PetscCall(
      PetscOptionsBool("-tsbridge_damping_fd",
                       "Include d(dD/dv)/dx (damping directions moving with x) in the RHS Jacobian by colored finite differences",
                       "", b->damping_fd, &b->damping_fd, NULL));
  PetscOptionsHeadEnd();
  /* the TS, its SNES, KSP and PC read the global options without a prefix, as PETSc documents them */
  PetscCall(CheckType_TS());
  PetscCall(TSSetFromOptions(b->ts));
  PetscCall(TSGetExactFinalTime(b->ts, &eft));
  PetscCheck(eft != TS_EXACTFINALTIME_STEPOVER, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "-ts_exact_final_time stepover: a pbsim step must end exactly at t + dt; use matchstep (default) or interpolate");
  PetscFunctionReturn(0);
}

static PetscErrorCode SetUp_TS(SimSolver solver)
{
  TSBridge *b = (TSBridge *)solver->data;
  SimModel m = SimMeshModel(solver->problem);
  const PetscInt n3 = 3 * m->nv;
  const PetscInt *hia, *hja;
  PetscInt n, *Ji, *Jj;
  PetscBool done;
  PetscMPIInt size;
  PetscScalar *u;
  const PetscScalar *x, *v;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(solver->comm, &size));
  PetscCheck(size == 1, solver->comm, PETSC_ERR_SUP,
             "The ts solver is serial (one sequential state Vec and Jacobian); run it on one MPI rank");
  PetscCheck(m->nv > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The ts solver needs a model with vertices");
  for (PetscInt t = 0; t < m->nterms; t++)
    if (m->term[t]->kind == SIM_ENERGY_DISSIPATION) b->has_dissipation = PETSC_TRUE;

  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 2 * n3, &b->u));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 3, n3, NULL, &b->xw));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 3, n3, NULL, &b->vw));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 3, n3, NULL, &b->aw));

  /* H's pattern (union of every term's blocks plus the diagonal) is the pattern of K, B and C */
  PetscCall(SimModelHessianCreate(m, &b->H));
  PetscCall(MatGetRowIJ(b->H, 0, PETSC_FALSE, PETSC_FALSE, &n, &hia, &hja, &done));
  PetscCheck(done && n == n3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Could not read the model Hessian's CSR pattern");
  b->nnz = hia[n3];
  PetscCall(PetscMalloc3(n3 + 1, &b->ia, b->nnz, &b->ja, b->nnz, &b->kvals));
  PetscCall(PetscArraycpy(b->ia, hia, n3 + 1));
  PetscCall(PetscArraycpy(b->ja, hja, b->nnz));
  PetscCall(MatRestoreRowIJ(b->H, 0, PETSC_FALSE, PETSC_FALSE, &n, &hia, &hja, &done));

  /* J's CSR pattern, in the order RHSJacobian_TS writes values (columns sorted in every row) */
  PetscCall(PetscMalloc2(2 * n3 + 1, &Ji, 2 * n3 + 2 * b->nnz, &Jj));
  Ji[0] = 0;
  for (PetscInt i = 0; i < n3; i++) {
    Jj[2 * i] = i;
    Jj[2 * i + 1] = n3 + i;
    Ji[i + 1] = 2 * (i + 1);
  }
  for (PetscInt r = 0; r < n3; r++) {
    const PetscInt len = b->ia[r + 1] - b->ia[r], off = 2 * n3 + 2 * b->ia[r];
    for (PetscInt q = 0; q < len; q++) {
      Jj[off + q] = b->ja[b->ia[r] + q];
      Jj[off + len + q] = n3 + b->ja[b->ia[r] + q];
    }
    Ji[n3 + r + 1] = 2 * n3 + 2 * b->ia[r + 1];
  }
  PetscCall(MatCreate(PETSC_COMM_SELF, &b->J));
  PetscCall(MatSetSizes(b->J, 2 * n3, 2 * n3, 2 * n3, 2 * n3));
  PetscCall(MatSetType(b->J, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(b->J, Ji, Jj, NULL));
  PetscCall(MatSetOption(b->J, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree2(Ji, Jj));

  PetscCall(VecGetArray(b->u, &u));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArrayRead(m->v, &v));
  PetscCall(PetscArraycpy(u, x, n3));
  PetscCall(PetscArraycpy(u + n3, v, n3));
  PetscCall(VecRestoreArrayRead(m->v, &v));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscCall(VecRestoreArray(b->u, &u));

  {
    /* name the x and v halves for -pc_type fieldsplit (a no-op for any other PC) */
    SNES snes;
    KSP ksp;
    PC pc;
    IS isx, isv;
    PetscCall(TSGetSNES(b->ts, &snes));
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, n3, 0, 1, &isx));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, n3, n3, 1, &isv));
    PetscCall(PCFieldSplitSetIS(pc, "x", isx));
    PetscCall(PCFieldSplitSetIS(pc, "v", isv));
    PetscCall(ISDestroy(&isx));
    PetscCall(ISDestroy(&isv));
  }
  PetscCall(TSSetRHSFunction(b->ts, NULL, RHSFunction_TS, solver));
  PetscCall(TSSetRHSJacobian(b->ts, b->J, b->J, RHSJacobian_TS, solver));
  PetscCall(TSSetSolution(b->ts, b->u));
  PetscCall(TSSetTime(b->ts, solver->time));
  PetscFunctionReturn(0);
}

/* Loads model->x, model->v into u. *changed tells whether they differ from what the last step left
 * there (a restart or a scripted change of state): then multistep history must be dropped. */
static PetscErrorCode LoadState_TS(SimSolver solver, PetscBool *changed)
{
  TSBridge *b = (TSBridge *)solver->data;
  SimModel m = SimMeshModel(solver->problem);
  const PetscInt n3 = 3 * m->nv;
  const PetscScalar *x, *v;
  PetscScalar *u;

  PetscFunctionBeginUser;
  *changed = PETSC_FALSE;
  PetscCall(VecGetArray(b->u, &u));
  PetscCall(VecGetArrayRead(m->x, &x));
  PetscCall(VecGetArrayRead(m->v, &v));
  for (PetscInt k = 0; k < n3; k++) {
    if (u[k] != x[k] || u[n3 + k] != v[k]) *changed = PETSC_TRUE;
    u[k] = x[k];
    u[n3 + k] = v[k];
  }
  PetscCall(VecRestoreArrayRead(m->v, &v));
  PetscCall(VecRestoreArrayRead(m->x, &x));
  PetscCall(VecRestoreArray(b->u, &u));
  PetscFunctionReturn(0);
}

static PetscErrorCode StoreState_TS(SimSolver solver)
{
  TSBridge *b = (TSBridge *)solver->data;
  SimModel m = SimMeshModel(solver->problem);
  const PetscInt n3 = 3 * m->nv;
  const PetscScalar *u;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(b->u, &u));
  PetscCall(VecGetArray(m->x, &x));
  PetscCall(VecGetArray(m->v, &v));
  PetscCall(PetscArraycpy(x, u, n3));
  PetscCall(PetscArraycpy(v, u + n3, n3));
  PetscCall(VecRestoreArray(m->v, &v));
  PetscCall(VecRestoreArray(m->x, &x));
  PetscCall(VecRestoreArrayRead(b->u, &u));
  PetscFunctionReturn(0);
}

/* One pbsim step of size dt = TSSolve from t to t + dt, ending exactly at t + dt
 * (TS_EXACTFINALTIME_MATCHSTEP); an adaptive TS may take several internal steps. */
static PetscErrorCode Step_TS(SimSolver solver, PetscReal dt)
{
  TSBridge *b = (TSBridge *)solver->data;
  const PetscReal t0 = solver->time;
  PetscReal tts, h;
  PetscInt steps0, steps1, its0, its1, lits0, lits1, rej0, rej1;
  PetscBool changed, fixed;
  TSAdapt adapt;
  SNES snes;

  PetscFunctionBeginUser;
  PetscCall(LoadState_TS(solver, &changed));
  PetscCall(TSGetTime(b->ts, &tts));
  /* The TS's own time and state lag the model's after a failed step or an outside change: then
   * drop multistep history. A round-off difference in time is only synchronized. */
  if (changed || PetscAbsReal(tts - t0) > 100 * PETSC_MACHINE_EPSILON * PetscMax(1.0, PetscAbsReal(t0))) {
    PetscCall(PetscInfo(b->ts, "ts solver: restarting the TS at t = %g (its time %g, state %s)\n", (double)t0, (double)tts,
                        changed ? "changed" : "unchanged"));
    PetscCall(TSRestartStep(b->ts));
  }
  if (tts != t0) PetscCall(TSSetTime(b->ts, t0));
  PetscCall(TSSetMaxTime(b->ts, t0 + dt));
  PetscCall(TSSetUp(b->ts)); /* creates the adaptor with the type's default, so it can be queried */
  PetscCall(TSGetAdapt(b->ts, &adapt));
  PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &fixed));
  /* Fixed steps: one TS step of exactly dt. Adaptive: start from the controller's last proposal
   * (restarting at dt every pbsim step would cost a rejected step each time dt is too large). */
  h = (fixed || b->h_next <= 0) ? dt : PetscMin(dt, b->h_next);
  PetscCall(TSSetTimeStep(b->ts, h));

  PetscCall(TSGetStepNumber(b->ts, &steps0));
  PetscCall(TSGetSNESIterations(b->ts, &its0));
  PetscCall(TSGetKSPIterations(b->ts, &lits0));
  PetscCall(TSGetStepRejections(b->ts, &rej0));
  PetscCall(TSSolve(b->ts, b->u)); /* u explicitly: with -ts_exact_final_time interpolate the TS steps its own copy */
  PetscCall(TSGetStepNumber(b->ts, &steps1));
  PetscCall(TSGetSNESIterations(b->ts, &its1));
  PetscCall(TSGetKSPIterations(b->ts, &lits1));
  PetscCall(TSGetStepRejections(b->ts, &rej1));
  PetscCall(TSGetConvergedReason(b->ts, &b->last_reason));
  PetscCall(TSGetTime(b->ts, &tts));
  PetscCall(TSGetTimeStep(b->ts, &b->h_next));
  PetscCall(StoreState_TS(solver));

  b->substeps = steps1 - steps0;
  b->rejected = rej1 - rej0;
  b->total_substeps += b->substeps;
  b->total_rejected += b->rejected;
  solver->stats.substeps = b->substeps;
  solver->stats.rejected = b->rejected;
  solver->stats.nonlinear_its = its1 - its0;
  solver->stats.linear_its = lits1 - lits0;
  solver->stats.linesearch_cuts = 0;
  solver->stats.nhistory = 0;
  solver->stats.residual = 0;
  if (its1 > its0) { /* an implicit type: report its last Newton residual */
    PetscCall(TSGetSNES(b->ts, &snes));
    PetscCall(SNESGetFunctionNorm(snes, &solver->stats.residual));
  }
  if (b->last_reason == TS_CONVERGED_TIME) {
    solver->stats.outcome = SIM_STEP_OK;
  } else {
    /* the state is the last accepted TS step, short of t0 + dt */
    solver->stats.outcome = SIM_STEP_NOT_CONVERGED;
    PetscCall(PetscInfo(b->ts,
                        "ts solver: TSSolve stopped at t = %g instead of %g: %s (try a smaller -dt, -ts_max_snes_failures -1 or "
                        "-ts_adapt_type basic)\n",
                        (double)tts, (double)(t0 + dt), TSConvergedReasons[b->last_reason]));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode View_TS(SimSolver solver, PetscViewer viewer)
{
  TSBridge *b = (TSBridge *)solver->data;
  PetscBool ascii;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii) {
    PetscCall(PetscViewerASCIIPrintf(
        viewer, "TS bridge: u = [x; v] (%" PetscInt_FMT " unknowns), RHS Jacobian with %s stiffness%s\n", 6 * SimMeshModel(solver->problem)->nv,
        b->psd ? "PSD-projected" : "exact",
        b->has_dissipation ? (b->damping_fd ? ", damping x-derivative by colored FD" : ", damping x-derivative omitted") : ""));
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "  internal TS steps: %" PetscInt_FMT " accepted, %" PetscInt_FMT
                                     " rejected (last pbsim step: %" PetscInt_FMT ", %" PetscInt_FMT ")\n",
                                     b->total_substeps, b->total_rejected, b->substeps, b->rejected));
    PetscCall(PetscViewerASCIIPushTab(viewer));
  }
  PetscCall(TSView(b->ts, viewer));
  if (ascii) PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode Destroy_TS(SimSolver solver)
{
  TSBridge *b = (TSBridge *)solver->data;

  PetscFunctionBeginUser;
  if (!b) PetscFunctionReturn(0);
  PetscCall(TSDestroy(&b->ts));
  PetscCall(VecDestroy(&b->u));
  PetscCall(VecDestroy(&b->xw));
  PetscCall(VecDestroy(&b->vw));
  PetscCall(VecDestroy(&b->aw));
  PetscCall(MatDestroy(&b->J));
  PetscCall(MatDestroy(&b->H));
  PetscCall(MatDestroy(&b->C));
  PetscCall(MatFDColoringDestroy(&b->fdc));
  PetscCall(PetscFree3(b->ia, b->ja, b->kvals));
  PetscCall(PetscFree(solver->data));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverTSGetTS(SimSolver solver, TS *ts)
{
  PetscFunctionBeginUser;
  PetscCheck(solver->ops.step == Step_TS, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Solver '%s' is not a ts solver", solver->type);
  PetscCall(SimSolverSetUp(solver));
  *ts = ((TSBridge *)solver->data)->ts;
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverTSGetSubsteps(SimSolver solver, PetscInt *accepted, PetscInt *rejected)
{
  TSBridge *b = (TSBridge *)solver->data;

  PetscFunctionBeginUser;
  PetscCheck(solver->ops.step == Step_TS, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Solver '%s' is not a ts solver", solver->type);
  if (accepted) *accepted = b->substeps;
  if (rejected) *rejected = b->rejected;
  PetscFunctionReturn(0);
}

/* Defaults (each overridable by its PETSc option):
 * - TSRK 5dp (Dormand-Prince 5(4)) with the basic error controller and PETSc's tolerances, so a
 *   step too large for accuracy or stability is subdivided rather than blowing up;
 * - implicit types factor shift I - J with a direct LU (the bridge is serial and J nonsymmetric);
 * - full Newton steps (-snes_linesearch_type basic): PETSc's default backtracking on |F|^2 stalls on
 *   this badly scaled [x; v] residual (16x16 cloth, beuler, dt = 0.01: 7 of 50 steps failed with
 *   19.6 Newton iterations/step; with full steps none failed, 4.7 iterations/step). */
/* Checkpoint: the adaptor's proposed step. On load the TS takes the restored state and time, so the
 * next step continues without a restart: exact for one-step methods (rk, theta, cn, beuler, alpha);
 * a multistep method (bdf) starts its history anew, as after any outside change of the state. */
static PetscErrorCode Save_TS(SimSolver solver, PetscViewer viewer)
{
  TSBridge *b = (TSBridge *)solver->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryWrite(viewer, &b->h_next, 1, PETSC_REAL));
  PetscFunctionReturn(0);
}

static PetscErrorCode Load_TS(SimSolver solver, PetscViewer viewer)
{
  TSBridge *b = (TSBridge *)solver->data;
  PetscBool changed;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerBinaryRead(viewer, &b->h_next, 1, NULL, PETSC_REAL));
  PetscCall(LoadState_TS(solver, &changed));
  PetscCall(TSSetTime(b->ts, solver->time));
  PetscFunctionReturn(0);
}

PetscErrorCode SimSolverCreate_TS(SimSolver solver)
{
  static const SimSolverOps ops = {
      .setfromoptions = SetFromOptions_TS,
      .setup = SetUp_TS,
      .step = Step_TS,
      .view = View_TS,
      .destroy = Destroy_TS,
      .save = Save_TS,
      .load = Load_TS,
  };
  TSBridge *b;
  SNES snes;
  KSP ksp;
  PC pc;
  SNESLineSearch ls;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&b));
  solver->ops = ops;
  solver->data = b;
  b->damping_fd = PETSC_TRUE;
  PetscCall(TSCreate(PETSC_COMM_SELF, &b->ts));
  PetscCall(TSSetProblemType(b->ts, TS_NONLINEAR));
  PetscCall(TSSetType(b->ts, TSRK)); /* its default adaptor is "basic"; other types keep theirs */
  PetscCall(TSRKSetType(b->ts, TSRK5DP));
  PetscCall(TSSetExactFinalTime(b->ts, TS_EXACTFINALTIME_MATCHSTEP));
  /* the TS step counter accumulates over every pbsim step */
  PetscCall(TSSetMaxSteps(b->ts, PETSC_MAX_INT));
  /* a failed step is an outcome (SIM_STEP_NOT_CONVERGED), not an error */
  PetscCall(TSSetErrorIfStepFails(b->ts, PETSC_FALSE));
  PetscCall(TSGetSNES(b->ts, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCLU));
  PetscCall(SNESGetLineSearch(snes, &ls));
  PetscCall(SNESLineSearchSetType(ls, SNESLINESEARCHBASIC));
  PetscFunctionReturn(0);
}
