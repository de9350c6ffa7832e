#!/usr/bin/env bash
# Issue 17's figures for two pbsim source trees, measured alternately in one run (OLD, OLD with
# CHOLMOD's OpenMP regions serial, NEW, ...): the cloth demo (20 steps, each tree's own
# configs/cloth.yaml), the armadillo drop (needs ../shared/meshes), the 4,374-tet box drop, the
# projected Hessian assembly on the 60,000-tet beam and a PD iteration on the 23,040-tet twist.
# Prints each run's "done" line or log events; the ratios are NEW / OLD of the medians.
#
#   scripts/newton_ratio.sh OLD_TREE NEW_TREE [ROUNDS]
#   FULL=1 scripts/newton_ratio.sh ...   also the whole demo (120 steps: the README's first command;
#                                        its later, swinging steps cost ~2.5x the first 20's per step)
#
# Each tree needs a Release build in TREE/build-rel (cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release
# && cmake --build build-rel --target pbsim). E.g. the code before issue 17:
#   git worktree add --detach /tmp/pbsim-old 6492143
# "OLD_OMP1" runs the old binary with OMP_THREAD_LIMIT=1, which is what -omp_threads 1 (the default
# since session 10) does inside pbsim. Use an idle machine (the load average is printed).
set -u
if [ $# -lt 2 ]; then sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; fi
OLD=$(cd "$1" && pwd); NEW=$(cd "$2" && pwd); R=${3:-3}
MESH=$(cd "$NEW/.." && pwd)/shared/meshes/armadillo_4k.msh
export OPENBLAS_NUM_THREADS=1
out=$(mktemp -d)
variants() { for t in OLD OLD_OMP1 NEW; do
  case $t in OLD) d=$OLD; e=X=1;; OLD_OMP1) d=$OLD; e=OMP_THREAD_LIMIT=1;; NEW) d=$NEW; e=X=1;; esac
  (cd "$d" && env $e build-rel/pbsim run "$@" -o "$out" 2>&1 | grep done | sed "s/^/$t /"); done; }
pair() { for t in OLD NEW; do d=$([ $t = OLD ] && echo "$OLD" || echo "$NEW")
  (cd "$d" && build-rel/pbsim run "$@" -o "$out" -log_view 2>&1 | grep -E "^Sim(Step|Assemble|Factor) " | awk -v t=$t '{print t, $1, "count", $2, "seconds", $4}'); done; }
echo "load: $(cat /proc/loadavg)"
echo "## cloth demo, 20 steps"
for i in $(seq "$R"); do variants configs/cloth.yaml -steps 20 -output_every 0 -snapshots 0; done
if [ "${FULL:-0}" = 1 ]; then
  echo "## cloth demo, all 120 steps"
  for i in $(seq "$R"); do variants configs/cloth.yaml -output_every 0 -snapshots 0; done
fi
if [ -f "$MESH" ]; then
  echo "## armadillo drop, 60 steps"
  for i in $(seq "$R"); do variants -scene file -file_mesh "$MESH" -file_material stable_neohookean -file_scale 0.01 -file_translate 0,0.05,0 \
    -colliders plane -solver implicit_euler -dt 0.016666666666666666 -steps 60 -output_every 0 -snapshots 0; done
fi
echo "## box drop, 4,374 tets, 60 steps"
for i in $(seq "$R"); do variants -scene drop -drop_n 9 -drop_material stable_neohookean -solver implicit_euler -dt 0.016666666666666666 \
  -steps 60 -output_every 0 -snapshots 0; done
echo "## assembly, 60,000 tets: ms per SimAssemble = seconds / count"
for i in 1 2; do pair -scene beam -beam_n 100 -beam_nw 10 -beam_youngs 1e5 -dt 1e3 -steps 1 -output_every 0 -snapshots 0 \
  -newton_ksp_type preonly -newton_max_it 10; done
echo "## PD iteration, twist 23,040 tets: (SimStep - SimAssemble - SimFactor) / 160"
for i in 1 2; do pair -scene twist -twist_material arap -twist_n 60 -twist_nw 8 -solver pd -pd_iterations 20 -pd_rtol 0 -pd_monitor 0 \
  -steps 8 -output_every 0 -snapshots 0; done
echo "load: $(cat /proc/loadavg)"
rm -rf "$out"
