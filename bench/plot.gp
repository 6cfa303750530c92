# bench/plot.gp - the benchmark's plots (gnuplot 5, Debian gnuplot-nox).
#
#   gnuplot -e "datadir='build/bench'; outdir='bench/results'" bench/plot.gp
#
# Reads the data files the harness writes (latency.dat, streams.dat,
# threads.dat in datadir) and writes outdir/latency.png (latency
# percentiles, log scale, aclrt next to the naive baseline and the physical
# limit) and outdir/scaling.png (throughput and latency as streams and
# launching threads grow).

if (!exists("datadir")) datadir = "build/bench"
if (!exists("outdir")) outdir = "bench/results"
if (!exists("quick")) quick = ""
note = (quick eq "") ? "" : "  (QUICK run: a smoke test, not for figures)"

set terminal pngcairo size 1400,800 enhanced font "DejaVu Sans,10"
set datafile missing "NaN"
set grid ytics mytics xtics lc rgb "#dddddd"
set key outside right top vertical

# ---------------------------------------------------------------------------
# Latency percentiles: box = p50..p99, whisker up to max, marks at p50 and p90.
# ---------------------------------------------------------------------------
set output outdir."/latency.png"
set lmargin 14
set bmargin 9
set title "aclrt latency vs naive baseline (mutex + condvar + thread per stream), same run".note
set logscale y 10
set format y "10^{%L}"
set ylabel "ns (log scale)"
set xrange [-0.6:9.6]
set xtics rotate by 30 right nomirror noenhanced
set boxwidth 0.28 absolute
set style fill solid 0.35 border -1
set bars 0.5
plot datadir."/latency.dat" using ($1-0.17):3:3:6:5:xtic(stringcolumn(2)) \
         with candlesticks lc rgb "#1f77b4" title "aclrt p50..p99, whisker to max", \
     ''  using ($1-0.17):4 with points pt 2 ps 1.2 lc rgb "#1f77b4" title "aclrt p90", \
     ''  using ($1-0.17):3 with points pt 7 ps 1.0 lc rgb "#08306b" title "aclrt p50", \
     ''  using ($1+0.17):7:7:10:9 with candlesticks lc rgb "#d62728" title "baseline p50..p99, whisker to max", \
     ''  using ($1+0.17):8 with points pt 2 ps 1.2 lc rgb "#d62728" title "baseline p90", \
     ''  using ($1+0.17):7 with points pt 7 ps 1.0 lc rgb "#67000d" title "baseline p50", \
     ''  using 1:11 with points pt 9 ps 1.8 lc rgb "#2ca02c" title "physical limit p50"

# ---------------------------------------------------------------------------
# Scaling: four panels.
# ---------------------------------------------------------------------------
reset
set terminal pngcairo size 1400,1000 enhanced font "DejaVu Sans,10"
set output outdir."/scaling.png"
set datafile missing "NaN"
set grid lc rgb "#dddddd"
set multiplot layout 2,2 title "aclrt scaling vs naive baseline, same run".note
set key font ",8" spacing 0.9 box opaque

set title "throughput vs streams (one launcher, round-robin)"
set logscale x 2
set logscale y 10
set xlabel "streams"
set ylabel "Mtasks/s (p50 of runs)"
set key top right
plot datadir."/streams.dat" using 1:2 with linespoints pt 7 lc rgb "#1f77b4" title "aclrt", \
     ''                      using 1:3 with linespoints pt 5 lc rgb "#d62728" title "baseline"

set title "latency vs streams"
set ylabel "ns (log scale)"
set key bottom right
plot datadir."/streams.dat" using 1:6 with linespoints pt 7 lc rgb "#1f77b4" title "aclrt launch->start p50 (fan-out)", \
     ''                      using 1:8 with linespoints pt 6 dt 2 lc rgb "#1f77b4" title "aclrt launch->start p99", \
     ''                      using 1:7 with linespoints pt 5 lc rgb "#d62728" title "baseline launch->start p50", \
     ''                      using 1:9 with linespoints pt 4 dt 2 lc rgb "#d62728" title "baseline launch->start p99", \
     ''                      using 1:4 with linespoints pt 9 lc rgb "#17becf" title "aclrt launch call p50", \
     ''                      using 1:5 with linespoints pt 11 lc rgb "#ff7f0e" title "baseline launch call p50"

unset logscale x
set title "throughput vs launching threads"
set xlabel "launching threads"
set ylabel "Mtasks/s (p50 of runs)"
set key top right
plot datadir."/threads.dat" using 1:2 with linespoints pt 7 lc rgb "#1f77b4" title "aclrt, a stream each", \
     ''                      using 1:4 with linespoints pt 6 dt 2 lc rgb "#1f77b4" title "aclrt, one shared stream", \
     ''                      using 1:3 with linespoints pt 5 lc rgb "#d62728" title "baseline, a stream each", \
     ''                      using 1:5 with linespoints pt 4 dt 2 lc rgb "#d62728" title "baseline, one shared stream"

set title "latency vs launching threads"
set ylabel "ns (log scale)"
set key bottom right
plot datadir."/threads.dat" using 1:8 with linespoints pt 7 lc rgb "#1f77b4" title "aclrt launch->start p50", \
     ''                      using 1:10 with linespoints pt 6 dt 2 lc rgb "#1f77b4" title "aclrt launch->start p99", \
     ''                      using 1:9 with linespoints pt 5 lc rgb "#d62728" title "baseline launch->start p50", \
     ''                      using 1:11 with linespoints pt 4 dt 2 lc rgb "#d62728" title "baseline launch->start p99", \
     ''                      using 1:6 with linespoints pt 9 lc rgb "#17becf" title "aclrt launch call p50", \
     ''                      using 1:7 with linespoints pt 11 lc rgb "#ff7f0e" title "baseline launch call p50"
unset multiplot
