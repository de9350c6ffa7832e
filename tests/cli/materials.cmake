# End-to-end tests of the materials: runs on the FEM scenes.

# Issue 21, acceptance 3: a soft neo-Hookean drop whose inertial guess inverts elements runs to the
# end (Newton starts from a feasible point; tests/unit/test_fem.c checks J > 0 at every step).
pbsim_cli_test(NAME run.drop_soft_neohookean ARGS run -scene drop -solver implicit_euler -drop_material neohookean
               -drop_youngs 2e3 -dt 0.03 -steps 40 -strict_options -o ${PBSIM_TEST_OUT}/drop_soft_nh EXPECT "done: 40 steps")

# Issue 21, acceptance 5: every new material runs the beam, the drop and the twist (a few steps).
foreach(material mooney_rivlin ogden fung hgo)
  foreach(scene beam drop twist)
    pbsim_cli_test(NAME run.${scene}_${material} ARGS run -scene ${scene} -${scene}_material ${material} -steps 3 -strict_options
                   -o ${PBSIM_TEST_OUT}/${scene}_${material} EXPECT "done: 3 steps")
  endforeach()
endforeach()

# Acceptance 1: a material's parameters are options under the body's prefix, listed by -help, read
# (-strict_options fails on an unread one), and checked against their declared ranges.
pbsim_cli_test(NAME materials.help ARGS run -scene drop -drop_material mooney_rivlin -steps 0 -help
               EXPECT "-drop_mooney_rivlin_c01_ratio <0[.]? : 0[.]?>: C01 / [(]C10 [+] C01[)]")
pbsim_cli_test(NAME run.materials_options ARGS run -scene twist -twist_material hgo -twist_hgo_fiber 0,1,1 -twist_hgo_k1_ratio 5
               -twist_hgo_k2 2 -steps 2 -strict_options -o ${PBSIM_TEST_OUT}/twist_hgo_options EXPECT "done: 2 steps")
pbsim_cli_test(NAME run.materials_ogden_terms ARGS run -scene drop -drop_material ogden -drop_ogden_alpha 2,-2 -drop_ogden_weight 1,1
               -steps 2 -strict_options -o ${PBSIM_TEST_OUT}/drop_ogden_terms EXPECT "done: 2 steps")
pbsim_cli_test(NAME bad.material_parameter_range ARGS run -scene drop -drop_material mooney_rivlin -drop_mooney_rivlin_c01_ratio 2
               -steps 1 -o ${PBSIM_TEST_OUT}/bad_mr FAIL EXPECT "-drop_mooney_rivlin_c01_ratio 2[.]? is out of range: must be in [[]0[.]?, 1[.]?[]]")
pbsim_cli_test(NAME bad.material_parameter_counts ARGS run -scene drop -drop_material ogden -drop_ogden_alpha 2,-2 -drop_ogden_weight 1
               -steps 1 -o ${PBSIM_TEST_OUT}/bad_ogden FAIL EXPECT "-drop_ogden_alpha has 2 values and -drop_ogden_weight 1: give them as many")
pbsim_cli_test(NAME bad.material_parameter_setup ARGS run -scene drop -drop_material ogden -drop_ogden_alpha 0.01 -steps 1
               -o ${PBSIM_TEST_OUT}/bad_ogden2 FAIL EXPECT "-drop_ogden_alpha value 1 is 0.01: an exponent must be at least 0.05")

# docs/materials.md's worked example is materials/mooney_rivlin.c itself (test_add_material builds that file).
add_test(NAME docs.materials_example COMMAND ${CMAKE_COMMAND} -DDOC=${CMAKE_SOURCE_DIR}/docs/materials.md
         -DFILE=${CMAKE_SOURCE_DIR}/materials/mooney_rivlin.c -DNAME=materials/mooney_rivlin.c
         -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/doc_listing.cmake)
