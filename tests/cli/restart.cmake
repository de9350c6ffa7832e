# Checkpoint and restart reproduce the uninterrupted run bit for bit (tests/scripts/restart_equal.cmake).
# On 2 ranks the mesh runs use block-Jacobi/ICC and the FEM run the simple partitioner: MUMPS's
# parallel factorization and PT-Scotch's partition are not bitwise reproducible from one run to the
# next, restarted or not (docs/guide.md, "Checkpoints").
function(pbsim_restart_test name np)
  cmake_parse_arguments(R "" "STEPS;EVERY" "ARGS" ${ARGN})
  set(mpi "")
  if(np GREATER 1)
    if(NOT MPIEXEC_EXECUTABLE)
      return()
    endif()
    set(mpi -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=${np})
  endif()
  add_test(NAME cli.restart.${name}
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> "-DARGS=${R_ARGS}" -DSTEPS=${R_STEPS} -DEVERY=${R_EVERY}
                   -DDIR=${PBSIM_TEST_OUT}/restart_${name} ${mpi} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/restart_equal.cmake)
  set_tests_properties(cli.restart.${name} PROPERTIES TIMEOUT 300 ENVIRONMENT "OPENBLAS_NUM_THREADS=1;${PBSIM_MPI_ENV}")
endfunction()

pbsim_restart_test(cloth_implicit_euler 1 STEPS 12 EVERY 5 ARGS -scene cloth -cloth_n 12 -solver implicit_euler)
# the default demo's Newton options (configs/cloth.yaml): the sparsified, lagged factorization is restored too
pbsim_restart_test(cloth_implicit_euler_sparsify 1 STEPS 12 EVERY 5
                   ARGS -scene cloth -cloth_n 12 -solver implicit_euler -newton_pc_sparsify -newton_pc_lag_its 10)
pbsim_restart_test(cloth_implicit_euler_2ranks 2 STEPS 12 EVERY 5
                   ARGS -scene cloth -cloth_n 12 -solver implicit_euler -newton_pc_type bjacobi -newton_sub_pc_type icc)
pbsim_restart_test(drop_bdf2 1 STEPS 12 EVERY 5 ARGS -scene drop -solver bdf2)
pbsim_restart_test(drop_bdf2_2ranks 2 STEPS 12 EVERY 5
                   ARGS -scene drop -solver bdf2 -newton_pc_type bjacobi -newton_sub_pc_type icc -petscpartitioner_type simple)
pbsim_restart_test(smoke2d 1 STEPS 10 EVERY 4 ARGS -scene smoke_plume -smoke_plume_n 16)
pbsim_restart_test(smoke2d_2ranks 2 STEPS 10 EVERY 4 ARGS -scene smoke_plume -smoke_plume_n 16)
# the second-order step carries u^{n-1} and dt_prev through the checkpoint
pbsim_restart_test(smoke2d_bdf2 1 STEPS 10 EVERY 4 ARGS -scene smoke_plume -smoke_plume_n 16 -sf_time sl_bdf2 -sf_advection bfecc)
pbsim_restart_test(smoke2d_bdf2_2ranks 2 STEPS 10 EVERY 4 ARGS -scene smoke_plume -smoke_plume_n 16 -sf_time sl_bdf2)
pbsim_restart_test(twist_pd 1 STEPS 8 EVERY 3 ARGS -scene twist -solver pd -twist_material arap)
# the rigid and particle problem types: bodies with contact warm starts and joints; particles that
# migrate between ranks (the checkpoint holds them in rank order, so a restart uses the same ranks)
pbsim_restart_test(rigid_stack 1 STEPS 30 EVERY 11 ARGS -scene stack -stack_n 4)
pbsim_restart_test(rigid_cradle 1 STEPS 30 EVERY 11 ARGS -scene cradle)
pbsim_restart_test(mpm_jelly 1 STEPS 6 EVERY 3 ARGS -scene jelly_blocks -jelly_blocks_n 32 -jelly_blocks_particles 200 -dt 2e-3)
pbsim_restart_test(mpm_jelly_2ranks 2 STEPS 6 EVERY 3 ARGS -scene jelly_blocks -jelly_blocks_n 32 -jelly_blocks_particles 200 -dt 2e-3)
pbsim_restart_test(rigid_chain_hinge 1 STEPS 40 EVERY 15 ARGS -scene chain -chain_n 5 -chain_joint hinge -dt 0.0083333333333333)
# XPBD rigid bodies keep no state between steps: the problem's checkpoint is all of it
pbsim_restart_test(rigid_stack_xpbd 1 STEPS 30 EVERY 11 ARGS -scene stack -stack_n 4 -solver xpbd_rigid -xpbd_rigid_substeps 5)
