#!/usr/bin/env bash
# Explains the ring all-reduce and PS sync models at N = 2..32 (10 Gbps workers) with `sgdnet explain` and draws their mean step time stacked as compute, exposed communication, waiting and update, with the closed-form bound (breakdown.gp).
#
# Usage: examples/scaling/breakdown.sh [SGDNET] [OUT.svg|OUT.png]
#   SGDNET   the sgdnet executable (default: build/cli/sgdnet)
#   OUT      the figure (default: examples/scaling/breakdown.svg)
# Writes examples/scaling/breakdown.csv: scheme, N, steps_per_s, its bound, the step and its
# four parts in seconds (docs/explain.md). Same seed, same numbers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sgdnet=${1:-$root/build/cli/sgdnet}
out=$(realpath -m "${2:-$here/breakdown.svg}")
command -v gnuplot >/dev/null || { echo "error: needs gnuplot (Debian: apt-get install gnuplot-nox)" >&2; exit 2; }

# field NAME: the first number after "NAME": on stdin.
field() { grep -o "\"$1\":[-0-9.eE+]*" | head -1 | cut -d: -f2; }
csv=$here/breakdown.csv
echo "scheme,N,steps_per_s,bound_steps_per_s,step_s,compute_s,communication_s,waiting_s,update_s" >"$csv"
for scheme in allreduce_ring ps_sync; do
    for n in 2 4 8 16 32; do
        echo "explaining $scheme at N=$n" >&2
        json=$("$sgdnet" explain "$root/models/${scheme}_coarse.sgdnet" --set N=$n --set bw=10Gbps \
               --precision 0.01 --seed 1 --what-if 0 --format json)
        all=$(grep -o '{"worker":"all"[^}]*}' <<<"$json")
        echo "$scheme,$n,$(field mean <<<"$json"),$(grep -o '"bound":{"steps_per_s":[-0-9.eE+]*' <<<"$json" | cut -d: -f3),$(field step_s <<<"$all"),$(field compute_s <<<"$all"),$(field communication_s <<<"$all"),$(field waiting_s <<<"$all"),$(field update_s <<<"$all")" >>"$csv"
    done
done
cd "$here"
gnuplot -e "out='$out'" breakdown.gp
