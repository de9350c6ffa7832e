# Tests under mpirun (PBSIM_MPI_ENV: tests/CMakeLists.txt); CK_FORK=no keeps Check from forking
# inside an MPI job.

# A Check unit-test binary run on 2 ranks (each such test compares a run on PETSC_COMM_WORLD with the
# same run on PETSC_COMM_SELF).
function(pbsim_mpi_unit_test name target)
  if(MPIEXEC_EXECUTABLE AND TARGET ${target})
    add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --oversubscribe $<TARGET_FILE:${target}>)
    set_tests_properties(${name} PROPERTIES TIMEOUT 300 ENVIRONMENT "CK_FORK=no;${PBSIM_MPI_ENV}")
  endif()
endfunction()

# `mpirun -np 2 pbsim ARGS...` fails with a message matching EXPECT.
function(pbsim_mpi_cli_fails name expect)
  if(MPIEXEC_EXECUTABLE)
    set(args -np 2 --oversubscribe $<TARGET_FILE:pbsim> ${ARGN})
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DEXE=${MPIEXEC_EXECUTABLE} "-DARGS=${args}" "-DEXPECT=${expect}" -DFAIL=TRUE
                                  -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/run_expect.cmake)
    set_tests_properties(${name} PROPERTIES TIMEOUT 120 ENVIRONMENT "${PBSIM_MPI_ENV}")
  endif()
endfunction()

# Solvers that run on one rank (pd, ts, linearized_implicit) refuse mpirun -np 2 with a message (DESIGN §5).
pbsim_mpi_cli_fails(cli.mpi.serial_solver_refuses "runs on one MPI rank only"
                    run -scene oscillator -solver pd -steps 1 -o ${PBSIM_TEST_OUT}/mpi)

# A multi-rank run reproduces its numbers bit for bit: PT-Scotch partitions the mesh with one thread
# (-partitioner_threads 1, the default; with its threads the partition changed from run to run, and
# with it every sum across ranks). Newton-CG with Jacobi (MUMPS, the default preconditioner on several
# ranks, schedules its parallel factorization dynamically and is not bit-reproducible).
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.reproducible COMMAND ${CMAKE_COMMAND} -DEXE=${MPIEXEC_EXECUTABLE}
           "-DARGS=-np;2;--oversubscribe;$<TARGET_FILE:pbsim>;run;-scene;beam;-beam_n;20;-beam_nw;4;-solver;implicit_euler;-dt;0.01;-steps;3;-newton_pc_type;jacobi;-output_every;0;-snapshots;0;-o;%OUT%"
           -DOUT=${PBSIM_TEST_OUT}/mpi_reproducible -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/same_twice.cmake)
  set_tests_properties(cli.mpi.reproducible PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV}")
endif()

# The demo's configuration on 2 ranks: its one-rank options are auto (configs/cloth.yaml), so the run
# factors with MUMPS and multiplies with the AIJ Hessian (no symmetric block product, no single-precision
# factor in the KSP view).
if(MPIEXEC_EXECUTABLE)
  set(args -np 2 --oversubscribe $<TARGET_FILE:pbsim> run ${PBSIM_CONFIGS}/cloth.yaml -cloth_n 12 -steps 2 -output_every 0
           -snapshots 0 -strict_options -newton_ksp_view -o ${PBSIM_TEST_OUT}/mpi_cloth_config)
  add_test(NAME cli.mpi.cloth_config COMMAND ${CMAKE_COMMAND} -DEXE=${MPIEXEC_EXECUTABLE} "-DARGS=${args}"
           "-DEXPECT=mumps.*done: 2 steps" "-DREJECT=symmetric product|single-precision" -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/run_expect.cmake)
  set_tests_properties(cli.mpi.cloth_config PROPERTIES TIMEOUT 120 ENVIRONMENT "${PBSIM_MPI_ENV}")
endif()

# The single-precision Cholesky preconditioner is CHOLMOD's factor (one rank): refused on 2 ranks.
pbsim_mpi_cli_fails(cli.mpi.single_precision_pc_refuses "-newton_pc_precision single needs one rank"
                    run -scene cloth -cloth_n 8 -solver implicit_euler -steps 1 -newton_pc_precision single -o ${PBSIM_TEST_OUT}/mpi)

# An error on one rank only (rank 0 cannot create the output directory: the path runs through a
# file) ends the whole job with the message instead of leaving rank 1 waiting in a collective.
pbsim_mpi_cli_fails(cli.mpi.rank0_error_ends_job "Cannot create output directory"
                    run -scene beam -beam_n 4 -steps 1 -o ${CMAKE_SOURCE_DIR}/CMakeLists.txt/out)

