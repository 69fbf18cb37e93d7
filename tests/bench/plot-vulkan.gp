# SPDX-License-Identifier: LGPL-2.1-or-later
# gnuplot -e "dir='DIR'; out='docs/performance-vulkan.png'" tests/bench/plot-vulkan.gp
# DIR holds the CSV files bench-vulkan --csv DIR wrote (on the GPU machine); "?" marks a figure
# that could not be taken, drawn as an empty bar.
set terminal pngcairo size 1500,520 font ",10"
set output out
set datafile missing "?"
# a / b of columns a and b, 0 where either is missing
ratio(a, b) = (valid(a) && valid(b) && column(b) > 0) ? column(a) / column(b) : 0
set multiplot layout 1,3
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left Left reverse opaque
set grid ytics
set yrange [0:*]
set bmargin 8

set title "Engine::materialize vs vkCmdCopyImage of the same frame (GPU time)"
set xtics rotate by -45 scale 0
set ylabel "% of the image copy's speed (copy time / ours)"
plot dir."/vulkan-materialize.csv" using (100*ratio(3, 2)):xtic(1) title "g2g compute shader" lc rgb "#3377cc", \
     70 with lines dt 2 lc rgb "red" title "70% (goal for transposes)"

set title "g2gview ! g2gmaterialize vs vulkandownload ! videoflip"
set ylabel "frames/s, g2g / peer"
plot dir."/vulkan-pipeline.csv" using (ratio(2, 3)):xtic(1) title "g2g / peer" lc rgb "#22aa77", \
     1 with lines dt 2 lc rgb "black" title "1x"

set title "g2gtee's download vs vulkandownload, into a mapping sink"
set ylabel "frames/s, g2gtee / vulkandownload"
plot dir."/vulkan-download.csv" using (ratio(2, 3)):xtic(1) title "direct" lc rgb "#3377cc", \
     "" using (ratio(4, 5)) title "behind a queue (maps later)" lc rgb "#cc5522", \
     1.3 with lines dt 2 lc rgb "red" title "1.3x (goal at 4K)"
unset multiplot
