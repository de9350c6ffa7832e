# The layers link only downward and a wrong-direction include fails the build (CMakeLists.txt,
# pbsim_layer). Each probe is an object library built on demand with one layer's include path.
function(pbsim_layering_probe name layer expect_fail)
  add_library(layering_${name} OBJECT EXCLUDE_FROM_ALL ${CMAKE_CURRENT_SOURCE_DIR}/layering/${name}.c)
  # the layer's include path only (no link: building the probe must not rebuild the layer)
  target_include_directories(layering_${name} PRIVATE $<TARGET_PROPERTY:pbsim_${layer},INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_options(layering_${name} PRIVATE $<TARGET_PROPERTY:pbsim_${layer},INTERFACE_COMPILE_OPTIONS>)
  if(expect_fail)
    pbsim_cli_test_cmd(NAME layering.${name} FAIL EXPECT "No such file"
                       ARGS ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target layering_${name})
  else()
    pbsim_cli_test_cmd(NAME layering.${name}
                       ARGS ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target layering_${name})
  endif()
  # the probes share the build tree: one at a time
  set_tests_properties(layering.${name} PROPERTIES RESOURCE_LOCK pbsim_build_tree)
endfunction()
pbsim_layering_probe(framework_includes_framework framework FALSE)
pbsim_layering_probe(framework_includes_solver framework TRUE)
pbsim_layering_probe(materials_includes_energies materials TRUE)
