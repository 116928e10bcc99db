#!/usr/bin/env python3
"""One-node profile of a PyTorch training step, for `sgdnet import-profile` and `profile(...)`.

Writes, in --out-dir:
  NAME_layers.json  per-layer profile (docs/profiles.md, "Format 1"): forward/backward gap
                    times per layer (mean/std/n), parameter bytes, gradient-ready order,
                    step totals, the gradient buckets PyTorch DDP really forms, and what
                    DDP adds to the step at world 1 (ddp_overhead_s). Also a parameter
                    server's work per gradient (server_update_s, aggregate_s), and the step
                    as each kind of rank runs it in fresh processes (rank_steps, whence
                    ddp_overhead_s and ps_worker_overhead_s).
  NAME_trace.json   torch.profiler Chrome trace of a few steps with record_function ranges
                    step_K / zero_grad / forward / backward / optimizer and
                    layer_fwd:<name> around every layer's forward.

Needs only torch (torchvision for --model resnet18 / mobilenet_v2).  Examples:
  python3 profile_model.py --model mlp --batch 32
  python3 profile_model.py --model mobilenet_v2 --batch 16
  python3 profile_model.py --model tiny_transformer:build --batch 4
  python3 profile_model.py --model mypkg.models:make_net --input-shape 3,224,224 --classes 1000

A user workload is MODULE:FUNCTION (MODULE found on PYTHONPATH, WORKLOAD_PATH or the current
folder). FUNCTION(batch) returns (model, inputs, targets, loss_fn) -- inputs of any type, e.g.
integer token ids -- or FUNCTION() returns an nn.Module mapping a float tensor of shape
(batch, *input_shape) to class logits (random inputs, CrossEntropyLoss).
Then comm_probe.py measures, with two local gloo ranks, the CPU cost of communication per
byte (beside one busy copy of the step per core), the fixed cost per message, and the
compute slowdown beside communication (--no-comm-probe skips it). Run it with the thread
count of one training rank (--threads; one inter-op thread, as a testbed rank) on an idle
machine.
"""

import argparse
import contextlib
import copy
import datetime
import importlib
import json
import math
import os
import platform
import resource
import statistics
import sys
import time

import torch
import torch.nn as nn

DEFINITIONS = """\
Layer = a leaf module that owns parameters, listed in forward execution order.  Timing comes
from an unprofiled run with light-weight hooks (time.perf_counter); every time is
{"mean", "std", "n"} in seconds over the timed steps (std with n-1 denominator).
  fwd_s      forward gap time of layer i = t_end(fwd i) - t_end(fwd i-1) (i=0: from the start
             of model(x)); sum(fwd_s) + totals.fwd_tail_s == totals.forward_s.
  fwd_own_s  time inside the layer's own forward() only.
  bwd_s      backward gap time: layers ordered by the instant their last parameter gradient
             became ready (tensor hook); bwd_s = ready time - ready time of the layer before
             it in that order (first: from the start of loss.backward()).
             sum(bwd_s) + totals.bwd_tail_s == totals.backward_s.
  bwd_ready_offset_s  ready instant relative to the start of loss.backward().
  bwd_order  position in gradient-ready order (0 = first ready), from the first timed step.
  param_bytes bytes of the layer's parameters (= gradient bytes).
totals.forward_s = model(x) + loss; optimizer_s = optimizer.step() for the whole model.
unhooked_step_s: the same step without hooks (hook overhead check; a warning when they differ).
minor_faults_per_step: the process's minor page faults per unhooked step (getrusage): pages that
glibc's allocator gave back to the kernel and the step touched again; what they cost is in the
step's time, and how many a process takes depends on its allocation history.
per_core_step_s: the unhooked step pinned to each CPU in turn (a check of the machine: cores
that run it at different speeds make every multi-rank prediction carry that spread).
ddp_buckets: the gradient buckets DDP (gloo, world=1) uses after its first-iteration rebuild,
for each --bucket-caps value (MB), in all-reduce order.
server_update_s: a parameter server's work on one gradient that arrives and leaves as one flat
tensor: the gradient copied into the model's .grad tensors, optimizer.step(), the parameters
copied out into one flat tensor (on a copy of the model).
aggregate_s: adding one flat gradient into a flat sum, as a synchronous server does with every
worker's gradient.
server_update_after_pause: server_update_s when the server's thread sleeps before each
gradient (pauses of 5, 10, 20, 50 and 100 ms, 30 gradients each) while copies of the step keep
the other CPUs busy, as a server waits for its next gradient while workers compute: per pause,
the stats of the work (it grows with the pause, as the caches lose the server's tensors).
step_after_pause: the plain step when the process sleeps before it (pauses of 5, 10, 20, 50
and 100 ms; the first entry, pause 0, the steps back to back that alternate with them, step by
step, for about 15 s) while copies of the step keep the other CPUs busy, as a rank waits for
its parameters or the network between two computations: per pause, the stats of the step (it
grows with the pause for workloads whose step is short, as the caches lose the model's
tensors).
steady_step_s: the plain step on one core as comm_probe's crowded probe times it: the median of
eight 2 s windows of the step alone spread over about a minute (comm_probe.crowded.lone_step_s),
or less when the crowded windows show the cores faster than that lone copy ran
(comm_probe.crowded.core_step_s). The timed steps above last about a second; on a machine whose
speed wanders (a shared or virtual one) the long median is the steadier figure, and `sgdnet
import-profile` scales the step's times to it.
"""


