/* Linear-algebra kernels of the Newton and PD steps: the BLAS thread count pbsim sets itself. */
#include "testing.h"
#include "framework/linalg/blas_threads.h"

/* pbsim sets the BLAS threads through the library's own call: the count reads back (where the
 * library reports it), and an out-of-range count is refused naming the option. */
START_TEST(blas_threads)
{
  const char *lib;
  PetscInt n;
  PetscErrorCode ierr;

  CHECK_PETSC(SimBLASSetThreads(2, &lib));
  CHECK_PETSC(SimBLASGetThreads(&n));
  if (lib[0]) ck_assert_msg(n == 2 || n == -1, "%s(2): the BLAS reports %d threads", lib, (int)n);
  CHECK_PETSC(SimBLASSetThreads(1, &lib));
  CHECK_PETSC(SimBLASGetThreads(&n));
  if (lib[0]) ck_assert_msg(n == 1 || n == -1, "%s(1): the BLAS reports %d threads", lib, (int)n);
  CHECK_PETSC(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SimBLASSetThreads(0, &lib);
  CHECK_PETSC(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE, "0 BLAS threads must be refused, got %d", (int)ierr);
}
END_TEST

Suite *test_suite(void)
{
  Suite *s = suite_create("linalg");
  TCase *tc = tcase_create("blas");
  tcase_add_test(tc, blas_threads);
  suite_add_tcase(s, tc);
  return s;
}
