# SPDX-License-Identifier: LGPL-2.1-or-later
# gnuplot -e "dir='DIR'; out='docs/performance-decode-torch.png'" tests/bench/plot-decode-torch.gp
# DIR holds the CSV files bench-decode-torch.py --csv DIR wrote (on the GPU machine):
# decode-torch-added.csv and decode-torch-whole.csv, a row a path, a column a stream.
set terminal pngcairo size 1200,480 font ",10"
set output out
set datafile separator ","
set multiplot layout 1,2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left Left reverse opaque autotitle columnheader
set grid ytics
set xtics scale 0 rotate by -30

set title "nvh264dec to CUDA torch tensors: cost added to decoding (ms/frame)"
set ylabel "ms/frame beyond decode alone"
set yrange [*:*]
plot dir."/decode-torch-added.csv" using 2:xtic(1) lc rgb "#3377cc", \
     '' using 3 lc rgb "#22aa77"

set title "whole path / decode alone (frames/s)"
set ylabel "frames/s over decode alone's"
set yrange [0:1.2]
plot dir."/decode-torch-whole.csv" using 2:xtic(1) lc rgb "#3377cc", \
     '' using 3 lc rgb "#22aa77", \
     0.9 with lines dt 2 lc rgb "red" title "0.9x (goal for g2g)"
unset multiplot
