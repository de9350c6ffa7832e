# Figures of case 'pressure128' (metric poisson), written by pbsim bench. Run in this directory: gnuplot pressure128.gp

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
set output 'pressure128_iterations.png'
plot '< grep -F ",pressure128," pressure128.csv' using 4:6 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "pressure128"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'pressure128_iterations.svg'
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
set output 'pressure128_time.png'
plot '< grep -F ",pressure128," pressure128_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#1f77b4' dashtype 1 title "pressure128"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'pressure128_time.svg'
replot
unset output
