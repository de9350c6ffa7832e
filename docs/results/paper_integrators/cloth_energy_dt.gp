# Figures of case 'cloth_energy_dt' (metric energy), written by pbsim bench. Run in this directory: gnuplot cloth_energy_dt.gp

# Relative energy error |E(t) - E(0)| / scale over time (log scale, clipped to 1e-10 .. 100)
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
set ylabel 'relative energy error'
set yrange [1e-10 < * : * < 100]

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_energy_dt_energy_error.png'
plot 'cloth_energy_dt.csv' using (strcol(1) eq "0.004/symplectic_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#000000' dashtype 1 pt 7 title "0.004/symplectic_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.004/verlet" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#E69F00' dashtype 2 pt 5 title "0.004/verlet", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.004/rk4" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#0072B2' dashtype 4 pt 9 title "0.004/rk4", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.004/implicit_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#009E73' dashtype 5 pt 11 title "0.004/implicit_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.004/bdf2" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#D55E00' dashtype 3 pt 13 title "0.004/bdf2", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.004/implicit_midpoint" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#56B4E9' dashtype 1 pt 4 title "0.004/implicit_midpoint", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/symplectic_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#CC79A7' dashtype 2 pt 6 title "0.002/symplectic_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/verlet" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#999900' dashtype 4 pt 8 title "0.002/verlet", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/rk4" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#000000' dashtype 5 pt 5 title "0.002/rk4", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/implicit_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#E69F00' dashtype 3 pt 9 title "0.002/implicit_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/bdf2" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#0072B2' dashtype 1 pt 11 title "0.002/bdf2", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/implicit_midpoint" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#009E73' dashtype 2 pt 13 title "0.002/implicit_midpoint", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/symplectic_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#D55E00' dashtype 4 pt 4 title "0.001/symplectic_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/verlet" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#56B4E9' dashtype 5 pt 6 title "0.001/verlet", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/rk4" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#CC79A7' dashtype 3 pt 8 title "0.001/rk4", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/implicit_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#999900' dashtype 1 pt 7 title "0.001/implicit_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/bdf2" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#000000' dashtype 2 pt 9 title "0.001/bdf2", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/implicit_midpoint" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#E69F00' dashtype 4 pt 11 title "0.001/implicit_midpoint", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/symplectic_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#0072B2' dashtype 5 pt 13 title "0.0005/symplectic_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/verlet" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#009E73' dashtype 3 pt 4 title "0.0005/verlet", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/rk4" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#D55E00' dashtype 1 pt 6 title "0.0005/rk4", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/implicit_euler" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#56B4E9' dashtype 2 pt 8 title "0.0005/implicit_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/bdf2" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#CC79A7' dashtype 4 pt 7 title "0.0005/bdf2", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/implicit_midpoint" && $8 > 0 ? $3 : 1/0):8 with linespoints lw 1.5 pi 15 lc rgb '#999900' dashtype 5 pt 5 title "0.0005/implicit_midpoint"
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_energy_dt_energy_error.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_energy_dt_energy_error.pdf'
replot
unset output

# Relative energy change (E(t) - E(0)) / scale over time (axis clipped to -1 .. 1)
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 0.6
set key below maxrows 3 samplen 2.5
set xlabel 'time (s)'
set ylabel '(E(t) - E(0)) / scale'
set yrange [-1 < * : * < 1]

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_energy_dt_energy.png'
plot 'cloth_energy_dt.csv' using (strcol(1) eq "0.004/symplectic_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#000000' dashtype 1 pt 7 title "0.004/symplectic_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.004/verlet" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#E69F00' dashtype 2 pt 5 title "0.004/verlet", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.004/rk4" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#0072B2' dashtype 4 pt 9 title "0.004/rk4", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.004/implicit_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#009E73' dashtype 5 pt 11 title "0.004/implicit_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.004/bdf2" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#D55E00' dashtype 3 pt 13 title "0.004/bdf2", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.004/implicit_midpoint" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#56B4E9' dashtype 1 pt 4 title "0.004/implicit_midpoint", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/symplectic_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#CC79A7' dashtype 2 pt 6 title "0.002/symplectic_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/verlet" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#999900' dashtype 4 pt 8 title "0.002/verlet", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/rk4" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#000000' dashtype 5 pt 5 title "0.002/rk4", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/implicit_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#E69F00' dashtype 3 pt 9 title "0.002/implicit_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/bdf2" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#0072B2' dashtype 1 pt 11 title "0.002/bdf2", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.002/implicit_midpoint" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#009E73' dashtype 2 pt 13 title "0.002/implicit_midpoint", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/symplectic_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#D55E00' dashtype 4 pt 4 title "0.001/symplectic_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/verlet" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#56B4E9' dashtype 5 pt 6 title "0.001/verlet", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/rk4" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#CC79A7' dashtype 3 pt 8 title "0.001/rk4", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/implicit_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#999900' dashtype 1 pt 7 title "0.001/implicit_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/bdf2" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#000000' dashtype 2 pt 9 title "0.001/bdf2", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.001/implicit_midpoint" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#E69F00' dashtype 4 pt 11 title "0.001/implicit_midpoint", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/symplectic_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#0072B2' dashtype 5 pt 13 title "0.0005/symplectic_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/verlet" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#009E73' dashtype 3 pt 4 title "0.0005/verlet", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/rk4" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#D55E00' dashtype 1 pt 6 title "0.0005/rk4", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/implicit_euler" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#56B4E9' dashtype 2 pt 8 title "0.0005/implicit_euler", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/bdf2" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#CC79A7' dashtype 4 pt 7 title "0.0005/bdf2", \
  'cloth_energy_dt.csv' using (strcol(1) eq "0.0005/implicit_midpoint" ? $3 : 1/0):7 with linespoints lw 1.5 pi 15 lc rgb '#999900' dashtype 5 pt 5 title "0.0005/implicit_midpoint"
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_energy_dt_energy.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_energy_dt_energy.pdf'
replot
unset output

# Max relative energy error vs dt per integrator (log-log), with reference slopes 1 and 2
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
set label 'slope 1' at 5.000000e-04,7.816969e-04 left offset 0.5,0 textcolor rgb 'gray30'
set label 'slope 2' at 5.000000e-04,9.771211e-05 left offset 0.5,0 textcolor rgb 'gray30'

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_energy_dt_energy_dt.png'
plot '< grep -F ",symplectic_euler," cloth_energy_dt_dt.csv' using 3:($4 > 0 ? $4 : 1/0) with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "symplectic_euler", \
  '< grep -F ",verlet," cloth_energy_dt_dt.csv' using 3:($4 > 0 ? $4 : 1/0) with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "verlet", \
  '< grep -F ",rk4," cloth_energy_dt_dt.csv' using 3:($4 > 0 ? $4 : 1/0) with linespoints lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "rk4", \
  '< grep -F ",implicit_euler," cloth_energy_dt_dt.csv' using 3:($4 > 0 ? $4 : 1/0) with linespoints lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "implicit_euler", \
  '< grep -F ",bdf2," cloth_energy_dt_dt.csv' using 3:($4 > 0 ? $4 : 1/0) with linespoints lw 2 lc rgb '#D55E00' dashtype 3 pt 13 title "bdf2", \
  '< grep -F ",implicit_midpoint," cloth_energy_dt_dt.csv' using 3:($4 > 0 ? $4 : 1/0) with linespoints lw 2 lc rgb '#56B4E9' dashtype 1 pt 4 title "implicit_midpoint", \
  6.253575e-03*(x/4.000000e-03)**1 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle, \
  6.253575e-03*(x/4.000000e-03)**2 with lines dashtype 3 lw 1 lc rgb 'gray50' notitle
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_energy_dt_energy_dt.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_energy_dt_energy_dt.pdf'
replot
unset output

# Wall time per step by PETSc log event (inclusive; 'other' is the rest of SimStep), stacked
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 0.6
set key below maxrows 3 samplen 2.5
set style data histograms
set style histogram rowstacked
set style fill pattern border -1
set boxwidth 0.7
set xtics rotate by -35
set ylabel 'ms per step'
set yrange [0:1.490007e+00]
set xrange [-0.6:23.6]
set offsets 0,0,0,0

set terminal pngcairo size 1050,735 noenhanced font 'Sans,24' linewidth 3
set output 'cloth_energy_dt_time.png'
plot 'cloth_energy_dt_timing.csv' every ::1 using 7:xtic(1) title 'force' fs pattern 3 lc rgb '#E69F00', \
  'cloth_energy_dt_timing.csv' every ::1 using 8 title 'assemble' fs pattern 4 lc rgb '#0072B2', \
  'cloth_energy_dt_timing.csv' every ::1 using 9 title 'factor' fs pattern 5 lc rgb '#009E73', \
  'cloth_energy_dt_timing.csv' every ::1 using 10 title 'solve' fs pattern 1 lc rgb '#D55E00', \
  'cloth_energy_dt_timing.csv' every ::1 using 11 title 'line search' fs pattern 6 lc rgb '#56B4E9', \
  'cloth_energy_dt_timing.csv' every ::1 using 13 title 'other' fs pattern 2 lc rgb '#CC79A7'
set terminal svg size 252,176 noenhanced font 'Sans,8' background rgb 'white'
set output 'cloth_energy_dt_time.svg'
replot
set terminal pdfcairo size 3.5in,2.45in noenhanced font 'Sans,8'
set output 'cloth_energy_dt_time.pdf'
replot
unset output
