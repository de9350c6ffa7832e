# Projective dynamics (solvers/pd): listed, runs its config and the ARAP beam, refuses what it cannot run.
pbsim_cli_test(NAME list.pd ARGS list EXPECT "\n  pd ")
pbsim_cli_test(NAME run.cloth_pd ARGS run ${PBSIM_CONFIGS}/cloth_pd.yaml -steps 3 -cloth_n 12 -output_every 0 -snapshot_every 0
               -strict_options -o ${PBSIM_TEST_OUT}/cloth_pd EXPECT "done: 3 steps")
pbsim_cli_test(NAME run.beam_pd ARGS run -scene beam -beam_n 6 -beam_material arap -solver pd -steps 3 -strict_options
               -o ${PBSIM_TEST_OUT}/beam_pd EXPECT "done: 3 steps")
pbsim_cli_test(NAME bad.pd_damping ARGS run -scene cloth -cloth_n 6 -solver pd -cloth_damping 0.5 -steps 1 -o ${PBSIM_TEST_OUT}/pd_bad
               FAIL EXPECT "energy term 'spring_damping'")
# Contact (plane collider, active set), soft attachments and strain limits run from the command line.
pbsim_cli_test(NAME run.drop_pd ARGS run -scene drop -drop_material arap -drop_n 2 -solver pd -steps 30 -strict_options
               -o ${PBSIM_TEST_OUT}/drop_pd EXPECT "done: 30 steps")
pbsim_cli_test(NAME run.cloth_attach_pd ARGS run -scene cloth -cloth_n 8 -cloth_pin none -cloth_attach corners -solver pd -steps 3
               -strict_options -o ${PBSIM_TEST_OUT}/cloth_attach_pd EXPECT "done: 3 steps")
pbsim_cli_test(NAME run.cloth_fem_pd ARGS run -scene cloth -cloth_n 8 -cloth_model fem -solver pd -steps 3 -strict_options
               -o ${PBSIM_TEST_OUT}/cloth_fem_pd EXPECT "done: 3 steps")
pbsim_cli_test(NAME bad.cloth_model ARGS run -scene cloth -cloth_n 4 -cloth_model silk -steps 1 -o ${PBSIM_TEST_OUT}/pd_bad FAIL
               EXPECT "silk")
pbsim_cli_test(NAME bad.strain_limits ARGS run -scene beam -beam_n 2 -beam_strain_max 1.1 -steps 1 -o ${PBSIM_TEST_OUT}/pd_bad
               FAIL EXPECT "strain_max apply to the 'arap' material only")
pbsim_cli_test(NAME run.twist_pd ARGS run -scene twist -twist_material arap -solver pd -steps 3 -strict_options
               -o ${PBSIM_TEST_OUT}/twist_pd EXPECT "done: 3 steps")
# The PD benchmark suite runs end to end on its small case (about 10 s).
pbsim_cli_test(NAME bench.pd_suite ARGS bench ${CMAKE_SOURCE_DIR}/benchmarks/pd.yaml -bench_cases twist_gap -o ${PBSIM_TEST_OUT}/bench_pd
               EXPECT "bench: done in")
# Anderson acceleration (-pd_anderson M): runs the drop with contact; a negative history and the
# combination with Chebyshev are refused naming the options.
pbsim_cli_test(NAME run.drop_pd_anderson ARGS run -scene drop -drop_material arap -drop_n 2 -solver pd -pd_anderson 5 -steps 30
               -strict_options -o ${PBSIM_TEST_OUT}/drop_pd_anderson EXPECT "done: 30 steps")
pbsim_cli_test(NAME bad.pd_anderson ARGS run -scene cloth -cloth_n 4 -solver pd -pd_anderson -1 -steps 1 -o ${PBSIM_TEST_OUT}/pd_bad
               FAIL EXPECT "-pd_anderson -1 is out of range: must be in .0, 100.")
pbsim_cli_test(NAME bad.pd_anderson_chebyshev ARGS run -scene cloth -cloth_n 4 -solver pd -pd_anderson 5 -pd_chebyshev -steps 1
               -o ${PBSIM_TEST_OUT}/pd_bad FAIL EXPECT "-pd_anderson and -pd_chebyshev cannot be used together")
# -pd_contact normal: the drop with the plane's constraints in the normal coordinate only.
pbsim_cli_test(NAME run.drop_pd_contact_normal ARGS run -scene drop -drop_material arap -drop_n 2 -solver pd -pd_contact normal
               -pd_anderson 5 -steps 30 -strict_options -o ${PBSIM_TEST_OUT}/drop_pd_contact_normal EXPECT "done: 30 steps")
pbsim_cli_test(NAME bad.pd_contact ARGS run -scene drop -drop_n 2 -drop_material arap -solver pd -pd_contact sideways -steps 1
               -o ${PBSIM_TEST_OUT}/pd_bad FAIL EXPECT "Unknown option sideways for -pd_contact")
pbsim_cli_test(NAME run.drop_pd_contact_release ARGS run -scene drop -drop_material arap -drop_n 2 -solver pd -pd_contact normal
               -pd_contact_release -pd_anderson 5 -steps 30 -strict_options -o ${PBSIM_TEST_OUT}/drop_pd_contact_release
               EXPECT "done: 30 steps")
# the PD drop config (contact along the normal, release, Anderson) runs as written
pbsim_cli_test(NAME run.drop_pd_config ARGS run ${PBSIM_CONFIGS}/drop_pd.yaml -steps 20 -drop_n 3 -output_every 0 -snapshot_every 0
               -strict_options -o ${PBSIM_TEST_OUT}/drop_pd_config EXPECT "done: 20 steps")
