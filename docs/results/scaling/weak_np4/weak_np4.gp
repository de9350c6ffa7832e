# Figures of case 'weak_np4' (metric poisson), written by pbsim bench. Run in this directory: gnuplot weak_np4.gp

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
set output 'weak_np4_iterations.png'
plot '< grep -F ",weak_np4," weak_np4.csv' using 4:6 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "weak_np4"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'weak_np4_iterations.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'weak_np4_iterations.pdf'
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
set output 'weak_np4_time.png'
plot '< grep -F ",weak_np4," weak_np4_solve_timing.csv' using 3:6 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "weak_np4"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'weak_np4_time.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'weak_np4_time.pdf'
replot
unset output
