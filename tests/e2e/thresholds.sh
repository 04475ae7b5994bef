# Thresholds decide the exit status; JUnit XML carries the verdicts.
. "$(dirname "$0")/lib.bash"
start_target
D=tests/e2e/scripts
run() { "$QUERN" run "$@" -q -p base_url="$BASE" >"$TMP/out" 2>"$TMP/err"; echo $?; }

eq "passing thresholds: exit 0" \
  "$(run scripts/consultation_profil.lua --vus 4 --runs 2 -p pacing=100ms --threshold 'p95<2s' \
     --threshold 'errors<1%' --threshold 'SC-*-STEP-2: count>=8' --junit "$TMP/ok.xml")" 0
check "verdicts printed" grep -q "PASS  p95<2s" "$TMP/out"
check "JUnit: well-formed" xmllint --noout "$TMP/ok.xml"
# 3 steps, 3 thresholds, and the default count>=1 (errors<1% is about errors)
eq "JUnit: a case per step and per threshold" "$(grep -c '<testcase' "$TMP/ok.xml")" 7
check "JUnit: no failure" grep -q 'failures="0"' "$TMP/ok.xml"

reset_target
eq "failing threshold: exit 1" \
  "$(run $D/pacing.lua --vus 2 --runs 3 -p pacing=0 -p path=/slow?ms=60 \
     --threshold 'SC-PACE-STEP-1: p95<20ms' --junit "$TMP/fail.xml" --summary-json "$TMP/fail.json")" 1
check "no pacing, nothing late: the service times are the response times" \
  jq -e '.tests[0] | .service == {mean_ms, p50_ms, p90_ms, p95_ms, p99_ms, max_ms, min_ms}' "$TMP/fail.json"
check "failing threshold: says the measured value and the limit" grep -q "FAIL  SC-PACE-STEP-1: p95<20ms .*p95 .*ms.*limit" "$TMP/out"
check "JUnit: the failure is there" grep -q 'failures="2"' "$TMP/fail.xml"
check "JUnit: failure message with the limit" grep -q '<failure message="p95 of SC-PACE-STEP-1' "$TMP/fail.xml"
eq "failing threshold: the run still completed" "$(stat .requests)" 6

reset_target
eq "bad threshold: exit 2" "$(run $D/pacing.lua --vus 1 --runs 1 --threshold 'p95<soon')" 2
check "bad threshold: names it" grep -q -- "--threshold 'p95<soon'" "$TMP/err"
eq "threshold on no step: exit 2" "$(run $D/pacing.lua --vus 1 --runs 1 --threshold 'SC-NOPE-*: p95<1s')" 2
check "threshold on no step: says so" grep -qi "no step" "$TMP/err"
eq "bad thresholds: no request sent" "$(stat .requests)" 0

# --abort-on-fail: 100 % errors, stopped after 10 s instead of 60.
reset_target
start=$(date +%s)
eq "abort on fail: exit 1" "$(run $D/pacing.lua --vus 20 --duration 60s -p pacing=50ms -p path=/status/500 \
     --threshold 'errors<1%' --abort-on-fail --summary-json "$TMP/a.json")" 1
between "abort on fail: stopped soon after 10 s" "$(( $(date +%s) - start ))" 9 20
eq "abort on fail: status aborted" "$(sj "$TMP/a.json" .run.status)" aborted
check "abort on fail: says why" grep -q "stopping the run (--abort-on-fail)" "$TMP/err"
