#!/usr/bin/python3
"""A server-sent events source for tests/e2e/sse.sh (stdlib http.server).

Paths:
  /stream?n=N[&cut=1][&hold=S][&tag=T]
      a text/event-stream: a comment and a retry-only block ("retry: 1500"),
      then N events with ids from 1, or from the request's Last-Event-ID + 1;
      each event has a comment line, data "event I", and even ones a second
      data line "second line" and the type "tick"; then, with cut=1, half an
      event (no blank line); with hold=S, a comment every 0.1 s for S seconds
      (no event); then the server closes the connection.
  /text          200 with Content-Type text/plain (refused by step:sse)
  /login         200 setting the cookie session=s1
  /__stats       the counts below, JSON
  anything else  404

Log (stdout, one line each, flushed): "open PATH last-event-id=X" (X "-"
when none was sent), "cookie PATH COOKIE" when the request had one,
"sent ID DATA_BYTES TAG" per whole event written, "refused PATH STATUS",
"gone PATH" when the client closed a stream the server was still writing. Counts: streams, sent (whole events), data_bytes
(their data as the client joins it), refused, by tag.
Usage: sse_server.py PORT_FILE: binds 127.0.0.1:0, writes its port."""
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
counts = {"streams": 0, "sent": 0, "data_bytes": 0, "refused": 0, "by_tag": {}}


def log(line):
    with lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # the stream ends when the connection closes

    def log_message(self, fmt, *args):
        pass

    def refuse(self, status, ctype, body):
        with lock:
            counts["refused"] += 1
        log("refused %s %d" % (self.path, status))
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(url.query)
        if url.path == "/__stats":
            with lock:
                body = json.dumps(counts).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if url.path == "/login":
            body = b"logged in\n"
            self.send_response(200)
            self.send_header("Set-Cookie", "session=s1; Path=/")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if url.path == "/text":
            self.refuse(200, "text/plain", b"data: not a stream\n\n")
            return
        if url.path != "/stream":
            self.refuse(404, "text/plain", b"no such stream\n")
            return
        n = int(q.get("n", ["3"])[0])
        tag = q.get("tag", ["-"])[0]
        last = self.headers.get("Last-Event-ID")
        first = int(last) + 1 if last is not None and last.isdigit() else 1
        with lock:
            counts["streams"] += 1
        log("open %s last-event-id=%s" % (self.path, last if last is not None else "-"))
        if self.headers.get("Cookie") is not None:
            log("cookie %s %s" % (self.path, self.headers.get("Cookie")))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        try:
            self.wfile.write(b": welcome\nretry: 1500\n\n")
            for i in range(first, first + n):
                data = "event %d" % i
                ev = "id: %d\n: comment %d\n" % (i, i)
                if i % 2 == 0:
                    ev += "event: tick\n"
                    data += "\nsecond line"
                ev += "".join("data: %s\n" % line for line in data.split("\n")) + "\n"
                self.wfile.write(ev.encode())
                self.wfile.flush()
                with lock:
                    counts["sent"] += 1
                    counts["data_bytes"] += len(data)
                    counts["by_tag"][tag] = counts["by_tag"].get(tag, 0) + 1
                log("sent %d %d %s" % (i, len(data), tag))
            if q.get("cut", ["0"])[0] == "1":
                self.wfile.write(b"id: 999\ndata: half an event")
                self.wfile.flush()
            end = time.monotonic() + float(q.get("hold", ["0"])[0])
            while time.monotonic() < end:
                time.sleep(0.1)
                self.wfile.write(b": keep-alive\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            log("gone %s" % self.path)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


main()
