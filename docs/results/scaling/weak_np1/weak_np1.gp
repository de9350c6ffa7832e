# Figures of case 'weak_np1' (metric poisson), written by pbsim bench. Run in this directory: gnuplot weak_np1.gp

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
set output 'weak_np1_iterations.png'
plot '< grep -F ",weak_np1," weak_np1.csv' using 4:6 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "weak_np1"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'weak_np1_iterations.svg'
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
set output 'weak_np1_time.png'
plot '< grep -F ",weak_np1," weak_np1_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "weak_np1"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'weak_np1_time.svg'
replot
unset output
