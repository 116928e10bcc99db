#!/usr/bin/env python3
"""Checks how examples/validation/predict.py sets a parameter server's work after a pause: the curve, its interpolation and the pause of each scheme, against values worked out by hand."""

import math
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "examples", "validation"))
import predict  # noqa: E402


def check(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


def main():
    # Linear between the points, the last point beyond them, the first at a pause of 0.
    curve = [(0.0, 0.002), (0.01, 0.003), (0.02, 0.005)]
    check(close(predict.work_after(curve, 0.0), 0.002), "no pause: the work back to back")
    check(close(predict.work_after(curve, 0.005), 0.0025), "halfway to 10 ms: 2.5 ms")
    check(close(predict.work_after(curve, 0.015), 0.004), "halfway from 10 to 20 ms: 4 ms")
    check(close(predict.work_after(curve, 0.02), 0.005), "at the last point")
    check(close(predict.work_after(curve, 0.3), 0.005), "beyond the last point: the last")

    # The curve of a profile: (0, server_update_s) first, then its points by pause.
    profile = {
        "server_update_s": {"mean": 0.002, "std": 0.0001, "n": 30},
        "server_update_after_pause": {"busy_copies": 1, "threads": 1, "pauses": [
            {"pause_s": 0.02, "mean": 0.004, "std": 0.0002, "n": 30},
            {"pause_s": 0.005, "mean": 0.0025, "std": 0.0001, "n": 30}]},
        "total_param_bytes": 1_000_000,
        "totals": {"step_s": {"mean": 0.05}, "optimizer_s": {"mean": 0.01}},
    }
    got = predict.pause_curve(profile, "none")
    check(got == [(0.0, 0.002), (0.005, 0.0025), (0.02, 0.004)], f"the profile's curve: {got}")

    # The pause: one gradient's transfer (PS async); compute + 2N transfers (PS sync).
    goodput = 1e8  # bytes/s: a 1 MB gradient takes 10 ms
    check(close(predict.server_pause(profile, "ps-async", 3, goodput), 0.01),
          "PS async waits one transfer, 10 ms")
    check(close(predict.server_pause(profile, "ps-sync", 3, goodput), 0.04 + 2 * 3 * 0.01),
          "PS sync waits the compute (step less optimizer, 40 ms) and 6 transfers: 100 ms")
    check(close(predict.work_after(got, predict.server_pause(profile, "ps-async", 3, goodput)),
                0.0025 + (0.004 - 0.0025) * (0.01 - 0.005) / (0.02 - 0.005)),
          "PS async at 10 ms: a third of the way from 5 to 20 ms")

    # Without the back-to-back measurement there is no curve (the model keeps its update).
    check(predict.pause_curve({"totals": {}}, "no-such-workload") is None, "no curve")
    print("server pause: all checks passed")


if __name__ == "__main__":
    main()
