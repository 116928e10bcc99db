#!/usr/bin/env bash
# Checks every Python file of the repository with pyflakes (undefined names, unused imports, …): the profiling and validation scripts need torch, which the test machine does not have, so this is what reads them there.
#
#   tests/tree/pyflakes_test.sh SOURCE_DIR
set -euo pipefail
ROOT=${1:?usage: pyflakes_test.sh SOURCE_DIR}
command -v pyflakes3 >/dev/null || { echo "FAIL: pyflakes3 missing (scripts/install-deps.sh installs it)"; exit 1; }
cd "$ROOT"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.py')
else
    mapfile -t files < <(find . -name '*.py' -not -path './build*' | sort)
fi
(( ${#files[@]} > 0 )) || { echo "FAIL: no Python file found under $ROOT"; exit 1; }
pyflakes3 "${files[@]}"
echo "pyflakes: ${#files[@]} files clean"
