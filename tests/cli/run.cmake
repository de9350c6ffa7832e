# End-to-end tests of `pbsim list` and `pbsim run`: output files and bad input.

# pbsim_cli_files_test(NAME <n> DIR <dir> ARGS <args...> GLOBS <globs...> [FAIL])
function(pbsim_cli_files_test)
  cmake_parse_arguments(T "FAIL" "NAME;DIR" "ARGS;GLOBS" ${ARGN})
  add_test(NAME cli.${T_NAME} COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> "-DARGS=${T_ARGS}" -DDIR=${T_DIR}
           "-DGLOBS=${T_GLOBS}" -DFAIL=${T_FAIL} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_files.cmake)
  set_tests_properties(cli.${T_NAME} PROPERTIES TIMEOUT 300)
endfunction()

foreach(name explicit_euler symplectic_euler verlet midpoint heun rk4 implicit_euler linearized_implicit bdf2
             implicit_midpoint ts oscillator rope cloth lattice file gravity plane sphere spring)
  pbsim_cli_test(NAME list.${name} ARGS list EXPECT "\n  ${name} ")
endforeach()
pbsim_cli_test(NAME usage ARGS help EXPECT "pbsim run")
pbsim_cli_test(NAME unknown_command ARGS frobnicate FAIL EXPECT "unknown command 'frobnicate'")

# Acceptance 4: the cloth config writes VTK frames, the .pvd index, the CSV log and a PNG.
pbsim_cli_files_test(NAME cloth_config_outputs DIR ${PBSIM_TEST_OUT}/cloth
  ARGS run ${PBSIM_CONFIGS}/cloth.yaml -steps 20 -o ${PBSIM_TEST_OUT}/cloth
  GLOBS "*.vtu" "*.pvd" "log.csv" "*.png")
# Every scene runs a few steps with its default solver.
# -strict_options: an option nobody reads (a typo) fails the run.
foreach(scene oscillator rope lattice)
  pbsim_cli_test(NAME run.${scene} ARGS run -scene ${scene} -steps 5 -strict_options -o ${PBSIM_TEST_OUT}/${scene}
                 EXPECT "done: 5 steps")
endforeach()
pbsim_cli_test(NAME run.cloth ARGS run -scene cloth -cloth_n 8 -steps 5 -strict_options -o ${PBSIM_TEST_OUT}/cloth8
               EXPECT "done: 5 steps")
pbsim_cli_test(NAME bad.misspelled_option ARGS run -scene oscillator -steps 1 -oscilator_k 5 -strict_options
               -o ${PBSIM_TEST_OUT}/bad FAIL EXPECT "were never used.*-oscilator_k")
pbsim_cli_test(NAME warn.misspelled_option ARGS run -scene oscillator -steps 1 -oscilator_k 5 -o ${PBSIM_TEST_OUT}/warn
               EXPECT "warning: option -oscilator_k was never used")
pbsim_cli_test(NAME help_lists_options ARGS run -scene cloth -solver implicit_euler -help
               EXPECT "-cloth_k_struct.*-newton_rtol")

