# --max-in-flight: at most N requests in flight at once, every worker
# together, held against the server's own count of the /slow requests it held
# at once; the held-back wait counted by the response time, not the service
# time; each VU's connection and cookies still its own.
. "$(dirname "$0")/lib.bash"
start_target

# Without a bound, the server holds every VU's request at once (800 ms each,
# so that a slow start still overlaps them all): the check below can fail.
"$QUERN" run tests/e2e/scripts/inflight.lua --vus 20 --runs 2 -q -p base_url="$BASE" -p ms=800 \
  --summary-json "$TMP/free.json" >/dev/null 2>"$TMP/free.err"
eq "no bound: run exits 0" "$?" 0
eq "no bound: the server held 20 at once" "$(stat .slow_peak)" 20
eq "no bound: nothing held back, none reported" "$(sj "$TMP/free.json" '.run.held_back // "none"')" none

# 20 VUs, 2 runs of a 300 ms request each, at most 4 in flight.
reset_target
"$QUERN" run tests/e2e/scripts/inflight.lua --vus 20 --runs 2 --max-in-flight 4 -p base_url="$BASE" \
  --summary-json "$TMP/b.json" >"$TMP/b.out" 2>"$TMP/b.err"
eq "bound 4: run exits 0" "$?" 0
eq "bound 4: the server never held more than 4" "$(stat .slow_peak)" 4
eq "bound 4: every request made" "$(sj "$TMP/b.json" '.tests[0].count')" 40
eq "bound 4: the server saw them all" "$(stat '.by_path["/slow"]')" 40
eq "bound 4: no errors" "$(sj "$TMP/b.json" '.tests[0].errors.technical + .tests[0].errors.functional')" 0
eq "bound 4: one connection per VU all the same" "$(stat .connections)" 20
eq "bound 4: the summary names the bound" "$(sj "$TMP/b.json" '.run.max_in_flight')" 4
# 40 requests of 300 ms, 4 at a time: 10 waves; all but the first 4 waited,
# first come first served: the first runs 0, 1, 2, 3 and 4 waves, each
# second run behind 16 others, 4 waves (mean wait 900 ms).
eq "bound 4: requests held back" "$(sj "$TMP/b.json" '.run.held_back.requests')" 36
between "bound 4: the longest wait is 4 waves (ms)" "$(sj "$TMP/b.json" '.run.held_back.wait_max_ms')" 1150 1900
between "bound 4: service time is the server's 300 ms (mean, ms)" "$(sj "$TMP/b.json" '.tests[0].service.mean_ms')" 295 600
between "bound 4: response time counts the wait (mean, ms)" "$(sj "$TMP/b.json" '.tests[0].mean_ms')" 1150 1900
check "bound 4: the end says how many waited" grep -q "^Held back: 36 requests" "$TMP/b.out"
between "bound 4: the run took 10 waves of 300 ms (s)" "$(sj "$TMP/b.json" '.run.duration_s')" 2.9 6

# Two workers share the bound by their VUs: 2 each.
reset_target
"$QUERN" run tests/e2e/scripts/inflight.lua --vus 20 --runs 2 --workers 2 --max-in-flight 4 -q \
  -p base_url="$BASE" --summary-json "$TMP/w.json" >/dev/null 2>"$TMP/w.err"
eq "two workers: run exits 0" "$?" 0
eq "two workers: the server never held more than 4" "$(stat .slow_peak)" 4
eq "two workers: every request made" "$(stat '.by_path["/slow"]')" 40
eq "two workers: held back merged from both" "$(sj "$TMP/w.json" '.run.held_back.requests')" 36

# Cookies and sessions stay each VU's own while VUs wait for a slot.
reset_target
"$QUERN" run tests/e2e/scripts/reset.lua --vus 30 --runs 3 --max-in-flight 3 -q -p base_url="$BASE" \
  -p cookies=keep --summary-json "$TMP/c.json" >/dev/null 2>"$TMP/c.err"
eq "cookies: run exits 0" "$?" 0
eq "cookies: no errors" "$(sj "$TMP/c.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
eq "cookies: one session per VU" "$(stat .sessions_created)" 30
eq "cookies: each session used by all 3 runs" "$(stat '[.session_requests[]] | min')" 3
eq "cookies: one connection per VU" "$(stat .connections)" 30
check "cookies: requests were held back" test "$(sj "$TMP/c.json" '.run.held_back.requests')" -gt 0

# A run that ends while VUs wait for a slot stops on time, and what did not
# leave is not a sample.
reset_target
"$QUERN" run tests/e2e/scripts/inflight.lua --vus 40 --duration 2s --max-in-flight 2 -q \
  -p base_url="$BASE" -p ms=500 --summary-json "$TMP/s.json" >/dev/null 2>"$TMP/s.err"
eq "ends while held: run exits 0" "$?" 0
between "ends while held: on time (s)" "$(sj "$TMP/s.json" '.run.duration_s')" 1.9 4
eq "ends while held: samples = the server's requests" "$(sj "$TMP/s.json" '.tests[0].count')" \
  "$(stat '.by_path["/slow"]')"
eq "ends while held: no errors" "$(sj "$TMP/s.json" '.tests[0].errors.technical + .tests[0].errors.functional')" 0

# Bad values are refused before any load, naming the flag.
"$QUERN" run tests/e2e/scripts/inflight.lua --vus 1 --max-in-flight 0 -p base_url="$BASE" \
  >/dev/null 2>"$TMP/bad.err"
eq "--max-in-flight 0: usage error" "$?" 2
check "--max-in-flight 0: names the flag" grep -q -- "--max-in-flight" "$TMP/bad.err"
