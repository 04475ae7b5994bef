# WebSocket steps in a distributed run: a console and two agents of two
# workers each, against tests/tools/ws_server.py; the console's merged counts
# of handshakes, messages and bytes equal the server's own.
. "$(dirname "$0")/dist_lib.bash"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
rm -f "$TMP/ws.port"
"$PY" tests/tools/ws_server.py "$TMP/ws.port" >"$TMP/ws.out" 2>"$TMP/ws.err" &
WS_PID=$!
PIDS+=("$WS_PID")
wait_file "$TMP/ws.port" || { notok "ws server starts: $(cat "$TMP/ws.err")"; exit 1; }

start_console c tests/e2e/scripts/ws.lua --vus 8 --runs 1 --agents 2 --wait 20s -q --allow-errors \
  -p ws_url="ws://127.0.0.1:$(cat "$TMP/ws.port")" --summary-json "$TMP/s.json"
start_agent a1 2
start_agent a2 2
wait_exit "$CONSOLE_PID" 60
eq "console exits 0" "$WAIT_RC" 0
kill -TERM "$WS_PID"
wait "$WS_PID"
S=$TMP/s.json
W=$TMP/ws.out
tot() { jq '[.tests[].'"$1"'] | add' "$S"; }
eq "8 VUs on 4 workers: handshakes = the server's" \
  "$(jq '[.tests[] | select(.id | test("STEP-[134]")) | .count] | add' "$S")" "$(jq .handshakes "$W")"
eq "the 404s = the server's refusals" "$(jq '.tests[4].errors.technical' "$S")" "$(jq .refused "$W")"
eq "messages sent = the server's received" "$(tot messages.sent)" "$(jq .received "$W")"
eq "messages received = the server's sent" "$(tot messages.received)" "$(jq .sent "$W")"
eq "bytes = the server's" "$(tot messages.bytes_sent)/$(tot messages.bytes_received)" \
  "$(jq .bytes_received "$W")/$(jq .bytes_sent "$W")"
eq "every count is there (8 VUs' worth)" "$(tot messages.sent)/$(jq .handshakes "$W")" 40/24
eq "closed with 1000" "$(jq -c .closes "$W")" '{"1000":24}'
