# --metrics: Debian's real Prometheus scrapes the console every second
# during a run; its HTTP API then gives quern's own final counts, errors and
# (through histogram_quantile) p95. Also: the access rules (a non-loopback
# address needs --token-file, then a bearer token), and hostile clients that
# cost the run nothing.
# e2e: long (it starts among the first: tests/run.sh)
. "$(dirname "$0")/lib.bash"
PROM=${PROMETHEUS:-/usr/bin/prometheus}
PROM_PID=""
QPID=""
stop_all() {
  [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
  [ -n "$QPID" ] && kill "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
  cleanup
}
trap stop_all EXIT
start_target
S=tests/e2e/scripts/prom.lua

# A loopback port no socket uses: below the kernel's ephemeral ports (a
# client socket holding the port would make Prometheus fail to listen).
idle_port() {
  local p lo
  lo=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "${lo:-0}" -gt 11000 ] 2>/dev/null || lo=32768
  for _ in $(seq 50); do
    p=$((10000 + RANDOM % (lo - 10000)))
    [ -z "$(ss -Htan "sport = :$p" 2>/dev/null)" ] && { echo "$p"; return; }
  done
  echo 0
}
# wait_file FILE: until it is not empty (10 s at most).
# pq EXPR: the value of an instant query at Prometheus, "none" when empty.
pq() {
  curl -s --max-time 5 "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" |
    jq -r '.data.result[0].value[1] // "none"'
}

# --- the access rules, before anything runs
"$QUERN" run $S --db none -q -p base_url="$BASE" --metrics 0.0.0.0:0 >"$TMP/out" 2>"$TMP/err"
eq "non-loopback --metrics without --token-file: exit 2" "$?" 2
eq "  one line" "$(wc -l <"$TMP/err")" 1
check "  naming --metrics" grep -q -- "--metrics 0.0.0.0:0" "$TMP/err"
eq "  no request sent" "$(stat .requests)" 0

# --- a run scraped by Prometheus every second
"$QUERN" run $S --vus 10 --duration 10s -p base_url="$BASE" --allow-errors --db none \
  --metrics 127.0.0.1:0 --metrics-port-file "$TMP/mport" --metrics-linger 4s \
  --summary-json "$TMP/s.json" >"$TMP/run.out" 2>"$TMP/run.err" &
QPID=$!
check "metrics port file written" wait_file "$TMP/mport"
MP=$(cat "$TMP/mport")
PP=$(idle_port)
cat >"$TMP/prom.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: quern
    static_configs:
      - targets: ['127.0.0.1:$MP']
YML
"$PROM" --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/data" \
  --web.listen-address="127.0.0.1:$PP" >"$TMP/prom.log" 2>&1 &
PROM_PID=$!
# (slow to start on a loaded machine: 30 s)
wait_until 30 curl -sf "http://127.0.0.1:$PP/-/ready"
check "Prometheus ready" curl -sf "http://127.0.0.1:$PP/-/ready"
# A scrape of our own during the run: the format's headers, once it serves
# the latency histograms.
served() { curl -s "http://127.0.0.1:$MP/metrics" | grep -q '^# TYPE quern_latency_seconds histogram'; }
check "the histograms served during the run" wait_until 10 served
curl -s -D "$TMP/h" -o "$TMP/m1" "http://127.0.0.1:$MP/metrics"
check "content type 0.0.4" grep -qi '^Content-Type: text/plain; version=0.0.4' "$TMP/h"
check "TYPE lines" grep -q '^# TYPE quern_latency_seconds histogram' "$TMP/m1"
eq "404 elsewhere" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MP/")" 404
eq "405 for POST" "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$MP/metrics")" 405
wait "$QPID"
eq "run: exit 0" "$?" 0
QPID=""
# quern served its final text for 4 s after the run: with a scrape each
# second, Prometheus's last scrape is after the final merge, so the counts
# must be equal, not within a second. last_over_time reads the last scrape
# whatever the staleness marker written since the endpoint went away. A
# scrape still in flight as the run ended is waited for.
WANT=$(jq '[.tests[].count] | add' "$TMP/s.json")
final_scraped() { [ "$(pq 'sum(last_over_time(quern_requests_total[5m]))')" = "$WANT" ]; }
wait_until 10 final_scraped
eq "requests_total summed over steps == quern's count" \
  "$(pq 'sum(last_over_time(quern_requests_total[5m]))')" "$WANT"
check "  and the run sent some ($WANT)" test "$WANT" -gt 300
eq "technical errors == quern's" "$(pq 'sum(last_over_time(quern_errors_total{kind="technical"}[5m]))')" \
  "$(jq '[.tests[].errors.technical] | add' "$TMP/s.json")"
eq "functional errors == quern's" "$(pq 'sum(last_over_time(quern_errors_total{kind="functional"}[5m]))')" \
  "$(jq '[.tests[].errors.functional] | add' "$TMP/s.json")"
check "  some of each" test "$(jq '[.tests[].errors.technical] | add' "$TMP/s.json")" -gt 0 -a \
  "$(jq '[.tests[].errors.functional] | add' "$TMP/s.json")" -gt 0
eq "vus_max" "$(pq 'last_over_time(quern_vus_max[5m])')" 10
eq "_count == requests of the step" \
  "$(pq 'last_over_time(quern_latency_seconds_count{step="SC-PROM-STEP-1)Page"}[5m])')" \
  "$(jq '.tests[0].count' "$TMP/s.json")"
eq "quern_service_seconds_count == requests of the step" \
  "$(pq 'last_over_time(quern_service_seconds_count{step="SC-PROM-STEP-1)Page"}[5m])')" \
  "$(jq '.tests[0].count' "$TMP/s.json")"
