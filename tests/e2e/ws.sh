# WebSocket steps against a real server (tests/tools/ws_server.py, on
# python3-websockets): echo in text and binary, a server's push, a VU that
# never receives while the server pings it, a refused handshake, the receive
# queue's bound, and wss:// with a self-signed certificate. quern's counts
# must equal the server's own, printed by it at exit.
# e2e: long (it starts among the first: tests/run.sh)
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
PIDS=()
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
WS_PID=""
ws_cleanup() {
  [ -n "$WS_PID" ] && kill "$WS_PID" 2>/dev/null && wait "$WS_PID" 2>/dev/null
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  cleanup
}
trap ws_cleanup EXIT

# start_ws OUT [CERT KEY]: the server, its port in WS_PORT
start_ws() {
  local out=$1; shift
  rm -f "$TMP/ws.port"
  "$PY" tests/tools/ws_server.py "$TMP/ws.port" "$@" >"$out" 2>"$out.err" &
  WS_PID=$!
  wait_file "$TMP/ws.port" || { notok "ws server starts: $(cat "$out.err")"; exit 1; }
  WS_PORT=$(cat "$TMP/ws.port")
}
# stop_ws: ends the server, which prints its counts
stop_ws() { kill -TERM "$WS_PID"; wait "$WS_PID"; WS_PID=""; }
# tot FILE FIELD: a messages field summed over every step
tot() { jq '[.tests[].messages.'"$2"'] | add' "$1"; }

# --- ws://: echo, push, hold, 404 ------------------------------------------
start_target
start_ws "$TMP/ws.out"
timeout 60 "$QUERN" run tests/e2e/scripts/ws.lua --vus 2 --runs 2 -q --allow-errors \
  -p ws_url="ws://127.0.0.1:$WS_PORT" -p base_url="$BASE" --summary-json "$TMP/s.json" \
  --db "$TMP/ws.db" >"$TMP/out" 2>"$TMP/err"
eq "ws: run exits 0" "$?" 0
stop_ws
S=$TMP/s.json
W=$TMP/ws.out
t() { sj "$S" ".tests[] | select(.id == \"SC-WS-STEP-$1\") | $2"; }
eq "ws: echo handshakes are samples, no error" "$(t 1 .count)/$(t 1 .errors.technical)/$(t 1 .errors.functional)" 4/0/0
eq "ws: round trips timed by step:time" "$(t 2 .count)/$(t 2 .errors.functional)" 4/0
eq "ws: push and hold ok" "$(t 3 .errors.functional)$(t 3 .errors.technical)$(t 4 .errors.functional)$(t 4 .errors.technical)" 0000
eq "ws: 404 is a technical error of its step" "$(t 5 .count)/$(t 5 .errors.technical)/$(t 5 .errors.functional)" 4/4/0
check "ws: 404's sample says so" grep -q "HTTP status 404" <<<"$(t 5 .errors.samples.technical)"
eq "ws: handshakes = the server's" "$(($(t 1 .count) + $(t 3 .count) + $(t 4 .count)))" "$(jq .handshakes "$W")"
eq "ws: refused = the server's" "$(t 5 .count)" "$(jq .refused "$W")"
eq "ws: messages sent = the server's received" "$(tot "$S" sent)" "$(jq .received "$W")"
eq "ws: messages received = the server's sent" "$(tot "$S" received)" "$(jq .sent "$W")"
eq "ws: bytes sent = the server's" "$(tot "$S" bytes_sent)" "$(jq .bytes_received "$W")"
eq "ws: bytes received = the server's" "$(tot "$S" bytes_received)" "$(jq .bytes_sent "$W")"
eq "ws: echo's messages (4 a run each way)" "$(t 1 .messages.sent)/$(t 1 .messages.received)" 16/16
eq "ws: push's messages" "$(t 3 .messages.received)" 12
eq "ws: hold's messages, a second after its sample" "$(t 4 .messages.sent)/$(t 4 .messages.received)" 4/4
# the database and the report: the messages per second and per step
dq() { sqlite3 -batch -noheader "$TMP/ws.db" "$1"; }
eq "db: per-second messages = the server's" \
  "$(dq 'SELECT sum(ws_sent), sum(ws_recv), sum(ws_bytes_sent), sum(ws_bytes_recv) FROM step_intervals')" \
  "$(jq -r '[.received, .sent, .bytes_received, .bytes_sent] | join("|")' "$W")"
