/* The Lagrangian model and the Newton solvers on several ranks: a run on PETSC_COMM_WORLD (FEM
 * elements partitioned by PT-Scotch, MPIAIJ Hessian, parallel linear solve) against the same run on
 * PETSC_COMM_SELF (the serial reference, computed by every rank): energy, gradient and Hessian
 * products agree to round-off, trajectories to the Newton tolerance. Run under mpirun -np 2 by
 * mpi.test_mpi_fem_2ranks; on one rank the same tests compare a serial run with itself. */
#include "testing.h"
#include "framework/newton/newton.h"
#include "framework/mesh/mesh.h"
#include "framework/mesh/distribute.h"

static PetscInt Natural(SimModel m, PetscInt g)
{
  return m->natural ? m->natural[g] : g;
}

/* An array of the whole model in its global numbering (3 nglobal, e.g. a gathered Vec) into natural order. */
static void ToNatural(SimModel m, const PetscReal *a, PetscReal *out)
{
  for (PetscInt g = 0; g < m->nglobal; g++)
    for (int d = 0; d < 3; d++) out[3 * Natural(m, g) + d] = a[3 * g + d];
}

/* The model's local array (every vertex when replicated, owned + ghosts when distributed) from a
 * natural-order array of the whole model. */
static void FromNatural(SimModel m, const PetscReal *nat, PetscReal *a)
{
  for (PetscInt i = 0; i < m->nv; i++)
    for (int d = 0; d < 3; d++) a[3 * i + d] = nat[3 * Natural(m, m->global ? m->global[i] : i) + d];
}

static PetscReal MaxAbs(PetscInt n, const PetscReal *a)
{
  PetscReal s = 0;
  for (PetscInt k = 0; k < n; k++) s = PetscMax(s, PetscAbsReal(a[k]));
  return s;
}

static PetscReal MaxDiff(PetscInt n, const PetscReal *a, const PetscReal *b)
{
  PetscReal s = 0;
  for (PetscInt k = 0; k < n; k++) s = PetscMax(s, PetscAbsReal(a[k] - b[k]));
  return s;
}

