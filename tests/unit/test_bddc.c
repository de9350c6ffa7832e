/* The unassembled (MATIS) Hessian and -newton_pc_type bddc (framework/model/hessian.c): each rank's
 * subdomain matrix holds its own elements' blocks and its share of the per-vertex diagonal. Run on one
 * rank (unit.test_bddc) and on 2 ranks (mpi.test_bddc_2ranks, tests/cli/mpi_bddc.cmake):
 * - the MATIS times a vector equals the assembled (AIJ) Hessian times it on a deformed state, to round-off
 *   (the subdomain assembly is right: every block counted once, the shared diagonal summing to one);
 * - twist and beam with CG + BDDC reach the default's trajectory (CHOLMOD on 1 rank, MUMPS on more) to 1e-8;
 * - the replicated state on several ranks is refused with a message naming the way out. */
#include "testing.h"
#include "framework/model/model.h"

static PetscReal Deform(PetscInt k)
{
  return 0.01 * PetscSinReal(1.7 * k + 0.3);
}

/* H r for H made with use_is on the model's state deformed by Deform (in global DOF numbers, so the same
 * state on any partition), assembled twice (a re-assembly must replace every value); y gets H r in the
 * matrix's row layout. */
static PetscErrorCode Product(SimModel m, PetscBool use_is, PetscBool psd, Vec r, Vec y, char *type, size_t len)
{
  const PetscInt n = 3 * m->nv;
  PetscReal *x, *zero;
  const PetscScalar *x0;
  Mat H;
  MatType t;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n, &x, n, &zero));
  PetscCall(VecGetArrayRead(m->x, &x0));
  for (PetscInt i = 0; i < m->nv; i++) {
    const PetscInt g = m->global ? m->global[i] : i;
    for (int d = 0; d < 3; d++) x[3 * i + d] = x0[3 * i + d] + Deform(3 * g + d);
  }
  PetscCall(VecRestoreArrayRead(m->x, &x0));
  PetscCall(PetscArrayzero(zero, n));
  PetscCall(SimModelHessianSetIS(m, use_is));
  PetscCall(SimModelHessianCreate(m, &H));
  PetscCall(SimModelHessianSetIS(m, PETSC_FALSE));
  PetscCall(MatGetType(H, &t));
  PetscCall(PetscStrncpy(type, t, len));
  PetscCall(SimModelHessianAssemble(m, x, x, zero, 1.0, 2.0, 0.0, (PetscBool)!psd, H));
  PetscCall(SimModelHessianAssemble(m, x, x, zero, 3.0, 1.0, 0.0, psd, H));
  PetscCall(MatMult(H, r, y));
  PetscCall(MatDestroy(&H));
  PetscCall(PetscFree2(x, zero));
  PetscFunctionReturn(0);
}

/* The MATIS and the AIJ Hessian of one model agree on H r to 1e-13 relative (max norm); on several
 * ranks each subdomain is a real part of the mesh (fewer local DOFs than the whole). */
