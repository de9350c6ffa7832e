# Runs `EXE ARGS -o DIR` (DIR emptied first), which must succeed, then `CHECKER CHECK...` on what it
# wrote (tools/numcheck.c), which must succeed too; both outputs are shown.
file(REMOVE_RECURSE ${DIR})
execute_process(COMMAND ${EXE} ${ARGS} -o ${DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} ${ARGS}: exit status ${rc}. Output:\n${out}${err}")
endif()
execute_process(COMMAND ${CHECKER} ${CHECK} RESULT_VARIABLE rc OUTPUT_VARIABLE cout ERROR_VARIABLE cerr)
message("${cout}${cerr}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the numbers of the run do not check out (${CHECKER} ${CHECK})")
endif()
