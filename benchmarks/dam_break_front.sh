#!/usr/bin/env bash
# The dam break's surge front against Martin & Moyce (1952) (benchmarks/data/martin_moyce_1952.csv):
# runs the 2D dam break (column a x 2a, tank 8a long so the front runs to Z = 8) at the resolutions
# given (particles across a; default 20 40) with each solver given (default sph), and plots Z = x / a
# against T = t sqrt(2 g / a) with the measurements (gnuplot), printing the front's mean relative
# deviation from the measurements (linearly interpolated at the measured T, over T <= 5).
#   benchmarks/dam_break_front.sh [-o DIR] [-n "20 40"] [-s "sph pbf"] [-p PBSIM]
# Output: DIR/<solver>_n<N>/log.csv, DIR/dam_break_front.png (default DIR: dam_break_front).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out=dam_break_front ns="20 40" solvers="sph" pbsim="${PBSIM:-pbsim}"
while getopts "o:n:s:p:" opt; do
  case $opt in o) out=$OPTARG ;; n) ns=$OPTARG ;; s) solvers=$OPTARG ;; p) pbsim=$OPTARG ;; *) exit 2 ;; esac
done
data="$here/data/martin_moyce_1952.csv"
mkdir -p "$out"
plots=()
for s in $solvers; do
  for n in $ns; do
    d="$out/${s}_n$n"
    "$pbsim" run -scene dam_break -solver "$s" -dam_break_n "$n" -dam_break_length 8 -dt 2e-3 -steps 320 -output_every 0 -snapshot_every 0 -o "$d" >"$d.txt" 2>&1 \
      || { echo "$s n=$n stopped early:"; tail -1 "$d.txt"; } # a failed run is plotted up to its failure
    # the front's deviation from the measurements: mean over the points with T <= 5 of |Z - Z_exp| / Z_exp
    awk -F, -v s="$s" -v n="$n" '
      FNR == 1 && NR == FNR { for (i = 1; i <= NF; i++) col[$i] = i; next }
      NR == FNR { t[++m] = $col["front_t"]; z[m] = $col["front_z"]; next }
      /^#/ || /^series/ { next }
      $2 <= 5 { for (k = 2; k <= m && t[k] < $2; k++); if (k > m) next;
                zz = z[k-1] + (z[k] - z[k-1]) * ($2 - t[k-1]) / (t[k] - t[k-1]);
                e = (zz - $3) / $3; sum += e; abs += (e < 0 ? -e : e); cnt++ }
      END { printf "%s n=%s: front vs Martin & Moyce (T <= 5, %d points): mean deviation %+.1f%%, mean |deviation| %.1f%%\n", s, n, cnt, 100 * sum / cnt, 100 * abs / cnt }' \
      "$d/log.csv" "$data" | tee -a "$out/summary.txt"
    plots+=("'$d/log.csv' using (column('front_t')):(column('front_z')) with lines lw 2 title '$s, $n particles across a'")
  done
done
{
  echo "set terminal pngcairo noenhanced size 800,560 font ',11'"
  echo "set output '$out/dam_break_front.png'"
  echo "set datafile separator ','"
  echo "set key top left"
  echo "set xlabel 'T = t sqrt(2g/a)'"
  echo "set ylabel 'Z = x / a'"
  echo "set xrange [0:6]"
  echo "set yrange [1:8]"
  echo "set grid"
  echo "set title 'Dam break surge front (column a x 2a) vs Martin & Moyce (1952)'"
  printf "plot '%s' using (strcol(1) eq 'a1' ? \$2 : 1/0):3 with points pt 7 ps 1.2 title 'Martin & Moyce, a = 1.125 in', " "$data"
  printf "'%s' using (strcol(1) eq 'a2' ? \$2 : 1/0):3 with points pt 5 ps 1.2 title 'Martin & Moyce, a = 2.25 in'" "$data"
  for p in "${plots[@]}"; do printf ", %s" "$p"; done
  echo
} >"$out/plot.gp"
gnuplot "$out/plot.gp"
echo "wrote $out/dam_break_front.png"
