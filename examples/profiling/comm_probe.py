"""One-machine probes of what communication costs besides bandwidth: CPU per byte, a fixed cost per message, and the compute slowdown while communication runs.

Two local processes (gloo over loopback, the rank's thread count) all-reduce tensors of
growing size. Loopback has no bandwidth limit worth the name, so what an all-reduce costs there
is what the hosts pay: the library's and the kernel's work per byte, and the fixed cost of
every message. From the two processes' CPU time and wall time per all-reduce:

  comm_cpu_idle_s_per_byte
                       slope of one process's CPU seconds per all-reduce against its size,
                       divided by 2: with two ranks, a ring all-reduce of S bytes sends S and
                       receives S bytes per rank, and sgdnet charges `comm_cpu` per byte at each
                       end of a message (2 S bytes handled per rank). Also
                       `comm_cpu_s_per_byte` when no workload is given (below).
  message_overhead_s   intercept of the wall time per all-reduce against its size (least
                       squares of relative errors, so the small sizes decide it), divided by
                       the 2 (N - 1) = 2 messages each rank sends in turn.
  cores                the CPUs this process may run on.

Then a check of processor sharing: the training step is timed alone and while the two
processes all-reduce without pause (`compute_slowdown`); with one core per runnable thread
that slowdown is 1, and sgdnet's model of a host predicts (jobs / cores) when the jobs exceed
the cores.

Given the workload (`probe(..., workload=...)`), the CPU cost per byte is measured once more
where training pays it, beside busy cores (`beside_busy_cores`): one copy of the step per core
keeps every core busy, and in alternate windows two ranks all-reduce 1 MiB every 10 ms beside
them. Processor sharing with every core busy is work-conserving, so the copies lose the CPU
work of the communication: per all-reduce, cores * window * (1 - quiet step / step beside)
over the all-reduces, and per byte at each end that over 4 S (2 rounds of 2 messages of S/2,
each handled at both ends). That median becomes `comm_cpu_s_per_byte`; the idle slope above
is kept as `comm_cpu_idle_s_per_byte`. The ranks can run in two network namespaces instead of
over loopback (examples/validation/comm_beside_compute.py --netns), or through a link that
`shaped_link` emulates with a veth pair and a token bucket on each end (--shape), which costs
the kernel more than loopback does.

Then `side_by_side` pins one copy of the step to each core and times each alone and all
together, in alternate windows: the median slowdown less 1 is the host's `interference` (per
other busy core), which a host declaration takes.

Last, `crowded` leaves k = C + 1 … 2C copies of the step to the scheduler on C cores and times
them against one copy alone: what they lose beyond processor sharing and `interference` is the
cost of taking turns, the host's `oversubscription` (each copy slowed by 1 + o·(k − C)/k).
"""

import contextlib
import multiprocessing as mp
import os
import queue
import re
import statistics
import subprocess
import sys
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
    import profile_model
    profile_model.rank_threads(threads)
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


def wait_until(t):
    while time.perf_counter() < t:
        time.sleep(0.0005)


def _copy_main(windows, results, workload, threads, cpus=None):
    """One copy of the training step (on the CPUs `cpus` when given): for each window (start,
    end) it receives, the mean of the steps that began and ended inside it."""
    import torch
    import profile_model
    if cpus is not None:
        os.sched_setaffinity(0, cpus)
    profile_model.rank_threads(threads)
    torch.manual_seed(0)
    spec, batch, classes, shape = workload
    model, x, y, loss_fn = profile_model.build_workload(spec, batch, classes, shape)
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


