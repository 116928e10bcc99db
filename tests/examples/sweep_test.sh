#!/usr/bin/env bash
# End-to-end tests of `sgdnet sweep` (docs/language.md §7): range forms, grid vs zip sizes,
# CSV schema and canonical values, bad ranges, SIGINT mid-sweep then --resume equal to an
# uninterrupted sweep, the same rows whatever --threads is, bad points named before any is solved,
# readable progress lines, and --plot-measure.
set -u
SGDNET=$1 EXAMPLES=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
no() { echo "FAIL: $1"; failed=$((failed + 1)); }
check() { if eval "$2"; then ok "$1"; else no "$1"; fi; }

# Grid: 5 values (1,2,4,8,16) x 2 values = 10 rows + header; exact solver, so rows are exact.
"$SGDNET" sweep "$EXAMPLES/mm1k.sgdnet" --set mm1k.K=1..16:x2 --set "mm1k.K=1,2" -q \
    --solver exact >"$tmp/dup.csv" 2>"$tmp/err"
check "a param swept twice is an input error (exit 2)" "[ $? -eq 2 ]"
"$SGDNET" sweep "$EXAMPLES/repairman.sgdnet" --set repairman.N=1..16:x2 --set "x=1,2" -q \
    --solver exact >"$tmp/grid.csv" 2>"$tmp/err"
check "unknown swept param is an input error" "grep -q 'error' $tmp/err"

"$SGDNET" sweep "$EXAMPLES/mm1k.sgdnet" --set mm1k.K=1..16:x2 -q --solver exact -o "$tmp/x2.csv"
check "x2 range: exit 0" "[ $? -eq 0 ]"
check "x2 range: 1,2,4,8,16" "[ \"\$(cut -d, -f1 $tmp/x2.csv | tr '\n' ' ')\" = 'mm1k.K 1 2 4 8 16 ' ]"
check "csv header: params then NAME,NAME_ci_low,NAME_ci_high" \
    "head -1 $tmp/x2.csv | grep -qx 'mm1k.K,thr,thr_ci_low,thr_ci_high,full,full_ci_low,full_ci_high,qlen,qlen_ci_low,qlen_ci_high'"
# M/M/1/K, ρ = 0.8, K = 1: throughput = λ(1 - p_1) = 1 - 0.8/1.8 = 0.5555…
check "K=1 row is the closed form" "grep -q '^1,0\.55555555555555[0-9]*,' $tmp/x2.csv"

"$SGDNET" sweep "$EXAMPLES/cyclic.sgdnet" --set cyclic.N=1..3 --set "cyclic.N2=1,2" -q \
    --solver exact >"$tmp/bad.csv" 2>"$tmp/err"
check "grid with an unknown param fails with exit 2" "[ $? -eq 2 ]"
"$SGDNET" sweep "$EXAMPLES/mm1k.sgdnet" --set mm1k.K=1..3 --set "mm1k.K=1" -q >/dev/null 2>&1
check "duplicate param: exit 2" "[ $? -eq 2 ]"
for bad in "mm1k.K=5..1" "mm1k.K=1..4:x1" "mm1k.K=1..4:x" "mm1k.K=1s..4MB" "mm1k.K=1..4:+0" \
           "mm1k.K=1,2kg" "mm1k.K=" "=1..3" "mm1k.K=a..b"; do
    "$SGDNET" sweep "$EXAMPLES/mm1k.sgdnet" --set "$bad" -q >/dev/null 2>"$tmp/err"
    rc=$?
    check "bad range '$bad' → exit 2 with an error" "[ $rc -eq 2 ] && grep -q '^error: ' $tmp/err"
done

