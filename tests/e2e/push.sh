# --out: one run pushes to Debian's real InfluxDB 1.6 and Prometheus (remote
# write receiver, no scrape job) and to a JSON lines file at once; each
# receiver's own sums equal quern's counts, and the URLs' credentials are
# never shown. Then receivers that answer 500, never answer, or are not
# there: the run's counts and duration are those of a run without them
# (plus the bounded wait at the end), and the loss is reported.
# e2e: heavy (a Prometheus, an InfluxDB and a run at once; tests/run.sh gives it two slots)
. "$(dirname "$0")/lib.bash"
PROM=${PROMETHEUS:-/usr/bin/prometheus}
INFLUXD=${INFLUXD:-/usr/bin/influxd}
PIDS=()
stop_all() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  cleanup
}
trap stop_all EXIT
start_target
S=tests/e2e/scripts/prom.lua
port() { free_port_py; }

# --- the receivers, started together
IP=$(port); IR=$(port); PP=$(port)
mkdir -p "$TMP/influx"
cat >"$TMP/influx.conf" <<CONF
reporting-disabled = true
bind-address = "127.0.0.1:$IR"
[meta]
  dir = "$TMP/influx/meta"
[data]
  dir = "$TMP/influx/data"
  wal-dir = "$TMP/influx/wal"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  bind-address = "127.0.0.1:$IP"
  log-enabled = false
[continuous_queries]
  enabled = false
CONF
"$INFLUXD" -config "$TMP/influx.conf" >"$TMP/influx.log" 2>&1 &
PIDS+=($!)
printf 'global:\n  scrape_interval: 1m\n' >"$TMP/prom.yml"
"$PROM" --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/pdata" \
  --web.enable-remote-write-receiver --web.listen-address="127.0.0.1:$PP" >"$TMP/prom.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 150); do
  curl -sf "http://127.0.0.1:$IP/ping" >/dev/null && curl -sf "http://127.0.0.1:$PP/-/ready" >/dev/null && break
  sleep 0.1
done
check "InfluxDB answers /ping" curl -sf "http://127.0.0.1:$IP/ping"
check "Prometheus ready" curl -sf "http://127.0.0.1:$PP/-/ready"
curl -s -XPOST "http://127.0.0.1:$IP/query" --data-urlencode "q=CREATE DATABASE quern" >/dev/null

# --- one run, the three outputs at once (credentials in the InfluxDB URL,
# which InfluxDB without auth ignores)
"$QUERN" run $S --vus 5 --duration 4s -p base_url="$BASE" --allow-errors --db "$TMP/q.db" \
  --tag env="pre prod" --tag 'team-x=a,b=c d\e' --tag 'path=C:\dir\' --summary-json "$TMP/s.json" \
  --out jsonl="$TMP/o.jsonl" \
  --out "influxdb=http://qu:pw-sekret1@127.0.0.1:$IP/write?db=quern&p=pw-sekret2" \
  --out "prometheus-rw=http://127.0.0.1:$PP/api/v1/write" \
  --out-header "X-Scope-OrgID: quern" >"$TMP/run.out" 2>"$TMP/run.err"
RC=$?
# a failed run says why in the check's name (its verdict and its last error)
WHY=$( (grep -h '^Verdict' "$TMP/run.out"; grep -h 'warning\|error:' "$TMP/run.err" | tail -1) | tr '\n' ' ' | cut -c1-300)
eq "run: exit 0${WHY:+ ($WHY)}" "$RC" 0
TEND=$(($(date +%s) - 1))
WANT=$(jq '[.tests[].count] | add' "$TMP/s.json")
W1=$(jq '.tests[0].count' "$TMP/s.json")
check "  it sent some ($WANT)" test "$WANT" -gt 100
eq "  the server counted them" "$(stat .requests)" "$WANT"
eq "  nothing lost" "$(grep -c 'pushes lost' "$TMP/run.err")" 0
grep -h 'pushes lost' "$TMP/run.err" | sed "s/^/# /"
# JSON lines: one a second, then the end's totals
eq "jsonl: one end line, the last" "$(tail -1 "$TMP/o.jsonl" | jq -r .end)" true
eq "jsonl: seconds' counts sum to quern's" \
  "$(jq -s '[.[] | select(.end != true) | .steps[].count] | add' "$TMP/o.jsonl")" "$WANT"
