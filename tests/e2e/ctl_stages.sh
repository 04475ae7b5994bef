# `quern ctl vus N` in a staged run (--stages), judged by a real nginx's
# access log: each request names its VU (X-VU) and nginx stamps it. The
# stages climb to 6 and come down to 2 (VUs 3 to 6 leave); a `vus 8` at 3 s
# cuts them there: VUs 1 and 2 stay, six new ones (ids beyond the stages'
# six) start at once, none of those that left comes back, and the 8 hold to
# the planned end.
# e2e: alone (it judges time to the tenth of a second; tests/run.sh runs it by itself)
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
D=tests/e2e/scripts
start_nginx 1024
now() { date +%s.%N; }
distinct() { awk -v a="$1" -v b="$2" '$4 == "/hit" && $1 >= a && $1 < b { s[$3] = 1 } END { print length(s) }' "$LOG"; }
plus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }
ctl() { "$QUERN" ctl --console "$CTL" --token-file "$TMP/token" "$@" >>"$TMP/ctl.out" 2>>"$TMP/ctl.err"; }

new_log
"$QUERN" run $D/stages_vu.lua -p base_url="$NGBASE" --workers 2 -q --token-file "$TMP/token" \
  --stages 1s:6,1s:2,6s:2 --control 127.0.0.1:0 --control-port-file "$TMP/st.cport" \
  --db "$TMP/st.db" --summary-json "$TMP/st.json" >"$TMP/st.out" 2>"$TMP/st.err" &
RUN_PID=$!
PIDS+=("$RUN_PID")
wait_file "$TMP/st.cport"
CTL=127.0.0.1:$(cat "$TMP/st.cport")
wait_for "$LOG" ' /hit$' 10
sleep 2.8 # vus 8 at 3 s into the stages: the checks count from it
T_VUS=$(now)
ctl vus 8
eq "vus 8 in a staged run: exit 0" "$?" 0
check "vus 8: quern ctl says what it did" grep -qx '8 VUs from now on' "$TMP/ctl.out"
wait_exit "$RUN_PID" 20
eq "the run completes (exit 0)" "$WAIT_RC" 0
eq "before vus 8, after the descent: 2 VUs" "$(distinct "$(plus "$T_VUS" -0.8)" "$T_VUS")" 2
eq "after vus 8: 8 VUs" "$(distinct "$(plus "$T_VUS" 0.4)" 9999999999)" 8
eq "after vus 8: VUs 1, 2 and 7 to 12 (those that left stay gone)" \
  "$(awk -v a="$(plus "$T_VUS" 0.4)" '$4 == "/hit" && $1 >= a { s[$3] = 1 }
    END { n = 0; for (k in s) { v = k + 0; n += (v == 1 || v == 2 || (v >= 7 && v <= 12)) }; print n }' "$LOG")" 8
between "the 8 hold to the planned end: the last hit (s after vus 8)" \
  "$(awk '$4 == "/hit" { t = $1 } END { print t }' "$LOG" | awk -v a="$T_VUS" '{ printf "%.1f", $1 - a }')" 4.2 5.8
between "the run lasts its stages (s)" "$(sj "$TMP/st.json" '.run.duration_s')" 7.8 8.8
eq "the console's count is nginx's" "$(sj "$TMP/st.json" '.tests[0].count')" "$(grep -c ' /hit$' "$LOG")"
eq "the database keeps the change of VUs" "$(sqlite3 "$TMP/st.db" "SELECT value FROM steers WHERE kind = 'vus'")" 8.0

# a scenario's own stages: vus N refused
new_log
"$QUERN" run $D/stages_vu.lua -p base_url="$NGBASE" -p own_stages=4s:2 -q --token-file "$TMP/token" \
  --control 127.0.0.1:0 --control-port-file "$TMP/own.cport" >"$TMP/own.out" 2>"$TMP/own.err" &
RUN_PID=$!
PIDS+=("$RUN_PID")
wait_file "$TMP/own.cport"
CTL=127.0.0.1:$(cat "$TMP/own.cport")
wait_for "$LOG" ' /hit$' 10
ctl vus 4
eq "vus in a run of a scenario's own stages: refused (exit 1)" "$?" 1
check "the refusal says why" grep -q "a scenario's own stages" "$TMP/ctl.err"
ctl stop
wait_exit "$RUN_PID" 20
no_sanitizer_report "$TMP"/*.err && ok "no sanitizer report" || notok "no sanitizer report"
