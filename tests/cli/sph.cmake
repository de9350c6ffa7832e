# The sph solver and the particle-fluid scenes through `pbsim run`, on 1 and 2 ranks (named to sort
# after run.cmake and mpi.cmake, whose helpers it uses).
foreach(name sph pbf)
  pbsim_cli_test(NAME list.${name} ARGS list EXPECT "\n  ${name} [^\n]*\\[particles\\]")
endforeach()
# The particle-fluid scenes name sph as their default solver (the particles type's is mpm): `pbsim
# list` says so, and a run without -solver is an sph run.
foreach(name tank dam_break double_dam_break drop_pool)
  pbsim_cli_test(NAME list.${name} ARGS list EXPECT "\n  ${name} [^\n]*\\[particles; default solver: sph\\]")
endforeach()
pbsim_cli_test(NAME sph.dam_break_default_solver ARGS run -scene dam_break -dam_break_n 6 -steps 2 -dt 2e-3 -output_every 0 -strict_options
               -o ${PBSIM_TEST_OUT}/sph_default EXPECT "solver sph")
pbsim_cli_test(NAME mpm.dam_break_mpm_default_solver ARGS run -scene dam_break_mpm -steps 1 -dt 1e-4 -output_every 0 -strict_options
               -o ${PBSIM_TEST_OUT}/mpm_default EXPECT "solver mpm")
pbsim_cli_files_test(NAME dam_break_config_outputs DIR ${PBSIM_TEST_OUT}/dam_break
  ARGS run ${PBSIM_CONFIGS}/dam_break.yaml -steps 3 -output_every 3 -strict_options -o ${PBSIM_TEST_OUT}/dam_break
  GLOBS "frame_00003.vtu" "dam_break.pvd" "log.csv" "snapshot_00003.png")
add_test(NAME cli.dam_break_csv_columns COMMAND ${CMAKE_COMMAND} -DFILE=${PBSIM_TEST_OUT}/dam_break/log.csv
         "-DEXPECT=kinetic,gravity,potential,total,.*wall_ms,density_error_max,density_error_mean,density_min,max_speed,cfl,neighbors,sound_speed,front,front_z,front_t\n"
         -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/file_expect.cmake)
set_tests_properties(cli.dam_break_csv_columns PROPERTIES DEPENDS cli.dam_break_config_outputs)
# Every particle-fluid scene runs a few steps in 2D and 3D.
foreach(scene tank dam_break double_dam_break drop_pool)
  pbsim_cli_test(NAME sph.${scene}_3d ARGS run -scene ${scene} -solver sph -${scene}_dim 3 -${scene}_n 4 -steps 2 -dt 2e-3 -output_every 0
                 -strict_options -o ${PBSIM_TEST_OUT}/sph_${scene}_3d EXPECT "done: 2 steps")
  pbsim_cli_test(NAME sph.${scene}_2d ARGS run -scene ${scene} -solver sph -${scene}_n 6 -steps 2 -dt 2e-3 -output_every 0
                 -strict_options -o ${PBSIM_TEST_OUT}/sph_${scene}_2d EXPECT "done: 2 steps")
endforeach()
# pbf on every scene, 2D, and the 3D dam break.
foreach(scene tank dam_break double_dam_break drop_pool)
  pbsim_cli_test(NAME pbf.${scene}_2d ARGS run -scene ${scene} -solver pbf -${scene}_n 6 -steps 2 -dt 2e-3 -output_every 0
                 -strict_options -o ${PBSIM_TEST_OUT}/pbf_${scene}_2d EXPECT "done: 2 steps")
endforeach()
pbsim_cli_test(NAME pbf.dam_break_3d ARGS run -scene dam_break -solver pbf -dam_break_dim 3 -dam_break_n 4 -pbf_vorticity 0.1 -steps 2 -dt 2e-3
               -output_every 0 -strict_options -o ${PBSIM_TEST_OUT}/pbf_dam_break_3d EXPECT "done: 2 steps")
