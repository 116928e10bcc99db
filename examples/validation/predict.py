#!/usr/bin/env python3
"""Predicts every measured configuration of runs/ from the one-node profiles of its session and rewrites the table in README.md.

For each workload, `sgdnet import-profile` turns its profile (layer table, step totals and the
communication probes of comm_probe.py) into `let` definitions; the script writes one model per
scheme and granularity into models/ (DDP = ring all-reduce; PS sync and async = a parameter
server on rank 0), runs `sgdnet run` for each configuration, and compares steps/s with the mean
of the measured repeats.

Where every number comes from (nothing is taken from the runs being predicted):
- compute, update, layer times and DDP buckets: the workload's profile (one process, no
  communication);
- `message_overhead`, host cores: the profile's `comm_probe` (two local processes
  all-reducing over loopback);
- `comm_cpu`: the compute that traffic through the testbed's emulated link takes from busy
  cores, per byte at each end (`comm_beside_compute.py --netns`, runs/link_comm_cpu.jsonl, or
  the file of the profile set's own sitting in LINK_COMM_CPU: the median over its rounds, per
  workload), a check of the link like the one below; the profile's value where a workload has
  none, and for profile sets mapped to None there (profiles/session6/ to session10/, taken
  with `profile_model.py --comm-shape`: the profiler alone);
- a host's `interference`: the profile's side-by-side probe, where the profile has one
  (profiles/session7/ to session10/);
- a host's `oversubscription`: the profile's crowded probe, where the profile has one
  (profiles/session8/ to session10/), else the same probe run on its own on this machine
  (`colocation.py --crowded`, runs/oversubscription.jsonl), recomputed beside the
  interference the model applies;
- DDP's `backward_overhead`: the profile's `ddp_overhead_s` (DDP at world 1 against the plain
  step; from session 26 on, each timed in fresh processes as a rank starts, page faults
  included, and taken at the configuration's cap where the profile timed that cap), where the
  profile has one (profiles/session8/ on), else the same measurement on its own on this
  machine (`ddp_cost.py`, runs/ddp_overhead.jsonl);
- the PS server's `update`: a parameter server's work per flat gradient (copy in, optimizer
  step, copy out; PS sync adds about N + 2 passes of summing), the profile's `server_update_s`
  and `aggregate_s` where it has them (profiles/session10/), else the same measurement on its
  own on this machine (`server_cost.py`, runs/server_work.jsonl);
- the PS worker's `backward_overhead`: its copies of the flat parameters into the model and of
  the gradients into a flat tensor, the same two copies as the server's, so the server's work
  per gradient above less the profile's optimizer step; from session 26 on, the profile's
  `ps_worker_overhead_s` (the worker's step in fresh processes less the plain one's forward
  and backward);
- link rate: the nominal rate times the efficiency that one TCP stream reached on that link in
  the `link_check` line of the same measurement file (a test of the link, not of training);
- PS sync `share_ratio`: from how one rank's messages to the others, sent at once, arrived in
  the testbed's network (fan_out.py, runs/fan_out.jsonl; another test of the link);
- the testbed's layout: every rank on the one host, each with its own NIC; PS rank 0 is the
  server and applies the optimizer; PS messages are one flat tensor sent after the whole
  backward (so `overlap = false` and one message group); the PS async server receives from any
  worker, one gradient at a time (a blocking receive from any source), so its messages are
  served one at a time (`sharing = fifo`); gloo's send and receive are a rendezvous (the data
  moves once the receiver has posted its receive), so the PS async server's next gradient
  travels only after it has applied the last (`protocol = rendezvous`).
The "plain" column is the same fine model without hosts, message overhead, CPU cost of
communication, the server's copies and the rendezvous: what the model predicted before those
terms existed.

Usage (from the repository root, after building):
  python3 examples/validation/predict.py [--sgdnet build/cli/sgdnet] [--jobs 2]
  python3 examples/validation/predict.py --comm-cpu-from profiles/comm_shape   # summary only
  python3 examples/validation/predict.py --ps-sync-bracket                     # table only
  python3 examples/validation/predict.py --bracket                             # table and summary
"""

import argparse
import concurrent.futures
import functools
import itertools
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "profiling"))

import comm_probe  # noqa: E402
BEGIN, END = "<!-- table:begin -->", "<!-- table:end -->"
# Each measurement file and the folder of the profiles taken with it (the same sitting).
SESSIONS = {"session1.jsonl": "profiles", "session2.jsonl": "profiles",
            "session3.jsonl": "profiles/session3", "session4.jsonl": "profiles/session4",
            "session5.jsonl": "profiles/session5", "session6.jsonl": "profiles/session6",
            "session7.jsonl": "profiles/session7", "session8.jsonl": "profiles/session8",
            "session9.jsonl": "profiles/session9", "session10.jsonl": "profiles/session10",
            "session11.jsonl": "profiles/session11", "session12.jsonl": "profiles/session12",
            "session13.jsonl": "profiles/session13", "session14.jsonl": "profiles/session14",
            "session15.jsonl": "profiles/session15", "session16.jsonl": "profiles/session16",
            "session17.jsonl": "profiles/session17", "session18.jsonl": "profiles/session18",
            "session20.jsonl": "profiles/session20", "session21.jsonl": "profiles/session21",
            "session22.jsonl": "profiles/session22", "session23.jsonl": "profiles/session23",
            "session24.jsonl": "profiles/session24", "session25.jsonl": "profiles/session25",
            "session26.jsonl": "profiles/session26", "session27.jsonl": "profiles/session27",
            "session28.jsonl": "profiles/session28", "session29.jsonl": "profiles/session29"}
# Profiles of a workload taken again right after its runs (sitting.sh): a bracket of the
# profiles above, predicted from by --bracket only.
BRACKETS = {"session23.jsonl": "profiles/session23_after",
            "session24.jsonl": "profiles/session24_after",
            "session25.jsonl": "profiles/session25_after",
            "session26.jsonl": "profiles/session26_after",
            "session27.jsonl": "profiles/session27_after",
            "session28.jsonl": "profiles/session28_after",
            "session29.jsonl": "profiles/session29_after"}
# The link's comm_cpu measured in the sitting of a profile set; the other sets use the file
# measured after sessions 1-4. None: the profiles' own comm_cpu (taken with --comm-shape).
LINK_COMM_CPU = {"profiles/session5": "session5_link_comm_cpu.jsonl", "profiles/session6": None,
                 "profiles/session7": None, "profiles/session8": None,
                 "profiles/session9": None, "profiles/session10": None,
                 "profiles/session11": None, "profiles/session12": None,
                 "profiles/session13": None, "profiles/session14": None,
                 "profiles/session15": None, "profiles/session16": None,
                 "profiles/session17": None, "profiles/session18": None,
                 "profiles/session20": None, "profiles/session21": None,
                 "profiles/session22": None, "profiles/session23": None,
                 "profiles/session23_after": None, "profiles/session24": None,
                 "profiles/session24_after": None, "profiles/session25": None,
                 "profiles/session25_after": None, "profiles/session26": None,
                 "profiles/session26_after": None, "profiles/session27": None,
                 "profiles/session27_after": None, "profiles/session28": None,
                 "profiles/session28_after": None, "profiles/session29": None,
                 "profiles/session29_after": None}
