# Figures of case 'cloth_stability' (metric stability), written by pbsim bench. Run in this directory: gnuplot cloth_stability.gp

# Stability search: max energy error of each probe vs dt; crosses at the top: probes that blew up or failed; vertical lines: the stable dt found per label
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
set ylabel 'max relative energy error'
set yrange [* : 3.000000e+02]
set arrow from 2.828427e-03, graph 0 to 2.828427e-03, graph 1 nohead lc rgb '#000000' dashtype 1 lw 1.5
set arrow from 2.828427e-03, graph 0 to 2.828427e-03, graph 1 nohead lc rgb '#E69F00' dashtype 2 lw 1.5
set arrow from 4.000000e-03, graph 0 to 4.000000e-03, graph 1 nohead lc rgb '#0072B2' dashtype 4 lw 1.5
set arrow from 2.934413e-02, graph 0 to 2.934413e-02, graph 1 nohead lc rgb '#009E73' dashtype 5 lw 1.5
set arrow from 2.934413e-02, graph 0 to 2.934413e-02, graph 1 nohead lc rgb '#D55E00' dashtype 3 lw 1.5
set arrow from 2.576785e-02, graph 0 to 2.576785e-02, graph 1 nohead lc rgb '#56B4E9' dashtype 1 lw 1.5

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_stability_probes.png'
plot 'cloth_stability.csv' using (strcol(1) eq "symplectic_euler" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#000000' dashtype 1 pt 7 title "symplectic_euler", \
  'cloth_stability.csv' using (strcol(1) eq "verlet" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#E69F00' dashtype 2 pt 5 title "verlet", \
  'cloth_stability.csv' using (strcol(1) eq "rk4" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#0072B2' dashtype 4 pt 9 title "rk4", \
  'cloth_stability.csv' using (strcol(1) eq "implicit_euler" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#009E73' dashtype 5 pt 11 title "implicit_euler", \
  'cloth_stability.csv' using (strcol(1) eq "bdf2" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#D55E00' dashtype 3 pt 13 title "bdf2", \
  'cloth_stability.csv' using (strcol(1) eq "implicit_midpoint" && $5 > 0 && $5 < 1e300 ? $2 : 1/0):5 with points lc rgb '#56B4E9' dashtype 1 pt 4 title "implicit_midpoint", \
  'cloth_stability.csv' every ::1 using 2:(($5 > 0 && $5 < 1e300) ? 1/0 : 1.000000e+02) with points pt 2 ps 1.5 lc rgb 'red' title 'blew up / failed', \
  10 with lines dashtype 2 lc rgb 'red' title 'threshold'
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_stability_probes.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_stability_probes.pdf'
replot
unset output
