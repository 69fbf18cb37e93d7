# SPDX-License-Identifier: LGPL-2.1-or-later
# gnuplot -e "dir='DIR'; out='docs/performance-tee.png'" tests/bench/plot-tee.gp
# DIR holds the CSV files bench-tee --csv DIR wrote.
set terminal pngcairo size 1500,480 font ",10"
set output out
set multiplot layout 1,3
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left
set grid ytics
set yrange [0:*]

set title "Fan-out overhead per frame (64-byte buffers into fakesink)"
set xlabel "branches"
set ylabel "microseconds per frame"
plot dir."/fanout.csv" using ($2*1e6):xtic(1) title "g2gtee", "" using ($3*1e6) title "tee"

set title "1 Vulkan + 3 system branches: downloads per frame"
set xlabel ""
set ylabel "conversions (vulkandownload) per frame"
plot dir."/vulkan.csv" using 2:xtic(1) title "conversions per frame" lc rgb "#c52"

set title "1 Vulkan + 3 system branches: throughput (720p RGBA)"
set ylabel "frames per second"
plot dir."/vulkan.csv" using 4:xtic(1) title "frames/s" lc rgb "#37c"
unset multiplot
