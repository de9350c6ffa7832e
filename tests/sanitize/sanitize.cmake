# Sanitizer builds (cmake -DPBSIM_SANITIZE=ON): LeakSanitizer on every test with the committed
# suppressions of the MPI/hwloc start-up leaks (lsan.supp: each entry justified there), so a leak
# report means a leak in pbsim; and a test that a leak planted in a material is reported.
#   cmake -S . -B build-asan -DPBSIM_SANITIZE=ON && cmake --build build-asan -j2 && ctest --test-dir build-asan -j2 -LE "fuzz|valgrind|long"
set(PBSIM_LSAN_OPTIONS "suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan.supp:fast_unwind_on_malloc=0:print_suppressions=0")
# allocator_may_return_null: an allocation that cannot be served returns NULL as malloc does, so the
# bad-input corpus's out-of-memory cases test pbsim's message, not ASan's abort.
set(PBSIM_ASAN_OPTIONS "detect_leaks=1:allocator_may_return_null=1")

# The planted leak: a material whose setup allocates a table its destroy forgets (planted_leak.c).
add_executable(sanitize_planted_leak ${CMAKE_CURRENT_LIST_DIR}/planted_leak.c)
target_link_libraries(sanitize_planted_leak PRIVATE pbsim_all)
add_test(NAME sanitize.planted_leak COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:sanitize_planted_leak> "-DARGS="
         "-DEXPECT=ERROR: LeakSanitizer: detected memory leaks.*Setup_Leaky" -DFAIL=TRUE
         -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/run_expect.cmake)
# ... and the same program with the leak fixed is clean (so the report above is the planted leak's)
add_test(NAME sanitize.no_leak COMMAND sanitize_planted_leak fixed)

# Instrumented code runs 2-5x slower, and more on a busy machine: every test's time limit is
# PBSIM_SANITIZE_TIMEOUT_SCALE (10) times its own, as CK_TIMEOUT_MULTIPLIER does for Check's.
set(PBSIM_SANITIZE_TIMEOUT_SCALE 10 CACHE STRING "factor on every test's TIMEOUT in a sanitizer build")
get_property(pbsim_sanitized_tests DIRECTORY PROPERTY TESTS)
foreach(t ${pbsim_sanitized_tests})
  set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=${PBSIM_ASAN_OPTIONS}" "LSAN_OPTIONS=${PBSIM_LSAN_OPTIONS}"
               "CK_TIMEOUT_MULTIPLIER=${PBSIM_SANITIZE_TIMEOUT_SCALE}")
  get_test_property(${t} TIMEOUT tmo)
  if(NOT tmo)
    set(tmo 1500) # ctest's default
  endif()
  math(EXPR tmo "${tmo} * ${PBSIM_SANITIZE_TIMEOUT_SCALE}")
  set_tests_properties(${t} PROPERTIES TIMEOUT ${tmo})
endforeach()
