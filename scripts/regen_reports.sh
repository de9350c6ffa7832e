#!/usr/bin/env bash
# Every report under docs/results regenerated in place from a clean checkout, with each report's own
# command (its summary.json "command"). Build Release first (cmake -S . -B build-rel
# -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel -j2), use an idle machine (~15 min here), and
# keep ../shared/meshes for speed_armadillo. docs/results is marked assume-unchanged in the index
# while the suites run, so a suite's provenance reads the commit and not "-dirty" from the reports
# rewritten before it; the mark is removed at the end (also on Ctrl-C). Then compare with
# `python3 tools/compare_reports.py` against the committed copies (git archive HEAD docs/results).
set -u
git -C "$(dirname "$0")/.." diff --quiet HEAD -- . ':!docs/results' || { echo "regen_reports: the tree has changes outside docs/results: commit them first" >&2; exit 2; }
cd "$(dirname "$0")/.."
export OPENBLAS_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
git ls-files -z docs/results | xargs -0 git update-index --assume-unchanged
trap 'git ls-files -z docs/results | xargs -0 git update-index --no-assume-unchanged' EXIT
B=build-rel/pbsim; L=${TMPDIR:-/tmp}/pbsim-regen-logs; mkdir -p $L
run() { name=$1; dir=$2; shift 2; rm -rf $dir; echo "== $name $(date +%T) $(cat /proc/loadavg) $(git describe --always --dirty)"; "$@" > $L/$name.log 2>&1; echo "rc=$? $(date +%T)"; }
run speed docs/results/speed $B bench benchmarks/speed.yaml -o docs/results/speed
[ -f ../shared/meshes/armadillo_4k.msh ] && run speed_armadillo docs/results/speed_armadillo $B bench benchmarks/speed_armadillo.yaml -o docs/results/speed_armadillo
run fem docs/results/fem $B bench benchmarks/fem.yaml -o docs/results/fem
run pd docs/results/pd $B bench benchmarks/pd.yaml -o docs/results/pd
run paper_integrators docs/results/paper_integrators $B bench benchmarks/paper_integrators.yaml -o docs/results/paper_integrators
run fem_mpi_np1 docs/results/fem_mpi/np1 $B bench benchmarks/fem_mpi.yaml -o docs/results/fem_mpi/np1
run fem_mpi_np2 docs/results/fem_mpi/np2 mpirun -n 2 $B bench benchmarks/fem_mpi.yaml -o docs/results/fem_mpi/np2
run scaling docs/results/scaling $B bench benchmarks/scaling.yaml -o docs/results/scaling -bench_cases strong128,weak,fem_newton_strong,fem_newton_weak,fem_explicit_strong,fem_explicit_weak,smoke_strong,smoke_weak,mpm_strong,mpm_weak,pbf_strong,pbf_weak
run fluids docs/results/fluids $B bench benchmarks/fluids.yaml -o docs/results/fluids
run fem_solvers docs/results/fem_solvers $B bench benchmarks/fem_solvers.yaml -o docs/results/fem_solvers -bench_cases beam_refine,twist_refine,beam_mumps_weak,beam_gamg_weak,beam_bddc_weak,twist_mumps_weak,twist_gamg_weak,twist_bddc_weak
run integrators docs/results/integrators $B bench benchmarks/integrators.yaml -o docs/results/integrators
find docs/results -name .scratch -type d -exec rm -rf {} + 2>/dev/null
echo "all done $(date +%T)"
