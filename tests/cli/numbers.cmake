# End-to-end runs whose log.csv numbers are checked against theory by tests/tools/numcheck.c:
# the oscillator's energies, damping power and momentum against its exact (damped) solution, and a
# free cloth's momentum and energies against free fall.

# pbsim_numbers_test(NAME <n> ARGS <pbsim run args...> CHECK <numcheck args...>): LOG in CHECK is the
# run's log.csv.
function(pbsim_numbers_test)
  cmake_parse_arguments(T "" "NAME" "ARGS;CHECK" ${ARGN})
  set(dir ${PBSIM_TEST_OUT}/numbers_${T_NAME})
  list(TRANSFORM T_CHECK REPLACE "^LOG$" "${dir}/log.csv")
  add_test(NAME cli.numbers.${T_NAME}
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> "-DARGS=${T_ARGS}" -DDIR=${dir} -DCHECKER=$<TARGET_FILE:numcheck>
                   "-DCHECK=${T_CHECK}" -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/run_and_check.cmake)
  set_tests_properties(cli.numbers.${T_NAME} PROPERTIES TIMEOUT 120)
endfunction()

# The damped oscillator (k 100 N/m, m 1 kg, L 1 m, A 0.1 m, c 2 N s/m) by RK4 at dt 1 ms: every row
# within 1e-8 E0 of the exact solution (RK4's error here is ~1e-11).
pbsim_numbers_test(NAME oscillator_damped_rk4
  ARGS run -scene oscillator -oscillator_damping 2 -solver rk4 -dt 0.001 -steps 1000 -output_every 0 -strict_options
  CHECK oscillator LOG 100 1 1 0.1 2 1e-8)
# Undamped, by the implicit midpoint rule (Newton): energy exact, the phase error (w h)^2 w t / 24
# ~ 4e-5 at t = 1 s is what the tolerance allows.
pbsim_numbers_test(NAME oscillator_midpoint
  ARGS run -scene oscillator -solver implicit_midpoint -dt 0.001 -steps 1000 -output_every 0 -newton_rtol 1e-12 -strict_options
  CHECK oscillator LOG 100 1 1 0.1 0 3e-4)
# A free cloth (no pins, no colliders; 1 m x 1 m at 0.5 kg/m^2) released at rest falls as one body:
# its springs stay at rest, and velocity Verlet and the implicit midpoint rule integrate a constant
# acceleration exactly.
foreach(solver verlet implicit_midpoint)
  pbsim_numbers_test(NAME free_fall_${solver}
    ARGS run -scene cloth -cloth_n 5 -cloth_pin none -cloth_density 0.5 -colliders none -solver ${solver} -dt 0.01 -steps 50
         -output_every 0 -strict_options
    CHECK freefall LOG 0.5 9.81 1e-9)
endforeach()
