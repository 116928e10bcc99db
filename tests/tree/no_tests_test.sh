#!/usr/bin/env bash
# Checks that the test command cannot pass without running tests: ctest with --no-tests=error fails on a build that registers none, and ./sgdnet.sh test configures tests ON and runs ctest that way.
#
#   tests/tree/no_tests_test.sh SOURCE_DIR
set -euo pipefail
ROOT=${1:?usage: no_tests_test.sh SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# A project with testing enabled and no test, like a build configured with tests OFF.
mkdir -p "$tmp/src"
cat >"$tmp/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(empty NONE)
enable_testing()
CMAKE
cmake -S "$tmp/src" -B "$tmp/build" >/dev/null
if ctest --test-dir "$tmp/build" --no-tests=error >"$tmp/out" 2>&1; then
    echo "FAIL: ctest --no-tests=error exited 0 on a build without tests"; fail=1
else
    echo "ok: ctest --no-tests=error fails on a build without tests ($(tr '\n' ' ' <"$tmp/out" | cut -c1-80))"
fi
if ! ctest --test-dir "$tmp/build" >/dev/null 2>&1; then
    echo "FAIL: plain ctest was expected to pass here (the check above would prove nothing)"; fail=1
fi

# Every ctest call of the test command refuses an empty run, and its main build has tests ON
# (demo configures the same build/ with tests OFF).
calls=$(grep -c 'ctest --test-dir' "$ROOT/sgdnet.sh")
guarded=$(grep -c 'ctest --test-dir.*--no-tests=error' "$ROOT/sgdnet.sh")
[ "$calls" -gt 0 ] && [ "$calls" -eq "$guarded" ] || {
    echo "FAIL: $((calls - guarded)) of $calls ctest calls in sgdnet.sh lack --no-tests=error"; fail=1; }
grep -q 'configure_and_build "\$BUILD" -DSGDNET_BUILD_TESTS=ON' "$ROOT/sgdnet.sh" || {
    echo "FAIL: sgdnet.sh test does not configure build/ with -DSGDNET_BUILD_TESTS=ON"; fail=1; }
[ $fail -eq 0 ] && echo "no_tests: the test command cannot pass without tests"
exit $fail
