#!/usr/bin/env python3
"""Checks the profiler's emulated link (examples/profiling/comm_probe.shaped_link) and its rate parser.

As root with iproute2 it checks the link itself: two namespaces, a veth pair, a tbf on each
end, a working TCP path, and nothing left behind, also after a failure. Exits 77 (skipped)
when namespaces cannot be made here; the rate parser is checked first in any case."""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "examples", "profiling"))
import comm_probe  # noqa: E402

SKIP = 77
NAMES = ("sgdnet-test-a", "sgdnet-test-b")


def check(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")


def namespaces():
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def main():
    check(comm_probe.tc_rate_bits("400mbit") == 4e8, "400mbit is 4e8 bit/s")
    check(comm_probe.tc_rate_bits("1gbit") == 1e9, "1gbit is 1e9 bit/s")
    check(comm_probe.tc_rate_bits("2.5gbit") == 2.5e9, "2.5gbit is 2.5e9 bit/s")
    check(comm_probe.tc_rate_bits("512kbit") == 5.12e5, "512kbit")
    for bad in ("1 gbit", "1gbps", "fast", ""):
        try:
            comm_probe.tc_rate_bits(bad)
            check(False, f"{bad!r} is refused")
        except ValueError as e:
            check("kbit, mbit or gbit" in str(e), f"the error for {bad!r} says what is expected")

    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("tc"):
        print("shaped_link: not root or no iproute2; the link itself is not checked")
        return SKIP
    probe = subprocess.run(["ip", "netns", "add", "sgdnet-test-probe"], capture_output=True)
    if probe.returncode != 0:
        print("shaped_link: this machine cannot make network namespaces; not checked")
        return SKIP
    subprocess.run(["ip", "netns", "del", "sgdnet-test-probe"], check=True)

    before = namespaces()
    with comm_probe.shaped_link("2gbit", names=NAMES, subnet="10.214.7") as (names, rank0):
        check(list(names) == list(NAMES) and rank0 == "10.214.7.1", "names and address")
        check(set(NAMES) <= namespaces(), "both namespaces exist inside the block")
        for ns in NAMES:
            qdisc = subprocess.run(["tc", "-n", ns, "qdisc", "show", "dev", "eth0"],
                                   capture_output=True, text=True, check=True).stdout
            check("tbf" in qdisc and "rate 2Gbit" in qdisc, f"{ns}: tbf at 2gbit ({qdisc!r})")
            # 4 ms of 2 Gbit/s is 1,000,000 bytes, above the 128 KiB floor.
            m = re.search(r"burst (\d+)(Kb|Mb|b)", qdisc)
            check(m is not None, f"{ns}: a burst is shown")
            scale = {"b": 1, "Kb": 1024, "Mb": 1024 * 1024}[m.group(2)]
            check(abs(int(m.group(1)) * scale - 1_000_000) <= 1024, f"{ns}: burst {m.group(0)}")
        # A TCP connection from the second namespace to rank 0's address in the first.
        server = subprocess.Popen(
            ["ip", "netns", "exec", NAMES[0], sys.executable, "-c",
             "import socket; s = socket.create_server(('10.214.7.1', 29711)); print('up', "
             "flush=True); c, _ = s.accept(); c.sendall(c.recv(5) * 2)"],
            stdout=subprocess.PIPE, text=True)
        check(server.stdout.readline().strip() == "up", "a server listens in the first")
        reply = subprocess.run(
            ["ip", "netns", "exec", NAMES[1], sys.executable, "-c",
             "import socket; c = socket.create_connection(('10.214.7.1', 29711), timeout=5); "
             "c.sendall(b'hello'); print(c.recv(10).decode())"],
            capture_output=True, text=True, timeout=20)
        server.wait(timeout=20)
        check(reply.stdout.strip() == "hellohello", f"TCP through the link ({reply.stderr})")
    check(namespaces() == before, "both namespaces are gone after the block")

    # A failing step (a rate tc refuses) raises, and still leaves nothing behind.
    try:
        with comm_probe.shaped_link("0kbit", names=NAMES, subnet="10.214.7"):
            check(False, "a 0kbit link is refused by tc")
    except RuntimeError as e:
        check("cannot emulate a 0kbit link" in str(e), f"the error names the link ({e})")
    check(namespaces() == before, "nothing is left behind after a failure")
    print("shaped_link: parser, link and clean-up checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
