#!/usr/bin/env python3
"""Measures how much compute a stream of all-reduces costs a machine whose cores are all busy.

One copy of a workload's plain training step per core (one intra-op thread each, as a testbed
rank) keeps every core busy. Beside them, two gloo ranks all-reduce S bytes once every EVERY
seconds, a paced stream like a link's rather than loopback's full speed, over loopback or
between two network namespaces. Each round steps the copies for a window without the stream
and a window with it (the order alternates between rounds) and compares their step times.

With every core busy, processor sharing (sgdnet's model of a host) is work-conserving: the
compute the copies lose is the CPU work of the communication, `comm_cpu` per byte at each end
of a message. The measurement is comm_probe.beside_busy_cores, which profile_model.py runs over
loopback for a profile's `comm_cpu_s_per_byte`; this script prints each round, runs it through
namespaces as well, and can append the result as a JSON line (runs/link_comm_cpu.jsonl).

Usage (from the repository root, Debian's python3 with torch):
  python3 examples/validation/comm_beside_compute.py mobilenet_v2 --batch 16 --input-shape 3,64,64
  python3 examples/validation/comm_beside_compute.py mlp --batch 32 --bytes 4194304 --every 0.04
  # the two ranks through the testbed's emulated 1 Gbit/s link (its netns.sh up 2 1gbit, root):
  python3 examples/validation/comm_beside_compute.py mlp --batch 32 --netns sgdv0,sgdv1 \\
      --addr 10.77.0.1
  # through a link of its own, emulated like the testbed's (root):
  python3 examples/validation/comm_beside_compute.py mlp --batch 32 --shape 1gbit
  # five copies of the step on the two cores (crowded), as five ranks of the testbed are:
  python3 examples/validation/comm_beside_compute.py shufflenet:build --batch 16 --copies 5 \\
      --shape 750mbit --bytes 1408168 --every 0.025
"""

import argparse
import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "profiling"))

import comm_probe  # noqa: E402
import profile_model  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    profile_model.add_workload_args(ap, "3,64,64")
    ap.add_argument("--bytes", type=int, default=1 << 20, help="all-reduce size S")
    ap.add_argument("--every", type=float, default=0.01, help="seconds between all-reduces")
    ap.add_argument("--window", type=float, default=2.0, help="seconds per window")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--port", type=int, default=29671)
    ap.add_argument("--netns", help="NS0,NS1: run the two ranks in these network namespaces "
                                    "(e.g. the testbed's sgdv0,sgdv1) instead of over loopback")
    ap.add_argument("--addr", default="127.0.0.1", help="rank 0's address (10.77.0.1 in the "
                                                        "testbed's namespaces)")
    ap.add_argument("--shape", metavar="RATE",
                    help="run the two ranks through a link that comm_probe.shaped_link emulates "
                         "at RATE (e.g. 1gbit; root) instead of over loopback or --netns")
    ap.add_argument("--copies", type=int,
                    help="copies of the step (default one per core; more crowd the cores)")
    ap.add_argument("--json", help="append the result as one JSON line to this file")
    a = ap.parse_args()
    shape = profile_model.input_shape(a.input_shape)

    def report(k, quiet, beside, n, lost, own):
        print(f"round {k}: step {quiet * 1e3:.1f} ms quiet, {beside * 1e3:.1f} ms beside "
              f"{n:.0f} all-reduces; lost {lost * 1e9:.3f} ns per byte-end, ranks' own CPU "
              f"{own * 1e9:.3f} ns", flush=True)

    r = comm_probe.beside_busy_cores((a.model, a.batch, 10, shape), 1, a.bytes, a.every,
                                     a.window, a.rounds,
                                     a.netns.split(",") if a.netns else None, a.addr, a.port,
                                     report, shape=a.shape, copies=a.copies)
    rounds = r["rounds_lost_s_per_byte_end"]
    print(f"{a.model}, {r['copies']} copies, {a.bytes} B every {a.every:g} s, {r['transport']}: "
          f"median lost {r['lost_s_per_byte_end'] * 1e9:.3f} ns per byte-end (rounds "
          f"{min(rounds) * 1e9:.3f}-{max(rounds) * 1e9:.3f}); ranks' own CPU "
          f"{r['own_cpu_s_per_byte_end'] * 1e9:.3f} ns")
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps({"workload": a.model, "netns": a.netns, "shape": a.shape, **r,
                                "time": datetime.datetime.now().isoformat(timespec="seconds")})
                    + "\n")


if __name__ == "__main__":
    main()
