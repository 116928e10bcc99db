#!/usr/bin/env python3
"""How much of the cores the scheduler leaves idle when copies of a step that sleep between steps outnumber them: a check of the host's processor sharing, which never idles a core while work waits.

k copies of the training step (one intra-op thread each, as testbed ranks) each loop: one
step, then a sleep drawn from an exponential distribution of mean --pause, as a rank that
waits for the network between two computations. Every copy counts, within windows of
--window seconds, its steps and the CPU time they used (up to the end of its last whole
step). With D the CPU time per step so measured, the copies are a closed loop of a
processor-sharing station of C cores (each of n copies stepping advances at min(1, C/n)
steps per D) and a delay of mean Z; processor sharing and a delay are insensitive to the
shape of the step's and the sleep's distributions, so the loop's throughput follows from the
product form with D and Z alone, with no idle core while a copy waits. The ratio of the
measured throughput to it is what the scheduler loses by idling cores; `cores_equivalent`
is the C' for which the loop would run at the measured throughput. D measures every cost
that uses the CPU (caches refilled after a sleep or a switch, copies slowing each other),
so the ratio holds only the cores' idle time. Rounds step every k in turn.

Usage (from the repository root, Debian's python3 with torch):
  WORKLOAD_PATH=examples/validation/workloads \\
      python3 examples/validation/wake_idle.py shufflenet:build --batch 16 --json out.jsonl
"""

import argparse
import datetime
import json
import math
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "profiling"))

import comm_probe  # noqa: E402
import profile_model  # noqa: E402


def copy_main(orders, results, args):
    """One copy: for each (start, end, mean pause) it receives, steps and sleeps until end and
    returns (whole steps, their CPU seconds)."""
    model, x, y, loss_fn, make_opt = profile_model.one_rank_workload(args)
    opt = make_opt(model.parameters())
    for _ in range(3):
        profile_model.one_step(model, opt, loss_fn, x, y)
    rng = random.Random(os.getpid())
    results.put("ready")
    while (order := orders.get()) is not None:
        start, end, pause = order
        comm_probe.wait_until(start)
        steps, cpu0 = 0, time.process_time()
        cpu = cpu0
        while time.perf_counter() < end:
            profile_model.one_step(model, opt, loss_fn, x, y)
            if time.perf_counter() > end:
                break
            steps, cpu = steps + 1, time.process_time()
            time.sleep(rng.expovariate(1.0 / pause))
        results.put((steps, cpu - cpu0))


def loop_throughput(k, cores, step, pause):
    """Steps per second of k copies in a closed loop of a processor-sharing station of `cores`
    cores (a step of `step` CPU seconds) and a delay of mean `pause`: the product form, the
    probability of n copies at the station proportional to pause^(k-n)/(k-n)! times the
    product over j <= n of step/min(j, cores)."""
    weights = []
    for n in range(k + 1):
        w = pause ** (k - n) / math.factorial(k - n)
        for j in range(1, n + 1):
            w *= step / min(j, cores)
        weights.append(w)
    total = sum(weights)
    return sum(w / total * min(n, cores) / step for n, w in enumerate(weights))


def cores_equivalent(k, step, pause, throughput, cores):
    """The cores C' in (0, cores] at which loop_throughput meets THROUGHPUT (bisection)."""
    lo, hi = 1e-3, float(cores)
    if loop_throughput(k, hi, step, pause) <= throughput:
        return hi
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if loop_throughput(k, mid, step, pause) < throughput else (lo, mid)
    return (lo + hi) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    profile_model.add_workload_args(ap)
    ap.add_argument("--copies", default="2,3,4,5", help="the k to run, comma-separated")
    ap.add_argument("--pause", type=float, default=0.03,
                    help="mean of the exponential sleep after each step, seconds")
    ap.add_argument("--window", type=float, default=6.0, help="seconds per window")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--json", help="append the result as one JSON line to this file")
    a = ap.parse_args()
    ks = [int(v) for v in a.copies.split(",")]
    cores = len(os.sched_getaffinity(0))
    queues, procs = comm_probe.start_processes(copy_main, [(a,)] * max(ks))
    windows = []
    for rnd in range(a.rounds):
        for k in (ks if rnd % 2 == 0 else ks[::-1]):
            start = time.perf_counter() + 0.2
            for o, _ in queues[:k]:
                o.put((start, start + a.window, a.pause))
            got = [r.get() for _, r in queues[:k]]
            steps = sum(n for n, _ in got)
            step = sum(c for _, c in got) / steps
            x = steps / a.window
            exact = loop_throughput(k, cores, step, a.pause)
            windows.append({"copies": k, "round": rnd, "steps_per_s": x, "cpu_per_step_s": step,
                            "product_form_steps_per_s": exact, "ratio": x / exact,
                            "cores_equivalent": cores_equivalent(k, step, a.pause, x, cores)})
    comm_probe.stop_copies(queues, procs)
    per_k = {}
    for k in ks:
        mine = [w for w in windows if w["copies"] == k]
        per_k[str(k)] = {"ratio": statistics.median(w["ratio"] for w in mine),
                         "cores_equivalent": statistics.median(w["cores_equivalent"]
                                                               for w in mine)}
        print(f"{a.model}: {k} copies on {cores} cores, mean pause {a.pause * 1e3:g} ms: "
              f"x{per_k[str(k)]['ratio']:.3f} of processor sharing "
              f"({per_k[str(k)]['cores_equivalent']:.3f} cores' worth)", flush=True)
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps({"workload": a.model, "batch": a.batch, "cores": cores,
                                "pause_mean_s": a.pause, "window_s": a.window,
                                "copies": per_k, "windows": windows,
                                "time": datetime.datetime.now().isoformat(timespec="seconds")})
                    + "\n")


if __name__ == "__main__":
    main()
