# A password in a URL's user-info (http://u:secret@host/) is sent to the
# server (the target saw its Basic authorization) and written nowhere: not in
# the JTL, the Grinder logs, the summary (JSON and printed), the logs and
# error messages, nor the results database; the JTL shows http://u:***@host/.
. "$(dirname "$0")/lib.bash"
start_target
D=tests/e2e/scripts
CRED="http://u:secret@127.0.0.1:$PORT"

"$QUERN" run $D/credentials.lua --vus 1 --runs 2 -q -p base_url="$CRED" \
  -p dead_url=http://u:secret@127.0.0.1:1 --jtl "$TMP/r.jtl" --grinder-logs "$TMP/g" \
  --summary-json "$TMP/s.json" --db "$TMP/r.db" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "run ends (0, or 1 for the errors the script makes)" test "$rc" -le 1
eq "the server got the Basic authorization of the URL" \
  "$(sj "$TMP/s.json" '.tests[0].count - .tests[0].errors.functional - .tests[0].errors.technical')" 2
eq "every request made" "$(stat '.by_method_path["GET /echo"]')" 4
check "JTL written" test -s "$TMP/r.jtl"
check "JTL URL column: user kept, password masked" grep -q "http://u:\*\*\*@127.0.0.1:$PORT/echo" "$TMP/r.jtl"
check "the script's error was logged" grep -q "giving up on http://u:\*\*\*@" "$TMP/err"
check "the script's log line was logged" grep -q "fetched http://u:\*\*\*@" "$TMP/err"
check "the sample message names the URL, masked" grep -q "giving up on http://u:\*\*\*@" "$TMP/s.json"
sqlite3 "$TMP/r.db" .dump >"$TMP/db.sql"
check "database dumped" test -s "$TMP/db.sql"
check "database keeps the property, masked" grep -q "u:\*\*\*@127.0.0.1:$PORT" "$TMP/db.sql"
for f in "$TMP/r.jtl" "$TMP/g" "$TMP/out" "$TMP/err" "$TMP/s.json" "$TMP/db.sql" "$TMP"/r.db*; do
  if grep -rqa 'u:secret' "$f"; then
    notok "no password in $(basename "$f")"
    grep -ra 'u:secret' "$f" | head -3
  else
    ok "no password in $(basename "$f")"
  fi
done

# A script that fails to load with the URL in its message.
cat >"$TMP/load.lua" <<'LUA'
local quern = require "quern"
error("cannot use " .. quern.property("base_url"))
LUA
"$QUERN" run "$TMP/load.lua" -p base_url="$CRED" --db none >"$TMP/load.out" 2>&1
eq "load error: exit 2" "$?" 2
check "load error: the URL shown masked" grep -q "cannot use http://u:\*\*\*@127.0.0.1:$PORT" "$TMP/load.out"
check "load error: no password" test "$(grep -c secret "$TMP/load.out")" = 0
