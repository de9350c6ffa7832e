# The harness reads the IPC term's log events (benchmarks/timing.c): a small IPC suite's summary has
# the per-step and per-call build, barrier and CCD figures, with calls (a figure is printed as a
# positive number; an absent event would leave the keys out).
pbsim_cli_test_cmd(NAME cli.bench.ipc_events
                   ARGS sh -c "${PBSIM_EXE} bench ${CMAKE_SOURCE_DIR}/benchmarks/ipc_tiny.yaml -o ${PBSIM_TEST_OUT}/bench_ipc_tiny && cat ${PBSIM_TEST_OUT}/bench_ipc_tiny/summary.json"
                   EXPECT "\"ipc_build_ms\": [0-9.]*[1-9][^,]*, \"ipc_barrier_ms\": [0-9.]*[1-9][^,]*, \"ipc_ccd_ms\": [0-9.]*[1-9][^,]*, \"ipc_build_call_ms\": [0-9.]*[1-9][^,]*, \"ipc_barrier_call_ms\": [0-9.]*[1-9][^,]*, \"ipc_ccd_call_ms\": [0-9.]*[1-9]")
