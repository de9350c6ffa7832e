# Figures of case 'stream' (metric stream), written by pbsim bench. Run in this directory: gnuplot stream.gp
