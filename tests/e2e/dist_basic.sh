# A console and two agents of two workers each, as separate processes, against
# the demo target: the totals equal the server's counts, vu.id is unique across
# agents; a wrong token, garbage and an oversized frame on the console port are
# refused without disturbing the run.
. "$(dirname "$0")/dist_lib.bash"
start_target

VUS=12
start_console c tests/e2e/scripts/dist_ids.lua --vus $VUS --duration 4s --agents 2 --wait 20s \
  -p base_url="$BASE" -p pacing=500ms --summary-json "$TMP/s.json"
check "console listens on a free port" test -n "$CPORT"

# A peer with the wrong token is told why; it keeps trying (the refusal came
# from a console that proved nothing, which must never make an agent quit).
printf 'another-token-for-the-intruder\n' >"$TMP/bad"; chmod 600 "$TMP/bad"
start_agent intruder 1 "$TMP/bad"; BAD=$AGENT_PID
wait_for "$TMP/agent-intruder.log" 'refused us: wrong token.*retrying' 10
check "agent says the token is wrong, and retries" grep -q 'refused us: wrong token.*retrying in' "$TMP/agent-intruder.log"
kill $BAD; wait_exit $BAD 10
check "console logs the refused peer" grep -q 'refused peer 127.0.0.1:[0-9]*: wrong token' "$TMP/c.err"

# Garbage and an oversized frame: those connections are closed.
check "garbage: connection closed" send_raw 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'
check "oversized frame: connection closed" send_raw '\x7f\xff\xff\xff'
check "malformed envelope: connection closed" send_raw '\x00\x00\x00\x04\xff\xff\xff\xff'

start_agent a1 2; A1=$AGENT_PID
start_agent a2 2; A2=$AGENT_PID
# While the run goes on, more garbage.
wait_for "$TMP/c.err" 'starting' 20
check "oversized frame during the run: closed" send_raw '\x01\x00\x00\x00'
check "garbage during the run: closed" send_raw '\x00\x00\x00\x03abc'

wait_exit $CONSOLE_PID 60
eq "console exits 0" "$WAIT_RC" 0
if [ "$WAIT_RC" != 0 ]; then
  for f in "$TMP/c.err" "$TMP"/agent-a1.log "$TMP"/agent-a2.log; do
    echo "# $(basename "$f"):"; tail -n 30 "$f" | sed 's/^/#   /'
  done
fi
S=$TMP/s.json
eq "status completed" "$(sj $S .run.status)" completed
eq "login count = server POST /login" "$(sj $S '.tests[0].count')" "$(stat '.by_method_path["POST /login"]')"
eq "profile count = server GET /profile" "$(sj $S '.tests[2].count')" "$(stat '.by_method_path["GET /profile"]')"
eq "total count = server requests" "$(sj $S '[.tests[].count]|add')" "$(stat '.requests - .login_forms')"
eq "no errors" "$(sj $S '[.tests[].errors.technical,.tests[].errors.functional]|add')" 0
eq "one login per VU" "$(sj $S '.tests[0].count')" $VUS
eq "vu.id unique across agents (distinct /vu/ID seen)" \
  "$(curl -s "$BASE/__stats" | jq '[.by_path|keys[]|select(startswith("/vu/"))]|length')" $VUS
eq "one session per VU" "$(stat .sessions_created)" $VUS
check "garbage closed the connection only" grep -q 'closed during the handshake' "$TMP/c.err"
check "oversized frame refused" grep -q 'exceeds maximum' "$TMP/c.err"
check "per-agent breakdown" grep -qE '^  a1 +6 ' "$TMP/c.out"
check "per-agent breakdown (a2)" grep -qE '^  a2 +6 ' "$TMP/c.out"
r1=$(awk '$1=="a1"{print $4}' "$TMP/c.out"); r2=$(awk '$1=="a2"{print $4}' "$TMP/c.out")
eq "agents' requests add up to the server's" "$((r1 + r2))" "$(stat '.requests - .login_forms')"

# A second console: runs mode, and an uneven split by workers.
reset_target
start_console c2 tests/e2e/scripts/dist_ids.lua --vus 4 --runs 2 --agents 2 --wait 20s \
  -p base_url="$BASE" --summary-json "$TMP/s2.json"
# These agents know the first console's port only: new agents for this one.
kill $A1 $A2; wait_exit $A1 10; eq "agent exits 0 on SIGTERM" "$WAIT_RC" 0; wait_exit $A2 10
start_agent b1 1
start_agent b2 3
wait_exit $CONSOLE_PID 60
eq "second console exits 0" "$WAIT_RC" 0
eq "runs mode: 2 profiles per VU" "$(sj "$TMP/s2.json" '.tests[2].count')" 8
eq "runs mode: total = server" "$(sj "$TMP/s2.json" '[.tests[].count]|add')" "$(stat '.requests - .login_forms')"
eq "1:3 workers split 4 VUs 1:3" "$(awk '$1=="b1"{print $2}' "$TMP/c2.out"),$(awk '$1=="b2"{print $2}' "$TMP/c2.out")" "1,3"
check "no sanitizer report" no_sanitizer_report "$TMP"/c.err "$TMP"/c2.err "$TMP"/agent-*.log
