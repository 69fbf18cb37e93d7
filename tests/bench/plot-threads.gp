# SPDX-License-Identifier: LGPL-2.1-or-later
# gnuplot -e "dir='DIR'; out='docs/performance-threads.png'" tests/bench/plot-threads.gp
#   (-e "sizes='4K 8K'" for other sizes than 1080p, 4K and 8K)
# DIR holds threads-SIZE.csv, which `bench-view threads --csv DIR` wrote, one per size: a block per
# format and view (its first line names it), each line threads, frame rate against one thread's, %
# of memcpy's bandwidth on as many threads (both sides from memory: bench-view-scaling.cpp).
# One column of panels per size: frame rate against one thread's above, against memcpy below. The
# formats and views are named in the first column's key only (same colours everywhere).
if (!exists("sizes")) sizes = "1080p 4K 8K"
n = words(sizes)
set terminal pngcairo size 520*n,840 font ",10"
set output out
set multiplot layout 2,n columnsfirst
set key top left font ",8"
set grid
set logscale x 2
set xlabel "threads"
set xtics (1, 2, 4, 8, 16)
set yrange [0:*]
do for [i=1:n] {
    size = word(sizes, i)
    file = dir."/threads-".size.".csv"
    stats file using 1 nooutput
    blocks = STATS_blocks
    # The goals are the 8K figures'; elsewhere their lines are not drawn (NaN) nor named.
    goal_speedup = size eq "8K" ? 6 : NaN
    goal_share = size eq "8K" ? 70 : NaN
    speedup_title = size eq "8K" ? "goal: 6x (8 threads)" : ""
    share_title = size eq "8K" ? "goal: 70% (8 threads)" : ""
    if (i == 1) { set key top left } else { set key bottom center }
    set title size.": frame rate against one thread's"
    set ylabel "x one thread"
    if (i == 1) {
        plot for [b=0:blocks-1] file index b using 1:2 with linespoints title columnheader(1), \
             x with lines dt 2 lc rgb "black" title "linear", \
             goal_speedup with lines dt 3 lc rgb "red" notitle
    } else {
        plot for [b=0:blocks-1] file index b using 1:2 with linespoints notitle, \
             x with lines dt 2 lc rgb "black" title "linear", \
             goal_speedup with lines dt 3 lc rgb "red" title speedup_title
    }
    set title size.": bandwidth against memcpy on as many threads"
    set ylabel "% of memcpy's (output bytes per second)"
    if (i == 1) {
        plot for [b=0:blocks-1] file index b using 1:3 with linespoints title columnheader(1), \
             100 with lines dt 2 lc rgb "black" title "memcpy", \
             goal_share with lines dt 3 lc rgb "red" notitle
    } else {
        plot for [b=0:blocks-1] file index b using 1:3 with linespoints notitle, \
             100 with lines dt 2 lc rgb "black" title "memcpy", \
             goal_share with lines dt 3 lc rgb "red" title share_title
    }
}
unset multiplot
