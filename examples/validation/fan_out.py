#!/usr/bin/env python3
"""Times how one rank's messages to several others, sent at once, share its link.

Rank 0 `isend`s S bytes to every other rank at the same moment, as the PS sync server of the
testbed sends the parameters; each receiver notes when its message has arrived, measured from
the moment rank 0 sent (the ranks share one machine and its monotonic clock). With fair
sharing every message arrives at about (world - 1) S / rate; one at a time, the k-th arrives
at k S / rate. Rank 0 prints one JSON line per round: the arrival times in seconds, sorted,
and the link's rate as --rate names it. The first arrival over the last is what
`predict.py` turns into the PS sync models' `share_ratio` (docs/language.md §5.1).

Usage (root, the testbed's namespaces up, e.g. its `netns.sh up 4 400mbit`):
  python3 examples/validation/fan_out.py --world 4 --bytes 5245760 --rounds 10 --rate 400mbit
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time


def rank_main(rank, world, port, nbytes, rounds, addr, rate):
    import torch
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method=f"tcp://{addr}:{port}", rank=rank,
                            world_size=world)
    buf = torch.zeros(nbytes // 4)
    for _ in range(rounds):
        dist.barrier()
        time.sleep(0.2)  # let the link's token bucket refill
        start = torch.tensor([time.monotonic()], dtype=torch.float64)
        dist.broadcast(start, 0)
        if rank == 0:
            for req in [dist.isend(buf, w) for w in range(1, world)]:
                req.wait()
            arrived = torch.zeros(1, dtype=torch.float64)
        else:
            dist.recv(buf, 0)
            arrived = torch.tensor([time.monotonic() - start.item()], dtype=torch.float64)
        times = [torch.zeros(1, dtype=torch.float64) for _ in range(world)]
        dist.all_gather(times, arrived)
        if rank == 0:
            print(json.dumps({"rate": rate, "bytes": nbytes, "receivers": world - 1,
                              "arrived_s": sorted(float(t) for t in times[1:])}), flush=True)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", type=int, default=4, help="ranks, the sender included")
    ap.add_argument("--bytes", type=int, default=5245760)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--addr", default="10.77.0.1", help="rank 0's address")
    ap.add_argument("--rate", help="the link's rate, as the testbed names it (400mbit), for the "
                                   "output lines")
    ap.add_argument("--netns-prefix", default="sgdv", help="rank i runs in namespace PREFIXi")
    ap.add_argument("--rank", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, default=random.randint(20000, 39999))
    a = ap.parse_args()
    if a.rank is not None:
        return rank_main(a.rank, a.world, a.port, a.bytes, a.rounds, a.addr, a.rate)
    procs = []
    for i in range(a.world):
        cmd = ["ip", "netns", "exec", f"{a.netns_prefix}{i}", "env", "GLOO_SOCKET_IFNAME=eth0",
               "OMP_NUM_THREADS=1", sys.executable, os.path.abspath(__file__), "--rank", str(i),
               "--world", str(a.world), "--port", str(a.port), "--bytes", str(a.bytes),
               "--rounds", str(a.rounds), "--addr", a.addr] + (["--rate", a.rate] if a.rate else [])
        procs.append(subprocess.Popen(cmd))
    codes = [p.wait(timeout=300) for p in procs]
    if any(codes):
        sys.exit(f"a rank failed: exit codes {codes}")


if __name__ == "__main__":
    main()
