"""Writes docs/benchmarks.md from the raw results of bench/run.sh.

Usage: report.py TMPDIR > docs/benchmarks.md
       report.py --only startlag TMPDIR   (that row alone, BENCH_ONLY=startlag)
       report.py --only fleet TMPDIR      (the same, BENCH_ONLY=fleet)
       report.py --only soak TMPDIR       (that row alone, BENCH_ONLY=soak)
       report.py --only ws TMPDIR         (that row alone, BENCH_ONLY=ws)
       report.py --only grpc TMPDIR       (that row alone, BENCH_ONLY=grpc)
       report.py --only idle TMPDIR       (those rows alone, BENCH_ONLY=idle)
       report.py --only redis TMPDIR      (that row alone, BENCH_ONLY=redis)

TMPDIR holds meta (key=value lines), speed.tsv ("row rep requests rps user sys
maxrss_kb", or "row rep FAILED"), check.tsv ("row tool_requests nginx_lines")
mem.tsv ("tool count max_rss_kb samples requests errors max_worker_kb"), scale.tsv ("vus
max_tree_rss_kb max_worker_rss_kb max_established runs requests errors_tech
errors_func new_connections exit_status"), fleet.tsv ("vus workers peak_tree_kb
steady_tree_kb max_established runs requests errors_tech errors_func exit
floor_peak_kb floor_steady_kb floor_ok floor_errors share_peak_kb
share_steady_kb max_in_flight held_back mean_ms service_mean_ms vus_served
nginx_run_requests workers_killed saturated_s measured_s verdict...", the verdict
the rest of the line), fanin.tsv ("requested agents
cpu_pct window_s user_ticks sys_ticks rss_kb console_count sim_step_counts
sim_rc console_rc", or "requested agents FAILED") and fanin.refused ("agents
exit_status message"), lag.tsv ("rate scheduled started late dropped
lag_p50_ms lag_p99_ms lag_max_ms requests exit_status floor_p50_ms floor_p99_ms
floor_max_ms"), lag.best ("good bad"), lag_wrk.tsv (wrk's "requests rps user sys
maxrss_kb"), lag_closed.tsv (quern's closed model, the same), har2lua.tsv ("mb entries
steps requests correlated quern_s parse_s exit") and ipr.tsv ("vus runs requests
errors quern_ir floor_ir bare_ir floor_ok bare_ok headers", headers joined by "|"
with "_" for spaces), soak.tsv ("vus secs ramp requests nginx_lines established
new_connections errors_tech errors_func exit missed_pacing saturated_s measured_s
loop_lag_p99_ms"), soak.rss ("seconds console_kb agent_kb worker_kb") and grpc.tsv
("rep calls seconds errors user sys" of quern, "calls seconds user sys" of the
floor, exit, mode h2c or tls, quern's new connections) and idle.tsv ("kind n
workers q_before_kb q_after_kb q_open floor_before_kb floor_after_kb floor_open
opened errors exit") and redis.tsv ("rep gets
seconds errors user sys server_gets connects" of quern, "gets rps user sys
server_gets" of redis-benchmark, exit). Whatever
follows the KEEP marker in the current docs/benchmarks.md (hand-written notes,
profiles) is carried over to the new file.
"""
import os
import statistics
import sys

KEEP = "<!-- hand-written below this line: bench/run.sh keeps it -->"
OUT = os.environ.get("BENCH_OUT", "docs/benchmarks.md")
ROWS = [
    ("wrk", "wrk (plain)"),
    ("wrk-lua", "wrk + Lua `request()`"),
    ("locust", "Locust FastHttpUser"),
    ("quern", "quern (`bench/small.lua`, `--workers 1`)"),
]
TARGET_WRK = 1.6   # quern CPU/request <= 1.6 x wrk's
TARGET_LOCUST = 5  # Locust CPU/request >= 5 x quern's
TARGET_KB = 16     # KB per idle VU at 10,000 VUs
TARGET_FLEET_KB = 10  # peak KB per VU of the whole tree at 100,000 VUs
TARGET_SCALE = 50000  # concurrent VUs with open connections in one worker
TARGET_FANIN = 3      # % of one core at most, for 1,000 agents x 50 steps a second
HAR2LUA_TITLE = "### har2lua: a large recording converted, beside a plain parse of it"
IPR_TITLE = "### Instructions per request (callgrind): quern beside a bare libcurl multi loop"
TARGET_IPR = 1.02  # quern's instructions per request <= 1.02 x the floor's (same request)


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def fmt(x, nd=1):
    if x is None:
        return "—"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{nd}f}"


def ipr_section(rows):
    """The instruction row, from ipr.tsv (a round a line): medians of the rounds."""
    r = rows[0]
    n, runs = int(r[0]), int(r[1])
    hdrs = [h.replace("_", " ") for h in r[9].split("|")] if len(r) > 9 else []
    ok = [x for x in rows if len(x) > 8 and int(x[2]) > 0 and int(x[7]) > 0 and int(x[8]) > 0]
    o = [IPR_TITLE, ""]
    o.append(f"`valgrind --tool=callgrind --trace-children=yes` on `bin/quern agent` (the agent and "
             f"its worker; the console, outside valgrind, only drives them) while `bin/quern run "
             f"bench/small.lua --vus {n} --runs {runs} --workers 1 --db none` makes {n} × {runs} "
             f"GETs of `/small`; beside it `bench/reqfloor.c`, a bare libcurl multi loop "
             f"(`curl_multi_perform` and `curl_multi_poll`, {n} easy handles each reused for {runs} "
             f"requests on its kept-alive connection), making the same requests to the same nginx. "
             f"All instructions of the processes in user space, start-up included, over the "
             f"requests made; Debian's own libcurl. Counts do not depend on the machine's load: "
             f"a change of cost shows here that the timings above cannot see; from round to round "
             f"they move by about 2 % (how many times the loops wake up), hence the median of "
             f"{len(rows)} rounds. The floor is run with the header lines quern sends beside `Host` "
             f"and `Accept` (read from its `--trace`: " + ", ".join(f"`{h}`" for h in hdrs) +
             "), the same request bytes, and bare, without them.")
    o.append("")
    if not ok:
        o.append("Every round failed.")
        o.append("")
        return "\n".join(o)
    qs = [int(x[4]) / int(x[2]) for x in ok]
    fs = [int(x[5]) / int(x[7]) for x in ok]
    bs = [int(x[6]) / int(x[8]) for x in ok]
    qr, fr, br = statistics.median(qs), statistics.median(fs), statistics.median(bs)
    ratio = qr / fr
    errs = sum(int(x[3]) for x in ok if x[3].isdigit())
    o.append("| | instructions per request (median) | per round | quern / it | target | met? |")
    o.append("|---|---:|---|---:|---|---|")
    o.append(f"| quern ({int(ok[0][2]):,} requests a round, {errs} errors) | {fmt(qr)} | "
             f"{', '.join(fmt(x) for x in qs)} | | | |")
    o.append(f"| bare libcurl-multi, the same request | {fmt(fr)} | {', '.join(fmt(x) for x in fs)} | "
             f"**{ratio:.3f}×** | ≤ {TARGET_IPR}× | {'yes' if ratio <= TARGET_IPR else '**no**'} |")
    o.append(f"| bare libcurl-multi, no header of quern's | {fmt(br)} | {', '.join(fmt(x) for x in bs)} | "
             f"{qr / br:.3f}× | | |")
    o.append("")
    return "\n".join(o)


