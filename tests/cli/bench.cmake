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
