# quern har2lua on a real recording: headless Chromium (Playwright) logs in
# to the demo target through its HTML form, opens the profile, calls the
# JSON API and logs out; the HAR it saved is converted and replayed by
# several VUs against a fresh target, whose own counts judge the replay.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/browser_lib.bash"
browser_setup

# --- the recording ------------------------------------------------------------
start_target
browser_node tests/e2e/scripts/har_record.js "$BASE" "$TMP/journey.har" >"$TMP/record.log" 2>&1
eq "Chromium recorded the journey" "$?" 0
JOURNEY=$(jq -r '[.log.entries[].request | .method + " " + (.url | sub("^[a-z]+://[^/]+"; "") | sub("[?#].*"; ""))] | join(",")' "$TMP/journey.har")
eq "the HAR holds the journey" "$JOURNEY" "GET /login,POST /login,GET /profile,GET /api/profile,GET /logout"
TOKEN=$(jq -r '.log.entries[1].request.postData.text' "$TMP/journey.har" | sed -n 's/.*csrf=\([0-9a-f]*\).*/\1/p')
check "the recorded login sent the form's token" test -n "$TOKEN"
kill "$TARGET_PID"; wait "$TARGET_PID" 2>/dev/null

# --- the conversion -------------------------------------------------------------
mkdir -p "$TMP/plan"
"$QUERN" har2lua "$TMP/journey.har" --resources list --name JOURNEY -o "$TMP/plan/journey.lua" \
  >"$TMP/conv.out" 2>&1
eq "har2lua exits 0" "$?" 0
S=$TMP/plan/journey.lua
eq "one step per page and call" "$(grep -c '= sc:step(' "$S")" 5
eq "the token is extracted from the login form, and said so" \
  "$(grep -A1 -F -- '-- csrf: the hidden input "csrf" of the page GET /login' "$S" | sed -n 2p)" \
  "  csrf = r:xpath(\"//input[@name='csrf']/@value\")"
check "the login posts the extracted token" grep -qF 'form = { csrf = csrf,' "$S"
check "the recorded token is not replayed" bash -c "! grep -qF '$TOKEN' '$S'"
check "no cookie, user agent or sec- header copied" bash -c "! grep -Eiq 'cookie|user-agent|sec-' '$S'"
check "the password is a property read when the script loads, not copied" bash -c "grep -qF 'local secret_password = quern.property(\"password\")' '$S' && grep -qF 'password = secret_password' '$S' && ! grep -qF '\"secret\"' '$S'"
check "the origin is the base_url property" grep -qE '^local base = quern.property\("base_url", "http://127.0.0.1:[0-9]+"\)' "$S"
# .luacheckrc's settings; recorded values are written on one line, as long as they came
luacheck --formatter plain --codes --no-max-line-length "$S" >"$TMP/luacheck.out" 2>&1
eq "luacheck warns of nothing in the script" "$?/$(head -c 300 "$TMP/luacheck.out")" "0/"

# --- the replay, against a fresh target ---------------------------------------------
start_target
"$QUERN" run "$S" --vus 1 --runs 2 -q -p base_url="$BASE" -p password=secret --db none \
  --summary-json "$TMP/one.json" >"$TMP/one.out" 2>&1
eq "one VU, two runs: exits 0" "$?" 0
eq "one VU: the server saw the recorded requests, in order, each run" \
  "$(stat '.request_log | join(",")')" "$JOURNEY,$JOURNEY"

reset_target
VUS=4 RUNS=2
"$QUERN" run "$S" --vus $VUS --runs $RUNS -q -p base_url="$BASE" -p password=secret --db none \
  --summary-json "$TMP/many.json" >"$TMP/many.out" 2>&1
