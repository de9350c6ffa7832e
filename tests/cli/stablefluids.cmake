# Stable fluids through `pbsim run`: configs write frames, PNG and the CSV with the solver's
# figure columns; grid and model scenes/solvers do not mix.
foreach(name stablefluids taylor_green lid_cavity smoke_plume)
  pbsim_cli_test(NAME list.${name} ARGS list EXPECT "\n  ${name} [^\n]*\\[grid\\]")
endforeach()
pbsim_cli_files_test(NAME taylor_green_config_outputs DIR ${PBSIM_TEST_OUT}/tg
  ARGS run ${PBSIM_CONFIGS}/taylor_green.yaml -steps 5 -taylor_green_n 16 -dt 0.03 -output_every 1 -strict_options -o ${PBSIM_TEST_OUT}/tg
  GLOBS "frame_00005.vti" "taylor_green.pvd" "log.csv" "snapshot_00000.png" "snapshot_00005.png")
add_test(NAME cli.taylor_green_csv_columns COMMAND ${CMAKE_COMMAND} -DFILE=${PBSIM_TEST_OUT}/tg/log.csv
         "-DEXPECT=wall_ms,div_l2,div_max,kinetic_energy,pressure_its,pressure_ms,cfl,viscosity_its,velocity_error,kinetic_exact,h\n"
         -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/file_expect.cmake)
set_tests_properties(cli.taylor_green_csv_columns PROPERTIES DEPENDS cli.taylor_green_config_outputs)
foreach(cfg smoke2d smoke3d lid_cavity)
  pbsim_cli_test(NAME run.${cfg} ARGS run ${PBSIM_CONFIGS}/${cfg}.yaml -steps 3 -smoke_plume_n 16 -lid_cavity_n 16 -snapshots 0 -output_every 0
                 -o ${PBSIM_TEST_OUT}/${cfg} EXPECT "solver stablefluids.*done: 3 steps")
endforeach()
pbsim_cli_test(NAME bad.grid_solver_on_model_scene ARGS run -scene cloth -solver stablefluids -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "Solver 'stablefluids' does not fit scene 'cloth'.*Solvers for it: explicit_euler.*Scenes for solver 'stablefluids': taylor_green, lid_cavity, smoke_plume")
pbsim_cli_test(NAME bad.model_solver_on_grid_scene ARGS run -scene taylor_green -solver implicit_euler -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "Solver 'implicit_euler' does not fit scene 'taylor_green'.*Solvers for it: stablefluids")
pbsim_cli_test(NAME bad.sf_cfl ARGS run -scene taylor_green -taylor_green_n 16 -dt 1 -steps 1 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "CFL number 15.9.*Use -dt <= 0.12[0-9]* or a larger -sf_ghost")
pbsim_cli_test(NAME bad.smoke_plume_dim ARGS run -scene smoke_plume -smoke_plume_dim 4 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-smoke_plume_dim must be 2 or 3")
pbsim_cli_test(NAME help_lists_sf_options ARGS run -scene taylor_green -help EXPECT "-taylor_green_re.*-sf_advection")
# A grid scene through the benchmark harness: energy metric from the fluid's kinetic energy, timings.
pbsim_cli_test(NAME bench.grid ARGS bench ${PBSIM_TEST_DATA}/grid_tiny.yaml -o ${PBSIM_TEST_OUT}/bench_grid EXPECT "bench: done in")
pbsim_cli_test(NAME bad.sf_advection ARGS run -scene taylor_green -sf_advection semi -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "Unknown -sf_advection 'semi'. Valid: rk2, rk3, bfecc")
pbsim_cli_test(NAME bad.smoke_plume_coarse_inlet ARGS run -scene smoke_plume -smoke_plume_n 8 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-smoke_plume_radius 0.08 is smaller than a cell")
