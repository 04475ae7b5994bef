# A busy worker is not a held one. Past its time to end (the planned end, or
# the stop, plus the grace, plus 5 s) the agent kills a worker only when it
# has sent nothing for 5 s (held: a C call or a blocking system call); one
# that still sends its seconds is waited for, up to 60 s, and ends on its own
# with its last interval. A worker's stop tells its VUs to end a batch at a
# time, so that the seconds keep going up while thousands of finishes run.
# e2e: heavy (it drives a CPU-bound load; tests/run.sh gives it two slots)
. "$(dirname "$0")/lib.bash"
start_target
D=tests/e2e/scripts
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}'; }
no_sanitizer_report() { ! grep -q Sanitizer "$@"; }
end_sleeper() { [ -s "$TMP/held.pid" ] && kill "$(cat "$TMP/held.pid")" 2>/dev/null; }
trap 'end_sleeper; cleanup' EXIT

# (a) Held: the worker's loop sits in a 30 s blocking call from its first run.
# Time to end: 2 s + 1 s of grace; judged 5 s later, silent since its start.
t0=$(now)
timeout 40 "$QUERN" run $D/busy_held.lua --vus 1 --duration 2s --grace 1s --workers 1 -q \
  -p base_url="$BASE" -p pidfile="$TMP/held.pid" --summary-json "$TMP/h.json" >"$TMP/h.out" 2>"$TMP/h.err"
rc=$?
between "held worker: killed 5 s past its time to end, not after the 30 s call (s)" "$(since "$t0")" 7.5 14
eq "held worker: the run is degraded (exit 1)" "$rc" 1
eq "held worker: status degraded" "$(sj "$TMP/h.json" .run.status)" degraded
check "held worker: the message says held, from the evidence (no progress)" \
  grep -qE "worker 0 \(pid [0-9]+\) was held: no progress for [5-9] s \(its event loop was held by a C call or a blocking system call\)" "$TMP/h.err"
check "held worker: not called busy" bash -c "! grep -q 'was busy' '$TMP/h.err'"
end_sleeper

# (b) Busy: 500 VUs whose finish each works 20 ms of CPU, all begun at the
# stop: 10 s of Lua on one loop, past the old 6 s deadline (grace 1 s + 5 s).
reset_target
N=500
t0=$(now)
timeout 60 "$QUERN" run $D/busy_finish.lua --vus $N --duration 2s --grace 1s --workers 1 -q \
  -p base_url="$BASE" -p burst_ms=20 --summary-json "$TMP/b.json" >"$TMP/b.out" 2>"$TMP/b.err"
rc=$?
el=$(since "$t0")
between "busy worker: its stop lasted past the old deadline, and ended on its own (s)" "$el" 8.5 55
eq "busy worker: exit 0" "$rc" 0
eq "busy worker: status completed, not degraded" "$(sj "$TMP/b.json" .run.status)" completed
check "busy worker: not killed" bash -c "! grep -qE 'was held|was busy|did not end in time' '$TMP/b.err'"
eq "busy worker: every VU's finish ran (server's count)" "$(stat '.by_path["/fin"] // 0')" $N
eq "busy worker: its last interval arrived (summary = server)" "$(sj "$TMP/b.json" '.tests[0].count')" $N
eq "busy worker: no errors" "$(sj "$TMP/b.json" '.tests[0].errors.technical + .tests[0].errors.functional')" 0
check "no sanitizer report" no_sanitizer_report "$TMP"/*.err
