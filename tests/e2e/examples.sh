# Every example under scripts/ runs against the demo target without an error,
# and what it counts is what the server saw.
. "$(dirname "$0")/lib.bash"
start_target
# the WebSocket examples' server (tests/tools/ws_server.py)
WS_PY=/usr/bin/python3
[ -x "$WS_PY" ] || WS_PY=python3
"$WS_PY" tests/tools/ws_server.py "$TMP/ws.port" >/dev/null 2>&1 &
WS_PID=$!
# the server-sent events example's source (tests/tools/sse_server.py) and
# the gRPC example's server (tests/tools/grpc_server.py)
"$WS_PY" tests/tools/sse_server.py "$TMP/sse.port" >/dev/null 2>&1 &
SSE_PID=$!
"$WS_PY" tests/tools/grpc_server.py "$TMP/grpc.port" >/dev/null 2>&1 &
GRPC_PID=$!
trap 'kill "$WS_PID" "$SSE_PID" "$GRPC_PID" 2>/dev/null; wait "$WS_PID" "$SSE_PID" "$GRPC_PID" 2>/dev/null; cleanup' EXIT
wait_file "$TMP/ws.port" || notok "the WebSocket server starts"
wait_file "$TMP/sse.port" || notok "the SSE source starts"
wait_file "$TMP/grpc.port" || notok "the gRPC server starts"
WS_BASE="http://127.0.0.1:$(cat "$TMP/ws.port")"
SSE_BASE="http://127.0.0.1:$(cat "$TMP/sse.port")"
for s in scripts/*.lua; do
  grep -q "quern.redis" "$s" && continue # needs a Redis: tests/e2e/redis.sh runs it
  grep -q "lib.memcache" "$s" && continue # needs a memcached: tests/e2e/tcp.sh runs it
  grep -q "quern.pg" "$s" && continue    # needs a PostgreSQL: tests/e2e/pg.sh runs it
  grep -q "quern.mqtt" "$s" && continue # needs an MQTT broker: tests/e2e/mqtt.sh runs it
  reset_target
  ws0=$(curl -s "$WS_BASE/__stats")
  sse0=$(curl -s "$SSE_BASE/__stats")
  "$QUERN" run "$s" --vus 4 --runs 2 -q -p base_url="$BASE" -p pacing=200ms \
    -p ws_url="ws://127.0.0.1:$(cat "$TMP/ws.port")" -p sse_url="$SSE_BASE" \
    -p grpc_target="http://127.0.0.1:$(cat "$TMP/grpc.port")" --summary-json "$TMP/s.json" >"$TMP/out" 2>&1
  rc=$?
  eq "$s: exits 0" "$rc" 0
  [ "$rc" = 0 ] || { tail -5 "$TMP/out"; continue; }
  eq "$s: no errors" "$(sj "$TMP/s.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
  eq "$s: every step ran" "$(sj "$TMP/s.json" '[.tests[] | select(.count == 0)] | length')" 0
  # a gRPC example: its calls go to the gRPC server, whose counts
  # tests/e2e/grpc.sh compares with quern's
  grep -q ':grpc(' "$s" && continue
  if grep -q ':ws(' "$s"; then
    # a WebSocket example: its counts are the WebSocket server's
    ws1=$(curl -s "$WS_BASE/__stats")
    d() { echo $(($(jq "$1" <<<"$ws1") - $(jq "$1" <<<"$ws0"))); }
    eq "$s: messages sent = the server's received" \
      "$(sj "$TMP/s.json" '[.tests[].messages.sent] | add')" "$(d .received)"
    eq "$s: messages received = the server's sent" \
      "$(sj "$TMP/s.json" '[.tests[].messages.received] | add')" "$(d .sent)"
    continue
  fi
  if grep -q ':sse(' "$s"; then
    # a server-sent events example: its counts are the source's
    sse1=$(curl -s "$SSE_BASE/__stats")
    eq "$s: events received = the source's sent" \
      "$(sj "$TMP/s.json" '[.tests[].messages.received] | add')" \
      "$(($(jq .sent <<<"$sse1") - $(jq .sent <<<"$sse0")))"
    continue
  fi
  samples=$(sj "$TMP/s.json" '[.tests[].count] | add')
  # the login form is fetched for its token, untimed or in the login's
  # time block: the server's login_forms are no samples
  served=$(stat '.requests - .login_forms')
  if grep -v 'http\.[a-z]*(base \.\. "/login"\|login:time(' "$s" | grep -q 'http\.[a-z]*(\|:time(\|resources'; then
    # untimed requests, time blocks and pages' resources: more requests than samples
    between "$s: samples <= server requests" "$samples" 1 "$served"
  else
    eq "$s: samples = server requests" "$samples" "$served"
  fi
  if [ "$s" = scripts/page.lua ]; then
    # 4 VUs, 2 runs: the page each time, its resources once per VU, the stylesheet revalidated
    eq "$s: the target saw page, css, js, 1x image, url() image; no 2x, no icon" \
      "$(stat '[.by_path["/page"], .by_path["/page/site.css"], .by_path["/page/app.js"], .by_path["/page/hero-1x.png"], .by_path["/page/bg.png"], .by_path["/page/hero-2x.png"], .by_path["/page/favicon.ico"]] | map(. // 0) | join(" ")')" \
      "8 8 4 4 4 0 0"
    eq "$s: 4 revalidations answered 304" "$(stat '.by_status["304"] // 0')" 4
  fi
done
