# The results database: a real run against the demo target is recorded as it
# goes (run row, steps, per-second rows whose counts equal the server's),
# `quern runs` lists it, Ctrl-C marks it stopped, a distributed run is
# recorded too, --db none records nothing, a newer schema is refused, a full
# disk is reported by name and leaves no row "running".
. "$(dirname "$0")/lib.bash"
if ! command -v sqlite3 >/dev/null; then
  notok "the sqlite3 command-line tool is installed (apt-get install sqlite3)"
  exit 0
fi
unset QUERN_DB
start_target
DB=$TMP/results.db
q() { sqlite3 -batch -noheader "$DB" "$1"; }
# recorded NAME: the run NAME has a second in the database
recorded() { [ "$(q "SELECT count(*) FROM intervals i JOIN runs r ON r.id = i.run_id WHERE r.name = '$1'")" -ge 1 ]; }

# A completed run.
"$QUERN" run scripts/consultation_profil.lua --vus 8 --duration 4s -q --db "$DB" \
  --name e2e-db --tag env=ci --tag build=7 -p base_url="$BASE" -p pacing=200ms \
  --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
eq "run exits 0" "$?" 0
check "the database exists" test -s "$DB"
eq "WAL mode" "$(q 'PRAGMA journal_mode')" wal
eq "schema version: store/db.h's" "$(q 'PRAGMA user_version')" "$(sed -n 's/^#define DB_SCHEMA_VERSION //p' store/db.h)"
eq "one run" "$(q 'SELECT count(*) FROM runs')" 1
ID=$(q 'SELECT id FROM runs')
eq "status completed" "$(q "SELECT status FROM runs WHERE id = $ID")" completed
eq "name from --name" "$(q "SELECT name FROM runs WHERE id = $ID")" e2e-db
eq "tags as JSON" "$(q "SELECT tags FROM runs WHERE id = $ID" | jq -c .)" '{"env":"ci","build":"7"}'
eq "properties as JSON" "$(q "SELECT properties FROM runs WHERE id = $ID" | jq -r .pacing)" 200ms
eq "script hash = sha256sum" "$(q "SELECT script_hash FROM runs WHERE id = $ID")" \
  "$(sha256sum scripts/consultation_profil.lua | cut -d' ' -f1)"
eq "VUs" "$(q "SELECT vus FROM runs WHERE id = $ID")" 8
check "started_at is ISO 8601 UTC" bash -c "[[ '$(q "SELECT started_at FROM runs")' =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$ ]]"
eq "ended after it started" "$(q "SELECT ended_us > started_us AND ended_at IS NOT NULL FROM runs")" 1
eq "three steps" "$(q "SELECT group_concat(test_id, ' ') FROM steps WHERE run_id = $ID")" \
  "SC-CONSULTATION-PROFIL-STEP-1 SC-CONSULTATION-PROFIL-STEP-2 SC-CONSULTATION-PROFIL-STEP-3"
between "one interval row per second" "$(q "SELECT count(*) FROM intervals WHERE run_id = $ID")" 4 6
eq "interval counts = server requests" "$(q "SELECT sum(count) FROM step_intervals WHERE run_id = $ID")" \
  "$(stat '.requests - .login_forms')"
eq "profile interval counts = server GET /profile" \
  "$(q "SELECT sum(count) FROM step_intervals WHERE run_id = $ID AND step_index = 1")" \
  "$(stat '.by_method_path["GET /profile"]')"
eq "totals = sum of intervals, per step" \
  "$(q "SELECT count(*) FROM step_totals t WHERE run_id = $ID AND count = (SELECT sum(count) FROM step_intervals i WHERE i.run_id = t.run_id AND i.step_index = t.step_index)")" 3
eq "totals = summary JSON" "$(q "SELECT group_concat(count, ' ') FROM step_totals WHERE run_id = $ID ORDER BY step_index")" \
  "$(jq -r '[.tests[].count] | join(" ")' "$TMP/s.json")"
eq "requests: totals = sum of intervals = summary JSON" \
  "$(q "SELECT group_concat(t.requests || '/' || (SELECT sum(i.requests) FROM step_intervals i WHERE i.run_id = t.run_id AND i.step_index = t.step_index), ' ') FROM step_totals t WHERE run_id = $ID ORDER BY step_index")" \
  "$(jq -r '[.tests[] | "\(.requests)/\(.requests)"] | join(" ")' "$TMP/s.json")"
check "requests: counted" test "$(jq '[.tests[].requests] | add' "$TMP/s.json")" -gt 0
eq "p95 = summary JSON" "$(q "SELECT p95_us FROM step_totals WHERE run_id = $ID AND step_index = 1")" \
  "$(jq -r '.tests[1].p95_ms * 1000 | round' "$TMP/s.json")"
