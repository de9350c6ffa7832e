# Rigid bodies (problems/rigid, solvers/rigid): listed, the scenes run from their configs, bad input refused.
pbsim_cli_test(NAME list.rigid ARGS list EXPECT "\n  rigid ")
pbsim_cli_test(NAME run.stack ARGS run ${PBSIM_CONFIGS}/stack.yaml -steps 30 -stack_n 4 -output_every 10 -snapshot_every 30 -strict_options
               -o ${PBSIM_TEST_OUT}/stack EXPECT "done: 30 steps")
pbsim_cli_test(NAME run.cradle ARGS run ${PBSIM_CONFIGS}/cradle.yaml -steps 20 -strict_options -o ${PBSIM_TEST_OUT}/cradle EXPECT "done: 20 steps")
pbsim_cli_test(NAME run.chain ARGS run -scene chain -chain_n 5 -chain_joint hinge -steps 20 -strict_options -o ${PBSIM_TEST_OUT}/chain
               EXPECT "done: 20 steps")
pbsim_cli_test(NAME run.spin ARGS run -scene spin -spin_axis intermediate -dt 0.01 -steps 20 -strict_options -o ${PBSIM_TEST_OUT}/spin
               EXPECT "done: 20 steps")
pbsim_cli_test(NAME run.slope ARGS run -scene slope -slope_angle 30 -dt 0.01 -steps 20 -strict_options -o ${PBSIM_TEST_OUT}/slope
               EXPECT "done: 20 steps")
pbsim_cli_test(NAME run.bounce ARGS run -scene bounce -dt 0.005 -steps 20 -strict_options -o ${PBSIM_TEST_OUT}/bounce EXPECT "done: 20 steps")
pbsim_cli_test(NAME bad.bounce_restitution ARGS run -scene bounce -bounce_restitution 1.5 -steps 1 -o ${PBSIM_TEST_OUT}/rigid_bad FAIL
               EXPECT "restitution 1.5 must be in")
pbsim_cli_test(NAME bad.rigid_iterations ARGS run -scene stack -rigid_iterations 0 -steps 1 -o ${PBSIM_TEST_OUT}/rigid_bad FAIL
               EXPECT "-rigid_iterations 0 is out of range")
pbsim_cli_test(NAME bad.slope_angle ARGS run -scene slope -slope_angle 95 -steps 1 -o ${PBSIM_TEST_OUT}/rigid_bad FAIL EXPECT "-slope_angle must be in")
pbsim_cli_test(NAME bad.rigid_solver_on_mesh ARGS run -scene cloth -cloth_n 4 -solver rigid -steps 1 -o ${PBSIM_TEST_OUT}/rigid_bad FAIL
               EXPECT "rigid")
pbsim_cli_test(NAME bad.xpbd_on_rigid ARGS run -scene stack -solver xpbd -steps 1 -o ${PBSIM_TEST_OUT}/rigid_bad FAIL EXPECT "xpbd")
# XPBD rigid bodies (solvers/rigid/xpbd_rigid.c): the 20-link hinge chain from its config, a limited
# hinge chain, the stack; bad options refused.
pbsim_cli_test(NAME run.chain_xpbd ARGS run ${PBSIM_CONFIGS}/chain_xpbd.yaml -steps 20 -strict_options -o ${PBSIM_TEST_OUT}/chain_xpbd
               EXPECT "done: 20 steps")
pbsim_cli_test(NAME run.chain_limit ARGS run -scene chain -chain_n 4 -chain_joint hinge -chain_limit 30 -solver xpbd_rigid -steps 10
               -strict_options -o ${PBSIM_TEST_OUT}/chain_limit EXPECT "done: 10 steps")
pbsim_cli_test(NAME run.stack_xpbd ARGS run -scene stack -stack_n 4 -solver xpbd_rigid -xpbd_rigid_substeps 10 -steps 10 -strict_options
               -o ${PBSIM_TEST_OUT}/stack_xpbd EXPECT "done: 10 steps")
pbsim_cli_test(NAME bad.xpbd_rigid_substeps ARGS run -scene stack -solver xpbd_rigid -xpbd_rigid_substeps 0 -steps 1 -o ${PBSIM_TEST_OUT}/rigid_bad
               FAIL EXPECT "-xpbd_rigid_substeps 0 is out of range")
pbsim_cli_test(NAME bad.chain_limit ARGS run -scene chain -chain_joint hinge -chain_limit 200 -steps 1 -o ${PBSIM_TEST_OUT}/rigid_bad FAIL
               EXPECT "-chain_limit must be in")
# Convex hull bodies: the scene from its config and from a mesh file; a flat mesh has no hull body.
pbsim_cli_test(NAME run.hull_slope ARGS run ${PBSIM_CONFIGS}/hull_slope.yaml -steps 20 -strict_options -o ${PBSIM_TEST_OUT}/hull_slope
               EXPECT "done: 20 steps")
pbsim_cli_test(NAME run.hull_mesh ARGS run -scene hull -hull_mesh ${CMAKE_SOURCE_DIR}/tests/data/pyramid.msh -hull_scale 0.3 -solver rigid -steps 10 -strict_options
               -o ${PBSIM_TEST_OUT}/hull_mesh EXPECT "done: 10 steps")
# Five hulls onto a box ramp (hull-hull, hull-box, hull-plane contact), both solvers; a bad ramp angle.
pbsim_cli_test(NAME run.hulls ARGS run ${PBSIM_CONFIGS}/hulls.yaml -steps 60 -strict_options -o ${PBSIM_TEST_OUT}/hulls EXPECT "done: 60 steps")
pbsim_cli_test(NAME run.hulls_xpbd ARGS run ${PBSIM_CONFIGS}/hulls.yaml -solver xpbd_rigid -steps 30 -strict_options -o ${PBSIM_TEST_OUT}/hulls_xpbd
               EXPECT "done: 30 steps")
pbsim_cli_test(NAME bad.hulls_ramp ARGS run -scene hulls -hulls_ramp 70 -steps 1 -o ${PBSIM_TEST_OUT}/rigid_bad FAIL EXPECT "-hulls_ramp must be in")
pbsim_cli_test(NAME bad.hull_flat_mesh ARGS run -scene hull -hull_mesh ${CMAKE_SOURCE_DIR}/tests/data/square.obj -steps 1 -o ${PBSIM_TEST_OUT}/rigid_bad
               FAIL EXPECT "lie in a plane")
