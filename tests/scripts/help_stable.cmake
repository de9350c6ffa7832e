# `pbsim run -scene S -help` must print the same text on every run: a default printed from
# uninitialized memory changes with what the stack and heap held before (the -cloth_pin_vertices
# default did). Each scene's help four times, with different environment sizes and malloc
# perturbations, must be identical.
cmake_policy(SET CMP0007 NEW)
foreach(scene ${SCENES})
  set(first "")
  foreach(k 0 1 2 3)
    math(EXPR len "1 + 1500 * ${k}")
    math(EXPR perturb "1 + 60 * ${k}")
    string(REPEAT "x" ${len} pad)
    execute_process(COMMAND ${CMAKE_COMMAND} -E env PBSIM_HELP_PAD=${pad} MALLOC_PERTURB_=${perturb} ${EXE} run -scene ${scene} -help
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "pbsim run -scene ${scene} -help failed (${rc}):\n${err}")
    endif()
    foreach(c ";" "[" "]") # characters that split or join CMake list elements
      string(REPLACE "${c}" "," out "${out}")
    endforeach()
    string(REPLACE "\n" ";" lines "${out}")
    if(k EQUAL 0)
      set(first "${lines}")
    elseif(NOT lines STREQUAL first)
      foreach(line ${lines})
        list(FIND first "${line}" found)
        if(found EQUAL -1)
          message(FATAL_ERROR "scene ${scene}: -help differs between runs, e.g. the line\n${line}")
        endif()
      endforeach()
      message(FATAL_ERROR "scene ${scene}: -help differs between runs")
    endif()
  endforeach()
endforeach()
