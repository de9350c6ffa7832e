# Figures of case 'pressure3d' (metric poisson), written by pbsim bench. Run in this directory: gnuplot pressure3d.gp

# CG iterations to a 1e-8 relative residual vs cells per axis
reset
set datafile separator ','
set grid
set key outside right top
set logscale x 2
set xlabel 'cells per axis'
set ylabel 'iterations'
set yrange [0:*]

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'pressure3d_iterations.png'
plot '< grep -F ",mgpcg," pressure3d.csv' using 4:6 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "mgpcg", \
  '< grep -F ",mgpcg_assembled," pressure3d.csv' using 4:6 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "mgpcg_assembled", \
  '< grep -F ",gamg," pressure3d.csv' using 4:6 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "gamg", \
  '< grep -F ",hypre," pressure3d.csv' using 4:6 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "hypre"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'pressure3d_iterations.svg'
replot
unset output

# Time per projection (best of the repeats) vs unknowns (log-log)
reset
set datafile separator ','
set grid
set key outside right top
set logscale xy
set format x '%.0e'
set xlabel 'unknowns (cells)'
set ylabel 'ms per projection'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'pressure3d_time.png'
plot '< grep -F ",mgpcg," pressure3d_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "mgpcg", \
  '< grep -F ",mgpcg_assembled," pressure3d_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "mgpcg_assembled", \
  '< grep -F ",gamg," pressure3d_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "gamg", \
  '< grep -F ",hypre," pressure3d_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "hypre"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'pressure3d_time.svg'
replot
unset output

# Time per CG iteration vs the memory-bandwidth bound (modelled bytes per iteration / STREAM triad bandwidth)
reset
set datafile separator ','
set grid
set key outside right top
set logscale xy
set format x '%.0e'
set xlabel 'unknowns (cells)'
set ylabel 'ms per iteration'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'pressure3d_per_iteration.png'
plot '< grep -F ",mgpcg," pressure3d_solve_timing.csv' using 3:8 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "mgpcg", \
  '< grep -F ",mgpcg_assembled," pressure3d_solve_timing.csv' using 3:8 with linespoints lw 2 lc rgb '#ff7f0e' dashtype 1 title "mgpcg_assembled", \
  '< grep -F ",gamg," pressure3d_solve_timing.csv' using 3:8 with linespoints lw 2 lc rgb '#2ca02c' dashtype 1 title "gamg", \
  '< grep -F ",hypre," pressure3d_solve_timing.csv' using 3:8 with linespoints lw 2 lc rgb '#d62728' dashtype 1 title "hypre", \
  '< grep -F ",mgpcg," pressure3d_solve_timing.csv' using 3:9 with lines lw 1.5 lc rgb '#1f77b4' dashtype 2 title "mgpcg (bandwidth bound)"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'pressure3d_per_iteration.svg'
replot
unset output
