# Kept-alive connections that the server closes while the VU is idle: the
# VU reconnects without an error, and the closed socket does not keep the
# worker busy (its watcher stays armed between requests, and must stop when
# the server hangs up).
. "$(dirname "$0")/lib.bash"
rm -f "$TMP/port"
"$TARGET" --port 0 --port-file "$TMP/port" --idle-timeout 1 >"$TMP/target.log" 2>&1 &
TARGET_PID=$!
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$TMP/port")
BASE="http://127.0.0.1:$PORT"

# 3 VUs, one request each 2.5 s for 8 s: the server closes each connection
# 1 s after its request, so every request after a VU's first needs a new one.
TIMEFORMAT='%U %S'
cpu=$( { time "$QUERN" run tests/e2e/scripts/pacing.lua --vus 3 --duration 8s -q \
  -p base_url="$BASE" -p pacing=2500ms --summary-json "$TMP/k.json" >/dev/null 2>"$TMP/k.err"; } 2>&1 )
eq "idle close: run exits 0" "$?" 0
req=$(sj "$TMP/k.json" '.tests[0].count')
between "idle close: requests made (3 VUs x 3 or 4)" "$req" 9 12
eq "idle close: no errors" "$(sj "$TMP/k.json" '.tests[0].errors.technical + .tests[0].errors.functional')" 0
eq "idle close: one new connection per request" "$(sj "$TMP/k.json" '.tests[0].new_connections')" "$req"
eq "idle close: the server saw as many connections" "$(stat .connections)" "$req"
# A watcher left firing on the closed sockets would spin for the ~7 s after
# the first close; an idle run costs well under a second (sanitizers on).
used=$(echo "$cpu" | tail -1 | awk '{printf "%d", ($1 + $2) * 1000}')
between "idle close: CPU of console + agent + worker under 3 s (ms)" "$used" 0 3000
