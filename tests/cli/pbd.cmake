# PBD and XPBD (solvers/pbd): listed, run their config and the ARAP beam, refuse what they cannot run.
pbsim_cli_test(NAME list.pbd ARGS list EXPECT "\n  pbd ")
pbsim_cli_test(NAME list.xpbd ARGS list EXPECT "\n  xpbd ")
pbsim_cli_test(NAME run.cloth_xpbd ARGS run ${PBSIM_CONFIGS}/cloth_xpbd.yaml -steps 3 -cloth_n 12 -output_every 0 -snapshot_every 0
               -strict_options -o ${PBSIM_TEST_OUT}/cloth_xpbd EXPECT "done: 3 steps")
pbsim_cli_test(NAME run.cloth_pbd_jacobi ARGS run -scene cloth -cloth_n 10 -solver pbd -pbd_method jacobi -pbd_omega 1.5 -pbd_spring_stiffness 0.8
               -steps 3 -strict_options -o ${PBSIM_TEST_OUT}/cloth_pbd EXPECT "done: 3 steps")
pbsim_cli_test(NAME run.beam_xpbd ARGS run -scene beam -beam_n 6 -beam_material arap -solver xpbd -steps 3 -strict_options
               -o ${PBSIM_TEST_OUT}/beam_xpbd EXPECT "done: 3 steps")
pbsim_cli_test(NAME run.cloth_fem_sphere_xpbd ARGS run -scene cloth -cloth_n 8 -cloth_model fem -colliders sphere -sphere_center 0,-0.55,0
               -solver xpbd -steps 3 -strict_options -o ${PBSIM_TEST_OUT}/cloth_fem_xpbd EXPECT "done: 3 steps")
pbsim_cli_test(NAME bad.xpbd_damping ARGS run -scene cloth -cloth_n 6 -solver xpbd -cloth_damping 0.5 -steps 1 -o ${PBSIM_TEST_OUT}/pbd_bad
               FAIL EXPECT "energy term 'spring_damping'")
pbsim_cli_test(NAME bad.xpbd_fem_material ARGS run -scene beam -beam_n 2 -solver xpbd -steps 1 -o ${PBSIM_TEST_OUT}/pbd_bad FAIL
               EXPECT "arap")
pbsim_cli_test(NAME bad.pbd_iterations ARGS run -scene cloth -cloth_n 4 -solver pbd -pbd_iterations 0 -steps 1 -o ${PBSIM_TEST_OUT}/pbd_bad
               FAIL EXPECT "-pbd_iterations 0 is out of range")
# The constrained-dynamics suite runs end to end on its sag case (a few seconds).
pbsim_cli_test(NAME bench.constrained_suite ARGS bench ${CMAKE_SOURCE_DIR}/benchmarks/constrained.yaml -bench_cases sag
               -o ${PBSIM_TEST_OUT}/bench_constrained EXPECT "bench: done in")
# XPBD tet volume constraints on the bar (energies/volume.c), from its config.
pbsim_cli_test(NAME run.bar_xpbd_volume ARGS run ${PBSIM_CONFIGS}/bar_xpbd_volume.yaml -steps 3 -beam_n 6 -beam_nw 2 -output_every 0
               -snapshot_every 0 -strict_options -o ${PBSIM_TEST_OUT}/bar_xpbd_volume EXPECT "done: 3 steps")
# Shape matching (energies/shape_matching.c): the soft box of its config; quadratic goals need clusters
# of 10 points or more (one per tet has 4); the implicit solvers refuse the term (no Hessian).
pbsim_cli_test(NAME run.soft_box_shape ARGS run ${PBSIM_CONFIGS}/soft_box_shape.yaml -steps 3 -output_every 0 -snapshot_every 0 -strict_options
               -o ${PBSIM_TEST_OUT}/soft_box_shape EXPECT "done: 3 steps")
pbsim_cli_test(NAME bad.shape_quadratic_tets ARGS run -scene drop -drop_n 2 -drop_shape 1e3 -drop_shape_mode quadratic -solver pbd -steps 1
               -o ${PBSIM_TEST_OUT}/pbd_bad FAIL EXPECT "the quadratic mode needs at least 10")
pbsim_cli_test(NAME bad.shape_implicit ARGS run -scene drop -drop_n 2 -drop_elastic 0 -drop_shape 1e3 -solver implicit_euler -steps 1
               -o ${PBSIM_TEST_OUT}/pbd_bad FAIL EXPECT "has no Hessian")
