# Figures of case 'beam_bddc_weak' (metric scaling), written by pbsim bench. Run in this directory: gnuplot beam_bddc_weak.gp

# Speedup vs MPI ranks, with the STREAM bandwidth speedup and ideal scaling
reset
set datafile separator ','
set grid lc rgb '#d0d0d0'
set autoscale fix
set offsets graph 0.02, graph 0.02, graph 0.04, graph 0.04
set pointsize 1.
set key outside right top samplen 3
set xlabel 'MPI ranks'
set ylabel 'scaled (weak) speedup'
set xrange [1:4]
set yrange [0:*]
set xtics 1

set terminal pngcairo size 960,600 noenhanced font 'Sans,11'
set output 'beam_bddc_weak_speedup.png'
plot 'beam_bddc_weak_speedup_timing.csv' every ::1 using 2:4 with linespoints lw 2 lc rgb '#0072B2' title 'measured', \
  'beam_bddc_weak_speedup_timing.csv' every ::1 using 2:($7 > 0 ? $7 : 1/0) with linespoints lw 2 dashtype 2 lc rgb '#D55E00' title 'STREAM triad speedup (bandwidth bound)', \
  x with lines dashtype 3 lc rgb 'gray40' title 'ideal'
set terminal svg size 960,600 noenhanced font 'Sans,11' background rgb 'white'
set output 'beam_bddc_weak_speedup.svg'
replot
set terminal pdfcairo size 6.4in,4in noenhanced font 'Sans,10'
set output 'beam_bddc_weak_speedup.pdf'
replot
unset output
