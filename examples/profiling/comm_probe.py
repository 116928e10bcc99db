"""One-machine probes of what communication costs besides bandwidth: CPU per byte, a fixed cost per message, and the compute slowdown while communication runs.

Two local processes (gloo over loopback, the rank's thread count) all-reduce tensors of
growing size. Loopback has no bandwidth limit worth the name, so what an all-reduce costs there
is what the hosts pay: the library's and the kernel's work per byte, and the fixed cost of
every message. From the two processes' CPU time and wall time per all-reduce:

  comm_cpu_s_per_byte  slope of one process's CPU seconds per all-reduce against its size,
                       divided by 2: with two ranks, a ring all-reduce of S bytes sends S and
                       receives S bytes per rank, and sgdnet charges `comm_cpu` per byte at each
                       end of a message (2 S bytes handled per rank).
  message_overhead_s   intercept of the wall time per all-reduce against its size (least
                       squares of relative errors, so the small sizes decide it), divided by
                       the 2 (N - 1) = 2 messages each rank sends in turn.
  cores                the CPUs this process may run on.

Then a check of processor sharing: the training step is timed alone and while the two
processes all-reduce without pause (`compute_slowdown`); with one core per runnable thread
that slowdown is 1, and sgdnet's model of a host predicts (jobs / cores) when the jobs exceed
the cores.
"""

import multiprocessing as mp
import os
import statistics
import time

SIZES = [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20]


def _least_squares(xs, ys, relative=False):
    """Intercept and slope of the least-squares line through (xs, ys); with `relative`, the
    squared errors are relative to y (weights 1/y²), so that the small sizes decide the
    intercept and the large ones the slope."""
    w = [1.0 / (y * y) if relative else 1.0 for y in ys]
    sw = sum(w)
    mx = sum(wi * x for wi, x in zip(w, xs)) / sw
    my = sum(wi * y for wi, y in zip(w, ys)) / sw
    sxx = sum(wi * (x - mx) ** 2 for wi, x in zip(w, xs))
    slope = sum(wi * (x - mx) * (y - my) for wi, x, y in zip(w, xs, ys)) / sxx
    return my - slope * mx, slope


def _rank_main(rank, port, threads, sizes, reps, results, stop):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(threads)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=2)
    rows = []
    for size in sizes:
        t = torch.ones(size // 4, dtype=torch.float32)
        for _ in range(3):
            dist.all_reduce(t)
        walls = []
        dist.barrier()
        cpu0 = time.process_time()
        for _ in range(reps):
            w0 = time.perf_counter()
            dist.all_reduce(t)
            walls.append(time.perf_counter() - w0)
        cpu = (time.process_time() - cpu0) / reps
        rows.append({"bytes": size, "wall_s": statistics.median(walls), "cpu_s": cpu})
    results.put((rank, rows))
    # Background load for the slowdown check: all-reduce without pause until told to stop.
    t = torch.ones((4 << 20) // 4, dtype=torch.float32)
    dist.barrier()
    go = torch.zeros(1)
    while True:
        dist.all_reduce(t)
        go.fill_(1.0 if stop.is_set() else 0.0)
        dist.all_reduce(go)  # both ranks agree to stop at the same all-reduce
        if go.item() > 0:
            break
    dist.destroy_process_group()


def probe(step, threads, reps=20, port=None):
    """Runs the probes; `step()` runs one training step in this process."""
    port = port or int(os.environ.get("SGDNET_PROBE_PORT", "29533"))
    ctx = mp.get_context("spawn")
    results, stop = ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_rank_main, args=(r, port, threads, SIZES, reps, results, stop))
             for r in range(2)]
    for p in procs:
        p.start()
    per_rank = dict(results.get() for _ in procs)

    def timed(n):
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            step()
            out.append(time.perf_counter() - t0)
        return statistics.median(out)

    time.sleep(0.5)
    busy = timed(10)
    stop.set()
    for p in procs:
        p.join()
    alone = timed(10)

    rows = []
    for k, size in enumerate(SIZES):
        rows.append({"bytes": size,
                     "wall_s": statistics.fmean(per_rank[r][k]["wall_s"] for r in (0, 1)),
                     "cpu_s_per_rank": statistics.fmean(per_rank[r][k]["cpu_s"] for r in (0, 1))})
    a_wall, b_wall = _least_squares([r["bytes"] for r in rows], [r["wall_s"] for r in rows],
                                    relative=True)
    _, b_cpu = _least_squares([r["bytes"] for r in rows], [r["cpu_s_per_rank"] for r in rows])
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "backend": "gloo", "transport": "loopback", "world": 2, "threads_per_rank": threads,
        "repeats": reps, "allreduce": rows,
        "wall_fit": {"intercept_s": a_wall, "slope_s_per_byte": b_wall},
        "message_overhead_s": max(a_wall, 0.0) / 2,
        "comm_cpu_s_per_byte": max(b_cpu, 0.0) / 2,
        "cores": cores,
        "compute_slowdown": {"step_alone_s": alone, "step_beside_allreduce_s": busy,
                             "ratio": busy / alone, "background": "2 ranks, 4 MiB all-reduce"},
    }
