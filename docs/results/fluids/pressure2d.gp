# Figures of case 'pressure2d' (metric poisson), written by pbsim bench. Run in this directory: gnuplot pressure2d.gp

# CG iterations to a 1e-8 relative residual vs cells per axis
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set logscale x 2
set xlabel 'cells per axis'
set ylabel 'iterations'
set yrange [0:*]

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'pressure2d_iterations.png'
plot '< grep -F ",mgpcg," pressure2d.csv' using 4:6 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "mgpcg", \
  '< grep -F ",mgpcg_assembled," pressure2d.csv' using 4:6 with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "mgpcg_assembled", \
  '< grep -F ",gamg," pressure2d.csv' using 4:6 with linespoints lw 2 lc rgb '#0072B2' dashtype 3 pt 9 title "gamg", \
  '< grep -F ",hypre," pressure2d.csv' using 4:6 with linespoints lw 2 lc rgb '#009E73' dashtype 4 pt 11 title "hypre"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'pressure2d_iterations.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'pressure2d_iterations.pdf'
replot
unset output

# Time per projection (best of the repeats) vs unknowns (log-log)
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set logscale xy
set format x '%.0e'
set xlabel 'unknowns (cells)'
set ylabel 'ms per projection'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'pressure2d_time.png'
plot '< grep -F ",mgpcg," pressure2d_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "mgpcg", \
  '< grep -F ",mgpcg_assembled," pressure2d_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "mgpcg_assembled", \
  '< grep -F ",gamg," pressure2d_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#0072B2' dashtype 3 pt 9 title "gamg", \
  '< grep -F ",hypre," pressure2d_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#009E73' dashtype 4 pt 11 title "hypre"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'pressure2d_time.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'pressure2d_time.pdf'
replot
unset output

# Time per CG iteration vs the memory-bandwidth bound (modelled bytes per iteration / STREAM triad bandwidth)
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set logscale xy
set format x '%.0e'
set xlabel 'unknowns (cells)'
set ylabel 'ms per iteration'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'pressure2d_per_iteration.png'
plot '< grep -F ",mgpcg," pressure2d_solve_timing.csv' using 3:8 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "mgpcg", \
  '< grep -F ",mgpcg_assembled," pressure2d_solve_timing.csv' using 3:8 with linespoints lw 2 lc rgb '#E69F00' dashtype 1 pt 5 title "mgpcg_assembled", \
  '< grep -F ",gamg," pressure2d_solve_timing.csv' using 3:8 with linespoints lw 2 lc rgb '#0072B2' dashtype 1 pt 9 title "gamg", \
  '< grep -F ",hypre," pressure2d_solve_timing.csv' using 3:8 with linespoints lw 2 lc rgb '#009E73' dashtype 1 pt 11 title "hypre", \
  '< grep -F ",mgpcg," pressure2d_solve_timing.csv' using 3:9 with lines lw 1.5 lc rgb '#000000' dashtype 2 pt 7 title "mgpcg (bandwidth bound)"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'pressure2d_per_iteration.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'pressure2d_per_iteration.pdf'
replot
unset output