static PetscErrorCode CompareProducts(const char *scene, const char *opts, PetscBool psd)
{
  TestSim t;
  SimModel m;
  Vec r, ya, yi;
  PetscScalar *a;
  PetscReal diff, ref;
  PetscMPIInt size;
  char ta[64], ti[64];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestSimCreateOnComm(PETSC_COMM_WORLD, scene, NULL, opts, &t));
  m = t.model;
  { /* pins live on some ranks only */
    PetscInt np = m->npinned;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &np, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    ck_assert_msg(np > 0, "%s: no pinned vertex (the identity rows are part of the check)", scene);
  }
  PetscCall(VecCreateMPI(m->comm, 3 * (m->vend - m->vstart), 3 * m->nglobal, &r));
  PetscCall(VecGetArray(r, &a));
  for (PetscInt k = 0; k < 3 * (m->vend - m->vstart); k++) a[k] = PetscCosReal(0.9 * (3 * m->vstart + k));
  PetscCall(VecRestoreArray(r, &a));
  PetscCall(VecDuplicate(r, &ya));
  PetscCall(VecDuplicate(r, &yi));
  PetscCall(Product(m, PETSC_FALSE, psd, r, ya, ta, sizeof(ta)));
  PetscCall(Product(m, PETSC_TRUE, psd, r, yi, ti, sizeof(ti)));
  PetscCall(VecNorm(ya, NORM_INFINITY, &ref));
  PetscCall(VecAXPY(yi, -1.0, ya));
  PetscCall(VecNorm(yi, NORM_INFINITY, &diff));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s on %d rank(s), psd %d: |H_is r - H_aij r| = %.3e relative (%s vs %s), %" PetscInt_FMT
                        " of %" PetscInt_FMT " vertices in this rank's subdomain\n",
                        scene, (int)size, (int)psd, (double)(diff / ref), ti, ta, m->nv, m->nglobal));
  ck_assert_msg(!strcmp(ti, MATIS), "%s: the unassembled Hessian is %s, not is", scene, ti);
  ck_assert_msg(strcmp(ta, MATIS), "%s: SimModelHessianSetIS(false) still made a MATIS", scene);
  ck_assert_msg(ref > 0, "%s: H r vanishes", scene);
  ck_assert_msg(diff <= 1e-13 * ref, "%s: the MATIS product differs from the assembled one by %g relative", scene,
                (double)(diff / ref));
  if (size > 1) ck_assert_msg(m->local_state && m->nv < m->nglobal, "%s: a rank's subdomain is the whole mesh", scene);
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&yi));
  PetscCall(TestSimDestroy(&t));
  PetscFunctionReturn(0);
}

START_TEST(test_product_beam)
{
  CHECK_PETSC(CompareProducts("beam", "-beam_n 8 -beam_nw 2 -fem_distributed_state", PETSC_TRUE));
}
END_TEST

/* The twist: kinematic pins at both ends, a 3D partition; the exact (not projected) Hessian too. */
START_TEST(test_product_twist)
{
  CHECK_PETSC(CompareProducts("twist", "-twist_n 8 -fem_distributed_state", PETSC_TRUE));
  CHECK_PETSC(CompareProducts("twist", "-twist_n 8 -fem_distributed_state", PETSC_FALSE));
}
END_TEST

/* `steps` steps with the default linear solver and with CG + BDDC (opts_b added), both on WORLD with the
 * distributed state: the final positions agree to rtol of the largest displacement. */
