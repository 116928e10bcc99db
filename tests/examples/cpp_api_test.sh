#!/usr/bin/env bash
# Installs the build into a fresh prefix, builds examples/cpp_api against the installed package
# (find_package(sgdnet CONFIG)), and checks that it reproduces `sgdnet run` of the same model and
# seed: the same measures, to the 6 significant digits the command's table prints.
#
# Usage: cpp_api_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PREFIX=$WORK/prefix

cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log"
for f in include/sgdnet/sgdnet.hpp lib/cmake/sgdnet/sgdnetConfig.cmake bin/sgdnet \
         share/sgdnet/models/allreduce_ring_coarse.sgdnet; do
    [ -e "$PREFIX/$f" ] || { echo "FAIL: $f was not installed"; exit 1; }
done

cmake -S "$SRC/examples/cpp_api" -B "$WORK/example" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" \
    >"$WORK/configure.log" || { cat "$WORK/configure.log"; exit 1; }
cmake --build "$WORK/example" >"$WORK/build.log" || { cat "$WORK/build.log"; exit 1; }

model=$PREFIX/share/sgdnet/models/allreduce_ring_coarse.sgdnet
"$WORK/example/ring_throughput" >"$WORK/example.out"   # default model and seed 1
"$PREFIX/bin/sgdnet" run "$model" --seed 1 --format csv >"$WORK/cli.csv"
"$PREFIX/bin/sgdnet" run "$model" --seed 1 >"$WORK/cli.table"

# The command's CSV (full precision) at 6 significant digits, one measure a line, as the
# example prints them (without the unit).
awk -F, 'NR == 1 { for (i = 1; i <= NF; i += 3) name[i] = $i; next }
         NR == 2 { for (i = 1; i <= NF; i += 3) printf "%s %.6g %.6g %.6g\n", name[i], $i, $(i+1), $(i+2) }' \
    "$WORK/cli.csv" >"$WORK/cli.measures"
awk 'NR > 1 && NF >= 4 && $1 != "N" { print $1, $2, $3, $4 } $1 == "N" { exit }' \
    "$WORK/example.out" >"$WORK/example.measures"
if ! diff "$WORK/cli.measures" "$WORK/example.measures"; then
    echo "FAIL: the library's measures differ from the command's"
    exit 1
fi
[ -s "$WORK/example.measures" ] || { echo "FAIL: no measures printed"; exit 1; }

# The table itself: rows shown in canonical units (/s, or no unit) print the same digits.
checked=0
while read -r name mean low high; do
    row=$(awk -v n="$name" '$1 == n { print $2, $3, $4 }' "$WORK/cli.table")
    unit=$(awk -v n="$name" '$1 == n { print $6 }' "$WORK/cli.table")
    case "$unit" in
        /s | "") ;;
        *) continue ;;
    esac
    if [ "$row" != "$mean $low $high" ]; then
        echo "FAIL: $name: table '$row', library '$mean $low $high'"
        exit 1
    fi
    checked=$((checked + 1))
done <"$WORK/example.measures"
[ "$checked" -gt 0 ] || { echo "FAIL: no table row compared"; exit 1; }

# The sweep part ran at every N.
[ "$(awk '$1 == "N" { on = 1; next } on && NF == 2' "$WORK/example.out" | wc -l)" -eq 4 ] ||
    { echo "FAIL: the sweep over N printed no 4 rows"; cat "$WORK/example.out"; exit 1; }
echo "cpp_api: $(wc -l <"$WORK/example.measures") measures equal to the command's, $checked table rows to the digit"
