# --web: a real headless Chromium opens the live page during a run against
# the demo target: its numbers move from one second to the next, and at the
# end its summary is the console's own (--summary-json). Also: the access
# rules (a non-loopback address needs --token-file; "/?token=" once, then a
# cookie), a read-only server, and hostile clients (a garbage request, 1,000
# idle connections, slowloris) that get nothing and cost the run nothing.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/browser_lib.bash"
QPID=""
stop_all() {
  [ -n "$QPID" ] && kill "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
  cleanup
}
trap stop_all EXIT
browser_setup
start_target
S=tests/e2e/scripts/prom.lua
ART=${QUERN_TEST_ARTIFACTS:-$TMP/artifacts}
mkdir -p "$ART"

# --- the access rules, before anything runs
"$QUERN" run $S --db none -q -p base_url="$BASE" --web 0.0.0.0:0 >"$TMP/out" 2>"$TMP/err"
eq "non-loopback --web without --token-file: exit 2" "$?" 2
eq "  one line" "$(wc -l <"$TMP/err")" 1
check "  naming --web" grep -q -- "--web 0.0.0.0:0" "$TMP/err"
"$QUERN" run $S --db none -q -p base_url="$BASE" --web nohost >"$TMP/out" 2>"$TMP/err"
eq "--web without a port: exit 2" "$?" 2
eq "  no request sent" "$(stat .requests)" 0

# --- a run on a non-loopback address, seen in Chromium, attacked meanwhile
printf 'web-token-of-the-tests-%s%s\n' "$RANDOM" "$RANDOM" >"$TMP/tok"
chmod 600 "$TMP/tok"
TOK=$(cat "$TMP/tok")
"$QUERN" run $S --vus 10 --duration 10s -p base_url="$BASE" --allow-errors --db "$TMP/w.db" \
  --web 0.0.0.0:0 --token-file "$TMP/tok" --web-port-file "$TMP/wport" --metrics-linger 4s \
  --summary-json "$TMP/s.json" >"$TMP/run.out" 2>"$TMP/run.err" &
QPID=$!
check "web port file written" wait_file "$TMP/wport"
WP=$(cat "$TMP/wport")
browser_node tests/e2e/scripts/web_page.js "$WP" "$TOK" "$ART" >"$TMP/page.json" 2>"$TMP/node.err" &
NPID=$!
wait_requests 1 20 || notok "waited 20 s for the run under way"
U="http://127.0.0.1:$WP"
eq "no token: 401" "$(curl -s -o /dev/null -w '%{http_code}' "$U/state.json")" 401
eq "wrong token: 401" "$(curl -s -o /dev/null -w '%{http_code}' "$U/?token=${TOK}x")" 401
eq "bearer token: 200" "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" \
  "$U/state.json")" 200
eq "read-only: POST is 405" "$(curl -s -o /dev/null -w '%{http_code}' -X POST \
  -H "Authorization: Bearer $TOK" "$U/state.json")" 405
eq "404 elsewhere" "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" \
  "$U/stop")" 404
BIG=$(head -c 40000 /dev/zero | tr '\0' a)
check "a 40 KB header: refused ($(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $BIG" "$U/"))" \
  sh -c "curl -s -o /dev/null -w '%{http_code}' -H 'X-Big: $BIG' '$U/' | grep -Eq '^(413|414|431)\$'"
curl -s -D "$TMP/h" -o "$TMP/page.html" -H "Authorization: Bearer $TOK" "$U/"
check "the page: no script, style or link from elsewhere" \
  sh -c "! grep -Eiq '(src|href)=\"(https?:)?//' '$TMP/page.html'"
check "  and a CSP that forbids them" grep -qi "^Content-Security-Policy: default-src 'none'" "$TMP/h"
wait "$NPID"
wait "$QPID"
st=$?
eq "run: exit 0" "$st" 0
[ "$st" = 0 ] || tail -n 5 "$TMP/run.out" "$TMP/run.err" | sed 's/^/# /'
QPID=""
P=$TMP/page.json
echo "# page: $(head -c 600 "$P")"
eq "browser: no error" "$(jq -r '.error // "none"' "$P")" none
check "token once: the redirect leaves the address bar clean" \
  sh -c "jq -r .url_after '$P' | grep -q '/\$' && ! jq -r .url_after '$P' | grep -qF '$TOK'"
eq "  then an HttpOnly cookie" "$(jq -r .cookie_httponly "$P")" true
eq "no request but to the console" "$(jq '.requests_elsewhere | length' "$P")" 0
check "the page's numbers move from one second to the next ($(jq -c .live "$P"))" \
  jq -e '.live.t2 > .live.t1 and .live.sec2 > .live.sec1 and .live.t1 > 0' "$P"
eq "four charts, drawn as SVG" "$(jq .charts "$P")" 4
eq "the agent, running" "$(jq -r .agent_state "$P")" running
eq "thresholds with their live verdicts" "$(jq .thresholds_live "$P")" 1
WANT=$(jq '[.tests[].count] | add' "$TMP/s.json")
eq "final live total == quern's count" "$(jq .final_total "$P")" "$WANT"
check "  and the run sent some ($WANT)" test "$WANT" -gt 300
# Counts exactly; milliseconds as the page shows them, to 0.01.
check "summary rows == quern's summary (count, errors, mean, p50..p99, max)" \
  jq -e -n --slurpfile p "$P" --slurpfile s "$TMP/s.json" '
    ($p[0].summary | length) == ($s[0].tests | length) and ($s[0].tests | length) > 0 and
    ([$p[0].summary, $s[0].tests] | transpose | all(.[0] as $a | .[1] as $b |
      $a.name == $b.name and ($a.count | tonumber) == $b.count and
      ($a.tech | tonumber) == $b.errors.technical and ($a.func | tonumber) == $b.errors.functional and
      ([["mean", "mean_ms"], ["p50", "p50_ms"], ["p90", "p90_ms"], ["p95", "p95_ms"],
        ["p99", "p99_ms"], ["max", "max_ms"]] |
        all((($a[.[0]] | tonumber) - $b[.[1]]) as $d | ($d < 0.0051 and $d > -0.0051)))))'
eq "the verdict, as quern's" "$(jq -r .verdict "$P")" "$(jq -r .verdict.reason "$TMP/s.json")"
eq "links to nothing" "$(jq .links "$P")" 0
check "screenshots taken" test -s "$ART/web-live.png" -a -s "$ART/web-final.png"
# The attackers, from other addresses than the browser's.
eq "garbage request: 400" "$(jq -r .garbage "$P")" "HTTP/1.1 400"
eq "idle and slowloris connections got nothing" "$(jq .idle_answered "$P")" 0
check "while attacked, each merged second came within 2.5 s ($(jq -c .gaps_ms "$P"))" \
  jq -e '(.gaps_ms | length) >= 2 and (.gaps_ms | max) < 2500' "$P"
eq "the run's counts are the server's" "$WANT" "$(stat .requests)"
between "lasted its 10 s" "$(jq '.run.duration_s' "$TMP/s.json")" 9.5 11.5
between "a second recorded per second" "$(sqlite3 "$TMP/w.db" 'SELECT count(*) FROM intervals')" 10 11
check "the token is in no output" sh -c "! grep -qF '$TOK' '$TMP/run.out' '$TMP/run.err' '$TMP/s.json'"
