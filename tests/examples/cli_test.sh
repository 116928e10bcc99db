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

# --set errors name their origin: `error: --set NAME=VALUE: …`, then a note where the file uses
# the value (a value out of bounds, of the wrong dimension), or a caret under the value (syntax).
cp "$(dirname "${BASH_SOURCE[0]}")/../data/ring_set.sgdnet" "$tmp/ring.sgdnet"
# expect_set_error DESCRIPTION SET FIRST-LINE SECOND-LINE: `run --set SET` exits 2 with these lines.
expect_set_error() {
    "$SGDNET" run "$tmp/ring.sgdnet" --set "$2" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq 2 ] && [ "$(sed -n 1p "$tmp/err")" = "$3" ] && [ "$(sed -n 2p "$tmp/err")" = "$4" ]; then
        ok "--set $2: $1"
    else
        no "--set $2: $1 (exit $rc)"; cat "$tmp/err"
    fi
}
expect_set_error "out of the bounds of its use" "bw=-25Gbps" \
    'error: --set bw=-25Gbps: `bandwidth` must be > 0, got -25 Gbps' \
    "$tmp/ring.sgdnet:5:50: note: the value of \`bw\` is used here"
expect_set_error "wrong dimension" "bw=3ms" \
    'error: --set bw=3ms: expected a rate, got a time (3 ms)' \
    "$tmp/ring.sgdnet:5:50: note: the value of \`bw\` is used here"
expect_set_error "an array size" "N=0" \
    'error: --set N=0: an array size must be in 1..1000000, got 0' \
    "$tmp/ring.sgdnet:5:10: note: the value of \`N\` is used here"
expect_set_error "bad syntax, caret under the value" "bw=25Gbbps" \
    "error: --set bw=25Gbbps: unknown unit 'Gbbps' (units are listed in docs/language.md §3)" \
    '  --set bw=25Gbbps'
[ "$(sed -n 3p "$tmp/err")" = '             ^' ] && ok "caret under the unit" || { no "caret"; cat "$tmp/err"; }
expect_set_error "unknown NAME" "bww=3" \
    'error: --set bww=3: unknown param `bww`; did you mean `bw`?' ''
[ ! -s "$tmp/out" ] && ok "--set errors: nothing on stdout" || no "--set errors: stdout"

# The table shows params and measures in readable units; CSV and JSON stay canonical.
expect_rc 0 "run table with --set bw=25Gbps" -- "$SGDNET" run "$tmp/ring.sgdnet" --set bw=25Gbps --set N=2 --precision 0.05
grep -qx 'params: N=2, bw=25 Gbps' "$tmp/out" && ok "params line in readable units" || { no "params line"; cat "$tmp/out"; }
expect_rc 0 "run --format json with --set bw=25Gbps" -- "$SGDNET" run "$tmp/ring.sgdnet" --set bw=25Gbps --set N=2 --precision 0.05 --format json
grep -q '"bw":3125000000' "$tmp/out" && ok "JSON params canonical" || { no "JSON params canonical"; cat "$tmp/out"; }

# Progress of a run that lasts over a second: on a terminal only (one line redrawn with \r,
# erased at the end), never in redirected output.
slow=(run "$EXAMPLES/mm1.sgdnet" --precision 0.00001 --max-time 2.5s --format csv)
"$SGDNET" "${slow[@]}" >"$tmp/out" 2>"$tmp/err"
! grep -q 'simulating\|solving' "$tmp/err" && ! grep -q $'\r' "$tmp/err" \
    && ok "no progress in redirected stderr" || { no "progress in redirected stderr"; cat -A "$tmp/err" | head -3; }
if script -qec true /dev/null >/dev/null 2>&1; then
    script -qec "$(printf '%q ' "$SGDNET" "${slow[@]}")" /dev/null >"$tmp/tty" 2>&1 </dev/null
    grep -aq $'\rsimulating: half-width [0-9.e+-]*% (target 0.001%), [0-9.]* [kM]\\? \\?events/s, 00:00:0[0-9] elapsed' "$tmp/tty" \
        && ok "progress line on a terminal" || { no "progress line on a terminal"; cat -A "$tmp/tty" | head -5; }
    grep -aq '^thr,' "$tmp/tty" && ok "results after the progress line" || no "results after progress"
else
    echo "skip: script(1) cannot open a terminal here, the progress line is not tested"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
