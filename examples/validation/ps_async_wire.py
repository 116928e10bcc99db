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

and the cycle is their sum. Prints one JSON line with the medians and the means (seconds),
the number of gradients split and the number left out, and the share of gradients whose
notice left after the last packet of the reply before it (`notice_at_reply_end`).

Usage (root; the testbed's `netns.sh up 5 1gbit`, then one run of its `launch.sh ps-async
shufflenet:build 4 1gbit LOGDIR --batch 16` while the capture runs, then `netns.sh down 5`):
  ip netns exec sgdv0 tcpdump -i eth0 -s 128 -w ps.pcap &    # stopped after the run
  tcpdump -r ps.pcap -n -tt | python3 examples/validation/ps_async_wire.py --bytes 1408168
"""

import argparse
import bisect
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
    """Per gradient, the four parts of the server's cycle (see the module's doc) with whether
    the previous reply had left when the notice did, and how many
    complete gradients were left out: the first, and those whose notice the capture does not
    show between the reply and the data (no small packet to the sender in that window)."""
    out, left_out = [], 0
    grad_first = grad_last = None   # the gradient being received
    got, sender = 0, None
    notice = {}                     # worker -> time of its last small outgoing packet
    replies = {}                    # worker -> times of the large packets sent to it
    prev_sender = None              # the worker of the previous gradient, whose reply it is
    reply_first = None              # first large outgoing packet after the last gradient
    last_done = None                # (time of the last packet of the previous gradient)
    for t, peer, way, n in pkts:
        if way == "out":
            if n <= small:
                notice[peer] = t
            else:
                replies.setdefault(peer, []).append(t)
                if last_done is not None and reply_first is None:
                    reply_first = t
            continue
        if n <= small:
            continue
        if sender is None:
            sender, grad_first, got = peer, t, 0
        if peer != sender:
            continue  # another worker's data while one gradient is in: not counted
        got += n
        grad_last = t
        if got >= nbytes:
            if last_done is not None and reply_first is not None and sender in notice:
                parts = {"work": reply_first - last_done,
                         "notice": notice[sender] - reply_first,
                         "react": grad_first - notice[sender],
                         "transfer": grad_last - grad_first}
                if parts["notice"] >= 0 and parts["react"] >= 0:
                    out.append((parts, notice[sender], prev_sender))
                else:
                    left_out += 1
            else:
                left_out += 1
            last_done, reply_first, prev_sender, sender = grad_last, None, sender, None
    ended = [reply_ended(replies.get(prev, []), tn) for _, tn, prev in out]
    return [(parts, end) for (parts, _, _), end in zip(out, ended)], left_out


def reply_ended(times, tn, gap=0.01):
    """Whether the reply whose packets are TIMES (every large packet to its worker) had sent
    its last one when the notice left at TN: none follows within GAP, longer than the spacing
    of one reply's packets and shorter than the time to that worker's next reply."""
    i = bisect.bisect_right(times, tn)
    return i == len(times) or times[i] > tn + gap


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bytes", type=int, required=True, help="a gradient's payload bytes")
    ap.add_argument("--server", default="10.77.0.1")
    ap.add_argument("--small", type=int, default=200, help="payloads up to this are notices")
    ap.add_argument("--label", default="", help="copied into the output line")
    a = ap.parse_args()
    cs, left_out = cycles(packets(sys.stdin, a.server), a.bytes, a.small)
    if not cs:
        raise SystemExit("ps_async_wire: no complete gradient in the capture")
    summary = {}
    for name, f in (("median_s", statistics.median), ("mean_s", statistics.fmean)):
        summary[name] = {k: f(c[k] for c, _ in cs) for k in cs[0][0]}
        summary[name]["cycle"] = f(sum(c.values()) for c, _ in cs)
    # the notice left after the reply's last packet: the whole reply was queued ahead of it
    at_end = sum(1 for _, ended in cs if ended) / len(cs)
    print(json.dumps({"check": "ps_async_wire", "label": a.label, "bytes": a.bytes,
                      "gradients": len(cs), "left_out": left_out, **summary,
                      "notice_at_reply_end": at_end}))


if __name__ == "__main__":
    main()
