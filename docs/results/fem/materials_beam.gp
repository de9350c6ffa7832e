# Figures of case 'materials_beam' (metric solver), written by pbsim bench. Run in this directory: gnuplot materials_beam.gp

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
set ylabel 'residual (step 10)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'materials_beam_residual.png'
plot 'materials_beam.csv' using (strcol(1) eq "stvk" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "stvk", \
  'materials_beam.csv' using (strcol(1) eq "corotated" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "corotated", \
  'materials_beam.csv' using (strcol(1) eq "fixed_corotated" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "fixed_corotated", \
  'materials_beam.csv' using (strcol(1) eq "neohookean" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "neohookean", \
  'materials_beam.csv' using (strcol(1) eq "stable_neohookean" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#D55E00' dashtype 3 pt 13 title "stable_neohookean", \
  'materials_beam.csv' using (strcol(1) eq "arap" && $2 == 10 ? $3 : 1/0):4 with linespoints lw 2 lc rgb '#56B4E9' dashtype 1 pt 4 title "arap"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'materials_beam_residual.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'materials_beam_residual.pdf'
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
set ylabel '(Phi_k - Phi*) / |Phi_0 - Phi*| (step 10)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'materials_beam_gap.png'
plot 'materials_beam.csv' using (strcol(1) eq "stvk" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "stvk", \
  'materials_beam.csv' using (strcol(1) eq "corotated" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "corotated", \
  'materials_beam.csv' using (strcol(1) eq "fixed_corotated" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "fixed_corotated", \
  'materials_beam.csv' using (strcol(1) eq "neohookean" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "neohookean", \
  'materials_beam.csv' using (strcol(1) eq "stable_neohookean" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#D55E00' dashtype 3 pt 13 title "stable_neohookean", \
  'materials_beam.csv' using (strcol(1) eq "arap" && $2 == 10 && $7 > 0 ? $3 : 1/0):7 with linespoints lw 2 lc rgb '#56B4E9' dashtype 1 pt 4 title "arap"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'materials_beam_gap.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'materials_beam_gap.pdf'
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
set ylabel '(Phi_k - Phi*) / |Phi_0 - Phi*| (step 10)'

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'materials_beam_gap_time.png'
plot 'materials_beam_gap_timing.csv' using (strcol(1) eq "stvk" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#000000' dashtype 1 pt 7 title "stvk", \
  'materials_beam_gap_timing.csv' using (strcol(1) eq "corotated" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#E69F00' dashtype 2 pt 5 title "corotated", \
  'materials_beam_gap_timing.csv' using (strcol(1) eq "fixed_corotated" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#0072B2' dashtype 4 pt 9 title "fixed_corotated", \
  'materials_beam_gap_timing.csv' using (strcol(1) eq "neohookean" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#009E73' dashtype 5 pt 11 title "neohookean", \
  'materials_beam_gap_timing.csv' using (strcol(1) eq "stable_neohookean" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#D55E00' dashtype 3 pt 13 title "stable_neohookean", \
  'materials_beam_gap_timing.csv' using (strcol(1) eq "arap" && $2 == 10 && $4 > 0 ? $5 : 1/0):4 with linespoints lw 2 lc rgb '#56B4E9' dashtype 1 pt 4 title "arap"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'materials_beam_gap_time.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'materials_beam_gap_time.pdf'
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
set output 'materials_beam_iterations.png'
plot 'materials_beam_steps.csv' using (strcol(1) eq "stvk" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#000000' dashtype 1 pt 7 title "stvk", \
  'materials_beam_steps.csv' using (strcol(1) eq "corotated" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#E69F00' dashtype 2 pt 5 title "corotated", \
  'materials_beam_steps.csv' using (strcol(1) eq "fixed_corotated" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#0072B2' dashtype 4 pt 9 title "fixed_corotated", \
  'materials_beam_steps.csv' using (strcol(1) eq "neohookean" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#009E73' dashtype 5 pt 11 title "neohookean", \
  'materials_beam_steps.csv' using (strcol(1) eq "stable_neohookean" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#D55E00' dashtype 3 pt 13 title "stable_neohookean", \
  'materials_beam_steps.csv' using (strcol(1) eq "arap" ? $2 : 1/0):3 with steps lw 1.5 lc rgb '#56B4E9' dashtype 1 pt 4 title "arap"
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'materials_beam_iterations.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'materials_beam_iterations.pdf'
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
set yrange [0:2.310012e+01]
set xrange [-0.6:5.6]
set offsets 0,0,0,0

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'materials_beam_time.png'
plot 'materials_beam_timing.csv' every ::1 using 7:xtic(1) title 'force' fs pattern 3 lc rgb '#E69F00', \
  'materials_beam_timing.csv' every ::1 using 8 title 'assemble' fs pattern 4 lc rgb '#0072B2', \
  'materials_beam_timing.csv' every ::1 using 9 title 'factor' fs pattern 5 lc rgb '#009E73', \
  'materials_beam_timing.csv' every ::1 using 10 title 'solve' fs pattern 1 lc rgb '#D55E00', \
  'materials_beam_timing.csv' every ::1 using 11 title 'line search' fs pattern 6 lc rgb '#56B4E9', \
  'materials_beam_timing.csv' every ::1 using 13 title 'other' fs pattern 2 lc rgb '#CC79A7'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'materials_beam_time.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'materials_beam_time.pdf'
replot
unset output