# The one-node oversubscription probe (colocation.py --crowded) for profile sets without one.
OVERSUBSCRIPTION = "oversubscription.jsonl"
# The one-node measurement of DDP's own cost (ddp_cost.py) for profile sets without one.
DDP_OVERHEAD = "ddp_overhead.jsonl"
# The one-node measurement of a parameter server's work (server_cost.py), likewise.
SERVER_WORK = "server_work.jsonl"
# Its work after pauses (server_cost.py --after-pauses), for profile sets without one.
SERVER_PAUSE = "server_pause.jsonl"
# A worker's step after pauses (step_pause.py), for profile sets without one.
STEP_PAUSE = "step_pause.jsonl"
# The compute lost per byte beside k copies of the step (comm_beside_compute.py --copies k),
# for --crowded-comm-cpu.
CROWDED_COMM_CPU = "crowded_comm_cpu.jsonl"
WORKLOADS = {"mlp": "mlp", "resnet18": "resnet18", "mobilenet_v2": "mobilenet_v2",
             "tiny_transformer:build": "tiny_transformer", "gru_lm:build": "gru_lm",
             "shufflenet:build": "shufflenet", "dlrm_small:build": "dlrm_small",
             "vit_tiny:build": "vit_tiny"}
MODES = {"ddp": "allreduce_ring", "ps-sync": "ps_sync", "ps-async": "ps_async"}

HEADER = """\
param N = 2;            // workers (PS: the ranks but rank 0)
param bw = 1 Gbps;      // nominal link rate, each direction (tc tbf on every rank's link)
param eff = 1;          // TCP efficiency: single-stream link check / nominal rate
param cap = 25 MiB;     // DDP bucket_cap_mb
param phi = 0;          // coarse DDP: share of the all-reduce that overlaps the backward
param ratio = 1;        // PS sync: share_ratio of the server's link (runs/fan_out.jsonl)
"""


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 4):
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return p.stdout


def nominal_mbps(rate):
    """A link's nominal rate (tc's syntax, e.g. 400mbit) in Mbit/s."""
    return comm_probe.tc_rate_bits(rate) / 1e6


def goodput_Bps(rate, eff):
    """A link's rate in bytes/s: nominal times the efficiency of its link check."""
    return nominal_mbps(rate) * 1e6 / 8 * eff[rate]


# A diagnosis's change to every profile read (a function of the profile's JSON), or None.
ADJUST = None


@functools.lru_cache(maxsize=None)
def read_profile(profiles, wl):
    return json.load(open(os.path.join(HERE, profiles, f"{wl}_layers.json")))


def load_profile(profiles, wl):
    prof = read_profile(profiles, wl)
    return ADJUST(prof) if ADJUST else prof


def read_runs(fname, alone=False):
    """The runs of one measurement file that predict.py predicts (not failed, world >= 2; the
    single-rank runs instead when `alone`), each with the efficiency of every link checked so
    far in the file (a check precedes its runs)."""
    eff = {}
    for line in open(os.path.join(HERE, "runs", fname)):
        r = json.loads(line)
        if r.get("link_check"):
            eff[r["bw"]] = r["result"]["mbit_per_s"] / nominal_mbps(r["bw"])
        elif not r.get("failed") and (r["world"] == 1) == alone:
            yield r, eff


def link_file(profiles):
    return LINK_COMM_CPU.get(profiles, "link_comm_cpu.jsonl")


@functools.lru_cache(maxsize=None)
def link_comm_cpu(fname):
    """Per workload, the median over every round in runs/FNAME of the compute lost per byte-end
    to all-reduces through the emulated link, in seconds."""
    rounds = {}
    path = os.path.join(HERE, "runs", fname) if fname else None
    for line in open(path) if path and os.path.exists(path) else []:
        r = json.loads(line)
        rounds.setdefault(WORKLOADS[r["workload"]], []).extend(r["rounds_lost_s_per_byte_end"])
    return {wl: statistics.median(v) for wl, v in rounds.items()}


def lines_by_workload(fname):
    """The JSON lines of runs/FNAME (none when it does not exist), per workload name."""
    out = {}
    path = os.path.join(HERE, "runs", fname)
    for line in open(path) if os.path.exists(path) else []:
        r = json.loads(line)
        out.setdefault(WORKLOADS[r["workload"]], []).append(r)
    return out


@functools.lru_cache(maxsize=None)
def crowded_rounds():
    """Per workload, the rounds of comm_probe.crowded in runs/OVERSUBSCRIPTION (every pass
    together), as the probe returns them."""
    out = {}
    for wl, rs in lines_by_workload(OVERSUBSCRIPTION).items():
        c = out[wl] = {"slots": rs[0]["slots"], "copies": {}}
        for r in rs:
            for k, v in r["copies"].items():
                c["copies"].setdefault(k, {"rounds_x_alone": []})["rounds_x_alone"] += \
                    v["rounds_x_alone"]
    return out


@functools.lru_cache(maxsize=None)
def ddp_costs():
    """Per workload, the median over the lines of runs/DDP_OVERHEAD of their `ddp_overhead_s`
    (ddp_cost.py, one line per pass)."""
    return {wl: statistics.median(r["ddp_overhead_s"] for r in rs)
            for wl, rs in lines_by_workload(DDP_OVERHEAD).items()}


def ddp_cost(table, wl):
    """The DDP model's `backward_overhead` (an expression) and the let lines it needs: the
    profile's `ddp_overhead_s` where it has one, else the one-node measurement of
    runs/DDP_OVERHEAD, else none (None)."""
    if f"let {wl}_ddp_overhead" in table:
        return f"{wl}_ddp_overhead", ""
    if wl in ddp_costs():
        return f"{wl}_ddp_cost", (
            f"// What DDP adds to the step at world 1 (ddp_cost.py on one node,\n"
            f"// runs/{DDP_OVERHEAD}).\nlet {wl}_ddp_cost = {ddp_costs()[wl] * 1e3:.4g} ms;\n")
    return None, ""


def cap_rank_overhead(profile, cap):
    """What DDP adds to a rank's step at CAP (MiB) as the profile's rank steps timed it
    (signed: below 0 where the DDP rank's step was the shorter); None where CAP is None or
    the profile did not time it."""
    if cap is None:
        return None
    return profile.get("ddp_buckets", {}).get(f"{cap:g}", {}).get("rank_overhead_s")


def ddp_speed(profile, cap):
    """The speed of a DDP rank's compute at CAP, as the profile's rank steps timed them (the
    caps' median of DDP's own cost where CAP is None or was not timed): the plain median over
    the plain median plus that cost, at least 1. Above 1 when the DDP rank's step was the
    shorter (page faults the plain step takes and the DDP rank does not); None without rank
    steps."""
    if "rank_steps" not in profile:
        return None
    own = cap_rank_overhead(profile, cap)
    if own is None:
        own = statistics.median(b["rank_overhead_s"] for b in profile["ddp_buckets"].values()
                                if "rank_overhead_s" in b)
    plain = profile["rank_steps"]["median_step_s"]["plain"]
    return max(1.0, plain / (plain + own))


@functools.lru_cache(maxsize=None)
def server_works():
    """Per workload, the median over the lines of runs/SERVER_WORK (server_cost.py, one line
    per pass) of the mean and of the std of `server_update_s`, and of the mean of
    `aggregate_s`."""
    return {wl: {"mean": statistics.median(r["server_update_s"]["mean"] for r in rs),
                 "std": statistics.median(r["server_update_s"]["std"] for r in rs),
                 "aggregate": statistics.median(r["aggregate_s"]["mean"] for r in rs)}
            for wl, rs in lines_by_workload(SERVER_WORK).items()}


