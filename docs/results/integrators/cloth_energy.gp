# Figures of case 'cloth_energy' (metric energy), written by pbsim bench. Run in this directory: gnuplot cloth_energy.gp

# Relative energy error |E(t) - E(0)| / |E(0)| over time (log scale, clipped to 1e-10 .. 100)
reset
set datafile separator ','
set grid
set key outside right top
set logscale y
set format y '%.0e'
set xlabel 'time (s)'
set ylabel '|E(t) - E(0)| / |E(0)|'
set yrange [1e-10 < * : * < 100]

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_energy_energy_error.png'
plot 'cloth_energy.csv' using (strcol(1) eq "explicit_euler" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#1f77b4' dashtype 1 title "explicit_euler", \
  'cloth_energy.csv' using (strcol(1) eq "symplectic_euler" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#ff7f0e' dashtype 1 title "symplectic_euler", \
  'cloth_energy.csv' using (strcol(1) eq "verlet" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#2ca02c' dashtype 1 title "verlet", \
  'cloth_energy.csv' using (strcol(1) eq "midpoint" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#d62728' dashtype 1 title "midpoint", \
  'cloth_energy.csv' using (strcol(1) eq "heun" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#9467bd' dashtype 1 title "heun", \
  'cloth_energy.csv' using (strcol(1) eq "rk4" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#8c564b' dashtype 1 title "rk4", \
  'cloth_energy.csv' using (strcol(1) eq "implicit_euler" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#e377c2' dashtype 1 title "implicit_euler", \
  'cloth_energy.csv' using (strcol(1) eq "linearized_implicit" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#7f7f7f' dashtype 1 title "linearized_implicit", \
  'cloth_energy.csv' using (strcol(1) eq "bdf2" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#bcbd22' dashtype 1 title "bdf2", \
  'cloth_energy.csv' using (strcol(1) eq "implicit_midpoint" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#17becf' dashtype 1 title "implicit_midpoint", \
  'cloth_energy.csv' using (strcol(1) eq "ts_cn" ? $3 : 1/0):8 with lines lw 1.5 lc rgb '#000000' dashtype 1 title "ts_cn"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_energy_energy_error.svg'
replot
unset output

# Relative energy change (E(t) - E(0)) / |E(0)| over time (axis clipped to -1 .. 1)
reset
set datafile separator ','
set grid
set key outside right top
set xlabel 'time (s)'
set ylabel '(E(t) - E(0)) / |E(0)|'
set yrange [-1 < * : * < 1]

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_energy_energy.png'
plot 'cloth_energy.csv' using (strcol(1) eq "explicit_euler" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#1f77b4' dashtype 1 title "explicit_euler", \
  'cloth_energy.csv' using (strcol(1) eq "symplectic_euler" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#ff7f0e' dashtype 1 title "symplectic_euler", \
  'cloth_energy.csv' using (strcol(1) eq "verlet" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#2ca02c' dashtype 1 title "verlet", \
  'cloth_energy.csv' using (strcol(1) eq "midpoint" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#d62728' dashtype 1 title "midpoint", \
  'cloth_energy.csv' using (strcol(1) eq "heun" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#9467bd' dashtype 1 title "heun", \
  'cloth_energy.csv' using (strcol(1) eq "rk4" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#8c564b' dashtype 1 title "rk4", \
  'cloth_energy.csv' using (strcol(1) eq "implicit_euler" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#e377c2' dashtype 1 title "implicit_euler", \
  'cloth_energy.csv' using (strcol(1) eq "linearized_implicit" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#7f7f7f' dashtype 1 title "linearized_implicit", \
  'cloth_energy.csv' using (strcol(1) eq "bdf2" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#bcbd22' dashtype 1 title "bdf2", \
  'cloth_energy.csv' using (strcol(1) eq "implicit_midpoint" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#17becf' dashtype 1 title "implicit_midpoint", \
  'cloth_energy.csv' using (strcol(1) eq "ts_cn" ? $3 : 1/0):7 with lines lw 1.5 lc rgb '#000000' dashtype 1 title "ts_cn"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_energy_energy.svg'
replot
unset output

# Wall time per step by PETSc log event (inclusive; 'other' is the rest of SimStep)
reset
set datafile separator ','
set grid
set key outside right top
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -35
set ylabel 'ms per step'
set yrange [0:*]

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_energy_time.png'
plot 'cloth_energy_timing.csv' every ::1 using 7:xtic(1) title 'force', \
  'cloth_energy_timing.csv' every ::1 using 8 title 'assemble', \
  'cloth_energy_timing.csv' every ::1 using 9 title 'factor', \
  'cloth_energy_timing.csv' every ::1 using 10 title 'solve', \
  'cloth_energy_timing.csv' every ::1 using 11 title 'line search', \
  'cloth_energy_timing.csv' every ::1 using 13 title 'other'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_energy_time.svg'
replot
unset output
