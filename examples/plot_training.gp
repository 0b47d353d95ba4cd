# SPDX-License-Identifier: MIT
# Test accuracy, training loss, and each format's training loss minus fp32's, per epoch:
# gnuplot -e "dir='results/demo'". The formats' losses differ by some 1e-4 at 0.3 to 0.8:
# drawn as they are, the curves coincide; the third panel draws the differences.
set terminal pngcairo size 1500,500 font ",11"
set output dir."/training.png"
set datafile separator ","
set key autotitle columnhead below horizontal height 1
set bmargin 6
set multiplot layout 1,3 title "quire data-parallel training, Fashion-MNIST"
set xlabel "epoch"
set grid
set xtics 1
set offsets 0, 0, graph 0.05, graph 0.05
set style line 1 lc rgb "#1f77b4" lw 2 pt 7 ps 1.2
set style line 2 lc rgb "#d62728" lw 2 pt 5 ps 1.2
set style line 3 lc rgb "#2ca02c" lw 2 pt 9 ps 1.4
set style line 4 lc rgb "#9467bd" lw 2 pt 11 ps 1.4
formats = "fp32 fp16 bfp8+ef bfp8+ef+rq"
set ylabel "test accuracy (%)"
plot for [i=1:4] dir."/".word(formats, i).".csv" using 2:($4*100) with linespoints ls i title word(formats, i)
set ylabel "training loss (the formats coincide: see right)"
plot for [i=1:4] dir."/".word(formats, i).".csv" using 2:3 with linespoints ls i title word(formats, i)
# One row per epoch: fp32's columns (loss: 3), then the format's (loss: 3 + 7 = 10).
set ylabel "training loss minus fp32's (x 1e-4)"
plot 0 with lines ls 1 title "fp32", \
	for [i=2:4] "< paste -d, '".dir."/fp32.csv' '".dir."/".word(formats, i).".csv'" \
	using 2:(1e4 * ($10 - $3)) with linespoints ls i title word(formats, i)
unset multiplot
