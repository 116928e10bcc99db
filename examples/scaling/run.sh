#!/usr/bin/env bash
# Sweeps ring all-reduce, synchronous PS and asynchronous PS over N workers at 10 and 25 Gbps
# (the coarse models of models/) and plots training throughput of all six curves in one figure
# (plot.gp).
#
# Usage: examples/scaling/run.sh [SGDNET] [OUT.svg|OUT.png]
#   SGDNET   the sgdnet executable (default: build/cli/sgdnet)
#   OUT      the plot (default: examples/scaling/scaling.svg)
# Writes examples/scaling/{allreduce_ring,ps_sync,ps_async}.csv (one row per point, docs/language.md
# §7 columns) next to this script. Same seed, same numbers: rerunning gives the same files.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sgdnet=${1:-$root/build/cli/sgdnet}
out=$(realpath -m "${2:-$here/scaling.svg}")
command -v gnuplot >/dev/null || { echo "error: needs gnuplot (Debian: apt-get install gnuplot-nox)" >&2; exit 2; }

for scheme in allreduce_ring ps_sync ps_async; do
    echo "sweeping $scheme" >&2
    "$sgdnet" sweep "$root/models/${scheme}_coarse.sgdnet" \
        --set N=2..32:x2 --set bw=10Gbps,25Gbps --precision 0.01 --seed 1 -q \
        -o "$here/$scheme.csv"
    # The plot reads samples_per_s and its CI from columns 6-8 (after N, bw, steps_per_s×3).
    head -1 "$here/$scheme.csv" | cut -d, -f1,2,6,7,8 |
        grep -qx 'N,bw,samples_per_s,samples_per_s_ci_low,samples_per_s_ci_high' ||
        { echo "error: unexpected columns in $scheme.csv" >&2; exit 1; }
done

cd "$here"
gnuplot -e "out='$out'" plot.gp
echo "wrote $out" >&2
