#!/usr/bin/env python3
"""Times a workload's plain training step when k copies of it run at once on this machine.

Each copy is a process with one intra-op thread, as a testbed rank is. The copies start
together (a barrier), step for a fixed time, and report their step times; the script prints the
mean over copies of each copy's median step for k = 1, 2, 3, 4 and once more k = 1, each against
the first k = 1, and that ratio over what processor sharing on the machine's cores gives
(max(1, k / cores)). A ratio over sharing above 1 is what the copies cost each other beyond
sharing the cores: caches, memory bandwidth, a shared host core.

Usage (from the repository root, Debian's python3 with torch):
  python3 examples/validation/colocation.py mlp --batch 32
  python3 examples/validation/colocation.py mobilenet_v2 --batch 16 --input-shape 3,64,64
  WORKLOAD_PATH=examples/validation/workloads \\
      python3 examples/validation/colocation.py tiny_transformer:build --batch 4
"""

import argparse
import multiprocessing as mp
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "profiling"))


def copy_main(spec, batch, shape, barrier, results, seconds):
    import torch
    torch.set_num_threads(1)
    import profile_model
    torch.manual_seed(0)
    model, x, y, loss_fn = profile_model.build_workload(spec, batch, 10, shape)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for _ in range(3):
        profile_model.one_step(model, opt, loss_fn, x, y)
    barrier.wait()
    end = time.perf_counter() + seconds
    steps = []
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        profile_model.one_step(model, opt, loss_fn, x, y)
        steps.append(time.perf_counter() - t0)
    results.put(steps)


def step_time(spec, batch, shape, k, seconds):
    """Mean over the k copies of each copy's median step (its first and last step left out:
    they overlap the other copies' start and end)."""
    ctx = mp.get_context("spawn")
    barrier, results = ctx.Barrier(k), ctx.Queue()
    procs = [ctx.Process(target=copy_main, args=(spec, batch, shape, barrier, results, seconds))
             for _ in range(k)]
    for p in procs:
        p.start()
    steps = [results.get() for _ in procs]
    for p in procs:
        p.join()
    return statistics.fmean(statistics.median(s[1:-1] if len(s) > 2 else s) for s in steps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", help="as profile_model.py's --model (a torchvision name, mlp, "
                                  "or MODULE:FUNCTION)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--input-shape", help="per-sample input shape, e.g. 3,32,32")
    ap.add_argument("--seconds", type=float, default=8.0, help="stepping time per k")
    a = ap.parse_args()
    shape = tuple(int(v) for v in a.input_shape.split(",")) if a.input_shape else None
    cores = len(os.sched_getaffinity(0))
    base = None
    for k in (1, 2, 3, 4, 1):
        t = step_time(a.model, a.batch, shape, k, a.seconds)
        base = base or t
        sharing = max(1.0, k / cores)
        print(f"{a.model} k={k}: step {t * 1e3:.1f} ms, {t / base:.3f} x alone, "
              f"{t / base / sharing:.3f} x sharing", flush=True)


if __name__ == "__main__":
    main()