eq "db: step totals' messages = the server's" \
  "$(dq 'SELECT sum(ws_sent), sum(ws_recv), sum(ws_bytes_sent), sum(ws_bytes_recv) FROM step_totals')" \
  "$(jq -r '[.received, .sent, .bytes_received, .bytes_sent] | join("|")' "$W")"
eq "db: echo's messages per step" \
  "$(dq "SELECT ws_sent, ws_recv FROM step_totals t JOIN steps s USING (run_id, step_index) WHERE s.test_id = 'SC-WS-STEP-1'")" "16|16"
"$QUERN" report --db "$TMP/ws.db" -o "$TMP/ws.html" >/dev/null 2>&1
eq "report: written" "$?" 0
eq "report: all steps' messages = the server's" \
  "$(grep -o '<tr class="total">.*' "$TMP/ws.html" | grep -o 'data-ws-sent="[0-9]*" data-ws-received="[0-9]*"')" \
  "data-ws-sent=\"$(jq .received "$W")\" data-ws-received=\"$(jq .sent "$W")\""
check "report: a messages-per-second chart" grep -q "WebSocket messages per second" "$TMP/ws.html"
eq "ws: every connection closed with 1000" "$(jq -c .closes "$W")" '{"1000":12}'
# the hold connections never call receive for 2.5 s (a sleep, a slow HTTP
# request) while pinged every 0.1 s
between "ws: pings answered while the script sleeps and waits on HTTP" "$(jq .pongs "$W")" 80 1000
eq "ws: the slow HTTP requests were made" "$(stat '.by_path["/slow"]')" 4
eq "ws: no pong late" "$(jq .ping_timeouts "$W")" 0

# --- the VU's cookie jar: an HTTP step's cookie on the upgrade, the 101's on
# the next HTTP request (the script fails a run that does not get it) -------
start_ws "$TMP/wsc.out"
timeout 60 "$QUERN" run tests/e2e/scripts/ws_cookie.lua --vus 2 --runs 2 -q \
  -p ws_url="ws://127.0.0.1:$WS_PORT" -p base_url="$BASE" --summary-json "$TMP/c.json" >"$TMP/cout" 2>"$TMP/cerr"
eq "cookies: run exits 0" "$?" 0
stop_ws
eq "cookies: every step ok" "$(jq -c '[.tests[] | [.count, .errors.technical, .errors.functional]]' "$TMP/c.json")" \
  '[[4,0,0],[4,0,0],[4,0,0]]'
# each VU's first upgrade carries its HTTP cookie, its second the 101's too
eq "cookies: the upgrades' Cookie headers, exactly" "$(jq -c '.cookies | sort' "$TMP/wsc.out")" \
  '["A=one-1","A=one-1; WSC=from-101","A=one-2","A=one-2; WSC=from-101"]'

# --- the receive queue's bound ----------------------------------------------
start_ws "$TMP/wsf.out"
timeout 60 "$QUERN" run tests/e2e/scripts/ws_flood.lua --vus 1 --runs 1 --allow-errors \
  -p ws_url="ws://127.0.0.1:$WS_PORT" --summary-json "$TMP/f.json" >"$TMP/fout" 2>"$TMP/ferr"
eq "flood: run exits 0" "$?" 0
stop_ws
eq "flood: closed by quern with 1008" "$(jq -c .closes "$TMP/wsf.out")" '{"1008":1}'
eq "flood: one technical error" "$(sj "$TMP/f.json" '.tests[0].errors.technical')" 1
check "flood: the script took the 1024 queued" grep -q "received 1024, then closed" "$TMP/ferr"
eq "flood: every message read is counted" "$(sj "$TMP/f.json" '.tests[0].messages.received')" \
  "$(jq .sent "$TMP/wsf.out")"

