#!/bin/bash
# `sgdnet fmt` on every .sgdnet under models/ and examples/: formatting twice gives the text of
# formatting once, and the formatted file (rewritten with -i in a copy of the tree) compiles to
# the same net as the original (and exits the same way).
#   fmt_models.sh SGDNET REPO_ROOT [--skip-subfolders DIR]
# With --skip-subfolders, the files in the folders below DIR (a path under REPO_ROOT) are left
# out; those directly in DIR stay.
set -u
sgdnet=$1
root=$2
skip=
if [ "${3:-}" = --skip-subfolders ]; then skip="${4%/}/"; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/models" "$root/examples" "$work/"
mkdir -p "$work/tests" && cp -r "$root/tests/data" "$work/tests/"  # files the models name
failures=0
count=0
cd "$root" || exit 1
while IFS= read -r f; do
    count=$((count + 1))
    copy="$work/$f"
    if ! "$sgdnet" fmt -i "$copy" 2>"$work/err"; then
        echo "FAIL $f: fmt -i failed"; cat "$work/err"; failures=$((failures + 1)); continue
    fi
    "$sgdnet" fmt "$copy" >"$work/again" 2>"$work/err"
    if ! cmp -s "$copy" "$work/again"; then
        echo "FAIL $f: not idempotent"; diff "$copy" "$work/again" | head -20
        failures=$((failures + 1))
    fi
    "$sgdnet" compile "$f" >"$work/net.orig" 2>/dev/null
    status_orig=$?
    "$sgdnet" compile "$copy" >"$work/net.fmt" 2>/dev/null
    status_fmt=$?
    if [ "$status_orig" != 0 ]; then
        echo "FAIL $f: does not compile (exit $status_orig), nothing to compare"
        failures=$((failures + 1))
    elif [ "$status_orig" != "$status_fmt" ] || ! cmp -s "$work/net.orig" "$work/net.fmt"; then
        echo "FAIL $f: the formatted file compiles to another net (exit $status_orig vs $status_fmt)"
        diff "$work/net.orig" "$work/net.fmt" | head -20
        failures=$((failures + 1))
    fi
    if cmp -s "$f" "$copy"; then :; else changed=$((${changed:-0} + 1)); fi
done < <(find models examples -name '*.sgdnet' | sort |
          awk -v d="$skip" 'd == "" || index($0, d) != 1 || index(substr($0, length(d) + 1), "/") == 0')
if [ "$count" -lt 20 ]; then
    echo "FAIL: only $count .sgdnet files found under $root/models and $root/examples"
    exit 1
fi
echo "$count files formatted, ${changed:-0} changed by fmt, $failures failures"
[ "$failures" -eq 0 ]
