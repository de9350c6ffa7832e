# End-to-end tests of `pbsim bench` on benchmarks/tiny.yaml (the checks are in scripts/check_bench.cmake):
# outputs exist and parse, a re-run gives identical numbers, bad suites fail with a clear message.
set(PBSIM_TINY_SUITE ${CMAKE_SOURCE_DIR}/benchmarks/tiny.yaml)
foreach(mode check repeat badkey)
  add_test(NAME cli.bench.${mode} COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DSUITE=${PBSIM_TINY_SUITE}
           -DDIR=${PBSIM_TEST_OUT}/bench_${mode} -DMODE=${mode} -DGNUPLOT=${GNUPLOT_EXECUTABLE}
           -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_bench.cmake)
  set_tests_properties(cli.bench.${mode} PROPERTIES TIMEOUT 120)
endforeach()
pbsim_cli_test(NAME bench.missing_suite ARGS bench /nonexistent/suite.yaml FAIL EXPECT "Cannot open suite file '/nonexistent/suite.yaml'")
pbsim_cli_test(NAME bench.no_suite ARGS bench FAIL EXPECT "missing the suite file")
pbsim_cli_test(NAME bench.unknown_case ARGS bench ${PBSIM_TINY_SUITE} -bench_cases nope -o ${PBSIM_TEST_OUT}/bench_bad FAIL
               EXPECT "-bench_cases: suite .*tiny.yaml has no case 'nope'")
pbsim_cli_test(NAME usage.bench ARGS help EXPECT "pbsim bench SUITE.yaml")

# (proposed addition to tests/cli/bench.cmake) The FEM suite's tiny version end to end, twice: outputs
# exist and parse, and every number but the timings is identical between the two runs.
add_test(NAME cli.bench.fem_repeat COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim>
         -DSUITE=${CMAKE_SOURCE_DIR}/benchmarks/fem_tiny.yaml -DDIR=${PBSIM_TEST_OUT}/bench_fem_repeat -DMODE=repeat
         -DGNUPLOT=${GNUPLOT_EXECUTABLE} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_bench.cmake)
set_tests_properties(cli.bench.fem_repeat PROPERTIES TIMEOUT 120)

# The pressure-solve and STREAM metrics on the tiny fluids suite, twice (identical numbers but the
# timings; MGPCG iterations and residuals sane), and the scaling driver on 1 and 2 ranks (the report
# and consistent figures, never timings). tests/scripts/check_fluids_bench.cmake.
add_test(NAME cli.bench.fluids_repeat COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim>
         -DSUITE=${CMAKE_SOURCE_DIR}/benchmarks/fluids_tiny.yaml -DDIR=${PBSIM_TEST_OUT}/bench_fluids -DMODE=fluids
         -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_fluids_bench.cmake)
set_tests_properties(cli.bench.fluids_repeat PROPERTIES TIMEOUT 120 ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
if(MPIEXEC_EXECUTABLE)
  add_test(NAME cli.bench.scaling_tiny COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim>
           -DSUITE=${CMAKE_SOURCE_DIR}/benchmarks/scaling_tiny.yaml -DDIR=${PBSIM_TEST_OUT}/bench_scaling -DMODE=scaling
           -DGNUPLOT=${GNUPLOT_EXECUTABLE} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_fluids_bench.cmake)
  set_tests_properties(cli.bench.scaling_tiny PROPERTIES TIMEOUT 180
                       ENVIRONMENT "OPENBLAS_NUM_THREADS=1;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
pbsim_cli_test(NAME bench.scaling_bad_inner ARGS bench ${PBSIM_TEST_DATA}/bench_bad_scaling.yaml -o ${PBSIM_TEST_OUT}/bench_bad_scaling FAIL
               EXPECT "case 'weak': mode weak needs one inner case per rank count \\(got 1\\)")

# Sweeps of dt and per-label options apply to each run (asserted from the runs' own log lines), an
# option no run reads is an error, and -dt in `options` is refused.
add_test(NAME cli.bench.dt_sweep COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DSUITE=${PBSIM_TEST_DATA}/bench_dt_sweep.yaml
         -DDIR=${PBSIM_TEST_OUT}/bench_dt_sweep -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_dt_sweep.cmake)
pbsim_cli_test(NAME bench.unused_option ARGS bench ${PBSIM_TEST_DATA}/bench_unused_option.yaml -o ${PBSIM_TEST_OUT}/bench_unused FAIL
               EXPECT "case 'typo': no run read the option\\(s\\) -oscillator_kk")
pbsim_cli_test(NAME bench.dt_in_options ARGS bench ${PBSIM_TEST_DATA}/bench_dt_in_options.yaml -o ${PBSIM_TEST_OUT}/bench_dt_opt FAIL
               EXPECT "case 'a': `options` may not set -dt: give the key dt")

# The twist's GSL reference includes its scripted pins: the error falls with dt at the expected
# order (implicit Euler 1, Verlet 2), and one reference serves both integrators.
add_test(NAME cli.bench.twist_reference COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim>
         -DSUITE=${PBSIM_TEST_DATA}/bench_twist.yaml -DDIR=${PBSIM_TEST_OUT}/bench_twist
         "-DCHECKS=twist|implicit_euler|order_x_last|0.85|1.15;twist|verlet|order_x_last|1.8|2.2;twist|verlet|error_x_finest|0|1e-5"
         "-DOUTPUT=ODE reference computed 1 time\\(s\\) for 2 sweep point\\(s\\)"
         -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_bench_values.cmake)

# The damping ratio of implicit Euler on the oscillator is the scheme's |1 + i w h|^-1 per step (and
# its frequency atan(w h) / h), to 1e-6: the phase-and-damping fit on a run, against the analytic value.
add_test(NAME cli.bench.damping COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim>
         -DSUITE=${PBSIM_TEST_DATA}/bench_damping.yaml -DDIR=${PBSIM_TEST_OUT}/bench_damping
         "-DCHECKS=damping|0.01/implicit_euler|damping_per_step|0.995036190210|0.995038190210;damping|0.05/implicit_euler|damping_per_step|0.894426191000|0.894428191000;damping|0.01/implicit_euler|omega|9.966864249116|9.966866249116;damping|0.05/implicit_euler|omega|9.272951180016|9.272953180016;damping|0.05/implicit_euler|omega_ref|9.999999|10.000001"
         -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_bench_values.cmake)
