# Every pbsim command in README.md and docs/*.md runs (one step; bench suites checked, not run):
# tests/scripts/docs_commands.cmake.
add_test(NAME cli.docs_commands
         COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DSOURCE=${CMAKE_SOURCE_DIR} -DOUT=${PBSIM_TEST_OUT}/docs_commands
                 -DMPIEXEC=${MPIEXEC_EXECUTABLE} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/docs_commands.cmake)
set_tests_properties(cli.docs_commands PROPERTIES TIMEOUT 900
  ENVIRONMENT "OPENBLAS_NUM_THREADS=1;OMPI_MCA_ess_singleton_isolated=1;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
