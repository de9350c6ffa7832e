/* The IPC stack scene with real meshes (issue 12, acceptance 2): two armadillos
 * (../shared/meshes/armadillo_4k.msh, 3,717 tets each, neo-Hookean) dropped on each other and on the
 * plane, 20 steps of 1/60 s: contacts made, every state admissible (the solver checks every distance
 * > 0, no crossing, no inverted tet after each step). Skipped when the mesh is absent; its own binary
 * so that it has its own time limit. The 200-step run of three is a command (docs/ipc.md). */
#include <unistd.h>
#include "testing.h"
#include "energies/ipc/ipc.h"

#define ARMADILLO PBSIM_SOURCE_DIR "/../shared/meshes/armadillo_4k"

START_TEST(armadillo_stack_lands)
{
  TestSim t;
  SimEnergy ipc;
  SimIPCStats st;
  PetscInt maxcontacts = 0;

  if (access(ARMADILLO ".msh", R_OK) || access(ARMADILLO ".node", R_OK)) {
    fprintf(stderr, "test_ipc_armadillo: skipping (%s.msh not found)\n", ARMADILLO);
    return;
  }
  CHECK_PETSC(TestSimCreate("ipc_stack", "implicit_euler", "-ipc_stack_mesh " ARMADILLO ".msh -ipc_stack_count 2", &t));
  CHECK_PETSC(SimModelFindTerm(t.model, "ipc", &ipc));
  ck_assert(ipc != NULL);
  for (int k = 0; k < 20; k++) {
    SimStepOutcome out;
    const SimStepStats *ss;
    CHECK_PETSC(SimSolverStep(t.solver, 1.0 / 60, &out));
    CHECK_PETSC(SimSolverGetStats(t.solver, &ss));
    ck_assert_msg(out == SIM_STEP_OK || out == SIM_STEP_NOT_CONVERGED, "step %d: outcome %d (%s)", k, (int)out, ss->reason);
    CHECK_PETSC(SimIPCGetStats(ipc, &st));
    ck_assert_msg(st.dmin > 0, "step %d: min distance %g", k, st.dmin);
    maxcontacts = PetscMax(maxcontacts, st.contacts);
  }
  ck_assert_msg(maxcontacts > 0, "no contact in 20 steps");
  CHECK_PETSC(TestSimDestroy(&t));
  CHECK_PETSC(TestSetOptions(NULL));
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("ipc_armadillo");
  TCase *tc = tcase_create("armadillo");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, armadillo_stack_lands);
  suite_add_tcase(s, tc);
  return s;
}