# --- what goes wrong ---------------------------------------------------------
start_ws "$TMP/wse.out"
timeout 60 "$QUERN" run tests/e2e/scripts/ws_edges.lua --vus 1 --runs 2 -q --allow-errors \
  -p ws_url="ws://127.0.0.1:$WS_PORT" -p dead_url="ws://127.0.0.1:$(free_port)" \
  --summary-json "$TMP/e.json" >"$TMP/eout" 2>"$TMP/eerr"
eq "edges: run exits 0" "$?" 0
stop_ws
e() { sj "$TMP/e.json" ".tests[] | select(.id == \"SC-WSE-STEP-$1\") | $2"; }
eq "edges: no server is a technical error" "$(e 1 .errors.technical)/$(e 1 .errors.functional)" 2/0
check "edges: ... saying so" grep -qi "connect" <<<"$(e 1 .errors.samples.technical)"
eq "edges: a server's close is no error" "$(e 2 .errors.technical)/$(e 2 .errors.functional)" 0/0
eq "edges: a send after the close is a technical error" "$(e 3 .errors.technical)" 2
check "edges: ... saying why" grep -q "closed" <<<"$(e 3 .errors.samples.technical)"
check "edges: an unknown option is a script error naming it" grep -q 'unknown step:ws option "body"' \
  <<<"$(e 4 .errors.samples.functional)"
eq "edges: the server's 4000 and the 1000s" "$(jq -c .closes "$TMP/wse.out")" '{"4000":2,"1000":2}'

# --- the end of the run while VUs wait in receive ------------------------------
start_ws "$TMP/wss2.out"
start=$(date +%s)
timeout 60 "$QUERN" run tests/e2e/scripts/ws_stop.lua --vus 3 --duration 2s -q \
  -p ws_url="ws://127.0.0.1:$WS_PORT" --summary-json "$TMP/st.json" >/dev/null 2>&1
eq "stop: run exits 0" "$?" 0
between "stop: a 30 s receive does not hold the stop (s)" "$(($(date +%s) - start))" 0 10
stop_ws
eq "stop: the handshakes, no error" "$(sj "$TMP/st.json" '.tests[0].count')/$(sj "$TMP/st.json" '.tests[0].errors.technical')" 3/0
eq "stop: closed with 1000" "$(jq -c .closes "$TMP/wss2.out")" '{"1000":3}'

# --- 1,000 idle WebSockets in one worker -------------------------------------
start_ws "$TMP/wsi.out"
timeout 60 "$QUERN" run tests/e2e/scripts/ws_idle.lua --vus 1000 --workers 1 --runs 1 --ramp 2s -q \
  -p ws_url="ws://127.0.0.1:$WS_PORT" -p hold=2s --summary-json "$TMP/i.json" >"$TMP/iout" 2>"$TMP/ierr"
eq "idle: run exits 0" "$?" 0
stop_ws
eq "idle: 1000 handshakes, no error" "$(sj "$TMP/i.json" '.tests[0].count')/$(jq '[.tests[].errors.technical, .tests[].errors.functional] | add' "$TMP/i.json")" 1000/0
eq "idle: all 1000 open at once at the server" "$(jq .open_max "$TMP/wsi.out")" 1000
eq "idle: each answered after its hold" "$(sj "$TMP/i.json" '.tests[1].count')/$(jq .received "$TMP/wsi.out")" 1000/1000
eq "idle: closed with 1000" "$(jq -c .closes "$TMP/wsi.out")" '{"1000":1000}'

# --- wss:// with a self-signed certificate ----------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$TMP/key.pem" -out "$TMP/cert.pem" 2>/dev/null
start_ws "$TMP/wss.out" "$TMP/cert.pem" "$TMP/key.pem"
timeout 60 "$QUERN" run tests/e2e/scripts/ws.lua --vus 1 --runs 1 -q --allow-errors --trace \
  -p ws_url="wss://127.0.0.1:$WS_PORT" -p ca="$TMP/cert.pem" --summary-json "$TMP/t.json" \
  >"$TMP/tout" 2>"$TMP/terr"
