#!/usr/bin/env bash
# End-to-end tests of `sgdnet explain` (docs/explain.md): the text report of a link-bound ring against its expected file, the JSON shape, what-if values equal to `sgdnet run` at the moved param with the same seed, a raw net's activity, and input errors.
set -u
SGDNET=$1 ROOT=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
no() { echo "FAIL: $1"; failed=$((failed + 1)); }
# expect_rc WANT DESCRIPTION -- COMMAND…   (stdout → $tmp/out, stderr → $tmp/err)
expect_rc() {
    local want=$1 what=$2
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then ok "$what (exit $rc)"; else no "$what: exit $rc, want $want"; cat "$tmp/err"; fi
}
# json_number KEY FILE: the first number after "KEY": in FILE.
json_number() { grep -o "\"$1\":[-0-9.eE+]*" "$2" | head -1 | cut -d: -f2; }
# same A B: equal to 1e-12 relative.
same() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); exit !(a != "" && d <= 1e-12 * m) }'; }

expect_rc 0 "explain --help" -- "$SGDNET" explain --help
grep -q -- "--what-if" "$tmp/out" && ok "--what-if in the help" || no "--what-if in the help"

# Text: the link-bound ring of examples/scaling (deterministic: the same text on every machine).
model=$ROOT/examples/scaling/ring_bottleneck.sgdnet
expect_rc 0 "explain text" -- "$SGDNET" explain "$model" --seed 1
if diff -u "$ROOT/tests/examples/explain_ring_bottleneck.expected" "$tmp/out"; then
    ok "text report as expected"
else
    no "text report differs (UPDATE: sgdnet explain $model --seed 1 > tests/examples/explain_ring_bottleneck.expected)"
fi

# JSON: one object, keys in order; the bound is at least the simulated steps/s.
expect_rc 0 "explain --format json" -- "$SGDNET" explain "$ROOT/models/allreduce_ring_coarse.sgdnet" \
    --set N=4 --seed 3 --format json
cp "$tmp/out" "$tmp/ring.json"
[ "$(wc -l <"$tmp/ring.json")" -eq 1 ] && ok "json is one line" || no "json is one line"
grep -Eq '^\{"model":"allreduce_ring_coarse","measures":\[\{"name":"steps_per_s","mean":[^,]+,"ci_low":[^,]+,"ci_high":[^}]+\},.*\],"scheme":"allreduce_ring","workers":4,"bound":\{"steps_per_s":[^,]+,"binding":"[^"]+","cycle_s":[^,]+,"cycle_steps_per_s":[^,]+,"cycle":"[^"]+"\},"bottleneck":"bottleneck: [^"]+","resources":\[\{"name":"[^"]+","kind":"(link|compute|server|host)","what":"[^"]+","capacity":[^,]+,"demand_s":[^,]+,"bound_steps_per_s":[^,]+,"utilization":\{"mean":.*\],"breakdown":\[\{"worker":"w\[0\]","step_s":[^,]+,"ci_low":[^,]+,"ci_high":[^,]+,"compute_s":[^,]+,"communication_s":[^,]+,"waiting_s":[^,]+,"update_s":[^}]+\},.*\{"worker":"all",[^]]*\],"what_if":\{"fraction":0.1,"params":\[\{"param":"bw",.*\}$' "$tmp/ring.json" \
    && ok "json shape" || { no "json shape"; head -c 600 "$tmp/ring.json"; echo; }
steps=$(json_number mean "$tmp/ring.json")
bound=$(grep -o '"bound":{"steps_per_s":[-0-9.eE+]*' "$tmp/ring.json" | cut -d: -f3)
awk -v s="$steps" -v b="$bound" 'BEGIN { exit !(s > 0 && s <= b) }' && ok "steps/s $steps <= bound $bound" || no "steps/s $steps <= bound $bound"
grep -q '"resources":\[.*"name":"w\[3\]\.down"' "$tmp/ring.json" && ok "json lists every resource" || no "json lists every resource"

