# Figures of case 'mesh_sweep' (metric solver), written by pbsim bench. Run in this directory: gnuplot mesh_sweep.gp

# Nonlinear residual per iteration in one step (log scale)
reset
set datafile separator ','
set grid
set key outside right top
set logscale y
set format y '%.0e'
set xlabel 'Newton iteration'
set ylabel 'residual (step 5)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'mesh_sweep_residual.png'
plot 'mesh_sweep.csv' using (strcol(1) eq "n10" && $2 == 5 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "n10", \
  'mesh_sweep.csv' using (strcol(1) eq "n20" && $2 == 5 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "n20", \
  'mesh_sweep.csv' using (strcol(1) eq "n40" && $2 == 5 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "n40", \
  'mesh_sweep.csv' using (strcol(1) eq "n80" && $2 == 5 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "n80"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'mesh_sweep_residual.svg'
replot
unset output

# Relative gap of the objective per iteration in one step (log scale)
reset
set datafile separator ','
set grid
set key outside right top
set logscale y
set format y '%.0e'
set xlabel 'iteration'
set ylabel '(Phi_k - Phi*) / |Phi_0 - Phi*| (step 5)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'mesh_sweep_gap.png'
plot 'mesh_sweep.csv' using (strcol(1) eq "n10" && $2 == 5 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "n10", \
  'mesh_sweep.csv' using (strcol(1) eq "n20" && $2 == 5 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "n20", \
  'mesh_sweep.csv' using (strcol(1) eq "n40" && $2 == 5 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "n40", \
  'mesh_sweep.csv' using (strcol(1) eq "n80" && $2 == 5 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "n80"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'mesh_sweep_gap.svg'
replot
unset output

# Relative gap of the objective vs wall time in one step (log scale)
reset
set datafile separator ','
set grid
set key outside right top
set logscale y
set format y '%.0e'
set xlabel 'wall time in the step (ms)'
set ylabel '(Phi_k - Phi*) / |Phi_0 - Phi*| (step 5)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'mesh_sweep_gap_time.png'
plot 'mesh_sweep_gap_timing.csv' using (strcol(1) eq "n10" && $2 == 5 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "n10", \
  'mesh_sweep_gap_timing.csv' using (strcol(1) eq "n20" && $2 == 5 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "n20", \
  'mesh_sweep_gap_timing.csv' using (strcol(1) eq "n40" && $2 == 5 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "n40", \
  'mesh_sweep_gap_timing.csv' using (strcol(1) eq "n80" && $2 == 5 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "n80"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'mesh_sweep_gap_time.svg'
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
set output 'mesh_sweep_iterations.png'
plot 'mesh_sweep_steps.csv' using (strcol(1) eq "n10" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#1f77b4' dashtype 1 title "n10", \
  'mesh_sweep_steps.csv' using (strcol(1) eq "n20" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#ff7f0e' dashtype 1 title "n20", \
  'mesh_sweep_steps.csv' using (strcol(1) eq "n40" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#2ca02c' dashtype 1 title "n40", \
  'mesh_sweep_steps.csv' using (strcol(1) eq "n80" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#d62728' dashtype 1 title "n80"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'mesh_sweep_iterations.svg'
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
set output 'mesh_sweep_time.png'
plot 'mesh_sweep_timing.csv' every ::1 using 7:xtic(1) title 'force', \
  'mesh_sweep_timing.csv' every ::1 using 8 title 'assemble', \
  'mesh_sweep_timing.csv' every ::1 using 9 title 'factor', \
  'mesh_sweep_timing.csv' every ::1 using 10 title 'solve', \
  'mesh_sweep_timing.csv' every ::1 using 11 title 'line search', \
  'mesh_sweep_timing.csv' every ::1 using 13 title 'other'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'mesh_sweep_time.svg'
replot
unset output
