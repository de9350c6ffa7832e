# Figures of case 'cloth_mode' (metric oscillation), written by pbsim bench. Run in this directory: gnuplot cloth_mode.gp

# Phase error per period of the dominant oscillation vs dt (log-log), against the reference's fitted frequency
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
set xlabel 'dt (s)'
set ylabel '|phase error| per period (rad)'
set label 'slope 1' at 5.000000e-04,9.131335e-05 left offset 0.5,0 textcolor rgb 'gray30'
set label 'slope 2' at 5.000000e-04,2.282834e-05 left offset 0.5,0 textcolor rgb 'gray30'

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_mode_phase.png'
plot '< grep -F ",symplectic_euler," cloth_mode_fit.csv' using 3:($6 != 0 ? abs($6) : 1/0) with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "symplectic_euler", \
  '< grep -F ",verlet," cloth_mode_fit.csv' using 3:($6 != 0 ? abs($6) : 1/0) with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "verlet", \
  '< grep -F ",rk4," cloth_mode_fit.csv' using 3:($6 != 0 ? abs($6) : 1/0) with linespoints lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "rk4", \
  '< grep -F ",implicit_euler," cloth_mode_fit.csv' using 3:($6 != 0 ? abs($6) : 1/0) with linespoints lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "implicit_euler", \
  '< grep -F ",bdf2," cloth_mode_fit.csv' using 3:($6 != 0 ? abs($6) : 1/0) with linespoints lw 2 lc rgb '#D55E00' dashtype 3 pt 13 title "bdf2", \
  '< grep -F ",implicit_midpoint," cloth_mode_fit.csv' using 3:($6 != 0 ? abs($6) : 1/0) with linespoints lw 2 lc rgb '#56B4E9' dashtype 1 pt 4 title "implicit_midpoint", \
  3.652534e-04*(x/2.000000e-03)**1 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle, \
  3.652534e-04*(x/2.000000e-03)**2 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_mode_phase.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_mode_phase.pdf'
replot
unset output

# Numerical damping: |1 - amplitude ratio per reference period| vs dt (log-log; energy-conserving methods sit at the round-off floor or off the plot)
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
set xlabel 'dt (s)'
set ylabel '|1 - amplitude ratio per period|'

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_mode_damping.png'
plot '< grep -F ",symplectic_euler," cloth_mode_fit.csv' using 3:(abs(1 - $8) > 0 ? abs(1 - $8) : 1/0) with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "symplectic_euler", \
  '< grep -F ",verlet," cloth_mode_fit.csv' using 3:(abs(1 - $8) > 0 ? abs(1 - $8) : 1/0) with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "verlet", \
  '< grep -F ",rk4," cloth_mode_fit.csv' using 3:(abs(1 - $8) > 0 ? abs(1 - $8) : 1/0) with linespoints lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "rk4", \
  '< grep -F ",implicit_euler," cloth_mode_fit.csv' using 3:(abs(1 - $8) > 0 ? abs(1 - $8) : 1/0) with linespoints lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "implicit_euler", \
  '< grep -F ",bdf2," cloth_mode_fit.csv' using 3:(abs(1 - $8) > 0 ? abs(1 - $8) : 1/0) with linespoints lw 2 lc rgb '#D55E00' dashtype 3 pt 13 title "bdf2", \
  '< grep -F ",implicit_midpoint," cloth_mode_fit.csv' using 3:(abs(1 - $8) > 0 ? abs(1 - $8) : 1/0) with linespoints lw 2 lc rgb '#56B4E9' dashtype 1 pt 4 title "implicit_midpoint"
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_mode_damping.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_mode_damping.pdf'
replot
unset output

# The oscillating signal over time (the free vertices' mass-weighted mean position) and the reference
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 0.6
set key below maxrows 3 samplen 2.5
set xlabel 'time (s)'
set ylabel 'signal (m)'

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_mode_signal.png'
plot 'cloth_mode.csv' using (strcol(1) eq "0.002/symplectic_euler" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#000000' dashtype 1 pt 7 title "0.002/symplectic_euler", \
  'cloth_mode.csv' using (strcol(1) eq "0.002/verlet" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#E69F00' dashtype 2 pt 5 title "0.002/verlet", \
  'cloth_mode.csv' using (strcol(1) eq "0.002/rk4" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#0072B2' dashtype 4 pt 9 title "0.002/rk4", \
  'cloth_mode.csv' using (strcol(1) eq "0.002/implicit_euler" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#009E73' dashtype 5 pt 11 title "0.002/implicit_euler", \
  'cloth_mode.csv' using (strcol(1) eq "0.002/bdf2" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#D55E00' dashtype 3 pt 13 title "0.002/bdf2", \
  'cloth_mode.csv' using (strcol(1) eq "0.002/implicit_midpoint" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#56B4E9' dashtype 1 pt 4 title "0.002/implicit_midpoint", \
  'cloth_mode.csv' using (strcol(1) eq "0.001/symplectic_euler" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#CC79A7' dashtype 2 pt 6 title "0.001/symplectic_euler", \
  'cloth_mode.csv' using (strcol(1) eq "0.001/verlet" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#999900' dashtype 4 pt 8 title "0.001/verlet", \
  'cloth_mode.csv' using (strcol(1) eq "0.001/rk4" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#000000' dashtype 5 pt 5 title "0.001/rk4", \
  'cloth_mode.csv' using (strcol(1) eq "0.001/implicit_euler" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#E69F00' dashtype 3 pt 9 title "0.001/implicit_euler", \
  'cloth_mode.csv' using (strcol(1) eq "0.001/bdf2" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#0072B2' dashtype 1 pt 11 title "0.001/bdf2", \
  'cloth_mode.csv' using (strcol(1) eq "0.001/implicit_midpoint" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#009E73' dashtype 2 pt 13 title "0.001/implicit_midpoint", \
  'cloth_mode.csv' using (strcol(1) eq "0.0005/symplectic_euler" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#D55E00' dashtype 4 pt 4 title "0.0005/symplectic_euler", \
  'cloth_mode.csv' using (strcol(1) eq "0.0005/verlet" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#56B4E9' dashtype 5 pt 6 title "0.0005/verlet", \
  'cloth_mode.csv' using (strcol(1) eq "0.0005/rk4" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#CC79A7' dashtype 3 pt 8 title "0.0005/rk4", \
  'cloth_mode.csv' using (strcol(1) eq "0.0005/implicit_euler" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#999900' dashtype 1 pt 7 title "0.0005/implicit_euler", \
  'cloth_mode.csv' using (strcol(1) eq "0.0005/bdf2" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#000000' dashtype 2 pt 9 title "0.0005/bdf2", \
  'cloth_mode.csv' using (strcol(1) eq "0.0005/implicit_midpoint" ? $3 : 1/0):4 with lines lw 1.2 lc rgb '#E69F00' dashtype 4 pt 11 title "0.0005/implicit_midpoint", \
  'cloth_mode_reference.csv' every ::1 using 1:2 with lines lw 2.5 lc rgb 'gray60' dashtype 1 title 'reference'
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_mode_signal.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_mode_signal.pdf'
replot
unset output