@functools.lru_cache(maxsize=None)
def server_pauses():
    """Per workload, the `server_update_after_pause` of every line of runs/SERVER_PAUSE
    (server_cost.py --after-pauses, one line per pass)."""
    return {wl: [r["server_update_after_pause"] for r in rs]
            for wl, rs in lines_by_workload(SERVER_PAUSE).items()}


def back_to_back_work(profile, wl):
    """The server's work per flat gradient back to back, {"mean", "std", …} in seconds: the
    profile's `server_update_s`, else the medians of runs/SERVER_WORK; None without either."""
    return profile.get("server_update_s") or server_works().get(wl)


def pause_curve(profile, wl):
    """The server's work per gradient against the pause before it, [(pause_s, seconds)] by
    pause: (0, the back-to-back work) then the points of the profile's
    `server_update_after_pause`, else the medians over the lines of runs/SERVER_PAUSE; None
    without either."""
    back_to_back = back_to_back_work(profile, wl)
    if back_to_back is None:
        return None
    if "server_update_after_pause" in profile:
        runs = [profile["server_update_after_pause"]]
    else:
        runs = server_pauses().get(wl, [])
    if not runs:
        return None
    by_pause = {}
    for r in runs:
        for p in r["pauses"]:
            by_pause.setdefault(p["pause_s"], []).append(p["mean"])
    points = sorted((p, statistics.median(v)) for p, v in by_pause.items())
    return [(0.0, back_to_back["mean"])] + points


def work_after(curve, pause):
    """CURVE's work at PAUSE: linear between its points, its last point beyond them."""
    for (p0, w0), (p1, w1) in zip(curve, curve[1:]):
        if pause <= p1:
            return w0 + (w1 - w0) * (pause - p0) / (p1 - p0)
    return curve[-1][1]


@functools.lru_cache(maxsize=None)
def step_pauses():
    """Per workload, the `step_after_pause` of every line of runs/STEP_PAUSE (step_pause.py,
    one line per pass)."""
    return {wl: [r["step_after_pause"] for r in rs]
            for wl, rs in lines_by_workload(STEP_PAUSE).items()}


def step_curve(profile, wl):
    """A worker's step after a pause over its step back to back, [(pause_s, ratio)] by pause,
    starting with (0, 1): the profile's `step_after_pause`, else the lines of runs/STEP_PAUSE
    (per pause, the median over them of each line's ratio); None without either."""
    runs = ([profile["step_after_pause"]] if "step_after_pause" in profile else
            step_pauses().get(wl, []))
    if not runs:
        return None
    by_pause = {}
    for r in runs:
        back_to_back = r["pauses"][0]["mean"]
        for p in r["pauses"][1:]:
            by_pause.setdefault(p["pause_s"], []).append(p["mean"] / back_to_back)
    return [(0.0, 1.0)] + sorted((p, statistics.median(v)) for p, v in by_pause.items())


def worker_pause(profile, wl, mode, world, goodput, exposed_share):
    """How long a worker of WL waits between two computations, on the model's own terms: PS
    async, its gradient's and its parameters' transfers and the server's work between them
    (back_to_back_work, else the profile's optimizer step); PS sync, the N gradients and N
    parameter tensors through the server's link and the server's work; DDP, the share of the
    ring all-reduce (2 (N - 1)/N of the gradients at the link's rate) that the backward does
    not hide (EXPOSED_SHARE, 1 - overlap_share)."""
    nbytes = profile["total_param_bytes"]
    if mode == "ddp":
        return exposed_share * nbytes * 2 * (world - 1) / world / goodput
    work = (back_to_back_work(profile, wl) or profile["totals"]["optimizer_s"])["mean"]
    transfers = 2 if mode == "ps-async" else 2 * (world - 1)
    return transfers * nbytes / goodput + work


def server_pause(profile, mode, workers, goodput):
    """How long the testbed's server waits before each update, on the model's own terms: PS
    async, one gradient's transfer over its link (the next gradient moves only once it has
    posted its receive); PS sync, a step's compute and both transfers of its N workers'
    tensors through its link (the parameters out, the gradients in)."""
    transfer = profile["total_param_bytes"] / goodput
    if mode == "ps-async":
        return transfer
    compute = profile["totals"]["step_s"]["mean"] - profile["totals"]["optimizer_s"]["mean"]
    return compute + 2 * workers * transfer


def server_update(profile, table, wl, mode):
    """The PS server's `update` (an expression) and the let lines it needs. The testbed's
    server receives and sends flat tensors: per gradient it copies the gradient into the
    model, steps, copies the parameters out (the profile's `server_update_s`, else the
    one-node measurement of runs/SERVER_WORK); PS sync first zeroes a sum, adds the N
    gradients and divides it, about N + 2 passes of `aggregate_s`. Without either, the
    profile's optimizer step."""
    w = back_to_back_work(profile, wl)
    if w is None:
        return f"{wl}_update", ""
    curve = pause_curve(profile, wl)
    lets = ""
    if f"let {wl}_server_update" in table:
        work, agg = f"{wl}_server_update", f"{wl}_aggregate"
    else:
        work, agg = f"{wl}_server_work", f"{wl}_sum_one"
        lets = (f"// A parameter server's work per flat gradient (server_cost.py on one node,\n"
                f"// runs/{SERVER_WORK}).\n")
        if curve is None:  # else the work after a pause (below) replaces it
            lets += (f"let {work} = lognormal(mean = {w['mean'] * 1e3:.4g} ms, "
                     f"cv = {w['std'] / w['mean']:.3g});\n")
        lets += f"let {agg} = {w['aggregate'] * 1e3:.4g} ms;\n"
    if curve is not None:
        source = ("the profile's server_update_after_pause" if "server_update_after_pause"
                  in profile else f"server_cost.py --after-pauses, runs/{SERVER_PAUSE}")
        lets += ("// The server's work per gradient after the pause before it, at the\n"
                 f"// configuration's pause ({source}):\n"
                 "// predict.py sets it; the default is the work back to back.\n"
                 f"param server_work = {curve[0][1] * 1e3:.4g} ms;\n"
                 f"let {wl}_server_paused = lognormal(mean = server_work, "
                 f"cv = {w['std'] / w['mean']:.3g});\n")
        work = f"{wl}_server_paused"
    if mode == "ps-sync":
        return f"{work} + (N + 2) * {agg}", lets
    return work, lets


def worker_copies(profile, wl):
    """The PS worker's own work per step, as an expression for `backward_overhead`, and the let
    line it needs. The testbed's worker copies the flat parameters it receives into the model
    and the gradients into a flat tensor to send: the same two copies as the server's, whose
    work per gradient (`server_update_s`, else runs/SERVER_WORK) less the optimizer step of
    the profile (`optimizer_s`) measures them; a profile with `ps_worker_overhead_s` (the
    worker's step in fresh processes, page faults included) gives them directly. None without
    either."""
    if "ps_worker_overhead_s" in profile:
        return f"{wl}_flat_copies", (
            f"// A PS worker's own work per step: parameters in, gradients out, timed as a\n"
            f"// worker runs them in fresh processes (the profile's ps_worker_overhead_s).\n"
            f"let {wl}_flat_copies = {profile['ps_worker_overhead_s'] * 1e3:.4g} ms;\n")
    work = back_to_back_work(profile, wl)
    if work is None:
        return None, ""
    copies = max(0.0, work["mean"] - profile["totals"]["optimizer_s"]["mean"])
    return f"{wl}_flat_copies", (
        f"// A PS worker's copies per step: parameters in, gradients out (the server's work\n"
        f"// per gradient less the optimizer step; the same two copies).\n"
        f"let {wl}_flat_copies = {copies * 1e3:.4g} ms;\n")