pbsim_cli_test(NAME bad.pbf_iterations ARGS run -scene tank -solver pbf -pbf_iterations 0 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-pbf_iterations must be >= 1")
# Bad input names the option and the valid values.
pbsim_cli_test(NAME bad.sph_kernel ARGS run -scene tank -solver sph -sph_kernel gauss -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-sph_kernel: unknown kernel 'gauss' \\(valid: cubic, wendland, poly6, spiky\\)")
pbsim_cli_test(NAME bad.sph_mach ARGS run -scene tank -solver sph -sph_mach 2 -o ${PBSIM_TEST_OUT}/bad FAIL EXPECT "-sph_mach must be in \\(0, 1\\]")
pbsim_cli_test(NAME bad.tank_dim ARGS run -scene tank -solver sph -tank_dim 4 -o ${PBSIM_TEST_OUT}/bad FAIL EXPECT "-tank_dim must be 2 or 3")
pbsim_cli_test(NAME help_lists_sph_options ARGS run -scene dam_break -solver sph -help EXPECT "-dam_break_n.*-sph_kernel")
# PBF's dam break on 1 and 2 ranks, the same way.
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.pbf_dam_break_momentum
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/mpi_pbf_dam_break
                   -DNUMCHECK=$<TARGET_FILE:numcheck> -DRTOL=1e-10 -DEXCEPT=wall_ms,neighbors
                   "-DARGS=run;-scene;dam_break;-solver;pbf;-dam_break_n;10;-dam_break_height;1;-dt;5e-3;-steps;50;-output_every;0;-strict_options"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/compare_ranks.cmake)
  set_tests_properties(cli.mpi.pbf_dam_break_momentum PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV};OPENBLAS_NUM_THREADS=1")
endif()
# A dam break on 1 and 2 ranks (the box splits at x = 0.5 m; the front crosses it by step 50): the
# logs agree within 1e-10 of each column's magnitude, momentum px, py among them (observed: 5e-16).
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.dam_break_momentum
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/mpi_dam_break
                   -DNUMCHECK=$<TARGET_FILE:numcheck> -DRTOL=1e-10 -DEXCEPT=wall_ms,neighbors
                   "-DARGS=run;-scene;dam_break;-solver;sph;-dam_break_n;10;-dam_break_height;1;-dt;5e-3;-steps;50;-output_every;0;-strict_options"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/compare_ranks.cmake)
  set_tests_properties(cli.mpi.dam_break_momentum PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV};OPENBLAS_NUM_THREADS=1")
endif()
# The benchmark mode of benchmarks/particles.yaml: steps that only rebuild the neighbour lists leave
# the particles where they are (the energy of the tank at rest does not change).
pbsim_cli_test(NAME sph.neighbors_only ARGS run -scene tank -tank_dim 3 -tank_n 6 -sph_neighbors_only -steps 2 -dt 1e-3 -output_every 0
               -strict_options -o ${PBSIM_TEST_OUT}/sph_neighbors_only EXPECT "done: 2 steps")
# Mesh obstacles (scenes/obstacle.c): the built-in cylinder in 2D and 3D with both solvers, a
# tetrahedral mesh file's boundary, and the errors for a missing file, an open mesh and a file in 2D.
foreach(solver sph pbf)
  pbsim_cli_test(NAME ${solver}.obstacle_cylinder_2d ARGS run -scene double_dam_break -solver ${solver} -double_dam_break_n 6 -double_dam_break_obstacle cylinder
                 -steps 2 -dt 2e-3 -output_every 0 -strict_options -o ${PBSIM_TEST_OUT}/${solver}_obstacle_2d EXPECT "done: 2 steps")
  pbsim_cli_test(NAME ${solver}.obstacle_cylinder_3d ARGS run -scene drop_pool -solver ${solver} -drop_pool_dim 3 -drop_pool_n 4 -drop_pool_obstacle cylinder
                 -drop_pool_obstacle_center 2,0.5,0.5 -drop_pool_obstacle_size 0.5,0.5,0.8 -steps 2 -dt 2e-3 -output_every 0 -strict_options
                 -o ${PBSIM_TEST_OUT}/${solver}_obstacle_3d EXPECT "done: 2 steps")