# Grid vs zip: 3 x 3 = 9 points; zipped 3 points; zip of unequal lengths is an error.
cat >"$tmp/two.sgdnet" <<'SRC'
// Two-param M/M/1/K: K places, service mean S.
net q {
  param K = 2;
  param S = 800 ms;
  place queue = 0;
  transition arrive ~ exp(rate = 1 /s) { out queue; inhibit queue*K; }
  transition serve ~ exp(mean = S) { in queue; }
}
measure thr = throughput(q.serve);
SRC
"$SGDNET" sweep "$tmp/two.sgdnet" --set q.K=1..3 --set "q.S=100ms,200ms,400ms" -q --solver exact >"$tmp/g.csv"
check "grid: 9 rows" "[ \$(( \$(wc -l <$tmp/g.csv) - 1 )) -eq 9 ]"
check "grid: sizes in canonical seconds" "grep -q '^1,0.1,' $tmp/g.csv && grep -q '^3,0.4,' $tmp/g.csv"
"$SGDNET" sweep "$tmp/two.sgdnet" --set q.K=1..3 --set "q.S=100ms,200ms,400ms" --zip -q --solver exact >"$tmp/z.csv"
check "zip: 3 rows" "[ \$(( \$(wc -l <$tmp/z.csv) - 1 )) -eq 3 ]"
check "zip pairs values" "[ \"\$(cut -d, -f1,2 $tmp/z.csv | tail -3 | tr '\n' ' ')\" = '1,0.1 2,0.2 3,0.4 ' ]"
"$SGDNET" sweep "$tmp/two.sgdnet" --set q.K=1..3 --set "q.S=100ms,200ms" --zip -q >/dev/null 2>"$tmp/err"
check "zip of unequal lengths: exit 2" "[ $? -eq 2 ]"
"$SGDNET" sweep "$tmp/two.sgdnet" --set q.K=2 --set "q.S=1ms..3ms" -q --solver exact >"$tmp/u.csv"
check "unit range 1ms..3ms steps by 1 ms" "[ \"\$(cut -d, -f2 $tmp/u.csv | tail -3 | tr '\n' ' ')\" = '0.001 0.002 0.003 ' ]"
"$SGDNET" sweep "$tmp/two.sgdnet" --set q.K=2 --set "q.S=100ms..300ms:+100ms" -q --format jsonl --solver exact >"$tmp/j.jsonl"
check "jsonl: one object per point" "[ \$(wc -l <$tmp/j.jsonl) -eq 3 ] && grep -q '\"params\":{\"q.K\":2.0,\"q.S\":0.1}' $tmp/j.jsonl"

# SIGINT mid-sweep keeps finished rows (exit 130); --resume completes the file, which then
# equals an uninterrupted sweep run with another thread count (determinism across --threads).
args=(sweep "$EXAMPLES/repairman.sgdnet" --set repairman.N=1..24 --seed 3 --precision 0.005 -q)
"$SGDNET" "${args[@]}" --threads 2 -o "$tmp/full.csv"
check "uninterrupted sweep: exit 0" "[ $? -eq 0 ]"
"$SGDNET" "${args[@]}" --threads 1 -o "$tmp/part.csv" &
pid=$!
for _ in $(seq 1 600); do
    [ -f "$tmp/part.csv" ] && [ "$(wc -l <"$tmp/part.csv")" -ge 4 ] && break
    sleep 0.05
done
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: exit 130" "[ $rc -eq 130 ]"
rows=$(($(wc -l <"$tmp/part.csv") - 1))
check "SIGINT: finished rows kept ($rows), not all" "[ $rows -ge 3 ] && [ $rows -lt 24 ]"
"$SGDNET" "${args[@]}" --threads 1 -o "$tmp/part.csv" --resume
check "resume: exit 0" "[ $? -eq 0 ]"
check "resumed file equals the uninterrupted one" "cmp -s $tmp/full.csv $tmp/part.csv"

# Every point is compiled before the first is solved: bad points abort the sweep before any row
# is written, each named with its error, and a summary lists them all.
cp "$(dirname "${BASH_SOURCE[0]}")/../data/ring_set.sgdnet" "$tmp/ring.sgdnet"
"$SGDNET" sweep "$tmp/ring.sgdnet" --set N=2,3 --set bw=10Gbps,-25Gbps,0Gbps -o "$tmp/badpts.csv" \
    2>"$tmp/err"
