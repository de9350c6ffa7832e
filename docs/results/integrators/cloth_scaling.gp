# Figures of case 'cloth_scaling' (metric performance), written by pbsim bench. Run in this directory: gnuplot cloth_scaling.gp

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
set output 'cloth_scaling_time.png'
plot 'cloth_scaling_timing.csv' every ::1 using 7:xtic(1) title 'force', \
  'cloth_scaling_timing.csv' every ::1 using 8 title 'assemble', \
  'cloth_scaling_timing.csv' every ::1 using 9 title 'factor', \
  'cloth_scaling_timing.csv' every ::1 using 10 title 'solve', \
  'cloth_scaling_timing.csv' every ::1 using 11 title 'line search', \
  'cloth_scaling_timing.csv' every ::1 using 13 title 'other'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'cloth_scaling_time.svg'
replot
unset output