endforeach()
pbsim_cli_test(NAME sph.obstacle_mesh_file ARGS run -scene double_dam_break -double_dam_break_dim 3 -double_dam_break_n 4
               -double_dam_break_obstacle ${CMAKE_CURRENT_SOURCE_DIR}/data/cube.msh -steps 2 -dt 2e-3 -output_every 0 -strict_options
               -o ${PBSIM_TEST_OUT}/sph_obstacle_file EXPECT "done: 2 steps")
pbsim_cli_test(NAME bad.obstacle_missing_file ARGS run -scene double_dam_break -double_dam_break_dim 3 -double_dam_break_obstacle no_such_mesh.obj
               -o ${PBSIM_TEST_OUT}/bad FAIL EXPECT "-double_dam_break_obstacle: 'no_such_mesh.obj' is neither a built-in obstacle \\(box, cylinder, none\\) nor a readable mesh file")
pbsim_cli_test(NAME bad.obstacle_open_mesh ARGS run -scene double_dam_break -double_dam_break_dim 3
               -double_dam_break_obstacle ${CMAKE_CURRENT_SOURCE_DIR}/data/open_box.obj -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "is not a closed surface \\(4 edges not shared by exactly two triangles")
pbsim_cli_test(NAME bad.obstacle_file_in_2d ARGS run -scene double_dam_break -double_dam_break_obstacle ${CMAKE_CURRENT_SOURCE_DIR}/data/cube.msh
               -o ${PBSIM_TEST_OUT}/bad FAIL EXPECT "needs a 3D scene")
pbsim_cli_test(NAME bad.obstacle_center ARGS run -scene drop_pool -drop_pool_obstacle box -drop_pool_obstacle_center 1 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-drop_pool_obstacle_center needs 2 values \\(got 1\\)")
# A dam break over a box obstacle on 1 and 2 ranks: the box (a/2 wide, at x = 2a = 0.5 m) straddles
# the ranks' boundary at x = 0.5 m, so its Akinci volumes sum over ghosts, and the front reaches it
# by step 35 and runs over it by step 60: every CSV column, obstacle_inside among them, within 1e-10
# of its magnitude for 60 steps (observed: 1e-15 for both solvers). (The double dam break's fronts
# collide at the rank boundary: that splash amplifies the round-off of the sums' order to 1e-9.)
if(MPIEXEC_EXECUTABLE)
  foreach(solver sph pbf)
    add_test(NAME cli.mpi.${solver}_dam_break_obstacle
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/mpi_${solver}_obstacle
                     -DNUMCHECK=$<TARGET_FILE:numcheck> -DRTOL=1e-10 -DEXCEPT=wall_ms,neighbors
                     "-DARGS=run;-scene;dam_break;-solver;${solver};-dam_break_n;10;-dam_break_obstacle;box;-dam_break_obstacle_center;2,0.25;-dt;5e-3;-steps;60;-output_every;0;-strict_options"
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/compare_ranks.cmake)
    set_tests_properties(cli.mpi.${solver}_dam_break_obstacle PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV};OPENBLAS_NUM_THREADS=1")
  endforeach()
endif()
# configs/double_dam_break.yaml (the cylinder obstacle): a few steps, the obstacle's figure in the log.
pbsim_cli_files_test(NAME double_dam_break_config_outputs DIR ${PBSIM_TEST_OUT}/double_dam_break
  ARGS run ${PBSIM_CONFIGS}/double_dam_break.yaml -double_dam_break_n 6 -steps 3 -output_every 3 -snapshot_every 3 -strict_options
       -o ${PBSIM_TEST_OUT}/double_dam_break
  GLOBS "frame_00003.vtu" "log.csv" "snapshot_00003.png")
add_test(NAME cli.double_dam_break_obstacle_column COMMAND ${CMAKE_COMMAND} -DFILE=${PBSIM_TEST_OUT}/double_dam_break/log.csv
         "-DEXPECT=sound_speed,obstacle_inside\n" -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/file_expect.cmake)
set_tests_properties(cli.double_dam_break_obstacle_column PROPERTIES DEPENDS cli.double_dam_break_config_outputs)
