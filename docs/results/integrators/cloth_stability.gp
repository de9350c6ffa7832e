# Figures of case 'cloth_stability' (metric stability), written by pbsim bench. Run in this directory: gnuplot cloth_stability.gp

# Stability search: max energy error of each probe vs dt; crosses at the top: probes that blew up or failed; vertical lines: the stable dt found per label
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
set ylabel 'max relative energy error'
set yrange [* : 3.000000e+02]
set arrow from 4.819409e-05, graph 0 to 4.819409e-05, graph 1 nohead lc rgb '#000000' dashtype 1 lw 1.5
set arrow from 2.000000e-03, graph 0 to 2.000000e-03, graph 1 nohead lc rgb '#E69F00' dashtype 2 lw 1.5
set arrow from 2.000000e-03, graph 0 to 2.000000e-03, graph 1 nohead lc rgb '#0072B2' dashtype 4 lw 1.5
set arrow from 6.209289e-04, graph 0 to 6.209289e-04, graph 1 nohead lc rgb '#009E73' dashtype 5 lw 1.5
set arrow from 6.209289e-04, graph 0 to 6.209289e-04, graph 1 nohead lc rgb '#D55E00' dashtype 3 lw 1.5
set arrow from 2.953652e-03, graph 0 to 2.953652e-03, graph 1 nohead lc rgb '#56B4E9' dashtype 1 lw 1.5
set arrow from 1.000000e-01, graph 0 to 1.000000e-01, graph 1 nohead lc rgb '#CC79A7' dashtype 2 lw 1.5
set arrow from 1.000000e-01, graph 0 to 1.000000e-01, graph 1 nohead lc rgb '#999900' dashtype 4 lw 1.5
set arrow from 3.644124e-02, graph 0 to 3.644124e-02, graph 1 nohead lc rgb '#000000' dashtype 5 lw 1.5
set arrow from 1.532165e-02, graph 0 to 1.532165e-02, graph 1 nohead lc rgb '#E69F00' dashtype 3 lw 1.5
set arrow from 1.600000e-02, graph 0 to 1.600000e-02, graph 1 nohead lc rgb '#0072B2' dashtype 1 lw 1.5

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_stability_probes.png'
plot 'cloth_stability.csv' using (strcol(1) eq "explicit_euler" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#000000' dashtype 1 pt 7 title "explicit_euler", \
  'cloth_stability.csv' using (strcol(1) eq "symplectic_euler" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#E69F00' dashtype 2 pt 5 title "symplectic_euler", \
  'cloth_stability.csv' using (strcol(1) eq "verlet" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#0072B2' dashtype 4 pt 9 title "verlet", \
  'cloth_stability.csv' using (strcol(1) eq "midpoint" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#009E73' dashtype 5 pt 11 title "midpoint", \
  'cloth_stability.csv' using (strcol(1) eq "heun" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#D55E00' dashtype 3 pt 13 title "heun", \
  'cloth_stability.csv' using (strcol(1) eq "rk4" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#56B4E9' dashtype 1 pt 4 title "rk4", \
  'cloth_stability.csv' using (strcol(1) eq "implicit_euler" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#CC79A7' dashtype 2 pt 6 title "implicit_euler", \
  'cloth_stability.csv' using (strcol(1) eq "linearized_implicit" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#999900' dashtype 4 pt 8 title "linearized_implicit", \
  'cloth_stability.csv' using (strcol(1) eq "bdf2" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#000000' dashtype 5 pt 5 title "bdf2", \
  'cloth_stability.csv' using (strcol(1) eq "implicit_midpoint" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#E69F00' dashtype 3 pt 9 title "implicit_midpoint", \
  'cloth_stability.csv' using (strcol(1) eq "ts_cn" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#0072B2' dashtype 1 pt 11 title "ts_cn", \
  'cloth_stability.csv' every ::1 using 2:(($5 > 0 && $5 < 1e300) ? 1/0 : 1.000000e+02) with points pt 2 ps 1.5 lc rgb 'red' title 'blew up / failed', \
  10 with lines dashtype 2 lc rgb 'red' title 'threshold'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_stability_probes.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'cloth_stability_probes.pdf'
replot
unset output
