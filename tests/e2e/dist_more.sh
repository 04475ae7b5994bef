# A worker that crashes is reported and the others go on; an agent serves one
# console after another without restarting.
. "$(dirname "$0")/dist_lib.bash"
start_target

# A worker killed mid-run (local agent, two workers).
"$QUERN" run tests/e2e/scripts/dist_hit.lua --vus 10 --duration 5s --workers 2 -p base_url="$BASE" \
  -p pacing=100ms --summary-json "$TMP/c.json" >"$TMP/c.out" 2>"$TMP/c.err" &
CPID=$!
PIDS+=("$CPID")
wait_requests 40 20
AGENT=$(pgrep -P $CPID | head -1)
VICTIM=$(pgrep -P "$AGENT" | head -1)
check "the local agent has its workers" test -n "$VICTIM"
kill -9 "$VICTIM"
n1=$(stat .requests)
wait_exit $CPID 30
eq "worker crash: the run is degraded (exit 1)" "$WAIT_RC" 1
eq "worker crash: status degraded" "$(sj "$TMP/c.json" .run.status)" degraded
check "worker crash: reported with its signal" grep -q "killed by signal 9" "$TMP/c.err"
check "worker crash: the other worker went on" test "$(stat .requests)" -gt $((n1 + 40))
check "worker crash: the surviving worker's samples are counted" test "$(sj "$TMP/c.json" '.tests[0].count')" -gt "$n1"

# One agent, two consoles in a row on the same address.
reset_target
start_console a tests/e2e/scripts/dist_hit.lua --vus 4 --runs 3 --agents 1 --wait 20s -p base_url="$BASE" \
  -p pacing=0 --summary-json "$TMP/a.json"
PORT1=$CPORT
start_agent keeper 1; KEEPER=$AGENT_PID
wait_exit $CONSOLE_PID 30
eq "first console: exits 0" "$WAIT_RC" 0
"$QUERN" run tests/e2e/scripts/dist_hit.lua --vus 4 --runs 3 --agents 1 --wait 40s -p base_url="$BASE" \
  -p pacing=0 --listen 127.0.0.1:$PORT1 --token-file "$TMP/token" --summary-json "$TMP/b.json" \
  >"$TMP/b.out" 2>"$TMP/b.err"
eq "second console, same agent: exits 0" "$?" 0
eq "both runs played in full" "$(sj "$TMP/a.json" '.tests[0].count')/$(sj "$TMP/b.json" '.tests[0].count')" 12/12
eq "the server saw both runs" "$(stat .requests)" 24
check "the agent is still there for the next one" kill -0 $KEEPER
