#!/usr/bin/python3
"""A WebSocket server for tests/e2e/ws.sh, on python3-websockets (asyncio API, 10.4).

Paths:
  /echo          echoes each message, text as text and binary as binary
  /push?n=N      sends N text messages "push 1" .. "push N", then echoes
  /hold          pings every 0.1 s and closes with 1011 if a pong is 0.5 s late
  /bye           closes at once with 4000 (its close is counted as 4000 too)
  /cookie        echoes; its 101 sets the cookie WSC=from-101 (Path=/), and the
                 Cookie header of its upgrade request is kept ("" when none)
  /__stats       (plain HTTP) the server's own counts, JSON
anything else is refused with 404.

Counts: handshakes (101 sent), refused (404 sent), received, sent, bytes
received and sent (payloads), pings and pongs (/hold), ping_timeouts,
closes by close code (what the client's close frame said; 1006: none), and
the connections open now and at most at once (open, open_max), and the
Cookie headers /cookie's upgrade requests carried, in order (cookies).
Usage: ws_server.py PORT_FILE [CERT KEY]: binds 127.0.0.1:0, writes its port."""
import asyncio
import http
import json
import signal
import ssl
import sys
import urllib.parse

import websockets

counts = {"handshakes": 0, "refused": 0, "received": 0, "sent": 0, "bytes_received": 0,
          "bytes_sent": 0, "pings": 0, "pongs": 0, "ping_timeouts": 0, "closes": {},
          "open": 0, "open_max": 0, "cookies": []}


def process_request(path, headers):
    route = urllib.parse.urlparse(path).path
    if route == "/__stats":
        return http.HTTPStatus.OK, [("Content-Type", "application/json")], \
            json.dumps(counts).encode()
    if route == "/cookie":
        counts["cookies"].append(headers.get("Cookie", ""))
    if route not in ("/echo", "/push", "/hold", "/bye", "/cookie"):
        counts["refused"] += 1
        return http.HTTPStatus.NOT_FOUND, [], b"no such WebSocket\n"
    return None


def extra_headers(path, headers):
    if urllib.parse.urlparse(path).path == "/cookie":
        return [("Set-Cookie", "WSC=from-101; Path=/")]
    return []


async def send(ws, msg):
    await ws.send(msg)
    counts["sent"] += 1
    counts["bytes_sent"] += len(msg)


async def pinger(ws):
    while True:
        await asyncio.sleep(0.1)
        waiter = await ws.ping()
        counts["pings"] += 1
        try:
            await asyncio.wait_for(waiter, 0.5)
        except asyncio.TimeoutError:
            counts["ping_timeouts"] += 1
            await ws.close(1011, "pong timeout")
            return
        counts["pongs"] += 1


async def handler(ws, path):
    url = urllib.parse.urlparse(path)
    counts["handshakes"] += 1
    counts["open"] += 1
    counts["open_max"] = max(counts["open_max"], counts["open"])
    task = None
    try:
        if url.path == "/push":
            n = int(urllib.parse.parse_qs(url.query).get("n", ["3"])[0])
            for i in range(1, n + 1):
                await send(ws, "push %d" % i)
        if url.path == "/hold":
            task = asyncio.ensure_future(pinger(ws))
        if url.path == "/bye":
            await ws.close(4000, "bye")
        async for msg in ws:
            counts["received"] += 1
            counts["bytes_received"] += len(msg)
            await send(ws, msg)
    except websockets.ConnectionClosed:
        pass
    finally:
        if task is not None:
            task.cancel()
        await ws.wait_closed()
        counts["open"] -= 1
        code = str(ws.close_code if ws.close_code is not None else 1006)
        counts["closes"][code] = counts["closes"].get(code, 0) + 1


async def main():
    tls = None
    if len(sys.argv) > 3:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(sys.argv[2], sys.argv[3])
    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    # keepalive pings off: /hold pings on its own, with its own counts
    async with websockets.serve(handler, "127.0.0.1", 0, process_request=process_request, backlog=4096,
                                extra_headers=extra_headers,
                                ping_interval=None, ssl=tls, max_size=1 << 24) as server:
        port = server.sockets[0].getsockname()[1]
        with open(sys.argv[1] + ".tmp", "w") as f:
            f.write("%d\n" % port)
        import os
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
        await stop
    print(json.dumps(counts), flush=True)


asyncio.run(main())
