# Figures of case 'chain_order_euler' (metric convergence), written by pbsim bench. Run in this directory: gnuplot chain_order_euler.gp

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
E0 = 3.593620e-04
D0 = 1.000000e-04

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'chain_order_euler_error_x.png'
plot 'chain_order_euler.csv' using (strcol(1) eq "explicit_euler" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "explicit_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "symplectic_euler" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "symplectic_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "implicit_euler" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "implicit_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "linearized_implicit" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "linearized_implicit", \
  E0*(x/D0)**1 with lines dashtype 2 lc rgb 'gray40' title 'slope 1', \
  E0*(x/D0)**2 with lines dashtype 2 lc rgb 'gray40' title 'slope 2', \
  E0*(x/D0)**4 with lines dashtype 2 lc rgb 'gray40' title 'slope 4'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'chain_order_euler_error_x.svg'
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
E0 = 3.726315e-03
D0 = 1.000000e-04

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'chain_order_euler_error_v.png'
plot 'chain_order_euler.csv' using (strcol(1) eq "explicit_euler" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "explicit_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "symplectic_euler" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "symplectic_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "implicit_euler" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "implicit_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "linearized_implicit" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "linearized_implicit", \
  E0*(x/D0)**1 with lines dashtype 2 lc rgb 'gray40' title 'slope 1', \
  E0*(x/D0)**2 with lines dashtype 2 lc rgb 'gray40' title 'slope 2', \
  E0*(x/D0)**4 with lines dashtype 2 lc rgb 'gray40' title 'slope 4'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'chain_order_euler_error_v.svg'
replot
unset output