/* The elastic term's Hessian block count on this rank (16 per tet it holds). */
static PetscErrorCode ElasticBlocks(SimModel m, PetscInt *nb)
{
  SimEnergy term;

  PetscFunctionBeginUser;
  PetscCall(SimModelFindTerm(m, "elastic", &term));
  PetscCheck(term, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no elastic term");
  PetscCall(term->ops.pattern(term, nb, NULL, NULL));
  PetscFunctionReturn(0);
}

/* y = H r with H the model's Hessian at x (natural-order arrays in and out, on every rank). */
static PetscErrorCode HessianProduct(SimModel m, const PetscReal *xnat, const PetscReal *rnat, PetscReal *ynat, char type[64])
{
  const PetscInt n = 3 * m->nv; /* local */
  PetscReal *x, *r, *zero;
  PetscScalar *a;
  const PetscScalar *ya;
  Mat H;
  Vec R, Y, Yall;
  VecScatter toall;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(n, &x, n, &r, n, &zero));
  FromNatural(m, xnat, x);
  FromNatural(m, rnat, r);
  PetscCall(PetscArrayzero(zero, n));
  PetscCall(SimModelHessianCreate(m, &H));
  {
    MatType t;
    PetscCall(MatGetType(H, &t));
    PetscCall(PetscStrncpy(type, t, 64));
  }
  /* assembled twice, with other coefficients first: a re-assembly must replace every value (also those
   * that other ranks send) */
  PetscCall(SimModelHessianAssemble(m, x, x, zero, 1.0, 2.0, 0.0, PETSC_TRUE, H));
  PetscCall(SimModelHessianAssemble(m, x, x, zero, 3.0, 1.0, 0.0, PETSC_FALSE, H));
  PetscCall(MatCreateVecs(H, &R, &Y));
  PetscCall(VecGetArray(R, &a));
  PetscCall(PetscArraycpy(a, r + 3 * SimModelOwnedFirst(m), 3 * (m->vend - m->vstart)));
  PetscCall(VecRestoreArray(R, &a));
  PetscCall(MatMult(H, R, Y));
  PetscCall(VecScatterCreateToAll(Y, &toall, &Yall));
  PetscCall(VecScatterBegin(toall, Y, Yall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toall, Y, Yall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(Yall, &ya));
  ToNatural(m, ya, ynat);
  PetscCall(VecRestoreArrayRead(Yall, &ya));
  PetscCall(VecScatterDestroy(&toall));
  PetscCall(VecDestroy(&Yall));
  PetscCall(VecDestroy(&R));
  PetscCall(VecDestroy(&Y));
  PetscCall(MatDestroy(&H));
  PetscCall(PetscFree3(x, r, zero));
  PetscFunctionReturn(0);
}

/* Energy, gradient and Hessian products of the WORLD model equal the SELF model's at a deformed
 * state (the same on every rank), to 1e-12 relative. */
static PetscErrorCode CompareModel(const char *scene, const char *opts)
{
  TestSim ser, par;
  PetscReal *xnat, *xs, *xp, *gs, *gp, *rnat, *ys, *yp, *v, Es, Ep, dg, dy;
  PetscInt n;
  char ts[64], tp[64];
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestSimCreateOnComm(PETSC_COMM_SELF, scene, NULL, opts, &ser));
  PetscCall(TestSimCreateOnComm(PETSC_COMM_WORLD, scene, NULL, opts, &par));
  n = 3 * ser.model->nv;
  PetscCheck(3 * par.model->nglobal == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "vertex counts differ");
  PetscCall(PetscMalloc5(n, &xnat, n, &xs, n, &xp, n, &gs, n, &gp));
  PetscCall(PetscMalloc4(n, &rnat, n, &ys, n, &yp, n, &v));
  PetscCall(PetscArrayzero(v, n));
  { /* a smooth deformation and a probe vector, deterministic (identical on every rank) */
    const PetscScalar *x0;
    PetscCall(VecGetArrayRead(ser.model->x, &x0));
    for (PetscInt k = 0; k < n; k++) {
      xnat[k] = x0[k] + 0.01 * PetscSinReal(1.7 * k + 0.3);
      rnat[k] = PetscCosReal(0.9 * k);
    }
    PetscCall(VecRestoreArrayRead(ser.model->x, &x0));
  }
  PetscCall(PetscArraycpy(xs, xnat, n));
  FromNatural(par.model, xnat, xp);
  PetscCall(SimModelEnergy(ser.model, SIM_ENERGY_POTENTIAL, xs, v, &Es));
  PetscCall(SimModelEnergy(par.model, SIM_ENERGY_POTENTIAL, xp, v, &Ep));
  PetscCall(SimModelGradient(ser.model, SIM_ENERGY_POTENTIAL, xs, v, gs));
  PetscCall(SimModelGradient(par.model, SIM_ENERGY_POTENTIAL, xp, v, gp));
  PetscCall(SimModelGatherNatural(par.model, gp, xp)); /* xp reused: the parallel gradient in natural order */
  dg = MaxDiff(n, gs, xp) / MaxAbs(n, gs);
  PetscCall(HessianProduct(ser.model, xnat, rnat, ys, ts));
  PetscCall(HessianProduct(par.model, xnat, rnat, yp, tp));
  dy = MaxDiff(n, ys, yp) / MaxAbs(n, ys);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s on %d rank(s): energy %.3e rel, gradient %.3e rel, H r %.3e rel (%s)\n", scene, (int)size,
                        (double)(PetscAbsReal(Es - Ep) / PetscAbsReal(Es)), (double)dg, (double)dy, tp));
  ck_assert_msg(PetscAbsReal(Es - Ep) <= 1e-12 * PetscAbsReal(Es), "%s: energy %.17g (world) vs %.17g (self)", scene, (double)Ep, (double)Es);
  ck_assert_msg(dg <= 1e-12, "%s: gradient differs by %g relative", scene, (double)dg);
  ck_assert_msg(dy <= 1e-12, "%s: Hessian product differs by %g relative", scene, (double)dy);
  if (size > 1) ck_assert_msg(!strcmp(tp, MATMPIAIJ), "%s: the parallel Hessian is %s, not mpiaij", scene, tp);
  PetscCall(PetscFree5(xnat, xs, xp, gs, gp));
  PetscCall(PetscFree4(rnat, ys, yp, v));
  PetscCall(TestSimDestroy(&ser));
  PetscCall(TestSimDestroy(&par));
  PetscFunctionReturn(0);
}

