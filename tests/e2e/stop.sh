# A run stopped before its planned end (SIGTERM: a CI job cancelled or timed
# out; SIGINT: Ctrl-C) ends gracefully: the request in flight finishes,
# finish runs (logout), statistics are flushed, the run is marked stopped;
# its verdict is "stopped", exit 1 (a cancelled build is never green), with a
# failed JUnit case; --stopped-ok judges it on what it did.
. "$(dirname "$0")/lib.bash"
start_target
"$QUERN" run scripts/consultation_profil.lua --vus 10 --duration 60s -q -p base_url="$BASE" \
  -p pacing=300ms --summary-json "$TMP/s.json" --junit "$TMP/j.xml" >"$TMP/out" 2>"$TMP/err" &
pid=$!
# every VU logged in (so each has a finish to run) and 3 runs of one of them
# behind (300 ms apart: the run is at least 0.6 s old)
under_way() {
  [ "$(stat .sessions_created)" -ge 10 ] && [ "$(stat '.by_method_path["GET /profile"] // 0')" -ge 30 ]
}
await "the 10 VUs under way" 20 under_way
kill -TERM $pid
wait $pid
eq "SIGTERM before the end: exit 1" "$?" 1
S=$TMP/s.json
eq "status stopped" "$(sj $S .run.status)" stopped
check "the verdict says stopped, by which signal, when" \
  grep -Eq "^Verdict: stopped: SIGTERM at [0-9]+\.[0-9] s of 1m0s, before the run's planned end" "$TMP/out"
eq "the summary's verdict: not passed" "$(sj $S .verdict.passed)" false
check "  its reason: stopped" sh -c "jq -r .verdict.reason '$S' | grep -q '^stopped: SIGTERM'"
check "JUnit: a failed case \"stopped\"" \
  sh -c "tr -d '\\n' <'$TMP/j.xml' | grep -q '<testcase classname=\"quern[^\"]*\" name=\"stopped\"[^>]*> *<failure message=\"stopped: SIGTERM[^\"]*\" type=\"stopped\"'"
check "JUnit: the suite counts the failure" grep -Eq '<testsuite [^>]*failures="[1-9]' "$TMP/j.xml"
between "stopped early" "$(sj $S .run.duration_s)" 0.5 8
eq "finish ran for every VU (logout)" "$(sj $S '.tests[2].count')" 10
eq "server saw every logout" "$(stat '.by_method_path["GET /logout"]')" 10
eq "counts = server requests" "$(sj $S '[.tests[].count] | add')" "$(stat '.requests - .login_forms')"
eq "no errors" "$(sj $S '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0

# SIGINT with --stopped-ok: judged on what it did (it passed), exit 0
reset_target
"$QUERN" run scripts/consultation_profil.lua --vus 4 --duration 60s -q -p base_url="$BASE" \
  -p pacing=300ms --stopped-ok --junit "$TMP/j2.xml" >"$TMP/out2" 2>"$TMP/err2" &
pid=$!
wait_requests 8 20
kill -INT $pid
wait $pid
eq "SIGINT with --stopped-ok: exit 0" "$?" 0
check "  the verdict: passed" grep -q '^Verdict: passed' "$TMP/out2"
check "  no JUnit case \"stopped\"" sh -c "! grep -q 'name=\"stopped\"' '$TMP/j2.xml'"

# A second interrupt aborts at once, even with requests hanging.
reset_target
cat >"$TMP/hang.lua" <<'LUA'
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("HANG")
local s = sc:step(1, "slow")
function sc.run(vu) s:get(base .. "/slow?ms=20000") end
LUA
reset_target
"$QUERN" run "$TMP/hang.lua" --vus 3 --duration 60s --grace 30s -q -p base_url="$BASE" \
  --summary-json "$TMP/h.json" >/dev/null 2>"$TMP/herr" &
pid=$!
# once the run is under way (its 3 requests hang), not while it still loads
wait_requests 3 20
kill -INT $pid
await "the run to say it is stopping" 10 grep -q 'interrupted: stopping' "$TMP/herr"
kill -INT $pid
start=$(date +%s%N)
wait $pid
rc=$?
eq "second interrupt: aborted (exit 3)" "$rc" 3
between "second interrupt: ends at once (ms)" "$(( ($(date +%s%N) - start) / 1000000 ))" 0 2000
eq "second interrupt: status aborted" "$(sj "$TMP/h.json" .run.status)" aborted

# The end of a run while pacing timers expire: no VU is resumed after its
# run was ended (once: "cannot resume dead coroutine" on the last logout).
reset_target
errs=0
for i in 1 2 3 4 5; do
  "$QUERN" run scripts/consultation_profil.lua --vus 10 --duration 2s -q -p base_url="$BASE" \
    -p pacing=300ms --summary-json "$TMP/e$i.json" >/dev/null 2>&1
  errs=$((errs + $(sj "$TMP/e$i.json" '[.tests[].errors.functional, .tests[].errors.technical] | add')))
done
eq "runs ending amid pacing timers: no error" "$errs" 0
eq "runs ending amid pacing timers: every logout reached the server" "$(stat '.by_method_path["GET /logout"]')" 50
