/* `pbsim bench SUITE.yaml`: runs every case of a benchmark suite in-process, one after another, and
 * writes per case a CSV of raw numbers, a CSV of timings and gnuplot figures, then summary.json and
 * report.md (DESIGN §8; the suite schema and every metric's definition are in docs/benchmarks.md). */
#pragma once
#include "framework/registry.h"

/* Runs the suite in `suite_file` with the implementations in reg. Options, from the global database:
 *   -o DIR             output directory (default out/bench/<suite name>), created if needed;
 *   -bench_cases a,b   run only these cases (in the suite's order);
 *   -bench_verbose     show each run's options and its own output.
 * A run that fails is recorded (status and first error message) and the suite goes on; errors of
 * this function are the suite's own: an unreadable or invalid suite file, an unwritable DIR. */
PetscErrorCode BenchRunSuite(MPI_Comm comm, SimRegistry reg, const char *suite_file);
