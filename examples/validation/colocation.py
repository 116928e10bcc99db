#!/usr/bin/env python3
"""Times a workload's plain training step when k copies of it run at once on this machine.

Each copy is a process with one intra-op thread, as a testbed rank is. The largest number of
copies is started once; each round then steps k of them together for a window, for every k in
turn (the order reverses from one round to the next), so that the machine's drift, which can
be tens of percent over minutes, cancels in each round's ratios. For each k the script prints
the median over rounds of the step at k against the step at k = 1 of the same round, its range,
and that ratio over what processor sharing on the machine's cores gives (max(1, k / cores)).
A ratio over sharing above 1 is what the copies cost each other beyond sharing the cores:
caches, memory bandwidth, a shared host core. A copy's step in a window is the mean of the
steps that began and ended inside it (comm_probe's copies, which the busy-core probe uses).

With --crowded, the profiler's oversubscription probe (comm_probe.crowded): k = C + 1 … 2C
unpinned copies against one, and the host `oversubscription` o the excess over processor
sharing gives (1 + o·(k − C)/k; --interference takes the host's interference out first).

With --pinned, the profiler's probe instead (comm_probe.side_by_side): one copy pinned to each
CPU, each timed alone and then all together on the same CPUs, so that cores of unequal speed
cancel in each copy's ratio; it prints the median ratio and the host `interference` it gives.

Usage (from the repository root, Debian's python3 with torch):
  python3 examples/validation/colocation.py mlp --batch 32
  python3 examples/validation/colocation.py mobilenet_v2 --batch 16 --input-shape 3,64,64
  WORKLOAD_PATH=examples/validation/workloads \\
      python3 examples/validation/colocation.py tiny_transformer:build --batch 4 --json out.jsonl
  python3 examples/validation/colocation.py mlp --batch 32 --pinned --rounds 10 --json out.jsonl
"""

import argparse
import datetime
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "profiling"))

import comm_probe  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", help="as profile_model.py's --model (a torchvision name, mlp, "
                                  "or MODULE:FUNCTION)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--input-shape", help="per-sample input shape, e.g. 3,32,32")
    ap.add_argument("--copies", default="1,2,3,4", help="the values of k, starting with 1")
    ap.add_argument("--window", type=float, default=2.0, help="seconds per window")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--json", help="append the result as one JSON line to this file")
    ap.add_argument("--pinned", action="store_true",
                    help="one copy pinned to each CPU, alone and together "
                         "(comm_probe.side_by_side)")
    ap.add_argument("--crowded", action="store_true",
                    help="the profiler's oversubscription probe: k = C+1 ... 2C unpinned copies "
                         "against one (comm_probe.crowded; --copies is ignored)")
    ap.add_argument("--interference", type=float, default=0.0,
                    help="with --crowded: the host interference the model will also apply")
    a = ap.parse_args()
    shape = tuple(int(v) for v in a.input_shape.split(",")) if a.input_shape else None
    ks = [int(k) for k in a.copies.split(",")]
    if ks[0] != 1 or len(set(ks)) != len(ks) or min(ks) < 1:
        ap.error("--copies: distinct counts, the first of them 1")
    cores = len(os.sched_getaffinity(0))
    if a.pinned:
        return pinned(a, shape)
    if a.crowded:
        return crowded(a, shape)
    ratios = comm_probe.ratios_to_lone(
        comm_probe.alternating((a.model, a.batch, 10, shape), ks, a.window, a.rounds))
    out = {}
    for k in ks:
        med = statistics.median(ratios[k])
        sharing = max(1.0, k / cores)
        out[k] = {"x_alone": med, "x_sharing": med / sharing, "rounds": ratios[k]}
        print(f"{a.model} k={k}: {med:.3f} x alone (rounds {min(ratios[k]):.3f}-"
              f"{max(ratios[k]):.3f}), {med / sharing:.3f} x sharing", flush=True)
    append_json(a, {"cores": cores, "window_s": a.window, "copies": out})


def append_json(a, record):
    """With --json, appends RECORD as one line, after the workload and batch, with the time."""
    if a.json:
        now = datetime.datetime.now().isoformat(timespec="seconds")
        with open(a.json, "a") as f:
            f.write(json.dumps({"workload": a.model, "batch": a.batch, **record, "time": now})
                    + "\n")


def pinned(a, shape):
    """--pinned: comm_probe.side_by_side, printed and appended to --json."""
    def report(k, ratios):
        print(f"round {k}: " + " ".join(f"{x:.3f}" for x in ratios), flush=True)

    r = comm_probe.side_by_side((a.model, a.batch, 10, shape), 1, a.window, a.rounds, report)
    print(f"{a.model}: median ratio {r['ratio']:.3f}, interference {r['interference']:.3f}")
    append_json(a, {"pinned": True, **r})


def crowded(a, shape):
    """--crowded: comm_probe.crowded, printed and appended to --json."""
    r = comm_probe.crowded((a.model, a.batch, 10, shape), 1, a.window, a.rounds, a.interference)
    for k, c in r["copies"].items():
        print(f"{a.model} k={k}: {c['x_alone']:.3f} x alone, oversubscription "
              f"{r['oversubscription_per_k'][k]:.3f}", flush=True)
    print(f"{a.model}: oversubscription {r['oversubscription']:.3f}")
    append_json(a, {"crowded": True, **r})


if __name__ == "__main__":
    main()
