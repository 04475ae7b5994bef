# Soft checks and custom metrics, judged by a real nginx's access log: the
# script asks for /ok nine times and /bad (500) once a run; the check's pass
# rate is nginx's share of 200s, the run goes on to its end, a checks
# threshold decides the exit, and the custom metrics merged over two workers
# are nginx's counts.
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
D=tests/e2e/scripts
start_nginx 256 "" 'location = /bad { return 500 "bad"; }'
VUS=4 RUNS=5

# ---- checks>=95% fails the run (90 % pass), a check no script uses fails
new_log
"$QUERN" run $D/checks.lua --vus $VUS --runs $RUNS --workers 2 -p base_url="$NGBASE" --db none \
  --allow-errors --threshold 'checks>=95%' --threshold 'checks{status is 200}>=95%' \
  --threshold 'checks{nope}>=0%' >"$TMP/fail.out" 2>&1
eq "checks>=95%: exit 1" "$?" 1
eq "the run goes on to its end: nginx saw every request of every run" \
  "$(grep -c ' /ok$\| /bad$' "$LOG")" $((VUS * RUNS * 10))
grep -q "FAIL  checks{status is 200}>=95% .*checks{status is 200} = 90 % (180 of 200 passed)" "$TMP/fail.out" &&
  ok "the threshold's line says 90 % (180 of 200)" || notok "the threshold's line: $(grep 'checks{status' "$TMP/fail.out")"
check "checks>=95% (every check) fails too" grep -q "FAIL  checks>=95% .*checks = 90 % (180 of 200 passed)" "$TMP/fail.out"
check "a check no script used fails its threshold" grep -q "FAIL  checks{nope}>=0% .*no such check ran" "$TMP/fail.out"

# ---- checks>=85% passes; the figures are nginx's
new_log
"$QUERN" run $D/checks.lua --vus $VUS --runs $RUNS --workers 2 -p base_url="$NGBASE" \
  --db "$TMP/c.db" --allow-errors --summary-json "$TMP/s.json" --threshold 'checks>=85%' \
  --threshold 'checks{status is 200}>=85%' \
  --threshold "metric{runs}>=$((VUS * RUNS))" --threshold 'metric{ok_ms}.p99<5000' >"$TMP/pass.out" 2>&1
eq "checks>=85%: exit 0" "$?" 0
ok200=$(awk '$2 == 200' "$LOG" | wc -l)
all=$(grep -c ' /ok$\| /bad$' "$LOG")
bad=$(awk '$2 == 500 && $4 == "/bad"' "$LOG" | wc -l)
eq "nginx: one request in ten answered 500" "$((bad * 10))" "$all"
c() { sj "$TMP/s.json" ".checks[] | select(.name == \"$1\") | $2"; }
eq "the check's passes are nginx's 200s" "$(c 'status is 200' .passes)" "$ok200"
eq "the check's failures are nginx's 500s" "$(c 'status is 200' .fails)" "$bad"
eq "its pass rate is 90 %" "$(c 'status is 200' .pass_pct)" 90
eq "a failed soft check fails no sample: errors are nginx's 500s" \
  "$(sj "$TMP/s.json" '.totals.errors.technical + .totals.errors.functional')" "$bad"
m() { sj "$TMP/s.json" ".metrics[] | select(.name == \"$1\") | $2"; }
eq "counter over two workers: runs = the runs nginx saw" "$(m runs .total)" "$((all / 10))"
eq "counter over two workers: bad_seen = nginx's 500s" "$(m bad_seen .total)" "$bad"
eq "trend over two workers: ok_ms's count = nginx's 200s" "$(m ok_ms .count)" "$ok200"
between "gauge: last_vu is a VU's id" "$(m last_vu .value)" 1 $VUS
# nine 200s a run, a whole number each time: so its percentiles (not 9.004)
eq "a trend of whole numbers: p50 and max whole" "$(m oks '"\(.p50) \(.p95) \(.max)"')" "9 9 9"
check "the summary prints it whole" grep -Eq '^oks +trend +count [0-9]+, mean 9.000, p50 9, p95 9, p99 9, max 9$' "$TMP/pass.out"
eq "the database keeps the check" \
  "$(sqlite3 "$TMP/c.db" "SELECT passes || ' ' || fails FROM checks WHERE name = 'status is 200'")" "$ok200 $bad"
