# Figures of case 'mesh_sweep' (metric performance), written by pbsim bench. Run in this directory: gnuplot mesh_sweep.gp

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
set output 'mesh_sweep_time.png'
plot 'mesh_sweep_timing.csv' every ::1 using 7:xtic(1) title 'force', \
  'mesh_sweep_timing.csv' every ::1 using 8 title 'assemble', \
  'mesh_sweep_timing.csv' every ::1 using 9 title 'factor', \
  'mesh_sweep_timing.csv' every ::1 using 10 title 'solve', \
  'mesh_sweep_timing.csv' every ::1 using 11 title 'line search', \
  'mesh_sweep_timing.csv' every ::1 using 13 title 'other'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'mesh_sweep_time.svg'
replot
unset output
