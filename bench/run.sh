#!/bin/bash
# make bench: quern side by side with wrk and Locust against one local nginx.
#
# What it does (docs/benchmarks.md explains the method and holds the results):
#   1. installs what it lacks from Debian (nginx, wrk, python3-locust, GNU time,
#      util-linux for taskset, python3-grpcio and protobuf-compiler for the gRPC
#      row, redis-server and redis-tools for the Redis row, mosquitto and
#      mosquitto-clients for the idle MQTT row), with sudo when not root;
#   2. starts nginx on two free loopback ports from a config written into a
#      temp dir (1 worker, pinned to CPU 0): one port without access log for
#      the speed rows, one with an access log for the cross-check;
#   3. speed rows, each tool pinned to CPU 1, the same workload (N connections
#      or VUs, no think time, GET /small) for the same time, BENCH_REPS
#      rounds in alternation (wrk, wrk + Lua, Locust FastHttpUser, quern), the
#      order turned by one row each round;
#   4. cross-check: one short run of each tool against the logging port,
#      requests counted by nginx against requests reported by the tool;
#   5. memory per VU: quern at 1 (baseline) and BENCH_MEM_VUS VUs, Locust at 1
#      and BENCH_LOCUST_USERS users, each VU looping GET /small + 1 s sleep;
#   6. scale: quern with one worker and BENCH_SCALE_VUS VUs, each holding one
#      keep-alive connection (GET /small, pacing 5 s): connections established,
#      runs against VUs, errors, RSS;
#   6b. start lag: quern's open model (bench/small.lua, --rate R, one worker) at
#      rising rates, then bisected, each rate beside its floor measured at the
#      same rate in the same run, the two in alternation: build/rel/timerlag
#      (bench/timerlag.c), a bare timerfd loop taking the same schedule. A rate
#      is kept when quern's start lag p99 (scenarios[0].arrivals.start_lag in
#      --summary-json) is within 1.5x the floor's p99, and under 1 ms where the
#      floor's is, none dropped: the highest such rate, next to quern's closed
#      model (--vus 50) and plain wrk in the same run (Debian has no wrk2);
#      BENCH_ONLY=startlag runs this row alone (with nginx) and prints it,
#      without writing the report;
#   6c. fleet: quern with 8 workers and 100,000 VUs (bench/fleet.lua: a GET in
#      sc.init with the VU's number in X-VU, then GET + 5 s sleep per run):
#      peak and steady RSS of the whole tree per VU, VUs served (distinct
#      X-VU in nginx's access log), workers killed, saturated seconds, verdict,
#      errors, beside the floor (bench/connfloor.c, bare libcurl) in the same
#      run; BENCH_ONLY=fleet runs this row alone (nginx, then the rows),
#      prints it and leaves the report as it is;
#   6d. har2lua: a recording of BENCH_HAR_MB MB (bench/bighar.py: rounds of a form
#      page, its post and redirect, a JSON answer and a call, each round's answers
#      handing out the values its requests send back) converted by
#      `bin/quern har2lua`, beside a plain parse of the same file by Python's json
#      module in the same run (the floor for reading it); BENCH_ONLY=har2lua runs
#      this row alone and prints it, without nginx and without writing the report;
#   6e. instructions per request: callgrind (valgrind) on quern's agent and
#      its worker making BENCH_IPR_VUS x BENCH_IPR_RUNS GETs of /small, start-up
#      included, beside build/rel/reqfloor (bench/reqfloor.c: a bare libcurl
#      multi loop) making the same requests, once with the headers quern sends
#      and once bare; Debian's own libcurl. Counts do not depend on the
#      machine's load, so this row shows a change of cost that timings here
#      cannot; BENCH_ONLY=ipr runs this row alone (nginx, then the row), prints
#      it and leaves the report as it is;
#   6f. soak: BENCH_SOAK_VUS VUs paced at 1 s (one GET a run) for
#      BENCH_SOAK_SECONDS against an nginx of its own that sets a new cookie on
#      every response, one worker, its results database written: the RSS of the
#      console, the agent and the worker every 10 s, at the end of the ramp, each
#      quarter and the end, requests against nginx's log lines, connections,
#      errors; BENCH_ONLY=soak runs this row alone (with nginx) and prints it,
#      without writing the report;
#   6g. WebSocket: against tests/tools/ws_server.py (python3-websockets, echo),
#      BENCH_WS_VUS connections x BENCH_WS_ROUND_TRIPS round trips (bench/ws.lua)
#      beside a bare python3-websockets client loop doing the same
#      (bench/wsfloor.py), BENCH_WS_REPS rounds in alternation: round trips a
#      second and CPU per message; then BENCH_WS_IDLE VUs of one worker holding
#      an idle WebSocket each (bench/wsidle.lua): the worker's RSS before and
#      after they connect; BENCH_ONLY=ws runs this row alone and prints it,
#      without writing the report;
#   6h. gRPC: against tests/tools/grpc_server.py (python3-grpcio), cleartext
#      and TLS, BENCH_GRPC_VUS VUs x BENCH_GRPC_CALLS unary calls each (bench/grpc.lua)
#      beside a bare python3-grpcio client doing the same (bench/grpcfloor.py),
#      BENCH_GRPC_REPS rounds in alternation: calls a second and CPU per call;
#      BENCH_ONLY=grpc runs this row alone and prints it, without writing the
#      report;
#   6k. idle connections: BENCH_IDLE_COUNTS idle WebSockets (python3-websockets),
#      idle step:tcp connections (redis-server) and idle quern.mqtt clients,
#      each subscribed to a topic of its own (mosquitto), held by quern's
#      workers, the workers' RSS before and after they connect, beside
#      build/rel/idlefloor (bench/idlefloor.c), a bare epoll loop holding the
#      same sockets; BENCH_ONLY=idle runs these rows alone and prints them,
#      without writing the report;
#   6i. the regression gate (below, BENCH_ONLY=gate); 6j. capacity searches
#      that hold still: BENCH_STABLE_RUNS identical searches against an nginx
#      limited to 125/s in its delaying mode, each one's capacity and
#      limited_by (BENCH_ONLY=stable runs it alone and prints it);
#   6k. Redis: against a redis-server of its own (Debian's, no persistence),
#      BENCH_REDIS_VUS connections x BENCH_REDIS_OPS GETs (bench/redis.lua,
#      quern.redis) beside redis-benchmark (-t get -P 1) with as many
#      connections and GETs, BENCH_REDIS_REPS rounds in alternation: GETs a
#      second, CPU per GET, and the GETs the server counted for each;
#      BENCH_ONLY=redis runs this row alone and prints it, without writing
#      the report;
#   7. console fan-in: a console (bin/quern run bench/fanin.lua --agents N) fed
#      by tests/tools/fanin.c, N simulated agents x 50 steps of statistics a
#      second; the console's CPU from /proc/PID/stat over a steady window. If
#      the console refuses N agents, the refusal is recorded and the row is run
#      at the largest N it accepts;
#   8. writes the report (bench/report.py) to BENCH_OUT.
#
# quern runs as `quern run ... --workers 1 --db none`: console + local agent +
# one worker process (all three are in the CPU and RSS figures), no SQLite
# results database (its writes are not part of the engine's cost).
#
# Environment (defaults in brackets):
#   BENCH_SECONDS [10]  duration of each speed row     BENCH_CONNS [50]  connections / VUs
#   BENCH_REPS [5]      rounds of the speed rows   BENCH_CHECK_SECONDS [3]  cross-check runs
#   BENCH_MEM_SECONDS [30]  memory rows                BENCH_MEM_RAMP [5]  their ramp-up (s)
#   BENCH_MEM_VUS ["1000 10000"]  quern VU counts      BENCH_LOCUST_USERS [1000]  Locust users
#   BENCH_ROWS ["wrk wrk-lua locust quern"]            BENCH_SKIP_MEM [0]  1 skips step 5
#   BENCH_SCALE_VUS ["10000 19000 50000"]  BENCH_SCALE_SECONDS [30]  BENCH_SCALE_RAMP [10]
#   BENCH_SKIP_SCALE [0]  1 skips step 6               BENCH_SKIP_FANIN [0]  1 skips step 7
#   BENCH_FLEET_VUS ["100000"]  BENCH_FLEET_WORKERS [8]  BENCH_FLEET_RAMP [20]  BENCH_FLEET_SECONDS [40]
#   BENCH_FLEET_NGINX [8] (nginx workers of that row)  BENCH_SKIP_FLEET [0]  1 skips step 6c
#   BENCH_FLEET_MAX_IN_FLIGHT [16000]  the second fleet row's --max-in-flight (0: no second row)
#   BENCH_FANIN_AGENTS [1000]  BENCH_FANIN_SECONDS [30]  BENCH_FANIN_WINDOW [20] (measured
#   from 5 s after Go)  BENCH_FANIN_QUERN [bin/quern]  the console binary of that row
#   BENCH_SKIP_LAG [0]  1 skips step 6b   BENCH_LAG_SECONDS [5]  BENCH_LAG_RATES ["125 250 500 1000 2000 4000
#   8000 16000 32000 64000"]  BENCH_LAG_BISECT [3]  halvings between the last good and first bad
#   BENCH_LAG_FLOOR_X [1.5]  how far above the floor's p99 quern's may be
#   BENCH_SKIP_HAR2LUA [0]  1 skips step 6d   BENCH_HAR_MB [50]  its recording's size
#   BENCH_SKIP_IPR [0]  1 skips step 6e   BENCH_IPR_VUS [50]  BENCH_IPR_RUNS [400]  runs per VU
#   BENCH_IPR_REPS [3]  rounds of that row (quern, the floor, the bare floor), medians reported
#   BENCH_SKIP_SOAK [0]  1 skips step 6f   BENCH_SOAK_SECONDS [3600]  BENCH_SOAK_VUS [10000]
#   BENCH_SOAK_RAMP [20]  its ramp-up (s)   BENCH_SOAK_EVERY [10]  seconds between RSS samples
#   BENCH_SKIP_WS [0]  1 skips step 6g   BENCH_WS_VUS [10]  BENCH_WS_ROUND_TRIPS [2000] per connection
#   BENCH_WS_REPS [3]  rounds of that row   BENCH_WS_IDLE [1000]  idle WebSockets of its second part
#   BENCH_SKIP_IDLE [0]  1 skips step 6k   BENCH_IDLE_COUNTS ["1000 10000 20000"]  BENCH_IDLE_KINDS ["ws tcp mqtt"]
#   BENCH_IDLE_PER [10000]  connections a server, a worker and a floor process hold at most
#   BENCH_SKIP_GRPC [0]  1 skips step 6h   BENCH_GRPC_VUS [10]  BENCH_GRPC_CALLS [2000] per VU
#   BENCH_GRPC_REPS [3]  rounds of that row
#   BENCH_SKIP_REDIS [0]  1 skips step 6k   BENCH_REDIS_VUS [50]  BENCH_REDIS_OPS [4000] GETs per VU
#   BENCH_REDIS_REPS [5]  rounds of that row
#   BENCH_OUT [docs/benchmarks.md]                     BENCH_KEEP [0]  1 keeps the temp dir
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)

