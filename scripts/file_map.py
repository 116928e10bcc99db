#!/usr/bin/env python3
"""Writes or checks the file map of docs/architecture.md: every tracked file with its opening sentence.

    scripts/file_map.py --write    rewrite the map between its two marker lines
    scripts/file_map.py --check    exit 1 (printing a diff) when the map is not what --write writes

A file's job is its opening comment line (`// …`, `# …` after any shebang, a Markdown file's first
heading); data files without comments get a job from FIXED_JOBS or their folder's DATA_FOLDERS
entry. Golden cases, test data and model pictures are described per folder, not per file.
"""
import difflib
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- file map: written by scripts/file_map.py --write; do not edit by hand -->"
END = "<!-- end of file map -->"

# Folders whose files are data, described once: folder → job.
DATA_FOLDERS = {
    "tests/golden/syntax": "Golden cases of syntax errors: CASE.sgdnet and the diagnostics it must give, CASE.expected.",
    "tests/golden/semantic": "Golden cases of semantic errors: CASE.sgdnet and the diagnostics it must give, CASE.expected.",
    "tests/golden/lower": "Golden cases of raw-net lowering: CASE.sgdnet and its canonical net text, CASE.expected.",
    "tests/golden/emit": "Golden cases of the canonical net text, one per construct: CASE.sgdnet, CASE.expected.",
    "tests/data/profiles": "One-node PyTorch profiles (per-layer JSON, profiler traces, malformed ones) read by the profile tests.",
    "examples/validation/profiles": "One-node profiles (profile_model.py, with communication probes) of the validation workloads.",
    "examples/validation/models": "Models of the measured configurations, written by predict.py from the profiles (fine, coarse, without host terms).",
    "examples/validation/runs": "Real training measured on emulated links: one JSON object per run, link checks first.",
    "models/img": "Pictures (Graphviz SVG) of small instances of the ready-made models, shown by their READMEs.",
}
# Files that cannot carry a comment.
FIXED_JOBS = {
    "examples/scaling/allreduce_ring.csv": "Sweep output of the ring all-reduce curve of the scaling figure.",
    "examples/scaling/ps_sync.csv": "Sweep output of the synchronous parameter-server curve of the scaling figure.",
    "examples/scaling/ps_async.csv": "Sweep output of the asynchronous parameter-server curve of the scaling figure.",
    "examples/scaling/scaling.svg": "The scaling figure (gnuplot), shown by the README.",
    "examples/scaling/breakdown.csv": "What breakdown.sh measured: steps/s, its bound and the mean step's parts per scheme and N.",
    "examples/scaling/breakdown.svg": "The step-time breakdown figure (gnuplot, breakdown.gp), shown by the README.",
    "tests/examples/explain_ring_bottleneck.expected": "What `sgdnet explain examples/scaling/ring_bottleneck.sgdnet --seed 1` prints (tests/examples/explain_test.sh).",
    "examples/predict_from_profile/runs.jsonl": "Measured DDP runs (one JSON object per run) that the predictions are compared with.",
    ".clang-format": "Formatting rules (Google base, 4 spaces, 100 columns).",
    ".gitignore": "Build directories and caches kept out of the repository.",
}
TOP_LEVEL = "top level"


def tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True, text=True)
    return sorted({f for f in out.stdout.splitlines() if (ROOT / f).is_file()})


def opening_sentence(path):
    if path in FIXED_JOBS:
        return FIXED_JOBS[path]
    try:
        lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    except (UnicodeDecodeError, OSError):
        return ""
    if path.endswith(".md"):
        for line in lines:
            if line.startswith("#"):
                return line.lstrip("#").strip()
        return ""
    sentence = ""
    for line in lines[:8]:
        stripped = line.strip()
        if stripped.startswith("#!") and not sentence:
            continue
        mark = next((m for m in ("//", "#", '"""', "--") if stripped.startswith(m)), None)
        text = stripped[len(mark):].strip().rstrip('"').strip() if mark else ""
        if not text:
            break
        sentence = f"{sentence} {text}".strip()
        if sentence.endswith((".", ")", ":")) or not mark:
            break
    return sentence


def folder_of(path):
    for folder in DATA_FOLDERS:
        if path.startswith(folder + "/"):
            return None  # described by its folder
    parent = str(pathlib.PurePosixPath(path).parent)
    return TOP_LEVEL if parent == "." else parent


def cell(text):
    return text.replace("|", "&#124;")


def render():
    by_folder = {}
    for path in tracked_files():
        folder = folder_of(path)
        if folder is not None:
            by_folder.setdefault(folder, []).append(path)
    lines = [BEGIN, ""]
    for folder in sorted(by_folder, key=lambda f: (f == TOP_LEVEL, f)):
        lines += [f"### `{folder}/`" if folder != TOP_LEVEL else "### top level", ""]
        lines += ["| file | job |", "|---|---|"]
        for path in sorted(by_folder[folder]):
            lines.append(f"| `{path}` | {cell(opening_sentence(path))} |")
        lines.append("")
    lines += ["### Data folders", "", "| folder | what its files are |", "|---|---|"]
    for folder, job in sorted(DATA_FOLDERS.items()):
        lines.append(f"| `{folder}/` | {cell(job)} |")
    lines += ["", END]
    return "\n".join(lines)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    doc = DOC.read_text(encoding="utf-8")
    if BEGIN not in doc or END not in doc:
        print(f"file_map: {DOC} has no '{BEGIN}' … '{END}' section", file=sys.stderr)
        return 2
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + render() + tail
    if mode == "--write":
        DOC.write_text(new, encoding="utf-8")
        return 0
    if new != doc:
        sys.stdout.writelines(difflib.unified_diff(doc.splitlines(True), new.splitlines(True),
                                                   "docs/architecture.md", "expected", n=0))
        print("file_map: docs/architecture.md's file map is out of date; run scripts/file_map.py --write",
              file=sys.stderr)
        return 1
    missing = [line for line in render().splitlines() if line.endswith("|  |")]
    if missing:
        print("file_map: files without an opening sentence:\n" + "\n".join(missing), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