eq "$VUS VUs, $RUNS runs: exits 0" "$?" 0
eq "no error" "$(sj "$TMP/many.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
eq "one login per VU and run (server sessions)" "$(stat .sessions_created)" $((VUS * RUNS))
eq "every login's token accepted" "$(stat .logins_rejected)/$(stat '.by_status | keys | join(",")')" "0/200"
eq "each recorded request once per VU and run" \
  "$(stat '[.by_method_path | to_entries[] | .value] | unique | join(",")')/$(stat '.by_method_path | length')" \
  "$((VUS * RUNS))/5"
eq "each session did its run's profile, API call and logout" "$(stat '[.session_requests[]] | unique | join(",")')" 3

# Without its correlation rule the recorded login is refused: the test above
# would fail if har2lua replayed the form as recorded.
reset_target
grep -v '^ *csrf = r:xpath' "$S" >"$TMP/plan/stale.lua"
"$QUERN" run "$TMP/plan/stale.lua" --vus 2 --runs 1 -q -p base_url="$BASE" -p password=secret --db none \
  --summary-json "$TMP/stale.json" >"$TMP/stale.out" 2>&1
eq "no correlation: the run fails" "$?" 1
eq "no correlation: each login refused (403)" "$(stat .logins_rejected)/$(stat '.by_status["403"]')/$(stat .sessions_created)" "2/2/0"

# The default, --resources auto (a page that loaded resources gets
# resources = true; this journey's pages load none): converted, it runs.
reset_target
"$QUERN" har2lua "$TMP/journey.har" --name JOURNEY -o "$TMP/plan/auto.lua" >"$TMP/auto.out" 2>&1
"$QUERN" run "$TMP/plan/auto.lua" --vus 2 --runs 1 -q -p base_url="$BASE" -p password=secret --db none \
  --summary-json "$TMP/auto.json" >"$TMP/auto.run" 2>&1
eq "--resources auto: the script runs, no error" \
  "$?/$(sj "$TMP/auto.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" "0/0"
eq "--resources auto: one login per VU" "$(stat .sessions_created)/$(stat .logins_rejected)" "2/0"

# --- bad input: one line, exit 2 ------------------------------------------------------
printf '{"log": {"entries": [\n  {"request": }\n]}}\n' >"$TMP/bad.har"
"$QUERN" har2lua "$TMP/bad.har" -o "$TMP/plan/bad.lua" >"$TMP/bad.out" 2>&1
eq "not JSON: exit 2" "$?" 2
eq "not JSON: one line with the place" "$(cat "$TMP/bad.out")" \
  "quern har2lua: $TMP/bad.har:2:15: not JSON: unexpected token near '}'"
check "not JSON: no script written" test ! -e "$TMP/plan/bad.lua"
echo '{"entries": []}' >"$TMP/nothar.har"
"$QUERN" har2lua "$TMP/nothar.har" >"$TMP/nothar.out" 2>&1
eq "not a HAR: exit 2, one line" "$?/$(wc -l <"$TMP/nothar.out")" 2/1
check "not a HAR: says so" grep -q 'nothar.har:1:1: not a HAR file' "$TMP/nothar.out"
"$QUERN" har2lua "$TMP/journey.har" --resources some >"$TMP/badopt.out" 2>&1
eq "a bad --resources: exit 2, names the flag" "$?/$(grep -c -- '--resources some' "$TMP/badopt.out")" 2/1
# The scripts the unit tests expect load in quern (exit 1 on requests that
# find no server, never 2, a script error).
for f in tests/unit/data/har/*.lua; do
  mkdir -p "$TMP/golden" && cp "$f" "$TMP/golden/g.lua"
  "$QUERN" run "$TMP/golden/g.lua" --vus 1 --runs 1 -q --db none -p base_url=http://127.0.0.1:$(free_port) \
    -p shop_url=http://127.0.0.1:$(free_port) -p password=x >"$TMP/golden.out" 2>&1
  rc=$?
  eq "$(basename "$f") loads in quern run" "$rc" 1
done
check "no sanitizer report" bash -c "! grep -q Sanitizer '$TMP'/*.out"
