#!/usr/bin/env python3
"""Times what PyTorch DDP adds to a workload's training step at world 1: the profiler's `ddp_overhead_s`, measured on its own.

profile_model.py records it in every profile it writes (docs/profiles.md); profiles taken
before it did have none, and predict.py takes this script's measurement for them instead
(runs/ddp_overhead.jsonl). One process with one intra-op thread, as a testbed rank, runs a
plain copy of the step and a DDP copy per bucket cap in a gloo group of its own, in turns
(profile_model.ddp_overhead): what the DDP copy takes beyond the plain one is DDP's own work
(autograd hooks, gradients copied into the buckets and back), no network involved.

Usage (from the repository root, Debian's python3 with torch):
  WORKLOAD_PATH=examples/validation/workloads \\
      python3 examples/validation/ddp_cost.py shufflenet:build --batch 16 --json out.jsonl
  python3 examples/validation/ddp_cost.py resnet18 --batch 16 --input-shape 3,32,32
"""

import argparse
import datetime
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "profiling"))

import profile_model  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    profile_model.add_workload_args(ap)
    ap.add_argument("--bucket-caps", default="25,1", help="DDP bucket_cap_mb values")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--steps", type=int, default=8, help="steps per copy and round")
    ap.add_argument("--json", help="append the result as one JSON line to this file")
    a = ap.parse_args()
    model, x, y, loss_fn, make_opt = profile_model.one_rank_workload(a)
    caps = [float(c) for c in a.bucket_caps.split(",")]
    with profile_model.world_of_one() as ok:
        if not ok:
            sys.exit("torch has no distributed package here")
        rounds = profile_model.ddp_overhead(model, make_opt, loss_fn, x, y, caps, a.rounds,
                                            a.steps)
    per_cap = {k: {"overhead_s": statistics.median(v), "rounds_overhead_s": v}
               for k, v in rounds.items()}
    overall = max(0.0, statistics.median(c["overhead_s"] for c in per_cap.values()))
    for k, c in per_cap.items():
        print(f"{a.model} cap {k} MiB: +{c['overhead_s'] * 1e3:.2f} ms (rounds " +
              ", ".join(f"{v * 1e3:.2f}" for v in c["rounds_overhead_s"]) + ")")
    print(f"{a.model}: ddp_overhead_s {overall * 1e3:.2f} ms")
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps({"workload": a.model, "batch": a.batch, "caps": per_cap,
                                "ddp_overhead_s": overall,
                                "time": datetime.datetime.now().isoformat(timespec="seconds")})
                    + "\n")


if __name__ == "__main__":
    main()
