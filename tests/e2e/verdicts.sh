# Verdicts a build can trust: errors fail a run unless tolerated, a run with
# nothing completed fails, and every early exit of `quern run` is one line, the
# documented status, a failed --junit case, and nothing left behind.
# e2e: long (it starts among the first: tests/run.sh)
. "$(dirname "$0")/dist_lib.bash"
start_target
S=tests/e2e/scripts
mkdir -p "$TMP/tmpdir"
export TMPDIR="$TMP/tmpdir" # the run's own temporary files land here
nothing_left() { [ -z "$(ls -A "$TMP/tmpdir")" ] && [ ! -e "$1-wal" ] && [ ! -e "$1-shm" ]; }
# the same, once the agent of a distributed run has removed its run folder
soon_nothing_left() {
  for _ in $(seq 50); do nothing_left "$1" && return 0; sleep 0.1; done
  nothing_left "$1"
}

# Every sample fails a check, no threshold.
"$QUERN" run $S/verdict_check.lua --runs 5 -q -p base_url="$BASE" --db "$TMP/v.db" \
  --junit "$TMP/j1.xml" --summary-json "$TMP/s1.json" >"$TMP/o1" 2>"$TMP/e1"
eq "failed checks, no threshold: exit 1" "$?" 1
check "the JUnit step case fails" xmllint --xpath '//testcase[@name="SC-VCHECK-STEP-1)page"]/failure' "$TMP/j1.xml"
check "its message gives the counts" grep -q '5 error(s) in 5 sample(s): 0 technical, 5 functional' "$TMP/j1.xml"
check "and the first functional error" grep -q 'first: .*not in the body' "$TMP/j1.xml"
check "the summary says which rule decided" grep -q '^Verdict: failed: threshold errors<=0%.*default rule' "$TMP/o1"
eq "summary JSON verdict" "$(sj "$TMP/s1.json" .verdict.passed)" false
eq "the default threshold is listed as such" "$(sj "$TMP/s1.json" '.thresholds[] | select(.expr == "errors<=0%") | .source')" default
eq "the default threshold is stored with the run" \
  "$(sqlite3 "$TMP/v.db" "SELECT passed FROM thresholds WHERE expr='errors<=0%' AND source='default'")" 0

# --allow-errors, or an errors threshold, makes the tolerance explicit.
"$QUERN" run $S/verdict_check.lua --runs 5 -q -p base_url="$BASE" --db none --allow-errors \
  --junit "$TMP/j2.xml" >"$TMP/o2" 2>&1
eq "--allow-errors: exit 0" "$?" 0
check "--allow-errors: the step case passes" bash -c "! grep -q '<failure' '$TMP/j2.xml'"
check "--allow-errors: the summary says so" grep -q '^Verdict: passed' "$TMP/o2"
"$QUERN" run $S/verdict_check.lua --runs 5 -q -p base_url="$BASE" --db none --threshold 'errors<=100%' \
  --junit "$TMP/j3.xml" >"$TMP/o3" 2>&1
eq "an errors threshold that passes: exit 0" "$?" 0
check "no default errors threshold beside it" bash -c "! grep -q 'errors<=0%' '$TMP/o3'"
"$QUERN" run $S/verdict_check.lua --runs 5 -q -p base_url="$BASE" --db none --threshold 'errors<10%' \
  --junit "$TMP/j4.xml" >"$TMP/o4" 2>&1
eq "an errors threshold that fails: exit 1" "$?" 1
check "it fails the step's case too" xmllint --xpath '//testcase[@name="SC-VCHECK-STEP-1)page"]/failure' "$TMP/j4.xml"

# A typo in a method: a script error in a one-VU smoke run.
"$QUERN" run $S/verdict_typo.lua -q -p base_url="$BASE" --db none --junit "$TMP/j5.xml" >"$TMP/o5" 2>&1
eq "runtime script error: exit 1" "$?" 1
check "the step case names the script line" grep -q 'verdict_typo.lua:8:' "$TMP/j5.xml"

# Every request refused.
"$QUERN" run $S/verdict_check.lua --runs 3 -q -p base_url="http://127.0.0.1:$(free_port)" --db none \
  >"$TMP/o6" 2>&1