def host_terms(table, wl):
    """The host terms of a model beside `cores`: `interference` where the profile measured it,
    `oversubscription` from the profile's own crowded probe or else from the one-node probe of
    runs/OVERSUBSCRIPTION (beside the interference the model applies), and the let lines they
    need."""
    terms, lets = "", ""
    if f"let {wl}_interference" in table:
        terms += f" interference = {wl}_interference;"
    if f"let {wl}_oversubscription" in table:
        return terms + f" oversubscription = {wl}_oversubscription;", lets
    if wl in crowded_rounds():
        a = 0.0
        for line in table.splitlines():
            if line.startswith(f"let {wl}_interference = "):
                a = float(line.split("=")[1].split(";")[0])
        o = comm_probe.oversubscription_of(crowded_rounds()[wl], a)["oversubscription"]
        lets = (f"// The cost of taking turns on the cores (comm_probe.crowded on one node,\n"
                f"// runs/{OVERSUBSCRIPTION}, beside interference {a:g}).\n"
                f"let {wl}_taking_turns = {o:.4g};\n")
        terms += f" oversubscription = {wl}_taking_turns;"
    return terms, lets


def model_text(profile, table, wl, mode, gran, plain, link, comm_from=None,
               ps_sync_sharing="fair", knobs=()):
    """One model: the imported profile (PROFILE, its JSON, and TABLE, its import), then the
    testbed's training system; LINK is the file of runs/ that holds the link's comm_cpu, or
    COMM_FROM a folder of profiles whose own comm_cpu the model takes instead.
    PS_SYNC_SHARING is how the PS sync messages share a link direction (fair, as TCP streams
    ideally do, unless told). KNOBS names parameters of a diagnosis that the model declares,
    each without effect unless set: `idle_share` (0) reduces the host's cores by that share,
    `comm_scale` (1) multiplies comm_cpu."""
    hosted = not plain
    link_cpu = link_comm_cpu(link).get(wl) if hosted and not comm_from else None
    source = (f"// Compute that the emulated link's traffic takes from busy cores, per byte at\n"
              f"// each end (runs/{link}, comm_beside_compute.py --netns).\n")
    if hosted and comm_from:
        probe = load_profile(comm_from, wl)["comm_probe"]
        link_cpu = probe["comm_cpu_s_per_byte"]
        path = probe.get("beside_busy_cores", {}).get("transport", "loopback, idle cores")
        source = (f"// Compute that communication takes from busy cores, per byte at each end, as\n"
                  f"// the profile {comm_from}/{wl}_layers.json measured it ({path}).\n")
    host_line = "  host = h;\n" if hosted else ""
    paced = hosted and step_curve(profile, wl) is not None
    pace_line = "  speed = pace;          // its step after the pause before it\n" if paced else ""
    ranks_timed = hosted and mode == "ddp" and "rank_steps" in profile
    if ranks_timed:
        pace_line = ("  speed = ddp_speed;     // a DDP rank's step against the plain one\n"
                     if not paced else "  speed = pace * ddp_speed;\n")
    lines = [f"// {wl}, {mode}, {gran}-grained{' (no host terms)' if plain else ''}: "
             f"written by examples/validation/predict.py.",
             f"model {wl}_{mode.replace('-', '_')}_{gran}{'_plain' if plain else ''};",
             table, "// ---- the testbed's training system ----", HEADER]
    if hosted:
        terms, lets = host_terms(table, wl)
        idle = "idle_share" in knobs
        cores = f"{wl}_cores * (1 - idle_share)" if idle else f"{wl}_cores"
        lines.append(lets + ("param idle_share = 0;\n" if idle else "") +
                     ("param comm_scale = 1;\n" if "comm_scale" in knobs else "") +
                     f"host h {{ cores = {cores};{terms} }}  "
                     f"// every rank on the one machine\n")
    if link_cpu is not None:
        lines.append(source + f"let link_comm_cpu = {link_cpu * 1e9:.4g} ns / 1 B;\n")
    if paced:
        source = ("the profile's step_after_pause" if "step_after_pause" in profile
                  else f"step_pause.py, runs/{STEP_PAUSE}")
        lines.append("// A worker's pace: its step back to back over its step after the pause\n"
                     f"// between two computations, at the configuration's pause ({source}):\n"
                     "// predict.py sets it; the default is the pace back to back.\n"
                     "param pace = 1;\n")
    ddp_own, ddp_lets = None, ""
    if ranks_timed:
        ddp_own, ddp_lets = "ddp_own", (
            "// What DDP adds to a rank's step at the configuration's cap: the profile's rank\n"
            "// steps at that cap when it timed it (predict.py sets it), else their median over\n"
            "// its caps (ddp_overhead_s); where the DDP rank's step was the shorter (fewer page\n"
            "// faults), 0 and instead the DDP rank's compute divided by the plain step over\n"
            "// the DDP rank's (ddp_speed, as predict.py sets it).\n"
            f"param ddp_own = {profile['ddp_overhead_s'] * 1e3:.4g} ms;\n"
            f"param ddp_speed = {ddp_speed(profile, None):.6g};\n")
    elif hosted and mode == "ddp":
        ddp_own, ddp_lets = ddp_cost(table, wl)
    if ddp_lets:
        lines.append(ddp_lets)
    compute = f"  compute = {wl}_compute;\n" if gran == "coarse" else ""
    if mode == "ddp":
        lines.append("worker w[N] {\n" + f"  layers = {wl};\n" + compute +
                     f"  update = {wl}_update;\n  bandwidth = bw * eff;\n" + host_line +
                     pace_line + "}")
    else:
        update, server_lets = (server_update(profile, table, wl, mode) if hosted
                               else (f"{wl}_update", ""))
        if server_lets:
            lines.append(server_lets)
        lines.append("server ps {\n" + f"  update = {update};   // rank 0 applies the gradients\n"
                     "  bandwidth = bw * eff;\n" + host_line + "}")
        copies, copy_lets = worker_copies(profile, wl) if hosted else (None, "")
        if copy_lets:
            lines.append(copy_lets)
        lines.append("worker w[N] {\n" + f"  layers = {wl};\n" + compute +
                     "  bandwidth = bw * eff;\n" + host_line + pace_line + "}")
    t = ["training {", f"  sync = {MODES[mode]};", f"  granularity = {gran};"]
    if mode == "ddp":
        t += ["  bucket = cap;", "  first_bucket = 1 MiB;  // DDP's first bucket"]
        if gran == "coarse":
            t.append("  overlap = phi;")
    else:
        t += ["  fusion = 1 TiB;        // one flat tensor per message",
              "  overlap = false;       // sent after the whole backward"]
        if mode == "ps-async":
            t.append("  sharing = fifo;        // the server receives one gradient at a time")
        elif ps_sync_sharing != "fair":
            t.append(f"  sharing = {ps_sync_sharing};")
        else:
            t.append("  share_ratio = ratio;   // TCP's unequal shares of the server's link")
    if hosted:
        cpu = "link_comm_cpu" if link_cpu is not None else f"{wl}_comm_cpu"
        scale = " * comm_scale" if "comm_scale" in knobs else ""
        t += [f"  message_overhead = {wl}_message_overhead;", f"  comm_cpu = {cpu}{scale};"]
        if mode != "ddp":
            t.append("  protocol = rendezvous;  // gloo's send/recv: data moves once received")
        if mode == "ddp":
            t.append(f"  buffers = {wl}_buffers;  // broadcast from rank 0 before each forward")
            if ddp_own:
                t.append(f"  backward_overhead = {ddp_own};  // DDP's hooks and bucket copies")
        elif copies:
            t.append(f"  backward_overhead = {copies};  // the worker's flat copies")
    lines.append("\n".join(t) + "\n}\n")
    return "\n".join(lines)


