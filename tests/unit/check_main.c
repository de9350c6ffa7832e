/* Shared main for the Check test binaries: PETSc is initialized once around the suite. */
#include <check.h>
#include <petscsys.h>
#include "testing.h"

int main(int argc, char **argv)
{
  int failed;
  SRunner *sr;

  if (PetscInitialize(&argc, &argv, NULL, NULL)) return 1;
  sr = srunner_create(test_suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  if (PetscFinalize()) return 1;
  return failed ? 1 : 0;
}
