#!/usr/bin/env python3
"""Checks comm_probe.core_step and predict.capacity_step against values worked out by hand.

The profiler's step on one core, the oversubscription taken against it, and predict.py's
rewrite of an older profile with them, for two cores."""

import os
import statistics
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "examples", "validation"))
sys.path.insert(0, os.path.join(sys.argv[1], "examples", "profiling"))
import comm_probe  # noqa: E402
import predict  # noqa: E402
from server_pause_test import check, close  # noqa: E402  (this folder's)


def crowd(x3, x4, lone=(0.2, 0.2)):
    return {"slots": 2, "lone_step_s": statistics.median(lone), "rounds_lone_step_s": list(lone),
            "copies": {"3": {"rounds_x_alone": list(x3)}, "4": {"rounds_x_alone": list(x4)}}}


def main():
    a = 0.1  # two cores side by side: each 1.1 times slower
    # Three copies at 1.65 and four at 2.2 times the lone step are exactly processor sharing
    # (1.5·1.1 and 2·1.1): the lone step is a core's, no oversubscription.
    c = crowd([1.65, 1.65], [2.2, 2.2])
    check(close(comm_probe.core_step(c, a), 0.2), "sharing exactly: the lone step")
    check(close(comm_probe.oversubscription_of(c, a, 0.2)["oversubscription"], 0.0),
          "sharing exactly: no oversubscription")
    # Slower than sharing (three copies 1.98 = 1.65·1.2): o = 0.2·3/1 = 0.6 at k = 3; four at
    # 2.42 = 2.2·1.1: o = 0.1·4/2 = 0.2; the median over the four rounds 0.4. The lone step
    # stays (the bounds 0.24 and 0.22 are above it).
    c = crowd([1.98, 1.98], [2.42, 2.42])
    check(close(comm_probe.core_step(c, a), 0.2), "crowding slower: the lone step")
    check(close(comm_probe.oversubscription_of(c, a, 0.2)["oversubscription"], 0.4),
          "crowding slower: o the median of 0.6, 0.6, 0.2, 0.2")
    # A lone copy on a slow core: three copies at 1.32 and four at 1.76 times it, 0.8 of
    # sharing. Each window bounds a core's step by 0.2·0.8 = 0.16 s; against it the crowded
    # windows are sharing exactly, so no oversubscription (0.2 s and the ratios as measured
    # would give o < 0, reported 0).
    c = crowd([1.32, 1.32], [1.76, 1.76])
    check(close(comm_probe.core_step(c, a), 0.16), "slow lone core: the bound 0.16 s")
    check(close(comm_probe.oversubscription_of(c, a, 0.16)["oversubscription"], 0.0),
          "slow lone core: no oversubscription against the bound")
    # Rounds differ: the lone windows 0.2 and 0.3 s, each crowded window at sharing with a
    # 0.16 s core (0.16·1.65 = 0.264 s for three copies, 0.352 s for four). The bounds are all
    # 0.16 s; the lone median 0.25 s.
    c = crowd([0.264 / 0.2, 0.264 / 0.3], [0.352 / 0.2, 0.352 / 0.3], lone=(0.2, 0.3))
    check(close(c["lone_step_s"], 0.25), "the lone median")
    check(close(comm_probe.core_step(c, a), 0.16), "per round: the bound 0.16 s")
    check(abs(comm_probe.oversubscription_of(c, a, 0.16)["oversubscription"]) < 1e-12,
          "per round: every crowded window against the bound, no oversubscription")

    # predict.capacity_step rewrites an older profile's steady step and oversubscription
    # as the profiler writes them now, and leaves one within the bound alone.
    c = crowd([1.32, 1.32], [1.76, 1.76])
    c["interference_used"] = a
    prof = {"steady_step_s": 0.2, "comm_probe": {"oversubscription": 0.0, "crowded": c}}
    got = predict.capacity_step(prof)
    check(close(got["steady_step_s"], 0.16), f"the rewritten steady step: {got['steady_step_s']}")
    check(close(got["comm_probe"]["oversubscription"], 0.0), "the rewritten oversubscription")
    check(prof["steady_step_s"] == 0.2, "the profile read is not changed in place")
    c = crowd([1.98, 1.98], [2.42, 2.42])
    c["interference_used"] = a
    prof = {"steady_step_s": 0.2, "comm_probe": {"oversubscription": 0.4, "crowded": c}}
    check(predict.capacity_step(prof) is prof, "within the bound: the profile as it is")
    print("core_step: all checks passed")


if __name__ == "__main__":
    main()
