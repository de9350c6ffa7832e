#!/usr/bin/env bash
# The smoke step of two pbsim binaries, measured alternately in one run (issue 18's "ratio in one
# run"): OLD, NEW, OLD, NEW, ... on the same settings, each run's ms per step from its -log_view
# (SimStep time / steps, the same event in every version), with the phase split (FluidAdvect,
# FluidForces, SimSolve = the pressure KSPSolve; per step). Prints the median of each and NEW/OLD.
#
#   scripts/smoke_ratio.sh OLD_PBSIM NEW_PBSIM [ROUNDS] [CASE...]
#
# CASE: 2d (default smoke plume, n = 256: 256 x 512 cells, dt 4 ms, 50 steps) and/or 3d (n = 128:
# 128 x 256 x 128 cells, dt 4 ms, 10 steps); default: both. ROUNDS (default 3) runs of each binary
# per case. The settings are the scene's defaults (rk2 advection, -sf_ghost 3, buoyancy and
# vorticity confinement), no output. Build the binaries Release, e.g. the code before issue 18:
#   git worktree add --detach /tmp/pbsim-old 1fe804d && cd /tmp/pbsim-old &&
#   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel -j2 --target pbsim
# Use an idle machine for figures to quote (the script prints the load average at the start and end).
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
old=$1 new=$2
rounds=${3:-3}
shift 2
[ $# -gt 0 ] && shift
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(2d 3d)
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "smoke_ratio: $b is not an executable" >&2; exit 2; }
done
export OPENBLAS_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

options() {
  case $1 in
    2d) echo "-scene smoke_plume -solver stablefluids -smoke_plume_n 256 -dt 0.004 -steps 50" ;;
    3d) echo "-scene smoke_plume -solver stablefluids -smoke_plume_dim 3 -smoke_plume_n 128 -dt 0.004 -steps 10" ;;
    *) echo "smoke_ratio: unknown case '$1' (2d, 3d)" >&2; exit 2 ;;
  esac
}

# One run: prints "step advect forces solve" in ms per step (from -log_view).
run() {
  local exe=$1 opts=$2 log=$tmp/log
  # shellcheck disable=SC2086
  "$exe" run $opts -o "$tmp/out" -output_every 0 -snapshots 0 -progress 0 -log_view >"$log" 2>&1 ||
    { echo "smoke_ratio: $exe failed:" >&2; tail -5 "$log" >&2; exit 1; }
  awk '$1 == "SimStep" { n = $2; step = $4 }
       $1 == "FluidAdvect" { a = $4 } $1 == "FluidForces" { f = $4 } $1 == "SimSolve" { s = $4 }
       END { if (!n) exit 1; printf "%.3f %.3f %.3f %.3f\n", 1e3 * step / n, 1e3 * a / n, 1e3 * f / n, 1e3 * s / n }' "$log"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "smoke_ratio: OLD $old"
echo "smoke_ratio: NEW $new"
echo "smoke_ratio: $(uptime)"
for c in "${cases[@]}"; do
  opts=$(options "$c")
  : >"$tmp/old" && : >"$tmp/new"
  for ((r = 1; r <= rounds; r++)); do
    run "$old" "$opts" >>"$tmp/old"
    run "$new" "$opts" >>"$tmp/new"
    echo "  $c round $r: old $(tail -1 "$tmp/old")  new $(tail -1 "$tmp/new")  (ms/step: step advect forces solve)"
  done
  declare -A m
  for v in old new; do
    for k in 1 2 3 4; do m[$v$k]=$(cut -d' ' -f$k "$tmp/$v" | median); done
  done
  printf '%s (%s), median of %d runs, ms per step:\n' "$c" "$opts" "$rounds"
  printf '  %-4s step %9.2f  advect %9.2f  forces %9.2f  pressure solve %9.2f\n' old "${m[old1]}" "${m[old2]}" "${m[old3]}" "${m[old4]}"
  printf '  %-4s step %9.2f  advect %9.2f  forces %9.2f  pressure solve %9.2f\n' new "${m[new1]}" "${m[new2]}" "${m[new3]}" "${m[new4]}"
  awk -v o="${m[old1]}" -v n="${m[new1]}" -v a="${m[new2]}" -v s="${m[new4]}" -v c="$c" \
    'BEGIN { printf "  %s: new/old step ratio %.3f (target <= 0.25); new advection / pressure solve %.2f (target <= 2)\n", c, n / o, a / s }'
done
echo "smoke_ratio: $(uptime)"
