# SPDX-License-Identifier: MIT
# Test accuracy and training loss per epoch, one line per format: gnuplot -e "dir='results/demo'"
set terminal pngcairo size 1200,480 font ",11"
set output dir."/training.png"
set datafile separator ","
set key autotitle columnhead bottom right
set multiplot layout 1,2 title "quire data-parallel training, Fashion-MNIST"
set xlabel "epoch"
set ylabel "test accuracy (%)"
set grid
set xtics 1
plot for [f in "fp32 fp16 bfp8+ef"] dir."/".f.".csv" using 2:($4*100) with linespoints title f
set ylabel "training loss"
set key top right
plot for [f in "fp32 fp16 bfp8+ef"] dir."/".f.".csv" using 2:3 with linespoints title f
unset multiplot
