# The injector's saturated seconds on the report's charts: a run whose only
# worker is stopped (SIGSTOP) for 2 s in its middle has those seconds
# saturated in the database (its loop ran 2 s late), and every time chart of
# its report (throughput, response and service times, errors, VUs, Little's
# law, the injector's own two, each step's two, the --monitor host's when a
# node exporter is installed) shades exactly those seconds as bands, with
# their figures in the band's title and one legend entry; the same run with
# its seconds marked as kept up, and a quiet run, have no band and no legend
# entry; quern compare shades each run's bands in that run's colour.
. "$(dirname "$0")/lib.bash"
unset QUERN_DB
NE=${NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}
NE_PID=""
QPID=""
stop_all() {
  [ -n "$QPID" ] && kill "$QPID" 2>/dev/null
  [ -n "$NE_PID" ] && kill "$NE_PID" 2>/dev/null && wait "$NE_PID" 2>/dev/null
  cleanup
}
trap stop_all EXIT
start_target
DB=$TMP/sat.db
S=tests/e2e/scripts/paced.lua
q() { sqlite3 -batch -noheader "$DB" "$1"; }
MON=()
if [ -x "$NE" ]; then
  NP=$(free_port_py)
  "$NE" --web.listen-address="127.0.0.1:$NP" --collector.disable-defaults --collector.cpu \
    --collector.loadavg --collector.meminfo >"$TMP/ne.log" 2>&1 &
  NE_PID=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$NP/metrics" >/dev/null && break; sleep 0.1; done
  MON=(--monitor "http://127.0.0.1:$NP/metrics")
fi
# bands FILE: per <svg class="chart"> of FILE, one line: its bands "from-to"
# (seconds, to excluded), space-separated, "" when none
bands() {
  awk 'BEGIN { RS = "<svg class=\"chart\"" } NR > 1 {
    s = $0; sub(/<\/svg>.*/, "", s); out = ""
    while (match(s, /<rect class="sat" data-from="[0-9]+" data-to="[0-9]+"/)) {
      split(substr(s, RSTART, RLENGTH), f, "\""); out = out (out == "" ? "" : " ") f[4] "-" f[6]
      s = substr(s, RSTART + RLENGTH)
    }
    print out }' "$1"
}
# band_of CAPTION FILE: the bands of the first chart whose caption starts with CAPTION
band_of() {
  awk -v cap="<figcaption>$1" 'BEGIN { RS = "<figure>\n" } index($0, cap) == 1 {
    s = $0; out = ""
    while (match(s, /<rect class="sat" data-from="[0-9]+" data-to="[0-9]+"/)) {
      split(substr(s, RSTART, RLENGTH), f, "\""); out = out (out == "" ? "" : " ") f[4] "-" f[6]
      s = substr(s, RSTART + RLENGTH)
    }
    print out; exit }' "$2"
}
# islands RUN: the run's saturated seconds in the database as "from-to" stretches
islands() {
  q "SELECT coalesce(group_concat(f || '-' || (t + 1), ' '), '') FROM (SELECT min(second) f,
       max(second) t FROM (SELECT second, second - row_number() OVER (ORDER BY second) g
       FROM injector_seconds WHERE run_id = $1 AND saturated > 0) GROUP BY g ORDER BY f)"
}

# --- run 1: one worker, stopped 2 s from about 2.5 s in
"$QUERN" run $S --vus 1 --duration 8s --workers 1 -q -p base_url="$BASE" --db "$DB" \
  "${MON[@]}" >"$TMP/run1.out" 2>&1 &
QPID=$!
wait_requests 1 20
sleep 2.5 # where the stop falls is checked against the seconds below
AGENT=$(pgrep -P "$QPID" | head -1)
WORKER=$(pgrep -P "${AGENT:-0}" | head -1)
check "the worker process found" test -n "$WORKER"
T_STOP=$(date +%s%6N)
kill -STOP "$WORKER"
sleep 2 # the stall under test
kill -CONT "$WORKER"
wait "$QPID"
eq "run 1 ends (saturation tolerated by the test's environment)" "$?" 0
QPID=""
STOP_S=$(( (T_STOP - $(q 'SELECT started_us FROM runs WHERE id = 1')) / 1000000 ))
SAT=$(islands 1)
check "run 1: saturated seconds recorded ($SAT)" test -n "$SAT"
F=$(q 'SELECT min(second) FROM injector_seconds WHERE run_id = 1 AND saturated > 0')
between "run 1: the first saturated second is about that of the stop ($STOP_S)" \
  "$F" $((STOP_S - 1)) $((STOP_S + 3))