WS_TITLE = "### WebSocket: round trips and idle connections"


def _num(x):
    try:
        return float(x)
    except ValueError:
        return None


def _median(xs):
    xs = sorted(x for x in xs if x is not None)
    return xs[len(xs) // 2] if xs else None


def ws_section(d, http_rps=None):
    """The WebSocket rows (bench/run.sh step 6g), from ws.tsv and wsidle.tsv;
    None when they did not run. http_rps: quern's HTTP requests a second of
    the speed rows in the same run, when they ran."""
    rows = [r for r in read_rows(os.path.join(d, "ws.tsv")) if len(r) >= 13]
    idle = read_rows(os.path.join(d, "wsidle.tsv"))
    if not rows and not idle:
        return None
    o = [WS_TITLE, ""]
    if rows:
        q_rate, q_cpu, f_rate, f_cpu, errs, sts = [], [], [], [], 0, set()
        for r in rows:
            rt, secs, sent, recv, err, user, sys_ = (_num(x) for x in r[1:8])
            frt, fsecs, fuser, fsys = (_num(x) for x in r[8:12])
            sts.add(r[12])
            errs += int(err) if err is not None else 0
            if rt and secs:
                q_rate.append(rt / secs)
            if sent is not None and recv and user is not None and sys_ is not None:
                q_cpu.append((user + sys_) * 1e6 / (sent + recv))
            if frt and fsecs:
                f_rate.append(frt / fsecs)
            if frt and fuser is not None and fsys is not None:
                f_cpu.append((fuser + fsys) * 1e6 / (2 * frt))
        qr, qc, fr, fc = _median(q_rate), _median(q_cpu), _median(f_rate), _median(f_cpu)
        o.append(f"Against `tests/tools/ws_server.py` (python3-websockets, echo) on CPU 0, each "
                 f"client on CPU 1: `bin/quern run bench/ws.lua --vus N --runs 1 --workers 1 "
                 f"--db none` (each VU one connection, its round trips of a 32-byte text message "
                 f"timed by `step:time`) beside `bench/wsfloor.py`, a bare python3-websockets "
                 f"client loop doing the same, {len(rows)} rounds in alternation, medians. Round "
                 f"trips a second: quern's from its own count and run duration; CPU per message: "
                 f"user + system time of the whole tool (quern: console, agent and worker, start "
                 f"included) over the messages sent and received.")
        o.append("")
        o.append("| | round trips/s (median) | per round | CPU µs per message | quern / it (rate) | "
                 "quern / it (CPU per message) |")
        o.append("|---|---:|---|---:|---:|---:|")
        o.append(f"| quern ({errs} errors, exit {','.join(sorted(sts))}) | {fmt(qr)} | "
                 f"{', '.join(fmt(x) for x in q_rate)} | {fmt(qc)} | | |")
        o.append(f"| bare python3-websockets client | {fmt(fr)} | {', '.join(fmt(x) for x in f_rate)} "
                 f"| {fmt(fc)} | {fmt(qr / fr) if qr and fr else '?'}× | "
                 f"{fmt(qc / fc) if qc and fc else '?'}× |")
        if http_rps:
            o.append(f"| quern's HTTP row (GET /small on nginx, this run) | {fmt(http_rps)} req/s | | | "
                     f"{fmt(qr / http_rps) if qr else '?'}× | |")
        o.append("")
        o.append("The server is one Python process: both clients wait on it, so the rates say as "
                 "much about the server as about the clients; CPU per message is the client's own "
                 "cost.")
        o.append("")
    if idle:
        vus, opened_seen, a, b, opened, errs, st = (idle[0] + ["?"] * 7)[:7]
        per = (int(b) - int(a)) / int(vus) if a.isdigit() and b.isdigit() and vus.isdigit() else None
        o.append(f"Idle: `bin/quern run bench/wsidle.lua --vus {vus} --ramp-up 2s --runs 1 "
                 f"--workers 1` (each VU waits 5 s, opens one WebSocket, holds it 8 s idle): the "
                 f"worker's VmRSS at 4.5 s (every VU started, none connected) {fmt_kb(a)}, at 10.5 s "
                 f"(the server counting {opened_seen} open) {fmt_kb(b)}: "
                 f"**{fmt(per)} kB per connection** (RSS delta / {vus}); handshakes {opened}, "
                 f"errors {errs}, exit {st}.")
        o.append("")
    return "\n".join(o)


IDLE_TITLE = "### Idle connections against their floor: WebSocket, TCP and MQTT"
TARGET_IDLE_KB = 10  # KB per idle WebSocket, TCP connection or MQTT client in the worker


def idle_section(d):
    """The idle rows (bench/run.sh step 6k), from idle.tsv; None when they
    did not run."""
    rows = [r for r in read_rows(os.path.join(d, "idle.tsv")) if len(r) >= 12]
    if not rows:
        return None
    o = [IDLE_TITLE, ""]
    o.append("Every VU waits, then opens one connection and holds it idle: `bin/quern run "
             "bench/wsidle.lua` (`step:ws` to `tests/tools/ws_server.py`, python3-websockets) or "
             "`bin/quern run bench/tcpidle.lua` (`step:tcp` to redis-server) or `bin/quern run "
             "bench/mqttidle.lua` (`mqtt.connect` to mosquitto, keepalive 60 s, then `c:subscribe` "
             "to a topic of its own, so the broker holds a session and a subscription for each; "
             "mosquitto from a config of its own: no persistence, `max_connections -1`, "
             "anonymous), `--vus N --workers W "
             "--runs 1 --db none`, N/1000 s of ramp-up (2 s at least: the servers are one Python, Redis or mosquitto process each, on one CPU). quern's figure: the VmRSS "
             "of its W workers, summed, read once every VU has started and none has connected, "
             "then once the servers count N open (mosquitto: the least of `$SYS/broker/clients/connected` "
             "and `subscriptions/count`, which it refreshes each second); (after − before) / N. A process holds 10,000 "
             "connections at most here (the descriptor limit is 20,000 a process), so N is "
             "spread over W = N / 10,000 servers and workers, VU i on server i mod W. The floor, "
             "in the same run against the same servers: `build/rel/idlefloor` (bench/idlefloor.c), "
             "a bare epoll loop in W processes, each opening N/W sockets (for ws it writes the "
             "upgrade request by hand and reads the 101; for mqtt a CONNECT, keepalive 60 s, and a "
             "SUBSCRIBE to a topic of its own, and reads the CONNACK and the SUBACK), measured the same way from its own "
             "`/proc/self/status`. It keeps what any client must: the socket and a few bytes "
             "of state; its figure is near zero, so the difference says more than the ratio. "
             "Opened: the samples of the script's first step (the connects; mqtt's subscribes "
             "are a second step); errors: of every step.")
    o.append("")
    o.append("| kind | connections | workers | servers counted open | quern KB per idle connection "
             "| floor KB per connection | quern − floor (KB) | quern / floor | target | met? "
             "| opened (quern's count) | errors | exit |")
    o.append("|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|")
    for r in rows:
        kind, n, w, qa, qb, qopen, fa, fb, fopen, opened, errs, st = r[:12]
        n_, qa_, qb_, fa_, fb_, fo_ = (_num(x) for x in (n, qa, qb, fa, fb, fopen))
        q = (qb_ - qa_) / n_ if None not in (n_, qa_, qb_) and n_ else None
        f = (fb_ - fa_) / fo_ if None not in (fa_, fb_, fo_) and fo_ else None
        diff = q - f if q is not None and f is not None else None
        ratio = f"{fmt(q / f)}×" if q is not None and f else "—"
        met = "yes" if q is not None and q <= TARGET_IDLE_KB else "**no**"
        o.append(f"| {kind} | {int(n_):,} | {w} | {qopen} | {fmt(q, 2)} | {fmt(f, 2)} "
                 f"({fopen} open) | {fmt(diff, 2)} | {ratio} | ≤ {TARGET_IDLE_KB} KB | {met} "
                 f"| {opened} | {errs} | {st} |")
    o.append("")
    return "\n".join(o)


GRPC_TITLE = "### gRPC: unary calls"


def grpc_section(d):
    """The gRPC rows (bench/run.sh step 6h), from grpc.tsv; None when they did
    not run."""
    rows = [r for r in read_rows(os.path.join(d, "grpc.tsv")) if len(r) >= 13]
    if not rows:
        return None
    o = [GRPC_TITLE, ""]
    calls = _num(rows[0][1])
    reps = len({r[0] for r in rows})
    o.append(f"Against `tests/tools/grpc_server.py` (python3-grpcio, `demo.Echo/Say`) on CPU 0, "
             f"each client on CPU 1: `bin/quern run grpc.lua --vus N --runs 1 --workers 1 --db "
             f"none` (`bench/grpc.lua` beside `scripts/grpc/echo.proto`: each VU its calls one "
             f"after the other, {fmt(calls, 0) if calls else '?'} in all) beside "
             f"`bench/grpcfloor.py`, a bare python3-grpcio (`grpc.aio`) client doing the same "
             f"with a channel per client, cleartext (h2c) and TLS (`https://`, the server's "
             f"certificate checked), {reps} rounds in alternation, medians. Calls a second: "
             f"quern's from its own count and run duration; CPU per call: user + system time of "
             f"the whole tool (quern: console, agent and worker, its protoc run and start "
             f"included; the floor: its protoc run and start too) over the calls.")
    o.append("")
    o.append("| | calls/s (median) | per round | CPU µs per call | quern / it (rate) | "
             "quern / it (CPU per call) |")
    o.append("|---|---:|---|---:|---:|---:|")
    for mode, name in (("h2c", "cleartext (h2c)"), ("tls", "TLS")):
        q_rate, q_cpu, f_rate, f_cpu, errs, sts, conns = [], [], [], [], 0, set(), []
        for r in (r for r in rows if r[11] == mode):
            n, secs, err, user, sys_ = (_num(x) for x in r[1:6])
            fn, fsecs, fuser, fsys = (_num(x) for x in r[6:10])
            sts.add(r[10])
            errs += int(err) if err is not None else 0
            conns.append(r[12])
            if n and secs:
                q_rate.append(n / secs)
            if n and user is not None and sys_ is not None:
                q_cpu.append((user + sys_) * 1e6 / n)
            if fn and fsecs:
                f_rate.append(fn / fsecs)
            if fn and fuser is not None and fsys is not None:
                f_cpu.append((fuser + fsys) * 1e6 / fn)
        if not q_rate and not f_rate:
            continue
        qr, qc, fr, fc = _median(q_rate), _median(q_cpu), _median(f_rate), _median(f_cpu)
        o.append(f"| quern, {name} ({errs} errors, exit {','.join(sorted(sts))}, "
                 f"{conns[0] if conns else '?'} connections) | {fmt(qr)} | "
                 f"{', '.join(fmt(x) for x in q_rate)} | {fmt(qc)} | | |")
        o.append(f"| bare python3-grpcio client, {name} | {fmt(fr)} | "
                 f"{', '.join(fmt(x) for x in f_rate)} | {fmt(fc)} | "
                 f"{fmt(qr / fr) if qr and fr else '?'}× | {fmt(qc / fc) if qc and fc else '?'}× |")
    o.append("")
    o.append("The server is one Python process: both clients wait on it, so the rates say as much "
             "about the server as about the clients; CPU per call is the client's own cost. "
             "Cleartext, quern opens a connection per call: libcurl before 8.0 (Debian 12 has "
             "7.88) fails a second request on an h2c connection with prior knowledge (curl issue "
             "10634), so such a connection serves one request (worker/wire/reqopt.c); over TLS the "
             "connections are kept, one per VU.")
    o.append("")
    return "\n".join(o)


REDIS_TITLE = "### Redis: GETs through quern.redis beside redis-benchmark"
TARGET_REDIS = 2  # quern's CPU per GET <= 2 x redis-benchmark's


def redis_section(d):
    """The Redis row (bench/run.sh step 6k), from redis.tsv; None when it did
    not run."""
    rows = [r for r in read_rows(os.path.join(d, "redis.tsv")) if len(r) >= 14]
    if not rows:
        return None
    q_rate, q_cpu, q_usr, q_sys, b_rate, b_cpu, b_usr, b_sys = ([] for _ in range(8))
    ratios, errs, sts, counts = [], 0, set(), []
    for r in rows:
        n, secs, err, user, sys_, srv, conns = (_num(x) for x in r[1:8])
        bn, brps, buser, bsys, bsrv = (_num(x) for x in r[8:13])
        sts.add(r[13])
        errs += int(err) if err is not None else 0
        qc = bc = None
        if n and secs:
            q_rate.append(n / secs)
        if n and user is not None and sys_ is not None:
            qc = (user + sys_) * 1e6 / n
            q_cpu.append(qc)
            q_usr.append(user * 1e6 / n)
            q_sys.append(sys_ * 1e6 / n)
        if brps:
            b_rate.append(brps)
        if bn and buser is not None and bsys is not None:
            bc = (buser + bsys) * 1e6 / bn
            b_cpu.append(bc)
            b_usr.append(buser * 1e6 / bn)
            b_sys.append(bsys * 1e6 / bn)
        if qc and bc:
            ratios.append(qc / bc)
        counts.append((r[1], r[6], r[8], r[12]))
    qr, qc, br, bc, ratio = (_median(x) for x in (q_rate, q_cpu, b_rate, b_cpu, ratios))
    same = all(a == b and c == e for a, b, c, e in counts)
    vus, total = rows[0][7], rows[0][8]
    per = int(total) // int(vus) if vus.isdigit() and total.isdigit() and int(vus) else "?"
    o = [REDIS_TITLE, ""]
    o.append(f"Against a redis-server of its own (Debian's, `--save '' --appendonly no`) on "
             f"CPU 0, each client on CPU 1: `bin/quern run bench/redis.lua --vus {vus} --runs 1 "
             f"--workers 1 --db none` (each VU one connection, `redis.connect` then {per} "
             f"`c:call(\"GET\", key)` one after the other, each a sample of the GET step, the "
             f"reply checked) beside `redis-benchmark -c {vus} -n {total} -t get -P 1 -q` "
             f"(as many connections and GETs, no pipelining), {len(rows)} rounds in alternation "
             f"(the order swapped each round), medians. Both GET the same key "
             f"(`key:__rand_int__`, set beforehand to a 3-byte value), so the bytes on the wire "
             f"are the same. GETs a second: quern's from its GET count and run duration "
             f"(connects included), redis-benchmark's as it prints it. CPU per GET: user + "
             f"system time of the whole tool (GNU time; quern: console, agent and worker, start "
             f"and connects included) over its GETs (quern: the GET step's count in "
             f"`--summary-json`; redis-benchmark: the total asked). The server's `INFO "
             f"commandstats` (`cmdstat_get`, reset before each tool) counts the GETs each made.")
    o.append("")
    o.append("| | GETs/s (median) | per round | CPU µs per GET (median) | user + system (medians) "
             "| per round | quern / it (CPU per GET) | target | met? |")
    o.append("|---|---:|---|---:|---|---|---:|---|---|")
    o.append(f"| quern.redis ({errs} errors, exit {','.join(sorted(sts))}) | {fmt(qr)} | "
             f"{', '.join(fmt(x) for x in q_rate)} | {fmt(qc)} | {fmt(_median(q_usr))} + "
             f"{fmt(_median(q_sys))} | {', '.join(fmt(x) for x in q_cpu)} | | | |")
    o.append(f"| redis-benchmark | {fmt(br)} | {', '.join(fmt(x) for x in b_rate)} | {fmt(bc)} | "
             f"{fmt(_median(b_usr))} + {fmt(_median(b_sys))} | {', '.join(fmt(x) for x in b_cpu)} | "
             f"**{fmt(ratio, 2) if ratio else '?'}×** (rounds: {', '.join(f'{x:.2f}' for x in ratios)}) "
             f"| ≤ {TARGET_REDIS}× | {'yes' if ratio and ratio <= TARGET_REDIS else '**no**'} |")
    o.append("")
    if same:
        o.append(f"GETs counted by the server: {int(total):,} for each tool in every round, exactly "
                 f"what quern's GET step counted and what redis-benchmark was asked for.")
    else:
        o.append("GETs counted by the server against each tool's count, per round (quern: server / "
                 "GET step; redis-benchmark: server / asked): **they differ**: "
                 + ", ".join(f"{b} / {a} and {e} / {c}" for a, b, c, e in counts) + ".")
    o.append("")
    o.append("The ratio is taken within each round, then its median reported. System time is "
             "most of either tool's CPU here (each GET a write and a read on a loopback socket, "
             "and the waits in between), and it moves with the machine's load; quern's extra "
             "cost is user time: each GET goes through Lua (the command encoded and the reply "
             "parsed by quern.redis, a coroutine resumed) and makes a sample.")
    o.append("")
    return "\n".join(o)


def fmt_kb(x):
    return f"{int(x):,} kB" if str(x).isdigit() else "?"


SOAK_TITLE = "### Soak: a steady load for a long time, each process's memory"


def soak_section(d):
    """The soak row (bench/run.sh step 6f), from soak.tsv and soak.rss; None
    when it did not run."""
    tot = read_rows(os.path.join(d, "soak.tsv"))
    rss = [[int(x) for x in r] for r in read_rows(os.path.join(d, "soak.rss")) if len(r) == 4]
    if not tot:
        return None
    vus, secs, ramp, req, lines, est, newc, tech, func, st = tot[0][:10]
    missed, sat, measured, lag = (tot[0][10:14] + ["?"] * 4)[:4]
    secs, ramp = int(secs), int(ramp)
    o = [SOAK_TITLE, ""]
    o.append(f"`bin/quern run bench/scale.lua --vus {vus} --workers 1 --ramp-up {ramp}s "
             f"--duration {secs}s -p pacing=1s --db DIR/results.db --allow-saturation` (one GET a "
             f"run, each VU's run "
             f"started every second) against an nginx of its own that sets a new cookie on every "
             f"response (`add_header Set-Cookie \"s=$request_id; Path=/\"`), each VU keeping its "
             f"jar (`cookies = \"keep\"`); VmRSS of the console, its agent and the worker read "
             f"from `/proc/PID/status` every 10 s. The end of the ramp is the first sample 40 s "
             f"after the last VU started (its connection and its first cookies made, the pools "
             f"grown).")
    o.append("")
    o.append(f"Requests counted by quern: {int(req):,}; lines in nginx's access log: {int(lines):,} "
             f"({'equal' if req == lines else '**not equal**'}); connections established (`ss`, "
             f"the most seen): {int(est):,}, opened by quern: {int(newc):,}; errors: {tech} "
             f"technical, {func} functional; exit status {st}. Runs that missed their pacing slot: "
             f"{missed}; seconds the worker was saturated: {sat} of {measured} measured (loop lag "
             f"p99 {lag} ms).")
    if sat.isdigit() and measured.isdigit() and int(sat) * 2 > int(measured):
        o.append("")
        o.append("The worker was behind for most of the run: nearly every VU had a request out at "
                 "once, and its pool of transfer handles stayed near one per VU; the RSS below is "
                 "that of a saturated worker, not of one that keeps up.")
    o.append("")
    if not rss:
        o.append("No RSS sample.")
        o.append("")
        return "\n".join(o)
    end_ramp = ramp + 40
    base = next((r for r in rss if r[0] >= end_ramp), rss[-1])
    marks = [("end of the ramp", base)]
    for q in (1, 2, 3):
        t = secs * q // 4
        marks.append((f"{q}/4 ({t} s)", next((r for r in rss if r[0] >= t), rss[-1])))
    marks.append((f"end ({rss[-1][0]} s)", rss[-1]))
    names = ("console", "agent", "worker")
    o.append("| RSS (MB) at | t (s) | " + " | ".join(names) + " | all three |")
    o.append("|---|---:|" + "---:|" * 4)
    for label, r in marks:
        o.append(f"| {label} | {r[0]} | " + " | ".join(f"{x / 1024:.1f}" for x in r[1:]) +
                 f" | {sum(r[1:]) / 1024:.1f} |")
    after = [r for r in rss if r[0] >= base[0]]
    grow = [after[-1][i] - base[i] for i in (1, 2, 3)]
    peak = [max(r[i] for r in after) - base[i] for i in (1, 2, 3)]
    o.append("| growth after the ramp (end − ramp) | | " + " | ".join(f"{g / 1024:+.1f}" for g in grow) +
             f" | {sum(grow) / 1024:+.1f} |")
    o.append("| highest above the ramp's | | " + " | ".join(f"{g / 1024:+.1f}" for g in peak) + " | |")
    o.append("")
    return "\n".join(o)


def lag_kept(r, x, col=11):
    """A row of lag.tsv kept: none dropped, exit 0, p99 within x of the
    floor's p99 (column col: 11 the bare timerfd floor, 14 the libcurl
    floor), and under 1 ms where the floor's is."""
    try:
        q, f = float(r[6]), float(r[col])
    except (ValueError, IndexError):
        return False
    return r[9] == "0" and r[4] == "0" and q <= x * f and (f >= 1.0 or q < 1.0)


def lag_section(d, meta, w):
    """The start-lag row (bench/run.sh step 6b), if it ran."""
    lag = read_rows(os.path.join(d, "lag.tsv"))
    best = read_rows(os.path.join(d, "lag.best"))
    lwrk = read_rows(os.path.join(d, "lag_wrk.tsv"))
    closed = read_rows(os.path.join(d, "lag_closed.tsv"))
    x = float(meta.get("lag_x", "1.5"))
    if not lag:
        return
    secs = meta.get("lag_secs", "5")
    w("### Start lag: the highest rate one worker keeps on schedule, against its floor")
    w("")
    w(f"`taskset -c 1 bin/quern run bench/small.lua --rate R/s --duration {secs}s --vus 50 "
      "--workers 1 --db none -q` against `/small`: the open model, each arrival one GET. "
      "Its floor, at the same rate in the same run, the two in alternation: "
      f"`taskset -c 1 build/rel/timerlag rate R {secs}` (bench/timerlag.c), a bare timerfd "
      "loop on the same CPU taking the same schedule (arrival k due at k / R s, every "
      "arrival due by a wake taken in it): what the machine's scheduling alone costs. A "
      f"rate is kept when quern's start lag p99 (`scenarios[0].arrivals.start_lag.p99_ms` "
      "of `--summary-json`, from the merged HDR histogram of every run's start lag) is at "
      f"most {x:g}x the floor's p99, and under 1 ms where the floor's is, and none is "
      "dropped. Rates rise by doubling, then the gap between the last kept and the first "
      "missed is halved. The second floor, in the same run and in turn with the other two: "
      f"`taskset -c 1 build/rel/timerlag rate R {secs} URL 50 500`, the same schedule with "
      "each arrival's GET of `/small` on a bare libcurl multi on libev, as quern's open model "
      "sends it: a pool of 50 handles grown one at a time up to 500 (quern's `--max-vus` for "
      "`--vus 50`), one kept-alive connection each, an arrival that finds none idle waiting "
      "for the next to end, its lateness taken when it gets one, the handles taken in one wake "
      "started together. It is what libcurl's own work at that rate costs the schedule, with "
      "no Lua, no VU and no statistics; \"kept (libcurl)\" is the same rule against it. "
      "Beside it, in the same run: quern's closed model on the same "
      "worker (`--vus 50`, no think time) and plain wrk (`wrk -t1 -c50`; Debian has no "
      "wrk2), both unpaced: what the worker and the machine serve at most.")
    w("")
    w("| rate (/s) | scheduled | started | late | dropped | start lag p50 (ms) "
      "| p99 (ms) | max (ms) | floor p50 (ms) | floor p99 (ms) | floor max (ms) | kept "
      "| libcurl floor p50 (ms) | p99 (ms) | max (ms) | kept (libcurl) |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|")
    for r in sorted(lag, key=lambda x_: int(x_[0])):
        r = r + ["?"] * (16 - len(r))
        w(f"| {int(r[0]):,} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | **{r[6]}** | {r[7]} "
          f"| {r[10]} | **{r[11]}** | {r[12]} | {'yes' if lag_kept(r, x) else '**no**'} "
          f"| {r[13]} | **{r[14]}** | {r[15]} | {'yes' if lag_kept(r, x, 14) else '**no**'} |")
    w("")
    kc = [int(r[0]) for r in lag if lag_kept(r, x, 14)]
    if not best:
        return
    g = int(best[0][0])
    at = [r for r in lag if int(r[0]) == g]
    if g > 0 and at:
        line = (f"Highest rate kept: **{g:,}/s** (start lag p99 {at[-1][6]} ms, its floor's "
                f"{at[-1][11]} ms)")
    else:
        line = (f"**No rate tried was kept** (start lag p99 within {x:g}x the floor's, and "
                "under 1 ms where the floor's is)")
    if closed:
        rps = float(closed[0][1])
        line += f"; quern's closed model in the same run: **{rps:,.0f} requests/s**"
        if g > 0 and rps > 0:
            line += f" ({g / rps * 100:.0f} % of it)"
    if kc:
        line += (f"; highest rate kept against the libcurl floor: **{max(kc):,}/s**")
    if lwrk:
        line += f"; plain wrk: {float(lwrk[0][1]):,.0f} requests/s"
    w(line + ".")
    w("")


def fleet_section(d, meta, w):
    """The fleet rows (step 6c) as a section, through w; nothing without them."""
    fleet = read_rows(os.path.join(d, "fleet.tsv"))
    if not fleet:
        return
    w("### Fleet: 100,000 VUs on one box, memory per VU")
    w("")
    w(f"`quern run bench/fleet.lua --workers W --vus N --ramp-up {meta.get('fleet_ramp', '20')}s "
      f"--duration {meta.get('fleet_secs', '40')}s --db none --source-addrs A`: each VU's "
      "`sc.init` sends `GET /small` with its number in an `X-VU` header, then each run is "
      "`GET /small` on its own keep-alive connection and `quern.sleep(\"5s\")`; "
      f"nginx has {meta.get('fleet_nginx', '8')} workers on one `reuseport` port and an access "
      "log of `$http_x_vu`: VUs served is the number of distinct `X-VU` values in it (every VU "
      "that made its first request), run requests its lines without one. Workers killed: the "
      "agent's messages of a worker lost (held, busy at the ceiling, crashed) as the console "
      "printed them; saturated seconds: `run.injector.saturated_s` of `--summary-json`, of "
      "the measured seconds; the verdict as the summary has it, up to its details, and the "
      "exit code. Source "
      "addresses: one 127.0.0.x per 10,000 VUs. RSS: VmRSS of console + agent + workers, "
      "sampled once a second; peak over the whole run (ramp-up included), steady: the last "
      "sample before the end. The floor, in the same run: `build/rel/connfloor` "
      "(bench/connfloor.c), a bare libcurl multi loop in W processes holding N/W idle "
      "connections each, opened at the same rate, nothing else; and the same with one libcurl "
      "share per connection (what a share with a connection cache costs in libcurl 7.88: an "
      "easy handle of its own and a 103-slot table, about 9.7 KB). The second row is the "
      "same run with `--max-in-flight "
      f"{meta.get('fleet_max_in_flight', '16000')}` (2,000 requests in flight a worker at "
      "most; the floors are the first row's); held back: requests that waited for one to "
      "end, which their response time counts and their service time does not; mean "
      "response / service: the runs' GET.")
    w("")
    w("| VUs | workers | --max-in-flight | VUs served (nginx: distinct X-VU) | workers killed "
      "| saturated s | verdict | connections established | runs | requests (nginx: run "
      "requests) | errors | every VU served? | peak KB per VU | steady KB per VU | held back "
      "| mean response / service ms | floor: peak / steady KB per connection | a share per "
      "connection: peak KB | exit |")
    w("|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in fleet:
        n, wk, pk, sd, est = int(r[0]), r[1], int(r[2]), int(r[3]), int(r[4])
        runs, req, et, ef, st = r[5], r[6], r[7], r[8], r[9]
        fp, fs, fok, ferr = int(r[10]), int(r[11]), r[12], r[13]
        sp = int(r[14]) if len(r) > 14 else 0
        mif = int(r[16]) if len(r) > 16 else 0
        held, mean, svc = (r[17], r[18], r[19]) if len(r) > 19 else ("—", "—", "—")
        errs = (int(et) + int(ef)) if et.isdigit() and ef.isdigit() else "?"
        if len(r) > 25:
            served, nruns, killed = int(r[20]), r[21], r[22]
            sat = f"{r[23]} of {r[24]}"
            verdict = " ".join(r[25:]).split(" (")[0]
            ok = served == n and errs == 0 and killed == "0"
            kcell = killed if killed == "0" else f"**{killed}**"
            extra = f"{served:,} | {kcell} | {sat} | {verdict} |"
            reqc = f"{req} ({nruns})"
        else:
            ok = runs.isdigit() and int(runs) >= n and errs == 0 and est >= n
            extra, reqc = "— | — | — | — |", req
        tgt = f" ({'meets' if pk / n <= TARGET_FLEET_KB else '**misses**'} ≤ {TARGET_FLEET_KB} KB)"
        w(f"| {n:,} | {wk} | {f'{mif:,}' if mif else 'none'} | {extra} {est:,} | {runs} | {reqc} "
          f"| {errs} | {'yes' if ok else '**no**'} | {fmt(pk / n)}{tgt} | {fmt(sd / n)} | {held} "
          f"| {mean} / {svc} | {fmt(fp / n)} / {fmt(fs / n)} ({fok} served, {ferr} errors) "
          f"| {fmt(sp / n)} | {st} |")
    w("")


def read_meta(d):
    """The run's settings: DIR/meta's key=value lines."""
    meta = {}
    with open(os.path.join(d, "meta")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            meta[k] = v
    return meta


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--only" and sys.argv[2] == "grpc":
        s = grpc_section(sys.argv[3])
        print(s if s else "grpc: no result")
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--only" and sys.argv[2] == "idle":
        s = idle_section(sys.argv[3])
        print(s if s else "idle: no result")
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--only" and sys.argv[2] == "redis":
        s = redis_section(sys.argv[3])
        print(s if s else "redis: no result")
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--only" and sys.argv[2] == "ws":
        s = ws_section(sys.argv[3])
        print(s if s else "ws: no result")
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--only" and sys.argv[2] == "soak":
        s = soak_section(sys.argv[3])
        print(s if s else "soak: no result")
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--only" and sys.argv[2] == "startlag":
        d = sys.argv[3]
        meta = read_meta(d)
        lag_section(d, meta, print)
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--only" and sys.argv[2] == "fleet":
        d = sys.argv[3]
        meta = read_meta(d)
        fleet_section(d, meta, print)
        return
    d = sys.argv[1]
    meta = read_meta(d)

    # speed[row][rep] = dict
    speed = {}
    for r in read_rows(os.path.join(d, "speed.tsv")):
        row, rep = r[0], int(r[1])
        if r[2] == "FAILED":
            speed.setdefault(row, {})[rep] = None
            continue
        req, rps, user, sys_, rss = int(r[2]), float(r[3]), float(r[4]), float(r[5]), int(r[6])
        cpu = user + sys_
        speed.setdefault(row, {})[rep] = {
            "req": req, "rps": rps, "cpu": cpu, "user": user, "sys": sys_,
            "us_per_req": cpu / req * 1e6 if req else None, "rss": rss,
        }

    def med(row, key):
        vals = [v[key] for v in speed.get(row, {}).values() if v and v[key] is not None]
        return statistics.median(vals) if vals else None

    def ratio_per_rep(num, den):
        out = []
        for rep in sorted(set(speed.get(num, {})) & set(speed.get(den, {}))):
            a, b = speed[num][rep], speed[den][rep]
            if a and b and a["us_per_req"] and b["us_per_req"]:
                out.append(a["us_per_req"] / b["us_per_req"])
        return out

    o = []
    w = o.append
    w("# Benchmarks: quern against wrk and Locust")
    w("")
    w("Generated by `bench/run.sh` (`make bench`); every number below is measured, "
      "none is copied from elsewhere. Rerun it to refresh this page; notes after the "
      "marker at the end are kept. What the numbers say, in short: [In short](#in-short), "
      "after the marker.")
    w("")
    w("## Machine")
    w("")
    w(f"* date: {meta['date']}")
    w(f"* CPU: {meta['cpu_model']}, `nproc` = {meta['nproc']} "
      f"(nginx pinned to CPU {meta['cpu_srv']}, each load tool to CPU {meta['cpu_tool']})")
    w(f"* kernel: {meta['kernel']}; OS: {meta['os']}")
    w(f"* nginx {meta['ver_nginx']}, wrk {meta['ver_wrk']}, Locust {meta['ver_locust']} "
      f"(Debian packages), quern at commit {meta['ver_quern']}")
    w("")
    w("## Results")
    w("")
    w(f"### Speed: {meta['conns']} connections / users / VUs, no think time, "
      f"`GET /small` (100-byte body), {meta['secs']} s per run")
    w("")
    w(f"Medians of {meta['reps']} runs taken in alternation (wrk, wrk+Lua, Locust, quern, "
      "then again, the order turned by one row each round so that no row is always last "
      "while the machine's speed drifts). CPU is user+sys of the tool's whole process tree (GNU time), divided by "
      "the requests the tool itself reports; peak RSS is GNU time's `%M`. quern is "
      "`quern run --workers 1 --db none`: the console, its local agent and one worker process "
      "(the three are in the CPU figure; peak RSS is that of the largest one); no results "
      "database is written (`--db none`), so SQLite's writes are not counted.")
    w("")
    w("| tool | requests/s | CPU µs / request | peak RSS (MB) | requests per run |")
    w("|---|---:|---:|---:|---:|")
    for row, label in ROWS:
        if row not in speed:
            continue
        fails = sum(1 for v in speed[row].values() if v is None)
        note = f" ({fails} run(s) failed)" if fails else ""
        rss = med(row, "rss")
        w(f"| {label}{note} | {fmt(med(row, 'rps'))} | {fmt(med(row, 'us_per_req'))} | "
          f"{fmt(rss / 1024 if rss else None)} | {fmt(med(row, 'req'), 0)} |")
    w("")

    qw = ratio_per_rep("quern", "wrk")
    lq = ratio_per_rep("locust", "quern")
    w("### Ratios of CPU per request")
    w("")
    w("Each ratio is taken between runs of the same round (minutes apart at most), then "
      "the median of the rounds is reported. This machine's speed drifts by up to half "
      "between runs a minute apart (the same wrk command measured 12.2 to 18.1 µs per "
      "request in six 5 s runs in a row), so a single round's ratio can be far off.")
    w("")
    w("| ratio | per round | median | target | met? |")
    w("|---|---|---:|---|---|")
    if qw:
        m = statistics.median(qw)
        w(f"| quern / wrk | {', '.join(f'{x:.2f}' for x in qw)} | **{m:.2f}×** | "
          f"≤ {TARGET_WRK}× | {'yes' if m <= TARGET_WRK else '**no**'} |")
    if lq:
        m = statistics.median(lq)
        w(f"| Locust / quern | {', '.join(f'{x:.2f}' for x in lq)} | **{m:.2f}×** | "
          f"≥ {TARGET_LOCUST}× | {'yes' if m >= TARGET_LOCUST else '**no**'} |")
    w("")

    w("<details><summary>Every run</summary>")
    w("")
    w("| tool | round | requests | requests/s | user s | sys s | CPU µs / request | peak RSS (MB) |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|")
    for row, label in ROWS:
        for rep, v in sorted(speed.get(row, {}).items()):
            if v is None:
                w(f"| {label} | {rep} | failed | | | | | |")
            else:
                w(f"| {label} | {rep} | {v['req']} | {fmt(v['rps'])} | {v['user']:.2f} | "
                  f"{v['sys']:.2f} | {fmt(v['us_per_req'])} | {fmt(v['rss'] / 1024)} |")
    w("")
    w("</details>")
    w("")

    check = read_rows(os.path.join(d, "check.tsv"))
    if check:
        w(f"### Cross-check against nginx's access log ({meta['check_secs']} s runs)")
        w("")
        w("One extra run per tool against a second nginx port that logs every request: "
          "the requests the tool reports against the lines nginx wrote. A tool may send up to "
          "one request per connection that it does not count (in flight when it stops).")
        w("")
        w("| tool | reported by the tool | counted by nginx | difference |")
        w("|---|---:|---:|---:|")
        for r in check:
            label = dict(ROWS).get(r[0], r[0])
            if r[1] == "FAILED":
                w(f"| {label} | failed | | |")
                continue
            t, n = int(r[1]), int(r[2])
            w(f"| {label} | {t} | {n} | {n - t:+d} ({(n - t) / n * 100 if n else 0:+.2f} %) |")
        w("")

    mem = read_rows(os.path.join(d, "mem.tsv"))
    if mem:
        w(f"### Memory per VU: each VU loops `GET /small` then sleeps 1 s; "
          f"{meta['mem_secs']} s, ramp-up {meta['mem_ramp']} s")
        w("")
        w("VmRSS sampled once a second from 2 s after the end of the ramp-up to the end, the "
          "maximum kept, of the worker process (the process that runs the VUs: quern's worker, "
          "Locust's one process) and of the tool's whole process tree (quern: console, agent and "
          "worker). The baseline is the same run with 1 VU (quern needs at least one), and "
          "per VU = (RSS(N) − RSS(1)) / (N − 1). The target is on the worker's figure.")
        w("")
        w("| tool | VUs | worker max RSS (MB) | baseline, 1 VU (MB) | KB per VU, worker | "
          "KB per VU, whole tree | requests | errors |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|")
        base = {r[0]: int(r[2]) for r in mem if r[1] == "1"}
        wbase = {r[0]: int(r[6]) for r in mem if r[1] == "1" and len(r) > 6}
        for r in mem:
            tool, n, rss = r[0], int(r[1]), int(r[2])
            wrss = int(r[6]) if len(r) > 6 else rss
            req = r[4] if len(r) > 4 else "?"
            err = r[5] if len(r) > 5 else "?"
            per = ((rss - base[tool]) / (n - 1)) if n > 1 and tool in base else None
            wper = ((wrss - wbase[tool]) / (n - 1)) if n > 1 and tool in wbase else None
            tgt = ""
            if tool == "quern" and n >= 10000 and wper is not None:
                tgt = f" ({'meets' if wper <= TARGET_KB else '**misses**'} ≤ {TARGET_KB} KB)"
            label = {"quern": "quern (`bench/idle.lua`)", "locust": "Locust FastHttpUser"}.get(tool, tool)
            w(f"| {label} | {n:,} | {fmt(wrss / 1024)} | "
              f"{fmt(wbase.get(tool, 0) / 1024)} | {fmt(wper) if wper is not None else '—'}{tgt} | "
              f"{fmt(per) if per is not None else '—'} | {req} | {err} |")
        w("")

    scale = read_rows(os.path.join(d, "scale.tsv"))
    if scale:
        w(f"### Scale: concurrent VUs in one worker, one open keep-alive connection each")
        w("")
        w(f"`quern run bench/scale.lua --workers 1 --vus N --ramp-up {meta['scale_ramp']}s "
          f"--duration {meta['scale_secs']}s --db none --source-addrs A`: each VU sends `GET /small` once per "
          "5 s (pacing) on its own keep-alive connection and is idle in between. Connections: "
          "the most sockets to nginx's port in state ESTABLISHED (`ss`, sampled once a second "
          "after the ramp-up). RSS: maximum VmRSS sampled after the ramp-up, of the "
          "worker process alone and of console + agent + worker. Source addresses: 127.0.0.1 "
          "up to 25,000 VUs, then one more 127.0.0.x per 25,000 (VU i leaves from address "
          "(i−1) mod n).")
        w("")
        w(f"Limits of this machine: the local port range "
          f"{meta['port_range'].replace(' ', '–')} (about "
          f"{int(meta['port_range'].split()[1]) - int(meta['port_range'].split()[0]) + 1:,} "
          f"ports toward one server address and port); the open-file limit of the session, "
          f"which the worker inherits, is {int(meta['nofile']):,} (hard limit: bench/run.sh "
          f"cannot raise it), so one worker cannot hold more than about that many sockets; a row "
          f"that needs more is skipped.")
        w("")
        w("| VUs | connections established | runs | requests | tech. errors "
          "| every VU served? | worker RSS (MB) | KB per VU (worker) | tree RSS (MB) | exit |")
        w("|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
        best = 0
        skipped = []
        for r in scale:
            if r[1] == "SKIPPED":
                skipped.append(int(r[0]))
                w(f"| {int(r[0]):,} | skipped: needs more than the open-file limit "
                  f"({int(r[2]):,}) | | | | | | | | |")
                continue
            n, tr, wr, est = int(r[0]), int(r[1]), int(r[2]), int(r[3])
            runs, req, et, ef, nc, st = r[4], r[5], r[6], r[7], r[8], r[9]
            ok = runs.isdigit() and int(runs) >= n and et == "0" and est >= n
            if ok:
                best = max(best, n)
            w(f"| {n:,} | {est:,} | {runs} | {req} | {et} | {'yes' if ok else '**no**'} | "
              f"{fmt(wr / 1024)} | {fmt(wr / n) if wr else '—'} | {fmt(tr / 1024)} | {st} |")
        w("")
        why = ""
        if best < TARGET_SCALE and skipped:
            why = (f"; {', '.join(f'{x:,}' for x in skipped)} VUs could not be tried: one "
                   f"process may hold {int(meta['nofile']):,} descriptors here")
        w(f"Largest VU count held with every VU served: **{best:,}** "
          f"(target ≥ {TARGET_SCALE:,}: **{'met' if best >= TARGET_SCALE else 'not met'}**{why}).")
        w("")

    fleet_section(d, meta, w)

    fanin = read_rows(os.path.join(d, "fanin.tsv"))
    refused = read_rows(os.path.join(d, "fanin.refused"))
    if fanin or refused:
        w("### Console fan-in: simulated agents × 50 steps of interval statistics a second")
        w("")
        w("`bin/quern run bench/fanin.lua --agents N --vus N --listen 127.0.0.1:PORT "
          f"--token-file F --wait 120s --duration {meta['fanin_secs']}s --db none -q` (pinned to "
          "CPU 1) and `build/rel/fanin --agents N --steps 50` (tests/tools/fanin.c, pinned to "
          "CPU 0): N simulated agents, each authenticated and registered as a real agent "
          "(1 worker), answering StartRun with the 50 steps' StepsDef and Ready, then sending "
          "every second an Interval with all 50 steps (counts, sums, an encoded latency "
          "histogram of 20 samples), and, as a real agent does, a Ping or a Pong only when it "
          "sent nothing else for a second (the intervals keep the link alive), and RunFinished "
          "at the end. "
          f"Console CPU: utime+stime from /proc/PID/stat over {meta['fanin_window']} s, "
          "from 5 s after every agent had its Go, as % of one core.")
        w("")
        if meta.get("fanin_quern", "bin/quern") != "bin/quern":
            w(f"The console of this row is `{meta['fanin_quern']}` (BENCH_FANIN_QUERN), "
              "not bin/quern.")
            w("")
        if refused:
            r = refused[0]
            w(f"**The console refused {int(r[0]):,} agents** (exit status {r[1]}): "
              f"`{' '.join(r[2:])}`. The row below ran at the largest count it accepts.")
            w("")
        w("| agents requested | agents run | console CPU (% of one core) | user / sys ticks "
          "| console RSS (MB) | step counts merged by the console | sent by the simulator "
          "| target |")
        w("|---:|---:|---:|---|---:|---:|---:|---|")
        for r in fanin:
            if r[2] == "FAILED":
                w(f"| {int(r[0]):,} | {int(r[1]):,} | failed | | | | | |")
                continue
            want, n, pct = int(r[0]), int(r[1]), float(r[2])
            tgt = (f"≤ {TARGET_FANIN} % at 1,000 agents: "
                   + ("**not measurable** (refused)" if n < 1000 else
                      ("met" if pct <= TARGET_FANIN else "**missed**")))
            w(f"| {want:,} | {n:,} | **{pct:.1f} %** | {r[4]} / {r[5]} | {fmt(int(r[6]) / 1024)} "
              f"| {r[7]} | {r[8]} | {tgt} |")
        w("")

    lag_section(d, meta, w)

    har = read_rows(os.path.join(d, "har2lua.tsv"))
    if har:
        r = har[0]
        w(HAR2LUA_TITLE)
        w("")
        w("`bin/quern har2lua big.har -o big.lua` on a recording written by `bench/bighar.py "
          "big.har MB`: rounds of a form page, its post and redirect, a JSON answer and a call, "
          "each round's answers handing out the values its requests send back (a hidden "
          "token, an id in a Location, a JSON id and token). Beside it, in the same run, a "
          "plain parse of the same file (`python3 -c 'import json; json.load(open(F))'`), the "
          "floor for reading it. Median of 3 of each.")
        w("")
        w("| MB | entries | steps | requests | correlated values | har2lua (s) | plain parse (s) "
          "| ratio | exit |")
        w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        ratio = float(r[5]) / float(r[6]) if float(r[6]) > 0 else None
        w(f"| {r[0]} | {int(r[1]):,} | {int(r[2]):,} | {int(r[3]):,} | {int(r[4]):,} | {r[5]} "
          f"| {r[6]} | {fmt(ratio)} | {r[7]} |")
        w("")

    ipr = read_rows(os.path.join(d, "ipr.tsv"))
    if ipr:
        w(ipr_section(ipr))
    soak = soak_section(d)
    if soak:
        w(soak)
    ws = ws_section(d, med("quern", "rps") if "quern" in speed else None)
    if ws:
        w(ws)
    idle = idle_section(d)
    if idle:
        w(idle)
    g = grpc_section(d)
    if g:
        w(g)
    rd = redis_section(d)
    if rd:
        w(rd)

    w("## Method")
    w("")
    w("* nginx: its own config in a temp dir (`bench/run.sh` writes it), 1 worker process, "
      "`keepalive_requests 1000000; keepalive_timeout 300s`, `worker_connections 20000`, "
      "`location = /small { return 200 \"<100 bytes>\"; }`, access log off except on the "
      "cross-check port; free loopback ports found at run time; runs as the current user.")
    w("* Each command runs as `/usr/bin/time -f '%U %S %M' taskset -c 1 COMMAND`; "
      "GNU time's user and system times include every child the tool waited for.")
    w("* Requests are the tool's own count: wrk's `N requests in`, Locust's "
      "`Aggregated` line of the summary it prints at exit (not its `--csv` file, which is rewritten once a second and missed up to the last second of a run), quern's `count` in `--summary-json`. "
      "Requests/s likewise as the tool reports it.")
    w("* The whole run of each command is measured, start-up and shutdown included "
      "(Python imports for Locust, script loading for quern).")
    w("")
    w("Commands of the speed rows (`$BASE` is `http://127.0.0.1:<free port>`; "
      "`$OUT` a per-run temp dir):")
    w("")
    w("```sh")
    for row, _ in ROWS:
        w(f"/usr/bin/time -f '%U %S %M' taskset -c 1 {meta['cmd_' + row]}")
    w("```")
    w("")
    w("Memory rows: `taskset -c 1 bin/quern run bench/idle.lua --vus N --workers 1 --db none --ramp-up "
      f"{meta['mem_ramp']}s --duration {meta['mem_secs']}s -q -p base_url=$BASE` and "
      "`BENCH_THINK=1 taskset -c 1 locust -f bench/locustfile.py --headless -u N -r N/"
      f"{meta['mem_ramp']} -t {meta['mem_secs']}s --host $BASE --only-summary`.")
    w("")
    w(f"This page was produced by: `{meta['command']}` with BENCH_SECONDS={meta['secs']} "
      f"BENCH_CONNS={meta['conns']} BENCH_REPS={meta['reps']} "
      f"BENCH_MEM_SECONDS={meta['mem_secs']}.")
    w("")

    w(KEEP)
    kept = ""
    if os.path.exists(OUT):
        with open(OUT) as f:
            cur = f.read()
        if KEEP in cur:
            kept = cur.split(KEEP, 1)[1].lstrip("\n")
    print("\n".join(o))
    if kept:
        print()
        print(kept, end="" if kept.endswith("\n") else "\n")


if __name__ == "__main__":
    main()