check "bad sweep points: exit 2" "[ $? -eq 2 ]"
check "bad sweep points: no row written" "[ ! -s $tmp/badpts.csv ]"
check "bad sweep points: every one named with its error" \
    "[ \$(grep -c '^error: --set bw=.* (at sweep point N=[23], bw=.*): .bandwidth. must be > 0, got ' $tmp/err) -eq 4 ]"
check "bad sweep points: the error's note in the file" \
    "grep -q '^$tmp/ring.sgdnet:5:50: note: the value of .bw. is used here' $tmp/err"
check "bad sweep points: the summary lists them all" \
    "grep -qx 'error: 4 of 6 sweep points do not compile, so none was solved: N=2, bw=-25Gbps; N=2, bw=0Gbps; N=3, bw=-25Gbps; N=3, bw=0Gbps' $tmp/err"
check "bad sweep points: nothing solved" "! grep -q '^point ' $tmp/err"
"$SGDNET" sweep "$tmp/ring.sgdnet" --set N=2,3 --fix bw=-1Gbps -q >/dev/null 2>"$tmp/err"
check "a bad --fix value: exit 2, named once as --fix" \
    "[ $? -eq 2 ] && [ \$(grep -c '^error: --fix bw=-1Gbps: .bandwidth. must be > 0, got -1 Gbps$' $tmp/err) -eq 1 ]"

# Progress lines name the point in readable units.
"$SGDNET" sweep "$tmp/ring.sgdnet" --set N=2 --set bw=1Gbps..2Gbps:+1Gbps --precision 0.05 \
    -o "$tmp/prog.csv" 2>"$tmp/err"
check "progress: exit 0" "[ $? -eq 0 ]"
check "progress line in readable units" "grep -q '^point [12]/2 (N=2, bw=2 Gbps) done, ' $tmp/err"
check "rows keep canonical values" "grep -q '^2,250000000,' $tmp/prog.csv"

# --plot-measure: an unknown measure lists the measures; known ones are plotted, one panel each.
"$SGDNET" sweep "$EXAMPLES/mm1k.sgdnet" --set mm1k.K=1..4 --solver exact -q --plot "$tmp/p.svg" \
    --plot-measure qlen --plot-measure thrr -o "$tmp/pm.csv" 2>"$tmp/err"
check "--plot-measure of an unknown measure: exit 2" "[ $? -eq 2 ]"
check "--plot-measure of an unknown measure: the measures listed" \
    "grep -qx \"error: --plot-measure thrr: the model has no measure 'thrr'; did you mean \\\`thr\\\`? (its measures: thr, full, qlen)\" $tmp/err"
check "--plot-measure of an unknown measure: nothing solved" "[ ! -s $tmp/pm.csv ]"
"$SGDNET" sweep "$EXAMPLES/mm1k.sgdnet" --set mm1k.K=1..4 --solver exact -q --plot-measure qlen \
    -o "$tmp/pm.csv" 2>"$tmp/err"
check "--plot-measure without --plot: exit 2" "[ $? -eq 2 ] && grep -q 'add --plot' $tmp/err"
if command -v gnuplot >/dev/null; then
    "$SGDNET" sweep "$EXAMPLES/mm1k.sgdnet" --set mm1k.K=1..4 --solver exact -q --plot "$tmp/p.svg" \
        --plot-measure qlen --plot-measure full -o "$tmp/pm.csv" 2>"$tmp/err"
    check "--plot-measure qlen, full: exit 0" "[ $? -eq 0 ]"
    check "--plot-measure: a panel per measure" \
        "grep -q 'qlen \[tokens\]' $tmp/p.svg && grep -q '>full<' $tmp/p.svg && ! grep -q '>thr' $tmp/p.svg"
    "$SGDNET" sweep "$EXAMPLES/mm1k.sgdnet" --set mm1k.K=1..4 --solver exact -q --plot "$tmp/p1.svg" \
        -o "$tmp/pm.csv" 2>"$tmp/err"
    check "--plot alone draws the first measure" "grep -q 'thr \[/s\]' $tmp/p1.svg && ! grep -q 'qlen' $tmp/p1.svg"
else
    echo "skip: gnuplot is not installed, --plot-measure drawings not tested"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