def start_processes(target, args):
    """Starts one process per tuple of `args`, each calling target(orders, results, *that
    tuple) with a queue of orders and one of results, and returns their (orders, results) queue
    pairs and processes once every one has put its first result (that it is ready); if one ends
    before, the others are stopped and RuntimeError raised. End them with stop_copies(), which
    sends each None as its last order."""
    ctx = mp.get_context("spawn")
    queues = [(ctx.Queue(), ctx.Queue()) for _ in args]
    procs = [ctx.Process(target=target, args=(o, r) + tuple(extra))
             for (o, r), extra in zip(queues, args)]
    for p in procs:
        p.start()
    for (_, r), p in zip(queues, procs):
        while True:
            try:
                r.get(timeout=1)
                break
            except queue.Empty:
                if not p.is_alive():
                    for q in procs:
                        q.terminate()
                    raise RuntimeError(f"a probe process ended (exit code {p.exitcode}) "
                                       "before it was ready; its error is above") from None
    return queues, procs


def start_copies(workload, threads, count, groups=None):
    """Starts `count` copies of the training step (_copy_main; copy i pinned to the CPUs
    `groups[i]` when given) and returns their (windows, results) queue pairs and processes once
    every copy is ready. End them with stop_copies()."""
    return start_processes(_copy_main, [(workload, threads) + ((groups[i],) if groups else ())
                                        for i in range(count)])


def stop_copies(queues, procs):
    """Ends the copies of start_copies() once their current window is over."""
    for w, _ in queues:
        w.put(None)
    for p in procs:
        p.join()


def _paced_rank(rank, addr, port, size, every, threads):
    """One gloo rank, driven through stdin/stdout: for each line `START END` (perf_counter
    seconds), an all-reduce of `size` bytes every `every` seconds (back to back when one takes
    longer) inside that window; writes the count and its own CPU time."""
    import torch
    import torch.distributed as dist
    import profile_model
    profile_model.rank_threads(threads)
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


def _start_paced_ranks(netns, addr, port, size, every, threads):
    """The two ranks, each a process running this file (inside a network namespace each when
    `netns` names two); perf_counter is one clock for every process of the machine."""
    ranks = []
    for k, ns in enumerate(netns or (None, None)):
        cmd = [sys.executable, os.path.abspath(__file__), str(k), addr, str(port), str(size),
               str(every), str(threads)]
        if ns:
            cmd = ["ip", "netns", "exec", ns, "env", "GLOO_SOCKET_IFNAME=eth0"] + cmd
        ranks.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, bufsize=1))
    for r in ranks:
        if r.stdout.readline().strip() != "ready":
            raise RuntimeError("a paced all-reduce rank failed to start")
    return ranks


