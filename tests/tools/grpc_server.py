#!/usr/bin/python3
"""A gRPC server for tests/e2e/grpc.sh, on python3-grpcio (Debian 1.51).

The message classes are generated at start with protoc --python_out into a
temporary folder; handlers are registered with method_handlers_generic_handler,
so no grpc_tools plugin is needed.

Methods (scripts/grpc/echo.proto's demo.Echo, and qt.Types of
tests/e2e/scripts/grpc/types.proto):
  demo.Echo/Say    a Reply "hello NAME" with the call's metadata (x-* keys)
                   in it and echoed as trailers (echo-KEY); -bin values
                   are counted by their hex (bin) and echoed, not in the Reply
  demo.Echo/Count  streams TIMES Replies "NAME i"
  demo.Echo/Sleep  sleeps MS ms, then answers (a deadline's test)
  demo.Echo/Abort  aborts with status CODE and MESSAGE
  demo.Echo/Collect  client streaming: one Reply "hello A, B, C", COUNT the
                   names received (counted in streamed_in)
  demo.Echo/Chat   bidirectional: a Reply "hello NAME" for each Hello
                   (counted in streamed_in and streamed_back)
  qt.Types/Echo    answers its request as it came (every field type)
  qt.Types/Stream  answers its request back twice, as a stream
  qt.Types/Sleep   sleeps I ms, then answers its request (a deadline's test)
  qt.Types/Abort   aborts with status I and message S
  qt.Types/Drip    sends its headers, then I messages 200 ms apart (S "i"),
                   watching for the client's cancel
  qt.Types/Sum     client streaming: replies the count and the sum of the
                   I received; a message of S "abort" aborts (INVALID_ARGUMENT)
  qt.Types/Chat    bidirectional: echoes each message as it comes ("abort"
                   as for Sum), watching for the client's cancel
  qt.Types/Batch   bidirectional: the first message's I is N; once N came,
                   echoes them all
  qt.Types/Zip     replies gzipped (when the client accepts gzip) I bytes of
                   "z" and the length of the S it got; ZipChat the same for
                   each message of a bidirectional stream
At SIGTERM it prints its counts as JSON: calls by method, messages streamed,
metadata values seen (x-vu), aborted calls, deadlines the server saw pass,
Drip's messages sent and the Drip calls the client cancelled, the messages
the client streams sent (streamed_in) and those Chat and Batch sent back
(streamed_back), the Chat calls the client cancelled and the deadlines they
saw pass, and the lengths of the S that Zip and ZipChat got.
Usage: grpc_server.py PORT_FILE [CERT KEY]: binds 127.0.0.1:0 (TLS with the
certificate and key given), writes its port."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent import futures

import grpc

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
tmp = tempfile.mkdtemp(prefix="grpc-py-")
subprocess.run(["protoc", "--python_out=" + tmp, "-I" + os.path.join(ROOT, "scripts", "grpc"),
                "echo.proto"], check=True)
subprocess.run(["protoc", "--python_out=" + tmp, "-I" + os.path.join(ROOT, "tests", "e2e", "scripts", "grpc"),
                "types.proto"], check=True)
sys.path.insert(0, tmp)
import echo_pb2  # noqa: E402
import types_pb2  # noqa: E402

lock = threading.Lock()
counts = {"calls": {}, "streamed": 0, "x_vu": {}, "aborted": 0, "deadline_passed": 0,
          "drip_sent": 0, "drip_cancelled": 0, "streamed_in": 0, "streamed_back": 0,
          "chat_cancelled": 0, "chat_deadline": 0, "bin": {}, "zip_lengths": []}


def count(name):
    with lock:
        counts["calls"][name] = counts["calls"].get(name, 0) + 1


def say(req, ctx):
    count("Say")
    md = {k: v for k, v in ctx.invocation_metadata() if k.startswith("x-")}
    with lock:
        if "x-vu" in md:
            counts["x_vu"][md["x-vu"]] = counts["x_vu"].get(md["x-vu"], 0) + 1
        for k, v in md.items():  # grpcio decodes -bin values: bytes
            if k.endswith("-bin"):
                counts["bin"][v.hex()] = counts["bin"].get(v.hex(), 0) + 1
    ctx.set_trailing_metadata(tuple(("echo-" + k, v) for k, v in md.items()))
    text = {k: v for k, v in md.items() if not k.endswith("-bin")}
    return echo_pb2.Reply(text="hello " + req.name, count=2 ** 40 + req.times, metadata=text)


def count_stream(req, ctx):
    count("Count")
    for i in range(1, req.times + 1):
        with lock:
            counts["streamed"] += 1
        yield echo_pb2.Reply(text="%s %d" % (req.name, i), count=i)


def sleep(req, ctx):
    count("Sleep")
    time.sleep(req.ms / 1000.0)
    if not ctx.is_active():
        with lock:
            counts["deadline_passed"] += 1
    return echo_pb2.Reply(text="slept")


def abort(req, ctx):
    count("Abort")
    with lock:
        counts["aborted"] += 1
    ctx.abort(next(c for c in grpc.StatusCode if c.value[0] == req.code), req.message)


def collect(it, ctx):
    count("Collect")
    names = []
    for m in it:
        bump("streamed_in")
        names.append(m.name)
    return echo_pb2.Reply(text="hello " + ", ".join(names), count=len(names))


def chat(it, ctx):
    count("Chat")
    for m in it:
        bump("streamed_in")
        bump("streamed_back")
        yield echo_pb2.Reply(text="hello " + m.name)


def types_echo(req, ctx):
    count("TypesEcho")
    return req


def types_stream(req, ctx):
    count("TypesStream")
    for _ in range(2):
        with lock:
            counts["streamed"] += 1
        yield req


def types_sleep(req, ctx):
    count("TypesSleep")
    time.sleep(req.i / 1000.0)
    if not ctx.is_active():
        with lock:
            counts["deadline_passed"] += 1
    return req


def types_abort(req, ctx):
    count("TypesAbort")
    with lock:
        counts["aborted"] += 1
    ctx.abort(next(c for c in grpc.StatusCode if c.value[0] == req.i), req.s)


def types_drip(req, ctx):
    count("TypesDrip")
    ended = threading.Event()
    done = []

    def on_end():  # when the call ends: one the client cancelled has not done
        if not done:
            with lock:
                counts["drip_cancelled"] += 1
        ended.set()

    ctx.add_callback(on_end)
    ctx.send_initial_metadata(())
    for i in range(1, req.i + 1):
        if ended.wait(0.2):
            return
        with lock:
            counts["drip_sent"] += 1
        yield types_pb2.Inner(s=str(i), i=i)
    done.append(1)


def bump(key, n=1):
    with lock:
        counts[key] += n


def aborts(m, n, ctx):
    if m.s == "abort":
        with lock:
            counts["aborted"] += 1
        ctx.abort(grpc.StatusCode.INVALID_ARGUMENT, "abort at message %d" % n)


def types_sum(it, ctx):
    count("TypesSum")
    n = total = 0
    for m in it:
        n += 1
        bump("streamed_in")
        aborts(m, n, ctx)
        total += m.i
    return types_pb2.Inner(i=n, s=str(total))


def types_chat(it, ctx):
    count("TypesChat")
    aborted = []

    def on_end():
        # A client's cancel (or a deadline) ends the request iterator as a
        # half-close would; grpcio knows which only once the call is over,
        # in its state (not public API: Debian's grpcio 1.51).
        if not aborted and ctx._state.client == "cancelled":
            bump("chat_deadline" if ctx.time_remaining() <= 0 else "chat_cancelled")

    ctx.add_callback(on_end)
    n = 0
    for m in it:
        n += 1
        bump("streamed_in")
        if m.s == "abort":
            aborted.append(1)
        aborts(m, n, ctx)
        bump("streamed_back")
        yield m


def types_batch(it, ctx):
    count("TypesBatch")
    got = []
    for m in it:
        bump("streamed_in")
        got.append(m)
        if len(got) == got[0].i:
            break
    for m in got:
        bump("streamed_back")
        yield m


def zipped(req):
    with lock:
        counts["zip_lengths"].append(len(req.s))
    return types_pb2.Inner(s="z" * req.i, i=len(req.s))


def types_zip(req, ctx):
    count("TypesZip")
    ctx.set_compression(grpc.Compression.Gzip)
    return zipped(req)


def types_zip_chat(it, ctx):
    count("TypesZipChat")
    ctx.set_compression(grpc.Compression.Gzip)
    for m in it:
        yield zipped(m)


def unary(fn, req_cls, resp_cls):
    return grpc.unary_unary_rpc_method_handler(fn, request_deserializer=req_cls.FromString,
                                               response_serializer=resp_cls.SerializeToString)


def streaming(fn, req_cls, resp_cls):
    return grpc.unary_stream_rpc_method_handler(fn, request_deserializer=req_cls.FromString,
                                                response_serializer=resp_cls.SerializeToString)


def client_streaming(fn, req_cls, resp_cls):
    return grpc.stream_unary_rpc_method_handler(fn, request_deserializer=req_cls.FromString,
                                                response_serializer=resp_cls.SerializeToString)


def bidi(fn, req_cls, resp_cls):
    return grpc.stream_stream_rpc_method_handler(fn, request_deserializer=req_cls.FromString,
                                                 response_serializer=resp_cls.SerializeToString)


def main():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    server.add_generic_rpc_handlers((
        grpc.method_handlers_generic_handler("demo.Echo", {
            "Say": unary(say, echo_pb2.Hello, echo_pb2.Reply),
            "Count": streaming(count_stream, echo_pb2.Hello, echo_pb2.Reply),
            "Sleep": unary(sleep, echo_pb2.SleepReq, echo_pb2.Reply),
            "Abort": unary(abort, echo_pb2.AbortReq, echo_pb2.Reply),
            "Collect": client_streaming(collect, echo_pb2.Hello, echo_pb2.Reply),
            "Chat": bidi(chat, echo_pb2.Hello, echo_pb2.Reply),
        }),
        grpc.method_handlers_generic_handler("qt.Types", {
            "Echo": unary(types_echo, types_pb2.All, types_pb2.All),
            "Stream": streaming(types_stream, types_pb2.All, types_pb2.All),
            "Sleep": unary(types_sleep, types_pb2.Inner, types_pb2.Inner),
            "Abort": unary(types_abort, types_pb2.Inner, types_pb2.Inner),
            "Drip": streaming(types_drip, types_pb2.Inner, types_pb2.Inner),
            "Sum": client_streaming(types_sum, types_pb2.Inner, types_pb2.Inner),
            "Chat": bidi(types_chat, types_pb2.Inner, types_pb2.Inner),
            "Batch": bidi(types_batch, types_pb2.Inner, types_pb2.Inner),
            "Zip": unary(types_zip, types_pb2.Inner, types_pb2.Inner),
            "ZipChat": bidi(types_zip_chat, types_pb2.Inner, types_pb2.Inner),
        }),
    ))
    if len(sys.argv) > 3:
        with open(sys.argv[2], "rb") as c, open(sys.argv[3], "rb") as k:
            creds = grpc.ssl_server_credentials(((k.read(), c.read()),))
        port = server.add_secure_port("127.0.0.1:0", creds)
    else:
        port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(port))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: done.set())
    signal.signal(signal.SIGINT, lambda *a: done.set())
    while not done.wait(0.2):
        pass
    server.stop(0)
    with lock:
        print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    main()
