#!/usr/bin/env bash
# Fuzzes the compiler with libFuzzer under AddressSanitizer and UBSan for a bounded time, seeded with every .sgdnet file of the repository.
#
#   scripts/fuzz.sh SECONDS [WORKERS]
#
# Builds tests/fuzz/compile_fuzz with Clang into build-fuzz/ (SGDNET_FUZZ_BUILD_DIR), keeps the
# corpus in build-fuzz/corpus and writes any crashing, leaking or hanging input to
# build-fuzz/artifacts/. Exits 0 when no input failed, 1 otherwise (the input's path printed).
# SGDNET_FUZZ_SANITIZERS=undefined (default address,undefined) builds into build-fuzz-ub/
# instead: several times more executions per second for long campaigns, still failing on
# undefined behaviour, crashes, hangs and memory over 2 GiB, but not on leaks or the memory
# errors only ASan sees (the default build catches those). SGDNET_FUZZ_FLAGS adds libFuzzer
# flags, e.g. "-entropic=0" (its feature-frequency bookkeeping takes a third of the time here).
# An input that failed becomes a golden case once fixed (tests/golden/syntax or semantic).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_TO_RUN=${1:?usage: scripts/fuzz.sh SECONDS [WORKERS]}
WORKERS=${2:-1}
SANITIZERS=${SGDNET_FUZZ_SANITIZERS:-address,undefined}
if [ "$SANITIZERS" = address,undefined ]; then
    BUILD=${SGDNET_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}
else
    BUILD=${SGDNET_FUZZ_BUILD_DIR:-$ROOT/build-fuzz-ub}
fi

CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSGDNET_FUZZ=ON -DSGDNET_FUZZ_SANITIZERS="$SANITIZERS" -DSGDNET_BUILD_TESTS=OFF -DSGDNET_BUILD_BENCH=OFF -DSGDNET_BUILD_PYTHON=OFF \
    -DSGDNET_WITH_MPI=OFF >/dev/null
cmake --build "$BUILD" --target compile_fuzz -j "$(nproc 2>/dev/null || echo 2)"

rm -rf "$BUILD/artifacts" "$BUILD"/fuzz-*.log
mkdir -p "$BUILD/corpus" "$BUILD/seeds" "$BUILD/artifacts"
git -C "$ROOT" ls-files '*.sgdnet' | while read -r f; do
    cp "$ROOT/$f" "$BUILD/seeds/$(echo "$f" | tr '/' '_')"
done

# -timeout: an input that takes over 10 s is a hang; -rss_limit_mb: over 2 GiB is a failure.
parallel=()
[ "$WORKERS" -gt 1 ] && parallel=(-workers="$WORKERS" -jobs="$WORKERS")
status=0
cd "$BUILD"  # where libFuzzer's parallel jobs write their fuzz-N.log
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$BUILD/tests/fuzz/compile_fuzz" "$BUILD/corpus" "$BUILD/seeds" \
    -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    "${parallel[@]}" ${SGDNET_FUZZ_FLAGS:-} -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/" 2>"$BUILD/fuzz.log" || status=1
# With several workers, libFuzzer copies each job's fuzz-N.log into its own output at the end.
grep -E "^Done|stat::number_of_executed_units|ERROR|SUMMARY" "$BUILD/fuzz.log" | head -20 || true
awk '/stat::number_of_executed_units/ { n += $2 } END { printf "executions, all workers: %d\n", n }' \
    "$BUILD/fuzz.log"
if [ $status -ne 0 ] || ls "$BUILD/artifacts/"* >/dev/null 2>&1; then
    echo "fuzz: FAILED; inputs in $BUILD/artifacts/, log $BUILD/fuzz.log" >&2
    exit 1
fi
echo "fuzz: no crash, leak, sanitizer report or hang in $SECONDS_TO_RUN s"
