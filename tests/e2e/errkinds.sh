# Errors by kind, judged by a real nginx's access log: one step meets HTTP
# 500s, 503s and timeouts (limit_rate 1 against a 300 ms request timeout);
# each cause is its own kind (class, code, folded message) whose count is the
# one nginx logged for its location, in the summary JSON, the end summary,
# the database (totals and seconds) and the HTML report (also for a run
# whose totals were never written); an example (URL, status, body, trace id)
# and times with each. More causes than a step keeps: 32 kinds and one other
# row, nothing lost. With the server down, the kind names the transport's
# cause (Connection refused).
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
mkdir -p "$TMP/www/slow"
head -c 100000 /dev/zero | tr '\0' x >"$TMP/www/slow/big.txt"
start_nginx 256 "" "location /e500 { return 500 \"boom\"; }
   location /e503 { return 503; }
   location /slow/ { root $TMP/www; limit_rate 1; sendfile off; }"
DB=$TMP/ek.db
"$QUERN" run tests/e2e/scripts/errkinds.lua --vus 4 --duration 2s -p base_url="$NGBASE" \
  --traceparent --allow-errors --db "$DB" --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
eq "run exits 0" "$?" 0
# nginx logs a timed-out request once it notices its client left: wait for
# the log to settle
for _ in 1 2 3 4 5 6; do
  a=$(wc -l <"$LOG"); sleep 0.4; [ "$(wc -l <"$LOG")" = "$a" ] && break
done
K='.tests[0].errors.kinds'
n500=$(grep -c ' 500 - /e500$' "$LOG")
n503=$(grep -c ' 503 - /e503$' "$LOG")
nslow=$(grep -c ' /slow/big.txt$' "$LOG")
echo "# nginx: 500 $n500, 503 $n503, /slow $nslow ($(grep ' /slow/big.txt$' "$LOG" | awk '{print $2}' | sort | uniq -c | tr '\n' ' '))"
check "nginx saw errors of each cause" test "$n500" -gt 0 -a "$n503" -gt 0 -a "$nslow" -gt 0
eq "three kinds, all technical" "$(sj "$TMP/s.json" "\"\([$K[].class] | unique | join(\",\")) \($K | length)\"")" "technical 3"
kc() { sj "$TMP/s.json" "[$K[] | select(.code == $1) | .count] | add"; }
eq "500s: the kind's count is nginx's" "$(kc 500)" "$n500"
eq "503s: the kind's count is nginx's" "$(kc 503)" "$n503"
eq "timeouts: the kind's count is nginx's (code 28)" "$(kc 28)" "$nslow"
eq "kinds add up to the technical errors" "$(sj "$TMP/s.json" "[$K[].count] | add")" \
  "$(sj "$TMP/s.json" '.tests[0].errors.technical')"
eq "503: message" "$(sj "$TMP/s.json" "$K[] | select(.code == 503) | .message")" "HTTP status 503"
check "timeout: message folded (no number of milliseconds)" \
  grep -qx "Operation timed out after N milliseconds with N\( out of N\)\? bytes received" \
  <<<"$(sj "$TMP/s.json" "$K[] | select(.code == 28) | .message")"
eq "500: example URL, status and body" \
  "$(sj "$TMP/s.json" "$K[] | select(.code == 500) | .example | \"\(.url) \(.status) \(.body)\"")" \
  "$NGBASE/e500 500 boom"
check "500: example's trace id (--traceparent)" grep -qE '^[0-9a-f]{32}$' \
  <<<"$(sj "$TMP/s.json" "$K[] | select(.code == 500) | .example.trace_id")"
eq "timeout: example has no status" "$(sj "$TMP/s.json" "$K[] | select(.code == 28) | .example.status")" 0
check "first <= last, epoch ms" sj "$TMP/s.json" "$K[] | select(.first > 1700000000000 and .first <= .last)"
check "end summary: the 503 row" grep -qE "^ +$n503 +technical +503 +HTTP status 503" "$TMP/out"
check "end summary: the timeout row" grep -qE "^ +$nslow +technical +28 +Operation timed out" "$TMP/out"
q() { sqlite3 "$DB" "$1"; }
eq "database: three kinds" "$(q 'SELECT count(*) FROM error_kinds')" 3
eq "database: 500s" "$(q 'SELECT count FROM error_kinds WHERE code = 500')" "$n500"
eq "database: 503s" "$(q "SELECT count FROM error_kinds WHERE code = 503 AND class = 'technical'")" "$n503"
eq "database: timeouts" "$(q 'SELECT count FROM error_kinds WHERE code = 28')" "$nslow"
eq "database: the seconds add up to the totals" \
  "$(q 'SELECT code, sum(count) FROM error_kind_seconds GROUP BY code ORDER BY code' | tr '\n' ' ')" \
  "28|$nslow 500|$n500 503|$n503 "
eq "database: the example's URL" "$(q 'SELECT url FROM error_kinds WHERE code = 503')" "$NGBASE/e503"

# The server down: the kind says why
"$QUERN" run tests/e2e/scripts/errkinds.lua --vus 1 --runs 2 -p base_url="http://127.0.0.1:$(free_port)" \
  --allow-errors --db none --summary-json "$TMP/d.json" >"$TMP/dout" 2>"$TMP/derr"
eq "server down: one kind, code 7 (couldn't connect)" \
  "$(sj "$TMP/d.json" "[$K[] | \"\(.code) \(.count)\"] | join(\",\")")" "7 6"
check "server down: the message carries the cause" \
  grep -q "Connection refused" <<<"$(sj "$TMP/d.json" "$K[0].message")"

# More causes than a step keeps: 32 kinds, the rest in one "(other kinds)" row
"$QUERN" run tests/e2e/scripts/errkinds_many.lua --vus 1 --runs 40 -p base_url="$NGBASE" \
  --allow-errors --db none --summary-json "$TMP/m.json" >"$TMP/mout" 2>"$TMP/merr"
eq "40 causes: 32 kinds and the other row" "$(sj "$TMP/m.json" "$K | length")" 33
eq "  the other row counts the 8 others, last" \
  "$(sj "$TMP/m.json" "$K[-1] | \"\(.message) \(.class) \(.code) \(.count)\"")" "(other kinds) functional 0 8"
eq "  every error counted once" "$(sj "$TMP/m.json" "[$K[].count] | add")" 40
check "  the end summary shows 5 and says how many more" grep -q "^  and 28 more (35 errors)$" "$TMP/mout"

# The HTML report: a table per step and a chart of each kind's errors per second
"$QUERN" report --db "$DB" -o "$TMP/r.html" >/dev/null 2>&1
check "report: the 503 kind's row, nginx's count" \
  grep -q "<td class=\"n\">$n503</td><td>technical</td><td class=\"n\">503</td><td><code>HTTP status 503" "$TMP/r.html"
check "report: the timeout kind's row" grep -q "<td class=\"n\">$nslow</td><td>technical</td><td class=\"n\">28</td>" "$TMP/r.html"
check "report: errors per second by kind" grep -q "aria-label=\"Errors per second by kind\"" "$TMP/r.html"
# a run whose end was never written (no totals): the kinds summed from its seconds
q 'DELETE FROM error_kinds'
"$QUERN" report --db "$DB" -o "$TMP/r2.html" >/dev/null 2>&1
check "report without totals: the 500 kind from the seconds, nginx's count" \
  grep -q "<td class=\"n\">$n500</td><td>technical</td><td class=\"n\">500</td>" "$TMP/r2.html"
