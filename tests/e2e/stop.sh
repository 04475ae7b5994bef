# Ctrl-C stops a run gracefully: the request in flight finishes, finish runs
# (logout), statistics are flushed, the run is marked stopped.
. "$(dirname "$0")/lib.bash"
start_target
"$QUERN" run scripts/consultation_profil.lua --vus 10 --duration 60s -q -p base_url="$BASE" \
  -p pacing=300ms --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
eq "interrupted run exits 0" "$?" 0
S=$TMP/s.json
eq "status stopped" "$(sj $S .run.status)" stopped
between "stopped early" "$(sj $S .run.duration_s)" 0.5 8
eq "finish ran for every VU (logout)" "$(sj $S '.tests[2].count')" 10
eq "server saw every logout" "$(stat '.by_method_path["GET /logout"]')" 10
eq "counts = server requests" "$(sj $S '[.tests[].count] | add')" "$(stat '.requests - .login_forms')"
eq "no errors" "$(sj $S '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0

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
  --summary-json "$TMP/h.json" >/dev/null 2>&1 &
pid=$!
# once the run is under way (its 3 requests hang), not while it still loads
wait_requests 3 20
kill -INT $pid
sleep 0.5
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
