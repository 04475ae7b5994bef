#!/usr/bin/python3
"""The WebSocket row's peer: a bare python3-websockets client loop, the same
work as bench/ws.lua (CONNS connections at once, each ROUND_TRIPS round trips
of a 32-byte text message, then a close), in one asyncio loop.
Usage: wsfloor.py URL CONNS ROUND_TRIPS; prints "round_trips seconds"."""
import asyncio
import sys
import time

import websockets


async def one(url, n):
    msg = "x" * 32
    async with websockets.connect(url, ping_interval=None) as ws:
        for _ in range(n):
            await ws.send(msg)
            assert await ws.recv() == msg
    return n


async def main():
    url, conns, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    t0 = time.monotonic()
    done = await asyncio.gather(*(one(url, n) for _ in range(conns)))
    print(sum(done), "%.3f" % (time.monotonic() - t0))


asyncio.run(main())
