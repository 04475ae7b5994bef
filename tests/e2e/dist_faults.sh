# Faults in a distributed run: kill -9 of one agent mid-run (the run completes,
# degraded, the survivor's counts are complete), and the console killed (the
# agents stop their load within 5 s and wait for the next console).
. "$(dirname "$0")/dist_lib.bash"
start_target

# hits_of LOG: the server's /vu/ID requests for the VUs an agent log lists.
hits_of() {
  local ranges
  ranges=$(grep -o 'VU(s) of [0-9]* \[[0-9,-]*\]' "$1" | head -1 | sed 's/.*\[\(.*\)\]/\1/')
  curl -s "$BASE/__stats" | jq --arg r "$ranges" '
    [$r | split(",")[] | split("-") | map(tonumber) | range(.[0]; .[1] + 1)] as $ids
    | [$ids[] as $i | .by_path["/vu/\($i)"] // 0] | add'
}

for mode in strict allow; do
  reset_target
  extra=(); [ $mode = allow ] && extra=(--allow-agent-loss)
  start_console k$mode tests/e2e/scripts/dist_hit.lua --vus 8 --duration 5s --agents 2 \
    --wait 20s -p base_url="$BASE" --summary-json "$TMP/k$mode.json" "${extra[@]}"
  start_agent s$mode 2; SURV=$AGENT_PID
  start_agent v$mode 2; VICTIM=$AGENT_PID
  # 2 s in: the victim's seconds, sent once a second, reached the console
  # (nothing here shows their arrival)
  wait_requests 30 20; sleep 2
  kill -9 $VICTIM
  wait_exit $CONSOLE_PID 40
  if [ $mode = strict ]; then
    eq "agent lost: console exits 1" "$WAIT_RC" 1
    eq "status degraded" "$(sj "$TMP/k$mode.json" .run.status)" degraded
    check "loss reported at once" grep -q "agent v$mode lost" "$TMP/k$mode.err"
    check "breakdown marks it lost" grep -qE "^  v$mode .* lost$" "$TMP/k$mode.out"
    sreq=$(awk -v n="s$mode" '$1==n{print $4}' "$TMP/k$mode.out")
    eq "survivor's counts = what the server saw from its VUs" "$sreq" "$(hits_of "$TMP/agent-s$mode.log")"
    check "survivor ran the whole run" test "$sreq" -ge 60
    check "victim's data kept" test "$(sj "$TMP/k$mode.json" '.tests[0].count')" -gt "$sreq"
  else
    eq "agent lost with --allow-agent-loss: exits 0" "$WAIT_RC" 0
  fi
  kill $SURV; wait_exit $SURV 10
  eq "surviving agent ($mode) exits 0 on SIGTERM" "$WAIT_RC" 0
done

# The console killed mid-run: the agents stop the load within 5 s.
reset_target
start_console d tests/e2e/scripts/dist_hit.lua --vus 8 --duration 60s --agents 2 --wait 20s \
  -p base_url="$BASE"
start_agent d1 2; D1=$AGENT_PID
start_agent d2 2; D2=$AGENT_PID
wait_requests 41 20
kill -9 $CONSOLE_PID
# both agents saw it and their workers are gone (else 5 s, the time allowed)
stopped() {
  grep -q 'console lost' "$TMP/agent-d1.log" && grep -q 'console lost' "$TMP/agent-d2.log" &&
    [ -z "$(pgrep -P $D1)$(pgrep -P $D2)" ]
}
wait_until 5 stopped
n1=$(stat .requests)
sleep 2 # a request sent in these 2 s would show: none is what is judged
n2=$(stat .requests)
check "load was running" test "$n1" -gt 40
eq "no request 5 s after the console died" "$n2" "$n1"
check "agent d1 says the console is lost" grep -q 'console lost' "$TMP/agent-d1.log"
check "agents still alive, waiting" kill -0 $D1 $D2
eq "no worker left" "$(pgrep -P $D1 | wc -l)$(pgrep -P $D2 | wc -l)" 00
kill $D1 $D2; wait_exit $D1 10; wait_exit $D2 10
check "no sanitizer report" no_sanitizer_report "$TMP"/k*.err "$TMP"/agent-*.log