SECS=${BENCH_SECONDS:-10}
CONNS=${BENCH_CONNS:-50}
REPS=${BENCH_REPS:-5}
CHECK_SECS=${BENCH_CHECK_SECONDS:-3}
MEM_SECS=${BENCH_MEM_SECONDS:-30}
MEM_RAMP=${BENCH_MEM_RAMP:-5}
MEM_VUS=${BENCH_MEM_VUS:-1000 10000}
LOCUST_USERS=${BENCH_LOCUST_USERS:-1000}
ROWS=${BENCH_ROWS:-wrk wrk-lua locust quern}
SCALE_VUS=${BENCH_SCALE_VUS:-10000 19000 50000}
SCALE_SECS=${BENCH_SCALE_SECONDS:-30}
SCALE_RAMP=${BENCH_SCALE_RAMP:-10}
FANIN_AGENTS=${BENCH_FANIN_AGENTS:-1000}
FANIN_SECS=${BENCH_FANIN_SECONDS:-30}
FANIN_WINDOW=${BENCH_FANIN_WINDOW:-20}
FANIN=build/rel/fanin
FANIN_QUERN=${BENCH_FANIN_QUERN:-bin/quern}
OUT=${BENCH_OUT:-docs/benchmarks.md}
export BENCH_OUT=$OUT
PY=/usr/bin/python3 # Debian's python, the one python3-locust is installed for

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ------------------------------------------------------------ 6d. har2lua
# har2lua_row DIR: writes DIR/har2lua.tsv, "mb entries steps requests correlated
# quern_s parse_s exit": the median of 3 conversions and of 3 plain parses.
har2lua_row() {
    local d=$1 f="$1/big.har" q=() p=() rc=0 t0 t1
    "$PY" bench/bighar.py "$f" "${BENCH_HAR_MB:-50}"
    for _ in 1 2 3; do
        t0=$(date +%s.%N)
        bin/quern har2lua "$f" -o "$d/big.lua" 2>"$d/har2lua.err" || rc=$?
        t1=$(date +%s.%N)
        q+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')")
        t0=$(date +%s.%N)
        "$PY" -c 'import json, sys; json.load(open(sys.argv[1]))' "$f"
        t1=$(date +%s.%N)
        p+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')")
    done
    echo "$(awk -v n="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", n / 1e6 }') $(jq '.log.entries | length' "$f")" \
        "$(sed -n 's/^-- converted by .*: \([0-9]*\) steps\?, \([0-9]*\) requests\?, \([0-9]*\) correlated.*/\1 \2 \3/p' "$d/big.lua")" \
        "$(printf '%s\n' "${q[@]}" | sort -n | sed -n 2p) $(printf '%s\n' "${p[@]}" | sort -n | sed -n 2p) $rc" \
        >"$d/har2lua.tsv"
    rm -f "$f" "$d/big.lua"
}
if [ "${BENCH_ONLY:-}" = har2lua ]; then
    [ -x bin/quern ] || make -s quern
    d=$(mktemp -d /tmp/quern-bench.XXXXXX)
    har2lua_row "$d"
    read -r mb n st rq co qs ps rc <"$d/har2lua.tsv"
    log "har2lua: $mb MB, $n entries ($st steps, $rq requests, $co correlated values): ${qs}s," \
        "a plain parse ${ps}s, ratio $(awk -v a="$qs" -v b="$ps" 'BEGIN { printf "%.1f", a / b }'), exit $rc"
    cat "$d/har2lua.tsv"
    rm -rf "$d"
    exit 0
fi

# 6i. the regression gate: BENCH_GATE_RUNS runs of an unchanged demo target
# (GET /slow?ms=20, 4 VUs paced at 100 ms, 5 s each), each compared in turn
# with the previous one and with its BENCH_GATE_BASES previous ones
# (--baselines), then as many runs of the target 30 % slower (26 ms), each
# compared with the unchanged runs: "A/A regressions flagged of comparisons"
# and "A/B regressions caught of runs"; BENCH_ONLY=gate runs it alone and
# prints it (docs/benchmarks.md keeps the figures).
gate_row() {
    local d=$1 n=${BENCH_GATE_RUNS:-10} k=${BENCH_GATE_BASES:-3} aa=0 aaf=0 ab=0 abc=0 i port rc
    local db=$d/gate.db tp
    [ -x bin/quern ] && [ -x bin/quern-target ] || make -s quern
    bin/quern-target --port 0 --port-file "$d/tport" >/dev/null 2>&1 &
    tp=$!
    for _ in $(seq 100); do [ -s "$d/tport" ] && break; sleep 0.05; done
    port=$(cat "$d/tport")
    gate_run() {
        bin/quern run tests/e2e/scripts/gate.lua --vus 4 --duration 5s -q --name gate --db "$db" \
            -p base_url="http://127.0.0.1:$port" -p ms="$1" >/dev/null 2>&1
    }
    for i in $(seq "$n"); do
        gate_run 20 || log "gate: run $i failed"
        if [ "$i" -ge 2 ]; then
            aa=$((aa + 1))
            bin/quern compare "$i" $((i - 1)) --db "$db" -o "$d/c.html" --fail-on-regression 10% \
                >"$d/aa1.$i" 2>&1 || aaf=$((aaf + 1))
        fi
        if [ "$i" -gt "$k" ]; then
            aa=$((aa + 1))
            bin/quern compare "$i" --baselines "$k" --db "$db" -o "$d/c.html" \
                --fail-on-regression 10% >"$d/aak.$i" 2>&1 || aaf=$((aaf + 1))
        fi
    done
    for i in $(seq "$n"); do
        gate_run 26 || log "gate: slower run $i failed"
        ab=$((ab + 1))
        rc=0
        bin/quern compare "$((n + i))" --baselines "$k" --db "$db" -o "$d/c.html" \
            --fail-on-regression 10% >"$d/ab.$i" 2>&1 || rc=$?
        if [ "$rc" = 1 ] && grep -q '^regression beyond' "$d/ab.$i"; then abc=$((abc + 1)); fi
    done
    kill "$tp" 2>/dev/null
    wait "$tp" 2>/dev/null || true
    echo "$aaf $aa $abc $ab" >"$d/gate.tsv"
}
if [ "${BENCH_ONLY:-}" = gate ]; then
    d=$(mktemp -d /tmp/quern-bench.XXXXXX)
    log "gate: ${BENCH_GATE_RUNS:-10} runs of an unchanged server, then as many 30 % slower"
    gate_row "$d"
    read -r aaf aa abc ab <"$d/gate.tsv"
    log "gate: unchanged server: $aaf of $aa comparisons flagged a regression; 30 % slower: $abc of $ab caught"
    cat "$d/gate.tsv"
    rm -rf "$d"
    exit 0
fi

# BENCH_ONLY=startlag: nginx and step 6b alone, printed, no report written.
lag_only=0
if [ "${BENCH_ONLY:-}" = startlag ]; then
    lag_only=1 REPS=0 ROWS=""
    export BENCH_SKIP_MEM=1 BENCH_SKIP_SCALE=1 BENCH_SKIP_FLEET=1 BENCH_SKIP_HAR2LUA=1 BENCH_SKIP_FANIN=1
    export BENCH_SKIP_LAG=0
fi
# BENCH_ONLY=fleet: nginx and step 6c alone, printed, no report written.
fleet_only=0
if [ "${BENCH_ONLY:-}" = fleet ]; then
    fleet_only=1 REPS=0 ROWS=""
    export BENCH_SKIP_MEM=1 BENCH_SKIP_SCALE=1 BENCH_SKIP_LAG=1 BENCH_SKIP_HAR2LUA=1 BENCH_SKIP_FANIN=1
    export BENCH_SKIP_IPR=1 BENCH_SKIP_FLEET=0
fi

