# MPI: solvers that run on one rank refuse mpirun -np 2 with a message (DESIGN §5).
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.serial_solver_refuses
           COMMAND ${CMAKE_COMMAND} -DEXE=${MPIEXEC_EXECUTABLE}
                   "-DARGS=-np;2;--oversubscribe;$<TARGET_FILE:pbsim>;run;-scene;oscillator;-steps;1;-o;${PBSIM_TEST_OUT}/mpi"
                   "-DEXPECT=runs on one MPI rank only" -DFAIL=TRUE -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/run_expect.cmake)
  set_tests_properties(cli.mpi.serial_solver_refuses PROPERTIES TIMEOUT 120
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()

# The pressure projection on 2 ranks: its test compares the parallel projection with a serial one.
if(MPIEXEC_EXECUTABLE AND TARGET test_projection)
  add_test(NAME mpi.test_projection_2ranks COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --oversubscribe $<TARGET_FILE:test_projection>)
  set_tests_properties(mpi.test_projection_2ranks PROPERTIES TIMEOUT 300
                       ENVIRONMENT "CK_FORK=no;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()

# The matrix-free pressure multigrid on 2 ranks: stencil = assembled operator across the rank
# boundary, the red-black sweep's ghost exchange, iteration counts.
if(MPIEXEC_EXECUTABLE AND TARGET test_pressure_mg)
  add_test(NAME mpi.test_pressure_mg_2ranks COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --oversubscribe $<TARGET_FILE:test_pressure_mg>)
  set_tests_properties(mpi.test_pressure_mg_2ranks PROPERTIES TIMEOUT 300
                       ENVIRONMENT "CK_FORK=no;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()