def models_folder(profiles, root=os.path.join(HERE, "models")):
    """ROOT (models/) for profiles/, ROOT/NAME/ for profiles/NAME/."""
    return os.path.join(root, os.path.relpath(profiles, "profiles"))


def write_models(sgdnet, wl, folder, profiles, comm_from=None, ps_sync_sharing="fair",
                 knobs=()):
    source = os.path.join(HERE, profiles, f"{wl}_layers.json")
    profile = load_profile(profiles, wl)
    if ADJUST:
        source = os.path.join(folder, f"{wl}_layers.json")
        with open(source, "w") as f:
            json.dump(profile, f)
    table = run([sgdnet, "import-profile", source, "--name", wl])
    table = table.replace(os.path.join(HERE, ""), "examples/validation/")
    paths = {}
    for mode in MODES:
        for gran, plain in (("fine", False), ("coarse", False), ("fine", True)):
            name = f"{wl}_{mode.replace('-', '_')}_{gran}{'_plain' if plain else ''}.sgdnet"
            path = os.path.join(folder, name)
            with open(path, "w") as f:
                f.write(model_text(profile, table, wl, mode, gran, plain, link_file(profiles),
                                   comm_from, ps_sync_sharing, knobs))
            paths[(mode, gran, plain)] = path
    return paths


def ddp_buckets(prof, cap):
    """The DDP buckets of a profile for a cap in MiB: those DDP recorded when the profile has
    the cap, else formed by DDP's rule as sgdnet forms them (docs/profiles.md, "DDP buckets"):
    layers in gradient-ready order join the open bucket, which closes once it holds at least
    its cap, 1 MiB for the first bucket."""
    recorded = prof.get("ddp_buckets", {}).get(f"{cap:g}")
    if recorded:
        return recorded["buckets"]
    buckets, open_bucket, limit = [], {"bytes": 0, "layers": []}, 1 << 20
    for layer in sorted(prof["layers"], key=lambda l: l["bwd_order"]):
        if not layer["param_bytes"]:
            continue
        open_bucket["bytes"] += layer["param_bytes"]
        open_bucket["layers"].append(layer["name"])
        if open_bucket["bytes"] >= limit:
            buckets.append(open_bucket)
            open_bucket, limit = {"bytes": 0, "layers": []}, cap * (1 << 20)
    return buckets + ([open_bucket] if open_bucket["layers"] else [])


def overlap_share(profiles, wl, cap, world, bw_Bps):
    """Coarse DDP heuristic from the profile: the share of the all-reduce time that a schedule of
    the profile's DDP buckets hides behind the backward. Bucket k is ready when the last of its
    layers' gradients is (`bwd_ready_offset_s`), and takes bytes_k · 2 (N − 1) / N / bandwidth
    on the ring; buckets go one after the other. What ends after the backward is exposed."""
    prof = load_profile(profiles, wl)
    ready = {l["name"]: l["bwd_ready_offset_s"]["mean"] for l in prof["layers"]}
    backward = prof["totals"]["backward_s"]["mean"]
    end = total = 0.0
    for b in ddp_buckets(prof, cap):
        comm = b["bytes"] * 2 * (world - 1) / world / bw_Bps
        end = max(end, max(ready[n] for n in b["layers"])) + comm
        total += comm
    exposed = max(0.0, end - backward)
    return min(1.0, max(0.0, (total - exposed) / total)) if total > 0 else 0.0


def load_configs():
    configs = {}
    for fname in SESSIONS:
        for r, eff in read_runs(fname):
            cap = r["bucket_mb"] if r["mode"] == "ddp" else None
            key = (fname, r["mode"], WORKLOADS[r["workload"]], r["world"], r["bw"], cap)
            configs.setdefault(key, {"runs": [], "eff": eff})["runs"].append(r["steps_per_s"])
    return configs


