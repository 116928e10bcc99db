#!/usr/bin/env bash
# Runs one example through the CLI: check, --emit dot | dot -Tsvg (no warnings), --emit pnml |
# xmllint (well-formed), run --seed 1 (and --solver exact when the header says `exact: yes`),
# comparing the measures with the header's closed form via example_check.
set -u
SGDNET=$1 CHECK=$2 DOT=$3 XMLLINT=$4 FILE=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
step() { echo "--- $*"; }
bad() { echo "FAIL: $*"; fail=1; }

step "sgdnet check $FILE"
"$SGDNET" check "$FILE" 2>"$tmp/check.err" || bad "check exited $?"
[ -s "$tmp/check.err" ] && { cat "$tmp/check.err"; bad "check printed diagnostics"; }

step "sgdnet compile --emit dot | dot -Tsvg"
if "$SGDNET" compile "$FILE" --emit dot >"$tmp/net.dot"; then
    "$DOT" -Tsvg "$tmp/net.dot" -o "$tmp/net.svg" 2>"$tmp/dot.err" || bad "dot exited $?"
    [ -s "$tmp/dot.err" ] && { cat "$tmp/dot.err"; bad "dot printed warnings"; }
    grep -q "<svg" "$tmp/net.svg" || bad "dot produced no SVG"
else
    bad "compile --emit dot failed"
fi

step "sgdnet compile --emit pnml | xmllint --noout"
if "$SGDNET" compile "$FILE" --emit pnml >"$tmp/net.pnml"; then
    "$XMLLINT" --noout "$tmp/net.pnml" || bad "PNML is not well-formed"
else
    bad "compile --emit pnml failed"
fi

step "sgdnet run --seed 1 --format json"
if "$SGDNET" run "$FILE" --seed 1 --format json >"$tmp/sim.json"; then
    cat "$tmp/sim.json"
    "$CHECK" "$FILE" "$tmp/sim.json" sim || bad "simulation does not match the closed form"
else
    bad "run exited $?"
fi

if grep -q '^// exact: yes' "$FILE"; then
    step "sgdnet run --solver exact --format json"
    if "$SGDNET" run "$FILE" --solver exact --format json >"$tmp/exact.json"; then
        cat "$tmp/exact.json"
        "$CHECK" "$FILE" "$tmp/exact.json" exact || bad "exact solution does not match"
    else
        bad "run --solver exact exited $?"
    fi
fi

[ $fail -eq 0 ] && echo "PASS $FILE" || echo "FAILED $FILE"
exit $fail
