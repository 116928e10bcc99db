#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine: installs what is missing, builds, and runs the
# demo or the whole test suite.
#
#   ./sgdnet.sh demo    install deps, build, solve a bundled model (the README's first command)
#   ./sgdnet.sh test    install deps, build, run every test label, then unit+golden under
#                       AddressSanitizer/UBSan, then libFuzzer over the compiler for
#                       SGDNET_FUZZ_SECONDS (60) (the README's second command; CI runs it)
#   ./sgdnet.sh build   install deps and build into build/
#   ./sgdnet.sh validation-deps   also install PyTorch (profiling workloads, examples/validation)
#
# Environment: SGDNET_JOBS (parallel jobs, default: number of cores), SGDNET_BUILD_DIR (build/),
# SGDNET_ASAN_BUILD_DIR (build-asan/).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
JOBS=${SGDNET_JOBS:-$(nproc 2>/dev/null || echo 2)}
BUILD=${SGDNET_BUILD_DIR:-$ROOT/build}
ASAN_BUILD=${SGDNET_ASAN_BUILD_DIR:-$ROOT/build-asan}

deps() { bash "$ROOT/scripts/install-deps.sh"; }

# configure DIR [CMAKE ARGS…]
configure() {
    local dir=$1
    shift
    cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
}

# configure_and_build DIR [CMAKE ARGS…]
configure_and_build() {
    configure "$@"
    cmake --build "$1" -j "$JOBS"
}

demo() {
    deps
    configure_and_build "$BUILD" -DSGDNET_BUILD_TESTS=OFF -DSGDNET_BUILD_BENCH=OFF
    # The main job: a training system (a bundled model) solved by simulation.
    local model=$ROOT/models/allreduce_ring_coarse.sgdnet
    [ -f "$model" ] || model=$ROOT/examples/mm1k.sgdnet
    echo
    echo "== sgdnet run $model --seed 1"
    "$BUILD/cli/sgdnet" run "$model" --seed 1
}

run_tests() {
    deps
    local status=0 start=$SECONDS
    # Tests and benchmarks explicitly ON: `demo` may have configured the same build/ without them.
    configure_and_build "$BUILD" -DSGDNET_BUILD_TESTS=ON -DSGDNET_BUILD_BENCH=ON
    echo "== ctest (all labels) in $BUILD"
    ctest --test-dir "$BUILD" --output-on-failure --no-tests=error -j "$JOBS" || status=1
    echo "== normal build and tests took $((SECONDS - start)) s"

    local asan_start=$SECONDS
    # Only the programs that the unit and golden tests run (target unit_golden_programs): the
    # other test binaries, the Python module and sgdnet-mpi would be compiled with the
    # sanitizers for nothing.
    configure "$ASAN_BUILD" -DSGDNET_SANITIZE=ON -DSGDNET_BUILD_TESTS=ON -DSGDNET_BUILD_BENCH=OFF
    cmake --build "$ASAN_BUILD" -j "$JOBS" --target unit_golden_programs
    echo "== ctest -L 'unit|golden' under AddressSanitizer + UBSan in $ASAN_BUILD"
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir "$ASAN_BUILD" --output-on-failure --no-tests=error -j "$JOBS" -L 'unit|golden' ||
        status=1
    echo "== sanitizer build and tests took $((SECONDS - asan_start)) s"

    local fuzz_start=$SECONDS fuzz_seconds=${SGDNET_FUZZ_SECONDS:-60}
    echo "== libFuzzer over the compiler for ${fuzz_seconds} s (scripts/fuzz.sh)"
    SGDNET_FUZZ_BUILD_DIR=${SGDNET_FUZZ_BUILD_DIR:-$ROOT/build-fuzz} \
        bash "$ROOT/scripts/fuzz.sh" "$fuzz_seconds" || status=1
    echo "== fuzzing took $((SECONDS - fuzz_start)) s"

    if [ $status -eq 0 ]; then
        echo "== all tests passed ($((SECONDS - start)) s)"
    else
        echo "== some tests FAILED ($((SECONDS - start)) s)"
    fi
    return $status
}

case "${1:-}" in
    demo) demo ;;
    test) run_tests ;;
    build) deps && configure_and_build "$BUILD" ;;
    deps) deps ;;
    validation-deps) bash "$ROOT/scripts/install-deps.sh" --validation ;;
    *)
        echo "usage: $0 demo|test|build|deps|validation-deps" >&2
        exit 2
        ;;
esac
