# Draws breakdown.csv (breakdown.sh): per scheme and N, the mean step time stacked as compute, exposed communication, waiting and update, and 1/bound (the least step time the closed-form bounds allow) as a marker. Run from this folder:
#   gnuplot -e "out='breakdown.svg'" breakdown.gp        (or out='breakdown.png')
if (!exists("out")) out = 'breakdown.svg'
if (out[strlen(out)-3:] eq '.png') {
    set terminal pngcairo size 900,480 font 'Helvetica,11'
} else {
    set terminal svg size 900,480 dynamic font 'Helvetica,13' background '#ffffff'
}
set output out
set datafile separator ','
set title 'Where a step goes (sgdnet explain; coarse models, 10 Gbps workers)'
set ylabel 'mean step time [s]'
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.8
set grid ytics
set key top left noenhanced
set yrange [0:*]
set multiplot layout 1,2
do for [scheme in "allreduce_ring ps_sync"] {
    set title scheme noenhanced
    if (scheme eq "ps_sync") { set key top left noenhanced } else { unset key }
    set xlabel 'workers N'
    rows = sprintf("< awk -F, '$1 == \"%s\"' breakdown.csv", scheme)
    plot rows using 6:xtic(2) title 'compute' lc rgb '#1f77b4', \
         '' using 7 title 'exposed comm' lc rgb '#ff7f0e', \
         '' using 8 title 'waiting' lc rgb '#d62728', \
         '' using 9 title 'update' lc rgb '#2ca02c', \
         '' using 0:(1/$4) with points pt 7 ps 0.8 lc rgb 'black' title '1 / bound'
}
unset multiplot