# The pressure projection: the parallel projection against a serial one.
pbsim_mpi_unit_test(mpi.test_projection_2ranks test_projection)
# Stable fluids: constant-field advection across the rank boundary, and 20 steps of a smoke plume.
pbsim_mpi_unit_test(mpi.test_stablefluids_2ranks test_stablefluids)
# The Lagrangian model and the Newton solvers (PT-Scotch partition, MPIAIJ Hessian, MUMPS / GAMG).
pbsim_mpi_unit_test(mpi.beam_2ranks test_mpi_fem)
# The distributed FEM state (-fem_distributed_state: owned + ghost vertices per rank) on 4
# oversubscribed ranks: the `distributed` tcase of test_mpi_fem (trajectories of the twist and the
# drop against one rank, storage per rank, energy/gradient/Hessian of the beam and the drop). With
# -malloc_debug PETSc counts its allocations: the test reports the bytes per rank after set-up.
if(MPIEXEC_EXECUTABLE AND TARGET test_mpi_fem)
  add_test(NAME mpi.fem_distributed_4ranks COMMAND ${MPIEXEC_EXECUTABLE} -np 4 --oversubscribe $<TARGET_FILE:test_mpi_fem>)
  set_tests_properties(mpi.fem_distributed_4ranks PROPERTIES TIMEOUT 300 ENVIRONMENT "CK_FORK=no;CK_RUN_CASE=distributed;PETSC_OPTIONS=-malloc_debug;${PBSIM_MPI_ENV}")
endif()
# The matrix-free pressure multigrid: stencil = assembled operator across the rank boundary, the
# red-black sweep's ghost exchange, iteration counts.
pbsim_mpi_unit_test(mpi.test_pressure_mg_2ranks test_pressure_mg)

# `mpirun -np 2 pbsim run -scene beam`: rank 0 writes frames (in the input vertex order), the index,
# the CSV log and the snapshots; the last frame and every CSV number but the solver statistics match
# the serial run within 1e-8 (observed: 1e-12).
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.beam_outputs
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/mpi_beam -DSTEPS=3
                   -DNUMCHECK=$<TARGET_FILE:numcheck> -DRTOL=1e-8
                   "-DARGS=run;-scene;beam;-beam_n;12;-beam_nw;3;-steps;3;-dt;0.01;-strict_options"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_mpi_frames.cmake)
  set_tests_properties(cli.mpi.beam_outputs PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV}")
endif()

# A smoke plume (Stable Fluids, 10 steps) through the CLI on 1 and 2 ranks: the last VTI frame and the
# CSV agree within the pressure solve's tolerance (relative residual 1e-8; the divergence figures and
# the projection's own statistics are left out: they sit at that residual).
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.smoke_last_frame
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/mpi_smoke
                   -DNUMCHECK=$<TARGET_FILE:numcheck> -DRTOL=1e-6 -DFRAME=frame_00010.vti
                   "-DEXCEPT=wall_ms,pressure_ms,pressure_its,div_l2,div_max,residual"
                   "-DARGS=run;-scene;smoke_plume;-smoke_plume_n;16;-steps;10;-dt;0.02;-strict_options"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/compare_ranks.cmake)
  set_tests_properties(cli.mpi.smoke_last_frame PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV};OPENBLAS_NUM_THREADS=1")
endif()

# The particles problem type on 2 ranks: ownership by cell, migration, checkpoint.
pbsim_mpi_unit_test(mpi.test_particles_2ranks test_particles)
# The neighbour search across 2 ranks: own particles + ghosts of width r find the brute-force sets.
pbsim_mpi_unit_test(mpi.test_neighbors_2ranks test_neighbors)
# SPH: the pair forces' antisymmetry across the rank boundary, the tank at rest split over 2 ranks.
pbsim_mpi_unit_test(mpi.test_sph_2ranks test_sph)

# The FEM state is distributed by default on several ranks (cli.mpi.beam_outputs, cli.xdmf.mesh_2ranks,
# cli.restart.drop_bdf2_2ranks run it: rank 0 gathers the owned rows for the .vtu and the PNG, XDMF rows
# go from their owners to the rank writing them, checkpoints hold natural order). The same three with
# the replicated state (-fem_distributed_state 0, what IPC scenes keep) stay covered here.
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.beam_outputs_replicated
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/mpi_beam_rstate -DSTEPS=3
                   -DNUMCHECK=$<TARGET_FILE:numcheck> -DRTOL=1e-8
                   "-DARGS=run;-scene;beam;-beam_n;12;-beam_nw;3;-steps;3;-dt;0.01;-fem_distributed_state;0;-strict_options"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_mpi_frames.cmake)
  set_tests_properties(cli.mpi.beam_outputs_replicated PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV}")
  add_test(NAME cli.mpi.xdmf_mesh_replicated
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/xdmf_mesh_rstate
                   -DXDMFCHECK=$<TARGET_FILE:xdmfcheck> -DSERIES=beam.xmf -DSTEPS=3 -DRTOL0=0 -DRTOL=1e-8 -DATOL=0
                   "-DARGS=run;-scene;beam;-beam_n;12;-beam_nw;3;-steps;3;-dt;0.01;-fem_distributed_state;0;-snapshots;0;-strict_options"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_xdmf.cmake)
  set_tests_properties(cli.mpi.xdmf_mesh_replicated PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV};OPENBLAS_NUM_THREADS=1")
  add_test(NAME cli.mpi.restart_drop_replicated
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim>
                   "-DARGS=-scene;drop;-solver;bdf2;-newton_pc_type;bjacobi;-newton_sub_pc_type;icc;-petscpartitioner_type;simple;-fem_distributed_state;0"
                   -DSTEPS=12 -DEVERY=5 -DDIR=${PBSIM_TEST_OUT}/restart_drop_rstate -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=2
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/restart_equal.cmake)
  set_tests_properties(cli.mpi.restart_drop_replicated PROPERTIES TIMEOUT 300 ENVIRONMENT "OPENBLAS_NUM_THREADS=1;${PBSIM_MPI_ENV}")
endif()
