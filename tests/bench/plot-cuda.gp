# SPDX-License-Identifier: LGPL-2.1-or-later
# gnuplot -e "dir='DIR'; out='docs/performance-cuda.png'" tests/bench/plot-cuda.gp
# DIR holds the CSV files bench-cuda --csv DIR wrote (on the GPU machine).
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

set title "4K materialize kernel vs cuMemcpy2D D2D of the same frame"
set xtics rotate by -45 scale 0
set ylabel "% of cuMemcpy2D bandwidth"
plot dir."/cuda-bandwidth.csv" using (100*$2/$3):xtic(1) title "g2g kernel" lc rgb "#37c", \
     70 with lines dt 2 lc rgb "red" title "70%"

set title "nvh264dec ! g2gview 90r ! g2gmaterialize vs nvh264dec alone"
set xtics norotate
set ylabel "frames per second"
set key top right
set yrange [0:800]
plot dir."/cuda-decode.csv" using 2:xtic(strstrt(strcol(1), "3840") ? "4K stream" : "1080p stream") title "decode only", \
     "" using 3 title "+ 90r view, materialized on the GPU"
set key top left
set yrange [0:*]

set title "1 Cuda + 3 system branches: device-to-host bytes per frame"
set ylabel "MB per frame"
plot dir."/cuda-tee.csv" using ($2/1e6):xtic(1) title "device-to-host" lc rgb "#c52"
unset multiplot
