#!/usr/bin/env python3
"""Measures how much compute a stream of all-reduces costs a machine whose cores are all busy.

One copy of a workload's plain training step per core (one intra-op thread each, as a testbed
rank) keeps every core busy. Beside them, two gloo ranks over loopback all-reduce S bytes once
every TAU seconds, a paced stream like a link's rather than loopback's full speed. Each round
steps the copies for a window without the stream and a window with it (the order alternates
between rounds) and compares their mean step times.

With every core busy, processor sharing (sgdnet's model of a host) is work-conserving: the
compute the copies lose is the CPU work of the communication. Per all-reduce that is

    lost = cores * window * (1 - step_quiet / step_stream) / all_reduces,

and a 2-rank ring all-reduce of S bytes is 4 messages of S/2 bytes (2 rounds, each rank
sending one), each handled at both ends: 4 S byte-ends. In sgdnet's terms lost = 4 o + 4 S c
(o = `message_overhead`, c = `comm_cpu`), so c = (lost - 4 o) / (4 S). The script prints, per
round and as a median, the lost time per all-reduce, lost / (4 S), and the two ranks' own CPU
time per byte-end (what `comm_probe` calls `comm_cpu`) for comparison.

Usage (from the repository root, Debian's python3 with torch):
  python3 examples/validation/comm_beside_compute.py mobilenet_v2 --batch 16 --input-shape 3,64,64
  python3 examples/validation/comm_beside_compute.py mlp --batch 32 --bytes 4194304 --every 0.04
  # the two ranks through the testbed's emulated 1 Gbit/s link (its netns.sh up 2 1gbit, root):
  python3 examples/validation/comm_beside_compute.py mlp --batch 32 --netns sgdv0,sgdv1 \\
      --addr 10.77.0.1
"""

import argparse
import datetime
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "profiling"))


def wait_until(t):
    while time.perf_counter() < t:
        time.sleep(0.0005)


def copy_main(spec, batch, shape, windows, results):
    """One copy of the step: for each window (start, end) it receives, the mean of the steps
    that began and ended inside it."""
    import torch
    torch.set_num_threads(1)
    import profile_model
    torch.manual_seed(0)
    model, x, y, loss_fn = profile_model.build_workload(spec, batch, 10, shape)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for _ in range(3):
        profile_model.one_step(model, opt, loss_fn, x, y)
    results.put("ready")
    while (w := windows.get()) is not None:
        wait_until(w[0])
        times = []
        while (t0 := time.perf_counter()) < w[1]:
            profile_model.one_step(model, opt, loss_fn, x, y)
            if (t1 := time.perf_counter()) <= w[1]:
                times.append(t1 - t0)
        results.put(statistics.fmean(times) if times else float("nan"))


def rank_main(rank, addr, port, size, every):
    """One gloo rank, driven through stdin/stdout: for each window `START END` (perf_counter
    seconds) on stdin, an all-reduce of `size` bytes every `every` seconds (or back to back when
    one takes longer) inside it; writes the count and its own CPU time."""
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = addr
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=2)
    t = torch.ones(size // 4, dtype=torch.float32)
    for _ in range(3):
        dist.all_reduce(t)
    print("ready", flush=True)
    for line in sys.stdin:
        start, end = map(float, line.split())
        wait_until(start)
        count, due, cpu0 = 0, start, time.process_time()
        while due < end:
            dist.all_reduce(t)
            count += 1
            due += every
            time.sleep(max(0.0, due - time.perf_counter()))
        print(count, time.process_time() - cpu0, flush=True)
    dist.destroy_process_group()


def start_ranks(a):
    """The two ranks, each a process of this script (inside its network namespace with
    --netns); perf_counter is the same clock in every process of the machine."""
    spaces = a.netns.split(",") if a.netns else [None, None]
    ranks = []
    for k, ns in enumerate(spaces):
        cmd = [sys.executable, os.path.abspath(__file__), "--rank", str(k), "--addr", a.addr,
               "--port", str(a.port), "--bytes", str(a.bytes), "--every", str(a.every), "-"]
        if ns:
            cmd = ["ip", "netns", "exec", ns, "env", "GLOO_SOCKET_IFNAME=eth0"] + cmd
        ranks.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, bufsize=1))
    for r in ranks:
        if r.stdout.readline().strip() != "ready":
            sys.exit("a rank failed to start")
    return ranks


