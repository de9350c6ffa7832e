# Run-time plugins (framework/plugin.h): a problem type, a solver and a scene defined in one test
# file (tests/plugins/central_force.c) run through `pbsim run`, `pbsim bench` and a restart with no
# framework file knowing them (issue 10, acceptance 1).
pbsim_plugin(plugin_central_force ${CMAKE_CURRENT_SOURCE_DIR}/plugins/central_force.c)
set(PBSIM_PLUGIN_ORBITS $<TARGET_FILE:plugin_central_force>)

add_test(NAME cli.plugin.orbits_run
         COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DPLUGIN=${PBSIM_PLUGIN_ORBITS} -DDIR=${PBSIM_TEST_OUT}/plugin_orbits
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/plugin_run.cmake)
add_test(NAME cli.plugin.orbits_bench
         COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> -DDIR=${PBSIM_TEST_OUT}/plugin_bench
                 "-DARGS=bench;${CMAKE_CURRENT_SOURCE_DIR}/plugins/orbits.yaml;-plugin;${PBSIM_PLUGIN_ORBITS};-o;${PBSIM_TEST_OUT}/plugin_bench"
                 "-DGLOBS=report.md;summary.json;orbit_energy.csv;orbit_time.csv" -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_files.cmake)
add_test(NAME cli.plugin.orbits_restart
         COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:pbsim> "-DARGS=-plugin;${PBSIM_PLUGIN_ORBITS};-scene;orbits;-dt;0.01" -DSTEPS=40 -DEVERY=15
                 -DDIR=${PBSIM_TEST_OUT}/plugin_restart -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/restart_equal.cmake)
pbsim_cli_test(NAME plugin.list ARGS list -plugin ${PBSIM_PLUGIN_ORBITS} EXPECT "orbiters .*default solver: orbit_symplectic")
pbsim_cli_test(NAME plugin.wrong_solver ARGS run -plugin ${PBSIM_PLUGIN_ORBITS} -scene orbits -solver rk4 -steps 1 -o ${PBSIM_TEST_OUT}/plugin_bad
               FAIL EXPECT "builds a orbiters problem and the solver advances mesh. Solvers for it: orbit_symplectic")
pbsim_cli_test(NAME plugin.missing_library ARGS run -plugin /nonexistent/libnothing.so -steps 1 FAIL EXPECT "cannot load '/nonexistent/libnothing.so'")
pbsim_cli_test(NAME plugin.no_register_function ARGS run -plugin libm.so.6 -steps 1 FAIL EXPECT "has no function PbsimPluginRegister")
set_tests_properties(cli.plugin.orbits_run cli.plugin.orbits_bench cli.plugin.orbits_restart PROPERTIES TIMEOUT 300)

# The plugin material (tests/plugins/material_yeoh.c) runs the FEM scenes like a built-in one.
pbsim_cli_test(NAME plugin.material_beam ARGS run -plugin $<TARGET_FILE:plugin_material_yeoh> -scene beam -beam_material yeoh
               -beam_yeoh_c2_ratio 0.5 -steps 3 -output_every 0 -snapshots 0 -o ${PBSIM_TEST_OUT}/plugin_yeoh -strict_options EXPECT "done: 3 steps")