eq "histograms stored" "$(q "SELECT count(*) FROM step_intervals WHERE length(histogram) < 6")" 0
eq "scenario runs = summary" "$(q "SELECT runs FROM scenario_totals WHERE run_id = $ID")" \
  "$(jq -r '.scenarios[0].runs' "$TMP/s.json")"
eq "a local agent row" "$(q "SELECT name || ' ' || vus || ' ' || status FROM agents WHERE run_id = $ID")" \
  "local 8 completed"

# quern runs lists it.
"$QUERN" runs --db "$DB" >"$TMP/runs.out" 2>&1
eq "quern runs exits 0" "$?" 0
check "quern runs has a header" grep -q '^ *ID  NAME .*STATUS .*TPS .*P95' "$TMP/runs.out"
check "quern runs lists the run" grep -Eq "^ *$ID  e2e-db .* 8  completed " "$TMP/runs.out"
check "quern help runs" "$QUERN" help runs

# Errors are recorded with their sample message (connection refused).
"$QUERN" run scripts/consultation_profil.lua --vus 2 --runs 1 -q --db "$DB" \
  -p base_url="http://127.0.0.1:$(free_port)" >/dev/null 2>&1
ID2=$(q 'SELECT max(id) FROM runs')
eq "name defaults to the script's base name" "$(q "SELECT name FROM runs WHERE id = $ID2")" consultation_profil
check "technical errors recorded with a sample" \
  test "$(q "SELECT count(*) FROM errors WHERE run_id = $ID2 AND kind = 'technical' AND count > 0 AND sample <> ''")" -ge 1
eq "error count = interval error count" \
  "$(q "SELECT sum(count) FROM errors WHERE run_id = $ID2")" \
  "$(q "SELECT sum(err_tech + err_func) FROM step_intervals WHERE run_id = $ID2")"
"$QUERN" runs --db "$DB" --name consultation_profil --limit 5 >"$TMP/runs2.out"
check "quern runs --name filters" bash -c "! grep -q e2e-db '$TMP/runs2.out' && grep -q '100.00%' '$TMP/runs2.out'"
"$QUERN" runs --db "$DB" >"$TMP/runs3.out"
eq "newest first" "$(awk 'NR == 2 {print $1}' "$TMP/runs3.out")" "$ID2"

# Ctrl-C: stopped, and every interval before the end is there.
reset_target
"$QUERN" run scripts/consultation_profil.lua --vus 6 --duration 60s -q --db "$DB" --name sigint \
  -p base_url="$BASE" -p pacing=300ms >/dev/null 2>&1 &
pid=$!
# once its first second is recorded
check "while running, its first second recorded" wait_until 20 recorded sigint
eq "while running, status is running" "$(q "SELECT status FROM runs WHERE name = 'sigint'")" running
check "while running, intervals are already written" \
  test "$(q "SELECT count(*) FROM intervals i JOIN runs r ON r.id = i.run_id WHERE r.name = 'sigint'")" -ge 1
kill -INT $pid
wait $pid
eq "interrupted run: exit 1 (stopped before its end)" "$?" 1
eq "status stopped" "$(q "SELECT status FROM runs WHERE name = 'sigint'")" stopped
eq "stopped run: interval counts = server requests" \
  "$(q "SELECT sum(count) FROM step_intervals i JOIN runs r ON r.id = i.run_id WHERE r.name = 'sigint'")" \
  "$(stat '.requests - .login_forms')"

# --db none records nothing; the default is ./quern-results.db.
mkdir -p "$TMP/none" "$TMP/def"
(cd "$TMP/none" && "$QUERN" run "$OLDPWD/scripts/consultation_profil.lua" --vus 1 --runs 1 -q --db none \
  -p base_url="$BASE" >/dev/null 2>&1)
eq "--db none: no file" "$(ls -A "$TMP/none")" ""
(cd "$TMP/def" && "$QUERN" run "$OLDPWD/scripts/consultation_profil.lua" --vus 1 --runs 1 -q \
  -p base_url="$BASE" >/dev/null 2>&1)
check "default: ./quern-results.db" test -s "$TMP/def/quern-results.db"
(cd "$TMP/def" && QUERN_DB="$TMP/def/env.db" "$QUERN" run "$OLDPWD/scripts/consultation_profil.lua" \
  --vus 1 --runs 1 -q -p base_url="$BASE" >/dev/null 2>&1)
check "\$QUERN_DB replaces the default" test -s "$TMP/def/env.db"

