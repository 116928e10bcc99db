#!/usr/bin/env python3
"""How long a thread that wakes for a message waits for a core while busy processes crowd it.

Two processes bounce a 1-byte message over a loopback TCP connection while k processes spin,
for each k of --busy.

Each round trip is two wake-ups (the other end wakes for the message, then this end for the
answer), so the wait per wake-up is (round trip with k busy - round trip with none) / 2. The
result line gives, per k, the median and mean round trip and that wait. A check of the
scheduler on one node (examples/validation/README.md), not a profile field.
"""
import argparse
import json
import multiprocessing as mp
import os
import socket
import statistics
import time


def spin(stop):
    while not stop.is_set():
        for _ in range(10000):
            pass


def echo(port, ready):
    srv = socket.create_server(("127.0.0.1", port))
    ready.set()
    conn, _ = srv.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while True:
        b = conn.recv(1)
        if not b or b == b"q":
            return
        conn.sendall(b)


def round_trips(port, n, gap_s):
    c = socket.create_connection(("127.0.0.1", port))
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    out = []
    for _ in range(n):
        time.sleep(gap_s)  # both ends asleep before each message, as between training steps
        t0 = time.perf_counter()
        c.sendall(b"x")
        c.recv(1)
        out.append(time.perf_counter() - t0)
    c.sendall(b"q")
    c.close()
    return out


def measure(k, n, gap_s, port):
    stop = mp.Event()
    spinners = [mp.Process(target=spin, args=(stop,)) for _ in range(k)]
    for p in spinners:
        p.start()
    ready = mp.Event()
    e = mp.Process(target=echo, args=(port, ready))
    e.start()
    ready.wait()
    time.sleep(0.5)  # let the spinners settle on the cores
    rtt = round_trips(port, n, gap_s)
    stop.set()
    for p in spinners + [e]:
        p.join()
    return rtt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--busy", default="0,1,2,3,4", help="the values of k, starting with 0")
    ap.add_argument("--round-trips", type=int, default=2000)
    ap.add_argument("--gap", type=float, default=0.002, help="seconds asleep before each")
    ap.add_argument("--port", type=int, default=29731)
    ap.add_argument("--json", help="append the result as one JSON line to this file")
    a = ap.parse_args()
    ks = [int(x) for x in a.busy.split(",")]
    res = {}
    for i, k in enumerate(ks):
        rtt = measure(k, a.round_trips, a.gap, a.port + i)
        res[k] = {"median_s": statistics.median(rtt), "mean_s": statistics.fmean(rtt)}
    base = res[ks[0]]["mean_s"]
    for k in ks:
        res[k]["wait_per_wakeup_s"] = (res[k]["mean_s"] - base) / 2
        print(f"k = {k}: round trip median {res[k]['median_s'] * 1e6:8.1f} us, mean "
              f"{res[k]['mean_s'] * 1e6:8.1f} us; wait per wake-up "
              f"{res[k]['wait_per_wakeup_s'] * 1e6:8.1f} us")
    if a.json:
        record = {"check": "wakeup_probe", "cores": os.cpu_count(), "gap_s": a.gap,
                  "round_trips": a.round_trips, "busy": {str(k): v for k, v in res.items()},
                  "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
        with open(a.json, "a") as f:
            f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
