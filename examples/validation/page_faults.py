#!/usr/bin/env python3
"""Times a workload's plain step with the minor page faults it takes, in fresh processes, with glibc's default allocator settings and with memory kept by the process.

A step allocates its activations and gradients anew and frees them; glibc's malloc returns
large blocks to the kernel (mmap'd blocks, and the heap's top beyond its trim threshold), so
the next step faults those pages in again, each zeroed by the kernel. How many pages a step
faults depends on the process's allocation history (glibc's thresholds move as blocks are
freed), so two processes of the same step can differ; what a fault costs depends on the
machine (on a virtual machine, the hypervisor's share in every fault). Each process here
builds the workload as one testbed rank does (profile_model.rank_step_process), steps three
times, then steps for WINDOW seconds, recording each step's wall time and the process's minor
faults over them (getrusage); a process's figures are its means per step. "default" runs with
glibc's defaults, as the testbed's ranks do; "kept" sets MALLOC_MMAP_THRESHOLD_,
MALLOC_TRIM_THRESHOLD_ and MALLOC_TOP_PAD_ so that no block goes back to the kernel: the step
without faults. Their difference over the faults is what one fault cost, given when the
default step takes at least MIN_FAULTS faults (fewer do not stand out of the step's noise).
The processes alternate between the two settings.

Usage (from the repository root, Debian's python3 with torch, an otherwise idle machine):
  WORKLOAD_PATH=examples/validation/workloads python3 examples/validation/page_faults.py \\
      mobilenet_v2:16 shufflenet:build:16 dlrm_small:build:128 --json out.jsonl
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "profiling"))

KEPT = {"MALLOC_MMAP_THRESHOLD_": str(1 << 30), "MALLOC_TRIM_THRESHOLD_": str(1 << 32),
        "MALLOC_TOP_PAD_": str(1 << 28)}
MIN_FAULTS = 1000


def child(model, batch, window):
    """One process: (mean step in seconds, mean minor faults per step, steps), the plain step
    of one testbed rank (one thread, SGD with lr 0.01 and momentum 0.9, 10 classes)."""
    import profile_model
    r = profile_model.rank_step_process((model, batch, 10, None), (0.01, 0.9), 1, "plain",
                                        window)
    return r["step_s"], r["faults_per_step"], r["steps"]


def run_process(model, batch, window, setting):
    env = dict(os.environ, **(KEPT if setting == "kept" else {}))
    out = subprocess.run([sys.executable, __file__, "--child", model, str(batch),
                          "--window", str(window)], env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    step, faults, n = json.loads(out.strip().splitlines()[-1])
    return {"setting": setting, "step_s": step, "faults_per_step": faults, "steps": n}


def workload_arg(text):
    """MODEL:BATCH, MODEL being profile_model's (MODULE:FUNCTION included)."""
    model, _, batch = text.rpartition(":")
    if not model or not batch.isdigit():
        raise argparse.ArgumentTypeError(f"expected MODEL:BATCH, got {text!r}")
    return model, int(batch)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        ap = argparse.ArgumentParser()
        ap.add_argument("--child", nargs=2)
        ap.add_argument("--window", type=float)
        a = ap.parse_args()
        print(json.dumps(child(a.child[0], int(a.child[1]), a.window)))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="+", type=workload_arg, metavar="MODEL:BATCH")
    ap.add_argument("--processes", type=int, default=3, help="fresh processes per setting")
    ap.add_argument("--window", type=float, default=4.0, help="seconds of steps per process")
    ap.add_argument("--json", help="append one JSON line per workload to this file")
    a = ap.parse_args()
    for model, batch in a.workloads:
        rows = []
        for i in range(a.processes):
            order = ("default", "kept") if i % 2 == 0 else ("kept", "default")
            rows += [run_process(model, batch, a.window, s) for s in order]
        med = {s: {k: statistics.median(r[k] for r in rows if r["setting"] == s)
                   for k in ("step_s", "faults_per_step")} for s in ("default", "kept")}
        faults = med["default"]["faults_per_step"] - med["kept"]["faults_per_step"]
        extra = med["default"]["step_s"] - med["kept"]["step_s"]
        result = {"workload": model, "batch": batch, "window_s": a.window,
                  "processes": rows, "median": med,
                  "fault_cost_s": extra / faults if faults >= MIN_FAULTS else None,
                  "time": datetime.datetime.now().isoformat(timespec="seconds")}
        print(f"{model} batch {batch}: step {med['default']['step_s'] * 1e3:.1f} ms with "
              f"{med['default']['faults_per_step']:.0f} faults, "
              f"{med['kept']['step_s'] * 1e3:.1f} ms kept"
              + (f", {result['fault_cost_s'] * 1e6:.1f} us per fault"
                 if result["fault_cost_s"] else ""), flush=True)
        if a.json:
            with open(a.json, "a") as f:
                f.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
