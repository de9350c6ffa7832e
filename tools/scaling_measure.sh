#!/usr/bin/env bash
# The measurements of docs/scaling.md's performance model, into DIR (then: python3 tools/scaling_model.py DIR).
#   bash tools/scaling_measure.sh BUILD_DIR DIR
# For each method (FEM explicit and Newton on the beam, the 3D smoke plume, MPM jelly blocks): `pbsim run
# -log_view` on 1, 2, 4 ranks (4 oversubscribed on 2 cores) with the load average first; the 1-rank run
# under /usr/bin/time with its steps and with 0 steps (CPU seconds per step); netbench on 2 and 4 ranks;
# STREAM triad on 1, 2, 4 ranks (benchmarks/scaling.yaml, case stream). About 5 minutes on an idle machine.
set -euo pipefail
build=${1:?usage: scaling_measure.sh BUILD_DIR DIR}
dir=${2:?usage: scaling_measure.sh BUILD_DIR DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
export OPENBLAS_NUM_THREADS=1
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
P=$build/pbsim
C="-output_every 0 -snapshots 0 -csv_log 0 -o $dir/out"
declare -A case=(
  [explicit]="-scene beam -beam_n 80 -beam_nw 6 -solver verlet -dt 1e-5 -steps 200"
  [smoke]="-scene smoke_plume -smoke_plume_dim 3 -smoke_plume_n 32 -dt 0.02 -steps 10"
  [mpm]="-scene jelly_blocks -jelly_blocks_n 80 -jelly_blocks_particles 4000 -mpm_substeps 10 -mpm_cfl 10 -dt 1e-3 -steps 10"
  [newton]="-scene beam -beam_n 80 -beam_nw 6 -solver implicit_euler -dt 0.01 -steps 5"
)
for m in explicit smoke mpm newton; do
  for p in 1 2 4; do
    uptime > "$dir/${m}_$p.txt"
    mpirun -np $p --oversubscribe "$P" run ${case[$m]} $C -log_view >> "$dir/${m}_$p.txt" 2>&1
  done
  uptime > "$dir/cpu_$m.txt"
  /usr/bin/time -f "cpu_seconds %U %S wall %e" "$P" run ${case[$m]} $C >> "$dir/cpu_$m.txt" 2>&1
  uptime > "$dir/cpu_${m}0.txt"
  /usr/bin/time -f "cpu_seconds %U %S wall %e" "$P" run ${case[$m]} $C -steps 0 >> "$dir/cpu_${m}0.txt" 2>&1
done
for p in 2 4; do
  mpirun -np $p --oversubscribe "$build/netbench" -o "$dir/netbench_$p.csv" > "$dir/netbench_$p.txt"
done
uptime > "$dir/stream.txt"
"$P" bench "$src/benchmarks/scaling.yaml" -bench_cases stream -o "$dir/stream1" >> "$dir/stream.txt" 2>&1
for p in 2 4; do
  mpirun -np $p --oversubscribe "$P" bench "$src/benchmarks/scaling.yaml" -bench_cases stream -o "$dir/stream$p" >> "$dir/stream.txt" 2>&1
done
echo "scaling_measure: done; python3 tools/scaling_model.py $dir"
