# Figures of case 'solvers' (metric solver), written by pbsim bench. Run in this directory: gnuplot solvers.gp

# Nonlinear residual per iteration in one step (log scale)
reset
set datafile separator ','
set grid
set key outside right top
set logscale y
set format y '%.0e'
set xlabel 'Newton iteration'
set ylabel 'residual (step 10)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'solvers_residual.png'
plot 'solvers.csv' using (strcol(1) eq "cholmod_direct" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "cholmod_direct", \
  'solvers.csv' using (strcol(1) eq "cg_cholmod" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "cg_cholmod", \
  'solvers.csv' using (strcol(1) eq "cg_gamg" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "cg_gamg", \
  'solvers.csv' using (strcol(1) eq "cg_hypre" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "cg_hypre", \
  'solvers.csv' using (strcol(1) eq "cg_icc" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#9467bd' dashtype 1 title "cg_icc", \
  'solvers.csv' using (strcol(1) eq "mumps" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#8c564b' dashtype 1 title "mumps"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'solvers_residual.svg'
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
set ylabel '(Phi_k - Phi*) / |Phi_0 - Phi*| (step 10)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'solvers_gap.png'
plot 'solvers.csv' using (strcol(1) eq "cholmod_direct" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "cholmod_direct", \
  'solvers.csv' using (strcol(1) eq "cg_cholmod" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "cg_cholmod", \
  'solvers.csv' using (strcol(1) eq "cg_gamg" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "cg_gamg", \
  'solvers.csv' using (strcol(1) eq "cg_hypre" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "cg_hypre", \
  'solvers.csv' using (strcol(1) eq "cg_icc" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#9467bd' dashtype 1 title "cg_icc", \
  'solvers.csv' using (strcol(1) eq "mumps" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#8c564b' dashtype 1 title "mumps"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'solvers_gap.svg'
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
set ylabel '(Phi_k - Phi*) / |Phi_0 - Phi*| (step 10)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'solvers_gap_time.png'
plot 'solvers_gap_timing.csv' using (strcol(1) eq "cholmod_direct" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "cholmod_direct", \
  'solvers_gap_timing.csv' using (strcol(1) eq "cg_cholmod" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "cg_cholmod", \
  'solvers_gap_timing.csv' using (strcol(1) eq "cg_gamg" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "cg_gamg", \
  'solvers_gap_timing.csv' using (strcol(1) eq "cg_hypre" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "cg_hypre", \
  'solvers_gap_timing.csv' using (strcol(1) eq "cg_icc" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#9467bd' dashtype 1 title "cg_icc", \
  'solvers_gap_timing.csv' using (strcol(1) eq "mumps" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#8c564b' dashtype 1 title "mumps"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'solvers_gap_time.svg'
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
set output 'solvers_iterations.png'
plot 'solvers_steps.csv' using (strcol(1) eq "cholmod_direct" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#1f77b4' dashtype 1 title "cholmod_direct", \
  'solvers_steps.csv' using (strcol(1) eq "cg_cholmod" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#ff7f0e' dashtype 1 title "cg_cholmod", \
  'solvers_steps.csv' using (strcol(1) eq "cg_gamg" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#2ca02c' dashtype 1 title "cg_gamg", \
  'solvers_steps.csv' using (strcol(1) eq "cg_hypre" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#d62728' dashtype 1 title "cg_hypre", \
  'solvers_steps.csv' using (strcol(1) eq "cg_icc" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#9467bd' dashtype 1 title "cg_icc", \
  'solvers_steps.csv' using (strcol(1) eq "mumps" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#8c564b' dashtype 1 title "mumps"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'solvers_iterations.svg'
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
set output 'solvers_time.png'
plot 'solvers_timing.csv' every ::1 using 7:xtic(1) title 'force', \
  'solvers_timing.csv' every ::1 using 8 title 'assemble', \
  'solvers_timing.csv' every ::1 using 9 title 'factor', \
  'solvers_timing.csv' every ::1 using 10 title 'solve', \
  'solvers_timing.csv' every ::1 using 11 title 'line search', \
  'solvers_timing.csv' every ::1 using 13 title 'other'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'solvers_time.svg'
replot
unset output
