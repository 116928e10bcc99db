#!/usr/bin/env python3
# Two threads against one, whole command: the repairman run and the README's 64-point ring sweep, medians of interleaved runs, outputs compared, the cores' speeds checked first.
"""Measures what a user sees: the wall time of the whole `sgdnet` process with --threads 1 and
--threads 2, the two alternating run by run so that a change in the machine's speed hits both.

  run      sgdnet run examples/repairman.sgdnet --seed 1 --precision P  (P from --precision,
           0.002 and 0.0007 by default)
  sweep    sgdnet sweep models/allreduce_ring_coarse.sgdnet --set N=2..17
           --set bw=1Gbps,10Gbps,25Gbps,100Gbps --seed 1 -q -o FILE

For each, it prints the median of --runs runs per thread count, their ratio, and whether the
outputs are the same (the JSON without its wall time; the CSV byte for byte).

Two threads can only be twice as fast on two cores equally fast. On a virtual machine one vCPU
is sometimes slower than the other, for minutes at a time (its core is shared on the host).
The script first times the same single-threaded run pinned to each core, and says when they
differ by more than 10%: the speed-up measured then says more about the machine than about
sgdnet.

    python3 bench/thread_speedup.py --sgdnet build/cli/sgdnet --runs 9 --sets 3
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
REPAIRMAN = ROOT / "examples" / "repairman.sgdnet"
RING = ROOT / "models" / "allreduce_ring_coarse.sgdnet"
RING_AXES = ["--set", "N=2..17", "--set", "bw=1Gbps,10Gbps,25Gbps,100Gbps"]


def timed(cmd: list[str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr.decode()}")
    return elapsed, done.stdout


def without_wall_time(stdout: bytes) -> dict:
    result = json.loads(stdout)
    result["stats"].pop("wall_s", None)
    return result


def core_speeds(sgdnet: str) -> dict[int, float]:
    """Seconds of the same single-threaded run pinned to each core (median of 3)."""
    cmd = [sgdnet, "run", str(REPAIRMAN), "--seed", "1", "--threads", "1", "--precision",
           "0.0007", "--format", "json"]
    speeds = {}
    for core in sorted(os.sched_getaffinity(0)):
        speeds[core] = statistics.median(timed(["taskset", "-c", str(core)] + cmd)[0]
                                         for _ in range(3))
    return speeds


def measure_run(sgdnet: str, precision: str, runs: int) -> None:
    cmd = [sgdnet, "run", str(REPAIRMAN), "--seed", "1", "--precision", precision,
           "--format", "json"]
    times = {1: [], 2: []}
    outputs = {}
    for _ in range(runs):
        for threads in (1, 2):
            elapsed, stdout = timed(cmd + ["--threads", str(threads)])
            times[threads].append(elapsed)
            outputs.setdefault(threads, without_wall_time(stdout))
    report(f"run --precision {precision}", times, outputs[1] == outputs[2])


def measure_sweep(sgdnet: str, runs: int) -> None:
    times = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as tmp:
        files = {t: pathlib.Path(tmp) / f"ring{t}.csv" for t in (1, 2)}
        for _ in range(runs):
            for threads in (1, 2):
                cmd = [sgdnet, "sweep", str(RING)] + RING_AXES + [
                    "--seed", "1", "--threads", str(threads), "-q", "-o", str(files[threads])]
                times[threads].append(timed(cmd)[0])
        same = files[1].read_bytes() == files[2].read_bytes()
    report("sweep, 64 points", times, same)


def report(what: str, times: dict[int, list[float]], same: bool) -> None:
    one, two = statistics.median(times[1]), statistics.median(times[2])
    print(f"{what:26} 1 thread {one * 1e3:8.1f} ms   2 threads {two * 1e3:8.1f} ms   "
          f"{one / two:.2f}x   outputs {'identical' if same else 'DIFFER'}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sgdnet", default=str(ROOT / "build" / "cli" / "sgdnet"))
    parser.add_argument("--runs", type=int, default=9, help="runs per thread count and set")
    parser.add_argument("--sets", type=int, default=3)
    parser.add_argument("--precision", action="append",
                        help="of the repairman run; repeatable (default 0.002 and 0.0007)")
    parser.add_argument("--no-sweep", action="store_true")
    args = parser.parse_args()
    precisions = args.precision or ["0.002", "0.0007"]

    print("load:", open("/proc/loadavg").read().strip())
    speeds = core_speeds(args.sgdnet)
    print("one thread pinned to each core:",
          ", ".join(f"CPU {c} {s:.3f} s" for c, s in speeds.items()))
    if max(speeds.values()) > 1.1 * min(speeds.values()):
        print("warning: the cores differ by more than 10%; two threads cannot reach twice the "
              "speed of the faster one", flush=True)
    for s in range(args.sets):
        print(f"set {s + 1}")
        for precision in precisions:
            measure_run(args.sgdnet, precision, args.runs)
        if not args.no_sweep:
            measure_sweep(args.sgdnet, max(3, args.runs // 2))


if __name__ == "__main__":
    main()
