# Compliant constraints (solvers/compliant): listed, run its config (KKT with geometric stiffness) and the
# Schur complement on the rope, refuse a negative compliance.
pbsim_cli_test(NAME list.compliant ARGS list EXPECT "\n  compliant ")
pbsim_cli_test(NAME run.cloth_compliant ARGS run ${PBSIM_CONFIGS}/cloth_compliant.yaml -steps 3 -cloth_n 10 -output_every 0 -snapshot_every 0
               -strict_options -o ${PBSIM_TEST_OUT}/cloth_compliant EXPECT "done: 3 steps")
pbsim_cli_test(NAME run.rope_compliant_schur ARGS run -scene rope -rope_n 10 -solver compliant -compliant_solve schur -compliant_geometric_stiffness 0
               -steps 3 -strict_options -o ${PBSIM_TEST_OUT}/rope_compliant EXPECT "done: 3 steps")
pbsim_cli_test(NAME bad.compliant_compliance ARGS run -scene cloth -cloth_n 4 -solver compliant -compliant_compliance -1 -steps 1
               -o ${PBSIM_TEST_OUT}/compliant_bad FAIL EXPECT "is out of range: a compliance must be >= 0")
