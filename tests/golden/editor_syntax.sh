#!/bin/bash
# The Vim syntax file (editors/vim) against the grammar: every keyword token of
# grammar/SgdNet.g4, every unit of its UNIT fragment and every function of the compiler is
# highlighted; and on every model and example, comments, declaration keywords and calls are.
#   editor_syntax.sh REPO_ROOT
set -u
root=$1
cd "$root" || exit 1
syntax=editors/vim/syntax/sgdnet.vim
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

keywords=$(grep -oE "^[A-Z_]+ *: *'[a-z_]+' *;" grammar/SgdNet.g4 | sed -E "s/.*'([a-z_]+)'.*/\1/")
units=$(sed -n '/^fragment UNIT/,/;/p' grammar/SgdNet.g4 | grep -oE "'[^']+'" | tr -d "'")
functions=$(sed -n '/function_names() {/,/};/p' compiler/eval.cpp | grep -oE '"[a-z_]+"' | tr -d '"')
[ "$(echo "$keywords" | wc -w)" -ge 19 ] || fail "found only $(echo $keywords | wc -w) keyword tokens in the grammar"
[ "$(echo "$units" | wc -w)" -ge 30 ] || fail "found only $(echo $units | wc -w) units in the grammar"
[ "$(echo "$functions" | wc -w)" -ge 20 ] || fail "found only $(echo $functions | wc -w) functions in compiler/eval.cpp"

# Every keyword and function is in a `syntax keyword` line of the file.
listed=$(grep -E '^syntax keyword' "$syntax" | cut -d' ' -f4-)
for word in $keywords $functions; do
    echo " $listed " | tr '\n' ' ' | grep -qw -- "$word" || fail "\`$word\` is not a keyword of $syntax"
done

if ! command -v vim >/dev/null; then
    echo "vim not found: the highlighting itself is not checked"
    [ "$failures" -eq 0 ]; exit
fi

# The highlighting, as Vim computes it: a probe file of every keyword, call and quantity, then
# the models and examples.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
    for k in $keywords; do echo "$k"; done
    for f in $functions; do echo "$f(1)"; done
    for u in $units; do echo "12.5 $u"; echo "3$u"; done
} >"$work/probe.sgdnet"
find models examples -name '*.sgdnet' | sort >"$work/files"
cat >"$work/check.vim" <<VIM
set nocompatible
let &rtp = '$root/editors/vim,' . &rtp
filetype on
syntax on
let s:out = []
function! s:group(l, c) abort
  return synIDattr(synID(a:l, a:c, 1), 'name')
endfunction
function! s:expect(file, l, c, pattern, what) abort
  let g = s:group(a:l, a:c)
  if g !~# a:pattern
    call add(s:out, a:file . ':' . a:l . ':' . a:c . ': ' . a:what . ' is highlighted as "' . g . '"')
  endif
endfunction
execute 'edit ' . fnameescape('$work/probe.sgdnet')
if &filetype !=# 'sgdnet' | call add(s:out, 'a .sgdnet file is not of filetype sgdnet') | endif
let s:kw = '^sgdnet\(Declaration\|NetItem\|Arc\|Boolean\)$'
for l in range(1, line('$'))
  let t = getline(l)
  if t =~# '^[a-z_]\+$'
    call s:expect('probe', l, 1, s:kw, 'keyword ' . t)
  elseif t =~# '(1)$'
    call s:expect('probe', l, 1, '^sgdnet\(Distribution\|Function\|Measure\)$', 'function ' . t)
  else
    call s:expect('probe', l, 1, '^sgdnetQuantity$', 'the number of ' . t)
    call s:expect('probe', l, len(t), '^sgdnetQuantity$', 'the unit of ' . t)
  endif
endfor
let s:calls = '\<\(' . join(split('$(echo $functions)'), '\|') . '\)('
let s:starts = '^\s*\(model\|param\|let\|layers\|host\|worker\|server\|training\|net\|measure\|place\|transition\|immediate\|in\|out\|inhibit\)\s'
let s:models = 0
for f in readfile('$work/files')
  execute 'edit ' . fnameescape(f)
  let s:models += 1
  for l in range(1, line('$'))
    let t = getline(l)
    let c = match(t, '\S') + 1
    if t =~# '^\s*//'
      call s:expect(f, l, c, '^sgdnetLineComment$', 'a comment')
    elseif t =~# s:starts
      call s:expect(f, l, c, s:kw, 'the keyword ' . matchstr(t, '\S\+'))
    endif
    let p = match(t, s:calls)
    while p >= 0 && t !~# '^\s*//'
      if s:group(l, p + 1) !~# 'Comment\|String'
        call s:expect(f, l, p + 1, '^sgdnet\(Distribution\|Function\|Measure\)$', 'the call ' . matchstr(t, s:calls, p))
      endif
      let p = match(t, s:calls, matchend(t, s:calls, p))
    endwhile
  endfor
endfor
call add(s:out, 'checked ' . s:models . ' files')
call writefile(s:out, '$work/result')
qall!
VIM
vim -Nu NONE -i NONE -es -S "$work/check.vim" </dev/null
if [ ! -s "$work/result" ]; then
    fail "vim wrote no result"
else
    grep -v '^checked' "$work/result" | head -30 | while IFS= read -r line; do echo "FAIL $line"; done
    bad=$(grep -vc '^checked' "$work/result")
    failures=$((failures + bad))
    grep '^checked' "$work/result"
fi
echo "$(echo $keywords | wc -w) keywords, $(echo $units | wc -w) units, $(echo $functions | wc -w) functions; $failures failures"
[ "$failures" -eq 0 ]