# p95: of the slow step, and of all steps together against the Totals line.
P95=$(pq 'histogram_quantile(0.95, sum by (le) (last_over_time(quern_latency_seconds_bucket{step="SC-PROM-STEP-1)Page"}[5m])))')
WANTP=$(jq '.tests[0].p95_ms / 1000' "$TMP/s.json")
between "histogram_quantile p95 of a step within 30 % of quern's ($WANTP s)" "$P95" \
  "$(awk -v v="$WANTP" 'BEGIN{print v*0.7}')" "$(awk -v v="$WANTP" 'BEGIN{print v*1.3}')"
P95ALL=$(pq 'histogram_quantile(0.95, sum by (le) (last_over_time(quern_latency_seconds_bucket[5m])))')
WANTALL=$(awk '$1=="Totals"{print $9/1000; exit}' "$TMP/run.out")
between "histogram_quantile p95 of all steps within 30 % of quern's Totals ($WANTALL s)" "$P95ALL" \
  "$(awk -v v="$WANTALL" 'BEGIN{print v*0.7}')" "$(awk -v v="$WANTALL" 'BEGIN{print v*1.3}')"
eq "threshold series" "$(pq 'last_over_time(quern_threshold_passed{expr="count>=1"}[5m])')" 1
# The dashboard's queries are valid PromQL over these series.
bad=0
while read -r e; do
  e=${e//\$run/.*}
  e=${e//\$__rate_interval/5s}
  st=$(curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$e" | jq -r .status)
  [ "$st" = success ] || { bad=$((bad + 1)); echo "# dashboard query failed: $e"; }
done < <(jq -r '.panels[].targets[].expr' scripts/grafana/quern.json)
eq "dashboard: every query valid" "$bad" 0
kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
PROM_PID=""

# --- a non-loopback address with a token; hostile clients during the run
printf 'sekret-token-of-the-tests-%s\n' "$RANDOM$RANDOM" >"$TMP/tok"
chmod 600 "$TMP/tok"
TOK=$(cat "$TMP/tok")
reset_target
"$QUERN" run $S --vus 5 --duration 6s -p base_url="$BASE" --allow-errors --db "$TMP/t.db" \
  --metrics 0.0.0.0:0 --token-file "$TMP/tok" --metrics-port-file "$TMP/mport2" \
  --metrics-linger 3s --summary-json "$TMP/s2.json" >"$TMP/run2.out" 2>"$TMP/run2.err" &
QPID=$!
check "token run: port file" wait_file "$TMP/mport2"
MP=$(cat "$TMP/mport2")
# the counts have moved from 0 (the scrapes below compare them)
counted() {
  curl -s -H "Authorization: Bearer $TOK" "http://127.0.0.1:$MP/metrics" |
    awk '/^quern_requests_total/ {n += $NF} END {exit !(n > 0)}'
}
await "requests counted on /metrics" 20 counted
eq "no bearer token: 401" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MP/metrics")" 401
eq "wrong token: 401" "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer ${TOK}x" \
  "http://127.0.0.1:$MP/metrics")" 401
eq "the token: 200" "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" \
  "http://127.0.0.1:$MP/metrics")" 200
# A garbage request, then 200 connections from 127.0.0.1 that send nothing,
# held 4 s: MHD keeps HSRV_PER_IP_MAX of them (the others are closed at
# once) for 5 s at most. A scraper from another address (127.0.0.2) is still
# served meanwhile, and sees the counts move: the loop renders each second.
garbage=$(
  exec 3<>"/dev/tcp/127.0.0.1/$MP" || exit 0
  printf 'B\001AD \377\377 junk\r\n\r\n' >&3
  timeout 3 head -c 12 <&3
)
eq "garbage request: 400" "$garbage" "HTTP/1.1 400"
(
  for _ in $(seq 200); do exec {fd}<>"/dev/tcp/127.0.0.1/$MP" || break; done
  : >"$TMP/held"
  sleep 4 # the hold under test
) 2>/dev/null &
HOLD=$!
await "the 200 connections opened" 20 test -e "$TMP/held"
scrape2() {
  curl -s --max-time 2 --interface 127.0.0.2 -H "Authorization: Bearer $TOK" \
    "http://127.0.0.1:$MP/metrics" | awk '/^quern_requests_total/ {n += $NF} END {print n + 0}'
}
n1=$(scrape2)
# the next render, a second at most on: scraped until then, for 2 s at most
# (well within the hold)
end=$(($(date +%s%N) + 2000000000))
while n2=$(scrape2); [ "$n2" -le "$n1" ] && [ "$(date +%s%N)" -lt "$end" ]; do sleep 0.1; done
check "while held: another client is served, and the counts move ($n1 then $n2)" test "$n2" -gt "$n1" -a "$n1" -gt 0
wait "$QPID"
eq "token run: exit 0" "$?" 0
QPID=""
wait "$HOLD" 2>/dev/null
between "token run: lasted its 6 s" "$(jq '.run.duration_s' "$TMP/s2.json")" 5.5 7.5
eq "token run: counts as the server's" "$(jq '[.tests[].count] | add' "$TMP/s2.json")" "$(stat .requests)"
# Every second was merged and recorded as it came, none late.
between "token run: a second recorded per second" \
  "$(sqlite3 "$TMP/t.db" 'SELECT count(*) FROM intervals')" 6 7
check "token run: its summary" grep -q '^Totals' "$TMP/run2.out"
check "the token is in no output" sh -c "! grep -qF '$TOK' '$TMP/run2.out' '$TMP/run2.err' '$TMP/s2.json'"
