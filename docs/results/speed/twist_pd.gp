# Figures of case 'twist_pd' (metric solver), written by pbsim bench. Run in this directory: gnuplot twist_pd.gp

# Wall time per step by PETSc log event (inclusive; 'other' is the rest of SimStep), stacked
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set style data histograms
set style histogram rowstacked
set style fill pattern border -1
set boxwidth 0.7
set xtics rotate by -35
set ylabel 'ms per step'
set yrange [0:5.559249e+01]
set xrange [-0.6:0.6]
set offsets 0,0,0,0

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'twist_pd_time.png'
plot 'twist_pd_timing.csv' every ::1 using 7:xtic(1) title 'force' fs pattern 3 lc rgb '#E69F00', \
  'twist_pd_timing.csv' every ::1 using 8 title 'assemble' fs pattern 4 lc rgb '#0072B2', \
  'twist_pd_timing.csv' every ::1 using 9 title 'factor' fs pattern 5 lc rgb '#009E73', \
  'twist_pd_timing.csv' every ::1 using 10 title 'solve' fs pattern 1 lc rgb '#D55E00', \
  'twist_pd_timing.csv' every ::1 using 11 title 'line search' fs pattern 6 lc rgb '#56B4E9', \
  'twist_pd_timing.csv' every ::1 using 13 title 'other' fs pattern 2 lc rgb '#CC79A7'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'twist_pd_time.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'twist_pd_time.pdf'
replot
unset output
