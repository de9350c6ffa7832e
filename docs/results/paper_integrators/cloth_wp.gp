# Figures of case 'cloth_wp' (metric work_precision), written by pbsim bench. Run in this directory: gnuplot cloth_wp.gp

# Work-precision: error at t_end vs wall time (log-log), one line per integrator over its dt sweep
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 0.6
set key below maxrows 3 samplen 2.5
set logscale xy
set format x '%.0e'
set format y '%.0e'
set xlabel 'wall time of the run (s; median of the repeats, bars min..max)'
set ylabel 'final error (m, mass norm)'

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_wp_work_precision.png'
plot '< grep -F ",symplectic_euler," cloth_wp_wp_timing.csv' using 6:($4 > 0 ? $4 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#000000' dashtype 1 pt 7 title "symplectic_euler", \
  '< grep -F ",verlet," cloth_wp_wp_timing.csv' using 6:($4 > 0 ? $4 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "verlet", \
  '< grep -F ",rk4," cloth_wp_wp_timing.csv' using 6:($4 > 0 ? $4 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "rk4", \
  '< grep -F ",implicit_euler," cloth_wp_wp_timing.csv' using 6:($4 > 0 ? $4 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "implicit_euler", \
  '< grep -F ",bdf2," cloth_wp_wp_timing.csv' using 6:($4 > 0 ? $4 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#D55E00' dashtype 3 pt 13 title "bdf2", \
  '< grep -F ",implicit_midpoint," cloth_wp_wp_timing.csv' using 6:($4 > 0 ? $4 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#56B4E9' dashtype 1 pt 4 title "implicit_midpoint"
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_wp_work_precision.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_wp_work_precision.pdf'
replot
unset output

# Work-precision: max error over time vs wall time (log-log), one line per integrator over its dt sweep
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 0.6
set key below maxrows 3 samplen 2.5
set logscale xy
set format x '%.0e'
set format y '%.0e'
set xlabel 'wall time of the run (s; median of the repeats, bars min..max)'
set ylabel 'max-over-time error (m, mass norm)'

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_wp_work_precision_max.png'
plot '< grep -F ",symplectic_euler," cloth_wp_wp_timing.csv' using 6:($5 > 0 ? $5 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#000000' dashtype 1 pt 7 title "symplectic_euler", \
  '< grep -F ",verlet," cloth_wp_wp_timing.csv' using 6:($5 > 0 ? $5 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "verlet", \
  '< grep -F ",rk4," cloth_wp_wp_timing.csv' using 6:($5 > 0 ? $5 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "rk4", \
  '< grep -F ",implicit_euler," cloth_wp_wp_timing.csv' using 6:($5 > 0 ? $5 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "implicit_euler", \
  '< grep -F ",bdf2," cloth_wp_wp_timing.csv' using 6:($5 > 0 ? $5 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#D55E00' dashtype 3 pt 13 title "bdf2", \
  '< grep -F ",implicit_midpoint," cloth_wp_wp_timing.csv' using 6:($5 > 0 ? $5 : 1/0):7:8 with xerrorlines lw 2 lc rgb '#56B4E9' dashtype 1 pt 4 title "implicit_midpoint"
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_wp_work_precision_max.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_wp_work_precision_max.pdf'
replot
unset output

# Error over time (log scale), every label
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 0.6
set key below maxrows 3 samplen 2.5
set logscale y
set format y '%.0e'
set xlabel 'time (s)'
set ylabel 'error (m, mass norm)'

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_wp_error_time.png'
plot 'cloth_wp_error.csv' using (strcol(1) eq "0.004/symplectic_euler" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#000000' dashtype 1 pt 7 title "0.004/symplectic_euler", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.004/verlet" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#E69F00' dashtype 2 pt 5 title "0.004/verlet", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.004/rk4" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#0072B2' dashtype 4 pt 9 title "0.004/rk4", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.004/implicit_euler" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#009E73' dashtype 5 pt 11 title "0.004/implicit_euler", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.004/bdf2" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#D55E00' dashtype 3 pt 13 title "0.004/bdf2", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.004/implicit_midpoint" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#56B4E9' dashtype 1 pt 4 title "0.004/implicit_midpoint", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.002/symplectic_euler" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#CC79A7' dashtype 2 pt 6 title "0.002/symplectic_euler", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.002/verlet" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#999900' dashtype 4 pt 8 title "0.002/verlet", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.002/rk4" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#000000' dashtype 5 pt 5 title "0.002/rk4", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.002/implicit_euler" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#E69F00' dashtype 3 pt 9 title "0.002/implicit_euler", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.002/bdf2" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#0072B2' dashtype 1 pt 11 title "0.002/bdf2", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.002/implicit_midpoint" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#009E73' dashtype 2 pt 13 title "0.002/implicit_midpoint", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.001/symplectic_euler" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#D55E00' dashtype 4 pt 4 title "0.001/symplectic_euler", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.001/verlet" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#56B4E9' dashtype 5 pt 6 title "0.001/verlet", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.001/rk4" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#CC79A7' dashtype 3 pt 8 title "0.001/rk4", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.001/implicit_euler" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#999900' dashtype 1 pt 7 title "0.001/implicit_euler", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.001/bdf2" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#000000' dashtype 2 pt 9 title "0.001/bdf2", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.001/implicit_midpoint" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#E69F00' dashtype 4 pt 11 title "0.001/implicit_midpoint", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.0005/symplectic_euler" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#0072B2' dashtype 5 pt 13 title "0.0005/symplectic_euler", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.0005/verlet" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#009E73' dashtype 3 pt 4 title "0.0005/verlet", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.0005/rk4" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#D55E00' dashtype 1 pt 6 title "0.0005/rk4", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.0005/implicit_euler" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#56B4E9' dashtype 2 pt 8 title "0.0005/implicit_euler", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.0005/bdf2" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#CC79A7' dashtype 4 pt 7 title "0.0005/bdf2", \
  'cloth_wp_error.csv' using (strcol(1) eq "0.0005/implicit_midpoint" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#999900' dashtype 5 pt 5 title "0.0005/implicit_midpoint", \
  'cloth_wp_error.csv' using (strcol(1) eq "symplectic_euler" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#000000' dashtype 3 pt 11 title "symplectic_euler", \
  'cloth_wp_error.csv' using (strcol(1) eq "verlet" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#E69F00' dashtype 1 pt 13 title "verlet", \
  'cloth_wp_error.csv' using (strcol(1) eq "rk4" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#0072B2' dashtype 2 pt 4 title "rk4", \
  'cloth_wp_error.csv' using (strcol(1) eq "implicit_euler" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#009E73' dashtype 4 pt 6 title "implicit_euler", \
  'cloth_wp_error.csv' using (strcol(1) eq "bdf2" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#D55E00' dashtype 5 pt 8 title "bdf2", \
  'cloth_wp_error.csv' using (strcol(1) eq "implicit_midpoint" && $5 > 0 ? $4 : 1/0):5 with linespoints lw 1.2 lc rgb '#56B4E9' dashtype 3 pt 7 title "implicit_midpoint"
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_wp_error_time.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_wp_error_time.pdf'
replot
unset output
