# Figures of case 'cloth_newton' (metric solver), written by pbsim bench. Run in this directory: gnuplot cloth_newton.gp

# Nonlinear residual per iteration in one step (log scale)
reset
set datafile separator ','
set grid
set key outside right top
set logscale y
set format y '%.0e'
set xlabel 'Newton iteration'
set ylabel 'residual (step 30)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_newton_residual.png'
plot 'cloth_newton.csv' using (strcol(1) eq "implicit_euler" && $2 == 30 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "implicit_euler", \
  'cloth_newton.csv' using (strcol(1) eq "bdf2" && $2 == 30 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "bdf2", \
  'cloth_newton.csv' using (strcol(1) eq "implicit_midpoint" && $2 == 30 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "implicit_midpoint"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_newton_residual.svg'
replot
unset output

# Nonlinear iterations per step
reset
set datafile separator ','
set grid
set key outside right top
set xlabel 'step'
set ylabel 'nonlinear iterations'
set yrange [0:*]

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_newton_iterations.png'
plot 'cloth_newton_steps.csv' using (strcol(1) eq "implicit_euler" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#1f77b4' dashtype 1 title "implicit_euler", \
  'cloth_newton_steps.csv' using (strcol(1) eq "bdf2" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#ff7f0e' dashtype 1 title "bdf2", \
  'cloth_newton_steps.csv' using (strcol(1) eq "implicit_midpoint" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#2ca02c' dashtype 1 title "implicit_midpoint", \
  'cloth_newton_steps.csv' using (strcol(1) eq "linearized_implicit" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#d62728' dashtype 1 title "linearized_implicit", \
  'cloth_newton_steps.csv' using (strcol(1) eq "ts_cn" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#9467bd' dashtype 1 title "ts_cn"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_newton_iterations.svg'
replot
unset output

# Wall time per step by PETSc log event (inclusive; 'other' is the rest of SimStep)
reset
set datafile separator ','
set grid
set key outside right top
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -35
set ylabel 'ms per step'
set yrange [0:*]

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_newton_time.png'
plot 'cloth_newton_timing.csv' every ::1 using 7:xtic(1) title 'force', \
  'cloth_newton_timing.csv' every ::1 using 8 title 'assemble', \
  'cloth_newton_timing.csv' every ::1 using 9 title 'factor', \
  'cloth_newton_timing.csv' every ::1 using 10 title 'solve', \
  'cloth_newton_timing.csv' every ::1 using 11 title 'line search', \
  'cloth_newton_timing.csv' every ::1 using 13 title 'other'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_newton_time.svg'
replot
unset output
