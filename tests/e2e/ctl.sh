# Steering a running load (quern run --control, quern ctl), judged by a real
# nginx's access log: each request names its VU (X-VU) and nginx stamps it
# ($msec), so the log tells how many VUs hit it after `vus 10`, that nothing
# hit it while paused, and the arrivals a second before and after `rate`.
# e2e: alone (it judges time to the tenth of a second; tests/run.sh runs it by itself)
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
D=tests/e2e/scripts
start_nginx 1024
now() { date +%s.%N; }
# distinct FROM TO: VUs that hit /hit between two wall-clock times
distinct() { awk -v a="$1" -v b="$2" '$4 == "/hit" && $1 >= a && $1 < b { s[$3] = 1 } END { print length(s) }' "$LOG"; }
hits() { awk -v a="$1" -v b="$2" '$4 == "/hit" && $1 >= a && $1 < b' "$LOG" | wc -l; }
plus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }
printf 'a-wrong-token-for-the-control-test-%s\n' "$$" >"$TMP/wrong"
chmod 600 "$TMP/wrong"
# start_run PREFIX ARGS...: quern run in the background with --control on a free port.
start_run() {
  local pre=$1; shift
  "$QUERN" run $D/stages_vu.lua -p base_url="$NGBASE" --workers 2 -q --token-file "$TMP/token" \
    --control 127.0.0.1:0 --control-port-file "$TMP/$pre.cport" --db "$TMP/$pre.db" \
    --summary-json "$TMP/$pre.json" "$@" >"$TMP/$pre.out" 2>"$TMP/$pre.err" &
  RUN_PID=$!
  PIDS+=("$RUN_PID")
  wait_file "$TMP/$pre.cport"
  CTL=127.0.0.1:$(cat "$TMP/$pre.cport")
}
ctl() { "$QUERN" ctl --console "$CTL" --token-file "$TMP/token" "$@" >>"$TMP/ctl.out" 2>>"$TMP/ctl.err"; }

# ---- the closed model: --vus 5, then vus 10, then a 2 s pause
new_log
start_run closed --vus 5 --duration 6s --web 127.0.0.1:0 --web-port-file "$TMP/closed.wport" \
  --metrics 127.0.0.1:0 --metrics-port-file "$TMP/closed.mport" --metrics-linger 0
wait_for "$LOG" ' /hit$' 10
# the live page: its controls' secret only for a page opened with the token
WEB=http://127.0.0.1:$(cat "$TMP/closed.wport")
eq "the page with a wrong token: 401" "$(curl -s -o /dev/null -w '%{http_code}' "$WEB/?token=x$(cat "$TMP/token")")" 401
KEY=$(curl -s -o /dev/null -w '%{redirect_url}' "$WEB/?token=$(cat "$TMP/token")" | sed -n 's|.*/#k=\([0-9a-f]\{64\}\)$|\1|p')
eq "the page with the token: its redirect gives the controls a secret (not the token)" "${#KEY}" 64
check "the page has the controls (hidden until opened with the token)" sh -c "curl -s '$WEB/' | grep -q 'id=\"controls\"'"
eq "a command from the page without the secret: 401" "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$WEB/control/stop")" 401
# another secret: the last digit changed (0 to 1, else to 0)
case $KEY in *0) OTHER=${KEY%?}1 ;; *) OTHER=${KEY%?}0 ;; esac
eq "a command from the page with another secret: 401" \
  "$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "X-Quern-Control: $OTHER" "$WEB/control/stop")" 401
eq "a command from the page by GET: 405" "$(curl -s -o /dev/null -w '%{http_code}' -H "X-Quern-Control: $KEY" "$WEB/control/stop")" 405
# vus 10 about 2 s into the 6 s run: the check of its last hit counts from it
sleep 1
"$QUERN" ctl --console "$CTL" --token-file "$TMP/wrong" vus 10 2>"$TMP/wrong.err"
eq "a wrong token: exit 2" "$?" 2
check "a wrong token: the console said 401" grep -q '401' "$TMP/wrong.err"
"$QUERN" ctl --console "$CTL" vus 10 2>"$TMP/none.err"
eq "no token: exit 2" "$?" 2
"$QUERN" ctl --console "$CTL" --token-file "$TMP/token" vus zero 2>"$TMP/bad.err"
eq "vus zero: exit 2" "$?" 2
check "vus zero: the argument is named" grep -q 'vus N' "$TMP/bad.err"
ctl rate 100/s
eq "rate in the closed model: refused (exit 1)" "$?" 1
sleep 0.5 # for a change the wrong commands made by mistake to show before vus 10
T_VUS=$(now)
ctl vus 10
eq "vus 10: exit 0" "$?" 0
check "vus 10: quern ctl says what it did" grep -qx '10 VUs from now on' "$TMP/ctl.out"
# the live page and the Prometheus text say the VUs asked for now, not --vus
state() { curl -s -H "Authorization: Bearer $(cat "$TMP/token")" "$WEB/state.json"; }
prom() { curl -s -H "Authorization: Bearer $(cat "$TMP/token")" "http://127.0.0.1:$(cat "$TMP/closed.mport")/metrics" |
  awk -v m="$1" '$1 ~ "^" m "[{]" { print $2 }'; }