eq "the database keeps the trend" \
  "$(sqlite3 "$TMP/c.db" "SELECT kind || ' ' || count FROM metrics WHERE name = 'ok_ms'")" "trend $ok200"
"$QUERN" report --db "$TMP/c.db" -o "$TMP/r.html" >/dev/null 2>&1
check "the report has the checks' table" grep -q '<section id="checks">' "$TMP/r.html"
check "the summary prints the checks' table" grep -Eq '^status is 200 +180 +20  90.00 %' "$TMP/pass.out"

# ---- a metric declared twice with another kind: an error at load time with file:line
cat >"$TMP/dup.lua" <<'LUA'
local quern = require "quern"
local sc = quern.scenario("DUP", {})
quern.metric.counter("orders")
quern.metric.trend("orders")
function sc.run() end
LUA
"$QUERN" run "$TMP/dup.lua" --db none -q >"$TMP/dup.out" 2>&1
eq "a redefinition: exit 2" "$?" 2
check "... names file:line" grep -q 'dup.lua:4: metric orders is a counter already, not a trend' "$TMP/dup.out"

# ---- a threshold on a metric the script does not declare, or on a field its kind has not:
# a usage error before any request
new_log
"$QUERN" run $D/checks.lua --db none -q -p base_url="$NGBASE" --threshold 'metric{nope}>1' >"$TMP/undecl.out" 2>&1
eq "an undeclared metric's threshold: exit 2" "$?" 2
check "... says so" grep -q "the script declares no metric nope" "$TMP/undecl.out"
"$QUERN" run $D/checks.lua --db none -q -p base_url="$NGBASE" --threshold 'metric{ok_ms}<1' >"$TMP/nofield.out" 2>&1
eq "a trend's threshold without a field: exit 2" "$?" 2
check "... says which" grep -q "ok_ms is a trend, which has no default field" "$TMP/nofield.out"
eq "... and nothing was sent" "$(grep -c ' /ok$\| /bad$' "$LOG")" 0

# ---- quern check lists the metrics the script declares
"$QUERN" check $D/checks.lua -p base_url="$NGBASE" >"$TMP/check.out" 2>&1
eq "quern check: exit 0" "$?" 0
check "quern check lists the trend with its kind" grep -Eq '^  ok_ms +trend$' "$TMP/check.out"

# ---- two agents of two workers each: every merge exact (workers, agents, the console)
new_log
start_console d $D/checks.lua --vus 8 --runs 3 --agents 2 --wait 20s -p base_url="$NGBASE" -p raise=true \
  --db none --allow-errors --summary-json "$TMP/d.json"
start_agent a1 2
start_agent a2 2
wait_exit "$CONSOLE_PID" 60
eq "two agents: exit 0" "$WAIT_RC" 0
ok200=$(awk '$2 == 200' "$LOG" | wc -l)
bad=$(awk '$2 == 500 && $4 == "/bad"' "$LOG" | wc -l)
d() { sj "$TMP/d.json" "$1"; }
eq "two agents: nginx saw 8 VUs x 3 runs x 10 requests" "$((ok200 + bad))" 240
eq "two agents: the check's passes are nginx's 200s" \
  "$(d '.checks[] | select(.name == "status is 200") | .passes')" "$ok200"
eq "two agents: its failures are nginx's 500s" \
  "$(d '.checks[] | select(.name == "status is 200") | .fails')" "$bad"
eq "two agents: the counter is nginx's 500s" "$(d '.metrics[] | select(.name == "bad_seen") | .total')" "$bad"
eq "two agents: the trend's count is nginx's 200s" "$(d '.metrics[] | select(.name == "ok_ms") | .count')" "$ok200"
eq "a check that raises counts as failed, once a run" \
  "$(d '.checks[] | select(.name == "raises") | "\(.passes) \(.fails)"')" "0 24"
eq "... and is logged once per worker (2 agents x 2)" \
  "$(cat "$TMP/d.err" "$TMP"/agent-a*.log | grep -c 'check "raises" raised an error.*a bug in the check')" 4