# What-if: the value at bw - 10% and at N - 1 is what `sgdnet run` gives there with the same seed
# (common random numbers), and the relative change is against the run at the base.
expect_rc 0 "run at the base" -- "$SGDNET" run "$ROOT/models/allreduce_ring_coarse.sgdnet" --set N=4 --seed 3 --format json
base=$(json_number mean "$tmp/out")
same "$base" "$(json_number base "$tmp/ring.json")" && ok "what-if base = run" || no "what-if base $base"
grep -o '"param":"bw",[^}]*' "$tmp/ring.json" >"$tmp/bw"
[ "$(json_number low_value "$tmp/bw")" = "1125000000.0" ] && ok "bw low value 1.125e9 B/s" || no "bw low value: $(cat "$tmp/bw")"
expect_rc 0 "run at bw - 10%" -- "$SGDNET" run "$ROOT/models/allreduce_ring_coarse.sgdnet" --set N=4 --set "bw=1.125e9 B/s" --seed 3 --format json
low=$(json_number mean "$tmp/out")
same "$low" "$(json_number low "$tmp/bw")" && ok "what-if at bw - 10% = run ($low)" || no "what-if at bw - 10%: run $low, $(cat "$tmp/bw")"
change=$(awk -v l="$low" -v b="$base" 'BEGIN { printf "%.17g", (l - b) / b }')
same "$change" "$(json_number change_low "$tmp/bw")" && ok "change_low = (run_low - run_base) / run_base" || no "change_low: $change"
grep -o '"param":"N",[^}]*' "$tmp/ring.json" >"$tmp/n"
[ "$(json_number low_value "$tmp/n")" = "3.0" ] && ok "an integer param moves to the next integer" || no "N low value: $(cat "$tmp/n")"
expect_rc 0 "run at N = 3" -- "$SGDNET" run "$ROOT/models/allreduce_ring_coarse.sgdnet" --set N=3 --seed 3 --format json
same "$(json_number mean "$tmp/out")" "$(json_number low "$tmp/n")" && ok "what-if at N = 3 = run" || no "what-if at N = 3"

# sweep --explain: bound and step-time columns beside the measures; the bound is at least the
# simulated steps/s at every point, the compute part is the model's 105 ms.
expect_rc 0 "sweep --explain" -- "$SGDNET" sweep "$ROOT/models/ps_sync_coarse.sgdnet" --set N=2..8:x2 --explain -q --precision 0.02
head -1 "$tmp/out" | tr , '\n' >"$tmp/cols"
for col in bound.steps_per_s bound.cycle_steps_per_s part.compute_s part.update_s part.exposed_comm_s 'busy.w\[0\]' 'exposed_comm.w\[0\]' 'step_time.w\[0\]' 'step_time.w\[7\]'; do
    grep -qx "$col" "$tmp/cols" && ok "sweep --explain column $col" || no "sweep --explain column $col"
done
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         { if (!($(c["steps_per_s_ci_low"]) <= $(c["bound.steps_per_s"]) && $(c["part.compute_s"]) == 0.105)) bad++; n++ }
         END { exit !(n == 3 && bad == 0) }' "$tmp/out" && ok "sweep --explain: bound >= steps/s at every point" || { no "sweep --explain rows"; cat "$tmp/out"; }
expect_rc 0 "sweep without --explain" -- "$SGDNET" sweep "$ROOT/models/ps_sync_coarse.sgdnet" --set N=2 -q --precision 0.02
head -1 "$tmp/out" | grep -q "bound\." && no "columns only with --explain" || ok "columns only with --explain"