# the 10 VUs hit since, and both say so (they render once a second)
ten() {
  [ "$(distinct "$(plus "$T_VUS" 0.4)" 9999999999)" -ge 10 ] && [ "$(state | jq -r .vus_max)" = 10 ] &&
    [ "$(prom quern_vus_max)" = 10 ]
}
await "10 VUs hitting after vus 10" 20 ten
eq "after vus 10: the live page says of 10 VUs" "$(state | jq -r .vus_max)" 10
eq "after vus 10: quern_vus_max is 10" "$(prom quern_vus_max)" 10
eq "running: quern_paused is 0" "$(prom quern_paused)" 0
T_PAUSE0=$(now)
ctl pause
eq "pause: exit 0" "$?" 0
T_PAUSE=$(now) # the pause is in effect once quern ctl returns (a loaded machine starts it slowly)
ctl pause
eq "pause again: refused (exit 1)" "$?" 1
sleep 1.4 # a 2 s pause, under test
eq "paused: quern_paused is 1" "$(prom quern_paused)" 1
sleep 0.6
T_RESUME=$(now)
eq "resume from the live page's controls: 200" \
  "$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "X-Quern-Control: $KEY" "$WEB/control/resume")" 200
T_RESUMED=$(now)
PAUSE_MAX=$(awk -v a="$T_PAUSE0" -v b="$T_RESUMED" 'BEGIN { printf "%.3f", b - a + 0.3 }')
wait_exit "$RUN_PID" 20
eq "closed: the run completes (exit 0)" "$WAIT_RC" 0
eq "before vus 10 (the wrong token changed nothing): 5 VUs" "$(distinct "$(plus "$T_VUS" -1.2)" "$T_VUS")" 5
eq "after vus 10: 10 VUs" "$(distinct "$(plus "$T_VUS" 0.4)" "$T_PAUSE")" 10
eq "after vus 10: VUs 1 to 10" "$(awk -v a="$(plus "$T_VUS" 0.4)" '$4 == "/hit" && $1 >= a { s[$3] = 1 }
    END { n = 0; for (k = 1; k <= 10; k++) n += (k in s); print n }' "$LOG")" 10
eq "paused: no request in the 2 s" "$(hits "$(plus "$T_PAUSE" 0.3)" "$T_RESUME")" 0
eq "after the resume: 10 VUs again" "$(distinct "$(plus "$T_RESUME" 0.3)" "$(plus "$T_RESUME" 1.3)")" 10
between "the run's duration leaves the pause out (s)" "$(sj "$TMP/closed.json" '.run.duration_s')" 5.8 6.8
between "the summary says how long it was paused (s)" "$(sj "$TMP/closed.json" '.run.paused_s')" 1.9 "$PAUSE_MAX"
between "yet the load went on 2 s longer: its last hit (s after vus 10)" \
  "$(awk '$4 == "/hit" { t = $1 } END { print t }' "$LOG" | awk -v a="$T_VUS" '{ printf "%.1f", $1 - a }')" 6.0 7.2
eq "the console's count is nginx's" "$(sj "$TMP/closed.json" '.tests[0].count')" "$(grep -c ' /hit$' "$LOG")"
# the VUs after steering, not --vus, nor the ceiling of slots given
eq "the summary JSON says the VUs steered to" "$(sj "$TMP/closed.json" '.run.vus_steered')" 10
eq "the summary's peak is the VUs that ran" "$(sj "$TMP/closed.json" '.run.vus_peak')" 10
check "the summary says 5 at the start, then 10" \
  grep -q '^Run completed: .*, VUs: 5 at the start, steered to 10 (peak 10)' "$TMP/closed.out"
eq "the database's agent: 10 VUs ran, of the ceiling's slots" \
  "$(sqlite3 "$TMP/closed.db" 'SELECT vus_peak, vus > 10 FROM agents')" "10|1"
# a run's pacing slot moves with the pause: no response time counts it
between "closed: the slowest response time leaves the pause out (ms)" "$(sj "$TMP/closed.json" '.tests[0].max_ms')" 0 800
eq "the database keeps the change of VUs" "$(sqlite3 "$TMP/closed.db" "SELECT value FROM steers WHERE kind = 'vus'")" 10.0
between "the database keeps the pause (s)" \
  "$(sqlite3 "$TMP/closed.db" "SELECT (end_us - at_us) / 1e6 FROM steers WHERE kind = 'pause'")" 1.9 "$PAUSE_MAX"
