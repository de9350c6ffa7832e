# Figures of case 'chain_order_euler' (metric convergence), written by pbsim bench. Run in this directory: gnuplot chain_order_euler.gp

# Error of the positions at t_end vs dt (log-log), with reference slopes 1, 2, 4
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set logscale xy
set format x '%.0e'
set format y '%.0e'
set xlabel 'dt (s)'
set ylabel 'error of the positions at t_end (m, mass norm)'
set label 'slope 1' at 6.250000e-06,2.246012e-05 left offset 0.5,0 textcolor rgb 'gray30'
set label 'slope 2' at 6.250000e-06,1.403758e-06 left offset 0.5,0 textcolor rgb 'gray30'
set label 'slope 4' at 6.250000e-06,5.483429e-09 left offset 0.5,0 textcolor rgb 'gray30'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'chain_order_euler_error_x.png'
plot 'chain_order_euler.csv' using (strcol(1) eq "explicit_euler" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "explicit_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "symplectic_euler" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "symplectic_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "implicit_euler" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "implicit_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "linearized_implicit" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "linearized_implicit", \
  3.593620e-04*(x/1.000000e-04)**1 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle, \
  3.593620e-04*(x/1.000000e-04)**2 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle, \
  3.593620e-04*(x/1.000000e-04)**4 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'chain_order_euler_error_x.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'chain_order_euler_error_x.pdf'
replot
unset output

# Error of the velocities at t_end vs dt (log-log), with reference slopes 1, 2, 4
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set logscale xy
set format x '%.0e'
set format y '%.0e'
set xlabel 'dt (s)'
set ylabel 'error of the velocities at t_end (m/s, mass norm)'
set label 'slope 1' at 6.250000e-06,2.328947e-04 left offset 0.5,0 textcolor rgb 'gray30'
set label 'slope 2' at 6.250000e-06,1.455592e-05 left offset 0.5,0 textcolor rgb 'gray30'
set label 'slope 4' at 6.250000e-06,5.685906e-08 left offset 0.5,0 textcolor rgb 'gray30'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'chain_order_euler_error_v.png'
plot 'chain_order_euler.csv' using (strcol(1) eq "explicit_euler" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "explicit_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "symplectic_euler" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "symplectic_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "implicit_euler" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "implicit_euler", \
  'chain_order_euler.csv' using (strcol(1) eq "linearized_implicit" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "linearized_implicit", \
  3.726315e-03*(x/1.000000e-04)**1 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle, \
  3.726315e-03*(x/1.000000e-04)**2 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle, \
  3.726315e-03*(x/1.000000e-04)**4 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'chain_order_euler_error_v.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'chain_order_euler_error_v.pdf'
replot
unset output
