#!/usr/bin/env python3
# Overhead of sweeping from Python: wall time of a 64-point sweep through sgdnet.sweep against the same sweep by the `sgdnet sweep` command.
"""Runs, interleaved, RUNS times each:

  cli      sgdnet sweep MODEL --set N=2..17 --set bw=1Gbps,10Gbps,25Gbps,100Gbps -q -o FILE
  python   sgdnet.sweep(MODEL, grid={"N": range(2, 18), "bw": [...]}, solver="sim") in this
           process (module imported and warmed up once, as in a notebook)
  script   a fresh `python3 -c "import sgdnet; sgdnet.sweep(...)"`, interpreter start and import
           of sgdnet and pandas included

and prints each run and the medians. It also checks that the DataFrame holds the command's CSV
(same columns, identical doubles). The machine may be shared: print `uptime` with the figures.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_sweep_overhead.py --cli build/cli/sgdnet
"""
import argparse
import csv
import math
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import sgdnet

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL = ROOT / "models" / "allreduce_ring_coarse.sgdnet"
GRID = {"N": range(2, 18), "bw": ["1Gbps", "10Gbps", "25Gbps", "100Gbps"]}
CLI_RANGES = ["--set", "N=2..17", "--set", "bw=1Gbps,10Gbps,25Gbps,100Gbps"]
SCRIPT = ("import sgdnet; sgdnet.sweep({model!r}, grid={{'N': range(2, 18), 'bw': "
          "['1Gbps', '10Gbps', '25Gbps', '100Gbps']}}, solver='sim', progress=False)")


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def timed(who: int, action):
    """(wall seconds, CPU seconds of `who`, what action returned)."""
    cpu, start = cpu_seconds(who), time.perf_counter()
    value = action()
    return time.perf_counter() - start, cpu_seconds(who) - cpu, value


def time_cli(cli: str, out: pathlib.Path):
    return timed(resource.RUSAGE_CHILDREN, lambda: subprocess.run(
        [cli, "sweep", MODEL, *CLI_RANGES, "-q", "-o", out], check=True))


def time_python():
    return timed(resource.RUSAGE_SELF,
                 lambda: sgdnet.sweep(MODEL, grid=GRID, solver="sim", progress=False))


def time_script():
    return timed(resource.RUSAGE_CHILDREN, lambda: subprocess.run(
        [sys.executable, "-c", SCRIPT.format(model=str(MODEL))], check=True))


def same_as_csv(frame, path: pathlib.Path) -> bool:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if list(frame.columns) != rows[0] or len(frame) != len(rows) - 1:
        return False
    for k, row in enumerate(rows[1:]):
        for column, cell in zip(rows[0], row):
            value = frame.iloc[k][column]
            if not (cell == "" and math.isnan(value)) and float(cell) != value:
                return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "cli" / "sgdnet"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    wall = {"cli": [], "python": [], "script": []}
    cpu = {k: [] for k in wall}
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "ring.csv"
        time_cli(args.cli, out)  # warm-up: page cache, first TBB arena
        frame = time_python()[2]
        if not same_as_csv(frame, out):
            print("FAIL: the DataFrame differs from the command's CSV")
            return 1
        for run in range(args.runs):
            for name, (w, c, _) in (("cli", time_cli(args.cli, out)), ("python", time_python()),
                                    ("script", time_script())):
                wall[name].append(w)
                cpu[name].append(c)
            print(f"run {run + 1}: " + ", ".join(
                f"{k} {wall[k][-1]:.3f} s ({cpu[k][-1]:.2f} s CPU)" for k in wall), flush=True)
    for label, times in (("wall", wall), ("CPU", cpu)):
        medians = {k: statistics.median(v) for k, v in times.items()}
        print(f"median {label}: " + ", ".join(f"{k} {v:.3f} s" for k, v in medians.items()) +
              "; " + ", ".join(f"{k} / cli = {medians[k] / medians['cli']:.3f}"
                               for k in ("python", "script")))
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
