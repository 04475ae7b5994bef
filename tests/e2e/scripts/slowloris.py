#!/usr/bin/env python3
"""Slow clients for tests/e2e/slowloris.sh: from each source address, N
connections to each port that send a request line, then one header line
every INTERVAL seconds and never the blank line that would end the headers.

usage: slowloris.py OUT PORTS N INTERVAL SECONDS ADDR...
Writes OUT.ready (JSON) one second after opening, then OUT (JSON) when
SECONDS have passed: per port, the connections still open one second after
opening (those the server accepted and kept), still open at 5 s, and for
each kept connection the seconds from its opening until the server closed
it (null: still open at the end)."""
import json
import select
import socket
import sys
import time

out, ports, n, interval, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
addrs = sys.argv[6:]
ports = [int(p) for p in ports.split(",")]
conns = []  # dicts: sock, port, addr, opened, closed
t0 = time.monotonic()
for port in ports:
    for addr in addrs:
        for _ in range(n):
            s = socket.socket()
            s.bind((addr, 0))
            s.settimeout(2)
            c = {"sock": s, "port": port, "addr": addr, "opened": time.monotonic(), "closed": None}
            try:
                s.connect(("127.0.0.1", port))
                s.sendall(b"GET /state.json HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)
            except OSError:
                c["closed"] = time.monotonic()
            s.setblocking(False)
            conns.append(c)


def poll(until):
    """Notes each connection the server closes, until the monotonic time until."""
    while True:
        left = until - time.monotonic()
        if left <= 0:
            return
        live = [c["sock"] for c in conns if c["closed"] is None]
        if not live:
            time.sleep(left)
            return
        r, _, _ = select.select(live, [], [], min(left, 0.1))
        for c in conns:
            if c["sock"] in r and c["closed"] is None:
                try:
                    data = c["sock"].recv(4096)
                except OSError:
                    data = b""
                if not data:
                    c["closed"] = time.monotonic()
                else:
                    c.setdefault("answered", 0)
                    c["answered"] += 1


def dribble():
    for c in conns:
        if c["closed"] is None:
            try:
                c["sock"].send(b"X-Slow: a\r\n")
            except OSError:
                c["closed"] = time.monotonic()


def counts(at):
    res = {}
    for port in ports:
        res[str(port)] = sum(1 for c in conns if c["port"] == port and (c["closed"] is None or c["closed"] - c["opened"] > at))
    return res


poll(t0 + 1)
kept = [c for c in conns if c["closed"] is None]
per_addr = {a: sum(1 for c in kept if c["addr"] == a and c["port"] == ports[0]) for a in addrs}
with open(out + ".ready.tmp", "w") as f:
    json.dump({"kept": counts(0.9), "kept_per_addr": per_addr}, f)
import os
os.rename(out + ".ready.tmp", out + ".ready")
next_send = t0 + interval
while time.monotonic() < t0 + seconds:
    poll(min(next_send, t0 + seconds))
    if time.monotonic() >= next_send:
        dribble()
        next_send += interval
res = {
    "kept": counts(0.9),
    "kept_per_addr": per_addr,
    "open_at_5s": {p: sum(1 for c in kept if c["port"] == int(p) and (c["closed"] is None or c["closed"] - c["opened"] > 5)) for p in map(str, ports)},
    "closed_after_s": [None if c["closed"] is None else round(c["closed"] - c["opened"], 2) for c in kept],
    "answered": sum(c.get("answered", 0) for c in conns),
}
with open(out, "w") as f:
    json.dump(res, f)
for c in conns:
    c["sock"].close()
