# Server-sent events steps against a real source (tests/tools/sse_server.py,
# stdlib http.server): ids, types, multi-line data, comments and retry as
# the server sent them, a resume with last_event_id that the server sees, a
# stream cut by the server, a timeout, a 404, a wrong content type, no
# server, the queue's bound; streams closed when the run stops while VUs
# wait in next; then the example scripts/sse.lua over two workers. quern's
# counts must equal the server's own log.
. "$(dirname "$0")/lib.bash"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
SSE_PID=""
sse_cleanup() {
  [ -n "$SSE_PID" ] && kill "$SSE_PID" 2>/dev/null && wait "$SSE_PID" 2>/dev/null
  cleanup
}
trap sse_cleanup EXIT

# start_sse LOG: the server, its URL in SSE_URL
start_sse() {
  rm -f "$TMP/sse.port"
  "$PY" tests/tools/sse_server.py "$TMP/sse.port" >"$1" 2>"$1.err" &
  SSE_PID=$!
  wait_file "$TMP/sse.port" || { notok "sse server starts: $(cat "$1.err")"; exit 1; }
  SSE_URL="http://127.0.0.1:$(cat "$TMP/sse.port")"
}
stop_sse() { kill "$SSE_PID"; wait "$SSE_PID" 2>/dev/null; SSE_PID=""; }
# sent LOG TAG...: whole events the server wrote with these tags (field 2: count, 3: data bytes)
sent() { local f=$1; shift; awk -v tags=" $* " '$1 == "sent" && index(tags, " " $4 " ") { n++ } END { print n + 0 }' "$f"; }
sent_bytes() { local f=$1; shift; awk -v tags=" $* " '$1 == "sent" && index(tags, " " $4 " ") { b += $3 } END { print b + 0 }' "$f"; }

# --- every case, one VU, two runs -------------------------------------------
L=$TMP/sse.log
start_sse "$L"
timeout 60 "$QUERN" run tests/e2e/scripts/sse_cases.lua --vus 1 --runs 2 -q --allow-errors \
  -p sse_url="$SSE_URL" -p dead_url="http://127.0.0.1:$(free_port)" \
  --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
eq "cases: run exits 0" "$?" 0
stop_sse
S=$TMP/s.json
t() { sj "$S" ".tests[] | select(.id == \"SC-SSE-STEP-$1\") | $2"; }
errs() { echo "$(t "$1" .count)/$(t "$1" .errors.technical)/$(t "$1" .errors.functional)"; }
# the script asserts each event's id, type, data (two lines in even ones),
# retry and s.last_id against what the server sends: no functional error
eq "cases: a whole stream read as sent (ids, types, multi-line data, retry)" "$(errs 1)" 2/0/0
eq "cases: a stream cut in an event ends with closed, no error" "$(errs 2)" 2/0/0
eq "cases: resumed streams, no error" "$(errs 3)" 4/0/0
eq "cases: next's timeout, no error" "$(errs 4)" 2/0/0
eq "whole: events received = the server's" "$(t 1 .messages.received)" "$(sent "$L" whole)"
eq "whole: data bytes = the server's" "$(t 1 .messages.bytes_received)" "$(sent_bytes "$L" whole)"
eq "cut: the half event is not one (3 a run)" "$(t 2 .messages.received)/$(sent "$L" cut)" 6/6
eq "resume: events = the server's" "$(t 3 .messages.received)" "$(sent "$L" resume resumed)"
eq "resume: the server saw Last-Event-ID 2 and resumed at 3" \
  "$(grep -c '^open /stream?n=3&tag=resumed last-event-id=2$' "$L")/$(awk '$1 == "sent" && $4 == "resumed" { print $2 }' "$L" | sort -u | tr '\n' ,)" "2/3,4,5,"
