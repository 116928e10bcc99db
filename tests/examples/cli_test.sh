#!/usr/bin/env bash
# End-to-end tests of the `sgdnet` command (docs/language.md §7): help/version, exit codes 0/2/3/4,
# diagnostics format, --emit/-o, JSON/CSV shapes, --set, determinism across --threads, and
# output that cannot be written (exit 2).
set -u
SGDNET=$1 EXAMPLES=$2
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

expect_rc 0 "--version" -- "$SGDNET" --version
grep -q '^sgdnet [0-9]' "$tmp/out" && ok "version text" || no "version text: $(cat "$tmp/out")"
for sub in check compile run import-profile; do
    expect_rc 0 "$sub --help" -- "$SGDNET" "$sub" --help
    expect_rc 0 "$sub --version" -- "$SGDNET" "$sub" --version
done
expect_rc 2 "no subcommand" -- "$SGDNET"
expect_rc 2 "unknown option" -- "$SGDNET" run "$EXAMPLES/mm1.sgdnet" --no-such-option
expect_rc 2 "bad --emit value" -- "$SGDNET" compile "$EXAMPLES/mm1.sgdnet" --emit svg
expect_rc 2 "unreadable file" -- "$SGDNET" check "$tmp/missing.sgdnet"

# Diagnostics: FILE:LINE:COL: error: MESSAGE, the source line, a caret; all errors reported.
cat >"$tmp/bad.sgdnet" <<'SRC'
net bad {
  place p = 0;
  transition t ~ exp(mean = 5) { in p; }
  transition u ~ det(-1 s) { out nowhere; }
}
SRC
expect_rc 2 "check of a wrong file" -- "$SGDNET" check "$tmp/bad.sgdnet" "$EXAMPLES/mm1.sgdnet"
grep -Eq "^$tmp/bad.sgdnet:3:[0-9]+: error: " "$tmp/err" && ok "diagnostic format" || { no "diagnostic format"; cat "$tmp/err"; }
grep -Eq '^ *\^' "$tmp/err" && ok "caret line" || no "caret line"
[ "$(grep -c ': error: ' "$tmp/err")" -ge 2 ] && ok "several errors reported" || no "several errors reported"
[ ! -s "$tmp/out" ] && ok "check prints nothing on stdout" || no "check printed on stdout"

# compile: -o writes what stdout shows.
expect_rc 0 "compile --emit net" -- "$SGDNET" compile "$EXAMPLES/mm1k.sgdnet" --emit net
cp "$tmp/out" "$tmp/net.txt"
expect_rc 0 "compile -o" -- "$SGDNET" compile "$EXAMPLES/mm1k.sgdnet" -o "$tmp/net2.txt"
cmp -s "$tmp/net.txt" "$tmp/net2.txt" && ok "-o equals stdout" || no "-o differs from stdout"
grep -q '^net mm1k$' "$tmp/net.txt" && ok "net text header" || no "net text header"
for emit in dot pnml json; do
    expect_rc 0 "compile --emit $emit" -- "$SGDNET" compile "$EXAMPLES/mm1k.sgdnet" --emit $emit
done

# run --format json: keys of docs/language.md §7 in order; exact solver adds stats.states.
expect_rc 0 "run --format json (exact)" -- "$SGDNET" run "$EXAMPLES/mm1k.sgdnet" --solver exact --format json
grep -Eq '^\{"model":"mm1k","solver":"exact","params":\{.*\},"measures":\{"thr":\{"mean":[^,]+,"ci_low":[^,]+,"ci_high":[^}]+\},.*"stats":\{"replications":[0-9]+,"events":[0-9]+,"simulated_s":[^,]+,"wall_s":[^,]+,"states":6,"residual":[^,]+,"iterations":0,"method":"sparse-lu"\}\}$' "$tmp/out" \
    && ok "json shape" || { no "json shape"; cat "$tmp/out"; }