def predict(sgdnet, path, sets, seed):
    cmd = [sgdnet, "run", path, "--format", "json", "--seed", seed, "--threads", "1"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    return json.loads(run(cmd))["measures"]["steps_per_s"]


def row_key(item):
    (fname, mode, wl, world, rate, cap), _ = item
    return fname, mode, wl, world, rate, cap or 0


@functools.lru_cache(maxsize=None)
def first_arrivals():
    """Per (rate, receivers, bytes), the median over the rounds of runs/fan_out.jsonl of the
    first message's arrival over the last's (fan_out.py: one rank sending to the others at
    once through the testbed's network, no training)."""
    rounds = {}
    for line in open(os.path.join(HERE, "runs", "fan_out.jsonl")):
        r = json.loads(line)
        key = (r["rate"], r["receivers"], r["bytes"])
        rounds.setdefault(key, []).append(r["arrived_s"][0] / r["arrived_s"][-1])
    return {k: statistics.median(v) for k, v in rounds.items()}


def share_ratio(first, k):
    """The r of docs/language.md §5.1 under which the first of K equal messages that start
    together ends at FIRST times the last: (1 + r + ... + r^(K-1)) = K * FIRST, by bisection
    (the left side grows with r); 1 when FIRST is 1 or more."""
    if k < 2 or first >= 1:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if sum(mid ** i for i in range(k)) < k * first else (lo, mid)
    return max(hi, 1e-3)


def config_sets(key, c, sessions=SESSIONS):
    """The `--set` values of one configuration: workers, link rate and TCP efficiency, the
    bucket cap for DDP, and for PS sync the share ratio of the server's link, from the fan-out
    check of the same rate, receivers and bytes (1 without one). SESSIONS maps each
    measurement file to the profiles it is predicted from."""
    fname, mode, wl, world, rate, cap = key
    sets = {"N": world - 1 if mode != "ddp" else world,
            "bw": f"{nominal_mbps(rate):g}Mbps", "eff": f"{c['eff'][rate]:.6f}"}
    profile = load_profile(sessions[fname], wl)
    if mode == "ddp":
        sets["cap"] = f"{cap:g}MiB"
        timed = cap_rank_overhead(profile, cap)
        if timed is not None:
            sets["ddp_own"] = f"{max(0.0, timed) * 1e3:.6g}ms"
        speed = ddp_speed(profile, cap)
        if speed is not None:
            sets["ddp_speed"] = f"{speed:.6f}"
    goodput = goodput_Bps(rate, c["eff"])
    curve = pause_curve(profile, wl) if mode != "ddp" else None
    if curve is not None:
        pause = server_pause(profile, mode, world - 1, goodput)
        sets["server_work"] = f"{work_after(curve, pause) * 1e3:.6g}ms"
    steps = step_curve(profile, wl)
    if steps is not None:
        exposed = (1 - overlap_share(sessions[fname], wl, cap, world, goodput)
                   if mode == "ddp" else 0.0)
        pause = worker_pause(profile, wl, mode, world, goodput, exposed)
        sets["pace"] = f"{1 / work_after(steps, pause):.6f}"
    if mode == "ps-sync":
        nbytes = profile["total_param_bytes"]
        first = first_arrivals().get((rate, world - 1, nbytes))
        if first is not None:
            sets["ratio"] = f"{share_ratio(first, world - 1):.4f}"
    return sets


def outnumbered(key, sessions=SESSIONS):
    """Whether a configuration's ranks outnumber the cores of its profile's machine."""
    fname, _, wl, world = key[:4]
    return world > load_profile(sessions[fname], wl)["comm_probe"]["cores"]


def development_set(configs):
    """The configurations of the development set: sessions 1 and 2."""
    return {k: c for k, c in configs.items() if k[0] in ("session1.jsonl", "session2.jsonl")}


def predict_rows(a, configs, models, extra=None, sessions=SESSIONS):
    """The table's rows, one per configuration, and the signed errors per column, keyed by
    (profile folder, column) in the rows' order. EXTRA(key, config), when given, returns
    more `--set` values for the models with host terms (the knobs of write_all_models)."""
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for key, c in sorted(configs.items(), key=row_key):
            fname, mode, wl, world, rate, cap = key
            profiles = sessions[fname]
            sets = config_sets(key, c, sessions)
            more = extra(key, c) if extra else {}
            for variant in (("fine", False), ("coarse", False), ("fine", True)):
                s = dict(sets)
                if variant[1]:
                    s.pop("server_work", None)  # the plain model has no host terms
                    s.pop("pace", None)
                    s.pop("ddp_own", None)
                    s.pop("ddp_speed", None)
                else:
                    s.update(more)
                if mode == "ddp" and variant == ("coarse", False):
                    bw_Bps = goodput_Bps(rate, c["eff"])
                    s["phi"] = f"{overlap_share(profiles, wl, cap, world, bw_Bps):.6f}"
                jobs[(key, variant)] = pool.submit(predict, a.sgdnet,
                                                   models[profiles, wl][(mode, *variant)], s,
                                                   a.seed)
    rows, errs = [], {}
    for key, c in sorted(configs.items(), key=row_key):
        fname, mode, wl, world, rate, cap = key
        m = statistics.fmean(c["runs"])
        cells = []
        for variant, label in ((("fine", False), "fine"), (("coarse", False), "coarse"),
                               (("fine", True), "plain")):
            est = jobs[(key, variant)].result()
            err = (est["mean"] - m) / m
            errs.setdefault((sessions[fname], label), []).append(err)
            cells += [f"{est['mean']:.4g}", f"{err:+.1%}"]
        runs = ", ".join(f"{x:.4g}" for x in c["runs"])
        rows.append(f"| {fname.replace('.jsonl', '')} | {mode} | {wl} | {world} | {rate} | "
                    f"{'' if cap is None else f'{cap:g} MiB'} | {m:.4g} ({runs}) | " +
                    " | ".join(cells) + " |")
    return rows, errs


def write_all_models(sgdnet, configs, root, comm_from=None, ps_sync_sharing="fair",
                     knobs=(), sessions=SESSIONS):
    """The models of every (profile folder, workload) that `configs` needs, written under
    `root` as models_folder() places them; returns their paths by (profile folder, workload).
    With `comm_from`, every model takes the comm_cpu of that folder's profiles."""
    models = {}
    for profiles, wl in sorted({(sessions[k[0]], k[2]) for k in configs}):
        folder = models_folder(profiles, root)
        os.makedirs(folder, exist_ok=True)
        models[profiles, wl] = write_models(sgdnet, wl, folder, profiles, comm_from,
                                            ps_sync_sharing, knobs)
    return models


def summary(errs, sources=None, labels=("fine", "coarse", "plain"), overall=True):
    """Median, max and mean signed error per profile set and column of `labels`, then (with
    `overall`) over all sets. SOURCES pairs each measurement file with the profiles it is
    predicted from (SESSIONS' by default)."""
    sources = list(SESSIONS.items()) if sources is None else sources
    names = {"fine": "fine", "coarse": "coarse", "plain": "fine without host terms"}
    lines = []
    sets = sorted({profiles for profiles, _ in errs})
    for profiles in sets + ([None] if overall else []):
        runs = ", ".join(f for f, p in sources if profiles in (None, p))
        lines.append(f"- {'all sessions' if profiles is None else runs} "
                     f"({'every profile set' if profiles is None else profiles + '/'}):")
        for label in labels:
            err = [x for (p, l), xs in errs.items() if l == label and profiles in (None, p)
                   for x in xs]
            e = [abs(x) for x in err]
            lines.append(f"  - {names[label]}: median |error| {statistics.median(e):.1%}, max "
                         f"{max(e):.1%}, mean signed error {statistics.fmean(err):+.1%} "
                         f"({len(e)} configurations)")
    return lines


def compute_beside_ranks():
    """How much slower the DDP runs computed than their profile, beside the other ranks: rank 0's
    forward (zero_grad + forward + loss, less the buffer broadcast it sends first at the link's
    rate) and optimizer step, over the same parts of the profile of the session, as a median over
    the runs of each (session, workload, world); and that ratio over the processor sharing the
    model applies while every rank computes (max(1, world / cores)). A diagnosis of the table
    above, not an input of any model."""
    groups = {}
    for fname, profiles in SESSIONS.items():
        for r, eff in read_runs(fname):
            if r["mode"] != "ddp":
                continue
            wl = WORKLOADS[r["workload"]]
            prof = load_profile(profiles, wl)
            t = prof["totals"]
            bcast = (r["world"] - 1) * prof.get("buffer_bytes", 0) / goodput_Bps(r["bw"], eff)
            fwd = (r["rank0_fwd_s_mean"] - bcast) / (t["zero_grad_s"]["mean"] +
                                                     t["forward_s"]["mean"])
            opt = r["rank0_opt_s_mean"] / t["optimizer_s"]["mean"]
            sharing = max(1.0, r["world"] / prof["comm_probe"]["cores"])
            g = groups.setdefault((fname.replace(".jsonl", ""), wl, r["world"]), [])
            g.append((fwd, opt, sharing))
    lines = ["| set | workload | world | runs | forward / profile | over sharing | "
             "optimizer / profile | over sharing |", "|---|---|---|---|---|---|---|---|"]
    for (name, wl, world), g in sorted(groups.items()):
        fwd = statistics.median(x[0] for x in g)
        opt = statistics.median(x[1] for x in g)
        sharing = g[0][2]
        lines.append(f"| {name} | {wl} | {world} | {len(g)} | {fwd:.3f} | {fwd / sharing:.3f} | "
                     f"{opt:.3f} | {opt / sharing:.3f} |")
    return lines


def profile_against_alone():
    """The step of each profile against the world-1 DDP runs of its sitting (one rank, no
    communication): whether the machine ran the profile at the speed it ran the training. A
    diagnosis of the table above, not an input of any model."""
    groups = {}
    for fname, profiles in SESSIONS.items():
        for r, _ in read_runs(fname, alone=True):
            wl = WORKLOADS[r["workload"]]
            step = load_profile(profiles, wl)["totals"]["step_s"]["mean"]
            groups.setdefault((fname.replace(".jsonl", ""), wl, step), []).append(r["mean_step_s"])
    lines = ["| set | workload | runs at world 1 | their steps, ms | profile's step, ms | "
             "profile / runs |", "|---|---|---|---|---|---|"]
    for (name, wl, step), g in sorted(groups.items()):
        steps = ", ".join(f"{1e3 * x:.1f}" for x in g)
        lines.append(f"| {name} | {wl} | {len(g)} | {steps} | {1e3 * step:.1f} | "
                     f"{step / statistics.fmean(g):.2f} |")
    return lines


def check(a, configs):
    """The committed models are what the script writes, and the first rows of the table are
    what sgdnet predicts now (same seed, one thread: the same numbers)."""
    import filecmp
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        models = write_all_models(a.sgdnet, configs, tmp)
        for (profiles, _), paths in models.items():
            for path in paths.values():
                committed = os.path.join(models_folder(profiles), os.path.basename(path))
                if not filecmp.cmp(path, committed, shallow=False):
                    sys.exit(f"{committed} differs from what predict.py writes: re-run it")
        first = dict(sorted(configs.items(), key=row_key)[:a.check])
        rows, _ = predict_rows(a, first, models)
    text = open(os.path.join(HERE, "README.md")).read()
    for row in rows + compute_beside_ranks()[2:] + profile_against_alone()[2:]:
        if row not in text:
            sys.exit(f"README.md has no row\n{row}\nre-run predict.py")
    print(f"models up to date; {len(rows)} rows of the table, the compute and profile tables "
          "reproduced")


def comm_cpu_from(a, configs):
    """The development set (sessions 1 and 2) predicted as a user of the profiler would: each
    model's comm_cpu from the profile of its workload in a.comm_cpu_from."""
    import tempfile
    dev = development_set(configs)
    with tempfile.TemporaryDirectory() as tmp:
        models = write_all_models(a.sgdnet, dev, tmp, a.comm_cpu_from)
        _, errs = predict_rows(a, dev, models)
    for wl in sorted({k[2] for k in dev}):
        value = load_profile(a.comm_cpu_from, wl)["comm_probe"]["comm_cpu_s_per_byte"]
        print(f"{wl}: comm_cpu {value * 1e9:.3g} ns per byte-end")
    print("\n".join(summary(errs)))


def idle_share(a, configs):
    """Every session predicted with the cores of the host reduced by a.idle_share whenever
    its ranks outnumber its cores, as a scheduler that idles that share of them would (the
    probe of wake_idle.py measures one on this machine): the summary only. A diagnosis of what
    such a term would do, not a model of the table."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        models = write_all_models(a.sgdnet, configs, tmp, knobs=("idle_share",))

        def crowded(key, c):
            return {"idle_share": f"{a.idle_share:g}"} if outnumbered(key) else {}
        _, errs = predict_rows(a, configs, models, crowded)
    print("\n".join(summary(errs)))


def bracket(a, configs):
    """The sessions of BRACKETS predicted twice, from the profiles taken right before each
    workload's runs (the table's) and from those taken again right after them: each
    configuration's measured steps/s, both fine and coarse predictions and their errors, each
    workload's step and steady step in the two profiles, and the summaries. Whether the
    machine changed speed between a workload's profile and its runs shows as a spread between
    the two. A diagnosis; the table predicts from the profiles before."""
    import tempfile
    sub = {k: c for k, c in configs.items() if k[0] in BRACKETS}
    after = {f: BRACKETS[f] for f in {k[0] for k in sub}}
    with tempfile.TemporaryDirectory() as tmp:
        models = write_all_models(a.sgdnet, sub, os.path.join(tmp, "before"))
        _, errs = predict_rows(a, sub, models)
        models = write_all_models(a.sgdnet, sub, os.path.join(tmp, "after"), sessions=after)
        _, errs_after = predict_rows(a, sub, models, sessions=after)
    errs.update(errs_after)
    print("| set | mode | workload | world | link | cap | measured steps/s | fine, before | "
          "fine, after | coarse, before | coarse, after |\n|---|---|---|---|---|---|---|---|---|"
          "---|---|")
    # errs holds each profile set's rows in row_key order, which groups them by session.
    rows = sorted(sub.items(), key=row_key)
    for fname, session_rows in itertools.groupby(rows, key=lambda item: item[0][0]):
        for i, ((_, mode, wl, world, rate, cap), c) in enumerate(session_rows):
            cells = [f"{errs[profiles, label][i]:+.1%}" for label in ("fine", "coarse")
                     for profiles in (SESSIONS[fname], after[fname])]
            print(f"| {fname.replace('.jsonl', '')} | {mode} | {wl} | {world} | {rate} | "
                  f"{'' if cap is None else f'{cap:g} MiB'} | "
                  f"{statistics.fmean(c['runs']):.4g} | " + " | ".join(cells) + " |")
    print("\n| profiles | workload | step, ms | steady step, ms |\n|---|---|---|---|")
    for profiles, wl in sorted({(p[k[0]], k[2]) for k in sub for p in (SESSIONS, after)}):
        prof = load_profile(profiles, wl)
        steady = prof.get("steady_step_s")
        print(f"| {profiles} | {wl} | {1e3 * prof['totals']['step_s']['mean']:.1f} | "
              f"{'' if steady is None else f'{1e3 * steady:.1f}'} |")
    print()
    sources = [(f, p) for f in after for p in (SESSIONS[f], after[f])]
    print("\n".join(summary({k: v for k, v in errs.items() if k[1] != "plain"}, sources,
                             ("fine", "coarse"), overall=False)))
    for label in ("fine", "coarse"):
        pairs = [pair for f in sorted(after)
                 for pair in zip(errs[SESSIONS[f], label], errs[after[f], label])]
        between = sum(1 for x, y in pairs if min(x, y) <= 0 <= max(x, y))
        spread = [abs(x - y) for x, y in pairs]
        print(f"- {label}: the measurement between the two predictions in {between} of "
              f"{len(pairs)}; spread between them median {statistics.median(spread):.1%}, max "
              f"{max(spread):.1%}")


def crowded_comm_ratios():
    """Per (workload, k), the compute lost per byte-end beside k copies of the step over that
    beside one copy per core (runs/CROWDED_COMM_CPU, medians over its passes)."""
    lost, base = {}, {}
    for line in open(os.path.join(HERE, "runs", CROWDED_COMM_CPU)):
        r = json.loads(line)
        wl = WORKLOADS[r["workload"]]
        lost.setdefault((wl, r["copies"]), []).append(r["lost_s_per_byte_end"])
        base[wl] = min(base.get(wl, r["copies"]), r["copies"])
    return {(wl, k): statistics.median(v) / statistics.median(lost[wl, base[wl]])
            for (wl, k), v in lost.items()}


def crowded_comm_cpu(a, configs):
    """Every session predicted with each workload's comm_cpu scaled, wherever the ranks
    outnumber the host's cores, by crowded_comm_ratios() at that many copies (the largest
    measured for more ranks); the workloads without the check unchanged. The ratios and the
    summary only: what a comm_cpu measured beside crowded cores would do, not a model of the
    table."""
    import tempfile
    ratios = crowded_comm_ratios()
    for (wl, k), x in sorted(ratios.items()):
        print(f"{wl}: {k} copies, compute lost per byte-end x{x:.3f} of one copy per core")

    def crowded(key, c):
        wl, world = key[2:4]
        ks = [k for w, k in ratios if w == wl]
        if not ks or not outnumbered(key):
            return {}
        return {"comm_scale": f"{ratios[wl, min(world, max(ks))]:.4f}"}
    with tempfile.TemporaryDirectory() as tmp:
        models = write_all_models(a.sgdnet, configs, tmp, knobs=("comm_scale",))
        _, errs = predict_rows(a, configs, models, crowded)
    print("\n".join(summary(errs)))


def capacity_step(prof):
    """The profile as profile_model.py writes it now: its steady step comm_probe.core_step()'s,
    no slower than the cores that its own crowded windows show, and the oversubscription taken
    against that step. Profiles without the crowded probe, or whose lone step is within the
    bound, unchanged."""
    probe = prof.get("comm_probe") or {}
    crowd, steady = probe.get("crowded"), prof.get("steady_step_s")
    if not crowd or not steady:
        return prof
    terms = comm_probe.core_step_terms(crowd, crowd.get("interference_used", 0.0))
    if terms["core_step_s"] >= steady:
        return prof
    return dict(prof, steady_step_s=terms["core_step_s"],
                comm_probe=dict(probe, oversubscription=terms["oversubscription"]))


def capacity_steps(a, configs):
    """Every session predicted from profiles whose steady step is capacity_step()'s: each
    changed profile's steps, and the summary. A diagnosis of the lone step's core, not a model
    of the table."""
    global ADJUST
    import tempfile
    for profiles, wl in sorted({(SESSIONS[k[0]], k[2]) for k in configs}):
        before = read_profile(profiles, wl)
        after = capacity_step(before)
        if after is not before:
            print(f"{profiles} {wl}: steady step {before['steady_step_s'] * 1e3:.1f} -> "
                  f"{after['steady_step_s'] * 1e3:.1f} ms, oversubscription "
                  f"{before['comm_probe']['oversubscription']:.3f} -> "
                  f"{after['comm_probe']['oversubscription']:.3f}")
    ADJUST = capacity_step
    try:
        with tempfile.TemporaryDirectory() as tmp:
            models = write_all_models(a.sgdnet, configs, tmp)
            _, errs = predict_rows(a, configs, models)
    finally:
        ADJUST = None
    print("\n".join(summary(errs)))


def ps_sync_bracket(a, configs):
    """The PS sync configurations of the development set predicted by the fine model with the
    server's messages sharing its link equally (TCP's ideal), with the fan-out check's unequal
    shares (the table's models), and one at a time (`sharing = fifo`); and where the
    measurement lies between the first and the last (0 = equal shares, 1 = one at a time).
    A diagnosis, not a model."""
    import tempfile
    dev = {k: c for k, c in development_set(configs).items() if k[1] == "ps-sync"}
    print("| workload | world | link | measured steps/s | equal shares | err | share_ratio | "
          "measured shares | err | one at a time | err | position |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        est = {}
        for sharing in ("fair", "fifo"):
            models = write_all_models(a.sgdnet, dev, os.path.join(tmp, sharing),
                                      ps_sync_sharing=sharing)
            for key, c in dev.items():
                fname, mode, wl = key[:3]
                path = models[SESSIONS[fname], wl][(mode, "fine", False)]
                sets = config_sets(key, c)
                est[key, sharing] = predict(a.sgdnet, path, sets, a.seed)["mean"]
                if sharing == "fair":
                    sets["ratio"] = "1"
                    est[key, "equal"] = predict(a.sgdnet, path, sets, a.seed)["mean"]
    for key, c in sorted(dev.items(), key=row_key):
        _, _, wl, world, rate, _ = key
        m = statistics.fmean(c["runs"])
        equal, shares, fifo = est[key, "equal"], est[key, "fair"], est[key, "fifo"]
        ratio = config_sets(key, c).get("ratio", "1")
        pos = f"{(m - equal) / (fifo - equal):.2f}" if fifo - equal > 1e-3 * m else "(equal)"
        print(f"| {wl} | {world} | {rate} | {m:.4g} | {equal:.4g} | {(equal - m) / m:+.1%} | "
              f"{ratio} | {shares:.4g} | {(shares - m) / m:+.1%} | {fifo:.4g} | "
              f"{(fifo - m) / m:+.1%} | {pos} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sgdnet", default=os.path.join(ROOT, "build", "cli", "sgdnet"))
    ap.add_argument("--seed", default="1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--check", type=int, metavar="ROWS",
                    help="only check that models/ and the first ROWS rows of the table are current")
    ap.add_argument("--comm-cpu-from", metavar="FOLDER",
                    help="predict sessions 1 and 2 with the comm_cpu that the profiles of FOLDER "
                         "(e.g. profiles/comm_shape) measured, instead of the link's; prints the "
                         "summary and leaves README.md and models/ alone")
    ap.add_argument("--ps-sync-bracket", action="store_true",
                    help="predict the PS sync configurations of sessions 1 and 2 with equal, "
                         "measured and one-at-a-time sharing of the server's link; prints a "
                         "table and leaves README.md and models/ alone")
    ap.add_argument("--bracket", action="store_true",
                    help="predict the sessions profiled again after their runs (sitting.sh) "
                         "from both profile sets; prints a table and the summaries and leaves "
                         "README.md and models/ alone")
    ap.add_argument("--crowded-comm-cpu", action="store_true",
                    help="predict every session with comm_cpu scaled where the ranks outnumber "
                         "the cores by runs/crowded_comm_cpu.jsonl; prints the summary and "
                         "leaves README.md and models/ alone")
    ap.add_argument("--capacity-step", action="store_true",
                    help="predict every session from its profiles as profile_model.py writes "
                         "them now (the steady step no slower than the cores that the crowded "
                         "probe shows); prints the changed steps and the summary and leaves "
                         "README.md and models/ alone")
    ap.add_argument("--idle-share", type=float, metavar="SHARE",
                    help="predict every session with the host's cores reduced by SHARE (e.g. "
                         "0.04) wherever the ranks outnumber them; prints the summary and "
                         "leaves README.md and models/ alone")
    a = ap.parse_args()
    configs = load_configs()
    if a.check:
        return check(a, configs)
    if a.ps_sync_bracket:
        return ps_sync_bracket(a, configs)
    if a.comm_cpu_from:
        return comm_cpu_from(a, configs)
    if a.idle_share is not None:
        return idle_share(a, configs)
    if a.bracket:
        return bracket(a, configs)
    if a.capacity_step:
        return capacity_steps(a, configs)
    if a.crowded_comm_cpu:
        return crowded_comm_cpu(a, configs)
    models = write_all_models(a.sgdnet, configs, os.path.join(HERE, "models"))
    rows, errs = predict_rows(a, configs, models)
    lines = ["| set | mode | workload | world | link | cap | measured steps/s | fine | err | "
             "coarse | err | fine, no host terms | err |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows + [""]
    lines += summary(errs)
    lines += ["", "Compute beside the other ranks, in the DDP runs (`compute_beside_ranks`):", ""]
    lines += compute_beside_ranks()
    lines += ["", "Each profile against the single-rank runs of its sitting "
              "(`profile_against_alone`):", ""]
    lines += profile_against_alone()
    table = "\n".join(lines)
    print(table)
    readme = os.path.join(HERE, "README.md")
    text = open(readme).read()
    i, j = text.index(BEGIN), text.index(END)
    with open(readme, "w") as f:
        f.write(text[:i + len(BEGIN)] + "\n" + table + "\n" + text[j:])


if __name__ == "__main__":
    main()