START_TEST(test_model_beam)
{
  CHECK_PETSC(CompareModel("beam", "-beam_n 8 -beam_nw 2"));
}
END_TEST

/* One cell, six tets: ranks own a couple of elements and few vertices each. */
START_TEST(test_model_beam_tiny)
{
  CHECK_PETSC(CompareModel("beam", "-beam_n 1 -beam_nw 1"));
}
END_TEST

/* Springs only (replicated terms): the Hessian rows are still split over the ranks. */
START_TEST(test_model_cloth)
{
  CHECK_PETSC(CompareModel("cloth", "-cloth_n 8"));
}
END_TEST

/* `steps` steps of `solver` on SELF with options opts and on comm with options opts_b; the final
 * positions in natural order agree to rtol of the largest displacement. Checks on several ranks
 * that the partition is real. */
static PetscErrorCode CompareRuns(const char *scene, const char *solver, const char *opts, MPI_Comm comm, const char *opts_b, PetscInt steps,
                                  PetscReal dt, PetscReal rtol)
{
  TestSim ser, par;
  PetscReal *xs, *xp, *x0, disp = 0, diff;
  const PetscScalar *a;
  PetscInt n, nb, nbmin, nbsum, nbser;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(TestSimCreateOnComm(PETSC_COMM_SELF, scene, solver, opts, &ser));
  PetscCall(TestSimCreateOnComm(comm, scene, solver, opts_b, &par));
  n = 3 * ser.model->nv;
  PetscCall(PetscMalloc3(n, &xs, n, &xp, n, &x0));
  PetscCall(VecGetArrayRead(ser.model->x, &a));
  PetscCall(PetscArraycpy(x0, a, n));
  PetscCall(VecRestoreArrayRead(ser.model->x, &a));
  for (PetscInt s = 0; s < steps; s++) {
    SimStepOutcome os, op;
    PetscCall(SimSolverStep(ser.solver, dt, &os));
    PetscCall(SimSolverStep(par.solver, dt, &op));
    PetscCheck(os == SIM_STEP_OK && op == SIM_STEP_OK, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "step %" PetscInt_FMT " did not converge", s);
  }
  PetscCall(VecGetArrayRead(ser.model->x, &a));
  PetscCall(PetscArraycpy(xs, a, n));
  PetscCall(VecRestoreArrayRead(ser.model->x, &a));
  PetscCall(VecGetArrayRead(par.model->x, &a));
  PetscCall(SimModelGatherNatural(par.model, a, xp));
  PetscCall(VecRestoreArrayRead(par.model->x, &a));
  for (PetscInt k = 0; k < n; k++) disp = PetscMax(disp, PetscAbsReal(xs[k] - x0[k]));
  diff = MaxDiff(n, xs, xp);
  PetscCall(ElasticBlocks(par.model, &nb));
  PetscCall(ElasticBlocks(ser.model, &nbser));
  PetscCallMPI(MPI_Allreduce(&nb, &nbmin, 1, MPIU_INT, MPI_MIN, comm));
  PetscCallMPI(MPI_Allreduce(&nb, &nbsum, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(PetscPrintf(comm,
                        "%s/%s [%s] vs [%s], %" PetscInt_FMT " steps on %d rank(s): max displacement %.4e m, difference %.3e m (%.3e "
                        "relative); elastic blocks per rank >= %" PetscInt_FMT " of %" PetscInt_FMT "\n",
                        scene, solver, opts, opts_b, steps, (int)size, (double)disp, (double)diff, (double)(diff / disp), nbmin, nbser));
  ck_assert_msg(disp > 0, "%s/%s: the body did not move", scene, solver);
  ck_assert_msg(diff <= rtol * disp, "%s/%s: the trajectories differ by %g m (max displacement %g m)", scene, solver, (double)diff,
                (double)disp);
  ck_assert_msg(nbsum == nbser, "%s: the ranks hold %" PetscInt_FMT " elastic blocks, the mesh has %" PetscInt_FMT, scene, nbsum, nbser);
  if (size > 1) {
    SimEnergy term;
    PetscCall(SimModelFindTerm(par.model, "elastic", &term));
    ck_assert_msg(term->distributed, "%s: the elastic term is not distributed", scene);
    ck_assert_msg(nbmin > 0 && nbmin < nbser, "%s: a rank holds no elements (%" PetscInt_FMT " of %" PetscInt_FMT ")", scene, nbmin, nbser);
  }
  if (size > 1 && strstr(opts_b, "-fem_distributed_state")) { /* and the state really is */
    PetscInt most;
    PetscCallMPI(MPI_Allreduce(&par.model->nv, &most, 1, MPIU_INT, MPI_MAX, comm));
    PetscCall(PetscPrintf(comm, "  distributed state: at most %" PetscInt_FMT " of %" PetscInt_FMT " vertices stored per rank\n", most,
                          par.model->nglobal));
    ck_assert_msg(par.model->local_state, "%s: the state is not distributed", scene);
    ck_assert_msg(most < par.model->nglobal, "%s: a rank stores every vertex", scene);
  }
  PetscCall(PetscFree3(xs, xp, x0));
  PetscCall(TestSimDestroy(&ser));
  PetscCall(TestSimDestroy(&par));
  PetscFunctionReturn(0);
}

/* The 1-rank and the N-rank trajectories agree to 1e-6 relative (the acceptance criterion). */
static PetscErrorCode CompareTrajectory(const char *scene, const char *solver, const char *opts, PetscInt steps, PetscReal dt)
{
  return CompareRuns(scene, solver, opts, PETSC_COMM_WORLD, opts, steps, dt, 1e-6);
}

START_TEST(test_beam_implicit_euler)
{
  CHECK_PETSC(CompareTrajectory("beam", "implicit_euler", "-beam_n 16 -beam_nw 4", 5, 0.01));
}
END_TEST

START_TEST(test_beam_bdf2)
{
  CHECK_PETSC(CompareTrajectory("beam", "bdf2", "-beam_n 16 -beam_nw 4", 5, 0.01));
}
END_TEST

/* Kinematic pins at both ends and a large rotation; Newton-CG with CG+GAMG (one option away). */
START_TEST(test_twist_gamg)
{
  CHECK_PETSC(CompareTrajectory("twist", "implicit_midpoint", "-twist_n 8 -newton_pc_type gamg -newton_ksp_max_it 500", 4, 0.01));
}
END_TEST

/* An explicit integrator: replicated state, distributed forces. */
START_TEST(test_beam_symplectic)
{
  CHECK_PETSC(CompareTrajectory("beam", "symplectic_euler", "-beam_n 8 -beam_nw 2 -beam_youngs 1e6", 20, 1e-4));
}
END_TEST

/* Serial: Newton with CG + GAMG reaches the same trajectory as with the Cholesky preconditioner.
 * Regression: CG left the pinned entries of the direction at residual level, so the kinematically
 * pinned ends drifted inside the minimization (4e-5 relative here). */
START_TEST(test_twist_gamg_keeps_pins)
{
  CHECK_PETSC(CompareRuns("twist", "implicit_midpoint", "-twist_n 8", PETSC_COMM_SELF, "-twist_n 8 -newton_pc_type gamg", 4, 0.01, 1e-8));
}
END_TEST

/* ---- the distributed state (-fem_distributed_state): each rank stores its owned vertices and a
 * ghost layer (framework/model/halo.c). Run on 2 ranks by mpi.beam_2ranks, on 4 by
 * mpi.fem_distributed_4ranks (this tcase only). ---- */

/* The owner rule of framework/mesh/distribute.c: a vertex belongs to the rank owning most of the cells
 * around it, a tie to the lowest such rank; the owned ranges tile the vertices in rank order. */
static PetscErrorCode OwnerRule(void)
{
  const PetscInt cells[3] = {6, 3, 2};
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {3, 1, 1};
  SimMesh mesh;
  SimMeshPartition part;
  PetscMPIInt size, rank;
  PetscInt *cellrank, *start, *count, ninterface = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(SimMeshCreateBox(cells, lo, hi, &mesh));
  PetscCall(SimMeshPartitionTets(PETSC_COMM_WORLD, mesh.nv, mesh.xyz, mesh.ntet, mesh.tet, &part));
  PetscCall(PetscCalloc3(mesh.ntet, &cellrank, size + 1, &start, size, &count));
  for (PetscInt e = 0; e < part.ncell; e++) cellrank[part.cell[e]] = rank; /* each cell has one rank: a sum gathers them */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cellrank, (PetscMPIInt)mesh.ntet, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allgather(&part.vstart, 1, MPIU_INT, start, 1, MPIU_INT, PETSC_COMM_WORLD));
  start[size] = mesh.nv;
  for (PetscInt i = 0; i < mesh.nv; i++) {
    const PetscInt j = part.renumber ? part.renumber[i] : i;
    PetscInt owner = 0, want = 0, nr = 0;
    while (j >= start[owner + 1]) owner++;
    for (PetscMPIInt r = 0; r < size; r++) count[r] = 0;
    for (PetscInt e = 0; e < mesh.ntet; e++)
      for (int a = 0; a < 4; a++)
        if (mesh.tet[4 * e + a] == i) count[cellrank[e]]++;
    for (PetscMPIInt r = 0; r < size; r++) {
      if (count[r] > count[want]) want = r;
      nr += count[r] > 0;
    }
    ninterface += nr > 1;
    ck_assert_msg(owner == want, "vertex %" PetscInt_FMT ": owned by rank %" PetscInt_FMT ", rank %" PetscInt_FMT " holds most of its cells", i, owner, want);
  }
  if (size > 1) ck_assert_msg(ninterface > 0, "no vertex lies between ranks: the rule was not exercised");
  PetscCall(PetscFree3(cellrank, start, count));
  PetscCall(SimMeshPartitionFree(&part));
  PetscCall(SimMeshFree(&mesh));
  PetscFunctionReturn(0);
}

START_TEST(test_dstate_owner_rule)
{
  CHECK_PETSC(OwnerRule());
}
END_TEST

/* Energy, gradient (one reverse scatter-add instead of the allreduce) and Hessian products. */
START_TEST(test_dstate_model_beam)
{
  CHECK_PETSC(CompareModel("beam", "-beam_n 8 -beam_nw 2 -fem_distributed_state -petscpartitioner_type simple"));
}
END_TEST

/* The gravity and plane terms on owned vertices, the FEM term in local numbers. */
START_TEST(test_dstate_model_drop)
{
  CHECK_PETSC(CompareModel("drop", "-drop_n 4 -drop_height 0 -fem_distributed_state -petscpartitioner_type simple"));
}
END_TEST

/* Acceptance: on the beam each rank stores fewer than 0.7 of the vertices (from the local sizes:
 * the state arrays and the vertex flags have model->nv entries). */
static PetscErrorCode BeamStorage(void)
{
  const char *opts = "-beam_n 16 -beam_nw 4 -fem_distributed_state -petscpartitioner_type simple";
  TestSim par, ser;
  PetscInt nx, nmost, nleast, nsum;
  PetscMPIInt size;
  PetscReal frac;
  PetscLogDouble before, after, serial, bytes[2];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  /* PETSc's allocation count (0 unless PETSc traces its allocations: -malloc_debug, which
   * mpi.fem_distributed_4ranks sets): what building the run (mesh, partition, model, Newton solver
   * and its matrices) leaves allocated, on one rank and then per rank of WORLD */
  PetscCall(PetscMallocGetCurrentUsage(&before));
  PetscCall(TestSimCreateOnComm(PETSC_COMM_SELF, "beam", "implicit_euler", opts, &ser));
  PetscCall(PetscMallocGetCurrentUsage(&after));
  serial = after - before;
  PetscCall(TestSimDestroy(&ser));
  PetscCall(PetscMallocGetCurrentUsage(&before));
  PetscCall(TestSimCreateOnComm(PETSC_COMM_WORLD, "beam", "implicit_euler", opts, &par));
  PetscCall(PetscMallocGetCurrentUsage(&after));
  bytes[0] = after - before, bytes[1] = -(after - before);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, bytes, 2, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "beam 16x4x4 on %d rank(s): %.0f to %.0f bytes of PetscMalloc per rank after set-up (one rank: %.0f, ratio %.3f)\n",
                        (int)size, -bytes[1], bytes[0], serial, serial > 0 ? bytes[0] / serial : 0.0));
  /* the state, the elements, the Hessian rows are split; what stays replicated (the input mesh while
   * partitioning, the natural map, the output topology) is small here */
  if (size > 1 && serial > 0) ck_assert_msg(bytes[0] < 0.8 * serial, "a rank holds %.0f bytes, one rank alone %.0f", bytes[0], serial);
  PetscCall(VecGetLocalSize(par.model->x, &nx));
  ck_assert_int_eq(nx, 3 * par.model->nv);
  PetscCallMPI(MPI_Allreduce(&par.model->nv, &nmost, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(&par.model->nv, &nleast, 1, MPIU_INT, MPI_MIN, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(&par.model->nown, &nsum, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  frac = (PetscReal)nmost / (PetscReal)par.model->nglobal;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "beam 16x4x4 on %d rank(s): %" PetscInt_FMT " vertices, %" PetscInt_FMT " to %" PetscInt_FMT
                        " stored per rank (at most %.3f of them)\n", (int)size, par.model->nglobal, nleast, nmost, (double)frac));
  ck_assert_int_eq(nsum, par.model->nglobal); /* the owned ranges tile the model */
  if (size > 1) ck_assert_msg(frac < 0.7, "a rank stores %.3f of the vertices (want < 0.7)", (double)frac);
  if (size > 1) ck_assert_msg(par.model->local_state, "the state is not distributed");
  PetscCall(TestSimDestroy(&par));
  PetscFunctionReturn(0);
}

START_TEST(test_dstate_beam_storage)
{
  CHECK_PETSC(BeamStorage());
}
END_TEST

/* Acceptance: the twist (kinematic pins at both ends, large rotation) and the drop (gravity, the
 * ground plane) match the 1-rank trajectory to 1e-8 relative with the state distributed. Direct
 * solves (CHOLMOD on one rank, MUMPS on several) and Newton to a tight tolerance, so that the two
 * runs differ only by round-off. */
#define TIGHT " -newton_rtol 1e-12 -newton_atol 1e-13 -petscpartitioner_type simple"
START_TEST(test_dstate_twist)
{
  CHECK_PETSC(CompareRuns("twist", "implicit_midpoint", "-twist_n 8" TIGHT, PETSC_COMM_WORLD, "-twist_n 8 -fem_distributed_state" TIGHT, 4, 0.01, 1e-8));
}
END_TEST

START_TEST(test_dstate_drop)
{
  CHECK_PETSC(CompareRuns("drop", "implicit_euler", "-drop_n 4 -drop_height 0.02" TIGHT, PETSC_COMM_WORLD,
                          "-drop_n 4 -drop_height 0.02 -fem_distributed_state" TIGHT, 8, 0.01, 1e-8));
}
END_TEST

/* An explicit integrator on the distributed state: pointwise updates of consistent local arrays. */
START_TEST(test_dstate_beam_symplectic)
{
  CHECK_PETSC(CompareRuns("beam", "symplectic_euler", "-beam_n 8 -beam_nw 2 -beam_youngs 1e6 -petscpartitioner_type simple", PETSC_COMM_WORLD,
                          "-beam_n 8 -beam_nw 2 -beam_youngs 1e6 -fem_distributed_state -petscpartitioner_type simple", 20, 1e-4, 1e-8));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("mpi_fem");
  TCase *tc = tcase_create("mpi_fem");

  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_model_beam);
  tcase_add_test(tc, test_model_beam_tiny);
  tcase_add_test(tc, test_model_cloth);
  tcase_add_test(tc, test_beam_implicit_euler);
  tcase_add_test(tc, test_beam_bdf2);
  tcase_add_test(tc, test_twist_gamg);
  tcase_add_test(tc, test_beam_symplectic);
  tcase_add_test(tc, test_twist_gamg_keeps_pins);
  suite_add_tcase(s, tc);
  tc = tcase_create("distributed");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_dstate_owner_rule);
  tcase_add_test(tc, test_dstate_model_beam);
  tcase_add_test(tc, test_dstate_model_drop);
  tcase_add_test(tc, test_dstate_beam_storage);
  tcase_add_test(tc, test_dstate_twist);
  tcase_add_test(tc, test_dstate_drop);
  tcase_add_test(tc, test_dstate_beam_symplectic);
  suite_add_tcase(s, tc);
  return s;
}
