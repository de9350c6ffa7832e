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
