# Request headers quern adds itself, and responses of one URL that change size.
. "$(dirname "$0")/lib.bash"
start_target
D=tests/e2e/scripts

"$QUERN" run $D/user_agent.lua --vus 1 --runs 2 -q -p base_url="$BASE" --summary-json "$TMP/ua.json" >"$TMP/ua.out" 2>&1
eq "User-Agent: run exits 0" "$?" 0
eq "User-Agent: every request made" "$(sj "$TMP/ua.json" '[.tests[].count] | add')" 6
eq "User-Agent: quern's once, or the step's own" \
  "$(sj "$TMP/ua.json" '[.tests[].errors.technical + .tests[].errors.functional] | add')" 0
eq "User-Agent: no script error" "$(grep -c 'assert\|traceback' "$TMP/ua.out")" 0

# Responses of one URL that grow from a few bytes to 200 KB arrive whole.
"$QUERN" run $D/grow.lua --vus 2 --runs 2 -q -p base_url="$BASE" --summary-json "$TMP/grow.json" >"$TMP/grow.out" 2>&1
eq "growing responses: every request made" "$(sj "$TMP/grow.json" '.tests[0].count')" 24
eq "growing responses: read whole" "$(sj "$TMP/grow.json" '.tests[0].errors.technical + .tests[0].errors.functional')" 0

# Accept-Encoding, sent from quern's header list: once, or the step's own, or none.
"$QUERN" run $D/accept_encoding.lua --vus 1 --runs 2 -q -p base_url="$BASE" --summary-json "$TMP/ae.json" >"$TMP/ae.out" 2>&1
eq "Accept-Encoding: run exits 0" "$?" 0
eq "Accept-Encoding: every request made" "$(sj "$TMP/ae.json" '[.tests[].count] | add')" 10
eq "Accept-Encoding: quern's once, the step's own, or none" \
  "$(sj "$TMP/ae.json" '[.tests[].errors.technical + .tests[].errors.functional] | add')" 0
eq "Accept-Encoding: no script error" "$(grep -c 'assert\|traceback' "$TMP/ae.out")" 0