"$QUERN" report 1 --db "$DB" -o "$TMP/r1.html" >/dev/null 2>"$TMP/r1.err"
eq "report 1 exits 0" "$?" 0
H=$TMP/r1.html
NSVG=$(grep -o '<svg class="chart"' "$H" | wc -l)
between "report 1: its time charts" "$NSVG" 10 40
eq "report 1: every chart shades the saturated seconds ($SAT), nothing else" \
  "$(bands "$H" | sort | uniq -c | awk '{$1 = $1; print}')" "$NSVG $SAT"
eq "report 1: one legend entry per chart" "$(grep -o 'class="sat-key"' "$H" | wc -l)" "$NSVG"
for c in "Response time percentiles" "Service time percentiles" "Errors per second" \
  "Active virtual users" "Little&#39;s law" "Injector CPU" "Injector event-loop lag" \
  "Responses per second"; do
  eq "report 1: the chart \"$c\" shades them" "$(band_of "$c" "$H")" "$SAT"
done
if [ -n "$NE_PID" ]; then
  eq "report 1: the monitored host's CPU chart shades them" "$(band_of "CPU busy" "$H")" "$SAT"
fi
B0=${SAT%% *}
if [ "${B0%-*}" -lt "${B0#*-}" ] && [ $(( ${B0#*-} - ${B0%-*} )) -gt 1 ]; then
  RANGE="${B0%-*}–$(( ${B0#*-} - 1 )) s"
else
  RANGE="${B0%-*} s"
fi
check "report 1: the band's title gives its seconds and figures" \
  grep -Eq "<title>injector saturated $RANGE: busiest worker CPU [0-9]+ %, worst lag [0-9]+ ms</title>" "$H"
check "report 1: a hover zone in the band says so" \
  grep -Pzq "<title>at ${B0%-*}s\n[^<]*injector saturated $RANGE" "$H"
check "report 1: the band sits behind the curves" \
  awk '/<figcaption>Response time percentiles/ { on = 1 } on && /class="sat"/ { s = NR }
       on && /<path fill="none"/ { exit !(s > 0) }' "$H"

# --- the same run with every second marked as kept up: no band, no legend entry
cp "$DB" "$TMP/kept.db"
sqlite3 "$TMP/kept.db" 'UPDATE injector_seconds SET saturated = 0'
"$QUERN" report 1 --db "$TMP/kept.db" -o "$TMP/kept.html" >/dev/null 2>&1
eq "run 1 kept up: as many charts, no band and no legend entry (saturated: one of each a chart)" \
  "$(grep -o '<svg class="chart"' "$TMP/kept.html" | wc -l) $(grep -c 'class="sat' "$TMP/kept.html") \
$(grep -c '>injector saturated<' "$TMP/kept.html") / $(grep -o 'class="sat"' "$H" | wc -l) \
$(grep -o '>injector saturated<' "$H" | wc -l)" "$NSVG 0 0 / $NSVG $NSVG"

# --- run 2: quiet; its bands are the database's saturated seconds, if any
"$QUERN" run $S --vus 1 --duration 3s --workers 1 -q -p base_url="$BASE" --db "$DB" \
  >"$TMP/run2.out" 2>&1
eq "run 2 exits 0" "$?" 0
"$QUERN" report 2 --db "$DB" -o "$TMP/r2.html" >/dev/null 2>&1
SAT2=$(islands 2)
eq "report 2: bands only where the database has saturated seconds ('$SAT2'; run 1's: '$SAT')" \
  "$(bands "$TMP/r2.html" | sort -u | paste -sd'|') / $(bands "$H" | sort -u | paste -sd'|')" \
  "$SAT2 / $SAT"

# --- compare: each run's bands in its colour (new #2563eb, baseline #475467)
"$QUERN" compare 2 1 --db "$DB" -o "$TMP/c.html" >/dev/null 2>&1
check "compare: the baseline's band in its colour" \
  grep -q "<rect class=\"sat\" data-from=\"${B0%-*}\" data-to=\"${B0#*-}\" [^>]*fill=\"#475467\"" "$TMP/c.html"
NOVER=$(grep -o '<svg class="chart"' "$TMP/c.html" | wc -l)
if [ -z "$SAT2" ]; then
  eq "compare: a legend entry on each chart for the baseline, none for the quiet new run" \
    "$(grep -o '>baseline: injector saturated</text>' "$TMP/c.html" | wc -l) $(grep -c 'new: injector saturated' "$TMP/c.html")" \
    "$NOVER 0"
else
  check "compare: its legend entry" grep -q '>baseline: injector saturated</text>' "$TMP/c.html"
fi
