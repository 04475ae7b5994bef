# Request headers quern adds itself, seen by the server.
. "$(dirname "$0")/lib.bash"
start_target
D=tests/e2e/scripts

"$QUERN" run $D/user_agent.lua --vus 1 --runs 2 -q -p base_url="$BASE" --summary-json "$TMP/ua.json" >"$TMP/ua.out" 2>&1
eq "User-Agent: run exits 0" "$?" 0
eq "User-Agent: every request made" "$(sj "$TMP/ua.json" '[.tests[].count] | add')" 6
eq "User-Agent: quern's once, or the step's own" \
  "$(sj "$TMP/ua.json" '[.tests[].errors.technical + .tests[].errors.functional] | add')" 0
eq "User-Agent: no script error" "$(grep -c 'assert\|error' "$TMP/ua.out")" 0
