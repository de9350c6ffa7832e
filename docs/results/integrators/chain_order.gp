# Figures of case 'chain_order' (metric convergence), written by pbsim bench. Run in this directory: gnuplot chain_order.gp

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
set label 'slope 1' at 1.250000e-04,7.706700e-06 left offset 0.5,0 textcolor rgb 'gray30'
set label 'slope 2' at 1.250000e-04,4.816688e-07 left offset 0.5,0 textcolor rgb 'gray30'
set label 'slope 4' at 1.250000e-04,1.881519e-09 left offset 0.5,0 textcolor rgb 'gray30'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'chain_order_error_x.png'
plot 'chain_order.csv' using (strcol(1) eq "verlet" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "verlet", \
  'chain_order.csv' using (strcol(1) eq "midpoint" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "midpoint", \
  'chain_order.csv' using (strcol(1) eq "heun" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "heun", \
  'chain_order.csv' using (strcol(1) eq "rk4" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "rk4", \
  'chain_order.csv' using (strcol(1) eq "bdf2" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#D55E00' dashtype 3 pt 13 title "bdf2", \
  'chain_order.csv' using (strcol(1) eq "implicit_midpoint" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#56B4E9' dashtype 1 pt 4 title "implicit_midpoint", \
  'chain_order.csv' using (strcol(1) eq "ts_cn" ? $2 : 1/0):4 with linespoints lw 2 lc rgb '#CC79A7' dashtype 2 pt 6 title "ts_cn", \
  1.233072e-04*(x/2.000000e-03)**1 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle, \
  1.233072e-04*(x/2.000000e-03)**2 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle, \
  1.233072e-04*(x/2.000000e-03)**4 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'chain_order_error_x.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'chain_order_error_x.pdf'
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
set label 'slope 1' at 1.250000e-04,4.282557e-04 left offset 0.5,0 textcolor rgb 'gray30'
set label 'slope 2' at 1.250000e-04,2.676598e-05 left offset 0.5,0 textcolor rgb 'gray30'
set label 'slope 4' at 1.250000e-04,1.045546e-07 left offset 0.5,0 textcolor rgb 'gray30'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'chain_order_error_v.png'
plot 'chain_order.csv' using (strcol(1) eq "verlet" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "verlet", \
  'chain_order.csv' using (strcol(1) eq "midpoint" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "midpoint", \
  'chain_order.csv' using (strcol(1) eq "heun" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "heun", \
  'chain_order.csv' using (strcol(1) eq "rk4" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "rk4", \
  'chain_order.csv' using (strcol(1) eq "bdf2" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#D55E00' dashtype 3 pt 13 title "bdf2", \
  'chain_order.csv' using (strcol(1) eq "implicit_midpoint" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#56B4E9' dashtype 1 pt 4 title "implicit_midpoint", \
  'chain_order.csv' using (strcol(1) eq "ts_cn" ? $2 : 1/0):5 with linespoints lw 2 lc rgb '#CC79A7' dashtype 2 pt 6 title "ts_cn", \
  6.852091e-03*(x/2.000000e-03)**1 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle, \
  6.852091e-03*(x/2.000000e-03)**2 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle, \
  6.852091e-03*(x/2.000000e-03)**4 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'chain_order_error_v.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'chain_order_error_v.pdf'
replot
unset output
