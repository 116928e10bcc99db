#!/usr/bin/env python3
"""Samples the CPU time of every thread of the testbed's ranks while they run.

Every 0.5 s until it is stopped, one JSON line to OUT: the time, /proc/stat's first line, and
for every thread of a process whose command line runs ps_bench.py or ddp_bench.py with
--rank (and of ksoftirqd) its role (`rankR`), name, CPU time in ns (schedstat) and user and
system ticks (stat). The difference of two samples inside the timed steps splits the host's
work among the ranks' main threads and their other threads (gloo's), e.g. for
runs/ps_async_cores_check.jsonl.

Usage (root, beside one run of the testbed):
  python3 examples/validation/thread_cpu.py OUT.jsonl & SAMPLER=$!
  ./run_configs.sh CONFIGS OUT_DIR; kill $SAMPLER
"""
import json
import os
import sys
import time


def ranks():
    """{pid: role} of the testbed's ranks (`rankR`) and of ksoftirqd."""
    res = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline").read().split("\0")
            comm = open(f"/proc/{pid}/comm").read().strip()
        except OSError:
            continue
        bench = any(c.endswith(("ps_bench.py", "ddp_bench.py")) for c in cmd)
        if bench and "--rank" in cmd:
            res[pid] = "rank" + cmd[cmd.index("--rank") + 1]
        elif comm.startswith("ksoftirqd"):
            res[pid] = comm
    return res


def sample():
    """One sample: time, /proc/stat's CPU line, {pid/tid: [role, name, ns, utime, stime]}."""
    snap = {"t": time.time(), "stat": open("/proc/stat").readline().split()[1:8],
            "threads": {}}
    for pid, role in ranks().items():
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                ns = int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[0])
                st = open(f"/proc/{pid}/task/{tid}/stat").read()
            except (OSError, ValueError):
                continue
            fields = st[st.rindex(")") + 2:].split()
            name = st[st.index("(") + 1:st.rindex(")")]
            snap["threads"][f"{pid}/{tid}"] = [role, name, ns, int(fields[11]), int(fields[12])]
    return snap


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], "w") as out:
        while True:
            out.write(json.dumps(sample()) + "\n")
            out.flush()
            time.sleep(0.5)


if __name__ == "__main__":
    main()
