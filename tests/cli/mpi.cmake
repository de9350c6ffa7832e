# MPI: solvers that run on one rank (pd, ts, linearized_implicit) refuse mpirun -np 2 with a message (DESIGN §5).
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.serial_solver_refuses
           COMMAND ${CMAKE_COMMAND} -DEXE=${MPIEXEC_EXECUTABLE}
                   "-DARGS=-np;2;--oversubscribe;$<TARGET_FILE:pbsim>;run;-scene;oscillator;-solver;pd;-steps;1;-o;${PBSIM_TEST_OUT}/mpi"
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

# Stable fluids on 2 ranks: constant-field advection across the rank boundary, and 20 steps of a
# smoke plume on PETSC_COMM_WORLD compared with the same run on PETSC_COMM_SELF.
if(MPIEXEC_EXECUTABLE AND TARGET test_stablefluids)
  add_test(NAME mpi.test_stablefluids_2ranks COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --oversubscribe $<TARGET_FILE:test_stablefluids>)
  set_tests_properties(mpi.test_stablefluids_2ranks PROPERTIES TIMEOUT 300
                       ENVIRONMENT "CK_FORK=no;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()

# The Lagrangian model and the Newton solvers on 2 ranks: the test compares a run on PETSC_COMM_WORLD
# (PT-Scotch partition, MPIAIJ Hessian, MUMPS / GAMG) with the same run on PETSC_COMM_SELF.
if(MPIEXEC_EXECUTABLE AND TARGET test_mpi_fem)
  add_test(NAME mpi.beam_2ranks COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --oversubscribe $<TARGET_FILE:test_mpi_fem>)
  set_tests_properties(mpi.beam_2ranks PROPERTIES TIMEOUT 300
                       ENVIRONMENT "CK_FORK=no;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()

# `mpirun -np 2 pbsim run -scene beam`: rank 0 writes frames (in the input vertex order), the index,
# the CSV log and the snapshots.
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.beam_outputs
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/mpi_beam -DSTEPS=3
                   "-DARGS=run;-scene;beam;-beam_n;12;-beam_nw;3;-steps;3;-dt;0.01;-strict_options"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_mpi_frames.cmake)
  set_tests_properties(cli.mpi.beam_outputs PROPERTIES TIMEOUT 300
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()

# An error on one rank only (rank 0 cannot create the output directory: the path runs through a
# file) ends the whole job with the message instead of leaving rank 1 waiting in a collective.
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.rank0_error_ends_job
           COMMAND ${CMAKE_COMMAND} -DEXE=${MPIEXEC_EXECUTABLE}
                   "-DARGS=-np;2;--oversubscribe;$<TARGET_FILE:pbsim>;run;-scene;beam;-beam_n;4;-steps;1;-o;${CMAKE_SOURCE_DIR}/CMakeLists.txt/out"
                   "-DEXPECT=Cannot create output directory" -DFAIL=TRUE -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/run_expect.cmake)
  set_tests_properties(cli.mpi.rank0_error_ends_job PROPERTIES TIMEOUT 60
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()

# The matrix-free pressure multigrid on 2 ranks: stencil = assembled operator across the rank
# boundary, the red-black sweep's ghost exchange, iteration counts.
if(MPIEXEC_EXECUTABLE AND TARGET test_pressure_mg)
  add_test(NAME mpi.test_pressure_mg_2ranks COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --oversubscribe $<TARGET_FILE:test_pressure_mg>)
  set_tests_properties(mpi.test_pressure_mg_2ranks PROPERTIES TIMEOUT 300
                       ENVIRONMENT "CK_FORK=no;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()
