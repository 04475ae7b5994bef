# The injector's state on the --web page: a run whose only worker is stopped
# (SIGSTOP) for 2 s has, in /state.json, "injector saturated" with that
# worker's CPU and lag for a few seconds once it resumed, then "kept up"; the
# seconds the database holds as saturated as bands, shaded on each of the
# page's charts; a real headless Chromium shows the injector's line (the
# saturated seconds counted) and the bands in every chart.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/browser_lib.bash"
QPID=""
PPID_POLL=""
stop_all() {
  [ -n "$PPID_POLL" ] && kill "$PPID_POLL" 2>/dev/null
  [ -n "$QPID" ] && kill "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
  cleanup
}
trap stop_all EXIT
browser_setup
start_target
ART=${QUERN_TEST_ARTIFACTS:-$TMP/artifacts}
mkdir -p "$ART"
DB=$TMP/w.db

"$QUERN" run tests/e2e/scripts/paced.lua --vus 1 --duration 10s --workers 1 -q -p base_url="$BASE" \
  --db "$DB" --web 127.0.0.1:0 --web-port-file "$TMP/wport" --metrics-linger 4s \
  >"$TMP/run.out" 2>&1 &
QPID=$!
check "web port file written" wait_file "$TMP/wport"
U="http://127.0.0.1:$(cat "$TMP/wport")"
browser_node tests/e2e/scripts/web_sat.js "$(cat "$TMP/wport")" "$ART" >"$TMP/page.json" 2>"$TMP/node.err" &
NPID=$!
# every 200 ms, the injector's state
(while :; do curl -s "$U/state.json" | jq -c '.injector' 2>/dev/null; sleep 0.2; done) >"$TMP/poll" &
PPID_POLL=$!
wait_requests 1 20
sleep 2.5 # a few seconds of the run before the stall, the page watching
AGENT=$(pgrep -P "$QPID" | head -1)
WORKER=$(pgrep -P "${AGENT:-0}" | head -1)
check "the worker process found" test -n "$WORKER"
kill -STOP "$WORKER"
sleep 2 # the stall under test
kill -CONT "$WORKER"
for _ in $(seq 150); do
  [ "$(curl -s "$U/state.json" | jq -r .final)" = true ] && break
  sleep 0.1
done
curl -s "$U/state.json" >"$TMP/final.json"
kill "$PPID_POLL" 2>/dev/null
PPID_POLL=""
wait "$NPID"
wait "$QPID"
eq "the run ends" "$?" 0
QPID=""

SAT=$(sqlite3 "$DB" "SELECT coalesce(group_concat(f || '-' || (t + 1), ' '), '') FROM (SELECT
  min(second) f, max(second) t FROM (SELECT second, second - row_number() OVER (ORDER BY second) g
  FROM injector_seconds WHERE run_id = 1 AND saturated > 0) GROUP BY g ORDER BY f)")
check "the database has saturated seconds ($SAT)" test -n "$SAT"
B0=${SAT%% *}
check "state.json: the injector saturated, with the worst worker's CPU and lag, while it was" \
  grep -Eq '"saturated":true,"worker":"worker 0","cpu_pct":[0-9.]+,"lag_ms":[0-9.]+' "$TMP/poll"
check "state.json: the injector kept up before" grep -q '"saturated":false,"worker":"worker 0",.*"saturated_s":0,' "$TMP/poll"
check "state.json: and after" grep -q '"saturated":false,"worker":"worker 0",.*"saturated_s":[1-9]' "$TMP/poll"
eq "state.json: the page's bands are the database's saturated seconds" \
  "$(jq -r '[.injector.bands[] | "\(.[0])-\(.[1])"] | join(" ")' "$TMP/final.json")" "$SAT"
eq "state.json: its saturated seconds counted" "$(jq -r .injector.saturated_s "$TMP/final.json")" \
  "$(sqlite3 "$DB" 'SELECT count(*) FROM injector_seconds WHERE saturated > 0')"
for k in throughput latency errors vus; do
  check "state.json: the $k chart shades them" \
    sh -c "jq -r '.charts.$k' '$TMP/final.json' | grep -q '<rect class=\"sat\" data-from=\"${B0%-*}\" data-to=\"${B0#*-}\"'"
done

check "Chromium: the page was read" jq -e '.error == null and .line_final != null' "$TMP/page.json"
check "Chromium: the line says \"injector saturated\" with the worker's figures, marked" \
  jq -e '(.line_sat.text | test("^injector saturated: worker 0 CPU [0-9]+ %, lag [0-9]+ ms · [1-9][0-9]* of [0-9]+ s saturated \\(shaded on the charts\\)$")) and .line_sat.cls == "sat"' "$TMP/page.json"
check "Chromium: the final line" \
  jq -e '.line_final.text | test("^Injector: [1-9][0-9]* of [0-9]+ s saturated \\(shaded on the charts\\)$")' "$TMP/page.json"
for k in throughput latency errors vus; do
  eq "Chromium: the $k chart's bands" "$(jq -r ".bands.$k" "$TMP/page.json")" "$SAT"
done
check "Chromium: a band's title gives the worker's figures" \
  jq -e '.titles[0] | test("^injector saturated [0-9]+(–[0-9]+)? s: worker 0 CPU [0-9]+ %, lag [0-9]+ ms$")' "$TMP/page.json"
