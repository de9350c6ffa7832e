# The bad-input corpus (tests/cli/bad_input/README.md): every folder is one class of bad input, run
# case by case by scripts/bad_input.cmake on 1 rank and under mpirun on 2.
file(GLOB pbsim_bad_input_classes LIST_DIRECTORIES true ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_input/*)
foreach(dir ${pbsim_bad_input_classes})
  if(NOT IS_DIRECTORY ${dir})
    continue()
  endif()
  get_filename_component(class ${dir} NAME)
  set(nps 1)
  if(MPIEXEC_EXECUTABLE)
    list(APPEND nps 2)
  endif()
  foreach(np ${nps})
    add_test(NAME badinput.${class}.np${np}
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=${np} -DCASES=${dir}
                     -DOUT=${PBSIM_TEST_OUT}/bad_input/${class} -DSOURCE=${CMAKE_SOURCE_DIR}
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/bad_input.cmake)
    # a lone rank starts without a daemon (faster); root may run mpirun in CI and containers
    set_tests_properties(badinput.${class}.np${np} PROPERTIES TIMEOUT 600 LABELS bad_input
      ENVIRONMENT "OMPI_MCA_ess_singleton_isolated=1;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OPENBLAS_NUM_THREADS=1")
  endforeach()
endforeach()
