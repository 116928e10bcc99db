# Plots training throughput (samples_per_s with its 95% CI) of the three scaling sweeps against N,
# one line per scheme and NIC bandwidth. Run from this folder after run.sh wrote the CSVs:
#   gnuplot -e "out='scaling.svg'" plot.gp        (or out='scaling.png')
if (!exists("out")) out = 'scaling.svg'
if (out[strlen(out)-3:] eq '.png') {
    set terminal pngcairo size 900,560 font 'Helvetica,11'
} else {
    set terminal svg size 900,560 dynamic font 'Helvetica,13' background '#ffffff'
}
set output out
set datafile separator ','
set title 'ResNet-50-like job, batch 32 per worker, coarse models; error bars: 95% CI (within 1%)'
set xlabel 'workers N (log scale)'
set ylabel 'training throughput samples\_per\_s [samples/s] (log scale)'
# Log-log: linear scaling is a straight line of slope 1, a saturating scheme bends flat.
set logscale xy 2
set xrange [1.6:40]
set yrange [160:10000]
set ytics (200, 500, 1000, 2000, 5000, 10000)
set grid
set key outside right top title 'scheme, NIC bandwidth'
set bars small
# CSV columns (docs/language.md §7): N, bw, steps_per_s ×3, samples_per_s, its ci_low, its ci_high, …
# One curve per scheme and bandwidth: awk keeps the rows of one bw (canonical B/s in column 2:
# 10 Gbps = 1.25e9, 25 Gbps = 3.125e9), so each curve is one unbroken line.
rows(f, bw) = sprintf("< awk -F, 'NR > 1 && $2 == %s' %s", bw, f)
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 dt 1
set style line 2 lc rgb '#1f77b4' lw 2 pt 6 dt 2
set style line 3 lc rgb '#2ca02c' lw 2 pt 9 dt 1
set style line 4 lc rgb '#2ca02c' lw 2 pt 8 dt 2
set style line 5 lc rgb '#d62728' lw 2 pt 5 dt 1
set style line 6 lc rgb '#d62728' lw 2 pt 4 dt 2
plot \
  rows('allreduce_ring.csv', '3.125e9') using 1:6:7:8 with yerrorlines ls 1 title 'ring all-reduce, 25 Gbps', \
  rows('allreduce_ring.csv', '1.25e9')  using 1:6:7:8 with yerrorlines ls 2 title 'ring all-reduce, 10 Gbps', \
  rows('ps_async.csv', '3.125e9')       using 1:6:7:8 with yerrorlines ls 3 title 'PS async, 25 Gbps', \
  rows('ps_async.csv', '1.25e9')        using 1:6:7:8 with yerrorlines ls 4 title 'PS async, 10 Gbps', \
  rows('ps_sync.csv', '3.125e9')        using 1:6:7:8 with yerrorlines ls 5 title 'PS sync, 25 Gbps', \
  rows('ps_sync.csv', '1.25e9')         using 1:6:7:8 with yerrorlines ls 6 title 'PS sync, 10 Gbps'
