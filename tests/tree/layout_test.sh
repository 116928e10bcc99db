#!/usr/bin/env bash
# Checks the layout rules of docs/architecture.md that no compiler checks: ANTLR stays in frontend/, every library folder has its CMakeLists and unit-test folder, no function over 120 lines, no guarded test registration, and the file map is current.
#
# Usage: layout_test.sh SOURCE_DIR
set -uo pipefail
cd "$1" || exit 2
fail=0
problem() { echo "FAIL: $*"; fail=1; }

# 1. Only frontend/ (and the generated parser from grammar/) see ANTLR.
if git ls-files '*.cpp' '*.hpp' '*.h' | grep -v '^frontend/\|^grammar/' |
        xargs grep -il 'antlr\|SgdNetParser\|SgdNetLexer' >/tmp/layout_antlr.$$ 2>/dev/null; then
    problem "ANTLR outside frontend/: $(tr '\n' ' ' </tmp/layout_antlr.$$)"
fi
rm -f /tmp/layout_antlr.$$

# 2. One folder, one library, one test folder.
folders=$(sed -n 's/^set(SGDNET_LIBRARY_FOLDERS \(.*\))$/\1/p' CMakeLists.txt)
[ -n "$folders" ] || problem "no SGDNET_LIBRARY_FOLDERS list in CMakeLists.txt"
for folder in $folders solver/sim solver/exact; do
    [ -f "$folder/CMakeLists.txt" ] || problem "$folder/ has no CMakeLists.txt"
    [ -f "tests/unit/$folder/CMakeLists.txt" ] || problem "$folder/ has no tests/unit/$folder/CMakeLists.txt"
done
if git ls-files | grep -q '\.cmake$' && git ls-files '*.cmake' | grep -v '^cmake/' | grep -q .; then
    problem "CMake fragments outside cmake/: $(git ls-files '*.cmake' | grep -v '^cmake/' | tr '\n' ' ')"
fi

# 3. Tests cannot vanish: no guards around their registration.
if git ls-files 'tests/*CMakeLists.txt' 'tests/*.cmake' |
        xargs grep -n 'if *(EXISTS\|OPTIONAL\|return *()' 2>/dev/null; then
    problem "guarded test registration (above)"
fi

# 4. Short functions.
if ! out=$(bash scripts/longest_functions.sh 5 2>&1); then
    problem "functions over 120 lines:"
    echo "$out"
fi

# 5. docs/architecture.md maps every file with its opening sentence.
python3 scripts/file_map.py --check || problem "docs/architecture.md's file map (above)"

if [ $fail -eq 0 ]; then
    echo "layout: ANTLR contained, $(wc -w <<<"$folders") library folders with tests, functions ≤ 120 lines, file map current"
fi
exit $fail
