# Steering a distributed run (quern ctl against a console with two agents on
# loopback): both agents follow the same change of VUs and the same pause,
# judged by a real nginx's log (each request names its VU, X-VU; agent a
# plays the odd ids, agent b the even ones, as the first split).
# e2e: alone (it judges a pause to the tenth of a second; tests/run.sh runs it by itself)
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
D=tests/e2e/scripts
start_nginx 1024
now() { date +%s.%N; }
plus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }
# ids FROM TO: the VUs that hit /hit between two wall-clock times, sorted, comma-separated
ids() { awk -v a="$1" -v b="$2" '$4 == "/hit" && $1 >= a && $1 < b { s[$3] = 1 } END { for (k in s) print k }' "$LOG" | sort -n | paste -sd, -; }
hits() { awk -v a="$1" -v b="$2" '$4 == "/hit" && $1 >= a && $1 < b' "$LOG" | wc -l; }

new_log
start_console c $D/stages_vu.lua --vus 4 --duration 5s --agents 2 --wait 20s -p base_url="$NGBASE" -q \
  --control 127.0.0.1:0 --control-port-file "$TMP/cport" --summary-json "$TMP/s.json" --db "$TMP/c.db"
start_agent a 1
start_agent b 1
wait_file "$TMP/cport"
CTL=127.0.0.1:$(cat "$TMP/cport")
ctl() { "$QUERN" ctl --console "$CTL" --token-file "$TMP/token" "$@" >>"$TMP/ctl.out" 2>>"$TMP/ctl.err"; }
wait_for "$LOG" ' /hit$' 20
# VUS hit in the last 0.6 s (pacing 200 ms: each VU three times); the checks
# below look at 0.8 s before vus 8, which holds it
hitting() { [ "$(ids "$(plus "$(now)" -0.6)" 9999999999)" = "$1" ]; }
await "VUs 1 to 4 on both agents hitting" 20 hitting 1,2,3,4
T_VUS=$(now)
ctl vus 8
eq "vus 8: exit 0" "$?" 0
since_vus() { [ "$(ids "$(plus "$T_VUS" 0.4)" 9999999999)" = 1,2,3,4,5,6,7,8 ]; }
await "VUs 1 to 8 hitting after vus 8" 20 since_vus
T_PAUSE=$(now)
ctl pause
eq "pause: exit 0" "$?" 0
sleep 1.5 # the pause under test
T_RESUME=$(now)
ctl resume
wait_exit "$CONSOLE_PID" 30
eq "the run completes (exit 0)" "$WAIT_RC" 0
eq "before vus 8: VUs 1 to 4" "$(ids "$(plus "$T_VUS" -0.8)" "$T_VUS")" "1,2,3,4"
eq "after vus 8: VUs 1 to 8, each agent's share" "$(ids "$(plus "$T_VUS" 0.4)" "$T_PAUSE")" "1,2,3,4,5,6,7,8"
eq "paused: neither agent sends a request" "$(hits "$(plus "$T_PAUSE" 0.3)" "$T_RESUME")" 0
eq "after the resume: both agents' VUs again" "$(ids "$(plus "$T_RESUME" 0.3)" "$(plus "$T_RESUME" 1.3)")" "1,2,3,4,5,6,7,8"
between "the run's duration leaves the pause out (s)" "$(sj "$TMP/s.json" '.run.duration_s')" 4.8 5.8
eq "the console's count is nginx's" "$(sj "$TMP/s.json" '.tests[0].count')" "$(grep -c ' /hit$' "$LOG")"
check "no sanitizer report" no_sanitizer_report "$TMP"/c.err "$TMP"/agent-*.log
