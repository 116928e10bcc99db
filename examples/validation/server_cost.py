#!/usr/bin/env python3
"""Times a parameter server's work per gradient for a workload, back to back or after pauses: the profiler's `server_update_s` and `aggregate_s`, or its `server_update_after_pause`, measured on their own.

profile_model.py records both in every profile it writes (docs/profiles.md); profiles taken
before it did have none, and predict.py takes this script's measurement for them instead
(runs/server_work.jsonl). One process with one intra-op thread, as a testbed rank, runs
profile_model.server_work: the gradient copied from one flat tensor into the model, the
optimizer step and the parameters copied out into one flat tensor, as a parameter server that
exchanges flat tensors does per gradient; and one flat gradient added into a sum, a
synchronous server's work per worker.

Usage (from the repository root, Debian's python3 with torch):
  WORKLOAD_PATH=examples/validation/workloads \\
      python3 examples/validation/server_cost.py dlrm_small:build --batch 128 --json out.jsonl
  python3 examples/validation/server_cost.py resnet18 --batch 16 --input-shape 3,32,32
With --after-pauses, the update after pauses with the other CPUs busy, as profile_model.py now
records it (`server_update_after_pause`), for the profiles taken before it did
(runs/server_pause.jsonl).
"""

import argparse
import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "profiling"))

import profile_model  # noqa: E402
import torch  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    profile_model.add_workload_args(ap)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--evict-mib", type=float, default=0,
                    help="write this many MiB before each gradient, untimed, so that the "
                         "server's buffers leave the core's caches, as other ranks' work on a "
                         "shared host does between two gradients (0: none)")
    ap.add_argument("--after-pauses", action="store_true",
                    help="measure instead the update after each pause of profile_model's "
                         "server_work_after_pauses (the profile's server_update_after_pause)")
    ap.add_argument("--json", help="append the result as one JSON line to this file")
    a = ap.parse_args()
    model, x, y, loss_fn, make_opt = profile_model.one_rank_workload(a)
    if a.after_pauses:
        workload = (a.model, a.batch, 10, profile_model.input_shape(a.input_shape))
        r = profile_model.server_work_after_pauses(workload, model, make_opt, loss_fn, x, y)
        print(f"{a.model}: after pauses " + ", ".join(
            f"{p['pause_s'] * 1e3:g} ms: {p['mean'] * 1e3:.3f} ms" for p in r["pauses"]))
        if a.json:
            with open(a.json, "a") as f:
                f.write(json.dumps({"workload": a.model, "batch": a.batch,
                                    "server_update_after_pause": r,
                                    "time": datetime.datetime.now().isoformat(
                                        timespec="seconds")}) + "\n")
        return
    between = None
    if a.evict_mib > 0:
        junk = torch.zeros(int(a.evict_mib * (1 << 20)) // 4)

        def between():
            junk.add_(1.0)
    update, aggregate = profile_model.server_work(model, make_opt, loss_fn, x, y,
                                                  steps=a.steps, between=between)
    print(f"{a.model}: server_update_s {update['mean'] * 1e3:.3f} ms "
          f"(std {update['std'] * 1e3:.3f}), aggregate_s {aggregate['mean'] * 1e3:.3f} ms")
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps({"workload": a.model, "batch": a.batch,
                                "evict_mib": a.evict_mib,
                                "server_update_s": update, "aggregate_s": aggregate,
                                "time": datetime.datetime.now().isoformat(timespec="seconds")})
                    + "\n")


if __name__ == "__main__":
    main()