eq "jsonl: the end's totals are quern's" "$(tail -1 "$TMP/o.jsonl" | jq '[.steps[].count] | add')" "$WANT"
eq "jsonl: the tag" "$(tail -1 "$TMP/o.jsonl" | jq -r '.tags.env')" "pre prod"
# InfluxDB: the sum of a step's counts
iq() {
  curl -s "http://127.0.0.1:$IP/query?db=quern" --data-urlencode "q=$1" |
    jq -r '.results[0].series[0].values[0][1] // "none"'
}
eq "influxdb: sum(count) of step 1 == quern's" \
  "$(iq "SELECT sum(count) FROM quern WHERE step='SC-PROM-STEP-1)Page'")" "$W1"
eq "influxdb: sum(count) of every step == quern's" "$(iq "SELECT sum(count) FROM quern")" "$WANT"
eq "influxdb: technical errors == quern's" "$(iq "SELECT sum(err_technical) FROM quern")" \
  "$(jq '[.tests[].errors.technical] | add' "$TMP/s.json")"
eq "influxdb: the totals point" "$(iq "SELECT sum(count) FROM quern_total")" "$WANT"
eq "influxdb: tag with a space" "$(iq "SELECT sum(count) FROM quern WHERE env='pre prod'")" "$WANT"
tv() {
  curl -s "http://127.0.0.1:$IP/query?db=quern" --data-urlencode "q=SHOW TAG VALUES FROM quern WITH KEY = \"$1\"" |
    jq -r '.results[0].series[0].values[0][1]'
}
eq "influxdb: a tag with a comma, '=', a space and a backslash, as given" "$(tv team-x)" 'a,b=c d\e'
eq "influxdb: a tag ending in a backslash, without it (1.x cannot read one)" "$(tv path)" 'C:\dir'
check "influxdb: the run's VUs" test "$(iq "SELECT max(vus) FROM quern_run")" = 5
# Prometheus: the last remote-written sample of each series
pq() {
  curl -s --max-time 5 "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" |
    jq -r '.data.result[0].value[1] // "none"'
}
eq "prometheus: last quern_requests_total == quern's" \
  "$(pq 'sum(last_over_time(quern_requests_total{env="pre prod",name="prom"}[5m]))')" "$WANT"
eq "prometheus: the tags as labels, their keys made label names" \
  "$(curl -s "http://127.0.0.1:$PP/api/v1/series" --data-urlencode 'match[]=quern_vus' | jq -r '.data[0] | .team_x + "|" + .path')" \
  'a,b=c d\e|C:\dir\'
P95=$(pq 'histogram_quantile(0.95, sum by (le) (last_over_time(quern_latency_seconds_bucket{step="SC-PROM-STEP-1)Page"}[5m])))')
WANTP=$(jq '.tests[0].p95_ms / 1000' "$TMP/s.json")
between "prometheus: histogram_quantile p95 within bucket resolution (25 %) of quern's ($WANTP s)" \
  "$P95" "$(awk -v v="$WANTP" 'BEGIN{print v*0.75}')" "$(awk -v v="$WANTP" 'BEGIN{print v*1.25}')"
