# The injector's own limits: a worker that keeps up says so and the run
# passes; a worker whose loop a script holds 800 ms at a time marks its
# seconds saturated, the verdict is inconclusive (exit 1, a failed JUnit
# case), and --allow-saturation makes it a warning (exit 0).
# e2e: heavy (it drives a CPU-bound load; tests/run.sh gives it two slots)
. "$(dirname "$0")/lib.bash"
unset QUERN_ALLOW_SATURATION # judged here
start_target
S=tests/e2e/scripts

# (a) two VUs with think times: nothing saturated.
"$QUERN" run $S/think.lua --vus 2 --duration 4s --workers 1 -q -p base_url="$BASE" --db none \
  --summary-json "$TMP/a.json" >"$TMP/oa" 2>&1
eq "a light run passes" "$?" 0
eq "no second saturated" "$(sj "$TMP/a.json" .run.injector.saturated_s)" 0
between "its seconds are measured" "$(sj "$TMP/a.json" .run.injector.measured_s)" 4 6
eq "one worker reported" "$(sj "$TMP/a.json" '.run.injector.workers | length')" 1
eq "named by its agent" "$(sj "$TMP/a.json" '.run.injector.workers[0].agent')" local
check "the summary says it kept up" grep -q '^Injector: kept up (CPU max [0-9]* %, loop lag p99 [0-9]* ms)' "$TMP/oa"

# (b) the loop held 800 ms a run: saturated, whatever else the machine runs.
"$QUERN" run $S/burn.lua --runs 5 --workers 1 -p base_url="$BASE" --db "$TMP/b.db" \
  --summary-json "$TMP/b.json" --junit "$TMP/b.xml" >"$TMP/ob" 2>&1
eq "a saturated run exits 1" "$?" 1
between "most of its seconds saturated" "$(sj "$TMP/b.json" .run.injector.saturated_s)" 2 10
between "the worker's loop lag p99 (ms)" "$(sj "$TMP/b.json" '.run.injector.workers[0].loop_lag_p99_ms')" 500 5000
check "the verdict is inconclusive" grep -q '^Verdict: inconclusive: the injector saturated in [0-9]* % of the measured seconds ([0-9]* of [0-9]* s: agent local, worker 0: ' "$TMP/ob"
check "the summary names the worker" grep -q '^Injector: saturated [0-9]* of [0-9]* s (agent local, worker 0: CPU [0-9]* %, loop lag p99 [0-9]* ms)' "$TMP/ob"
check "the live line says so" grep -q 'injector saturated: worker 0 CPU [0-9]* %, lag [0-9]* ms' "$TMP/ob"
eq "the JSON verdict did not pass" "$(sj "$TMP/b.json" .verdict.passed)" false
eq "the database keeps the saturated seconds" \
  "$(sqlite3 "$TMP/b.db" 'SELECT count(*) FROM injector_seconds WHERE saturated > 0')" \
  "$(sj "$TMP/b.json" .run.injector.saturated_s)"
"$QUERN" report --db "$TMP/b.db" -o "$TMP/b.html" >/dev/null 2>&1
check "the report counts them and charts the injector's CPU and lag" \
  grep -q "The injector saturated: <b>$(sj "$TMP/b.json" .run.injector.saturated_s) of " "$TMP/b.html"
check "the report's injector charts" grep -q "Injector event-loop lag" "$TMP/b.html"
check "the JUnit injector case fails" xmllint --xpath '//testcase[@name="injector"]/failure[@type="inconclusive"]' "$TMP/b.xml"

"$QUERN" run $S/burn.lua --runs 4 --workers 1 -q -p base_url="$BASE" --db none --allow-saturation \
  --junit "$TMP/c.xml" --summary-json "$TMP/c.json" >"$TMP/oc" 2>&1
eq "--allow-saturation: exit 0" "$?" 0
echo "# --allow-saturation: $(grep -h '^Verdict' "$TMP/oc")"
check "--allow-saturation: the verdict warns" grep -q '^Verdict: passed: .*(the injector saturated, tolerated by --allow-saturation)' "$TMP/oc"
check "--allow-saturation: no JUnit failure" bash -c "! grep -q '<failure' '$TMP/c.xml'"
eq "--allow-saturation: the JSON says the verdict was allowed" "$(sj "$TMP/c.json" .verdict.allowed)" true
eq "without it: not allowed" "$(sj "$TMP/b.json" .verdict.allowed)" false
QUERN_ALLOW_SATURATION=1 "$QUERN" run $S/burn.lua --runs 4 --workers 1 -q -p base_url="$BASE" --db none \
  >"$TMP/od" 2>&1
eq "QUERN_ALLOW_SATURATION=1: as --allow-saturation (exit 0)" "$?" 0
echo "# QUERN_ALLOW_SATURATION=1: $(grep -h '^Verdict' "$TMP/od")"
check "QUERN_ALLOW_SATURATION=1: the verdict warns" grep -q '(the injector saturated, tolerated by --allow-saturation)' "$TMP/od"