eq "wss: run exits 0" "$?" 0
stop_ws
eq "wss: no error but the 404" "$(jq '[.tests[].errors.functional] | add' "$TMP/t.json")/$(jq '[.tests[].errors.technical] | add' "$TMP/t.json")" 0/1
eq "wss: handshakes = the server's" "$(jq .handshakes "$TMP/wss.out")" 3
eq "wss: messages = the server's" "$(tot "$TMP/t.json" sent)/$(tot "$TMP/t.json" received)" \
  "$(jq .received "$TMP/wss.out")/$(jq .sent "$TMP/wss.out")"
eq "wss: closed with 1000" "$(jq -c .closes "$TMP/wss.out")" '{"1000":3}'
check "trace: the upgrade request" grep -q "^> Sec-WebSocket-Key: " "$TMP/terr"
check "trace: the 101" grep -q "SC-WS-STEP-1)echo: WebSocket open in" "$TMP/terr"
check "trace: a message" grep -q "^< hello 1$" "$TMP/terr"
check "trace: the 404" grep -q "^< HTTP/1.1 404" "$TMP/terr"
# an unknown CA: the handshake fails as a technical error
start_ws "$TMP/wsx.out" "$TMP/cert.pem" "$TMP/key.pem"
timeout 60 "$QUERN" run tests/e2e/scripts/ws.lua --vus 1 --runs 1 -q --allow-errors \
  -p ws_url="wss://127.0.0.1:$WS_PORT" --summary-json "$TMP/x.json" >/dev/null 2>&1
stop_ws
check "wss: an untrusted certificate is a technical error" grep -qi "certificate" \
  <<<"$(sj "$TMP/x.json" '.tests[0].errors.samples.technical')"

# --- wss:// through nginx (TLS ends there, ws:// behind), named by --resolve
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=ws.quern.test" \
  -addext "subjectAltName=DNS:ws.quern.test" -keyout "$TMP/nkey.pem" -out "$TMP/ncert.pem" 2>/dev/null
start_ws "$TMP/wsn.out"
SSLPORT=$(free_port_py)
start_nginx 64 "" "listen 127.0.0.1:$SSLPORT ssl; ssl_certificate $TMP/ncert.pem;
        ssl_certificate_key $TMP/nkey.pem;
        location /ws/ { proxy_pass http://127.0.0.1:$WS_PORT/; proxy_http_version 1.1;
            proxy_set_header Upgrade \$http_upgrade; proxy_set_header Connection upgrade; }"
timeout 60 "$QUERN" run tests/e2e/scripts/ws.lua --vus 2 --runs 1 -q --allow-errors \
  --resolve "ws.quern.test:$SSLPORT:127.0.0.1" -p ws_url="wss://ws.quern.test:$SSLPORT/ws" \
  -p ca="$TMP/ncert.pem" --summary-json "$TMP/n.json" >"$TMP/nout" 2>"$TMP/nerr"
eq "nginx: run exits 0" "$?" 0
stop_ws
eq "nginx: no error but the 404s" "$(jq '[.tests[].errors.functional] | add' "$TMP/n.json")/$(jq '[.tests[].errors.technical] | add' "$TMP/n.json")" 0/2
eq "nginx: handshakes = the server's" "$(jq .handshakes "$TMP/wsn.out")" 6
eq "nginx: messages = the server's" "$(tot "$TMP/n.json" sent)/$(tot "$TMP/n.json" received)" \
  "$(jq .received "$TMP/wsn.out")/$(jq .sent "$TMP/wsn.out")"
eq "nginx: pings through the proxy answered" "$(jq .ping_timeouts "$TMP/wsn.out")" 0
eq "nginx: closed with 1000" "$(jq -c .closes "$TMP/wsn.out")" '{"1000":6}'
