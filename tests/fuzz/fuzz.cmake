# The libFuzzer harnesses (PBSIM_FUZZ=ON, clang): one executable per reader, and a ctest test per
# harness with the label 'fuzz' that runs it for PBSIM_FUZZ_SECONDS from the seeds in
# tests/fuzz/seeds/<reader>. CI skips the label (scripts/setup.sh runs ctest -LE fuzz). A crash is
# written to build/fuzz/<reader>/crash-* (see README.md).
foreach(reader obj msh tetgen config)
  add_executable(fuzz_${reader} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_${reader}.c ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_common.c)
  target_link_libraries(fuzz_${reader} PRIVATE pbsim_framework)
  target_include_directories(fuzz_${reader} PRIVATE ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
  target_link_options(fuzz_${reader} PRIVATE -fsanitize=fuzzer)
  set(dir ${CMAKE_BINARY_DIR}/fuzz/${reader})
  file(MAKE_DIRECTORY ${dir}/corpus)
  add_test(NAME fuzz.${reader}
           COMMAND $<TARGET_FILE:fuzz_${reader}> -max_total_time=${PBSIM_FUZZ_SECONDS} -rss_limit_mb=2048 -timeout=60
                   -print_final_stats=1 -artifact_prefix=${dir}/ ${dir}/corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/seeds/${reader})
  math(EXPR timeout "${PBSIM_FUZZ_SECONDS} + 120")
  set_tests_properties(fuzz.${reader} PROPERTIES LABELS fuzz TIMEOUT ${timeout}
                       ENVIRONMENT "OMPI_MCA_ess_singleton_isolated=1;ASAN_OPTIONS=detect_leaks=1;LSAN_OPTIONS=leak_check_at_exit=0:suppressions=${CMAKE_CURRENT_SOURCE_DIR}/fuzz/lsan.supp")
endforeach()
