# --trace (-v): each request and response of VU 1 printed to stderr, as
# k6's --http-debug does: method and URL (password redacted), request and
# response headers, the body's first KB, the timings. With --vus > 1 only
# VU 1 is traced (with a warning) unless --trace=all; without --trace,
# nothing is printed.
. "$(dirname "$0")/lib.bash"
start_target
S=tests/e2e/scripts/trace.lua

"$QUERN" run $S --vus 1 --runs 1 --trace --db none -p base_url="$BASE" >"$TMP/one.out" 2>"$TMP/one.err"
eq "traced run exits 0" "$?" 0
E=$TMP/one.err
check "request: method, URL and step" grep -qxF -- "--- VU 1, run 1, SC-TRACE-STEP-1)css: GET $BASE/static/app.css" "$E"
check "request: the request line sent" grep -qxF "> GET /static/app.css HTTP/1.1" "$E"
check "request: the script's header" grep -qxF "> X-Trace-Test: vu1" "$E"
check "response: the status line" grep -qxF "< HTTP/1.1 200 OK" "$E"
check "response: a header" grep -qxF "< Content-Type: text/css" "$E"
check "response: the body's first bytes" grep -qxF "/* quern-target static asset */" "$E"
check "timings: DNS, connect, TLS, TTFB, total" \
  grep -qE '^--- 200 in [0-9.]+ ms \(dns [0-9.]+, connect [0-9.]+, tls [0-9.]+, ttfb [0-9.]+, total [0-9.]+ ms\)' "$E"
eq "a 5000-byte body: its first KB, then what was left out" \
  "$(grep -c '^0123456789ABCDEF' "$E")/$(grep -cxF '[... 3976 more bytes of the body]' "$E")" "16/1"
check "an untimed request is traced too" grep -qxF -- "--- VU 1, run 1, untimed: GET $BASE/status/404" "$E"
check "the summary still prints on stdout" grep -q "SC-TRACE-STEP-1" "$TMP/one.out"

# A password in the URL: sent, and masked in the trace.
CRED="http://u:secret@127.0.0.1:$PORT"
"$QUERN" run $S --vus 1 --runs 1 -v --db none -p base_url="$CRED" >"$TMP/cred.out" 2>"$TMP/cred.err"
eq "-v is --trace" "$(grep -c '^--- VU 1, run 1, ' "$TMP/cred.err")" 3
check "URL shown with the password masked" grep -qF "GET http://u:***@127.0.0.1:$PORT/static/app.css" "$TMP/cred.err"
check "Authorization sent, its credentials masked" grep -qxF "> Authorization: Basic ***" "$TMP/cred.err"
check "the password appears nowhere" test "$(grep -c secret "$TMP/cred.err" "$TMP/cred.out" | grep -vc ':0$')" = 0

# Several VUs: VU 1 only unless --trace=all.
"$QUERN" run $S --vus 3 --runs 1 --trace --db none -p base_url="$BASE" >/dev/null 2>"$TMP/three.err"
eq "--vus 3 --trace: a warning" "$(grep -c 'traces VU 1 only of 3' "$TMP/three.err")" 1
eq "--vus 3 --trace: VU 1 only" "$(grep '^--- VU ' "$TMP/three.err" | cut -d, -f1 | sort -u)" "--- VU 1"
"$QUERN" run $S --vus 2 --runs 1 --trace=all --db none -p base_url="$BASE" >/dev/null 2>"$TMP/all.err"
eq "--trace=all: every VU" "$(grep '^--- VU ' "$TMP/all.err" | cut -d, -f1 | sort -u | tr '\n' ' ')" "--- VU 1 --- VU 2 "
check "--trace=all: no warning" test "$(grep -c 'traces VU 1 only' "$TMP/all.err")" = 0
"$QUERN" run $S --trace=some --db none -p base_url="$BASE" >/dev/null 2>"$TMP/bad.err"
eq "--trace=some is a usage error" "$?" 2

# Off: not a line.
"$QUERN" run $S --vus 1 --runs 1 -q --db none -p base_url="$BASE" >/dev/null 2>"$TMP/off.err"
eq "without --trace nothing is traced" "$(grep -c '^--- \|^> \|^< ' "$TMP/off.err")" 0
check "no sanitizer report" test "$(cat "$TMP"/*.err | grep -c Sanitizer)" = 0
