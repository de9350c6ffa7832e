# -newton_symmetric_product (framework/linalg/symblock.h): Newton-CG's operator multiplied from the
# exact Hessian's upper 3x3 blocks.
# The operator CG gets is the symmetric block product (the KSP view names it).
pbsim_cli_test(NAME symmetric_product.operator
               ARGS run ${PBSIM_CONFIGS}/cloth.yaml -cloth_n 8 -steps 1 -output_every 0 -snapshots 0 -strict_options
                    -newton_symmetric_product -newton_ksp_view -o ${PBSIM_TEST_OUT}/symprod_view
               EXPECT "type: shell.*symmetric product from the upper 3x3 blocks: 64 diagonal and [0-9]+ off-diagonal blocks")
# The demo's configuration with the option: every step converges (the 32 x 32 cloth, 20 steps: it falls
# and buckles).
pbsim_cli_test(NAME symmetric_product.cloth_converges
               ARGS run ${PBSIM_CONFIGS}/cloth.yaml -cloth_n 32 -steps 20 -output_every 0 -snapshots 0 -strict_options
                    -newton_symmetric_product -o ${PBSIM_TEST_OUT}/symprod_cloth
               EXPECT "done: 20 steps" REJECT "did not converge")
# On several ranks the Hessian is MPIAIJ: the option is refused with a message naming it.
pbsim_mpi_cli_fails(cli.mpi.symmetric_product_refuses "-newton_symmetric_product needs the one-rank AIJ Hessian; this run has 2 ranks"
                    run -scene beam -beam_n 4 -steps 1 -newton_symmetric_product -o ${PBSIM_TEST_OUT}/symprod_mpi)
# Contact changes Hx's pattern (new pairs between the bodies: the block layout is rebuilt 151 times
# in 60 steps): every step still converges.
pbsim_cli_test(NAME symmetric_product.ipc_stack_contact
               ARGS run -scene ipc_stack -steps 60 -output_every 0 -snapshots 0 -strict_options -newton_symmetric_product
                    -o ${PBSIM_TEST_OUT}/symprod_ipc
               EXPECT "done: 60 steps" REJECT "did not converge")
# auto: on where the run allows it (one rank here: the KSP view names the product); another value is
# refused naming the option and its values.
pbsim_cli_test(NAME symmetric_product.auto
               ARGS run -scene cloth -cloth_n 8 -steps 1 -output_every 0 -snapshots 0 -strict_options
                    -newton_symmetric_product auto -newton_ksp_view -o ${PBSIM_TEST_OUT}/symprod_auto
               EXPECT "symmetric product from the upper 3x3 blocks")
pbsim_cli_test(NAME bad.symmetric_product_value
               ARGS run -scene cloth -cloth_n 8 -steps 1 -newton_symmetric_product maybe -o ${PBSIM_TEST_OUT}/bad
               FAIL EXPECT "-newton_symmetric_product maybe: must be true, false or auto")