"$QUERN" report --db "$TMP/closed.db" -o "$TMP/closed.html" >/dev/null 2>&1
check "the report lists the change of VUs" grep -q '10 VUs from then on' "$TMP/closed.html"
check "the report lists the pause" grep -q '<tr class="steer-pause">' "$TMP/closed.html"
check "the report's injectors: 10 VUs of the ceiling's slots" \
  grep -Eq '<td class="n">10 <span class="same">of [0-9]+</span></td>' "$TMP/closed.html"
check "the report's charts shade the seconds paused" grep -q '<title>paused (quern ctl) [0-9]' "$TMP/closed.html"
between "the seconds say how long they were paused (s)" \
  "$(sqlite3 "$TMP/closed.db" 'SELECT sum(paused_us) / 1e6 FROM intervals')" 1.9 "$PAUSE_MAX"
# the summary's pause is the workers' own (their seconds), not the console's clock of the commands
between "the summary's pause is the seconds' pause (s)" \
  "$(awk -v a="$(sj "$TMP/closed.json" '.run.paused_s')" -v b="$(sqlite3 "$TMP/closed.db" 'SELECT sum(paused_us) / 1e6 FROM intervals')" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.3f", d }')" 0 0.01

# ---- the open model: 100/s, a 1 s pause, then rate 200/s, then stop
new_log
start_run open --rate 100/s --duration 8s --max-vus 50
wait_for "$LOG" ' /hit$' 10
sleep 0.5 # half a second of arrivals: the pause stops a schedule under way
ctl pause
T_OPAUSE=$(now)
sleep 1 # a 1 s pause, under test
T_ORESUME=$(now)
ctl resume
sleep 2 # the arrivals before rate 200/s are counted over this window
ctl vus 5
eq "vus in the open model: refused (exit 1)" "$?" 1
T_RATE=$(now)
ctl rate 200/s
eq "rate 200/s: exit 0" "$?" 0
sleep 2.5 # and those after it over this one
T_STOP=$(now)
ctl stop
eq "stop: exit 0" "$?" 0
wait_exit "$RUN_PID" 20
eq "stop: the run exits 1" "$WAIT_RC" 1
eq "stop: the verdict is stopped" "$(sj "$TMP/open.json" '.run.status')" stopped
check "stop: the verdict says quern ctl stopped it" grep -q 'quern ctl stop' "$TMP/open.out" "$TMP/open.err"
before=$(hits "$(plus "$T_ORESUME" 0.5)" "$T_RATE")
after=$(hits "$(plus "$T_RATE" 1)" "$T_STOP")
# a second each: the window before lasts from 0.5 s after the resume to the
# change, the one after from 1 s after it (the command on its way) to the stop
wb=$(awk -v a="$T_ORESUME" -v b="$T_RATE" 'BEGIN { printf "%.3f", b - a - 0.5 }')
wa=$(awk -v a="$T_RATE" -v b="$T_STOP" 'BEGIN { printf "%.3f", b - a - 1 }')
echo "# arrivals in the $wb s before rate 200/s: $before, in the $wa s after: $after"
between "rate 200/s: twice the arrivals a second (ratio)" \
  "$(awk -v a="$before" -v b="$after" -v w="$wb" -v x="$wa" 'BEGIN { printf "%.2f", (b / x) / (a / w) }')" 1.8 2.2
eq "open: paused, no arrival" "$(hits "$(plus "$T_OPAUSE" 0.2)" "$T_ORESUME")" 0
# the arrivals' schedule moves with the pause: none is late by it
between "open: the slowest response time leaves the pause out (ms)" "$(sj "$TMP/open.json" '.tests[0].max_ms')" 0 500
eq "open: no arrival dropped" "$(sj "$TMP/open.json" '.scenarios[0].arrivals.dropped')" 0
eq "stop: no request after it (0.5 s on)" "$(hits "$(plus "$T_STOP" 0.5)" 9999999999)" 0
eq "the database keeps the change of rate" "$(sqlite3 "$TMP/open.db" "SELECT value FROM steers WHERE kind = 'rate'")" 200.0
# the run is over: its console is gone
"$QUERN" ctl --console "$CTL" --token-file "$TMP/token" pause 2>"$TMP/gone.err"
eq "a console that is gone: exit 2" "$?" 2
check "a console that is gone: --console is named" grep -q 'cannot reach the console at --console' "$TMP/gone.err"
no_sanitizer_report "$TMP"/*.err && ok "no sanitizer report" || notok "no sanitizer report"
