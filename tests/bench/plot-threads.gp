# SPDX-License-Identifier: LGPL-2.1-or-later
# gnuplot -e "dir='DIR'; out='docs/performance-threads.png'" tests/bench/plot-threads.gp
# DIR holds threads.csv, which `bench-view threads --csv DIR` wrote: one block per format, size and
# view (its first line names it), each line threads, frame rate against one thread's, % of memcpy's
# bandwidth on as many threads.
set terminal pngcairo size 1400,560 font ",10"
set output out
file = dir."/threads.csv"
stats file using 1 nooutput
blocks = STATS_blocks
set multiplot layout 1,2
set key top left font ",8"
set grid
set logscale x 2
set xlabel "threads"
set xtics (1, 2, 4, 8, 16)

set title "Materialize on threads: frame rate against one thread's"
set ylabel "x one thread"
plot for [i=0:blocks-1] file index i using 1:2 with linespoints title columnheader(1), \
     x with lines dt 2 lc rgb "black" title "linear", 6 with lines dt 3 lc rgb "red" title "6x (8 threads, 8K)"

set title "Materialize on threads against memcpy on as many threads"
set ylabel "% of memcpy's bandwidth (output bytes per second)"
set yrange [0:*]
plot for [i=0:blocks-1] file index i using 1:3 with linespoints title columnheader(1), \
     70 with lines dt 2 lc rgb "red" title "70%"
unset multiplot
