#!/usr/bin/python3
"""A small API with a slow login, for tests/e2e/blame.sh and windows.sh
(stdlib http.server).

Paths:
  /login   200 "ok" after 400 ms (a VU's init logs in here)
  /hit     200 "ok" after 100 ms
  /blip    200 "ok" at once, but after 500 ms for the requests that come
           from 5.0 to 5.4 s after the first /blip (a short stall)
  anything else  404

Log (stdout, one line each, flushed): "MONOTONIC_START_S DURATION_S PATH"
per request answered, timed by the server around its own sleep: the
server's own account of how long it took.
Usage: slow_server.py PORT_FILE: binds 127.0.0.1:0, writes its port."""
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
DELAYS = {"/login": 0.4, "/hit": 0.1}
first_blip = []


def blip_delay(t0):
    with lock:
        if not first_blip:
            first_blip.append(t0)
        since = t0 - first_blip[0]
    return 0.5 if 5.0 <= since < 5.4 else 0.0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        t0 = time.monotonic()
        path = self.path.split("?", 1)[0]
        delay = blip_delay(t0) if path == "/blip" else DELAYS.get(path)
        if delay is None:
            body, status = b"no\n", 404
        else:
            time.sleep(delay)
            body, status = b"ok\n", 200
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        with lock:
            sys.stdout.write("%.6f %.6f %s\n" % (t0, time.monotonic() - t0, path))
            sys.stdout.flush()

    def log_message(self, fmt, *args):
        pass


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