# --set reaches the model: M/M/1/K with K = 3, ρ = 0.8: throughput = 1 - ρ^3 (1-ρ)/(1-ρ^4)
# = 1 - 0.1024/0.5904 = 0.8265582655826558.
expect_rc 0 "run --set" -- "$SGDNET" run "$EXAMPLES/mm1k.sgdnet" --set mm1k.K=3 --solver exact --format csv
head -1 "$tmp/out" | grep -qx 'thr,thr_ci_low,thr_ci_high,full,full_ci_low,full_ci_high,qlen,qlen_ci_low,qlen_ci_high' \
    && ok "csv header" || { no "csv header"; cat "$tmp/out"; }
[ "$(wc -l <"$tmp/out")" -eq 2 ] && ok "csv has one row" || no "csv rows"
tail -1 "$tmp/out" | grep -q '^0\.82655826558265[0-9]*,' && ok "--set K=3 closed form" || { no "--set K=3 closed form"; cat "$tmp/out"; }
expect_rc 2 "--set without =" -- "$SGDNET" run "$EXAMPLES/mm1k.sgdnet" --set K
expect_rc 2 "--set of an unknown param" -- "$SGDNET" run "$EXAMPLES/mm1k.sgdnet" --set nope=3
expect_rc 2 "--max-time without a time unit" -- "$SGDNET" run "$EXAMPLES/mm1.sgdnet" --max-time 3MB
expect_rc 2 "--precision out of range" -- "$SGDNET" run "$EXAMPLES/mm1.sgdnet" --precision 2

# Exit 3: the M/M/1 state space is infinite; the error names the place and where it is declared.
expect_rc 3 "exact on an unbounded net" -- "$SGDNET" run "$EXAMPLES/mm1.sgdnet" --solver exact --max-states 10000
grep -q '^error: ' "$tmp/err" && ok "solve error on stderr" || no "solve error on stderr"
grep -q "mm1.sgdnet:[0-9]*:[0-9]*: note: place 'mm1.queue'" "$tmp/err" && ok "note points at the place" || { no "note"; cat "$tmp/err"; }

# Exit 4: precision unreachable in 1 s; results still printed, warning on stderr.
expect_rc 4 "precision not reached" -- "$SGDNET" run "$EXAMPLES/mm1.sgdnet" --precision 0.00001 --max-time 1s --format json
grep -q '"measures"' "$tmp/out" && ok "results printed despite exit 4" || no "no results with exit 4"
grep -q '^warning: ' "$tmp/err" && ok "warning printed" || no "warning printed"

# Same seed, same numbers whatever --threads is (wall_s aside).
"$SGDNET" run "$EXAMPLES/md1.sgdnet" --seed 7 --threads 1 --format json | sed 's/"wall_s":[^,}]*//' >"$tmp/t1"
"$SGDNET" run "$EXAMPLES/md1.sgdnet" --seed 7 --threads 2 --format json | sed 's/"wall_s":[^,}]*//' >"$tmp/t2"
[ -s "$tmp/t1" ] && cmp -s "$tmp/t1" "$tmp/t2" && ok "deterministic across --threads" || no "threads change results"

# Output that cannot be written is an error, not a silent success: /dev/full refuses every write.
if [ -w /dev/full ]; then
    for cmd in "run $EXAMPLES/mm1k.sgdnet --solver exact --format json" \
               "compile $EXAMPLES/mm1k.sgdnet --emit dot" \
               "sweep $EXAMPLES/mm1k.sgdnet --set mm1k.K=2..3 --format jsonl -q"; do
        # shellcheck disable=SC2086  # the command's words
        "$SGDNET" $cmd >/dev/full 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 2 ] && grep -q '^error: cannot write to standard output' "$tmp/err"; then
            ok "${cmd%% *} > /dev/full: exit 2 and a message"
        else
            no "${cmd%% *} > /dev/full: exit $rc"
            cat "$tmp/err"
        fi
    done
else
    echo "skip: /dev/full is not writable here, write errors not tested"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
