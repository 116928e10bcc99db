#!/usr/bin/env bash
# Prints the longest functions of the C++ tree (lines from signature to closing brace), longest first.
#
#   scripts/longest_functions.sh [COUNT]     default 10; exits 1 when one is over 120 lines
#
# Function extents come from Universal Ctags (Debian universal-ctags, end: field); doctest
# TEST_CASE bodies are counted too, as functions named after their macro line.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COUNT=${1:-10}
LIMIT=120
command -v ctags >/dev/null || { echo "longest_functions: needs ctags (apt-get install universal-ctags)" >&2; exit 2; }
cd "$ROOT"
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
# doctest's TEST_CASE("…") { … } is not a function to ctags: treat the macro as a function-like name.
list=$(ctags --languages=C++ --kinds-C++=f --fields=+ne -x --_xformat='%{end} %{line} %{input} %{name}' \
      -D 'TEST_CASE(x)=void test_case()' -D 'TEST_CASE_TEMPLATE(x,T,...)=void test_case_template()' \
      -D 'SUBCASE(x)=if (true)' "${files[@]}" 2>/dev/null |
    awk '$1 != "" { print $1 - $2 + 1, $3 ":" $2, $4 }' | sort -k1,1nr -k2)
head -n "$COUNT" <<<"$list"
longest=$(head -n 1 <<<"$list" | cut -d' ' -f1)
if [ "${longest:-0}" -gt "$LIMIT" ]; then
    echo "longest_functions: $(awk -v l="$LIMIT" '$1 > l' <<<"$list" | wc -l) function(s) over $LIMIT lines" >&2
    exit 1
fi