eq "every request refused: exit 1" "$?" 1

# Nothing completed: every request hangs past the grace.
"$QUERN" run $S/verdict_hang.lua --vus 2 --duration 1s --grace 1s -q -p base_url="$BASE" --db none \
  --allow-errors --summary-json "$TMP/s7.json" >"$TMP/o7" 2>&1
eq "no sample completed: exit 1" "$?" 1
eq "no sample completed: count 0" "$(sj "$TMP/s7.json" '.tests[0].count')" 0
check "no sample completed: the summary says so" grep -q '^Verdict: failed: threshold count>=1' "$TMP/o7"

# The end of a --duration run stops VUs with requests in flight: the script
# still checks those last responses (an expected 404 is no error, a failed
# check is one), and every request the server saw is a sample. A loaded box
# misses the 5 ms pacing: the load not sent makes the verdict inconclusive
# (exit 1), which is not what this judges.
bad=
for i in 1 2 3; do
  reset_target
  "$QUERN" run tests/e2e/scripts/dist_hit.lua --vus 10 --duration 2s -q -p base_url="$BASE" -p pacing=5ms \
    --db none --summary-json "$TMP/sh.json" >/dev/null 2>&1
  rc=$?
  [ $rc = 0 ] || sj "$TMP/sh.json" .verdict.reason | grep -q '^inconclusive: .* of the load asked was not sent' ||
    bad+=" run $i: exit $rc;"
  e=$(sj "$TMP/sh.json" '.tests[0].errors.technical + .tests[0].errors.functional')
  [ "$e" = 0 ] || bad+=" run $i: $e error(s);"
  n=$(sj "$TMP/sh.json" '.tests[0].count') s=$(stat .requests)
  [ "$n" = "$s" ] || bad+=" run $i: $n samples, the server $s;"
done
eq "stopped in flight: expected statuses are no error, every request a sample (3 runs)" "$bad" ""
reset_target
"$QUERN" run $S/verdict_check.lua --vus 10 --duration 2s -q -p base_url="$BASE" --db none \
  --summary-json "$TMP/sc.json" >/dev/null 2>&1
eq "stopped in flight: a failing check still fails every sample" \
  "$(sj "$TMP/sc.json" '.tests[0].errors.functional')" "$(stat .requests)"

# A clean run still passes, and its verdict says why.
"$QUERN" run $S/verdict_agent.lua --runs 2 -q -p base_url="$BASE" --db none >"$TMP/o8" 2>&1
eq "a clean run: exit 0" "$?" 0
check "a clean run: verdict passed" grep -q '^Verdict: passed: every threshold passed' "$TMP/o8"

# Early exits. The agents never come.
"$QUERN" run $S/verdict_agent.lua --listen 127.0.0.1:0 --agents 1 --token-file "$TMP/token" --wait 1s \
  -p base_url="$BASE" --db "$TMP/w.db" --junit "$TMP/j9.xml" >"$TMP/o9" 2>"$TMP/e9"
eq "no agent: exit 3" "$?" 3
eq "no agent: one error line" "$(grep -vc ' info: ' "$TMP/e9")" 1
check "no agent: it says so" grep -q 'only 0 of 1 agent(s) connected within 1s' "$TMP/e9"
check "no agent: a failed JUnit case" xmllint --xpath '//testcase[@name="start"]/failure' "$TMP/j9.xml"
check "no agent: nothing left (WAL, token)" nothing_left "$TMP/w.db"

# Ctrl-C while waiting for the agents.
"$QUERN" run $S/verdict_agent.lua --listen 127.0.0.1:0 --agents 1 --token-file "$TMP/token" --wait 30s \
  -p base_url="$BASE" --db "$TMP/w2.db" --junit "$TMP/j10.xml" >"$TMP/o10" 2>"$TMP/e10" &
pid=$!
check "the console waits for its agent" wait_for "$TMP/e10" 'waiting for 1 agent' 10
kill -INT $pid
wait_exit $pid 10
eq "Ctrl-C while waiting: exit 3" "$WAIT_RC" 3
check "Ctrl-C while waiting: it says so" grep -q 'interrupted while waiting for agents' "$TMP/e10"
check "Ctrl-C while waiting: a failed JUnit case" xmllint --xpath '//testcase[@name="start"]/failure' "$TMP/j10.xml"
check "Ctrl-C while waiting: nothing left" nothing_left "$TMP/w2.db"

