# End-to-end tests of the materials: runs on the FEM scenes.

# Issue 21, acceptance 3: a soft neo-Hookean drop whose inertial guess inverts elements runs to the
# end (Newton starts from a feasible point; tests/unit/test_fem.c checks J > 0 at every step).
pbsim_cli_test(NAME run.drop_soft_neohookean ARGS run -scene drop -solver implicit_euler -drop_material neohookean
               -drop_youngs 2e3 -dt 0.03 -steps 40 -strict_options -o ${PBSIM_TEST_OUT}/drop_soft_nh EXPECT "done: 40 steps")
