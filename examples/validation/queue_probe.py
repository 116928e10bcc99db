#!/usr/bin/env python3
"""How long a small message waits behind a large one just written, on the testbed's link.

Rank 0 writes S bytes to rank 1 over one TCP connection, as a parameter server writes its
reply, then at once sends one byte to rank 2 over another, as gloo's receiver tells a sender
that it may send; rank 2 answers at once. The small round trip with the large write ahead of
it, less the same round trip alone, is how long the small message queued behind the large
one in rank 0's link. One JSON line with the medians over the rounds.

Usage (root, the testbed's namespaces up for three ranks, e.g. `netns.sh up 3 750mbit`; rank
0 runs in the first namespace, the script starts the other two):
  ip netns exec sgdv0 python3 examples/validation/queue_probe.py --bytes 1408168 \
      --rate 750mbit --rounds 20
"""

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time

PORT_BULK, PORT_ECHO = 29741, 29742


def sink(addr):
    s = socket.create_server((addr, PORT_BULK))
    c, _ = s.accept()
    while c.recv(1 << 20):
        pass


def echo(addr):
    s = socket.create_server((addr, PORT_ECHO))
    c, _ = s.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while True:
        b = c.recv(1)
        if not b:
            return
        c.sendall(b)


def connect(addr, port):
    for _ in range(100):
        try:
            return socket.create_connection((addr, port))
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"queue_probe: cannot connect to {addr}:{port}")


def small_round_trip(c):
    t0 = time.perf_counter()
    c.sendall(b"x")
    c.recv(1)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bytes", type=int, default=1408168)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--rate", help="the link's rate as the testbed names it, for the output")
    ap.add_argument("--idle", type=float, default=0.3,
                    help="seconds between a large write and the next round; above the TCP "
                         "retransmission timeout (0.2 s) the connection restarts slowly")
    ap.add_argument("--netns-prefix", default="sgdv")
    ap.add_argument("--role", choices=["sink", "echo"], help=argparse.SUPPRESS)
    ap.add_argument("--addr", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.role == "sink":
        return sink(a.addr)
    if a.role == "echo":
        return echo(a.addr)
    me = [sys.executable, __file__]
    peers = [subprocess.Popen(["ip", "netns", "exec", f"{a.netns_prefix}{i}", *me, "--role",
                               role, "--addr", f"10.77.0.{i + 1}"])
             for i, role in ((1, "sink"), (2, "echo"))]
    bulk = connect("10.77.0.2", PORT_BULK)
    # as gloo sizes a socket's send buffer to the message, so that one write takes it all
    bulk.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, a.bytes)
    small = connect("10.77.0.3", PORT_ECHO)
    small.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    payload = bytes(a.bytes)
    alone, behind, write_s = [], [], []
    for _ in range(a.rounds + 2):  # the first two warm the connections
        time.sleep(a.idle)  # the large write of the last round has left
        alone.append(small_round_trip(small))
        time.sleep(0.01)
        t0 = time.perf_counter()
        bulk.sendall(payload)
        write_s.append(time.perf_counter() - t0)
        behind.append(small_round_trip(small))
    alone, behind, write_s = alone[2:], behind[2:], write_s[2:]
    bulk.close()
    small.close()
    for p in peers:
        p.wait(timeout=30)
    rec = {"check": "queue_probe", "rate": a.rate, "bytes": a.bytes, "rounds": a.rounds,
           "idle_s": a.idle,
           "round_trip_alone_s": statistics.median(alone),
           "round_trip_behind_s": statistics.median(behind),
           "wait_behind_s": statistics.median(behind) - statistics.median(alone),
           "write_s": statistics.median(write_s),
           "rounds_wait_behind_s": [b - statistics.median(alone) for b in behind]}
    print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