# The script loads on the console but not on the agent.
start_console c11 $S/verdict_agent.lua --agents 1 -p base_url="$BASE" --db "$TMP/w3.db" --junit "$TMP/j11.xml"
QUERN_TEST_FAIL_LOAD=1 start_agent a11 1
wait_exit $CONSOLE_PID 20
eq "agent-side load error: exit 2" "$WAIT_RC" 2
check "agent-side load error: names the agent and the line" grep -q 'agent a11: .*verdict_agent.lua:4: this agent cannot load' "$TMP/c11.err"
check "agent-side load error: a failed JUnit case" xmllint --xpath '//testcase[@name="start"]/failure' "$TMP/j11.xml"
check "agent-side load error: no sanitizer report" no_sanitizer_report "$TMP/c11.err"
check "agent-side load error: nothing left (WAL, run folder)" soon_nothing_left "$TMP/w3.db"

# The embedded agent: a script error stops before any load and leaves no token file.
"$QUERN" run tests/e2e/scripts/syntax.lua -q --db "$TMP/w4.db" --junit "$TMP/j12.xml" >"$TMP/o12" 2>"$TMP/e12"
eq "script error: exit 2" "$?" 2
check "script error: a failed JUnit case with file:line" grep -q 'syntax.lua:[0-9]*:' "$TMP/j12.xml"
check "script error: nothing left" nothing_left "$TMP/w4.db"

# Usage: an unknown flag in last position, a ramp-up longer than the run.
"$QUERN" run $S/verdict_agent.lua --insecure >"$TMP/o13" 2>&1
eq "unknown last flag: exit 2" "$?" 2
check "unknown last flag: says unknown option" grep -q 'unknown option --insecure' "$TMP/o13"
"$QUERN" run $S/verdict_agent.lua --vus 10 --duration 1s --ramp-up 4s -q -p base_url="$BASE" --db none \
  --summary-json "$TMP/s14.json" >"$TMP/o14" 2>"$TMP/e14"
check "ramp-up longer than the run: a warning with the count" grep -q 'only 3 of the 10 VUs will start' "$TMP/e14"

# The results database's disk fills up mid-run: the run goes on, keeps its
# numbers, and ends degraded with the reason (exit 1), never a silent pass.
mkdir -p "$TMP/small"
full="$QUERN run tests/e2e/scripts/dist_hit.lua --vus 4 --duration 4s -q -p base_url=$BASE -p pacing=10ms \
  --db $TMP/small/r.db --summary-json $TMP/s15.json >$TMP/o15 2>$TMP/e15"
if unshare -m true 2>/dev/null; then
  # a 320 KB file system (the schema of version 19 takes most): full within the first seconds of intervals
  unshare -m bash -c "mount -t tmpfs -o size=320k tmpfs '$TMP/small' && $full; rc=\$?
    $QUERN runs --db '$TMP/small/r.db' >'$TMP/row15' 2>&1; exit \$rc"
else
  # no mount namespace here: a file-size limit fails the writes the same way
  bash -c "trap '' XFSZ; ulimit -f 320; $full"
  rc=$?
  "$QUERN" runs --db "$TMP/small/r.db" >"$TMP/row15" 2>&1
  (exit $rc)
fi
eq "full disk: exit 1" "$?" 1
check "full disk: said once, with the reason" grep -Eq 'results database: .*(cannot commit: .*|disk is full); the rest of this run is not recorded' "$TMP/e15"
eq "full disk: the run ends degraded" "$(sj "$TMP/s15.json" .run.status)" degraded
check "full disk: the verdict names the database" grep -q '^Verdict: failed: the run is degraded: results database:' "$TMP/o15"
# the disk has no room even for the row's end: quern runs shows it abandoned
check "full disk: the run is not shown running" grep -Eq ' (degraded|abandoned) ' "$TMP/row15"
between "full disk: the numbers are kept" "$(sj "$TMP/s15.json" '.tests[0].count')" 100 100000