# A database from a newer quern is refused before any request.
sqlite3 "$TMP/new.db" 'PRAGMA user_version = 99' >/dev/null
reset_target
"$QUERN" run scripts/consultation_profil.lua --vus 1 --runs 1 -q --db "$TMP/new.db" \
  -p base_url="$BASE" >/dev/null 2>"$TMP/new.err"
eq "newer schema: exit 3" "$?" 3
check "newer schema: says so" grep -q 'schema version 99 is newer' "$TMP/new.err"
eq "newer schema: no request sent" "$(stat .requests)" 0
"$QUERN" runs --db "$TMP/missing.db" >/dev/null 2>&1
eq "quern runs on a missing file: exit 2" "$?" 2

# A distributed run (console + one agent) is recorded the same way.
if "$QUERN" agent --help >/dev/null 2>&1; then
  reset_target
  printf 'token-for-db-tests-%s\n' "$$" >"$TMP/token"; chmod 600 "$TMP/token"
  "$QUERN" run scripts/consultation_profil.lua --vus 6 --duration 3s -q --db "$DB" --name dist \
    -p base_url="$BASE" -p pacing=200ms --listen 127.0.0.1:0 --port-file "$TMP/c.port" \
    --agents 1 --wait 20s --token-file "$TMP/token" >"$TMP/c.out" 2>"$TMP/c.err" &
  cpid=$!
  for _ in $(seq 100); do [ -s "$TMP/c.port" ] && break; sleep 0.05; done
  "$QUERN" agent --console "127.0.0.1:$(cat "$TMP/c.port")" --token-file "$TMP/token" \
    --workers 2 --name dbagent >"$TMP/agent.log" 2>&1 &
  apid=$!
  wait $cpid
  eq "distributed run exits 0" "$?" 0
  kill $apid 2>/dev/null; wait $apid 2>/dev/null
  eq "distributed: status completed" "$(q "SELECT status FROM runs WHERE name = 'dist'")" completed
  eq "distributed: interval counts = server requests" \
    "$(q "SELECT sum(count) FROM step_intervals i JOIN runs r ON r.id = i.run_id WHERE r.name = 'dist'")" \
    "$(stat '.requests - .login_forms')"
  eq "distributed: agent row" \
    "$(q "SELECT a.name || ' ' || a.workers || ' ' || a.vus || ' ' || a.lost FROM agents a JOIN runs r ON r.id = a.run_id WHERE r.name = 'dist'")" \
    "dbagent 2 6 0"
  eq "distributed: steps know their scenario" \
    "$(q "SELECT count(*) FROM steps s JOIN runs r ON r.id = s.run_id WHERE r.name = 'dist' AND scenario = 'CONSULTATION-PROFIL'")" 3
fi
# A full disk: the console's message names the file and says "disk full", and
# the run does not stay "running" (it ends degraded, or, when nothing could be
# written, `quern runs` shows and marks it abandoned once its console is gone).
mkdir -p "$TMP/full"
if mount -t tmpfs -o size=400k tmpfs "$TMP/full" 2>/dev/null; then
  trap 'umount "$TMP/full" 2>/dev/null; cleanup' EXIT
  FDB=$TMP/full/r.db
  reset_target
  "$QUERN" run scripts/consultation_profil.lua --vus 4 --duration 4s -q --db "$FDB" \
    -p base_url="$BASE" -p pacing=100ms >/dev/null 2>"$TMP/full.err" &
  fpid=$!
  for _ in $(seq 100); do
    [ "$(sqlite3 "$FDB" 'SELECT count(*) FROM intervals' 2>/dev/null)" -ge 1 ] 2>/dev/null && break
    sleep 0.05
  done
  dd if=/dev/zero of="$TMP/full/fill" bs=4k >/dev/null 2>&1
  wait $fpid
  check "full disk: the error names the database file and says disk full" \
    grep -q "$FDB: .*disk full" "$TMP/full.err"
  "$QUERN" runs --db "$FDB" >"$TMP/full-runs.out" 2>>"$TMP/full.err"
  eq "full disk: quern runs still reads it" "$?" 0
  check "full disk: the run is not shown running" bash -c "! grep -Eq '  running  ' '$TMP/full-runs.out'"
  rm -f "$TMP/full/fill"
  "$QUERN" runs --db "$FDB" >/dev/null 2>>"$TMP/full.err"
  check "full disk: once there is room, no row is left running" \
    test "$(sqlite3 "$FDB" "SELECT count(*) FROM runs WHERE status = 'running'")" = 0
  umount "$TMP/full"
else
  ok "full disk # SKIP cannot mount a small tmpfs here (needs root)"
fi

check "no sanitizer report" bash -c "! grep -q Sanitizer '$TMP'/*.err"
