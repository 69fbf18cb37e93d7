# SPDX-License-Identifier: LGPL-2.1-or-later
# gnuplot -e "dir='DIR'; out='docs/performance-cuda-vulkan.png'" tests/bench/plot-cuda-vulkan.gp
# DIR holds the CSV files bench-cuda-vulkan --csv DIR wrote (on the GPU machine).
set terminal pngcairo size 1100,460 font ",10"
set output out
set datafile separator ","
set multiplot layout 1,2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left Left reverse opaque
set grid ytics
set yrange [0:*]
set xtics scale 0 rotate by -15

set title "4K frame, CUDA to Vulkan: g2gconvert vs cudadownload ! vulkanupload"
set ylabel "frames/s, g2gconvert / host round trip"
set yrange [0:*]
set offsets 0, 0, graph 0.25, 0
plot dir."/cuda-vulkan-convert.csv" skip 1 using 4:xtic(1) title "g2gconvert / host round trip" lc rgb "#3377cc", \
     10 with lines dt 2 lc rgb "red" title "10x (goal)"

set title "nvh264dec ! g2gconvert ! fakesink vs decode alone"
set ylabel "frames/s, with g2gconvert / decode alone"
set offsets 0, 0, 0, 0
set yrange [0:1.2]
plot dir."/cuda-vulkan-decode.csv" skip 1 using 4:xtic(1) title "with g2gconvert / decode alone" lc rgb "#22aa77", \
     0.95 with lines dt 2 lc rgb "red" title "0.95x (goal)"
unset multiplot
