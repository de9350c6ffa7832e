# Figures of case 'cloth_energy' (metric energy), written by pbsim bench. Run in this directory: gnuplot cloth_energy.gp

# Relative energy error |E(t) - E(0)| / scale over time (log scale, clipped to 1e-10 .. 100)
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set logscale y
set format y '%.0e'
set xlabel 'time (s)'
set ylabel 'relative energy error'
set yrange [1e-10 < * : * < 100]

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_energy_energy_error.png'
plot 'cloth_energy.csv' using (strcol(1) eq "explicit_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#000000' dashtype 1 pt 7 title "explicit_euler", \
  'cloth_energy.csv' using (strcol(1) eq "symplectic_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#E69F00' dashtype 2 pt 5 title "symplectic_euler", \
  'cloth_energy.csv' using (strcol(1) eq "verlet" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#0072B2' dashtype 4 pt 9 title "verlet", \
  'cloth_energy.csv' using (strcol(1) eq "midpoint" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#009E73' dashtype 5 pt 11 title "midpoint", \
  'cloth_energy.csv' using (strcol(1) eq "heun" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#D55E00' dashtype 3 pt 13 title "heun", \
  'cloth_energy.csv' using (strcol(1) eq "rk4" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#56B4E9' dashtype 1 pt 4 title "rk4", \
  'cloth_energy.csv' using (strcol(1) eq "implicit_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#CC79A7' dashtype 2 pt 6 title "implicit_euler", \
  'cloth_energy.csv' using (strcol(1) eq "linearized_implicit" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#999900' dashtype 4 pt 8 title "linearized_implicit", \
  'cloth_energy.csv' using (strcol(1) eq "bdf2" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#000000' dashtype 5 pt 5 title "bdf2", \
  'cloth_energy.csv' using (strcol(1) eq "implicit_midpoint" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#E69F00' dashtype 3 pt 9 title "implicit_midpoint", \
  'cloth_energy.csv' using (strcol(1) eq "ts_cn" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#0072B2' dashtype 1 pt 11 title "ts_cn"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_energy_energy_error.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'cloth_energy_energy_error.pdf'
replot
unset output

# Relative energy change (E(t) - E(0)) / scale over time (axis clipped to -1 .. 1)
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set xlabel 'time (s)'
set ylabel '(E(t) - E(0)) / scale'
set yrange [-1 < * : * < 1]

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_energy_energy.png'
plot 'cloth_energy.csv' using (strcol(1) eq "explicit_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#000000' dashtype 1 pt 7 title "explicit_euler", \
  'cloth_energy.csv' using (strcol(1) eq "symplectic_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#E69F00' dashtype 2 pt 5 title "symplectic_euler", \
  'cloth_energy.csv' using (strcol(1) eq "verlet" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#0072B2' dashtype 4 pt 9 title "verlet", \
  'cloth_energy.csv' using (strcol(1) eq "midpoint" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#009E73' dashtype 5 pt 11 title "midpoint", \
  'cloth_energy.csv' using (strcol(1) eq "heun" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#D55E00' dashtype 3 pt 13 title "heun", \
  'cloth_energy.csv' using (strcol(1) eq "rk4" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#56B4E9' dashtype 1 pt 4 title "rk4", \
  'cloth_energy.csv' using (strcol(1) eq "implicit_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#CC79A7' dashtype 2 pt 6 title "implicit_euler", \
  'cloth_energy.csv' using (strcol(1) eq "linearized_implicit" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#999900' dashtype 4 pt 8 title "linearized_implicit", \
  'cloth_energy.csv' using (strcol(1) eq "bdf2" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#000000' dashtype 5 pt 5 title "bdf2", \
  'cloth_energy.csv' using (strcol(1) eq "implicit_midpoint" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#E69F00' dashtype 3 pt 9 title "implicit_midpoint", \
  'cloth_energy.csv' using (strcol(1) eq "ts_cn" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#0072B2' dashtype 1 pt 11 title "ts_cn"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_energy_energy.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'cloth_energy_energy.pdf'
replot
unset output

# Wall time per step by PETSc log event (inclusive; 'other' is the rest of SimStep), stacked
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set style data histograms
set style histogram rowstacked
set style fill pattern border -1
set boxwidth 0.7
set xtics rotate by -35
set ylabel 'ms per step'
set yrange [0:1.369822e+01]
set xrange [-0.6:10.6]
set offsets 0,0,0,0

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_energy_time.png'
plot 'cloth_energy_timing.csv' every ::1 using 7:xtic(1) title 'force' fs pattern 3 lc rgb '#E69F00', \
  'cloth_energy_timing.csv' every ::1 using 8 title 'assemble' fs pattern 4 lc rgb '#0072B2', \
  'cloth_energy_timing.csv' every ::1 using 9 title 'factor' fs pattern 5 lc rgb '#009E73', \
  'cloth_energy_timing.csv' every ::1 using 10 title 'solve' fs pattern 1 lc rgb '#D55E00', \
  'cloth_energy_timing.csv' every ::1 using 11 title 'line search' fs pattern 6 lc rgb '#56B4E9', \
  'cloth_energy_timing.csv' every ::1 using 13 title 'other' fs pattern 2 lc rgb '#CC79A7'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_energy_time.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'cloth_energy_time.pdf'
replot
unset output
