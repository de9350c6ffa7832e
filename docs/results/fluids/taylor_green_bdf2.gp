# Figures of case 'taylor_green_bdf2' (metric spatial), written by pbsim bench. Run in this directory: gnuplot taylor_green_bdf2.gp

# Error against mesh size (log-log); the slope is the observed order
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set logscale xy
set format y '%.0e'
set xlabel 'mesh size h (h)'
set ylabel 'velocity_error'
unset key

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'taylor_green_bdf2_spatial.png'
plot 'taylor_green_bdf2.csv' every ::1 using 2:4 with linespoints lw 2 pt 7 lc rgb '#0072B2'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'taylor_green_bdf2_spatial.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'taylor_green_bdf2_spatial.pdf'
replot
unset output
