# The shallow_water solver and its scenes through `pbsim run` (named to sort after run.cmake,
# mpi.cmake and numbers.cmake, whose helpers it uses); the physics tests are tests/unit/test_swe.c.
pbsim_cli_test(NAME list.shallow_water ARGS list EXPECT "\n  shallow_water [^\n]*\\[MPI\\]  \\[grid\\]")
foreach(name dam_break_swe swe_drop)
  pbsim_cli_test(NAME list.${name} ARGS list EXPECT "\n  ${name} [^\n]*\\[grid; default solver: shallow_water\\]")
endforeach()
# The configs run (a few steps) and write a .vti frame, the .pvd index, the log and a PNG; a run
# without -solver is a shallow_water run.
pbsim_cli_files_test(NAME dam_break_swe_config_outputs DIR ${PBSIM_TEST_OUT}/dam_break_swe
  ARGS run ${PBSIM_CONFIGS}/dam_break_swe.yaml -steps 3 -output_every 3 -strict_options -o ${PBSIM_TEST_OUT}/dam_break_swe
  GLOBS "frame_00003.vti" "dam_break_swe.pvd" "log.csv" "snapshot_00003.png")
add_test(NAME cli.dam_break_swe_csv_columns COMMAND ${CMAKE_COMMAND} -DFILE=${PBSIM_TEST_OUT}/dam_break_swe/log.csv
         "-DEXPECT=kinetic,gravity,potential,total,.*,volume,volume_change,depth_min,depth_max,surface_min,surface_max,max_speed,cfl,h\n"
         -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/file_expect.cmake)
set_tests_properties(cli.dam_break_swe_csv_columns PROPERTIES DEPENDS cli.dam_break_swe_config_outputs)
pbsim_cli_test(NAME swe.drop_config ARGS run ${PBSIM_CONFIGS}/swe_drop.yaml -swe_drop_n 32 -steps 2 -output_every 0 -strict_options
               -o ${PBSIM_TEST_OUT}/swe_drop EXPECT "solver shallow_water.*done: 2 steps")
pbsim_cli_test(NAME swe.dam_break_default_solver ARGS run -scene dam_break_swe -dam_break_swe_n 20 -steps 2 -dt 0.01 -output_every 0
               -strict_options -o ${PBSIM_TEST_OUT}/swe_default EXPECT "solver shallow_water")
# Volume with reflective walls: every row of a 200-step drop's log within 1e-13 of the initial
# volume (relative); the waves reflect off all four walls several times.
pbsim_numbers_test(NAME swe_drop_volume
  ARGS run -scene swe_drop -swe_drop_n 32 -dt 0.01 -steps 200 -output_every 0 -snapshots 0 -strict_options
  CHECK bound LOG volume_change 1e-13)
# A lake at rest over a bottom hill: the speed stays at round-off (well balanced).
pbsim_numbers_test(NAME swe_lake_at_rest
  ARGS run -scene swe_drop -swe_drop_n 32 -swe_drop_height 0 -swe_drop_bump 0.3 -dt 0.01 -steps 100 -output_every 0 -snapshots 0 -strict_options
  CHECK bound LOG max_speed 1e-12)
# Bad input names the option and the valid values.
pbsim_cli_test(NAME bad.swe_flux ARGS run -scene swe_drop -swe_flux roe -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-swe_flux: unknown flux 'roe' \\(valid: hll, rusanov\\)")
pbsim_cli_test(NAME bad.swe_cfl ARGS run -scene swe_drop -swe_cfl 0.9 -o ${PBSIM_TEST_OUT}/bad FAIL EXPECT "-swe_cfl must be in \\(0, 0.5\\]")
pbsim_cli_test(NAME bad.swe_left ARGS run -scene dam_break_swe -dam_break_swe_left -1 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-dam_break_swe_left must be > 0")
pbsim_cli_test(NAME bad.swe_on_lid_cavity ARGS run -scene lid_cavity -solver shallow_water -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "has no scalar field 'depth'")
pbsim_cli_test(NAME bad.stablefluids_on_swe_drop ARGS run -scene swe_drop -solver stablefluids -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "stablefluids does not know the problem's scalar field 'depth'")
pbsim_cli_test(NAME help_lists_swe_options ARGS run -scene swe_drop -help EXPECT "-swe_drop_n.*-swe_order")
# The partial dam break (breach off centre, so that py is not zero by symmetry) on 1 and 2 ranks:
# the last frame and the logs agree to round-off (each cell's
# update reads only its neighbourhood); volume_change, round-off on both (~1e-16), is left out.
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.swe_dam_break
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/mpi_swe_dam_break
                   -DNUMCHECK=$<TARGET_FILE:numcheck> -DRTOL=1e-12 -DEXCEPT=wall_ms,volume_change -DFRAME=frame_00020.vti
                   "-DARGS=run;${PBSIM_CONFIGS}/dam_break_swe.yaml;-dam_break_swe_n;40;-dam_break_swe_ny;40;-dam_break_swe_breach_y;60;-steps;20;-output_every;20;-snapshots;0;-strict_options"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/compare_ranks.cmake)
  set_tests_properties(cli.mpi.swe_dam_break PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV};OPENBLAS_NUM_THREADS=1")
endif()
# The wave tank's box tilted at the start, heaving and pitching on the wave, on 1 and 2 ranks: every
# log column within 1e-10 of its magnitude (observed 1.8e-15) but volume_change and py (round-off).
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.mpi.wave_tank_pitch
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DDIR=${PBSIM_TEST_OUT}/mpi_wave_tank_pitch
                   -DNUMCHECK=$<TARGET_FILE:numcheck> -DRTOL=1e-10 -DEXCEPT=wall_ms,volume_change,py
                   "-DARGS=run;-scene;wave_tank;-wave_tank_n;40;-wave_tank_pitch;0.05;-dt;1e-2;-steps;100;-output_every;0;-snapshots;0;-strict_options"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/compare_ranks.cmake)
  set_tests_properties(cli.mpi.wave_tank_pitch PROPERTIES TIMEOUT 300 ENVIRONMENT "${PBSIM_MPI_ENV};OPENBLAS_NUM_THREADS=1")
endif()
pbsim_cli_test(NAME bad.wave_tank_pitch ARGS run -scene wave_tank -wave_tank_pitch 0.7 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "the floating box's pitch must be below 0.5 rad")
