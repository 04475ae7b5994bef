# A flood of handshakes: 1,500 new connections a second from 32 addresses
# (127.0.0.10 to .41), each saying a valid Hello and then idling, while a real
# agent 200 ms away (a relay holding each way 100 ms) joins: the agent
# registers within the console's wait and the run completes, and the flood
# was real (the console answered and dropped thousands of its handshakes).
# e2e: heavy (it drives a CPU-bound load; tests/run.sh gives it two slots)
. "$(dirname "$0")/dist_lib.bash"
need_linkprobe
start_target

start_console hf tests/e2e/scripts/dist_hit.lua --vus 2 --duration 2s --agents 1 --wait 10s \
  -p base_url="$BASE" --summary-json "$TMP/hf.json" --db none
"$PROBE" hellos "$CPORT" 1500 14 >"$TMP/hellos.out" 2>&1 &
FLOOD=$!; PIDS+=("$FLOOD")
rm -f "$TMP/relay.port"
"$PROBE" relay "$TMP/relay.port" "$CPORT" delay 100 >"$TMP/relay.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 100); do [ -s "$TMP/relay.port" ] && break; sleep 0.05; done
sleep 1 # the flood under way at its full rate before the agent joins
"$QUERN" agent --console "127.0.0.1:$(cat "$TMP/relay.port")" --token-file "$TMP/token" \
  --workers 1 --name far >"$TMP/agent-far.log" 2>&1 &
PIDS+=("$!")
wait_exit $CONSOLE_PID 30
eq "flooded console: the run completes" "$WAIT_RC" 0
eq "flooded console: status completed" "$(sj "$TMP/hf.json" .run.status 2>/dev/null)" completed
check "the far agent registered" grep -q 'agent far registered' "$TMP/hf.err"
check "the run had requests" test "$(sj "$TMP/hf.json" ".tests[0].count // 0" 2>/dev/null || echo 0)" -gt 0
wait_exit $FLOOD 20
read -r _ opened _ closed _ answered <"$TMP/hellos.out"
between "the flood opened its connections" "${opened:-0}" 15000 25000
between "the console answered the flood's Hellos" "${answered:-0}" 2000 30000
between "and dropped its handshakes" "${closed:-0}" 2000 30000
n=$(grep -c 'refused peer\|dropped the pending\|during the handshake' "$TMP/hf.err")
between "flooded console: lines about refused peers" "$n" 0 40
check "no sanitizer report" no_sanitizer_report "$TMP"/*.err "$TMP"/agent-*.log
