# sc.setup and sc.teardown once per run, judged by a real nginx's log: a
# console and two agents (2 + 1 workers, 6 VUs) run scripts/setup_teardown.lua:
# one login, every VU's request carries the session that login set, one
# logout at the end; a write
# to vu.setup is an error at its line; a setup that fails stops the run
# before any request, with file:line and exit 2.
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
start_nginx 256 "log_format tok '\$request_method \$uri \$request_id \$http_cookie \$http_x_vu';" \
  "access_log $TMP/nginx/tok.log tok;
   location = /login { default_type text/html; add_header Set-Cookie 'SESSION=tok-\$request_id; Path=/';
                       return 200 '<form><input type=\"hidden\" name=\"csrf\" value=\"c1\"></form>'; }
   location = /api/profile { default_type application/json; return 200 '{\"name\":\"admin\"}'; }
   location = /fail { return 500; }"
TOK=$TMP/nginx/tok.log
: >"$TOK"

# ---- two agents, three workers: setup once, teardown once
start_console c scripts/setup_teardown.lua --vus 6 --duration 2s --agents 2 --wait 20s -q \
  -p base_url="$NGBASE" --db none --summary-json "$TMP/s.json"
start_agent a1 2
start_agent a2 1
wait_exit "$CONSOLE_PID" 40
eq "two agents: exit 0" "$WAIT_RC" 0
eq "one login in the server's log (6 VUs, 3 workers, 2 agents)" "$(grep -c '^POST /login ' "$TOK")" 1
eq "one login form fetched" "$(grep -c '^GET /login ' "$TOK")" 1
eq "one logout in the server's log" "$(grep -c ' /logout ' "$TOK")" 1
session="SESSION=tok-$(awk '$1 == "POST" && $2 == "/login" { print $3 }' "$TOK")"
hits=$(grep -c ' /api/profile ' "$TOK")
between "the VUs ran (6 VUs, 2 s, 200 ms pacing)" "$hits" 12 80
eq "every VU request carries the session the login gave" \
  "$(awk -v t="$session" '$2 == "/api/profile" && $4 == t' "$TOK" | wc -l)" "$hits"
eq "the 6 VUs, on both agents, sent it" \
  "$(awk '$2 == "/api/profile" { s[$5] = 1 } END { print length(s) }' "$TOK")" 6
eq "the logout carries it too" "$(awk '$2 == "/logout" { print $4 }' "$TOK")" "$session"
# (the log's own lines only: nginx may write start_nginx's probe after the log was emptied)
order=$(grep -E ' /(login|api/profile|logout) ' "$TOK" | cut -d' ' -f1,2)
eq "login first, logout last" "$(sed -n 2p <<<"$order") $(tail -1 <<<"$order")" "POST /login GET /logout"
eq "the console's count is nginx's (setup's requests are not samples)" \
  "$(sj "$TMP/s.json" '.tests[0].count')" "$hits"
eq "no error" "$(sj "$TMP/s.json" '.tests[0].errors.technical + .tests[0].errors.functional')" 0
check "no sanitizer report" no_sanitizer_report "$TMP/c.err" "$TMP"/agent-a*.log

# ---- vu.setup is read-only
"$QUERN" run tests/e2e/scripts/setup_write.lua --vus 4 --runs 1 --workers 2 --db none -q \
  --allow-errors --summary-json "$TMP/w.json" >"$TMP/w.out" 2>"$TMP/w.err"
eq "a write to vu.setup: one functional error per VU" "$(sj "$TMP/w.json" '.tests[0].errors.functional')" 4
check "the error names the file and line of the write" \
  grep -q 'setup_write.lua:21: vu.setup is read-only' "$TMP/w.err"
check "reads, # and pairs see the data, one table for a worker's VUs (no assertion failed)" \
  bash -c "! grep -q 'allowed\|not readable\|pairs sees\|a copy per VU' '$TMP/w.err'"

# ---- a failed setup: no load, file:line, exit 2
for how in status:13:'POST http://127.0.0.1:[0-9]*/fail: HTTP status 500' error:15:'no token for this run' \
  expect:17:'expected status 201' \
  big:11:'what setup returned cannot be sent: [0-9]* bytes as JSON, more than 1048576 (1 MiB)'; do
  IFS=: read -r kind line msg <<<"$how"
  : >"$TOK"
  "$QUERN" run tests/e2e/scripts/setup_fail.lua --vus 4 --duration 2s --workers 2 --db none -q \
    -p base_url="$NGBASE" -p how="$kind" >"$TMP/f.out" 2>"$TMP/f.err"
  eq "setup fails ($kind): exit 2" "$?" 2
  check "setup fails ($kind): file:line: message" \
    grep -q "setup_fail.lua:$line: .*$msg.*(setup of scenario SETUP-FAIL)" "$TMP/f.err"
  eq "setup fails ($kind): no VU request, no teardown" "$(grep -c ' /hit \| /logout ' "$TOK")" 0
done

# ---- a stopped run has its teardown; an aborted one has none
: >"$TOK"
"$QUERN" run tests/e2e/scripts/setup_stop.lua --vus 2 --duration 20s --db none -q \
  -p base_url="$NGBASE" >"$TMP/t.out" 2>"$TMP/t.err" &
pid=$!
wait_for "$TOK" ' /hit ' 10
kill -TERM "$pid"
wait_exit "$pid" 15
eq "stopped (SIGTERM): exit 1, the verdict stopped" "$WAIT_RC" 1
eq "stopped: one setup, one teardown" "$(grep -c ' /begin ' "$TOK") $(grep -c ' /logout ' "$TOK")" "1 1"
eq "stopped: teardown after the last VU request" "$(grep -E ' /(hit|logout)' "$TOK" | tail -1 | cut -d' ' -f2)" /logout
: >"$TOK"
"$QUERN" run tests/e2e/scripts/setup_stop.lua --vus 2 --duration 20s --db none -q \
  -p base_url="$NGBASE" -p finish=3s >"$TMP/a.out" 2>"$TMP/a.err" &
pid=$!
wait_for "$TOK" ' /hit ' 10
kill -INT "$pid"
await "the run to say it is stopping" 10 grep -q 'interrupted: stopping' "$TMP/a.err"
kill -INT "$pid"
wait_exit "$pid" 15
eq "aborted (a second SIGINT): exit 3" "$WAIT_RC" 3
eq "aborted: one setup, no teardown" "$(grep -c ' /begin ' "$TOK") $(grep -c ' /logout ' "$TOK")" "1 0"
check "no sanitizer report in any run" no_sanitizer_report "$TMP"/*.err
