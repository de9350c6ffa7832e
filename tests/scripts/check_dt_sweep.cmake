# A dt sweep runs each point at its dt, and per-label options apply (tests/data/bench_dt_sweep.yaml).
# The evidence is the runs' own log line ("dt = ... s, N steps", printed by each run under
# -bench_verbose) and the energy CSV (the time of step 1 is the run's dt; E(0) = k A^2 / 2 shows k).
# Arguments: EXE, SUITE, DIR.
file(REMOVE_RECURSE ${DIR})
execute_process(COMMAND ${EXE} bench ${SUITE} -o ${DIR} -bench_verbose RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pbsim bench exited with ${rc}:\n${out}${err}")
endif()
# each run's own report of its step and step count, in suite order
string(REGEX MATCHALL "dt = [0-9.e-]+ s, [0-9]+ steps" lines "${out}")
set(expected "dt = 0.01 s, 50 steps;dt = 0.05 s, 10 steps;dt = 0.005 s, 10 steps;dt = 0.02 s, 10 steps")
if(NOT lines STREQUAL expected)
  message(FATAL_ERROR "the runs report '${lines}', expected '${expected}'. Output:\n${out}")
endif()
function(expect_row csv regex what)
  file(STRINGS ${DIR}/${csv} rows REGEX "${regex}")
  if(NOT rows)
    message(FATAL_ERROR "${csv}: no row matches '${regex}' (${what})")
  endif()
endfunction()
# label,step,time,kinetic,potential,total,...: step 1 is at t = dt
expect_row(swept.csv "^0.01/verlet,1,1.0000000e-02," "dt 0.01")
expect_row(swept.csv "^0.05/verlet,1,5.0000000e-02," "dt 0.05")
expect_row(per_label.csv "^fine,1,5.0000000e-03," "the label's -dt 0.005")
expect_row(per_label.csv "^coarse,1,2.0000000e-02," "the case's dt 0.02")
# E(0) = k A^2 / 2 with A = 0.1 m: 2 J with the label's k = 400 N/m, 0.5 J with the default 100
expect_row(per_label.csv "^fine,0,0.0000000e\\+00,[^,]+,[^,]+,2.0000000e\\+00," "the label's -oscillator_k 400")
expect_row(per_label.csv "^coarse,0,0.0000000e\\+00,[^,]+,[^,]+,5.0000000e-01," "the default k for the other label")