static PetscErrorCode CompareBDDC(const char *scene, const char *solver, const char *opts, const char *opts_b, PetscInt steps,
                                  PetscReal dt, PetscReal rtol)
{
  TestSim ref, bd;
  char ob[512];
  const PetscScalar *a;
  PetscReal *xa, *xb, *x0, disp = 0, diff = 0;
  PetscInt its = 0, n;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscSNPrintf(ob, sizeof(ob), "%s -newton_pc_type bddc %s", opts, opts_b));
  PetscCall(TestSimCreateOnComm(PETSC_COMM_WORLD, scene, solver, opts, &ref));
  PetscCall(TestSimCreateOnComm(PETSC_COMM_WORLD, scene, solver, ob, &bd));
  ck_assert_msg(!ref.model->hessian_is, "%s: the default Newton made a MATIS Hessian", scene);
  ck_assert_msg(bd.model->hessian_is && bd.model->is_weight, "%s: -newton_pc_type bddc made no MATIS Hessian", scene);
  n = 3 * ref.model->nglobal;
  PetscCall(PetscMalloc3(n, &xa, n, &xb, n, &x0));
  /* the whole model in natural order on every rank (the two runs may partition differently) */
  PetscCall(VecGetArrayRead(ref.model->x, &a));
  PetscCall(SimModelGatherNatural(ref.model, a, x0));
  PetscCall(VecRestoreArrayRead(ref.model->x, &a));
  for (PetscInt s = 0; s < steps; s++) {
    SimStepOutcome o1, o2;
    const SimStepStats *st;
    PetscCall(SimSolverStep(ref.solver, dt, &o1));
    PetscCall(SimSolverStep(bd.solver, dt, &o2));
    PetscCheck(o1 == SIM_STEP_OK && o2 == SIM_STEP_OK, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED,
               "step %" PetscInt_FMT " did not converge", s);
    PetscCall(SimSolverGetStats(bd.solver, &st));
    its += st->linear_its;
  }
  PetscCall(VecGetArrayRead(ref.model->x, &a));
  PetscCall(SimModelGatherNatural(ref.model, a, xa));
  PetscCall(VecRestoreArrayRead(ref.model->x, &a));
  PetscCall(VecGetArrayRead(bd.model->x, &a));
  PetscCall(SimModelGatherNatural(bd.model, a, xb));
  PetscCall(VecRestoreArrayRead(bd.model->x, &a));
  for (PetscInt k = 0; k < n; k++) {
    disp = PetscMax(disp, PetscAbsReal(xa[k] - x0[k]));
    diff = PetscMax(diff, PetscAbsReal(xa[k] - xb[k]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s/%s [%s] default vs bddc on %d rank(s), %" PetscInt_FMT
                        " steps: max displacement %.4e m, difference %.3e (%.3e relative), %" PetscInt_FMT
                        " BDDC-CG iterations\n",
                        scene, solver, opts, (int)size, steps, (double)disp, (double)diff, (double)(diff / disp), its));
  ck_assert_msg(disp > 0, "%s: the body did not move", scene);
  ck_assert_msg(its > 0, "%s: CG + BDDC did no iteration", scene);
  ck_assert_msg(diff <= rtol * disp, "%s: BDDC's trajectory differs from the default's by %g m (max displacement %g m)", scene,
                (double)diff, (double)disp);
  PetscCall(PetscFree3(xa, xb, x0));
  PetscCall(TestSimDestroy(&ref));
  PetscCall(TestSimDestroy(&bd));
  PetscFunctionReturn(0);
}

#define TIGHT " -newton_rtol 1e-12 -newton_atol 1e-13 -fem_distributed_state"
/* The lagged-preconditioner policy (the default: BDDC kept while CG takes <= 25 iterations) and a fresh
 * BDDC every Newton iteration. */
START_TEST(test_twist_bddc)
{
  CHECK_PETSC(CompareBDDC("twist", "implicit_midpoint", "-twist_n 8" TIGHT, "", 4, 0.01, 1e-8));
  CHECK_PETSC(CompareBDDC("twist", "implicit_midpoint", "-twist_n 8" TIGHT, "-newton_pc_lag_its 0", 2, 0.01, 1e-8));
}
END_TEST

START_TEST(test_beam_bddc)
{
  CHECK_PETSC(CompareBDDC("beam", "implicit_euler", "-beam_n 16 -beam_nw 4" TIGHT, "", 4, 0.01, 1e-8));
}
END_TEST

/* On several ranks the replicated state cannot give subdomains: refused, naming the option. */
START_TEST(test_replicated_refused)
{
  PetscMPIInt size;
  TestSim t;
  TestErrorCapture cap = {""};
  PetscErrorCode ierr;

  CHECK_PETSC(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) return; /* one rank: the whole mesh is the one subdomain, nothing to refuse */
  CHECK_PETSC(PetscPushErrorHandler(TestCaptureError, &cap));
  ierr = TestSimCreateOnComm(PETSC_COMM_WORLD, "beam", "implicit_euler",
                             "-beam_n 8 -beam_nw 2 -fem_distributed_state 0 -newton_pc_type bddc", &t);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr != 0, "the replicated state was accepted with -newton_pc_type bddc");
  ck_assert_msg(strstr(cap.msg, "distributed FEM state") && strstr(cap.msg, "-fem_distributed_state 0"), "unclear message: %s",
                cap.msg);
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("bddc");
  TCase *tc = tcase_create("bddc");

  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_product_beam);
  tcase_add_test(tc, test_product_twist);
  tcase_add_test(tc, test_twist_bddc);
  tcase_add_test(tc, test_beam_bddc);
  tcase_add_test(tc, test_replicated_refused);
  suite_add_tcase(s, tc);
  return s;
}
