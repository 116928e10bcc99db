#!/usr/bin/env python3
"""Profile -> model -> prediction of DDP throughput, compared with the measured runs.

For each workload: `sgdnet import-profile` turns the one-node profile into a layer table; the
script writes two models around it (DDP ring all-reduce, fine and coarse) into models/, runs
`sgdnet run` for every world-2 DDP configuration of the measurements (link rate x bucket cap),
and writes the table of predicted vs measured steps/s into README.md (between the markers).

Nothing is calibrated on the measurements: compute times come from the profile, the link rate
is the nominal one times the TCP efficiency that a *single-stream link check* reached on the
same links (the `link_check` lines of runs.jsonl, not part of the validation set).

Usage (from the repository root, after building):
  python3 examples/predict_from_profile/predict.py --sgdnet build/cli/sgdnet
"""

import argparse
import json
import re
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PROFILES = os.path.join(ROOT, "tests", "data", "profiles")
RUNS = os.path.join(HERE, "runs.jsonl")  # copy of the shared measurements
BEGIN, END = "<!-- table:begin -->", "<!-- table:end -->"
NOMINAL_MBPS = {"100mbit": 100.0, "1gbit": 1000.0}
BATCH = {"mlp": 32, "resnet18": 16}

TRAINING = """
// ---- training system (written by predict.py) ----
param bw = 100 Mbps;   // nominal link rate, each direction (tc tbf on every host link)
param eff = 1;         // TCP efficiency: single-stream link check / nominal rate
param cap = 25 MiB;    // DDP bucket_cap_mb
worker w[2] {{
  {worker}
  update = {name}_update;
  bandwidth = bw * eff;
  batch = {batch};
}}
training {{
  sync = allreduce_ring;
  granularity = {granularity};
  bucket = cap;
  first_bucket = 1 MiB;  // DDP's _DEFAULT_FIRST_BUCKET_BYTES
}}
"""


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return p.stdout


def write_models(sgdnet, wl):
    table = run([sgdnet, "import-profile", os.path.join(PROFILES, f"{wl}_layers.json"),
                 "--name", wl])
    # The header names the profile by its path; keep it repository-relative.
    table = table.replace(os.path.join(PROFILES, ""), "tests/data/profiles/")
    paths = {}
    for gran, worker in (("fine", f"layers = {wl};"),
                         ("coarse", f"compute = {wl}_compute;\n  layers = {wl};")):
        header = (f"// {wl} trained with DDP ring all-reduce on 2 workers, {gran}-grained, "
                  f"from its one-node profile (written by predict.py).\n")
        text = header + f"model {wl}_ddp_{gran};\n" + table + TRAINING.format(
            worker=worker, name=wl, batch=BATCH[wl], granularity=gran)
        path = os.path.join(HERE, "models", f"{wl}_ddp_{gran}.sgdnet")
        with open(path, "w") as f:
            f.write(text)
        paths[gran] = path
    return paths


def check_buckets(sgdnet, wl, model):
    """The lowering forms DDP's buckets (docs/language.md): for each recorded cap, the fine net
    has exactly as many bucket rings as DDP used buckets."""
    prof = json.load(open(os.path.join(PROFILES, f"{wl}_layers.json")))
    for cap, rec in prof["ddp_buckets"].items():
        net = run([sgdnet, "compile", model, "--emit", "net", "--set", f"cap={cap}MiB"])
        rings = {int(k) for k in re.findall(r"ring\.bucket(\d+)\.w\[0\]\.begin", net)}
        if rings != set(range(len(rec["buckets"]))):
            sys.exit(f"{wl}, cap {cap} MiB: the fine net has {len(rings)} buckets, "
                     f"DDP recorded {len(rec['buckets'])}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sgdnet", default=os.path.join(ROOT, "build", "cli", "sgdnet"))
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    os.makedirs(os.path.join(HERE, "models"), exist_ok=True)

    rows = [json.loads(line) for line in open(RUNS)]
    eff = {r["bw"]: r["result"]["mbit_per_s"] / NOMINAL_MBPS[r["bw"]]
           for r in rows if r.get("link_check")}
    groups = {}
    for r in rows:
        if r.get("link_check") or r["mode"] != "ddp" or r["world"] != 2:
            continue
        groups.setdefault((r["workload"], r["bw"], r["bucket_mb"]), []).append(r["steps_per_s"])

    lines = ["| workload | link | bucket cap | measured steps/s (3 runs) | fine: predicted | "
             "fine: rel. error | coarse: predicted | coarse: rel. error |",
             "|---|---|---|---|---|---|---|---|"]
    errs = {"fine": [], "coarse": []}
    for wl in ("mlp", "resnet18"):
        models = write_models(a.sgdnet, wl)
        check_buckets(a.sgdnet, wl, models["fine"])
        for bw in ("100mbit", "1gbit"):
            for cap in (25.0, 1.0):
                meas = groups[(wl, bw, cap)]
                m = statistics.fmean(meas)
                cells = []
                for gran in ("fine", "coarse"):
                    out = run([a.sgdnet, "run", models[gran], "--format", "json", "--seed",
                               a.seed, "--set", f"bw={NOMINAL_MBPS[bw]:g}Mbps",
                               "--set", f"eff={eff[bw]:.6f}", "--set", f"cap={cap:g}MiB"])
                    est = json.loads(out)["measures"]["steps_per_s"]
                    err = (est["mean"] - m) / m
                    errs[gran].append(abs(err))
                    cells += [f"{est['mean']:.4g} [{est['ci_low']:.4g}, {est['ci_high']:.4g}]",
                              f"{err:+.1%}"]
                lines.append(f"| {wl} | {bw} | {cap:g} MiB | {m:.4g} "
                             f"({', '.join(f'{x:.4g}' for x in meas)}) | " + " | ".join(cells) + " |")
    lines.append("")
    med = {k: statistics.median(v) for k, v in errs.items()}
    mx = {k: max(v) for k, v in errs.items()}
    lines.append(f"Median |relative error|: fine {med['fine']:.1%}, coarse "
                 f"{med['coarse']:.1%} (max: {mx['fine']:.1%}, {mx['coarse']:.1%}). "
                 f"TCP efficiency used: " +
                 ", ".join(f"{k} {v:.3f}" for k, v in sorted(eff.items())) + ".")
    table = "\n".join(lines)
    print(table)
    readme = os.path.join(HERE, "README.md")
    text = open(readme).read()
    i, j = text.index(BEGIN), text.index(END)
    with open(readme, "w") as f:
        f.write(text[:i + len(BEGIN)] + "\n" + table + "\n" + text[j:])


if __name__ == "__main__":
    main()
