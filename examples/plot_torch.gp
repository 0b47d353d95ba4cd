# SPDX-License-Identifier: MIT
# make demo-torch's figure: test accuracy and training loss per epoch, and the bytes each
# rank sent per step (last epoch), per variant. gnuplot -e "dir='results/demo-torch';
# variants='fp32 fp16 bfp8+ef'; ranks=4" (the CSVs of examples/torch_ddp.py).
set terminal pngcairo size 1500,480 font ",11"
set output dir."/torch.png"
set datafile separator ","
set key below horizontal
set bmargin 6
set multiplot layout 1,3 title sprintf("PyTorch DDP on Fashion-MNIST, %d processes: fp32, PyTorch's fp16 hook, quire bfp8 + error feedback", ranks)
n = words(variants)
set style line 1 lc rgb "#1f77b4" lw 2 pt 7 ps 1.2
set style line 2 lc rgb "#d62728" lw 2 pt 5 ps 1.2
set style line 3 lc rgb "#2ca02c" lw 2 pt 9 ps 1.4
set style line 4 lc rgb "#9467bd" lw 2 pt 11 ps 1.2
set grid
set xlabel "epoch"
set xtics 1
set offsets 0.2, 0.2, graph 0.05, graph 0.05
set ylabel "test accuracy (%)"
plot for [i=1:n] dir."/".word(variants, i).".csv" every ::1 using 2:($4*100) with linespoints ls i title word(variants, i)
set ylabel "training loss"
plot for [i=1:n] dir."/".word(variants, i).".csv" every ::1 using 2:3 with linespoints ls i title word(variants, i)
set ylabel "kB sent per rank per step (last epoch)"
set xlabel ""
set offsets 0, 0, 0, 0
set xrange [0.4:n+0.6]
set yrange [0:*]
set xtics ()
set style fill solid 0.8
set boxwidth 0.6
plot for [i=1:n] "< tail -n 1 '".dir."/".word(variants, i).".csv'" using (i):($5/1e3):xtic(1) with boxes ls i notitle
unset multiplot
