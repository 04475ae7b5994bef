# Cookies: kept across a VU's runs by default, a fresh jar each run with
# cookies = "reset" (The Grinder's behaviour).
. "$(dirname "$0")/lib.bash"
start_target
"$QUERN" run tests/e2e/scripts/reset.lua --vus 3 --runs 4 -q -p base_url="$BASE" \
  --summary-json "$TMP/r.json" >/dev/null 2>&1
eq "reset: run exits 0" "$?" 0
eq "reset: no errors" "$(sj "$TMP/r.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
eq "reset: a new session each run" "$(stat .sessions_created)" 12
eq "reset: each session presented once (its run's profile)" "$(stat '[.session_requests[]] | max')" 1

reset_target
"$QUERN" run tests/e2e/scripts/reset.lua --vus 3 --runs 4 -q -p base_url="$BASE" -p cookies=keep \
  --summary-json "$TMP/k.json" >/dev/null 2>&1
eq "keep: no errors (the session survives runs)" "$(sj "$TMP/k.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
eq "keep: one session per VU" "$(stat .sessions_created)" 3
eq "keep: each session used by all 4 runs" "$(stat '[.session_requests[]] | min')" 4

# 70 VUs: two groups sharing connection caches (worker/wire/vshare.c). Each VU
# keeps its own jar and its own connection all the same.
reset_target
"$QUERN" run tests/e2e/scripts/reset.lua --vus 70 --runs 3 -q -p base_url="$BASE" -p cookies=keep \
  --summary-json "$TMP/g.json" >/dev/null 2>&1
eq "groups: no errors" "$(sj "$TMP/g.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
eq "groups: one session per VU" "$(stat .sessions_created)" 70
eq "groups: each session used by all 3 runs" "$(stat '[.session_requests[]] | min')" 3
eq "groups: one connection per VU" "$(stat .connections)" 70