eq "cookies: the VU's jar went with the stream" "$(grep -c '^cookie /stream?n=4&tag=whole session=s1$' "$L")" 2
eq "resume: the first streams sent no Last-Event-ID" "$(grep -c 'tag=resume last-event-id=-$' "$L")" 2
eq "steps 1-4: events and bytes = the server's" \
  "$(jq '[.tests[] | select(.id | test("STEP-[1-4]$")) | .messages.received] | add' "$S")/$(jq '[.tests[] | select(.id | test("STEP-[1-4]$")) | .messages.bytes_received] | add' "$S")" \
  "$(sent "$L" whole cut resume resumed hold)/$(sent_bytes "$L" whole cut resume resumed hold)"
between "timeout: next(\"300ms\") waited 300 ms (max, ms)" "$(t 9 .max_ms)" 295 1500
eq "404: a technical error of its step" "$(errs 5)" 2/2/0
check "404: ... saying so" grep -q "HTTP status 404" <<<"$(t 5 .errors.samples.technical)"
eq "404: the server refused 2" "$(grep -c '^refused /nothing 404$' "$L")" 2
eq "wrong type: a technical error" "$(errs 6)" 2/2/0
check "wrong type: ... saying so" grep -q "Content-Type is not text/event-stream" \
  <<<"$(t 6 .errors.samples.technical)"
eq "no server: a technical error" "$(t 10 .errors.technical)/$(t 10 .errors.functional)" 2/0
eq "queue: past 1024 waiting, closed with a technical error" "$(t 7 .errors.technical)" 2
check "queue: ... saying so" grep -q "more than 1024 events" <<<"$(t 7 .errors.samples.technical)"
eq "queue: the script took the 1024 queued" "$(grep -c 'flood: received 1024, then closed' "$TMP/out")" 2
eq "queue: every event parsed is counted (1025 a run)" "$(t 7 .messages.received)" 2050
check "unknown option: a script error naming it" grep -q 'unknown step:sse option "body"' \
  <<<"$(t 8 .errors.samples.functional)"

# --- the end of the run while VUs wait in next -------------------------------
L=$TMP/stop.log
start_sse "$L"
start=$(date +%s)
timeout 60 "$QUERN" run tests/e2e/scripts/sse_stop.lua --vus 3 --duration 2s -q \
  -p sse_url="$SSE_URL" --summary-json "$TMP/st.json" >/dev/null 2>&1
eq "stop: run exits 0" "$?" 0
between "stop: a 30 s next does not hold the stop (s)" "$(($(date +%s) - start))" 0 10
for _ in $(seq 20); do [ "$(grep -c '^gone ' "$L")" -ge 3 ] && break; sleep 0.1; done
stop_sse
eq "stop: the streams' samples, no error" "$(sj "$TMP/st.json" '.tests[0].count')/$(sj "$TMP/st.json" '.tests[0].errors.technical + .tests[0].errors.functional')" 3/0
eq "stop: the server saw each stream closed" "$(grep -c '^gone /stream?n=1&hold=10&tag=stop$' "$L")" 3

# --- the example over two workers ---------------------------------------------
L=$TMP/ex.log
start_sse "$L"
timeout 60 "$QUERN" run scripts/sse.lua --vus 4 --workers 2 --runs 3 -q -p pacing=0s \
  -p sse_url="$SSE_URL" --summary-json "$TMP/x.json" >"$TMP/xout" 2>"$TMP/xerr"
eq "example: run exits 0" "$?" 0
stop_sse
X=$TMP/x.json
eq "example: no error" "$(jq '[.tests[].errors.technical, .tests[].errors.functional] | add' "$X")" 0
eq "example: samples" "$(jq -c '[.tests[].count]' "$X")" "[12,12]"
eq "example: two workers' events sum to the server's" "$(jq '[.tests[].messages.received] | add' "$X")" \
  "$(sent "$L" -)"
eq "example: ... and their data bytes" "$(jq '[.tests[].messages.bytes_received] | add' "$X")" \
  "$(sent_bytes "$L" -)"
eq "example: every resume sent Last-Event-ID 3" "$(grep -c 'last-event-id=3$' "$L")" 12
