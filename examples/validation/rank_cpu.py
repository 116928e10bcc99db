#!/usr/bin/env python3
"""Samples the CPU time of a testbed run's ranks and of the machine's cores over a window: per rank, the cores its threads used and the time they waited for one.

Run it beside the testbed's launch.sh; it finds the rank processes by their script
(ps_bench.py or ddp_bench.py, the testbed's) and reads /proc twice, AFTER seconds and
AFTER + WINDOW seconds from its start: each thread's user and system time (utime + stime, in
cores), the time it was runnable but waiting for a core (schedstat's run delay, in cores)
and its minor page faults (per second), summed per rank; and the cores' shares of user,
system, softirq and idle time from /proc/stat (in cores, out of the machine's). A run whose
cores idle while its ranks wait for one loses that much of the machine to the scheduler's
placement of wake-ups, which processor sharing does not.

Usage (from the testbed's folder, its namespaces up; root):
  python3 /path/to/rank_cpu.py --after 4 --window 4 --json out.jsonl &
  ./launch.sh ps-async shufflenet:build 4 1gbit /tmp/run --batch 16
"""

import argparse
import datetime
import json
import os
import time

SCRIPTS = ("ps_bench.py", "ddp_bench.py")
STAT_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def ranks_snapshot():
    """{(rank, tid): (cpu seconds, run-queue wait seconds, minor page faults)} of every thread
    of every rank."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline") as f:
                argv = f.read().split("\0")
            if not any(a.endswith(SCRIPTS) for a in argv) or "--rank" not in argv:
                continue
            rank = argv[argv.index("--rank") + 1]
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    wait_ns = int(f.read().split()[1])
                out[rank, tid] = ((int(fields[11]) + int(fields[12])) / tick, wait_ns / 1e9,
                                  int(fields[7]))
        except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
            continue  # a process or thread that ended between the listing and the read
    return out


def cores_snapshot():
    with open("/proc/stat") as f:
        values = f.readline().split()[1:1 + len(STAT_FIELDS)]
    return [int(v) for v in values]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--after", type=float, default=4.0, help="seconds before the first reading")
    ap.add_argument("--window", type=float, default=4.0, help="seconds between the readings")
    ap.add_argument("--json", help="append the result as one JSON line to this file")
    ap.add_argument("--label", help="a text kept in the result (the run's configuration)")
    a = ap.parse_args()
    time.sleep(a.after)
    t0, r0, c0 = time.perf_counter(), ranks_snapshot(), cores_snapshot()
    time.sleep(a.window)
    t1, r1, c1 = time.perf_counter(), ranks_snapshot(), cores_snapshot()
    dt = t1 - t0
    ranks = {}
    for key, (cpu, wait, faults) in r1.items():
        if key in r0:
            per = ranks.setdefault(key[0], {"cpu_cores": 0.0, "wait_cores": 0.0,
                                            "minor_faults_per_s": 0.0})
            per["cpu_cores"] += (cpu - r0[key][0]) / dt
            per["wait_cores"] += (wait - r0[key][1]) / dt
            per["minor_faults_per_s"] += (faults - r0[key][2]) / dt
    total = sum(c1) - sum(c0)
    ncores = len(os.sched_getaffinity(0))
    cores = {n: (c1[i] - c0[i]) / total * ncores if total else 0.0
             for i, n in enumerate(STAT_FIELDS)}
    result = {"window_s": dt, "ranks": dict(sorted(ranks.items())), "cores": cores,
              "time": datetime.datetime.now().isoformat(timespec="seconds"),
              **({"label": a.label} if a.label else {})}
    print(json.dumps(result))
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