# Bad input: a clear message and a non-zero exit.
# -log is PETSc's event dump (it wrote a file "0.0" into the working directory for "-log 0"): refused.
pbsim_cli_test(NAME bad.petsc_log_option ARGS run -scene oscillator -steps 1 -log 0 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-log is PETSc.s event dump.*-csv_log")
pbsim_cli_test(NAME run.csv_log_off ARGS run -scene oscillator -steps 2 -csv_log 0 -strict_options -o ${PBSIM_TEST_OUT}/nolog
               EXPECT "done: 2 steps")
pbsim_cli_test(NAME bad.unknown_solver ARGS run -solver nope -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "Unknown solver 'nope'. Valid solvers: explicit_euler, ")
pbsim_cli_test(NAME bad.unknown_scene ARGS run -scene nope -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "Unknown scene 'nope'. Valid scenes: oscillator, ")
pbsim_cli_test(NAME bad.zero_dt ARGS run -scene oscillator -dt 0 -o ${PBSIM_TEST_OUT}/bad FAIL EXPECT "-dt must be > 0")
pbsim_cli_test(NAME bad.negative_dt ARGS run -scene oscillator -dt -0.1 -o ${PBSIM_TEST_OUT}/bad FAIL EXPECT "-dt must be > 0")
pbsim_cli_test(NAME bad.negative_mass ARGS run -scene oscillator -oscillator_mass -1 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-oscillator_mass must be > 0")
pbsim_cli_test(NAME bad.negative_density ARGS run -scene cloth -cloth_density -1 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-cloth_density must be > 0")
pbsim_cli_test(NAME bad.negative_stiffness ARGS run -scene cloth -cloth_k_struct -5 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "stiffnesses must be >= 0")
pbsim_cli_test(NAME bad.pin_out_of_range ARGS run -scene cloth -cloth_n 4 -cloth_pin_vertices 99 -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "-cloth_pin_vertices: vertex index 99 is out of range; valid indices are 0 .. 15")
pbsim_cli_test(NAME bad.missing_config ARGS run /nonexistent/scene.yaml FAIL EXPECT "Cannot open config file")
pbsim_cli_test(NAME bad.unknown_pin_layout ARGS run -scene cloth -cloth_pin sideways -o ${PBSIM_TEST_OUT}/bad FAIL
               EXPECT "sideways")
# A blow-up (issue 15): explicit Euler past its stability limit stays finite for a while, but its
# energy grows by ten orders of magnitude; the run stops at that step with one error naming it, the
# last good state (written as last_good.vtu, equal to that step's frame; log.csv ends there) and
# advice that fits the solver (a smaller step, the other solvers; never the solver in use).
function(pbsim_blowup_test name last_good expect)
  set(dir ${PBSIM_TEST_OUT}/${name})
  set(exe $<TARGET_FILE:pbsim>)
  set(args ${ARGN} -output_every 1 -o ${dir})
  set(env "")
  if(name MATCHES "^mpi")
    if(NOT MPIEXEC_EXECUTABLE)
      return()
    endif()
    set(args -np 2 --oversubscribe ${exe} ${args})
    set(exe ${MPIEXEC_EXECUTABLE})
    set(env "${PBSIM_MPI_ENV}")
  endif()
  add_test(NAME cli.bad.blowup_${name} COMMAND ${CMAKE_COMMAND} -DEXE=${exe} "-DARGS=${args}" -DDIR=${dir} -DLAST_GOOD=${last_good}
           "-DEXPECT=${expect}" "-DNOT_EXPECT=(: |, )explicit_euler[,.]" -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_blowup.cmake)
  set_tests_properties(cli.bad.blowup_${name} PROPERTIES TIMEOUT 120 ENVIRONMENT "${env}")
endfunction()
set(blowup_said "made the energy [0-9.e+]+ J, [0-9.e+]+ times its scale at the start \\([0-9.e+-]+ J\\): the run has blown up.*Try a smaller -dt")
pbsim_blowup_test(oscillator 8 "Step 9 \\(t = 4\\.5 s\\) of solver 'explicit_euler' ${blowup_said} \\(now 0\\.5\\).*another solver for this scene.*implicit_euler"
                  run -scene oscillator -solver explicit_euler -dt 0.5 -steps 2000)
pbsim_blowup_test(mpi_cloth 3 "Step 4 \\(t = 0\\.2 s\\) of solver 'explicit_euler' ${blowup_said} \\(now 0\\.05\\)"
                  run -scene cloth -cloth_n 8 -cloth_k_struct 1e5 -solver explicit_euler -dt 0.05 -steps 200)

# The PETSc TS bridge from its config, and an implicit TS type from the command line.
pbsim_cli_test(NAME run.oscillator_ts ARGS run ${PBSIM_CONFIGS}/oscillator_ts.yaml -steps 20 -strict_options -o ${PBSIM_TEST_OUT}/osc_ts
               EXPECT "solver ts.*done: 20 steps")
pbsim_cli_test(NAME run.cloth_ts_bdf ARGS run -scene cloth -cloth_n 6 -solver ts -ts_type bdf -ts_adapt_type none -steps 5 -strict_options
               -o ${PBSIM_TEST_OUT}/cloth_ts EXPECT "done: 5 steps")

# A config's keys are options; the command line overrides them (cloth.yaml says n: 64, steps: 120).
pbsim_cli_test(NAME config_override ARGS run ${PBSIM_CONFIGS}/cloth.yaml -cloth_n 5 -steps 2 -solver symplectic_euler -dt 0.001
               -o ${PBSIM_TEST_OUT}/override EXPECT "cloth \\(25 vertices, 2 pinned\\), solver symplectic_euler, dt = 0.001 s, 2 steps")

# -help prints the same text on every run (no default read from uninitialized memory).
add_test(NAME cli.help_stable COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> "-DSCENES=oscillator;rope;cloth;drop;twist"
         -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/help_stable.cmake)

# -newton_pc_precision single: the demo's first steps converge with the single-precision factor
# (docs/implicit.md); an unknown precision is refused with the choices.
pbsim_cli_test(NAME run.cloth_single_precision_pc ARGS run ${PBSIM_CONFIGS}/cloth.yaml -steps 12 -cloth_n 24 -newton_pc_precision single
               -strict_options -o ${PBSIM_TEST_OUT}/cloth_single EXPECT "done: 12 steps[^\n]*J at the end\n")
# The demo's configuration compares preconditioners with one option: its single-precision factor is
# auto, so -newton_pc_type icc runs with ICC (configs/cloth.yaml; an explicit -newton_pc_precision single
# with ICC is an error, test_implicit).
pbsim_cli_test(NAME run.cloth_config_icc ARGS run ${PBSIM_CONFIGS}/cloth.yaml -cloth_n 16 -steps 3 -output_every 0 -snapshots 0
               -strict_options -newton_pc_type icc -newton_ksp_view -o ${PBSIM_TEST_OUT}/cloth_icc
               EXPECT "type: icc.*done: 3 steps[^\n]*J at the end\n" REJECT "single-precision")
# The demo's configuration through the buckle: on a cloth 1e-4 smaller Newton crawls at step 9 (70
# iterations on this machine's build, where -newton_max_it 50 left it unconverged); configs/cloth.yaml's
# max_it 200 takes every step to its tolerance.
pbsim_cli_test(NAME run.cloth_demo_buckle ARGS run ${PBSIM_CONFIGS}/cloth.yaml -steps 12 -cloth_size 0.9999 -output_every 0
               -snapshots 0 -strict_options -o ${PBSIM_TEST_OUT}/cloth_buckle EXPECT "done: 12 steps[^\n]*J at the end\n")
pbsim_cli_test(NAME bad.pc_precision ARGS run -scene cloth -cloth_n 8 -steps 1 -newton_pc_precision quad -o ${PBSIM_TEST_OUT}/bad
               FAIL EXPECT "quad")