def tc_rate_bits(rate):
    """Bits per second of a tc rate written as NUMBER + kbit, mbit or gbit (e.g. 400mbit)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kmg])bit", rate)
    if not m:
        raise ValueError(f"rate {rate!r}: expected a number and kbit, mbit or gbit, e.g. 1gbit")
    return float(m.group(1)) * {"k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)]


@contextlib.contextmanager
def shaped_link(rate, names=("sgdnet-probe0", "sgdnet-probe1"), subnet="10.213.0"):
    """A link emulated by this machine's kernel, for the busy-core probe: two network
    namespaces joined by one veth pair, each end named eth0 and limited to RATE on its way out
    by a token bucket (tc tbf, e.g. 1gbit), as an emulated network of namespaces shapes its
    links. Yields (namespaces, rank 0's address) and deletes both namespaces on exit. Needs root
    and iproute2. The bucket holds 4 ms of the rate (timer ticks can be 4 ms apart) and at
    least 128 KiB, so that a 64 KiB offloaded segment is never split for it."""
    burst = max(128 << 10, int(tc_rate_bits(rate) / 8 * 0.004))

    def run(*cmd):
        try:
            subprocess.run(cmd, check=True, capture_output=True, text=True)
        except (OSError, subprocess.CalledProcessError) as e:
            err = e.stderr.strip() if isinstance(e, subprocess.CalledProcessError) else e
            raise RuntimeError(f"cannot emulate a {rate} link ({' '.join(cmd)}: {err}); it "
                               "needs root, iproute2 and the tbf queueing discipline") from e

    try:
        for ns in names:
            run("ip", "netns", "add", ns)
        run("ip", "-n", names[0], "link", "add", "eth0", "type", "veth", "peer", "name", "eth0",
            "netns", names[1])
        for k, ns in enumerate(names):
            run("ip", "-n", ns, "addr", "add", f"{subnet}.{k + 1}/24", "dev", "eth0")
            run("ip", "-n", ns, "link", "set", "lo", "up")
            run("ip", "-n", ns, "link", "set", "eth0", "up")
            run("tc", "-n", ns, "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", rate,
                "burst", str(burst), "latency", "200ms")
        yield list(names), f"{subnet}.1"
    finally:
        for ns in names:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def beside_busy_cores(workload, threads=1, size=1 << 20, every=0.01, window=2.0, rounds=4,
                      netns=None, addr="127.0.0.1", port=29671, report=None, shape=None,
                      copies=None):
    """The compute lost per byte at each end of the messages of a paced all-reduce stream, on
    a machine whose cores are all busy with copies of the step (see the module's text).
    `workload` = (spec, batch, classes, input shape) as profile_model.build_workload takes
    them; `report(round, quiet_step, step_beside, all_reduces, lost, own_cpu)` sees each round.
    The two ranks talk over loopback, or in the namespaces `netns` (rank 0 at `addr`), or, with
    `shape` (a tc rate), through a link that shaped_link emulates for the measurement.
    `copies`: how many copies of the step (default one per `threads` CPUs); with more, the cores
    are crowded, and the compute lost is still counted over the slots, one per `threads` CPUs."""
    if shape:
        with shaped_link(shape) as (names, rank0):
            r = beside_busy_cores(workload, threads, size, every, window, rounds, names, rank0,
                                  port, report, copies=copies)
        r["transport"] = f"veth pair shaped by tc tbf at {shape} (shaped_link)"
        return r
    slots = max(1, len(os.sched_getaffinity(0)) // threads)
    copies = copies or slots
    queues, procs = start_copies(workload, threads, copies)
    ranks = _start_paced_ranks(netns, addr, port, size, every, threads)
    byte_ends = 4 * size
    lost, own = [], []
    for k in range(rounds):
        step = {}
        for stream in ((False, True) if k % 2 == 0 else (True, False)):
            start = time.perf_counter() + 0.1
            for w, _ in queues:
                w.put((start, start + window))
            if stream:
                for r in ranks:
                    r.stdin.write(f"{start} {start + window}\n")
            step[stream] = statistics.fmean(r.get() for _, r in queues)
            if stream:
                counts = [tuple(map(float, r.stdout.readline().split())) for r in ranks]
        n = counts[0][0]
        busy = min(copies, slots) * window
        lost.append(busy * (1 - step[False] / step[True]) / n / byte_ends)
        own.append(sum(c for _, c in counts) / n / byte_ends)
        if report:
            report(k, step[False], step[True], n, lost[-1], own[-1])
    stop_copies(queues, procs)
    for r in ranks:
        r.stdin.close()
        r.wait()
    return {"copies": copies, "threads_per_copy": threads, "bytes": size, "every_s": every,
            "window_s": window, "transport": "netns " + ",".join(netns) if netns else "loopback",
            "lost_s_per_byte_end": statistics.median(lost), "rounds_lost_s_per_byte_end": lost,
            "own_cpu_s_per_byte_end": statistics.median(own)}


def side_by_side(workload, threads=1, window=2.0, rounds=8, report=None):
    """How much copies of the step slow each other when each has cores of its own: one copy
    per group of `threads` CPUs, pinned there; in each round every copy steps alone in a
    window of its own, then all together in one window (the order reversed every other round,
    so that a drift slower than a round cancels). A copy's ratio is its step together over its
    step alone on the same CPUs, so cores of unequal speed cancel too. `interference` is the
    median ratio less 1, over the other copies (m copies running: 1 + interference·(m − 1),
    the host's `interference` of docs/language.md §5.4). `report(round, ratios)` sees each
    round."""
    cpus = sorted(os.sched_getaffinity(0))
    copies = len(cpus) // threads
    if copies < 2:
        return None
    groups = [set(cpus[i * threads:(i + 1) * threads]) for i in range(copies)]
    queues, procs = start_copies(workload, threads, copies, groups)

    def window_of(which):
        start = time.perf_counter() + 0.1
        for i in which:
            queues[i][0].put((start, start + window))
        return [queues[i][1].get() for i in which]

    ratios = []
    for k in range(rounds):
        phases = [[i] for i in range(copies)] + [list(range(copies))]
        step = {}
        for which in (phases if k % 2 == 0 else phases[::-1]):
            for i, t in zip(which, window_of(which)):
                step[i, len(which) > 1] = t
        ratios.append([step[i, True] / step[i, False] for i in range(copies)])
        if report:
            report(k, ratios[-1])
    stop_copies(queues, procs)
    median = statistics.median(x for r in ratios for x in r)
    return {"copies": copies, "threads_per_copy": threads, "window_s": window,
            "rounds_ratio": ratios, "ratio": median,
            "interference": max(0.0, median - 1) / (copies - 1)}


def alternating(workload, ks, window, rounds, threads=1):
    """Per k of `ks` (the first being 1), the mean step in seconds of k unpinned copies
    stepping together, one per round; each round steps every k in turn, the order reversed
    from one round to the next, so that a drift slower than a round cancels in the ratios of
    ratios_to_lone(). `workload` as build_workload takes it (spec, batch, classes, input
    shape)."""
    queues, procs = start_copies(workload, threads, max(ks))
    steps = {k: [] for k in ks}
    for rnd in range(rounds):
        for k in (ks if rnd % 2 == 0 else ks[::-1]):
            start = time.perf_counter() + 0.1
            for w, _ in queues[:k]:
                w.put((start, start + window))
            steps[k].append(statistics.fmean(r.get() for _, r in queues[:k]))
    stop_copies(queues, procs)
    return steps


def ratios_to_lone(steps):
    """alternating()'s steps of every k over the lone copy's of the same round."""
    lone = steps[min(steps)]
    return {k: [s / s1 for s, s1 in zip(v, lone)] for k, v in steps.items()}


def crowded(workload, threads=1, window=2.0, rounds=8, interference=0.0):
    """What copies of the step pay for taking turns when they outnumber the cores: with C =
    CPUs // threads slots, k = C + 1 … 2C unpinned copies step together and one alone, in
    alternate windows (`alternating`). Processor sharing with the host's `interference` a
    predicts a step k/C·(1 + a(C − 1)) times the lone one; a round's excess r over that gives
    o = (r − 1)·k/(k − C), the host's `oversubscription` (1 + o·(k − C)/k, docs/language.md
    §5.4). `oversubscription` is the median o over every k and round, 0 when negative.
    `lone_step_s` is the median of the lone copy's windows: the plain step alone, timed over
    `rounds` windows of `window` seconds spread over the probe (about a minute), where the
    profile's timed steps take about a second."""
    slots = len(os.sched_getaffinity(0)) // threads
    if slots < 1:
        return None
    ks = [1] + list(range(slots + 1, 2 * slots + 1))
    steps = alternating(workload, ks, window, rounds, threads)
    ratios = ratios_to_lone(steps)
    per_k = {str(k): {"x_alone": statistics.median(ratios[k]), "rounds_x_alone": ratios[k]}
             for k in ks[1:]}
    out = {"slots": slots, "threads_per_copy": threads, "window_s": window, "rounds": rounds,
           "lone_step_s": statistics.median(steps[1]), "rounds_lone_step_s": steps[1],
           "copies": per_k}
    return {**out, **core_step_terms(out, interference)}


def core_step_terms(crowd, interference):
    """`core_step_s` (core_step) of `crowded`'s rounds (CROWD) and the oversubscription taken
    against it (oversubscription_of): what `crowded` adds to its rounds."""
    step = core_step(crowd, interference)
    return {"core_step_s": step, **oversubscription_of(crowd, interference, step)}


def core_step(crowd, interference):
    """The plain step on one of the host's cores, from `crowded`'s rounds (CROWD) beside a
    host's INTERFERENCE a: the lone copy's median step, unless the crowded windows show the cores
    faster. Processor sharing with oversubscription >= 0 runs k copies on C cores at least
    k/C·(1 + a(C − 1)) times slower than one core's step, so each crowded window's step, times
    C/(k·(1 + a(C − 1))), bounds a core's step from above; when the median of those bounds is
    below the lone step, the lone copy ran on a core slower than the host's cores together (a
    virtual CPU that the hypervisor gave less), and the bound is the step."""
    slots, busy = crowd["slots"], 1 + interference * (crowd["slots"] - 1)
    bounds = [x * lone * slots / (int(k) * busy) for k, c in crowd["copies"].items()
              for x, lone in zip(c["rounds_x_alone"], crowd["rounds_lone_step_s"])]
    return min(crowd["lone_step_s"], statistics.median(bounds))


def oversubscription_of(crowd, interference, step=None):
    """The `oversubscription` that `crowded`'s rounds (CROWD, its result) give beside a host's
    INTERFERENCE: per k, the median of o = (r − 1)·k/(k − C) over rounds, r a round's step
    ratio over k/C·(1 + a(C − 1)); overall, the median over every k and round, 0 if negative.
    A round's ratio is its crowded step over its lone copy's, or over STEP when given and
    faster than the lone copy's median (core_step)."""
    slots, busy = crowd["slots"], 1 + interference * (crowd["slots"] - 1)
    faster = step is not None and step < crowd["lone_step_s"]
    per_k, estimates = {}, []
    for k, c in crowd["copies"].items():
        k = int(k)
        ratios = ([x * t / step for x, t in zip(c["rounds_x_alone"], crowd["rounds_lone_step_s"])]
                  if faster else c["rounds_x_alone"])
        os_k = [(x / (k / slots) / busy - 1) * k / (k - slots) for x in ratios]
        per_k[str(k)] = statistics.median(os_k)
        estimates += os_k
    return {"interference_used": interference, "oversubscription_per_k": per_k,
            "oversubscription": max(0.0, statistics.median(estimates))}


def probe(step, threads, reps=20, port=None, workload=None, netns=None, addr="127.0.0.1",
          shape=None):
    """Runs the probes; `step()` runs one training step in this process, and `workload` (as
    beside_busy_cores takes it), when given, lets copies of it run for the busy-core cost, its
    two paced ranks in the namespaces `netns` (NS0, NS1; rank 0 at `addr`) when given, or
    through a link of rate `shape` that shaped_link emulates for the purpose."""
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
    busy_step = timed(10)
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
    idle_cpu = max(b_cpu, 0.0) / 2
    busy = (beside_busy_cores(workload, threads, netns=netns, addr=addr, port=port + 1,
                              shape=shape) if workload else None)
    side = side_by_side(workload, threads) if workload else None
    crowd = (crowded(workload, threads, interference=side["interference"] if side else 0.0)
             if workload else None)
    return {
        "backend": "gloo", "transport": "loopback", "world": 2, "threads_per_rank": threads,
        "repeats": reps, "allreduce": rows,
        "wall_fit": {"intercept_s": a_wall, "slope_s_per_byte": b_wall},
        "message_overhead_s": max(a_wall, 0.0) / 2,
        "comm_cpu_s_per_byte": max(busy["lost_s_per_byte_end"], 0.0) if busy else idle_cpu,
        "comm_cpu_idle_s_per_byte": idle_cpu,
        "cores": cores,
        "compute_slowdown": {"step_alone_s": alone, "step_beside_allreduce_s": busy_step,
                             "ratio": busy_step / alone,
                             "background": "2 ranks, 4 MiB all-reduce"},
        **({"beside_busy_cores": busy} if busy else {}),
        **({"interference": side["interference"], "side_by_side": side} if side else {}),
        **({"oversubscription": crowd["oversubscription"], "crowded": crowd} if crowd else {}),
    }


if __name__ == "__main__":
    # A paced rank of beside_busy_cores: RANK ADDR PORT BYTES EVERY THREADS.
    _paced_rank(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                float(sys.argv[5]), int(sys.argv[6]))
