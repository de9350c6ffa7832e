# Figures of case 'cloth_stability' (metric stability), written by pbsim bench. Run in this directory: gnuplot cloth_stability.gp

# Bisection probes: max energy error vs dt (runs that blew up are not shown)
reset
set datafile separator ','
set grid
set key outside right top
set logscale xy
set format x '%.0e'
set format y '%.0e'
set xlabel 'dt (s)'
set ylabel 'max relative energy error over t_end = 1 s'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_stability_probes.png'
plot 'cloth_stability.csv' using (strcol(1) eq "explicit_euler" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#1f77b4' dashtype 1 title "explicit_euler", \
  'cloth_stability.csv' using (strcol(1) eq "symplectic_euler" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#ff7f0e' dashtype 1 title "symplectic_euler", \
  'cloth_stability.csv' using (strcol(1) eq "verlet" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#2ca02c' dashtype 1 title "verlet", \
  'cloth_stability.csv' using (strcol(1) eq "midpoint" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#d62728' dashtype 1 title "midpoint", \
  'cloth_stability.csv' using (strcol(1) eq "heun" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#9467bd' dashtype 1 title "heun", \
  'cloth_stability.csv' using (strcol(1) eq "rk4" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#8c564b' dashtype 1 title "rk4", \
  'cloth_stability.csv' using (strcol(1) eq "implicit_euler" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#e377c2' dashtype 1 title "implicit_euler", \
  'cloth_stability.csv' using (strcol(1) eq "linearized_implicit" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#7f7f7f' dashtype 1 title "linearized_implicit", \
  'cloth_stability.csv' using (strcol(1) eq "bdf2" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#bcbd22' dashtype 1 title "bdf2", \
  'cloth_stability.csv' using (strcol(1) eq "implicit_midpoint" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#17becf' dashtype 1 title "implicit_midpoint", \
  'cloth_stability.csv' using (strcol(1) eq "ts_cn" && $5 > 0 ? $2 : 1/0):5 with points pt 7 ps 1.2 lc rgb '#000000' dashtype 1 title "ts_cn", \
  10 with lines dashtype 2 lc rgb 'red' title 'threshold'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_stability_probes.svg'
replot
unset output
