#!/usr/bin/python3
"""The gRPC row's peer: a bare python3-grpcio client, the same work as
bench/grpc.lua (CONNS clients at once, each on a channel of its own, each
CALLS unary calls demo.Echo/Say one after the other), in one grpc.aio loop.
The message classes are generated with protoc --python_out, as
tests/tools/grpc_server.py does. With CA, over TLS, the server's certificate
checked against it.
Usage: grpcfloor.py HOST:PORT CONNS CALLS [CA]; prints "calls seconds"."""
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time

import grpc

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
tmp = tempfile.mkdtemp(prefix="grpcfloor-")
subprocess.run(["protoc", "--python_out=" + tmp, "-I" + os.path.join(ROOT, "scripts", "grpc"),
                "echo.proto"], check=True)
sys.path.insert(0, tmp)
import echo_pb2  # noqa: E402


def channel(target, ca):
    # a subchannel pool of its own: a connection per client, as quern's VUs
    opts = [("grpc.use_local_subchannel_pool", 1)]
    if ca is None:
        return grpc.aio.insecure_channel(target, options=opts)
    with open(ca, "rb") as f:
        return grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(f.read()), options=opts)


async def one(target, n, ca):
    async with channel(target, ca) as ch:
        say = ch.unary_unary("/demo.Echo/Say", request_serializer=echo_pb2.Hello.SerializeToString,
                             response_deserializer=echo_pb2.Reply.FromString)
        for i in range(1, n + 1):
            r = await say(echo_pb2.Hello(name="b", times=i))
            assert r.text == "hello b"
    return n


async def main():
    target, conns, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    ca = sys.argv[4] if len(sys.argv) > 4 else None
    t0 = time.monotonic()
    done = await asyncio.gather(*(one(target, n, ca) for _ in range(conns)))
    print(sum(done), "%.3f" % (time.monotonic() - t0))


try:
    asyncio.run(main())
finally:
    shutil.rmtree(tmp, ignore_errors=True)
