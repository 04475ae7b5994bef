#!/usr/bin/python3
"""The gRPC row's peer: a bare python3-grpcio client, the same work as
bench/grpc.lua (CONNS clients at once, each on a channel of its own, each
CALLS unary calls demo.Echo/Say one after the other), in one grpc.aio loop.
The message classes are generated with protoc --python_out, as
tests/tools/grpc_server.py does.
Usage: grpcfloor.py HOST:PORT CONNS CALLS; prints "calls seconds"."""
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


async def one(target, n):
    # a subchannel pool of its own: a connection per client, as quern's VUs
    async with grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) as ch:
        say = ch.unary_unary("/demo.Echo/Say", request_serializer=echo_pb2.Hello.SerializeToString,
                             response_deserializer=echo_pb2.Reply.FromString)
        for i in range(1, n + 1):
            r = await say(echo_pb2.Hello(name="b", times=i))
            assert r.text == "hello b"
    return n


async def main():
    target, conns, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    t0 = time.monotonic()
    done = await asyncio.gather(*(one(target, n) for _ in range(conns)))
    print(sum(done), "%.3f" % (time.monotonic() - t0))


try:
    asyncio.run(main())
finally:
    shutil.rmtree(tmp, ignore_errors=True)
