# Figures of case 'cloth_demo' (metric solver), written by pbsim bench. Run in this directory: gnuplot cloth_demo.gp

# Nonlinear residual per iteration in one step (log scale)
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set logscale y
set format y '%.0e'
set xlabel 'Newton iteration'
set ylabel 'residual (step 60)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_demo_residual.png'
plot 'cloth_demo.csv' using (strcol(1) eq "cloth_demo" && $2 == 60 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "cloth_demo"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_demo_residual.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'cloth_demo_residual.pdf'
replot
unset output

# Relative gap of the objective per iteration in one step (log scale)
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set logscale y
set format y '%.0e'
set xlabel 'iteration'
set ylabel '(Phi_k - Phi*) / |Phi_0 - Phi*| (step 60)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_demo_gap.png'
plot 'cloth_demo.csv' using (strcol(1) eq "cloth_demo" && $2 == 60 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "cloth_demo"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_demo_gap.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'cloth_demo_gap.pdf'
replot
unset output

# Relative gap of the objective vs wall time in one step (log scale)
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set logscale y
set format y '%.0e'
set xlabel 'wall time in the step (ms)'
set ylabel '(Phi_k - Phi*) / |Phi_0 - Phi*| (step 60)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_demo_gap_time.png'
plot 'cloth_demo_gap_timing.csv' using (strcol(1) eq "cloth_demo" && $2 == 60 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "cloth_demo"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_demo_gap_time.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'cloth_demo_gap_time.pdf'
replot
unset output

# Nonlinear iterations per step
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set xlabel 'step'
set ylabel 'nonlinear iterations'
set yrange [0:*]

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_demo_iterations.png'
plot 'cloth_demo_steps.csv' using (strcol(1) eq "cloth_demo" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#000000' dashtype 1 pt 7 title "cloth_demo"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_demo_iterations.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'cloth_demo_iterations.pdf'
replot
unset output

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
set yrange [0:2.610097e+02]
set xrange [-0.6:0.6]
set offsets 0,0,0,0

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'cloth_demo_time.png'
plot 'cloth_demo_timing.csv' every ::1 using 7:xtic(1) title 'force' fs pattern 3 lc rgb '#E69F00', \
  'cloth_demo_timing.csv' every ::1 using 8 title 'assemble' fs pattern 4 lc rgb '#0072B2', \
  'cloth_demo_timing.csv' every ::1 using 9 title 'factor' fs pattern 5 lc rgb '#009E73', \
  'cloth_demo_timing.csv' every ::1 using 10 title 'solve' fs pattern 1 lc rgb '#D55E00', \
  'cloth_demo_timing.csv' every ::1 using 11 title 'line search' fs pattern 6 lc rgb '#56B4E9', \
  'cloth_demo_timing.csv' every ::1 using 13 title 'other' fs pattern 2 lc rgb '#CC79A7'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_demo_time.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'cloth_demo_time.pdf'
replot
unset output