# ---------------------------------------------------------------- 1. packages
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
# Locust only for its rows (speed, memory)
case " $ROWS " in *" locust "*) locust_needed=1 ;; *) locust_needed=${BENCH_SKIP_MEM:-0}; locust_needed=$((1 - locust_needed)) ;; esac
[ "${BENCH_ONLY:-}" != ipr ] || locust_needed=0
[ "${BENCH_ONLY:-}" != soak ] || locust_needed=0
[ "${BENCH_ONLY:-}" != stable ] || { locust_needed=0; BENCH_SKIP_IPR=1; }
[ "${BENCH_ONLY:-}" != ws ] || { locust_needed=0; BENCH_SKIP_IPR=1; }
[ "${BENCH_ONLY:-}" != grpc ] || { locust_needed=0; BENCH_SKIP_IPR=1; }
[ "${BENCH_ONLY:-}" != idle ] || { locust_needed=0; BENCH_SKIP_IPR=1; }
[ "${BENCH_ONLY:-}" != redis ] || { locust_needed=0; BENCH_SKIP_IPR=1; }
[ -x /usr/bin/redis-server ] || need+=(redis-server)
[ -x /usr/bin/redis-benchmark ] || need+=(redis-tools)
[ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
[ -x /usr/bin/mosquitto_sub ] || need+=(mosquitto-clients)
"$PY" -c 'import websockets' 2>/dev/null || need+=(python3-websockets)
"$PY" -c 'import grpc, google.protobuf' 2>/dev/null || need+=(python3-grpcio python3-protobuf)
command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
[ "$locust_needed" = 0 ] || [ -x /usr/bin/locust ] || need+=(python3-locust)
[ -x /usr/bin/time ] || need+=(time)
[ "${BENCH_SKIP_IPR:-0}" = 1 ] || command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
command -v taskset >/dev/null 2>&1 || need+=(util-linux)
[ -x "$PY" ] || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
    log "installing: ${need[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
[ -x bin/quern ] || make -s quern
[ "$lag_only" = 1 ] || [ "$fleet_only" = 1 ] || [ "${BENCH_ONLY:-}" = ws ] ||
    [ "${BENCH_ONLY:-}" = redis ] ||
    [ "${BENCH_ONLY:-}" = grpc ] || [ "${BENCH_ONLY:-}" = idle ] || [ -x "$FANIN" ] || make -s MODE=rel "$FANIN"
[ "$fleet_only" = 1 ] || [ -x build/rel/reqfloor ] || make -s MODE=rel build/rel/reqfloor
[ "$(nproc)" -ge 2 ] || log "warning: fewer than 2 CPUs: nginx and the tools share CPU 0"
CPU_SRV=0
CPU_TOOL=$(($(nproc) >= 2 ? 1 : 0))

# 10,000 VUs need 10,000 sockets in the tool and as many in nginx. Without
# the right to raise the hard limit, the tools get the session's hard limit
# (reported: it bounds the scale row).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
NOFILE=$(ulimit -n)

tmp=$(mktemp -d /tmp/quern-bench.XXXXXX)
nginx_pid=
idle_srv=()
cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
    [ -n "${soak_nginx:-}" ] && kill "$soak_nginx" 2>/dev/null && wait "$soak_nginx" 2>/dev/null
    [ -n "${ws_srv:-}" ] && kill "$ws_srv" 2>/dev/null && wait "$ws_srv" 2>/dev/null
    [ -n "${grpc_srv:-}" ] && kill "$grpc_srv" 2>/dev/null && wait "$grpc_srv" 2>/dev/null
    [ -n "${grpc_tls_srv:-}" ] && kill "$grpc_tls_srv" 2>/dev/null && wait "$grpc_tls_srv" 2>/dev/null
    [ "${#idle_srv[@]}" = 0 ] || idle_stop
    [ -n "${redis_srv:-}" ] && kill "$redis_srv" 2>/dev/null && wait "$redis_srv" 2>/dev/null
    if [ "${BENCH_KEEP:-0}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------- 2. nginx
free_port() {
    "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
port=$(free_port)
port_log=$(free_port)
while [ "$port_log" = "$port" ]; do port_log=$(free_port); done
body=$(printf '%0100d' 0 | tr 0 x) # 100 bytes
user_line=
[ "$(id -u)" = 0 ] && user_line="user $(id -un) $(id -gn);"
# run_totals SUMMARY.json: "runs requests errors_technical errors_functional
# new_connections" of a quern run, or "? ? ? ? ?".
run_totals() {
    "$PY" -c '
import json, sys
j = json.load(open(sys.argv[1]))
t = j["tests"]
print(sum(s["runs"] for s in j["scenarios"]), sum(x["count"] for x in t),
      sum(x["errors"]["technical"] for x in t), sum(x["errors"]["functional"] for x in t),
      sum(x.get("new_connections", 0) for x in t))' "$1" 2>/dev/null || echo "? ? ? ? ?"
}
# nginx_conf DIR WORKERS SERVERS: DIR/nginx.conf, the benchmark's server with
# WORKERS processes, keep-alive without limit, around the server blocks SERVERS.
nginx_conf() {
    mkdir -p "$1"
    cat >"$1/nginx.conf" <<EOF
# written by bench/run.sh
$user_line
daemon off;
master_process on;
worker_processes $2;
worker_rlimit_nofile 65536;
pid $1/nginx.pid;
error_log $1/error.log warn;
events { worker_connections 65536; multi_accept on; }
http {
    default_type text/plain;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    client_body_temp_path $1/body;
    proxy_temp_path $1/proxy;
    fastcgi_temp_path $1/fastcgi;
    uwsgi_temp_path $1/uwsgi;
    scgi_temp_path $1/scgi;
$3
}
EOF
}
nginx_conf "$tmp/nginx" 1 "
    server {                      # the speed rows: no access log
        listen 127.0.0.1:$port backlog=4096;
        access_log off;
        location = /small { return 200 \"$body\"; }
    }
    server {                      # the cross-check: one line per request
        listen 127.0.0.1:$port_log backlog=4096;
        access_log $tmp/nginx/access.log;
        location = /small { return 200 \"$body\"; }
    }"
taskset -c $CPU_SRV "$NGINX" -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$tmp/nginx/nginx.conf" &
nginx_pid=$!
base="http://127.0.0.1:$port"
base_log="http://127.0.0.1:$port_log"
for _ in $(seq 100); do
    "$PY" -c "import urllib.request,sys; urllib.request.urlopen('$base/small', timeout=1)" 2>/dev/null && break
    kill -0 "$nginx_pid" 2>/dev/null || die "nginx did not start: $(cat "$tmp/nginx/error.log")"
    sleep 0.1
done
got=$(curl -s "$base/small" 2>/dev/null | wc -c || true)
log "nginx (pid $nginx_pid, CPU $CPU_SRV) on $base (no log) and $base_log (access log); /small is $got bytes"

# ------------------------------------- 6j. capacity searches that hold still
# stable_row DIR: BENCH_STABLE_RUNS identical capacity searches (bench/small.lua,
# one worker, 50/s:50/s:4s:400/s, p95<100ms) against an nginx whose /small (an
# empty GIF: limit_req does not hold a bare return) is
# held to 125 requests a second by limit_req in its delaying mode (no nodelay:
# past the rate, requests wait in nginx, and the latency climbs): each
# search's capacity and limited_by, one line each, into DIR/stable.tsv.
stable_row() {
    local d=$1 n=${BENCH_STABLE_RUNS:-5} sp i
    sp=$(free_port)
    nginx_conf "$d/snginx" 1 "
    limit_req_zone \$binary_remote_addr zone=cap:1m rate=125r/s;
    server {
        listen 127.0.0.1:$sp backlog=4096;
        access_log off;
        location = /small { limit_req zone=cap burst=100000; empty_gif; }
    }"
    taskset -c $CPU_SRV "$NGINX" -p "$d/snginx" -e "$d/snginx/error.log" -c "$d/snginx/nginx.conf" &
    local sng=$!
    sleep 0.5
    : >"$d/stable.tsv"
    for i in $(seq "$n"); do
        taskset -c $CPU_TOOL bin/quern run bench/small.lua --capacity 50/s:50/s:4s:400/s \
            --threshold 'p95<100ms' --workers 1 --db none -q -p base_url="http://127.0.0.1:$sp" \
            --summary-json "$d/stable.$i.json" >"$d/stable.$i.out" 2>&1 || true
        jq -r '"\(.capacity.value) \(.capacity.limited_by) \(.verdict.passed)"' "$d/stable.$i.json" \
            >>"$d/stable.tsv"
        log "  search $i: $(tail -1 "$d/stable.tsv")"
    done
    kill "$sng" 2>/dev/null
    wait "$sng" 2>/dev/null || true
}
if [ "${BENCH_ONLY:-}" = stable ]; then
    log "stable: ${BENCH_STABLE_RUNS:-5} identical capacity searches against a rate-limited nginx"
    stable_row "$tmp"
    cat "$tmp/stable.tsv"
    exit 0
fi

# ------------------------------------------- 6e. instructions per request
# cg_total FILE...: the instructions callgrind counted in the files, summed.
cg_total() { awk '/^summary:/ { n += $2 } END { printf "%.0f", n }' "$@"; }
# ipr_round DIR ROUND HEADER...: callgrind on quern's agent and its worker
# (the console, outside valgrind, only drives them) making VUS x RUNS GETs of
# /small, then on build/rel/reqfloor making as many, with the HEADER lines and
# bare. Debian's libcurl (LD_LIBRARY_PATH cleared). Prints "vus runs requests
# errors quern_ir floor_ir bare_ir floor_ok bare_ok".
ipr_round() {
    local d=$1/ipr.$2 n=${BENCH_IPR_VUS:-50} r=${BENCH_IPR_RUNS:-400} lp apid rpid req err q f b
    shift 2
    mkdir -p "$d"
    head -c 32 /dev/urandom | base64 >"$d/token"
    chmod 600 "$d/token"
    lp=$(free_port)
    env -u LD_LIBRARY_PATH bin/quern run bench/small.lua --vus "$n" --runs "$r" --workers 1 --db none -q \
        --listen "127.0.0.1:$lp" --agents 1 --token-file "$d/token" --wait 120s \
        --summary-json "$d/quern.json" -p base_url="$base" >"$d/run.out" 2>&1 &
    rpid=$!
    sleep 0.5
    env -u LD_LIBRARY_PATH valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$d/cg.%p" \
        bin/quern agent --console "127.0.0.1:$lp" --token-file "$d/token" --workers 1 >"$d/agent.out" 2>&1 &
    apid=$!
    wait "$rpid" || log "ipr: quern run exited with status $? (see $d/run.out)"
    # the worker has ended with the run; the agent waits for the next one
    for _ in $(seq 100); do [ -z "$(cat /proc/"$apid"/task/*/children 2>/dev/null)" ] && break; sleep 0.1; done
    kill "$apid" 2>/dev/null
    wait "$apid" 2>/dev/null || true
    read -r req err < <("$PY" -c '
import json, sys
t = json.load(open(sys.argv[1]))["tests"]
print(sum(x["count"] for x in t), sum(x["errors"]["technical"] + x["errors"]["functional"] for x in t))' \
        "$d/quern.json" 2>/dev/null || echo "0 ?")
    q=$(cg_total "$d"/cg.*)
    env -u LD_LIBRARY_PATH valgrind --tool=callgrind --callgrind-out-file="$d/floor.cg" \
        build/rel/reqfloor "$base/small" "$n" "$r" "$@" >"$d/floor.out" 2>"$d/floor.err"
    f=$(cg_total "$d/floor.cg")
    env -u LD_LIBRARY_PATH valgrind --tool=callgrind --callgrind-out-file="$d/bare.cg" \
        build/rel/reqfloor "$base/small" "$n" "$r" >"$d/bare.out" 2>"$d/bare.err"
    b=$(cg_total "$d/bare.cg")
    echo "$n $r $req $err $q $f $b $(awk '{ print $1 }' "$d/floor.out") $(awk '{ print $1 }' "$d/bare.out")"
}
# ipr_row DIR: BENCH_IPR_REPS rounds of ipr_round with the header lines quern
# sends beside Host and Accept (read from its --trace). Writes DIR/ipr.tsv,
# a round a line: ipr_round's fields, then the header lines joined by "|"
# (spaces as "_").
ipr_row() {
    local -a hdr=()
    local rep line
    env -u LD_LIBRARY_PATH bin/quern run bench/small.lua --vus 1 --runs 1 --db none -q -v \
        -p base_url="$base" >"$1/ipr.trace" 2>&1 || true
    mapfile -t hdr < <(sed -n 's/^> \([A-Za-z0-9-]*: .*\)$/\1/p' "$1/ipr.trace" | grep -v -i '^\(host\|accept\):')
    : >"$1/ipr.tsv"
    for rep in $(seq "${BENCH_IPR_REPS:-3}"); do
        line=$(ipr_round "$1" "$rep" "${hdr[@]}")
        local IFS='|'
        echo "$line ${hdr[*]// /_}" >>"$1/ipr.tsv"
        unset IFS
        log "  ipr round $rep: $line"
    done
}
# ipr_say TSV: the medians of the rounds in one line.
ipr_say() {
    "$PY" -c '
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
ok = [r for r in rows if int(r[2]) > 0 and int(r[7] or 0) > 0 and int(r[8] or 0) > 0]
if not ok:
    sys.exit("ipr: every round failed")
q = statistics.median(int(r[4]) / int(r[2]) for r in ok)
f = statistics.median(int(r[5]) / int(r[7]) for r in ok)
b = statistics.median(int(r[6]) / int(r[8]) for r in ok)
print(f"ipr: {rows[0][0]} VUs x {rows[0][1]} runs, median of {len(ok)} of {len(rows)} rounds: instructions per "
      f"request (callgrind): quern {q:,.0f}, bare libcurl-multi {f:,.0f}, ratio {q / f:.3f} (the same request); "
      f"{b:,.0f} without the headers quern adds, ratio {q / b:.3f}", file=sys.stderr)' "$1"
}
if [ "${BENCH_ONLY:-}" = ipr ]; then
    ipr_row "$tmp"
    ipr_say "$tmp/ipr.tsv"
    cat "$tmp/ipr.tsv"
    exit 0
fi

# ------------------------------------------------------------ 6f. soak
# A long run at a steady load, each process's RSS sampled: BENCH_SOAK_VUS VUs
# paced at 1 s (bench/scale.lua, one GET a run), one worker, against an nginx
# of its own that sets a new cookie on every response and logs one short line
# a request; the console writes its results database (in the temp dir), as a
# real run does; --allow-saturation, so that the exit status says whether
# the run went well and the saturated seconds are reported beside it (two
# CPUs shared with nginx do not keep 10,000 runs a second on time). soak_row
# DIR writes DIR/soak.rss ("seconds console_kb agent_kb worker_kb" every
# BENCH_SOAK_EVERY s) and DIR/soak.tsv ("vus secs ramp requests nginx_lines
# established new_connections errors_tech errors_func exit missed_pacing
# saturated_s measured_s loop_lag_p99_ms").
SOAK_SECS=${BENCH_SOAK_SECONDS:-3600}
SOAK_VUS=${BENCH_SOAK_VUS:-10000}
SOAK_RAMP=${BENCH_SOAK_RAMP:-20}
SOAK_EVERY=${BENCH_SOAK_EVERY:-10}
# soak_kids PID: PID's children.
soak_kids() { cat /proc/"$1"/task/*/children 2>/dev/null || true; }
# soak_rss PID: VmRSS (kB) of PID, 0 once it has gone.
soak_rss() { [ -n "$1" ] && [ -r /proc/"$1"/status ] || { echo 0; return; }; awk '/^VmRSS:/ { print $2; f = 1 } END { if (!f) print 0 }' /proc/"$1"/status 2>/dev/null || echo 0; }
soak_row() {
    local d=$1/soak sport sbase pid t0 now agent worker est maxe=0 st=0 res lines sat
    mkdir -p "$d"
    sport=$(free_port)
    sbase="http://127.0.0.1:$sport"
    nginx_conf "$d/nginx" 1 "
    log_format soak '\$status \$uri';
    server {
        listen 127.0.0.1:$sport backlog=4096;
        access_log $d/nginx/access.log soak buffer=64k flush=1s;
        add_header Set-Cookie \"s=\$request_id; Path=/\" always;
        location = /small { return 200 \"$body\"; }
    }"
    taskset -c $CPU_SRV "$NGINX" -p "$d/nginx" -e "$d/nginx/error.log" -c "$d/nginx/nginx.conf" &
    soak_nginx=$!
    # the probe's line is not counted (its own path)
    for _ in $(seq 100); do curl -s -o /dev/null "$sbase/probe" && break; sleep 0.1; done
    taskset -c $CPU_TOOL bin/quern run bench/scale.lua --vus "$SOAK_VUS" --workers 1 --db "$d/results.db" \
        --ramp-up "${SOAK_RAMP}s" --duration "${SOAK_SECS}s" --allow-saturation -q --summary-json "$d/quern.json" \
        -p base_url="$sbase" -p pacing=1s >"$d/out" 2>"$d/err" &
    pid=$!
    t0=$(date +%s)
    : >"$d/soak.rss"
    while kill -0 "$pid" 2>/dev/null; do
        sleep "$SOAK_EVERY"
        now=$(($(date +%s) - t0))
        [ "$now" -le "$SOAK_SECS" ] || continue
        agent=$(soak_kids "$pid" | awk '{ print $1; exit }')
        worker=
        [ -z "$agent" ] || worker=$(soak_kids "$agent" | awk '{ print $1; exit }')
        echo "$now $(soak_rss "$pid") $(soak_rss "$agent") $(soak_rss "$worker")" >>"$d/soak.rss"
        # ss over 10,000 sockets is cheap enough once a minute
        if [ "$now" -ge "$SOAK_RAMP" ] && [ $((now % 60)) -lt "$SOAK_EVERY" ]; then
            est=$(ss -Htn state established "( dport = :$sport )" 2>/dev/null | wc -l)
            [ "$est" -gt "$maxe" ] && maxe=$est
        fi
    done
    wait "$pid" || st=$?
    sleep 1.5 # nginx flushes its log buffer every second
    kill "$soak_nginx" 2>/dev/null && wait "$soak_nginx" 2>/dev/null
    soak_nginx=
    lines=$(grep -vc ' /probe$' "$d/nginx/access.log" || true)
    res=$(run_totals "$d/quern.json" | cut -d' ' -f2-5)
    sat=$(jq -r '[(.run.load.missed_pacing // "?"), (.run.injector.saturated_s // "?"), (.run.injector.measured_s // "?"),
        (.run.injector.loop_lag_p99_ms // "?")] | map(tostring) | join(" ")' "$d/quern.json" 2>/dev/null || echo "? ? ? ?")
    set -- $res
    echo "$SOAK_VUS $SOAK_SECS $SOAK_RAMP $1 $lines $maxe $4 $2 $3 $st $sat" >"$d/../soak.tsv"
    cp "$d/soak.rss" "$d/../soak.rss"
    [ "$st" = 0 ] || { log "  quern exited with status $st; its stderr:"; head -c 2000 "$d/err" >&2; }
    log "  soak: $(cat "$d/../soak.tsv") (vus secs ramp requests nginx_lines established new_connections tech func exit missed_pacing saturated_s measured_s lag_p99_ms)"
    rm -f "$d/nginx/access.log" "$d/results.db"*
}
if [ "${BENCH_ONLY:-}" = soak ]; then
    log "soak: quern, $SOAK_VUS VUs paced at 1 s, a new cookie on every response, one worker (${SOAK_SECS}s)"
    soak_row "$tmp"
    "$PY" bench/report.py --only soak "$tmp"
    exit 0
fi

# ------------------------------------------------------------ 6g. WebSocket
# Against tests/tools/ws_server.py (python3-websockets) on CPU_SRV, each tool on
# CPU_TOOL. ws_row DIR: DIR/ws.tsv, a line a round, "rep round_trips seconds
# sent received errors user sys" of quern then "round_trips seconds user sys"
# of the bare Python client (bench/wsfloor.py), then the exit status.
# wsidle_row DIR: DIR/wsidle.tsv, "vus open_seen rss_before_kb rss_after_kb
# opened errors exit": the worker's RSS with every VU waiting, then with every
# VU holding an idle WebSocket.
WS_VUS=${BENCH_WS_VUS:-10}
WS_RT=${BENCH_WS_ROUND_TRIPS:-2000}
WS_REPS=${BENCH_WS_REPS:-3}
WS_IDLE=${BENCH_WS_IDLE:-1000}
ws_srv=
ws_start() {
    rm -f "$1/ws.port"
    taskset -c $CPU_SRV "$PY" tests/tools/ws_server.py "$1/ws.port" >"$1/ws.out" 2>"$1/ws.err" &
    ws_srv=$!
    for _ in $(seq 100); do [ -s "$1/ws.port" ] && break; sleep 0.1; done
    [ -s "$1/ws.port" ] || die "the WebSocket server did not start: $(cat "$1/ws.err")"
    ws_url="ws://127.0.0.1:$(cat "$1/ws.port")/echo"
}
ws_stop() { [ -z "$ws_srv" ] || { kill "$ws_srv" 2>/dev/null; wait "$ws_srv" 2>/dev/null || true; }; ws_srv=; }
ws_row() {
    local d=$1/ws st q f
    mkdir -p "$d"
    ws_start "$d"
    : >"$1/ws.tsv"
    for rep in $(seq "$WS_REPS"); do
        st=0
        /usr/bin/time -f '%U %S' -o "$d/q.time" taskset -c $CPU_TOOL bin/quern run bench/ws.lua \
            --vus "$WS_VUS" --runs 1 --workers 1 --db none -q --summary-json "$d/q.json" \
            -p ws_url="$ws_url" -p round_trips="$WS_RT" >"$d/q.out" 2>"$d/q.err" || st=$?
        q=$(jq -r '[(.tests[] | select(.id == "SC-BENCH-WS-STEP-2") | .count), .run.duration_s,
            ([.tests[].messages.sent] | add), ([.tests[].messages.received] | add),
            ([.tests[] | .errors.technical + .errors.functional] | add)] | map(tostring) | join(" ")' \
            "$d/q.json" 2>/dev/null || echo "? ? ? ? ?")
        /usr/bin/time -f '%U %S' -o "$d/f.time" taskset -c $CPU_TOOL "$PY" bench/wsfloor.py "$ws_url" \
            "$WS_VUS" "$WS_RT" >"$d/f.out" 2>"$d/f.err" || st=$((st + 100))
        f="$(cat "$d/f.out" 2>/dev/null || echo "? ?") $(tail -1 "$d/f.time")"
        echo "$rep $q $(tail -1 "$d/q.time") $f $st" >>"$1/ws.tsv"
        log "  ws round $rep: $(tail -1 "$1/ws.tsv")"
    done
    ws_stop
}
wsidle_row() {
    local d=$1/wsidle pid agent worker a b open st=0
    mkdir -p "$d"
    ws_start "$d"
    taskset -c $CPU_TOOL bin/quern run bench/wsidle.lua --vus "$WS_IDLE" --ramp-up 2s --runs 1 \
        --workers 1 --db none -q --summary-json "$d/q.json" -p ws_url="$ws_url" -p before=5s \
        -p hold=8s >"$d/out" 2>"$d/err" &
    pid=$!
    sleep 4.5 # every VU started (a 2 s ramp), none connected yet (each waits 5 s)
    agent=$(soak_kids "$pid" | awk '{ print $1; exit }')
    worker=
    [ -z "$agent" ] || worker=$(soak_kids "$agent" | awk '{ print $1; exit }')
    a=$(soak_rss "$worker")
    sleep 6 # every VU connected (from 5 to 7 s), each holding until 13 s or later
    b=$(soak_rss "$worker")
    open=$(curl -s "http://127.0.0.1:$(cat "$d/ws.port")/__stats" | jq .open 2>/dev/null || echo "?")
    wait "$pid" || st=$?
    ws_stop
    echo "$WS_IDLE $open $a $b $(jq -r '[.tests[0].count, .tests[0].errors.technical + .tests[0].errors.functional] | map(tostring) | join(" ")' "$d/q.json" 2>/dev/null || echo "? ?") $st" >"$1/wsidle.tsv"
    log "  ws idle: $(cat "$1/wsidle.tsv") (vus open rss_before_kb rss_after_kb opened errors exit)"
}
if [ "${BENCH_ONLY:-}" = ws ]; then
    log "ws: $WS_VUS WebSockets x $WS_RT round trips, quern and a bare Python client; $WS_IDLE idle WebSockets"
    ws_row "$tmp"
    wsidle_row "$tmp"
    "$PY" bench/report.py --only ws "$tmp"
    exit 0
fi

# ------------------------------------------------------ 6k. idle connections
# Idle WebSockets, idle TCP connections and idle MQTT clients held by
# quern's workers, beside build/rel/idlefloor (bench/idlefloor.c: a bare
# epoll loop holding the same sockets to the same servers; for ws it writes
# the upgrade by hand, for mqtt a CONNECT and a SUBSCRIBE). Each
# process may hold IDLE_PER connections (the descriptor limit), so N of them
# are spread over ceil(N / IDLE_PER) servers, workers and floor processes.
# Servers: tests/tools/ws_server.py (python3-websockets) for ws, redis-server
# for tcp (it keeps idle clients open), mosquitto for mqtt (a config of its
# own: no persistence, no connection limit but the descriptors, anonymous;
# each client subscribes to a topic of its own, keepalive 60 s, so the
# broker holds a session and a subscription for each; open: the least of
# its $SYS clients/connected and subscriptions/count, refreshed each
# second). Every VU waits, then connects, then
# holds: the workers' RSS (VmRSS summed) once every VU has started and none
# has connected, then once the servers count N open; KB per connection =
# (after - before) / N. The floor's the same way, from its own
# /proc/self/status before its first connect and once all are open.
# idle_row DIR KIND N: appends to DIR/idle.tsv "kind n workers q_before_kb
# q_after_kb q_open floor_before_kb floor_after_kb floor_open opened errors
# exit"; BENCH_ONLY=idle runs these rows alone and prints them.
IDLE_COUNTS=${BENCH_IDLE_COUNTS:-1000 10000 20000}
IDLE_KINDS=${BENCH_IDLE_KINDS:-ws tcp mqtt}
IDLE_PER=${BENCH_IDLE_PER:-10000}
IDLEFLOOR=build/rel/idlefloor
idle_srv=()
idle_stop() {
    local p
    for p in "${idle_srv[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done
    idle_srv=()
}
# idle_open KIND PORTS...: the connections the servers count open now.
idle_open() {
    local kind=$1 p n=0 k
    shift
    for p in "$@"; do
        if [ "$kind" = ws ]; then
            k=$(curl -s "http://127.0.0.1:$p/__stats" | jq .open 2>/dev/null)
        elif [ "$kind" = mqtt ]; then # retained values: the asking client is not in them yet
            k=$(printf '%s\n' "$(idle_sys "$p" clients/connected)" "$(idle_sys "$p" subscriptions/count)" |
                sort -n | head -1)
        else # redis-cli's own connection is one of them
            k=$(redis-cli -p "$p" info clients 2>/dev/null | tr -d '\r' | awk -F: '/^connected_clients:/ { print $2 - 1 }')
        fi
        n=$((n + ${k:-0}))
    done
    echo "$n"
}
# idle_sys PORT TOPIC: a value of the broker's $SYS/broker/TOPIC.
idle_sys() {
    timeout 5 mosquitto_sub -h 127.0.0.1 -p "$1" -C 1 -W 3 -t "\$SYS/broker/$2" 2>/dev/null
}
# idle_rss PID: VmRSS (kB) summed over PID's children (the agent's workers).
idle_rss() {
    local k t=0
    for k in $(soak_kids "$1"); do t=$((t + $(soak_rss "$k"))); done
    echo "$t"
}
idle_row() {
    local dir=$1 kind=$2 n=$3 d="$1/idle.$2.$3" s ports=() targets="" i pid agent a b open=0 st=0
    local ramp before hold t0 fpids=() fl opened errs fpath=/echo
    [ "$kind" != mqtt ] || fpath=idlefloor # its clients' topics: idlefloor/I
    s=$(((n + IDLE_PER - 1) / IDLE_PER))
    mkdir -p "$d"
    for i in $(seq "$s"); do
        if [ "$kind" = ws ]; then
            rm -f "$d/ws.$i.port"
            taskset -c $CPU_SRV "$PY" tests/tools/ws_server.py "$d/ws.$i.port" >"$d/ws.$i.out" 2>"$d/ws.$i.err" &
            idle_srv+=($!)
            for _ in $(seq 100); do [ -s "$d/ws.$i.port" ] && break; sleep 0.1; done
            [ -s "$d/ws.$i.port" ] || die "the WebSocket server did not start: $(cat "$d/ws.$i.err")"
            ports+=("$(cat "$d/ws.$i.port")")
            targets="$targets${targets:+,}ws://127.0.0.1:${ports[-1]}/echo"
        elif [ "$kind" = mqtt ]; then
            ports+=("$(free_port)")
            # errors and warnings only: a line a connect would cost the broker's CPU
            cat >"$d/mosq.$i.conf" <<EOF
listener ${ports[-1]} 127.0.0.1
max_connections -1
persistence false
allow_anonymous true
sys_interval 1
user $(id -un)
log_dest stderr
log_type error
log_type warning
EOF
            taskset -c $CPU_SRV /usr/sbin/mosquitto -c "$d/mosq.$i.conf" >"$d/mosq.$i.out" 2>&1 &
            idle_srv+=($!)
            for _ in $(seq 50); do [ -n "$(idle_sys "${ports[-1]}" version)" ] && break; sleep 0.1; done
            [ -n "$(idle_sys "${ports[-1]}" version)" ] || die "mosquitto did not start: $(cat "$d/mosq.$i.out")"
            targets="$targets${targets:+,}127.0.0.1:${ports[-1]}"
        else
            ports+=("$(free_port)")
            taskset -c $CPU_SRV redis-server --port "${ports[-1]}" --bind 127.0.0.1 --save '' --appendonly no \
                --maxclients $((IDLE_PER + 100)) --tcp-backlog 4096 --daemonize no >"$d/redis.$i.out" 2>&1 &
            idle_srv+=($!)
            for _ in $(seq 100); do redis-cli -p "${ports[-1]}" ping >/dev/null 2>&1 && break; sleep 0.1; done
            targets="$targets${targets:+,}127.0.0.1:${ports[-1]}"
        fi
    done
    # VUs start over the ramp, each waits `before`, then connects: the first
    # RSS is read after the ramp and before the first connect
    ramp=$((n / 1000 > 2 ? n / 1000 : 2))
    before=$((ramp + 3))
    hold=$((ramp + 25))
    t0=$(date +%s.%N)
    if [ "$kind" = ws ]; then
        taskset -c $CPU_TOOL bin/quern run bench/wsidle.lua --vus "$n" --ramp-up "${ramp}s" --runs 1 \
            --workers "$s" --db none -q --summary-json "$d/q.json" -p ws_url="$targets" \
            -p before="${before}s" -p hold="${hold}s" >"$d/out" 2>"$d/err" &
    else # tcp, mqtt
        taskset -c $CPU_TOOL bin/quern run "bench/${kind}idle.lua" --vus "$n" --ramp-up "${ramp}s" --runs 1 \
            --workers "$s" --db none -q --summary-json "$d/q.json" -p addrs="$targets" \
            -p before="${before}s" -p hold="${hold}s" >"$d/out" 2>"$d/err" &
    fi
    pid=$!
    sleep "$(awk -v t0="$t0" -v r="$ramp" -v now="$(date +%s.%N)" 'BEGIN { print r + 1.5 - (now - t0) }')"
    agent=$(soak_kids "$pid" | awk '{ print $1; exit }')
    a=$(idle_rss "$agent")
    sleep 3 # the first connects
    for _ in $(seq $((2 * (ramp + 15)))); do
        open=$(idle_open "$kind" "${ports[@]}")
        [ "$open" -ge "$n" ] && break
        sleep 0.5
    done
    sleep 1 # the last answers read
    b=$(idle_rss "$agent")
    wait "$pid" || st=$?
    # the floor: the same sockets to the same servers, N / s a process,
    # from another source address (quern's closed ones may wait in TIME_WAIT)
    for i in $(seq "$s"); do
        "$IDLEFLOOR" 127.0.0.1 "${ports[$((i - 1))]}" $((n / s)) "$kind" "$fpath" 2 127.0.0.2 >"$d/floor.$i" 2>&1 &
        fpids+=($!)
    done
    for i in "${fpids[@]}"; do wait "$i" || true; done
    fl=$(cat "$d"/floor.* | awk 'NF == 4 { a += $1; b += $2; o += $3 } END { print a + 0, b + 0, o + 0 }')
    idle_stop
    # opened: the first step's samples (the connects); errors: every step's
    read -r opened errs < <(jq -r '[.tests[0].count, ([.tests[].errors | .technical + .functional] | add)] | map(tostring) | join(" ")' "$d/q.json" 2>/dev/null || echo "? ?")
    echo "$kind $n $s $a $b $open $fl $opened $errs $st" >>"$dir/idle.tsv"
    log "  idle $kind: $(tail -1 "$dir/idle.tsv") (kind n workers q_before q_after q_open floor_before floor_after floor_open opened errors exit)"
}
idle_rows() {
    local k n
    [ -x "$IDLEFLOOR" ] || make -s MODE=rel "$IDLEFLOOR"
    : >"$1/idle.tsv"
    for k in $IDLE_KINDS; do
        for n in $IDLE_COUNTS; do idle_row "$1" "$k" "$n"; done
    done
}
if [ "${BENCH_ONLY:-}" = idle ]; then
    log "idle: quern's idle connections ($IDLE_KINDS; $IDLE_COUNTS), beside a bare epoll floor"
    idle_rows "$tmp"
    cat "$tmp/idle.tsv"
    "$PY" bench/report.py --only idle "$tmp"
    exit 0
fi

# ------------------------------------------------------------ 6h. gRPC
# Against tests/tools/grpc_server.py (python3-grpcio) on CPU_SRV, twice:
# cleartext (h2c) and TLS (a certificate made here); each tool on CPU_TOOL.
# grpc_row DIR: DIR/grpc.tsv, a line a round and mode, "rep calls seconds
# errors user sys" of quern then "calls seconds user sys" of the bare Python
# client (bench/grpcfloor.py), then the exit status, then the mode (h2c, tls)
# and quern's new connections.
GRPC_VUS=${BENCH_GRPC_VUS:-10}
GRPC_CALLS=${BENCH_GRPC_CALLS:-2000}
GRPC_REPS=${BENCH_GRPC_REPS:-3}
grpc_srv=
grpc_tls_srv=
grpc_start() { # grpc_start DIR NAME [CERT KEY]: the server's pid in grpc_pid
    rm -f "$1/$2.port"
    taskset -c $CPU_SRV "$PY" tests/tools/grpc_server.py "$1/$2.port" "${@:3}" >"$1/$2.out" 2>"$1/$2.err" &
    grpc_pid=$!
    for _ in $(seq 100); do [ -s "$1/$2.port" ] && break; sleep 0.1; done
    [ -s "$1/$2.port" ] || die "the gRPC server did not start: $(cat "$1/$2.err")"
}
grpc_row() {
    local d=$1/grpc st q f hp target ca mode
    mkdir -p "$d/script"
    # the script beside its .proto and the CA: grpc.load and tls.ca read
    # files inside the script's folder
    cp bench/grpc.lua scripts/grpc/echo.proto "$d/script/"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 -keyout "$d/key.pem" -out "$d/script/ca.pem" 2>/dev/null
    grpc_start "$d" h2c
    grpc_srv=$grpc_pid
    grpc_start "$d" tls "$d/script/ca.pem" "$d/key.pem"
    grpc_tls_srv=$grpc_pid
    : >"$1/grpc.tsv"
    for rep in $(seq "$GRPC_REPS"); do
        for mode in h2c tls; do
            st=0
            hp="127.0.0.1:$(cat "$d/$mode.port")"
            if [ $mode = tls ]; then target="https://$hp" ca=ca.pem; else target="http://$hp" ca=; fi
            /usr/bin/time -f '%U %S' -o "$d/q.time" taskset -c $CPU_TOOL bin/quern run "$d/script/grpc.lua" \
                --vus "$GRPC_VUS" --runs 1 --workers 1 --db none -q --summary-json "$d/q.json" \
                -p grpc_target="$target" -p ca="$ca" -p calls="$GRPC_CALLS" >"$d/q.out" 2>"$d/q.err" || st=$?
            q=$(jq -r '[(.tests[] | select(.id == "SC-BENCH-GRPC-STEP-1") | .count), .run.duration_s,
                ([.tests[] | .errors.technical + .errors.functional] | add)] | map(tostring) | join(" ")' \
                "$d/q.json" 2>/dev/null || echo "? ? ?")
            /usr/bin/time -f '%U %S' -o "$d/f.time" taskset -c $CPU_TOOL "$PY" bench/grpcfloor.py "$hp" \
                "$GRPC_VUS" "$GRPC_CALLS" ${ca:+"$d/script/$ca"} >"$d/f.out" 2>"$d/f.err" || st=$((st + 100))
            f="$(cat "$d/f.out" 2>/dev/null || echo "? ?") $(tail -1 "$d/f.time")"
            echo "$rep $q $(tail -1 "$d/q.time") $f $st $mode $(jq '[.tests[].new_connections] | add' "$d/q.json" 2>/dev/null || echo '?')" >>"$1/grpc.tsv"
            log "  grpc round $rep ($mode): $(tail -1 "$1/grpc.tsv")"
        done
    done
    kill "$grpc_srv" "$grpc_tls_srv" 2>/dev/null
    wait "$grpc_srv" "$grpc_tls_srv" 2>/dev/null || true
    grpc_srv= grpc_tls_srv=
}
if [ "${BENCH_ONLY:-}" = grpc ]; then
    log "grpc: $GRPC_VUS VUs x $GRPC_CALLS unary calls, quern and a bare Python grpcio client"
    grpc_row "$tmp"
    "$PY" bench/report.py --only grpc "$tmp"
    exit 0
fi

# ------------------------------------------------------------ 6k. Redis
# A redis-server of its own (no persistence) on CPU_SRV; each tool on
# CPU_TOOL, in turn, the order swapped each round: quern (bench/redis.lua,
# REDIS_VUS VUs, one connection each, REDIS_OPS GETs each) and redis-benchmark
# with as many connections and GETs in all, no pipelining. Both GET the key
# redis-benchmark uses (key:__rand_int__, not randomised without -r), set
# here to a 3-byte value as its SET test would. The server's INFO
# commandstats, reset before each tool, counts the GETs each one made.
# redis_row DIR: DIR/redis.tsv, a line a round, "rep gets seconds errors user
# sys server_gets connects" of quern, then "gets rps user sys server_gets" of
# redis-benchmark, then the exit status.
REDIS_VUS=${BENCH_REDIS_VUS:-50}
REDIS_OPS=${BENCH_REDIS_OPS:-4000}
REDIS_REPS=${BENCH_REDIS_REPS:-5}
redis_srv=
redis_cli() { /usr/bin/redis-cli -h 127.0.0.1 -p "$redis_port" "$@"; }
# redis_gets: the GETs the server counted since its last CONFIG RESETSTAT
redis_gets() {
    redis_cli INFO commandstats | tr -d '\r' | sed -n 's/^cmdstat_get:calls=\([0-9]*\),.*/\1/p' | grep . || echo 0
}
redis_quern() { # redis_quern DIR: "gets seconds errors user sys server_gets connects"
    local q st=0
    redis_cli CONFIG RESETSTAT >/dev/null
    /usr/bin/time -f '%U %S' -o "$1/q.time" taskset -c $CPU_TOOL timeout 300 bin/quern run bench/redis.lua \
        --vus "$REDIS_VUS" --runs 1 --workers 1 --db none -q --summary-json "$1/q.json" \
        -p redis_url="redis://127.0.0.1:$redis_port" -p ops="$REDIS_OPS" >"$1/q.out" 2>"$1/q.err" || st=$?
    q=$(jq -r '[(.tests[] | select(.id == "SC-BENCH-REDIS-STEP-2") | .count), .run.duration_s,
        ([.tests[] | .errors.technical + .errors.functional] | add)] | map(tostring) | join(" ")' \
        "$1/q.json" 2>/dev/null || echo "? ? ?")
    echo "$q $(tail -1 "$1/q.time") $(redis_gets) $(jq -r '.tests[] | select(.id == "SC-BENCH-REDIS-STEP-1") | .count' "$1/q.json" 2>/dev/null || echo '?')"
    return $st
}
redis_bench() { # redis_bench DIR: "gets rps user sys server_gets"
    local n=$((REDIS_VUS * REDIS_OPS)) rps st=0
    redis_cli CONFIG RESETSTAT >/dev/null
    /usr/bin/time -f '%U %S' -o "$1/b.time" taskset -c $CPU_TOOL timeout 300 /usr/bin/redis-benchmark \
        -h 127.0.0.1 -p "$redis_port" -c "$REDIS_VUS" -n "$n" -t get -P 1 -q >"$1/b.out" 2>"$1/b.err" || st=$?
    # -q still writes its progress, \r-separated: the last figure is the total's
    rps=$(tr '\r' '\n' <"$1/b.out" | sed -n 's/^GET: \([0-9.]*\) requests per second.*/\1/p' | tail -1)
    echo "$n ${rps:-?} $(tail -1 "$1/b.time") $(redis_gets)"
    return $st
}
redis_row() {
    local d=$1/redis st q b
    mkdir -p "$d"
    redis_port=$(free_port)
    taskset -c $CPU_SRV /usr/bin/redis-server --port "$redis_port" --bind 127.0.0.1 --save '' \
        --appendonly no --dir "$d" --daemonize no >"$d/server.log" 2>&1 &
    redis_srv=$!
    for _ in $(seq 100); do [ "$(redis_cli PING 2>/dev/null)" = PONG ] && break; sleep 0.1; done
    [ "$(redis_cli PING 2>/dev/null)" = PONG ] || die "redis-server did not start: $(cat "$d/server.log")"
    redis_cli SET key:__rand_int__ xxx >/dev/null
    : >"$1/redis.tsv"
    for rep in $(seq "$REDIS_REPS"); do
        st=0
        if [ $((rep % 2)) = 1 ]; then
            q=$(redis_quern "$d") || st=$?
            b=$(redis_bench "$d") || st=$((st + 100))
        else
            b=$(redis_bench "$d") || st=$((st + 100))
            q=$(redis_quern "$d") || st=$?
        fi
        echo "$rep $q $b $st" >>"$1/redis.tsv"
        log "  redis round $rep: $(tail -1 "$1/redis.tsv")"
    done
    kill "$redis_srv" 2>/dev/null
    wait "$redis_srv" 2>/dev/null || true
    redis_srv=
}
if [ "${BENCH_ONLY:-}" = redis ]; then
    log "redis: $REDIS_VUS connections x $REDIS_OPS GETs, quern.redis and redis-benchmark"
    redis_row "$tmp"
    "$PY" bench/report.py --only redis "$tmp"
    exit 0
fi

# ------------------------------------------------------- commands of each row
# cmd_ROW BASE SECONDS: the command line, run under GNU time and taskset.
cmd_wrk() { echo "wrk -t1 -c$CONNS -d${2}s --latency $1/small"; }
cmd_wrk-lua() { echo "wrk -t1 -c$CONNS -d${2}s --latency -s bench/wrk-header.lua $1/small"; }
cmd_locust() {
    echo "locust -f bench/locustfile.py --headless -u $CONNS -r $CONNS -t ${2}s --host $1 --only-summary --loglevel WARNING"
}
cmd_quern() {
    echo "bin/quern run bench/small.lua --vus $CONNS --workers 1 --db none --duration ${2}s -q --summary-json \$OUT/quern.json -p base_url=$1"
}

# run_row ROW BASE SECONDS DIR: runs the row; writes DIR/res: "requests rps user sys maxrss_kb"
run_row() {
    local row=$1 b=$2 s=$3 d=$4 cmd
    mkdir -p "$d"
    cmd=$(cmd_"$row" "$b" "$s")
    cmd=${cmd//\$OUT/$d}
    BENCH_THINK=0 /usr/bin/time -f '%U %S %M' -o "$d/time" \
        taskset -c $CPU_TOOL $cmd >"$d/out" 2>"$d/err" || {
        log "$row failed (exit $?): $cmd"
        tail -20 "$d/out" "$d/err" >&2
        return 1
    }
    local req rps
    case $row in
    wrk | wrk-lua)
        req=$(awk '/requests in/ {print $1}' "$d/out")
        rps=$(awk '/^Requests\/sec:/ {print $2}' "$d/out")
        ;;
    locust)
        # the summary printed at exit (the --csv file is only rewritten every
        # second, so it can miss the last second of the run)
        read -r req rps < <(awk '$1 == "Aggregated" {print $2, $(NF-1); exit}' "$d/out" "$d/err")
        ;;
    quern)
        read -r req rps < <("$PY" -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(sum(t["count"] for t in j["tests"]), sum(t["tps"] for t in j["tests"]))' "$d/quern.json")
        ;;
    esac
    [ -n "$req" ] && [ -n "$rps" ] || { log "$row: could not read its request count"; tail "$d/out" "$d/err" >&2; return 1; }
    echo "$req $rps $(tail -1 "$d/time")" >"$d/res"
}

: >"$tmp/speed.tsv"
: >"$tmp/check.tsv"
: >"$tmp/mem.tsv"

# ---------------------------------------------------------------- 3. speed rows
# The order turns by one row each round: the machine's speed drifts over
# minutes, and a row always run last of its round would always pay for it.
read -r -a rows_arr <<<"$ROWS"
for rep in $(seq "$REPS"); do
    order=()
    for i in "${!rows_arr[@]}"; do
        order+=("${rows_arr[$(((i + rep - 1) % ${#rows_arr[@]}))]}")
    done
    for row in "${order[@]}"; do
        log "speed: $row, run $rep/$REPS (${SECS}s, $CONNS connections)"
        d="$tmp/speed/$row.$rep"
        if run_row "$row" "$base" "$SECS" "$d"; then
            echo "$row $rep $(cat "$d/res")" >>"$tmp/speed.tsv"
            log "  $(cat "$d/res")  (requests rps user sys maxrss_kb)"
        else
            echo "$row $rep FAILED" >>"$tmp/speed.tsv"
        fi
    done
done

# ---------------------------------------------------------- 4. the cross-check
for row in $ROWS; do
    log "cross-check: $row against the logging port (${CHECK_SECS}s)"
    : >"$tmp/nginx/access.log"
    d="$tmp/check/$row"
    if run_row "$row" "$base_log" "$CHECK_SECS" "$d"; then
        sleep 0.5
        echo "$row $(awk '{print $1}' "$d/res") $(wc -l <"$tmp/nginx/access.log")" >>"$tmp/check.tsv"
    else
        echo "$row FAILED" >>"$tmp/check.tsv"
    fi
done

# ---------------------------------------------------------- 5. memory per VU
# tree_rss PID: VmRSS (kB) summed over PID and its descendants.
tree_rss() {
    local pids=("$1") i=0 total=0 p kids rss
    while [ $i -lt ${#pids[@]} ]; do
        p=${pids[$i]}
        kids=$(cat /proc/"$p"/task/*/children 2>/dev/null || true)
        for k in $kids; do pids+=("$k"); done
        i=$((i + 1))
    done
    for p in "${pids[@]}"; do
        rss=$(awk '/^VmRSS:/ {print $2}' /proc/"$p"/status 2>/dev/null || true)
        total=$((total + ${rss:-0}))
    done
    echo "$total"
}
# worker_rss PID: VmRSS (kB) of PID's grandchildren (quern run -> agent ->
# worker processes), summed.
worker_rss() {
    local total=0 k g rss
    for k in $(cat /proc/"$1"/task/*/children 2>/dev/null || true); do
        for g in $(cat /proc/"$k"/task/*/children 2>/dev/null || true); do
            rss=$(awk '/^VmRSS:/ {print $2}' /proc/"$g"/status 2>/dev/null || true)
            total=$((total + ${rss:-0}))
        done
    done
    echo "$total"
}
# mem_row TOOL COUNT: starts the tool with COUNT VUs/users, samples the RSS of
# its process tree once a second from the end of the ramp-up (+2 s) to the end
# and appends "TOOL COUNT max_rss_kb samples requests errors max_worker_kb"
# to mem.tsv (the worker: quern's worker process; Locust's one process).
mem_row() {
    local tool=$1 n=$2 d="$tmp/mem/$1.$2" pid rate max=0 maxw=0 samples=0 r w t0 req
    mkdir -p "$d"
    rate=$(( (n + MEM_RAMP - 1) / MEM_RAMP ))
    case $tool in
    quern)
        taskset -c $CPU_TOOL bin/quern run bench/idle.lua --vus "$n" --workers 1 --db none \
            --ramp-up "${MEM_RAMP}s" --duration "${MEM_SECS}s" -q --summary-json "$d/quern.json" -p base_url="$base" \
            >"$d/out" 2>"$d/err" &
        ;;
    locust)
        BENCH_THINK=1 taskset -c $CPU_TOOL locust -f bench/locustfile.py --headless -u "$n" -r "$rate" \
            -t "${MEM_SECS}s" --host "$base" --only-summary --loglevel WARNING \
            >"$d/out" 2>"$d/err" &
        ;;
    esac
    pid=$!
    t0=$(date +%s)
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        if [ $(($(date +%s) - t0)) -ge $((MEM_RAMP + 2)) ] && [ $(($(date +%s) - t0)) -lt "$MEM_SECS" ]; then
            r=$(tree_rss "$pid")
            w=$r
            [ "$tool" = quern ] && w=$(worker_rss "$pid")
            samples=$((samples + 1))
            [ "$r" -gt "$max" ] && max=$r
            [ "$w" -gt "$maxw" ] && maxw=$w
        fi
    done
    wait "$pid" || log "$tool with $n exited with status $? (see $d/err)"
    case $tool in
    quern) req=$("$PY" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sum(t["count"] for t in j["tests"]), sum(t["errors"]["technical"] + t["errors"]["functional"] for t in j["tests"]))' "$d/quern.json" 2>/dev/null || echo "? ?") ;;
    locust) req=$(awk '$1 == "Aggregated" {sub(/\(.*/, "", $3); print $2, $3; exit}' "$d/out" "$d/err") ;;
    esac
    echo "$tool $n $max $samples $req $maxw" >>"$tmp/mem.tsv"
    log "  $tool $n: max RSS ${max} kB (worker ${maxw} kB) over $samples samples; requests, errors: $req"
}
if [ "${BENCH_SKIP_MEM:-0}" != 1 ]; then
    for n in 1 $MEM_VUS; do
        log "memory: quern, $n VUs (${MEM_SECS}s)"
        mem_row quern "$n"
    done
    for n in 1 $LOCUST_USERS; do
        log "memory: locust, $n users (${MEM_SECS}s)"
        mem_row locust "$n"
    done
fi

# ------------------------------------------------------------- 6. scale row
# scale_row N: quern, one worker, N VUs each holding one keep-alive connection;
# appends "N max_tree_rss_kb max_worker_rss_kb max_established runs requests
# errors_tech errors_func new_connections exit_status" to scale.tsv.
scale_row() {
    local n=$1 d="$tmp/scale.$1" pid t0 now r w e maxr=0 maxw=0 maxe=0 st=0 res
    mkdir -p "$d"
    # one source address per 25,000 connections: the ports toward one server
    # address and port run out at about 28,000
    local src="" a
    for a in $(seq 1 $(( (n + 24999) / 25000 ))); do src="$src${src:+,}127.0.0.$a"; done
    taskset -c $CPU_TOOL bin/quern run bench/scale.lua --vus "$n" --workers 1 --db none --source-addrs "$src" \
        --ramp-up "${SCALE_RAMP}s" --duration "${SCALE_SECS}s" -q --summary-json "$d/quern.json" \
        -p base_url="$base" -p pacing=5s >"$d/out" 2>"$d/err" &
    pid=$!
    t0=$(date +%s)
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        now=$(($(date +%s) - t0))
        if [ "$now" -ge "$SCALE_RAMP" ] && [ "$now" -lt "$SCALE_SECS" ]; then
            r=$(tree_rss "$pid")
            w=$(worker_rss "$pid")
            e=$(ss -Htn state established "( dport = :$port )" 2>/dev/null | wc -l)
            [ "$r" -gt "$maxr" ] && maxr=$r
            [ "$w" -gt "$maxw" ] && maxw=$w
            [ "$e" -gt "$maxe" ] && maxe=$e
        fi
    done
    wait "$pid" || st=$?
    res=$(run_totals "$d/quern.json")
    echo "$n $maxr $maxw $maxe $res $st" >>"$tmp/scale.tsv"
    log "  scale $n VUs: RSS tree ${maxr} kB, worker ${maxw} kB, established <= $maxe; runs requests tech func newconn: $res; exit $st"
    [ "$st" = 0 ] || { log "  quern exited with status $st; its stderr:"; head -c 2000 "$d/err" >&2; }
    grep -q . "$d/err" && head -c 4000 "$d/err" >"$tmp/scale.$n.err"
    # let the sockets of this run go before the next one
    sleep 3
}
: >"$tmp/scale.tsv"
if [ "${BENCH_SKIP_SCALE:-0}" != 1 ]; then
    for n in $SCALE_VUS; do
        if [ $((n + 500)) -gt "$NOFILE" ]; then
            # one socket per VU plus the process's own: beyond the limit, the
            # row would only measure the limit
            log "scale: $n VUs skipped: the open-file limit is $NOFILE and cannot be raised here"
            echo "$n SKIPPED $NOFILE" >>"$tmp/scale.tsv"
            continue
        fi
        log "scale: quern, $n VUs, one worker, pacing 5 s (${SCALE_SECS}s, ramp-up ${SCALE_RAMP}s; fd limit $NOFILE)"
        scale_row "$n"
    done
    tail -n 5 "$tmp/nginx/error.log" >"$tmp/nginx.errors" 2>/dev/null || true
fi

# --------------------------------------------------------- 6b. start lag
# lag_quern R: quern at R arrivals a second, one worker; "scheduled started
# late dropped lag_p50_ms lag_p99_ms lag_max_ms requests exit_status".
LAG_SECS=${BENCH_LAG_SECONDS:-5}
LAG_X=${BENCH_LAG_FLOOR_X:-1.5}
TIMERLAG=build/rel/timerlag
lag_quern() {
    local r=$1 d="$tmp/lag.$1" st=0 res
    mkdir -p "$d"
    taskset -c $CPU_TOOL bin/quern run bench/small.lua --rate "$r/s" --duration "${LAG_SECS}s" \
        --vus 50 --workers 1 --db none -q --summary-json "$d/quern.json" -p base_url="$base" \
        >"$d/out" 2>"$d/err" || st=$?
    res=$("$PY" -c '
import json, sys
j = json.load(open(sys.argv[1]))
a = j["scenarios"][0]["arrivals"]
l = a.get("start_lag", {})
print(a["scheduled"], a["started"], a["late"], a["dropped"], l.get("p50_ms", "?"),
      l.get("p99_ms", "?"), l.get("max_ms", "?"), sum(t["count"] for t in j["tests"]))' "$d/quern.json" 2>/dev/null ||
        echo "? ? ? ? ? ? ? ?")
    echo "$res $st"
}
# lag_floor R: the bare timerfd loop at R a second, pinned as quern is;
# "p50_ms p99_ms max_ms".
# With a URL (lag_floor R URL): the libcurl floor, the same schedule with
# each arrival's GET on a bare libcurl multi, a pool of 50 handles grown up
# to 500 as quern's --vus 50 grows to its --max-vus.
lag_floor() {
    taskset -c $CPU_TOOL "$TIMERLAG" rate "$1" "$LAG_SECS" ${2:+"$2" 50 500} 2>/dev/null |
        sed -n 's/.* p50=\([0-9]*\) p90=[0-9]* p99=\([0-9]*\) max=\([0-9]*\) us.*/\1 \2 \3/p' |
        awk '{ printf "%.3f %.3f %.3f\n", $1 / 1e3, $2 / 1e3, $3 / 1e3 }' | grep . || echo "? ? ?"
}
# lag_row R: quern and its two floors at R, in turn (each first every third
# row); appends "rate scheduled started late dropped lag_p50_ms lag_p99_ms
# lag_max_ms requests exit_status floor_p50_ms floor_p99_ms floor_max_ms
# curl_p50_ms curl_p99_ms curl_max_ms" to lag.tsv and returns 0 when the
# rate was kept by the bare floor (p99 within LAG_X of the floor's, and
# under 1 ms where the floor's is; none dropped, exit 0), else 1.
lag_n=0
lag_row() {
    local r=$1 q f c
    lag_n=$((lag_n + 1))
    case $((lag_n % 3)) in
    0)
        f=$(lag_floor "$r")
        c=$(lag_floor "$r" "$base/small")
        q=$(lag_quern "$r")
        ;;
    1)
        q=$(lag_quern "$r")
        f=$(lag_floor "$r")
        c=$(lag_floor "$r" "$base/small")
        ;;
    *)
        c=$(lag_floor "$r" "$base/small")
        q=$(lag_quern "$r")
        f=$(lag_floor "$r")
        ;;
    esac
    echo "$r $q $f $c" >>"$tmp/lag.tsv"
    log "  start lag at $r/s: scheduled started late dropped p50 p99 max (ms) requests exit: $q; floor p50 p99 max (ms): $f; libcurl floor: $c"
    set -- $q $f
    [ "$9" = 0 ] && [ "$4" = 0 ] && "$PY" -c "
import sys
q, f = float('$6'), float('${11}')
sys.exit(0 if q <= $LAG_X * f and (f >= 1.0 or q < 1.0) else 1)" 2>/dev/null
}
: >"$tmp/lag.tsv"
: >"$tmp/lag_wrk.tsv"
: >"$tmp/lag_closed.tsv"
if [ "${BENCH_SKIP_LAG:-0}" != 1 ]; then
    [ -x "$TIMERLAG" ] || make -s MODE=rel "$TIMERLAG"
    log "start lag: quern --rate R/s, one worker (${LAG_SECS}s each), beside its floor, quern's closed model and plain wrk"
    if run_row quern "$base" "$LAG_SECS" "$tmp/lag.closed"; then
        cat "$tmp/lag.closed/res" >>"$tmp/lag_closed.tsv"
        log "  quern --vus $CONNS: $(cat "$tmp/lag.closed/res") (requests rps user sys maxrss_kb)"
    fi
    if run_row wrk "$base" "$LAG_SECS" "$tmp/lag.wrk"; then
        cat "$tmp/lag.wrk/res" >>"$tmp/lag_wrk.tsv"
        log "  wrk: $(cat "$tmp/lag.wrk/res") (requests rps user sys maxrss_kb)"
    fi
    good=0 bad=0
    # All the rates, for the curve, until runs are dropped or quern fails; the
    # rule is judged against a noisy floor, so a rate may miss below one kept:
    # the highest kept counts, and the first missed above it.
    for r in ${BENCH_LAG_RATES:-125 250 500 1000 2000 4000 8000 16000 32000 64000}; do
        if lag_row "$r"; then
            good=$r bad=0
        else
            [ "$bad" = 0 ] && bad=$r
        fi
        awk 'END { exit !($5 != "0" || $10 != "0") }' "$tmp/lag.tsv" && break
    done
    for _ in $(seq "${BENCH_LAG_BISECT:-3}"); do
        [ "$bad" -gt 0 ] || break
        mid=$(((good + bad) / 2))
        [ "$mid" -gt "$good" ] && [ "$mid" -lt "$bad" ] || break
        if lag_row "$mid"; then good=$mid; else bad=$mid; fi
    done
    echo "$good $bad" >"$tmp/lag.best"
    log "start lag: highest rate kept $good/s (first missed: $bad/s)"
fi
if [ "$lag_only" = 1 ]; then
    echo "lag_secs=$LAG_SECS" >"$tmp/meta"
    echo "lag_x=$LAG_X" >>"$tmp/meta"
    BENCH_OUT=/dev/null "$PY" bench/report.py --only startlag "$tmp"
    exit 0
fi

# ------------------------------------------------- 6c. fleet: memory per VU
# fleet_row N: quern with FLEET_WORKERS workers and N VUs (bench/fleet.lua:
# each VU's sc.init sends GET /small with its number in X-VU, then each run
# is GET /small and 5 s of sleep, its keep-alive connection kept; FLEET_RAMP s
# ramp-up), against its own nginx of FLEET_NGINX reuseport workers (each
# process of both sides stays under the open-file limit), whose access log
# (fleet_log) says which VUs began; beside it, in the same run, the floor:
# build/rel/connfloor (bench/connfloor.c), a bare libcurl multi holding N/W
# idle connections in each of W processes. Appends to fleet.tsv "N workers
# peak_tree_kb steady_tree_kb max_established runs requests errors_tech
# errors_func exit floor_peak_kb floor_steady_kb floor_ok floor_errors
# share_peak_kb share_steady_kb max_in_flight held_back mean_ms service_mean_ms
# vus_served nginx_run_requests workers_killed saturated_s measured_s verdict..."
# (share: connfloor with a share per connection, the cost of libcurl's
# per-share cache; max_in_flight 0: no bound, else the row's --max-in-flight,
# whose floors are those measured for the unbounded row just before;
# vus_served: distinct X-VU values in nginx's log, nginx_run_requests: its
# lines without one; workers_killed: the agent's "worker N (pid P) ..." lines
# of a worker lost, held, busy at the ceiling or crashed, as the console
# printed them; verdict: the rest of the line, the summary's verdict).
FLEET_VUS=${BENCH_FLEET_VUS:-100000}
FLEET_WORKERS=${BENCH_FLEET_WORKERS:-8}
FLEET_RAMP=${BENCH_FLEET_RAMP:-20}
FLEET_SECS=${BENCH_FLEET_SECONDS:-40}
FLEET_NGINX=${BENCH_FLEET_NGINX:-8}
# a second row with --max-in-flight (0: none); 16,000 = 2,000 a worker
FLEET_MAXIF=${BENCH_FLEET_MAX_IN_FLIGHT:-16000}
fleet_fl="" fleet_sh=""
CONNFLOOR=build/rel/connfloor
# floor_run N W MODE SRC: peak and steady RSS (kB) summed over W connfloor
# processes of N/W connections each; "peak steady ok errors".
floor_run() {
    local n=$1 w=$2 mode=$3 src=$4 i out=$tmp/floor.$3 pids=()
    rm -rf "$out"
    mkdir -p "$out"
    for i in $(seq "$w"); do
        "$CONNFLOOR" "$fleet_base/small" $((n / w)) "$FLEET_RAMP" 10 "$mode" "$src" >"$out/$i" 2>&1 &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || true; done
    cat "$out"/* | awk 'NF >= 5 {p += $1; s += $2; o += $4; e += $5} END {print p + 0, s + 0, o + 0, e + 0}'
}
fleet_row() {
    local n=$1 maxif=$2 d="$tmp/fleet.$1.$2" pid t0 now r e maxr=0 maxe=0 last=0 st=0 res src="" a fl sh ss_at=-5 held
    local bound=() served nruns killed sat verdict
    [ "$maxif" -gt 0 ] && bound=(--max-in-flight "$maxif")
    mkdir -p "$d"
    # one source address per 10,000 VUs: bind() of a source address searches
    # its bound ports, slower the more there are, and a slow connect holds
    # its transfer's memory longer (with 20,000 an address the peak doubled)
    for a in $(seq 1 $(( (n + 9999) / 10000 ))); do src="$src${src:+,}127.0.0.$a"; done
    : >"$fleet_log" # nginx writes it with O_APPEND: this run's lines alone
    # not pinned: a memory row, its 8 workers and nginx's share the CPUs
    bin/quern run bench/fleet.lua --vus "$n" --workers "$FLEET_WORKERS" --db none \
        --source-addrs "$src" --ramp-up "${FLEET_RAMP}s" --duration "${FLEET_SECS}s" "${bound[@]}" -q \
        --summary-json "$d/quern.json" -p base_url="$fleet_base" >"$d/out" 2>"$d/err" &
    pid=$!
    t0=$(date +%s)
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        now=$(($(date +%s) - t0))
        [ "$now" -lt "$FLEET_SECS" ] || continue
        r=$(tree_rss "$pid")
        echo "$now $r" >>"$d/rss"
        [ "$r" -gt "$maxr" ] && maxr=$r
        [ "$now" -ge $((FLEET_RAMP + 5)) ] && [ "$r" -gt 0 ] && last=$r
        # ss over 200,000 loopback sockets costs a CPU-second: every 5 s
        if [ "$now" -ge "$FLEET_RAMP" ] && [ $((now - ss_at)) -ge 5 ]; then
            ss_at=$now
            e=$(ss -Htn state established "( dport = :$fleet_port )" 2>/dev/null | wc -l)
            [ "$e" -gt "$maxe" ] && maxe=$e
        fi
    done
    wait "$pid" || st=$?
    sleep 2 # nginx flushes its log buffer each second
    served=$(awk '$2 != "-" { print $2 }' "$fleet_log" | sort -u | wc -l)
    nruns=$(awk '$2 == "-"' "$fleet_log" | wc -l)
    killed=$(grep -c -E 'worker [0-9]+ \(pid [0-9]+\) (was held|was busy|killed by signal|exited with status)' "$d/err" || true)
    sat=$(jq -r '"\(.run.injector.saturated_s // "?") \(.run.injector.measured_s // "?")"' "$d/quern.json" 2>/dev/null || echo "? ?")
    verdict=$(jq -r '.verdict | if (.reason // "") != "" then .reason elif .passed then "passed" else "failed" end' \
        "$d/quern.json" 2>/dev/null || echo "?")
    res=$(run_totals "$d/quern.json" | cut -d' ' -f1-4)
    [ "$st" = 0 ] || [ ! -s "$d/err" ] || { log "  quern exited with status $st; its stderr:"; head -c 2000 "$d/err" >&2; }
    if [ "$maxif" -gt 0 ] && [ -n "$fleet_fl" ]; then
        fl=$fleet_fl sh=$fleet_sh
    else
        sleep 3 # the sockets of the run go before the floor's
        fl=$(floor_run "$n" "$FLEET_WORKERS" multi "$src")
        sleep 3
        sh=$(floor_run "$n" "$FLEET_WORKERS" share "$src")
        fleet_fl=$fl fleet_sh=$sh
    fi
    held=$(jq -r '[(.run.held_back.requests // 0), (.tests[1].mean_ms // 0 | floor), (.tests[1].service.mean_ms // 0 | floor)] | @tsv' "$d/quern.json" 2>/dev/null | tr '\t' ' ')
    echo "$n $FLEET_WORKERS $maxr $last $maxe $res $st $fl $(echo "$sh" | awk '{print $1, $2}') $maxif ${held:-0 0 0}" \
        "$served $nruns $killed $sat $verdict" >>"$tmp/fleet.tsv"
    log "  fleet $n VUs (--max-in-flight $maxif): VUs served (distinct X-VU in nginx's log) $served, run requests there $nruns;" \
        "workers killed $killed; saturated s (of measured) $sat; verdict: $verdict; exit $st"
    log "    tree RSS peak ${maxr} kB, steady ${last} kB, established <= $maxe; runs requests tech func: $res; floor: $fl; per-VU shares: $sh; held back, mean and service ms of the run's GET: ${held:-?}"
    sleep 3
}
: >"$tmp/fleet.tsv"
if [ "${BENCH_SKIP_FLEET:-0}" != 1 ]; then
    [ -x "$CONNFLOOR" ] || make -s MODE=rel "$CONNFLOOR"
    fleet_port=$(free_port)
    fleet_base="http://127.0.0.1:$fleet_port"
    fleet_log=$tmp/fleet-nginx/access.log
    # FLEET_NGINX workers on one reuseport port; one line per request: its
    # X-VU header (sc.init's request) or "-" (a run's)
    nginx_conf "$tmp/fleet-nginx" "$FLEET_NGINX" "
    log_format fleet '\$msec \$http_x_vu \$status';
    server {
        listen 127.0.0.1:$fleet_port reuseport backlog=4096;
        access_log $fleet_log fleet buffer=256k flush=1s;
        location = /small { return 200 \"$body\"; }
    }"
    "$NGINX" -p "$tmp/fleet-nginx" -e "$tmp/fleet-nginx/error.log" -c "$tmp/fleet-nginx/nginx.conf" &
    fleet_nginx=$!
    for _ in $(seq 100); do curl -s -o /dev/null "$fleet_base/small" && break; sleep 0.1; done
    sleep 2 # the probe's log line flushed before the first row's log begins
    for n in $FLEET_VUS; do
        log "fleet: quern, $n VUs over $FLEET_WORKERS workers, a GET in sc.init, then GET + 5 s sleep (${FLEET_SECS}s, ramp-up ${FLEET_RAMP}s)"
        fleet_row "$n" 0
        if [ "$FLEET_MAXIF" -gt 0 ]; then
            log "fleet: the same with --max-in-flight $FLEET_MAXIF"
            fleet_row "$n" "$FLEET_MAXIF"
        fi
    done
    kill "$fleet_nginx" 2>/dev/null && wait "$fleet_nginx" 2>/dev/null
fi
if [ "$fleet_only" = 1 ]; then
    {
        echo "fleet_ramp=$FLEET_RAMP"
        echo "fleet_secs=$FLEET_SECS"
        echo "fleet_nginx=$FLEET_NGINX"
        echo "fleet_max_in_flight=$FLEET_MAXIF"
    } >"$tmp/meta"
    cat "$tmp/fleet.tsv"
    "$PY" bench/report.py --only fleet "$tmp"
    exit 0
fi

if [ "${BENCH_SKIP_HAR2LUA:-0}" != 1 ]; then
    log "har2lua: a ${BENCH_HAR_MB:-50} MB recording, converted and parsed"
    har2lua_row "$tmp"
fi

if [ "${BENCH_SKIP_IPR:-0}" != 1 ]; then
    log "instructions per request: quern and the bare libcurl floor under callgrind"
    ipr_row "$tmp"
    ipr_say "$tmp/ipr.tsv"
fi

if [ "${BENCH_SKIP_SOAK:-0}" != 1 ]; then
    log "soak: quern, $SOAK_VUS VUs paced at 1 s, a new cookie on every response, one worker (${SOAK_SECS}s)"
    soak_row "$tmp"
fi
if [ "${BENCH_SKIP_WS:-0}" != 1 ]; then
    log "ws: $WS_VUS WebSockets x $WS_RT round trips, quern and a bare Python client; $WS_IDLE idle WebSockets"
    ws_row "$tmp"
    wsidle_row "$tmp"
fi
if [ "${BENCH_SKIP_IDLE:-0}" != 1 ]; then
    log "idle: quern's idle connections ($IDLE_KINDS; $IDLE_COUNTS), beside a bare epoll floor"
    idle_rows "$tmp"
fi
if [ "${BENCH_SKIP_GRPC:-0}" != 1 ]; then
    log "grpc: $GRPC_VUS VUs x $GRPC_CALLS unary calls, quern and a bare Python grpcio client"
    grpc_row "$tmp"
fi
if [ "${BENCH_SKIP_REDIS:-0}" != 1 ]; then
    log "redis: $REDIS_VUS connections x $REDIS_OPS GETs, quern.redis and redis-benchmark"
    redis_row "$tmp"
fi

# ------------------------------------------------------- 7. console fan-in
# fanin_row N: a console waiting for N agents, fed by tests/tools/fanin.c.
# Appends "requested agents cpu_pct window_s user_ticks sys_ticks rss_kb
# console_count sim_step_counts sim_rc console_rc" to fanin.tsv; a refusal
# (the console exits at once) goes to fanin.refused and returns 2.
fanin_row() {
    local want=$1 n=$2 d="$tmp/fanin.$2" fport cpid fpid u0 s0 u1 s1 t0 t1 rss crc=0 frc=0 cnt sim
    mkdir -p "$d"
    openssl rand -hex 32 >"$d/token"
    chmod 600 "$d/token"
    fport=$(free_port)
    taskset -c $CPU_TOOL "$FANIN_QUERN" run bench/fanin.lua --agents "$n" --vus "$n" \
        --listen "127.0.0.1:$fport" --token-file "$d/token" --wait 120s --duration "${FANIN_SECS}s" \
        --db none -q --summary-json "$d/quern.json" >"$d/out" 2>"$d/err" &
    cpid=$!
    sleep 0.5
    if ! kill -0 "$cpid" 2>/dev/null; then
        wait "$cpid" || crc=$?
        echo "$n $crc $(head -1 "$d/err")" >"$tmp/fanin.refused"
        log "  the console refused $n agents (exit $crc): $(head -1 "$d/err")"
        return 2
    fi
    taskset -c $CPU_SRV "$FANIN" --console "127.0.0.1:$fport" --token-file "$d/token" --agents "$n" \
        --steps 50 --duration "$FANIN_SECS" --timeout $((FANIN_SECS + 150)) >"$d/sim.out" 2>"$d/sim.err" &
    fpid=$!
    for _ in $(seq 600); do
        grep -q '^fanin: go:' "$d/sim.err" && break
        kill -0 "$fpid" 2>/dev/null || break
        sleep 0.25
    done
    if grep -q '^fanin: go:' "$d/sim.err"; then
        sleep 5
        read -r u0 s0 < <(awk '{print $14, $15}' /proc/"$cpid"/stat)
        t0=$(date +%s.%N)
        sleep "$FANIN_WINDOW"
        read -r u1 s1 < <(awk '{print $14, $15}' /proc/"$cpid"/stat)
        t1=$(date +%s.%N)
        rss=$(awk '/^VmRSS:/ {print $2}' /proc/"$cpid"/status)
    fi
    wait "$fpid" || frc=$?
    wait "$cpid" || crc=$?
    if [ -z "${u0:-}" ]; then
        log "  fan-in with $n agents never started: simulator: $(tail -3 "$d/sim.err" | tr '\n' ' ') console: $(tail -3 "$d/err" | tr '\n' ' ')"
        echo "$want $n FAILED" >>"$tmp/fanin.tsv"
        return 1
    fi
    cnt=$("$PY" -c 'import json,sys; print(sum(t["count"] for t in json.load(open(sys.argv[1]))["tests"]))' "$d/quern.json" 2>/dev/null || echo "?")
    sim=$(tr ' ' '\n' <"$d/sim.out" | awk -F= '$1 == "step_counts" {print $2}')
    echo "$want $n $("$PY" -c "print(round(($u1 + $s1 - $u0 - $s0) / $(getconf CLK_TCK) / ($t1 - $t0) * 100, 2), round($t1 - $t0, 2))") $((u1 - u0)) $((s1 - s0)) $rss $cnt ${sim:-?} $frc $crc" >>"$tmp/fanin.tsv"
    cp "$d/sim.out" "$tmp/fanin.sim.$n"
    log "  fan-in $n agents: $(tail -1 "$tmp/fanin.tsv")"
    log "  simulator: $(cat "$d/sim.out")"
}
: >"$tmp/fanin.tsv"
if [ "${BENCH_SKIP_FANIN:-0}" != 1 ]; then
    log "fan-in: console with $FANIN_AGENTS simulated agents x 50 steps (${FANIN_SECS}s)"
    if ! fanin_row "$FANIN_AGENTS" "$FANIN_AGENTS"; then
        # the console says which maximum it accepts: "... from 1 to M"
        max=$(sed -n 's/.*--agents: .* from 1 to \([0-9]*\).*/\1/p' "$tmp/fanin.refused" 2>/dev/null)
        if [ -n "$max" ]; then
            log "fan-in: rerunning with the largest count the console accepts, $max agents"
            fanin_row "$FANIN_AGENTS" "$max" || true
        fi
    fi
fi

# ------------------------------------------------------------------ 8. report
ver_locust=$(dpkg-query -W -f '${Version}' python3-locust 2>/dev/null || echo '?')
ver_wrk=$(dpkg-query -W -f '${Version}' wrk 2>/dev/null || echo '?')
ver_nginx=$("$NGINX" -v 2>&1 | sed 's/.*\///')
ver_quern=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
[ -n "$(git -C "$root" status --porcelain -- common worker console agent proto 2>/dev/null)" ] && ver_quern="$ver_quern+local changes"
{
    echo "secs=$SECS"
    echo "conns=$CONNS"
    echo "reps=$REPS"
    echo "check_secs=$CHECK_SECS"
    echo "mem_secs=$MEM_SECS"
    echo "mem_ramp=$MEM_RAMP"
    echo "cpu_srv=$CPU_SRV"
    echo "cpu_tool=$CPU_TOOL"
    echo "nproc=$(nproc)"
    echo "cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
    echo "kernel=$(uname -srm)"
    echo "os=$(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "ver_nginx=$ver_nginx"
    echo "ver_wrk=$ver_wrk"
    echo "ver_locust=$ver_locust"
    echo "ver_quern=$ver_quern"
    echo "command=${BENCH_COMMAND:-bench/run.sh}"
    echo "nofile=$NOFILE"
    echo "port_range=$(tr '\t' ' ' </proc/sys/net/ipv4/ip_local_port_range)"
    echo "scale_secs=$SCALE_SECS"
    echo "scale_ramp=$SCALE_RAMP"
    echo "fleet_ramp=$FLEET_RAMP"
    echo "fleet_secs=$FLEET_SECS"
    echo "fleet_nginx=$FLEET_NGINX"
    echo "fleet_max_in_flight=$FLEET_MAXIF"
    echo "fanin_secs=$FANIN_SECS"
    echo "fanin_window=$FANIN_WINDOW"
    echo "fanin_quern=$FANIN_QUERN"
    echo "lag_secs=$LAG_SECS"
    echo "lag_x=$LAG_X"
    for row in wrk wrk-lua locust quern; do
        echo "cmd_$row=$(cmd_"$row" '$BASE' "$SECS")"
    done
} >"$tmp/meta"
"$PY" bench/report.py "$tmp" >"$tmp/report.md"
mkdir -p "$(dirname "$OUT")"
cp "$tmp/report.md" "$OUT"
log "wrote $OUT"
sed -n '/^## Results/,/^## Method/p' "$OUT" | head -n -1
