#!/usr/bin/env python3
"""Splits a PS async server's cycle by the packets on its link, from a capture of the testbed.

Input: the text of `tcpdump -r CAPTURE -n -tt` for a capture taken on the server's interface
(`ip netns exec sgdv0 tcpdump -i eth0 -s 128 -w CAPTURE`) while the testbed's PS async runs.
Each gradient is one burst of payload from a worker to the server; before it, the server
sends that worker gloo's small "ready to receive" notice, and after the previous gradient
it sends the previous worker its reply. Per gradient k, with times as the capture saw them
(outgoing packets when they leave the link's queue, incoming ones when they arrive):

  work    = first packet of reply k-1  - last packet of gradient k-1  (the server's work)
  notice  = notice for gradient k      - first packet of reply k-1    (the notice's wait)
  react   = first packet of gradient k - notice for gradient k        (the worker's reply)
  transfer= last packet of gradient k  - first packet of gradient k

and the cycle is their sum. Prints one JSON line with the medians (seconds) and the count.

Usage (root; the testbed's `netns.sh up 5 1gbit`, then one run of its `launch.sh ps-async
shufflenet:build 4 1gbit LOGDIR --batch 16` while the capture runs, then `netns.sh down 5`):
  ip netns exec sgdv0 tcpdump -i eth0 -s 128 -w ps.pcap &    # stopped after the run
  tcpdump -r ps.pcap -n -tt | python3 examples/validation/ps_async_wire.py --bytes 1408168
"""

import argparse
import json
import re
import statistics
import sys

LINE = re.compile(r"^(\d+\.\d+) IP (\d+\.\d+\.\d+\.\d+)\.(\d+) > (\d+\.\d+\.\d+\.\d+)\.(\d+):"
                  r".* length (\d+)")


def packets(lines, server):
    """(time, worker address, 'in' or 'out', payload bytes) of every packet with payload."""
    for line in lines:
        m = LINE.match(line)
        if not m or int(m.group(6)) == 0:
            continue
        t, src, dst, n = float(m.group(1)), m.group(2), m.group(4), int(m.group(6))
        if src == server:
            yield t, dst, "out", n
        elif dst == server:
            yield t, src, "in", n


def cycles(pkts, nbytes, small):
    """Per gradient, the four parts of the server's cycle (see the module's doc)."""
    out = []
    grad_first = grad_last = None   # the gradient being received
    got, sender = 0, None
    notice = {}                     # worker -> time of its last small outgoing packet
    reply_first = None              # first large outgoing packet after the last gradient
    last_done = None                # (time of the last packet of the previous gradient)
    for t, peer, way, n in pkts:
        if way == "out":
            if n <= small:
                notice[peer] = t
            elif last_done is not None and reply_first is None:
                reply_first = t
            continue
        if n <= small:
            continue
        if sender is None:
            sender, grad_first, got = peer, t, 0
        if peer != sender:
            continue  # another worker's data while one gradient is in (does not happen)
        got += n
        grad_last = t
        if got >= nbytes:
            if last_done is not None and reply_first is not None and sender in notice:
                parts = {"work": reply_first - last_done,
                         "notice": notice[sender] - reply_first,
                         "react": grad_first - notice[sender],
                         "transfer": grad_last - grad_first}
                if parts["notice"] >= 0 and parts["react"] >= 0:
                    out.append(parts)
            last_done, reply_first, sender = grad_last, None, None
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bytes", type=int, required=True, help="a gradient's payload bytes")
    ap.add_argument("--server", default="10.77.0.1")
    ap.add_argument("--small", type=int, default=200, help="payloads up to this are notices")
    ap.add_argument("--label", default="", help="copied into the output line")
    a = ap.parse_args()
    cs = cycles(packets(sys.stdin, a.server), a.bytes, a.small)
    if not cs:
        raise SystemExit("ps_async_wire: no complete gradient in the capture")
    med = {k: statistics.median(c[k] for c in cs) for k in cs[0]}
    med["cycle"] = statistics.median(sum(c.values()) for c in cs)
    print(json.dumps({"check": "ps_async_wire", "label": a.label, "bytes": a.bytes,
                      "gradients": len(cs), "median_s": med}))


if __name__ == "__main__":
    main()
