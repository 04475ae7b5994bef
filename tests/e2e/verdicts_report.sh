# Verdicts and settings in the results views, on runs against the demo
# target: `quern runs` has a verdict column (passed / failed: which
# threshold), the report of a failed run has a red "failed" badge and a
# threshold section, keeps the requested VUs, duration, ramp-up and the
# command line (secrets redacted, in the database too), `quern compare`
# shows both runs' verdicts and says when their loads differ; a run whose
# console was killed is shown and marked abandoned, and report and compare
# say it is incomplete.
. "$(dirname "$0")/lib.bash"
if ! command -v sqlite3 >/dev/null; then
  notok "the sqlite3 command-line tool is installed (apt-get install sqlite3)"
  exit 0
fi
unset QUERN_DB
start_target
DB=$TMP/v.db
q() { sqlite3 -batch -noheader "$DB" "$1" 2>/dev/null; }
S=tests/e2e/scripts/report_slow.lua

# --- run 1: a threshold fails; secrets on the command line ----------------
"$QUERN" run $S --vus 6 --duration 3s --ramp-up 1s -q --db "$DB" --name verd \
  -p base_url="$BASE" -p pacing=300ms -p ms=5 -p password=hunter2 -p api_token=tok-123 \
  --threshold 'p95<0.01ms' --threshold 'errors<1%' >"$TMP/run1.out" 2>"$TMP/run1.err"