# --bounds-only: the closed forms at any N, no net built: ps_sync at 100,000 workers, where each
# shard NIC moves N × 51.114 MB each way at 25 Gbps (1636 s per step and direction).
expect_rc 0 "--bounds-only at N = 100000" -- "$SGDNET" explain "$ROOT/models/ps_sync_coarse.sgdnet" --set N=100000 --bounds-only
grep -q '^model ps_sync_coarse: ps_sync, 100000 workers, 2 servers (coarse)$' "$tmp/out" && ok "--bounds-only header" || { no "--bounds-only header"; cat "$tmp/out"; }
grep -q '^steps_per_s bound 0.0003057 (critical path); not simulated (--bounds-only)$' "$tmp/out" && ok "--bounds-only bound" || { no "--bounds-only bound"; head -3 "$tmp/out"; }
grep -Eq '^ps\[0\]\.down +link +1636 s +0\.0006114 +- ' "$tmp/out" && ok "--bounds-only shard NIC row" || { no "--bounds-only shard NIC row"; head -8 "$tmp/out"; }
expect_rc 0 "--bounds-only --format json" -- "$SGDNET" explain "$ROOT/models/allreduce_ring_coarse.sgdnet" --set N=4 --bounds-only --format json
grep -Eq '^\{"model":"allreduce_ring_coarse","measures":\[\],.*"utilization":null.*"breakdown":\[\]' "$tmp/out" && ok "--bounds-only json: no measures, no utilizations" || { no "--bounds-only json"; head -c 400 "$tmp/out"; }
expect_rc 2 "--bounds-only of a raw net" -- "$SGDNET" explain "$ROOT/examples/mm1.sgdnet" --bounds-only
grep -q "needs a training system" "$tmp/err" && ok "--bounds-only says why" || no "--bounds-only says why"

# A raw net: its transitions by firings/s and places by mean tokens.
expect_rc 0 "explain of a raw net" -- "$SGDNET" explain "$ROOT/examples/mm1.sgdnet" --what-if 0
grep -q '^model mm1: a net without a training system$' "$tmp/out" && ok "raw net header" || no "raw net header"
grep -Eq '^ +(0\.9[0-9]*|1(\.0[0-9]*)?) /s +1 +mm1\.arrive$' "$tmp/out" && ok "arrivals at 1/s, bound 1/s" || { no "arrivals at 1/s, bound 1/s"; cat "$tmp/out"; }
grep -Eq '^ +(0\.9[0-9]*|1(\.0[0-9]*)?) /s +1\.25 +mm1\.serve$' "$tmp/out" && ok "services at 1/s, bound 1.25/s" || no "services at 1/s, bound 1.25/s"
grep -Eq '^ +[34]\.[0-9]+ tokens +- +mm1\.queue$' "$tmp/out" && ok "queue of about 4 tokens, unbounded" || no "queue of about 4 tokens, unbounded"
grep -q '^  none: no place is bounded by the structure$' "$tmp/out" && ok "an open queue has no invariant" || no "an open queue has no invariant"
# A closed net: its invariant, in text and JSON.
expect_rc 0 "explain of the repairman" -- "$SGDNET" explain "$ROOT/examples/repairman.sgdnet" --what-if 0 --format json
python3 - "$tmp/out" <<'PY' && ok "repairman: one invariant, every rate below its bound" || no "repairman invariant or bounds"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["invariants"]) == 1 and r["invariants"][0].endswith(" = 5"), r["invariants"]
for e in r["transitions"] + r["places"]:
    assert e["bound"] is not None and e["ci_low"] <= e["bound"], e
PY

# Input errors: exit 2 with the diagnostic at FILE:LINE:COL; unknown --set names the param.
printf 'param N = 2;\nworker w[N] { compute = det(5 ms) ; bandwith = 1 Gbps; }\n' >"$tmp/bad.sgdnet"
expect_rc 2 "explain of a wrong file" -- "$SGDNET" explain "$tmp/bad.sgdnet"
grep -Eq "^$tmp/bad.sgdnet:2:[0-9]+: error: " "$tmp/err" && ok "diagnostic at file:line:col" || { no "diagnostic at file:line:col"; cat "$tmp/err"; }
expect_rc 2 "explain --set of an unknown param" -- "$SGDNET" explain "$model" --set NN=3
grep -q "unknown param \`NN\`" "$tmp/err" && ok "unknown param named" || { no "unknown param named"; cat "$tmp/err"; }
expect_rc 2 "explain --format csv" -- "$SGDNET" explain "$model" --format csv

echo "passed $passed, failed $failed"
[ "$failed" -eq 0 ]