# --------------------------------------------------------------------------------------------
# Models

class MLP(nn.Module):
    """1024 -> 3 x [Linear(1024,1024)+ReLU] -> Linear(1024,10), as in the shared data."""

    def __init__(self, width=1024, depth=3, classes=10):
        super().__init__()
        layers = []
        for _ in range(depth):
            layers += [nn.Linear(width, width), nn.ReLU()]
        layers.append(nn.Linear(width, classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


BUILTIN_SHAPES = {"mlp": (1024,), "resnet18": (3, 32, 32), "mobilenet_v2": (3, 64, 64)}


def build_workload(spec, batch, classes, input_shape):
    """(model, inputs, targets, loss_fn) for a built-in name or MODULE:FUNCTION.

    FUNCTION(batch) returning (model, inputs, targets, loss_fn) is the convention of training
    scripts that bring their own inputs (integer token ids included); a FUNCTION() returning
    an nn.Module is given random float inputs of --input-shape and class targets."""
    if spec in BUILTIN_SHAPES:
        if spec == "mlp":
            model = MLP(classes=classes)
        else:
            import torchvision  # only needed for these demo models
            model = getattr(torchvision.models, spec)(num_classes=classes)
        shape = input_shape or BUILTIN_SHAPES[spec]
        return model, torch.randn(batch, *shape), torch.randint(0, classes, (batch,)), \
            nn.CrossEntropyLoss()
    if ":" not in spec:
        sys.exit(f"--model: expected mlp, resnet18, mobilenet_v2 or MODULE:FUNCTION, got {spec!r}")
    module, func = spec.split(":", 1)
    for folder in [os.getcwd()] + [d for d in os.environ.get("WORKLOAD_PATH", "").split(":") if d]:
        sys.path.insert(0, folder)
    fn = getattr(importlib.import_module(module), func)
    try:
        built = fn(batch)
    except TypeError:
        built = fn()
    if isinstance(built, tuple) and len(built) == 4:
        return built
    if not isinstance(built, nn.Module):
        sys.exit(f"{spec}: expected (model, inputs, targets, loss_fn) or an nn.Module")
    if input_shape is None:
        sys.exit("--input-shape is required for a MODULE:FUNCTION that returns only a model")
    return built, torch.randn(batch, *input_shape), torch.randint(0, classes, (batch,)), \
        nn.CrossEntropyLoss()


# --------------------------------------------------------------------------------------------
# Helpers

def add_workload_args(ap, shape_example="3,32,32"):
    """The workload arguments of the scripts that run one rank's step: MODEL, --batch and
    --input-shape, as profile_model.py reads them."""
    ap.add_argument("model", help="as profile_model.py's --model")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--input-shape", help=f"per-sample input shape, e.g. {shape_example}")


def input_shape(text):
    """--input-shape "3,32,32" as a tuple; None when not given."""
    return tuple(int(v) for v in text.split(",")) if text else None


def one_rank_workload(a):
    """The workload of add_workload_args' arguments as one testbed rank runs it (one intra-op
    thread, seed 0, 10 classes), and a maker of its optimizer (SGD, lr 0.01, momentum 0.9):
    (model, x, y, loss_fn, make_opt)."""
    rank_threads(1)
    torch.manual_seed(0)
    model, x, y, loss_fn = build_workload(a.model, a.batch, 10, input_shape(a.input_shape))

    def make_opt(params):
        return torch.optim.SGD(params, lr=0.01, momentum=0.9)
    return model, x, y, loss_fn, make_opt


def stats(xs):
    xs = list(xs)
    return {"mean": statistics.fmean(xs), "std": statistics.stdev(xs) if len(xs) > 1 else 0.0,
            "n": len(xs)}


def param_layers(model, x):
    """Layers in forward order: each parameter belongs to the innermost module that owns it and
    whose forward() runs (a module whose weights its parent uses directly, such as the output
    projection inside nn.MultiheadAttention, gives them to that parent)."""
    called, handles = [], []
    for name, m in model.named_modules():
        handles.append(m.register_forward_hook(
            lambda mod, inp, out, name=name: called.append(name) if name not in called else None))
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    modules = dict(model.named_modules())
    rank = {name: k for k, name in enumerate(called)}  # order of first forward completion
    owned, seen = {}, set()
    for pname, p in model.named_parameters():
        if not p.requires_grad or id(p) in seen:
            continue
        seen.add(id(p))
        parts = pname.split(".")[:-1]
        owner = next((".".join(parts[:k]) for k in range(len(parts), -1, -1)
                      if ".".join(parts[:k]) in rank), None)
        if owner is None:
            sys.exit(f"parameter {pname} belongs to no module whose forward runs")
        owned.setdefault(owner, []).append((pname, p))
    # Forward order = order of completion, as the gap times (fwd_s) are defined.
    return [(name, modules[name], owned[name]) for name in sorted(owned, key=rank.get)]


def default_name(spec):
    """The output name of a --model spec without --name: the spec itself, or for
    MODULE:FUNCTION the module's last component and the function, so that two workloads of
    one module do not overwrite each other's files."""
    if ":" not in spec:
        return spec
    module, function = spec.split(":", 1)
    return f"{module.split('.')[-1]}_{function}"


def rank_threads(threads):
    """Runs torch with a training rank's threads: `threads` intra-op threads and one inter-op
    thread, as the testbed's ranks do."""
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set, or inter-op work already started in this process
        pass


def clear_grads(opt):
    """Drops the gradients before a step's backward, as a training rank does: the testbed's DDP
    ranks call zero_grad(set_to_none=True), its parameter-server workers set each .grad to
    None, and None is zero_grad's default from torch 2.0. Zeroing them in place instead (torch
    1.13's default) keeps the gradient tensors alive between steps, which changes what the
    step allocates and frees and so how many pages it faults (docs/profiles.md, "Page
    faults")."""
    opt.zero_grad(set_to_none=True)


def one_step(model, opt, loss_fn, x, y):
    clear_grads(opt)
    loss_fn(model(x), y).backward()
    opt.step()


# --------------------------------------------------------------------------------------------
# Timed run with hooks

def timed_run(model, opt, loss_fn, x, y, layers, warmup, steps):
    now = time.perf_counter
    L = len(layers)
    t_start, t_end, ready = [0.0] * L, [0.0] * L, [0.0] * L
    handles = []
    for i, (_, m, params) in enumerate(layers):
        def pre(mod, inp, i=i):
            t_start[i] = now()

        def post(mod, inp, out, i=i):
            t_end[i] = now()
        handles.append(m.register_forward_pre_hook(pre))
        handles.append(m.register_forward_hook(post))
        for _, p in params:
            def grad_hook(grad, i=i):
                ready[i] = max(ready[i], now())
            handles.append(p.register_hook(grad_hook))

    rec = {k: [] for k in ("zero_grad", "forward", "model_forward", "loss", "fwd_tail",
                           "backward", "bwd_tail", "optimizer", "step")}
    fwd_gap = [[] for _ in range(L)]
    fwd_own = [[] for _ in range(L)]
    bwd_gap = [[] for _ in range(L)]
    bwd_off = [[] for _ in range(L)]
    orders = []
    for s in range(warmup + steps):
        for i in range(L):
            ready[i] = 0.0
        t0 = now()
        clear_grads(opt)
        t1 = now()
        out = model(x)
        t2 = now()
        loss = loss_fn(out, y)
        t3 = now()
        loss.backward()
        t4 = now()
        opt.step()
        t5 = now()
        if s < warmup:
            continue
        rec["zero_grad"].append(t1 - t0)
        rec["forward"].append(t3 - t1)
        rec["model_forward"].append(t2 - t1)
        rec["loss"].append(t3 - t2)
        rec["backward"].append(t4 - t3)
        rec["optimizer"].append(t5 - t4)
        rec["step"].append(t5 - t0)
        prev = t1
        for i in range(L):
            fwd_gap[i].append(t_end[i] - prev)
            fwd_own[i].append(t_end[i] - t_start[i])
            prev = t_end[i]
        rec["fwd_tail"].append(t3 - prev)
        order = sorted(range(L), key=lambda i: ready[i])
        orders.append(order)
        prev = t3
        for i in order:
            bwd_gap[i].append(ready[i] - prev)
            bwd_off[i].append(ready[i] - t3)
            prev = ready[i]
        rec["bwd_tail"].append(t4 - prev)
    for h in handles:
        h.remove()
    first = orders[0]
    position = {layer: k for k, layer in enumerate(first)}
    stable = [all(o.index(i) == position[i] for o in orders) for i in range(L)]
    return rec, fwd_gap, fwd_own, bwd_gap, bwd_off, position, stable


def unhooked(model, opt, loss_fn, x, y, warmup, steps):
    """The plain step's times after `warmup` steps, and the process's minor page faults per
    timed step."""
    for _ in range(warmup):
        one_step(model, opt, loss_fn, x, y)
    out = []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(steps):
        t0 = time.perf_counter()
        one_step(model, opt, loss_fn, x, y)
        out.append(time.perf_counter() - t0)
    return out, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / steps


def per_core(model, opt, loss_fn, x, y, rounds=3, steps=3):
    """The unhooked step pinned to each CPU this process may use, `steps` steps per CPU in each
    of `rounds` rounds (the CPUs in turn, so that a drift of the machine touches all of them):
    per CPU, the median step; and the slowest median over the fastest."""
    cpus = sorted(os.sched_getaffinity(0))
    times = {c: [] for c in cpus}
    try:
        for _ in range(rounds):
            for c in cpus:
                os.sched_setaffinity(0, {c})
                one_step(model, opt, loss_fn, x, y)
                for _ in range(steps):
                    t0 = time.perf_counter()
                    one_step(model, opt, loss_fn, x, y)
                    times[c].append(time.perf_counter() - t0)
    finally:
        os.sched_setaffinity(0, cpus)
    med = {c: statistics.median(v) for c, v in times.items()}
    return {"cpus": cpus, "median_s": [med[c] for c in cpus], "rounds": rounds,
            "steps_per_round": steps, "slowest_over_fastest": max(med.values()) / min(med.values())}


def warn_unsteady(hooked, unhooked, cores, limit=1.1):
    """Warnings on stderr when the machine did not run the step at one speed: the timed steps
    (hooked) and the same number right after them (unhooked) differ by more than LIMIT, which
    the hooks alone do not cost; or the per-core medians do."""
    if max(hooked, unhooked) / min(hooked, unhooked) > limit:
        print(f"profile_model.py: warning: the timed steps took {hooked * 1e3:.1f} ms and the "
              f"unhooked steps right after them {unhooked * 1e3:.1f} ms: the machine's speed "
              "changed while profiling; profile again on a quieter machine", file=sys.stderr)
    if cores["slowest_over_fastest"] > limit:
        print("profile_model.py: warning: this machine's CPUs ran the step at different speeds ("
              + ", ".join(f"cpu{c} {t * 1e3:.1f} ms" for c, t in
                          zip(cores["cpus"], cores["median_s"]))
              + "); ranks on several cores will not all run at the profile's speed",
              file=sys.stderr)


# --------------------------------------------------------------------------------------------
# Chrome trace

def chrome_trace(model, opt, loss_fn, x, y, layers, steps, path):
    from torch.autograd.profiler import record_function
    from torch.profiler import ProfilerActivity, profile
    open_ranges, handles = {}, []
    for name, m, _ in layers:
        def pre(mod, inp, name=name):
            r = record_function("layer_fwd:" + name)
            r.__enter__()
            open_ranges.setdefault(name, []).append(r)

        def post(mod, inp, out, name=name):
            open_ranges[name].pop().__exit__(None, None, None)
        handles.append(m.register_forward_pre_hook(pre))
        handles.append(m.register_forward_hook(post))
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for s in range(steps):
            with record_function(f"step_{s}"):
                with record_function("zero_grad"):
                    clear_grads(opt)
                with record_function("forward"):
                    loss = loss_fn(model(x), y)
                with record_function("backward"):
                    loss.backward()
                with record_function("optimizer"):
                    opt.step()
    for h in handles:
        h.remove()
    prof.export_chrome_trace(path)


# --------------------------------------------------------------------------------------------
# DDP buckets (gloo, world = 1)

@contextlib.contextmanager
def world_of_one():
    """A gloo process group of this process alone (rank 0 of 1), for DDP at world 1; yields
    False, and does nothing, where torch has no distributed package."""
    import torch.distributed as dist
    if not dist.is_available():
        yield False
        return
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29531")
    dist.init_process_group("gloo", rank=0, world_size=1)
    try:
        yield True
    finally:
        dist.destroy_process_group()


def ddp_overhead(model, make_opt, loss_fn, x, y, caps_mb, rounds=6, steps=8):
    """What DDP adds to the step at world 1 (inside world_of_one): per bucket cap, the step of
    a DDP copy of the model less that of a plain copy, one value per round; each round times
    `steps` steps of every copy in turn (median), the order reversed every other round, so that
    a drift slower than a round cancels. No network is involved: what is left is DDP's own
    work (autograd hooks, gradients copied into the buckets and back, the reducer's
    bookkeeping), which every rank also pays at larger worlds."""
    from torch.nn.parallel import DistributedDataParallel as DDP
    copies = {"plain": copy.deepcopy(model)}
    for cap in caps_mb:
        copies[f"{cap:g}"] = DDP(copy.deepcopy(model), bucket_cap_mb=cap)
    opts = {k: make_opt(m.parameters()) for k, m in copies.items()}
    for k, m in copies.items():
        for _ in range(3):
            one_step(m, opts[k], loss_fn, x, y)
    step = {k: [] for k in copies}
    for r in range(rounds):
        for k in (list(copies) if r % 2 == 0 else list(copies)[::-1]):
            times = []
            for _ in range(steps):
                t0 = time.perf_counter()
                one_step(copies[k], opts[k], loss_fn, x, y)
                times.append(time.perf_counter() - t0)
            step[k].append(statistics.median(times))
    return {k: [d - p for d, p in zip(v, step["plain"])] for k, v in step.items() if k != "plain"}


def ddp_buckets(model, make_opt, loss_fn, x, y, layers, caps_mb):
    """Per bucket cap, the buckets DDP forms at world 1 (after its rebuild), and what DDP adds
    to the step there (`overhead_s`, the median of ddp_overhead's rounds)."""
    with world_of_one() as ok:
        return _ddp_buckets(model, make_opt, loss_fn, x, y, layers, caps_mb) if ok else None


def _ddp_buckets(model, make_opt, loss_fn, x, y, layers, caps_mb):
    """ddp_buckets inside its process group."""
    from torch.nn.parallel import DistributedDataParallel as DDP
    owner = {}
    for name, _, params in layers:
        for pn, _ in params:
            owner[pn] = name
    index = {name: k for k, (name, _, _) in enumerate(layers)}
    out = {}
    for cap in caps_mb:
        m = copy.deepcopy(model)
        ddp = DDP(m, bucket_cap_mb=cap)
        opt = make_opt(ddp.parameters())
        for _ in range(3):  # buckets are rebuilt after the first iteration
            one_step(ddp, opt, loss_fn, x, y)
        log = ddp._get_ddp_logging_data()
        names = [n for n, p in m.named_parameters() if p.requires_grad]
        sizes = {n: p.numel() * p.element_size() for n, p in m.named_parameters()}
        groups = str(log.get("rebuilt_per_bucket_param_indices", "")).split(",")
        buckets = []
        for k, g in enumerate(g for g in groups if g.strip()):
            params = [names[int(t)] for t in g.split()]
            members = sorted({owner[p] for p in params}, key=lambda n: index[n])
            buckets.append({"index": k, "bytes": sum(sizes[p] for p in params),
                            "params": params, "layers": members})
        keep = ("bucket_sizes", "rebuilt_bucket_sizes", "rebuilt_per_bucket_param_indices",
                "bucket_cap_bytes", "gradient_as_bucket_view", "has_rebuilt_buckets")
        key = f"{cap:g}"
        out[key] = {"buckets": buckets, "logging": {k: log[k] for k in keep if k in log}}
    for key, rounds in ddp_overhead(model, make_opt, loss_fn, x, y, caps_mb).items():
        out[key].update({"overhead_s": statistics.median(rounds), "rounds_overhead_s": rounds})
    return out


# --------------------------------------------------------------------------------------------

def server_work(model, make_opt, loss_fn, x, y, warmup=5, steps=30, between=None):
    """A parameter server's work per gradient when gradients and parameters travel as one flat
    tensor each: returns the stats of (copy the flat gradient into the .grad tensors, optimizer
    step, copy the parameters into a flat tensor) and of adding one flat gradient into a flat
    sum. On a copy of the model, whose gradients come from one real backward. `between`, if
    given, is called untimed before each gradient (e.g. to evict the caches)."""
    server = copy.deepcopy(model)
    loss_fn(server(x), y).backward()
    params = [p for p in server.parameters() if p.grad is not None]
    opt = make_opt(params)
    grad = torch.cat([p.grad.reshape(-1) for p in params])
    flat, total = torch.empty_like(grad), torch.zeros_like(grad)
    update, aggregate = [], []
    now = time.perf_counter
    for s in range(warmup + steps):
        if between is not None:
            between()
        t0 = now()
        off = 0
        for p in params:
            p.grad.copy_(grad[off:off + p.numel()].view_as(p))
            off += p.numel()
        opt.step()
        off = 0
        for p in params:
            flat[off:off + p.numel()].copy_(p.detach().reshape(-1))
            off += p.numel()
        t1 = now()
        total.add_(grad)
        t2 = now()
        if s >= warmup:
            update.append(t1 - t0)
            aggregate.append(t2 - t1)
    return stats(update), stats(aggregate)


# --------------------------------------------------------------------------------------------
# The step as each kind of rank runs it, in fresh processes

def rank_steps(workload, opt_args, threads, caps_mb, processes=3, window=3.0):
    """The step as each kind of training rank runs it, each timed in a process of its own
    started for it: "plain" (drop the gradients, forward, backward, optimizer step), "ddp:CAP"
    (the same through DDP at world 1 with that bucket cap, as a DDP rank) and "ps_worker"
    (parameters copied in from a flat tensor, forward, backward, gradients copied out into
    one, no optimizer step, as a parameter-server worker). A step's time includes the minor
    page faults it takes, and how many a process takes follows its allocation history: the
    wrapper's buckets and the flat tensors change it, and a fresh process is where a rank
    starts (docs/profiles.md, "Page faults"). `processes` processes per kind, the kinds in
    turn and in reverse order every other round; each process steps three times, then for
    `window` seconds (at least five steps). Every process runs on the same CPUs (the first
    `threads` of this process's), so that a core slower than the other for a while cannot
    split the kinds by where the scheduler placed them. Returns {"processes", "window_s",
    "cpus", "runs": {kind: [{"step_s", "faults_per_step", "steps"}]},
    "median_step_s": {kind: s}}. `workload` = (spec, batch, classes, input shape) as
    build_workload takes them; `opt_args` = (lr, momentum)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    kinds = ["plain", "ps_worker"] + [f"ddp:{c:g}" for c in caps_mb]
    runs = {k: [] for k in kinds}
    ctx = mp.get_context("spawn")
    cpus = sorted(os.sched_getaffinity(0))[:threads]
    for i in range(processes):
        for kind in (kinds if i % 2 == 0 else kinds[::-1]):
            with ProcessPoolExecutor(1, mp_context=ctx) as ex:
                runs[kind].append(ex.submit(rank_step_process, workload, opt_args, threads,
                                            kind, window, cpus).result())
    return {"processes": processes, "window_s": window, "cpus": cpus, "runs": runs,
            "median_step_s": {k: statistics.median(r["step_s"] for r in v)
                              for k, v in runs.items()}}


def rank_step_process(workload, opt_args, threads, kind, window, cpus=None):
    """One process of rank_steps: its mean step, mean minor faults per step and step count;
    on the CPUs `cpus` when given."""
    if cpus:
        os.sched_setaffinity(0, cpus)
    spec, batch, classes, shape = workload
    rank_threads(threads)
    torch.manual_seed(0)
    model, x, y, loss_fn = build_workload(spec, batch, classes, shape)
    with contextlib.ExitStack() as stack:
        if kind.startswith("ddp:"):
            import tempfile
            import torch.distributed as dist
            from torch.nn.parallel import DistributedDataParallel as DDP
            store = os.path.join(stack.enter_context(tempfile.TemporaryDirectory()), "store")
            dist.init_process_group("gloo", init_method="file://" + store, rank=0,
                                    world_size=1)
            stack.callback(dist.destroy_process_group)
            model = DDP(model, bucket_cap_mb=float(kind[4:]))
        lr, momentum = opt_args
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
        params = [p for p in model.parameters() if p.requires_grad]
        received = torch.cat([p.detach().reshape(-1) for p in params])
        sent = torch.empty_like(received)

        def worker_step():
            off = 0
            for p in params:
                p.data.copy_(received[off:off + p.numel()].view_as(p))
                off += p.numel()
            for p in params:
                p.grad = None
            loss_fn(model(x), y).backward()
            off = 0
            for p in params:
                if p.grad is not None:
                    sent[off:off + p.numel()].copy_(p.grad.reshape(-1))
                off += p.numel()

        def step():
            if kind == "ps_worker":
                worker_step()
            else:
                one_step(model, opt, loss_fn, x, y)
        for _ in range(3):
            step()
        times, faults = [], resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        end = time.perf_counter() + window
        while time.perf_counter() < end or len(times) < 5:
            t0 = time.perf_counter()
            step()
            times.append(time.perf_counter() - t0)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    return {"step_s": statistics.fmean(times), "faults_per_step": faults / len(times),
            "steps": len(times)}


PAUSES_S = (0.005, 0.01, 0.02, 0.05, 0.1)


@contextlib.contextmanager
def other_cpus_busy(workload, threads):
    """Copies of the training step (comm_probe's) stepping without pause on every group of
    `threads` CPUs but one, so that this process has CPUs of its own beside busy ones; yields
    how many copies run, and kills them on exit. `workload` = (spec, batch, classes, input
    shape) as build_workload takes them."""
    import comm_probe
    busy = max(0, len(os.sched_getaffinity(0)) // threads - 1)
    queues, procs = comm_probe.start_copies(workload, threads, busy)
    start = time.perf_counter() + 0.2
    for w, _ in queues:
        w.put((start, start + 3600.0))  # stopped on exit
    time.sleep(max(0.0, start - time.perf_counter()) + 0.5)
    try:
        yield busy
    finally:
        for p in procs:
            p.kill()
            p.join()


def server_work_after_pauses(workload, model, make_opt, loss_fn, x, y, pauses=PAUSES_S,
                             steps=30, threads=1):
    """server_work's update when every gradient follows a pause, as a server's do: it waits for
    the next gradient while workers compute on the host. For each pause, the server's thread
    sleeps that long before each gradient while copies of the training step keep the other
    CPUs busy (one copy per `threads` CPUs but one, so that the server has CPUs of its own and
    its time is its work); returns {"busy_copies", "pauses": [{"pause_s", **stats}]}. The
    longer the pause, the more of the server's parameters, gradients and optimizer state the
    copies (and the machine's other tenants) have evicted from the caches, and the longer the
    update takes. `workload` = (spec, batch, classes, input shape) as build_workload takes them."""
    out = []
    with other_cpus_busy(workload, threads) as busy:
        for pause in pauses:
            update, _ = server_work(model, make_opt, loss_fn, x, y, warmup=3, steps=steps,
                                    between=lambda p=pause: time.sleep(p))
            out.append({"pause_s": pause, **update})
    return {"busy_copies": busy, "threads": threads, "pauses": out}


def step_after_pauses(workload, model, opt, loss_fn, x, y, pauses=PAUSES_S, budget_s=15.0,
                      cycles=(5, 30), threads=1):
    """The plain training step when each step follows a pause, as a distributed rank's do: it
    waits for its parameters or for the network between two computations while the other
    ranks, and the machine's other tenants, run on the cores. With copies of the step keeping
    the other CPUs busy (as server_work_after_pauses), each cycle takes, for every pause of
    `pauses` in turn, one step right after the previous one (back to back) and one after the
    process slept that long, untimed; so the steps of every pause and those back to back
    alternate step by step, and the machine's drift cancels in their ratio. As many cycles as
    fit in `budget_s` seconds, within `cycles` (least, most). Returns {"busy_copies",
    "threads", "cycles", "pauses": [{"pause_s", **stats}]}, the first entry the steps back to
    back."""
    now = time.perf_counter
    with other_cpus_busy(workload, threads) as busy:
        t0 = now()
        for _ in range(3):
            one_step(model, opt, loss_fn, x, y)
        cycle_s = 2 * len(pauses) * (now() - t0) / 3 + sum(pauses)
        n = max(cycles[0], min(cycles[1], math.ceil(budget_s / cycle_s)))
        times = {p: [] for p in (0.0,) + tuple(pauses)}
        for _ in range(n):
            for pause in pauses:
                for p in (0.0, pause):
                    if p:
                        time.sleep(p)
                    t0 = now()
                    one_step(model, opt, loss_fn, x, y)
                    times[p].append(now() - t0)
    return {"busy_copies": busy, "threads": threads, "cycles": n,
            "pauses": [{"pause_s": p, **stats(v)} for p, v in times.items()]}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="mlp",
                    help="mlp, resnet18, mobilenet_v2 or MODULE:FUNCTION (see above)")
    ap.add_argument("--name", help="output name (default: --model, or MODULE_FUNCTION for "
                                   "MODULE:FUNCTION)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--input-shape", help="per-sample input shape, e.g. 3,32,32")
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--threads", type=int, default=1, help="intra-op threads (one rank's)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--trace-steps", type=int, default=5)
    ap.add_argument("--bucket-caps", default="25,1", help="DDP bucket_cap_mb values; '' = none")
    ap.add_argument("--out-dir", default=".")
    ap.add_argument("--comm-netns", metavar="NS0,NS1",
                    help="run the busy-core probe's two ranks in these network namespaces, so "
                         "that comm_cpu is measured through that network path instead of loopback "
                         "(root; e.g. the testbed's sgdv0,sgdv1)")
    ap.add_argument("--comm-addr", default="127.0.0.1",
                    help="rank 0's address for --comm-netns (10.77.0.1 in the testbed)")
    ap.add_argument("--comm-shape", metavar="RATE", nargs="?", const="1gbit",
                    help="measure comm_cpu through a link that this machine's kernel emulates "
                         "at RATE (tc syntax; 1gbit when omitted): two temporary namespaces "
                         "joined by a veth pair with a tbf rate limit on each end, as an emulated "
                         "network shapes its links (root)")
    ap.add_argument("--rank-processes", type=int, default=3,
                    help="fresh processes per kind of rank for rank_steps (0 skips them)")
    ap.add_argument("--no-comm-probe", action="store_true",
                    help="skip the communication probes (comm_probe.py; two local gloo ranks)")
    a = ap.parse_args()
    if a.comm_shape and a.comm_netns:
        ap.error("--comm-shape and --comm-netns each choose the path of the probe; give one")

    torch.manual_seed(0)
    rank_threads(a.threads)
    shape = input_shape(a.input_shape)
    model, x, y, loss_fn = build_workload(a.model, a.batch, a.classes, shape)
    name = a.name or default_name(a.model)

    def make_opt(params):
        return torch.optim.SGD(params, lr=a.lr, momentum=a.momentum)

    layers = param_layers(model, x)
    opt = make_opt(model.parameters())
    rec, fwd_gap, fwd_own, bwd_gap, bwd_off, position, stable = timed_run(
        model, opt, loss_fn, x, y, layers, a.warmup, a.steps)
    plain, faults_per_step = unhooked(model, opt, loss_fn, x, y, a.warmup, a.steps)
    cores = per_core(model, opt, loss_fn, x, y)
    server_update, aggregate = server_work(model, make_opt, loss_fn, x, y)
    after_pauses = server_work_after_pauses((a.model, a.batch, a.classes, shape), model,
                                            make_opt, loss_fn, x, y, threads=a.threads)
    step_pauses = step_after_pauses((a.model, a.batch, a.classes, shape), model, opt,
                                    loss_fn, x, y, threads=a.threads)
    warn_unsteady(statistics.fmean(rec["step"]), statistics.fmean(plain), cores)

    os.makedirs(a.out_dir, exist_ok=True)
    trace_name = f"{name}_trace.json"
    chrome_trace(model, opt, loss_fn, x, y, layers, a.trace_steps,
                 os.path.join(a.out_dir, trace_name))
    caps = [float(c) for c in a.bucket_caps.split(",") if c.strip()]
    buckets = ddp_buckets(model, make_opt, loss_fn, x, y, layers, caps) if caps else None
    ranks = None
    if a.rank_processes > 0:
        ranks = rank_steps((a.model, a.batch, a.classes, shape), (a.lr, a.momentum), a.threads,
                           caps if buckets is not None else [], processes=a.rank_processes)
    comm = None
    if not a.no_comm_probe:
        import comm_probe
        comm = comm_probe.probe(lambda: one_step(model, opt, loss_fn, x, y), a.threads,
                                workload=(a.model, a.batch, a.classes, shape),
                                netns=a.comm_netns.split(",") if a.comm_netns else None,
                                addr=a.comm_addr, shape=a.comm_shape)

    out_layers = []
    for i, (lname, m, params) in enumerate(layers):
        plist = [{"name": pn, "shape": list(p.shape), "numel": p.numel(),
                  "bytes": p.numel() * p.element_size()} for pn, p in params]
        out_layers.append({
            "index": i, "name": lname, "type": type(m).__name__,
            "param_bytes": sum(q["bytes"] for q in plist), "params": plist,
            "fwd_s": stats(fwd_gap[i]), "fwd_own_s": stats(fwd_own[i]),
            "bwd_s": stats(bwd_gap[i]), "bwd_ready_offset_s": stats(bwd_off[i]),
            "bwd_order": position[i], "bwd_order_stable": stable[i]})
    doc = {
        "workload": name, "batch": a.batch, "input_shape": list(x.shape),
        "threads": a.threads, "warmup_steps": a.warmup, "timed_steps": a.steps,
        "optimizer": f"SGD(lr={a.lr}, momentum={a.momentum})", "loss": "CrossEntropyLoss",
        "total_param_bytes": sum(l["param_bytes"] for l in out_layers),
        "buffer_bytes": sum(b.numel() * b.element_size() for b in model.buffers()),
        "num_layers": len(out_layers), "layers": out_layers,
        "totals": {f"{k}_s": stats(v) for k, v in rec.items()},
        "unhooked_step_s": stats(plain), "minor_faults_per_step": faults_per_step,
        "per_core_step_s": cores, "chrome_trace": trace_name,
        "server_update_s": server_update, "aggregate_s": aggregate,
        "server_update_after_pause": after_pauses, "step_after_pause": step_pauses,
        "env": {"torch": torch.__version__, "python": platform.python_version(),
                "nproc": os.cpu_count(),
                "date": datetime.datetime.now().isoformat(timespec="seconds")},
        "definitions": DEFINITIONS,
    }
    if buckets is not None:
        doc["ddp_buckets"] = buckets
        # What DDP adds to a step whatever the network: the median over the caps.
        doc["ddp_overhead_s"] = max(0.0, statistics.median(
            b["overhead_s"] for b in buckets.values()))
    if ranks is not None:
        doc["rank_steps"] = ranks
        med = ranks["median_step_s"]
        # A PS worker's own work beyond its forward and backward (the flat copies, and the page
        # faults they bring), each in a process as fresh as a rank's.
        doc["ps_worker_overhead_s"] = max(0.0, med["ps_worker"] - (
            med["plain"] - doc["totals"]["optimizer_s"]["mean"]))
        if buckets is not None:
            # What DDP adds to a rank's step, likewise: the median over the caps.
            for cap, b in buckets.items():
                b["rank_overhead_s"] = med[f"ddp:{cap}"] - med["plain"]
            doc["ddp_overhead_s"] = max(0.0, statistics.median(
                b["rank_overhead_s"] for b in buckets.values()))
    if comm is not None:
        doc["comm_probe"] = comm
        if "crowded" in comm:
            doc["steady_step_s"] = comm["crowded"]["core_step_s"]
    path = os.path.join(a.out_dir, f"{name}_layers.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    step_ms = doc["totals"]["step_s"]["mean"] * 1e3
    print(f"wrote {path} and {os.path.join(a.out_dir, trace_name)}: {len(out_layers)} layers, "
          f"{doc['total_param_bytes']} gradient bytes, step {step_ms:.2f} ms")


if __name__ == "__main__":
    main()
