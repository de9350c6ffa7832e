# Figures of case 'oscillator_order' (metric convergence), written by pbsim bench. Run in this directory: gnuplot oscillator_order.gp

# Error of the positions at t_end vs dt (log-log), with reference slopes 1, 2, 4
reset
set datafile separator ','
set grid
set key outside right top
set logscale xy
set format x '%.0e'
set format y '%.0e'
set xlabel 'dt (s)'
set ylabel 'error of the positions at t = 1 s (mass-weighted norm)'
E0 = 1.945566e-04
D0 = 1.000000e-02

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'oscillator_order_error_x.png'
plot 'oscillator_order.csv' using (strcol(1) eq "verlet" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "verlet", \
  'oscillator_order.csv' using (strcol(1) eq "midpoint" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "midpoint", \
  'oscillator_order.csv' using (strcol(1) eq "heun" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "heun", \
  'oscillator_order.csv' using (strcol(1) eq "rk4" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "rk4", \
  'oscillator_order.csv' using (strcol(1) eq "bdf2" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#9467bd' dashtype 1 title "bdf2", \
  'oscillator_order.csv' using (strcol(1) eq "implicit_midpoint" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#8c564b' dashtype 1 title "implicit_midpoint", \
  'oscillator_order.csv' using (strcol(1) eq "ts_cn" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#e377c2' dashtype 1 title "ts_cn", \
  E0*(x/D0)**1 with lines dashtype 2 lc rgb 'gray40' title 'slope 1', \
  E0*(x/D0)**2 with lines dashtype 2 lc rgb 'gray40' title 'slope 2', \
  E0*(x/D0)**4 with lines dashtype 2 lc rgb 'gray40' title 'slope 4'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'oscillator_order_error_x.svg'
replot
unset output

# Error of the velocities at t_end vs dt (log-log), with reference slopes 1, 2, 4
reset
set datafile separator ','
set grid
set key outside right top
set logscale xy
set format x '%.0e'
set format y '%.0e'
set xlabel 'dt (s)'
set ylabel 'error of the velocities at t = 1 s (mass-weighted norm)'
E0 = 3.540777e-03
D0 = 1.000000e-02

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'oscillator_order_error_v.png'
plot 'oscillator_order.csv' using (strcol(1) eq "verlet" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "verlet", \
  'oscillator_order.csv' using (strcol(1) eq "midpoint" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "midpoint", \
  'oscillator_order.csv' using (strcol(1) eq "heun" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "heun", \
  'oscillator_order.csv' using (strcol(1) eq "rk4" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "rk4", \
  'oscillator_order.csv' using (strcol(1) eq "bdf2" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#9467bd' dashtype 1 title "bdf2", \
  'oscillator_order.csv' using (strcol(1) eq "implicit_midpoint" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#8c564b' dashtype 1 title "implicit_midpoint", \
  'oscillator_order.csv' using (strcol(1) eq "ts_cn" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#e377c2' dashtype 1 title "ts_cn", \
  E0*(x/D0)**1 with lines dashtype 2 lc rgb 'gray40' title 'slope 1', \
  E0*(x/D0)**2 with lines dashtype 2 lc rgb 'gray40' title 'slope 2', \
  E0*(x/D0)**4 with lines dashtype 2 lc rgb 'gray40' title 'slope 4'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'oscillator_order_error_v.svg'
replot
unset output
