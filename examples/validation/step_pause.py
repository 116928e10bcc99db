#!/usr/bin/env python3
"""Times a workload's plain training step when each step follows a pause, with the other CPUs busy: the profiler's `step_after_pause`, measured on its own.

profile_model.py records it in every profile it writes (docs/profiles.md); profiles taken
before it did have none, and predict.py takes this script's measurement for them instead
(runs/step_pause.jsonl). One process with one intra-op thread, as a testbed rank, runs
profile_model.step_after_pauses: the step back to back and after sleeps of 5–100 ms, while
copies of the step keep the other CPUs busy.

Usage (from the repository root, Debian's python3 with torch):
  WORKLOAD_PATH=examples/validation/workloads \\
      python3 examples/validation/step_pause.py shufflenet:build --batch 16 --json out.jsonl
  python3 examples/validation/step_pause.py resnet18 --batch 16 --input-shape 3,32,32
"""

import argparse
import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "profiling"))

import profile_model  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    profile_model.add_workload_args(ap)
    ap.add_argument("--budget", type=float, default=15.0,
                    help="seconds of cycles (each: every pause once, a step back to back "
                         "before each paused step)")
    ap.add_argument("--json", help="append the result as one JSON line to this file")
    a = ap.parse_args()
    model, x, y, loss_fn, make_opt = profile_model.one_rank_workload(a)
    opt = make_opt(model.parameters())
    workload = (a.model, a.batch, 10, profile_model.input_shape(a.input_shape))
    r = profile_model.step_after_pauses(workload, model, opt, loss_fn, x, y,
                                        budget_s=a.budget)
    back_to_back = r["pauses"][0]["mean"]
    print(f"{a.model}: step {back_to_back * 1e3:.2f} ms back to back; after pauses " +
          ", ".join(f"{p['pause_s'] * 1e3:g} ms: x{p['mean'] / back_to_back:.3f}"
                    for p in r["pauses"][1:]), flush=True)
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps({"workload": a.model, "batch": a.batch, "step_after_pause": r,
                                "time": datetime.datetime.now().isoformat(timespec="seconds")})
                    + "\n")


if __name__ == "__main__":
    main()
