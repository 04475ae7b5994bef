# The tool's numbers against the server's own: counts per step, sessions,
# connections, on the Grinder article's scenario (login, profile, logout).
. "$(dirname "$0")/lib.bash"
start_target

VUS=30
"$QUERN" run scripts/consultation_profil.lua --vus $VUS --duration 6s --ramp-up 1s -q \
  -p base_url="$BASE" -p pacing=1s --summary-json "$TMP/s.json" >"$TMP/out" 2>&1
eq "run exits 0" "$?" 0
S=$TMP/s.json
eq "status completed" "$(sj $S .run.status)" completed
eq "login count = server POST /login" "$(sj $S '.tests[0].count')" "$(stat '.by_method_path["POST /login"]')"
eq "profile count = server GET /profile" "$(sj $S '.tests[1].count')" "$(stat '.by_method_path["GET /profile"]')"
eq "logout count = server GET /logout" "$(sj $S '.tests[2].count')" "$(stat '.by_method_path["GET /logout"]')"
eq "total count = server requests" "$(sj $S '[.tests[].count]|add')" "$(stat '.requests - .login_forms')"
eq "no errors" "$(sj $S '[.tests[].errors.technical,.tests[].errors.functional]|add')" 0
eq "one login per VU" "$(sj $S '.tests[0].count')" $VUS
eq "one session per VU over all runs (cookies kept)" "$(stat .sessions_created)" $VUS
eq "every session seen" "$(stat .sessions_seen)" $VUS
eq "N VUs use N connections" "$(stat .connections)" $VUS
eq "connections opened, as quern counts them = the server's" \
  "$(sj $S '[.tests[].new_connections]|add')" "$(stat .connections)"
runs=$(sj $S '.scenarios[0].runs')
between "several runs per VU" "$runs" $((VUS * 4)) $((VUS * 7))
# A run cut by the end of the test has its profile counted but is not a run.
between "runs = profile samples, but for runs cut by the end" "$(( $(sj $S '.tests[1].count') - runs ))" 0 $VUS
# Each session did its VU's login, all its profiles and its logout.
eq "each session used across runs" \
  "$(stat '[.session_requests[]] | min >= 5')" true
check "step names follow SC-<scenario>-STEP-<n>)<label>" \
  grep -q 'SC-CONSULTATION-PROFIL-STEP-2)Consultation du profil' "$TMP/out"
check "summary has percentiles" jq -e '.tests[1] | .p50_ms > 0 and .p99_ms >= .p95_ms and .max_ms >= .p99_ms' "$S"
