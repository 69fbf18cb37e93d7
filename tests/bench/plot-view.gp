# SPDX-License-Identifier: LGPL-2.1-or-later
# gnuplot -e "dir='DIR'; out='docs/performance-view.png'" tests/bench/plot-view.gp
# DIR holds the CSV files bench-view --csv DIR wrote.
set terminal pngcairo size 1500,560 font ",10"
set output out
set multiplot layout 1,3
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -45 scale 0
set key top left
set grid ytics
set bmargin 10

set title "Per frame, view out vs the peers' copy"
set logscale y
set ylabel "microseconds per frame (log)"
plot dir."/viewout.csv" using ($2*1e6):xtic(1) title "g2gview (view)", \
     "" using ($3*1e6) title "videoflip 90r", \
     "" using ($4*1e6) title "videocrop"
unset logscale y

set title "4K dense out: speedup over videoflip / videocrop"
set ylabel "peer time / g2gview ! g2gmaterialize time"
plot dir."/dense.csv" using ($3/$2):xtic(1) title "speedup" lc rgb "#2a7", 1 with lines dt 2 lc rgb "black" title "1x"

set title "4K materialize vs single-thread memcpy of the same bytes"
set rmargin 9
set ylabel "% of memcpy bandwidth"
set yrange [0:*]
plot dir."/bandwidth.csv" using (100*$2/$3):xtic(1) title "materialize" lc rgb "#37c", 70 with lines dt 2 lc rgb "red" title "70%"
unset multiplot
