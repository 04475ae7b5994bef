# A 12 s run of two agents: during a run the console sends them nothing but a
# Ping every 2 s (console/agents.h, AGENTS_RUN_PING_EVERY), and they leave a
# console silent for 5 s; neither may leave it, and the run ends clean.
. "$(dirname "$0")/dist_lib.bash"
start_target

start_console c tests/e2e/scripts/dist_ids.lua --vus 4 --duration 12s --agents 2 --wait 20s \
  -p base_url="$BASE" -p pacing=500ms --summary-json "$TMP/s.json"
start_agent a1 1
start_agent a2 1
wait_exit $CONSOLE_PID 40
eq "console exits 0" "$WAIT_RC" 0
check "no agent says the console is lost" bash -c "! grep -q 'console lost' '$TMP/agent-a1.log' '$TMP/agent-a2.log'"
check "the console lost no agent" bash -c "! grep -q ' lost' '$TMP/c.err'"
eq "every run counted: total = server" "$(sj "$TMP/s.json" '[.tests[].count]|add')" "$(stat '.requests - .login_forms')"
check "no sanitizer report" no_sanitizer_report "$TMP"/c.err "$TMP"/agent-*.log