eq "run 1 (a threshold fails) exits 1" "$?" 1
# --- run 2: the same, passing, with another load, a password in a URL ----
PORT=${BASE##*:}
"$QUERN" run $S --vus 10 --duration 3s -q --db "$DB" --name verd \
  -p "base_url=http://tester:s3cret@127.0.0.1:$PORT" -p pacing=300ms -p ms=80 \
  --threshold 'errors<1%' >"$TMP/run2.out" 2>"$TMP/run2.err"
eq "run 2 (thresholds pass) exits 0" "$?" 0

"$QUERN" runs --db "$DB" >"$TMP/runs.out" 2>"$TMP/runs.err"
eq "quern runs exits 0" "$?" 0
check "quern runs: a VERDICT column" grep -q '^ *ID  NAME .*STATUS .* VERDICT$' "$TMP/runs.out"
check "quern runs: the failed run says which threshold" \
  grep -Eq '^ *1  verd .* completed .*  failed: p95<0\.01ms$' "$TMP/runs.out"
check "quern runs: the passing run says passed" grep -Eq '^ *2  verd .* completed .*  passed$' "$TMP/runs.out"

# --- the report of the failed run ------------------------------------------
"$QUERN" report 1 --db "$DB" -o "$TMP/r1.html" >/dev/null 2>"$TMP/report.err"
eq "report 1 exits 0" "$?" 0
H=$TMP/r1.html
check "report: a red failed badge in the title" grep -q '<h1>.*class="badge v-failed" data-verdict="failed"' "$H"
check "report: no green completed badge for a failed run" bash -c "! grep -q '<h1>.*st-completed' '$H'"
check "report: a threshold section" grep -q '<section id="verdict">' "$H"
# its two, and the default count>=1 (errors<1% is about errors)
eq "report: one row per threshold" "$(grep -c '<tr class="threshold"' "$H")" 3
check "report: the failed threshold, FAIL, measured against its limit" \
  grep -Eq '<tr class="threshold" data-passed="0"><td><code>p95&lt;0.01ms</code>.*<td>command line</td><td class="n">[0-9.]+ ms</td><td class="n">0.01 ms</td><td class="worse">FAIL</td>' "$H"
check "report: the passing threshold, PASS" \
  grep -q '<tr class="threshold" data-passed="1"><td><code>errors&lt;1%</code>.*PASS</td>' "$H"
check "report: settings: VUs" grep -q '<dt>VUs (--vus)</dt><dd>6</dd>' "$H"
check "report: settings: requested duration" grep -q '<dt>Requested duration (--duration)</dt><dd>3.0 s</dd>' "$H"
check "report: settings: ramp-up" grep -q '<dt>Ramp-up (--ramp-up)</dt><dd>1.0 s</dd>' "$H"
check "report: settings: the command line" \
  grep -q "<dt>Command line</dt><dd><code>quern run $S --vus 6 --duration 3s --ramp-up 1s" "$H"
check "report: the command line's password is redacted" grep -q "&#39;password=\*\*\*&#39;" "$H"
check "report: no secret in the report" bash -c "! grep -Eq 'hunter2|tok-123' '$H'"
"$QUERN" report 2 --db "$DB" -o "$TMP/r2.html" >/dev/null 2>>"$TMP/report.err"
check "report of the passing run: a green passed badge" \
  grep -q '<h1>.*class="badge v-passed" data-verdict="passed"' "$TMP/r2.html"
check "report: a URL's password is redacted" grep -q 'tester:\*\*\*@127.0.0.1' "$TMP/r2.html"
eq "database: requested settings kept" \
  "$(q 'SELECT vus || " " || req_duration_us || " " || req_ramp_up_us || " " || req_runs FROM runs WHERE id = 1')" \
  "6 3000000 1000000 0"
eq "database: no secret in the runs rows" \
  "$(q "SELECT count(*) FROM runs WHERE command_line LIKE '%hunter2%' OR properties LIKE '%hunter2%' OR command_line LIKE '%tok-123%' OR properties LIKE '%tok-123%' OR command_line LIKE '%s3cret%' OR properties LIKE '%s3cret%'")" 0
check "database file: no secret in it (nor in its WAL)" \
  bash -c "! cat '$DB'* | grep -aEq 'hunter2|tok-123|s3cret'"

# --- compare: both verdicts, and the load differed ------------------------
"$QUERN" compare 2 1 --db "$DB" -o "$TMP/c.html" >"$TMP/c.out" 2>"$TMP/c.err"
eq "compare exits 0" "$?" 0
check "compare: the new run's verdict" grep -q '^new:      run 2 .*, verdict passed$' "$TMP/c.out"
check "compare: the baseline's verdict" grep -q '^baseline: run 1 .*, verdict failed: p95<0.01ms$' "$TMP/c.out"
check "compare: the slow step is worse, with the VU counts beside" \
  grep -q '^SC-SLOWCHECK-STEP-2 (slow): worse (note: A ran 10 VUs, B 6; .*ramp-up none, B.s 1.0 s)$' "$TMP/c.out"
check "compare: the runs' loads differ, said once at the top" \
  grep -q '^note: the runs had different loads: A ran 10 VUs, B 6' "$TMP/c.out"
check "compare HTML: both verdicts" \
  bash -c "grep -q 'data-verdict=\"passed\">passed' '$TMP/c.html' && grep -q 'data-verdict=\"failed\">failed: p95&lt;0.01ms' '$TMP/c.html'"
check "compare HTML: the note beside the verdict" \
  grep -q '<td class="worse">worse <span class="lbl load-note">(note: A ran 10 VUs, B 6' "$TMP/c.html"
"$QUERN" compare 1 1 --db "$DB" -o "$TMP/c11.html" >"$TMP/c11.out" 2>>"$TMP/c.err"
check "compare: the same load, no note" bash -c "! grep -q 'note:' '$TMP/c11.out'"

# --- a console killed mid-run: abandoned, not a real run ------------------
"$QUERN" run $S --vus 4 --duration 60s -q --db "$DB" --name verd \
  -p base_url="$BASE" -p pacing=200ms >/dev/null 2>"$TMP/killed.err" &
cpid=$!
for _ in $(seq 100); do
  [ "$(q "SELECT count(*) FROM intervals WHERE run_id = 3")" -ge 1 ] 2>/dev/null && break
  sleep 0.1
done
eq "while it runs: running" "$(q 'SELECT status FROM runs WHERE id = 3')" running
"$QUERN" runs --db "$DB" >"$TMP/runs-live.out" 2>>"$TMP/runs.err"
check "quern runs: a live run is running, its verdict pending" \
  grep -Eq '^ *3  verd .* running .*  running$' "$TMP/runs-live.out"
kids=$(pgrep -P $cpid)
kids="$kids $(for k in $kids; do pgrep -P "$k"; done)"
kill -9 $cpid
wait $cpid 2>/dev/null
# its agent and the agent's workers end with it: nothing of the run is left
await "the killed run's processes to end" 10 all_gone $kids
eq "killed console: the row stayed running" "$(q 'SELECT status FROM runs WHERE id = 3')" running
"$QUERN" runs --db "$DB" >"$TMP/runs-ab.out" 2>>"$TMP/runs.err"
eq "quern runs exits 0" "$?" 0
check "quern runs: shown abandoned" grep -Eq '^ *3  verd .* abandoned .*  failed: abandoned$' "$TMP/runs-ab.out"
eq "quern runs: marked abandoned in the database" "$(q 'SELECT status FROM runs WHERE id = 3')" abandoned
check "database: why it is abandoned" \
  bash -c "sqlite3 '$DB' 'SELECT status_reason FROM runs WHERE id = 3' | grep -q 'pid $cpid'"
"$QUERN" report 3 --db "$DB" -o "$TMP/r3.html" >/dev/null 2>>"$TMP/report.err"
eq "report of the abandoned run exits 0" "$?" 0
check "report: says it is abandoned and incomplete" \
  grep -q '<p class="warn" id="incomplete"><strong>Abandoned: this run is incomplete.' "$TMP/r3.html"
check "report: abandoned badge" grep -q 'badge st-abandoned' "$TMP/r3.html"
"$QUERN" compare 3 2 --db "$DB" --fail-on-regression 10% -o "$TMP/c32.html" >"$TMP/c32.out" 2>>"$TMP/c.err"
eq "compare with an abandoned run: exit 0 (nothing judged)" "$?" 0
check "compare: says the run is abandoned" grep -q '^note: run 3 (A) is abandoned, incomplete' "$TMP/c32.out"
check "compare: no step judged" grep -q 'not compared: run 3 (A) is abandoned, not a complete run' "$TMP/c32.out"
check "compare HTML: says so" grep -q 'id="incomplete-a"' "$TMP/c32.html"
# A later run's default baseline skips the abandoned one.
"$QUERN" run $S --vus 10 --duration 2s -q --db "$DB" --name verd \
  -p base_url="$BASE" -p pacing=300ms -p ms=80 >/dev/null 2>"$TMP/run4.err"
"$QUERN" compare --db "$DB" -o "$TMP/c4.html" >"$TMP/c4.out" 2>>"$TMP/c.err"
check "compare: the default baseline is the last complete run, not the abandoned one" \
  grep -q '^baseline: run 2 ' "$TMP/c4.out"

check "no sanitizer report" bash -c "! grep -q Sanitizer '$TMP'/*.err"