eq "prometheus: vus_max" "$(pq 'last_over_time(quern_vus_max[5m])')" 5
# The dashboard's queries give data on the remote-written series, at the
# run's last second.
bad=0
while read -r e; do
  e=${e//\$run/.*}
  e=${e//\$__rate_interval/5s}
  r=$(curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$e" --data-urlencode "time=$TEND")
  [ "$(jq -r '.status + " " + (.data.result | length | tostring)' <<<"$r")" != "success 0" ] &&
    [ "$(jq -r .status <<<"$r")" = success ] || { bad=$((bad + 1)); echo "# dashboard query without data: $e"; }
done < <(jq -r '.panels[].targets[].expr' scripts/grafana/quern.json)
eq "grafana dashboard quern.json: every query has data on remote-written series" "$bad" 0
# The InfluxDB dashboard's queries give data (the arrivals: a closed run has none).
bad=0
while read -r e; do
  e=${e//\$timeFilter/time > now() - 1h}
  e=${e//\$__interval/1s}
  e=${e//\/^\$name\$\//\/.*\/}
  r=$(curl -s "http://127.0.0.1:$IP/query?db=quern" --data-urlencode "q=$e")
  n=$(jq -r '.results[0].series // [] | length' <<<"$r")
  { [ "$(jq -r '.results[0].error // "none"' <<<"$r")" = none ] && { [ "$n" -gt 0 ] || [[ $e == *arrivals* ]]; }; } ||
    { bad=$((bad + 1)); echo "# influxdb dashboard query failed: $e: $r"; }
done < <(jq -r '.panels[].targets[].query' scripts/grafana/quern-influxdb.json)
eq "grafana dashboard quern-influxdb.json: every query has data" "$bad" 0
eq "  and its run variable lists the run" \
  "$(curl -s "http://127.0.0.1:$IP/query?db=quern" --data-urlencode "q=$(jq -r '.templating.list[1].query' scripts/grafana/quern-influxdb.json)" |
    jq -r '.results[0].series[0].values[0][1]')" prom
# No credential anywhere.
eq "credentials never shown nor stored" \
  "$(cat "$TMP/run.out" "$TMP/run.err" "$TMP/o.jsonl" "$TMP/q.db" | grep -ac 'pw-sekret')" 0
check "  the URL shown redacted" grep -q 'qu:\*\*\*@127.0.0.1.*p=\*\*\*' "$TMP/run.err"
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
PIDS=()

# --- receivers that refuse (500), never answer, or are not there
python3 - "$TMP/bad.ports" <<'PY' &
import socket, sys, threading
def listener():
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0)); s.listen(64); return s
refuse, silent = listener(), listener()
held = []
def serve_500():
    while True:
        c, _ = refuse.accept()
        c.settimeout(2)
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                data += c.recv(65536)
            open(sys.argv[1] + ".headers", "ab").write(data)
            c.sendall(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except OSError:
            pass
        c.close()
def serve_silent():
    while True:
        held.append(silent.accept()[0])
threading.Thread(target=serve_500, daemon=True).start()
threading.Thread(target=serve_silent, daemon=True).start()
open(sys.argv[1] + ".tmp", "w").write("%d %d\n" % (refuse.getsockname()[1], silent.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
threading.Event().wait(30)
PY
PIDS+=($!)
check "bad receivers listening" wait_file "$TMP/bad.ports"
read -r R500 RSILENT <"$TMP/bad.ports"
ABSENT=$(port)
reset_target
printf 'tok-sekret-%s\n' "$RANDOM" >"$TMP/tok"
T0=$(date +%s.%N)
"$QUERN" run $S --vus 5 --duration 3s -p base_url="$BASE" --allow-errors --db "$TMP/q2.db" \
  --summary-json "$TMP/s2.json" --out-token-file "$TMP/tok" --out-header "X-Api-Key: key-sekret" \
  --out "influxdb=http://127.0.0.1:$R500/write?db=x" \
  --out "prometheus-rw=http://127.0.0.1:$RSILENT/api/v1/write" \
  --out "influxdb=http://127.0.0.1:$ABSENT/write?db=x" >"$TMP/run2.out" 2>"$TMP/run2.err"
eq "bad receivers: exit 0" "$?" 0
WALL=$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
N2=$(jq '[.tests[].count] | add' "$TMP/s2.json")
eq "  the server counted quern's count" "$(stat .requests)" "$N2"
# 5 VUs paced at 100 ms for 3 s: 150 runs of 2 requests, as without outputs
between "  the count of an unhindered run" "$N2" 280 300
between "  the run's duration unchanged" "$(jq '.run.duration_s' "$TMP/s2.json")" 2.9 4.0
between "  wall time: the run, then 3 s at most for the pushes" "$WALL" 3 10
eq "  one warning per receiver" "$(grep -c 'pushes lost' "$TMP/run2.err")" 3
check "  the 500 named" grep -q "127.0.0.1:$R500.*pushes lost.*HTTP status 500" "$TMP/run2.err"
check "  the silent one named" grep -q "127.0.0.1:$RSILENT.*pushes lost" "$TMP/run2.err"
check "  the absent one named" grep -q "127.0.0.1:$ABSENT.*pushes lost.*connect" "$TMP/run2.err"
check "  the token file's bearer token sent" grep -q "^Authorization: Bearer $(cat "$TMP/tok")" "$TMP/bad.ports.headers"
check "  and the --out-header" grep -q "^X-Api-Key: key-sekret" "$TMP/bad.ports.headers"
eq "  neither shown nor stored" \
  "$(cat "$TMP/run2.out" "$TMP/run2.err" "$TMP/q2.db" | grep -ac 'sekret')" 0
