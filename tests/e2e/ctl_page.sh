# The live page's controls (--web with --control and --token-file) in a real
# headless Chromium: a page opened without the token has none; one opened
# with /?token= shows them, and its Pause button holds the load (no request
# in nginx's log while paused) until its Resume button.
# e2e: alone (it judges a pause to the tenth of a second; tests/run.sh runs it by itself)
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
. "$(dirname "$0")/browser_lib.bash"
browser_setup
D=tests/e2e/scripts
start_nginx 1024
hits() { awk -v a="$1" -v b="$2" '$4 == "/hit" && $1 >= a && $1 < b' "$LOG" | wc -l; }
plus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }
new_log
"$QUERN" run $D/stages_vu.lua -p base_url="$NGBASE" --vus 4 --duration 5s --workers 2 -q --db none \
  --token-file "$TMP/token" --control 127.0.0.1:0 --web 127.0.0.1:0 --web-port-file "$TMP/wport" \
  --metrics-linger 0 --summary-json "$TMP/s.json" >"$TMP/run.out" 2>"$TMP/run.err" &
RUN_PID=$!
PIDS+=("$RUN_PID")
wait_file "$TMP/wport"
wait_for "$LOG" ' /hit$' 10
browser_node tests/e2e/scripts/ctl_page.js "$(cat "$TMP/wport")" "$(cat "$TMP/token")" >"$TMP/page.json" 2>"$TMP/node.err"
P=$TMP/page.json
echo "# page: $(cat "$P")"
eq "browser: no error" "$(jq -r '.error // "none"' "$P")" none
eq "without the token: no controls" "$(jq -r .controls_without_token "$P")" false
eq "with the token: the controls" "$(jq -r .controls_with_token "$P")" true
eq "with the token: the address keeps neither token nor secret" "$(jq -r .url_after "$P")" "http://127.0.0.1:$(cat "$TMP/wport")/"
eq "Pause: the console took it" "$(jq -r .paused_msg "$P")" paused
eq "Pause: the page says the run is paused" "$(jq -r .badge_paused "$P")" true
check "Resume twice: the page says why the console refused" sh -c "jq -r .resume_again_msg '$P' | grep -q 'not paused'"
wait_exit "$RUN_PID" 20
eq "the run completes (exit 0)" "$WAIT_RC" 0
eq "paused from the page: no request meanwhile" "$(hits "$(plus "$(jq -r .pause_at "$P")" 0.4)" "$(jq -r .resume_at "$P")")" 0
between "the run's duration leaves the pause out (s)" "$(sj "$TMP/s.json" '.run.duration_s')" 4.8 5.8
check "the token is in no output" sh -c "! grep -qF '$(cat "$TMP/token")' '$TMP/run.out' '$TMP/run.err' '$TMP/s.json'"
check "no sanitizer report" no_sanitizer_report "$TMP/run.err"