def measure(a, shape):
    cores = len(os.sched_getaffinity(0))
    ctx = mp.get_context("spawn")
    copies = [(ctx.Queue(), ctx.Queue()) for _ in range(cores)]
    procs = [ctx.Process(target=copy_main, args=(a.model, a.batch, shape, w, r))
             for w, r in copies]
    for p in procs:
        p.start()
    ranks = start_ranks(a)
    for _, r in copies:
        r.get()
    lost, cpu = [], []
    byte_ends = 4 * a.bytes
    for k in range(a.rounds):
        step = {}
        for stream in ((False, True) if k % 2 == 0 else (True, False)):
            start = time.perf_counter() + 0.1
            for w, _ in copies:
                w.put((start, start + a.window))
            if stream:
                for r in ranks:
                    r.stdin.write(f"{start} {start + a.window}\n")
            step[stream] = statistics.fmean(r.get() for _, r in copies)
            if stream:
                counts = [tuple(map(float, r.stdout.readline().split())) for r in ranks]
        n = counts[0][0]
        lost.append(cores * a.window * (1 - step[False] / step[True]) / n)
        cpu.append(statistics.fmean(c for _, c in counts) / n)
        print(f"round {k}: step {step[False] * 1e3:.1f} ms quiet, {step[True] * 1e3:.1f} ms "
              f"beside {n:.0f} all-reduces; lost {lost[-1] * 1e3:.3f} ms per all-reduce "
              f"({lost[-1] / byte_ends * 1e9:.3f} ns per byte-end), ranks' own CPU "
              f"{2 * cpu[-1] / byte_ends * 1e9:.3f} ns per byte-end", flush=True)
    for w, _ in copies:
        w.put(None)
    for r in ranks:
        r.stdin.close()
        r.wait()
    for p in procs:
        p.join()
    return cores, lost, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", help="as profile_model.py's --model (a rank: -)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--input-shape", help="per-sample input shape, e.g. 3,64,64")
    ap.add_argument("--bytes", type=int, default=1 << 20, help="all-reduce size S")
    ap.add_argument("--every", type=float, default=0.01, help="seconds between all-reduces")
    ap.add_argument("--window", type=float, default=2.0, help="seconds per window")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--port", type=int, default=29671)
    ap.add_argument("--netns", help="NS0,NS1: run the two ranks in these network namespaces "
                                    "(e.g. the testbed's sgdv0,sgdv1) instead of over loopback")
    ap.add_argument("--addr", default="127.0.0.1", help="rank 0's address (10.77.0.1 in the "
                                                        "testbed's namespaces)")
    ap.add_argument("--json", help="append the result as one JSON line to this file")
    ap.add_argument("--rank", type=int, help=argparse.SUPPRESS)
    a, rest = ap.parse_known_args()
    if a.rank is not None:
        return rank_main(a.rank, a.addr, a.port, a.bytes, a.every)
    a = ap.parse_args()
    shape = tuple(int(v) for v in a.input_shape.split(",")) if a.input_shape else None
    cores, lost, cpu = measure(a, shape)
    byte_ends = 4 * a.bytes
    m = statistics.median(lost)
    print(f"{a.model}, {cores} copies, {a.bytes} B every {a.every:g} s: median lost "
          f"{m * 1e3:.3f} ms per all-reduce, {m / byte_ends * 1e9:.3f} ns per byte-end "
          f"(rounds {min(lost) / byte_ends * 1e9:.3f}-{max(lost) / byte_ends * 1e9:.3f}); "
          f"ranks' own CPU {2 * statistics.median(cpu) / byte_ends * 1e9:.3f} ns per byte-end")
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps({
                "workload": a.model, "netns": a.netns, "bytes": a.bytes, "every_s": a.every,
                "window_s": a.window, "copies": cores,
                "lost_s_per_byte_end": m / byte_ends,
                "rounds_lost_s_per_byte_end": [x / byte_ends for x in lost],
                "own_cpu_s_per_byte_end": 2 * statistics.median(cpu) / byte_ends,
                "time": datetime.datetime.now().isoformat(timespec="seconds")}) + "\n")


if __name__ == "__main__":
    main()
