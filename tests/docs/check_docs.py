#!/usr/bin/env python3
"""Checks that the sgdnet and sh code blocks of README.md and docs/*.md work (ctest label docs).

Each ```sgdnet block must compile and each `sgdnet …` command of a ```sh block must exit 0.

Rules (an HTML comment on the line right before a block changes them):
- ```sgdnet block: written next to its page and checked with `sgdnet check`, which must exit 0.
  `<!-- fragment … -->`: not checked (a synopsis or a piece of a model).
  `<!-- error … -->`: must be rejected (exit 2, with a `FILE:LINE:COL: error:` diagnostic); when
  the next block is unlabelled and starts with `NAME.sgdnet:LINE:COL: error: MESSAGE`, the
  compiler must print that line, column and message.
  `<!-- file: PATH -->`: the block must be the whole content of the repository file PATH, which
  is checked in place (so its relative paths resolve as they do for the reader).
- ```sh block: every command starting with `sgdnet ` (continuation lines joined) is run with bash from the root of a copy of
  the repository (so outputs do not land in the source tree), in order; each must exit 0. `$B`
  (the README's name for the built command) is `sgdnet` too. A command piped into a tool that is
  not installed is skipped.
  Other lines (installation, other tools) are not run. `<!-- fragment … -->`: not run.
  `<!-- needs: TOOL … -->`: run only when TOOL is on PATH (else reported as skipped).
- Blocks of other languages are not checked.
Prints one line per block checked and exits 1 if any fails.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\S*)\s*$")
MARK = re.compile(r"^<!--\s*([a-z]+)(?::\s*(\S+))?.*-->\s*$")


def blocks(path):
    """Yields (line, language, marker, marker argument, text) for each fenced block of a page."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        prev = lines[start - 1] if start > 0 else ""
        mk = MARK.match(prev)
        yield (start + 1, lang, mk.group(1) if mk else None, mk.group(2) if mk else None,
               "\n".join(lines[start + 1:j]) + "\n")
        i = j + 1


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, shell=isinstance(cmd, str), executable=None,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    return p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sgdnet", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    args.sgdnet = os.path.abspath(args.sgdnet)
    root = os.path.abspath(args.root)
    pages = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(root, "docs"))
                                   if f.endswith(".md"))
    work = tempfile.mkdtemp(prefix="sgdnet-docs-")
    copy = os.path.join(work, "repo")
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git", "build", "build-*"))
    bindir = os.path.join(work, "bin")
    os.mkdir(bindir)
    os.symlink(os.path.abspath(args.sgdnet), os.path.join(bindir, "sgdnet"))
    env = dict(os.environ, B="sgdnet", PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    failures, checked, skipped = [], 0, 0
    for page in pages:
        found = list(blocks(os.path.join(root, page)))
        for n, (line, lang, mark, marg, text) in enumerate(found):
            where = f"{page}:{line}"
            if lang not in ("sgdnet", "sh") or mark == "fragment":
                continue
            if lang == "sgdnet":
                f = os.path.join(copy, os.path.dirname(page), f"_block{n}.sgdnet")
                if mark == "file":
                    f = os.path.join(copy, marg or "")
                    shown = open(f, encoding="utf-8").read() if os.path.isfile(f) else None
                    if shown != text:
                        print(f"FAIL {where} sgdnet block differs from {marg}")
                        failures.append(f"{where}: the block is not the content of {marg}")
                        continue
                else:
                    open(f, "w", encoding="utf-8").write(text)
                code, out = run([args.sgdnet, "check", f], copy, env)
                want = 2 if mark == "error" else 0
                ok = code == want
                if mark == "error":
                    # The diagnostic must have its position; when the page shows it in the next
                    # (unlabelled) block, the same line, column and message.
                    shown = found[n + 1][4].split("\n")[0] if n + 1 < len(found) else ""
                    m = re.match(r"\S+\.sgdnet(:\d+:\d+: error: .*)$", shown)
                    expect = m.group(1) if m and found[n + 1][1] == "" else ": error: "
                    ok = ok and re.search(r"_block\d+\.sgdnet:\d+:\d+: error: ", out) is not None
                    ok = ok and expect in out
                checked += 1
                why = f"exit {code}, want {want}" + ("" if mark != "error" else f", diagnostic `{expect}`")
                print(f"{'ok  ' if ok else 'FAIL'} {where} sgdnet block ({why})")
                if not ok:
                    failures.append(f"{where}: sgdnet check: {why}; it printed:\n{out}")
                continue
            if mark == "needs" and shutil.which(marg or "") is None:
                skipped += 1
                print(f"skip {where} sh block: needs {marg}, not installed")
                continue
            for cmd in text.replace("\\\n", " ").split("\n"):
                if not cmd.startswith(("sgdnet ", "$B ")):
                    continue
                tools = [t.split()[0] for t in cmd.split("|")[1:] if t.strip()]
                missing = [t for t in tools if shutil.which(t) is None]
                if missing:
                    skipped += 1
                    print(f"skip {where} $ {cmd}: needs {missing[0]}, not installed")
                    continue
                code, out = run(cmd, copy, env)
                checked += 1
                print(f"{'ok  ' if code == 0 else 'FAIL'} {where} $ {cmd} (exit {code})")
                if code != 0:
                    failures.append(f"{where}: `{cmd}` exited {code}:\n{out}")
    shutil.rmtree(work, ignore_errors=True)
    print(f"{checked} checked, {skipped} skipped, {len(failures)} failed")
    for f in failures:
        print("\n" + f, file=sys.stderr)
    if checked == 0:
        print("no block was checked: the extraction is broken", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
