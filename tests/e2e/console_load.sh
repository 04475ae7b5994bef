# The console's own load: it measures its CPU and loop lag each second and
# judges them by the workers' rule. A quiet run has no saturated console
# second; a console stopped for 1.5 s mid-run (SIGSTOP, then SIGCONT) has one,
# shown in run.injector.console, the Injector: line and a warning under the
# verdict, and the run still passes (the workers timed every request).
# e2e: heavy (it drives a CPU-bound load; tests/run.sh gives it two slots)
. "$(dirname "$0")/lib.bash"
unset QUERN_ALLOW_SATURATION
start_target
S=tests/e2e/scripts

# (a) a quiet run
"$QUERN" run $S/think.lua --vus 2 --duration 4s --workers 1 -q -p base_url="$BASE" --db none \
  --summary-json "$TMP/a.json" >"$TMP/oa" 2>&1
eq "a quiet run passes" "$?" 0
eq "no console second saturated" "$(sj "$TMP/a.json" .run.injector.console.saturated_s)" 0
between "the console's seconds are measured" "$(sj "$TMP/a.json" .run.injector.console.measured_s)" 3 6
check "the Injector line says the console kept up" \
  grep -q '^Injector: kept up (.*); console kept up (CPU max [0-9]* %, loop lag p99 [0-9]* ms)' "$TMP/oa"
check "no console warning" bash -c "! grep -q '^Warning: the console' '$TMP/oa'"

# (b) the console stopped 1.5 s in the middle of a 6 s run
"$QUERN" run $S/think.lua --vus 2 --duration 6s --workers 1 -p base_url="$BASE" --db none \
  --summary-json "$TMP/b.json" >"$TMP/ob" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^quern: starting' "$TMP/ob" 2>/dev/null && break; sleep 0.1; done
sleep 2.5 # the middle of the 6 s run
kill -STOP "$pid"
sleep 1.5 # the stall under test
kill -CONT "$pid"
wait "$pid"
eq "the stalled run still passes" "$?" 0
between "a stalled console second" "$(sj "$TMP/b.json" .run.injector.console.saturated_s)" 1 2
between "its worst loop lag (ms)" "$(sj "$TMP/b.json" '.run.injector.console.loop_lag_max_ms | floor')" 1000 5000
eq "no worker saturated" "$(sj "$TMP/b.json" .run.injector.saturated_s)" 0
eq "the verdict passed" "$(sj "$TMP/b.json" .verdict.passed)" true
check "the Injector line counts it" \
  grep -q '^Injector: kept up (.*); console saturated [12] of [0-9]* s (CPU max [0-9]* %, loop lag p99 [0-9]* ms)' "$TMP/ob"
check "a warning under the verdict" grep -q '^Warning: the console was saturated in [12] of [0-9]* s' "$TMP/ob"
check "the live line says so" grep -q 'console saturated: CPU [0-9]* %, lag [0-9]* ms' "$TMP/ob"
