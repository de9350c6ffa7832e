# -newton_pc_type bddc (the MATIS Hessian, framework/model/hessian.c) on 2 ranks: the subdomain
# assembly against the assembled Hessian, twist and beam against the default MUMPS trajectory, the
# replicated state refused (tests/unit/test_bddc.c; on one rank it runs as unit.test_bddc).
pbsim_mpi_unit_test(mpi.test_bddc_2ranks test_bddc)
# The same refusal through the CLI: the message names the option that replicates the state.
pbsim_mpi_cli_fails(cli.mpi.bddc_replicated_refused "needs the distributed FEM state on several ranks"
                    run -scene beam -beam_n 4 -steps 1 -fem_distributed_state 0 -newton_pc_type bddc -o ${PBSIM_TEST_OUT}/mpi_bddc)
