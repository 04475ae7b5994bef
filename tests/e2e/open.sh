# The open model (--rate, --max-vus, --max-lag), judged by a real nginx's
# access log: each arrival is one request to /hit naming its VU (X-VU), each
# VU created one request to /init. 10 s at 200/s (2,000 arrivals) rather
# than 20 s, to keep the test within its time budget.
# e2e: alone (it judges time to the millisecond; tests/run.sh runs it by itself)
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
D=tests/e2e/scripts
start_nginx 4096
hits() { grep -c ' /hit$' "$LOG"; }
# freeze AFTER FOR: stops nginx (master and worker) AFTER seconds from now,
# for FOR seconds, in the background.
freeze() {
  local pids="$NGINX_PID $(pgrep -P "$NGINX_PID" | tr '\n' ' ')"
  (sleep "$1"; kill -STOP $pids; sleep "$2"; kill -CONT $pids) &
  FREEZE_PID=$!
}
# The hits of each second of the log, from the first.
per_second() { awk '$4 == "/hit" { if (t0 == "") t0 = $1; k = int($1 - t0); n[k]++; if (k > m) m = k }
                    END { for (k = 0; k <= m; k++) printf "%d ", n[k]; print "" }' "$LOG"; }
arr() { sj "$1" ".scenarios[0].arrivals.$2"; }
# The two latencies of the first step, in ms: lat FILE p99_ms (response
# time, from the intended start), svc FILE p99_ms (service time)
lat() { jq -r ".tests[0].$2" "$1"; }
svc() { jq -r ".tests[0].service.$2" "$1"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# ---- 200/s for 10 s on one machine, two workers: 2,000 runs, evenly
new_log
"$QUERN" run $D/open_vu.lua --rate 200/s --duration 10s --workers 2 -p base_url="$NGBASE" --db none -q \
  --summary-json "$TMP/one.json" >"$TMP/one.out" 2>"$TMP/one.err"
eq "200/s: exit 0" "$?" 0
echo "# 200/s: hits per second at nginx: $(per_second)"
between "200/s: nginx served 2,000 runs (± 1 %)" "$(hits)" 1980 2020
eq "200/s: the summary's started is nginx's count" "$(arr "$TMP/one.json" started)" "$(hits)"
eq "200/s: the console's count is nginx's" "$(sj "$TMP/one.json" '.tests[0].count')" "$(hits)"
eq "200/s: 2,000 scheduled" "$(arr "$TMP/one.json" scheduled)" 2000
eq "200/s: none late" "$(arr "$TMP/one.json" late)" 0
eq "200/s: none dropped" "$(arr "$TMP/one.json" dropped)" 0
lo=$(per_second | awk '{ m = 1e9; for (i = 2; i < NF; i++) if ($i < m) m = $i; print m }')
hi=$(per_second | awk '{ m = 0; for (i = 2; i < NF; i++) if ($i > m) m = $i; print m }')
between "200/s: each full second of the log has about 200 (fewest)" "$lo" 190 210
between "200/s: each full second of the log has about 200 (most)" "$hi" 190 210
between "200/s: few VUs for a fast server (--vus 1 a worker, then as needed)" \
  "$(grep -c ' /init$' "$LOG")" 2 20
eq "200/s: no error" "$(awk '$2 != 200' "$LOG" | wc -l)" 0
echo "# 200/s: p99 $(lat "$TMP/one.json" p99_ms) ms response, $(svc "$TMP/one.json" p99_ms) ms service"
# Even an arrival that finds a VU idle starts a little after its time (the
# loop's own lag): the response time counts it.
check "200/s: response p99 >= service p99" ge "$(lat "$TMP/one.json" p99_ms)" "$(svc "$TMP/one.json" p99_ms)"
echo "# 200/s: start lag p50 $(arr "$TMP/one.json" start_lag.p50_ms) ms, p99 $(arr "$TMP/one.json" start_lag.p99_ms) ms"
check "200/s: the start lags of the 2,000 runs are in the summary (p99 under 1 s)" \
  lt "$(arr "$TMP/one.json" start_lag.p99_ms)" 1000

# ---- nginx frozen 1.5 s with VUs to spare (--vus 200 made at the start, 150
# arrivals in the freeze): each request leaves on time and waits in nginx,
# so the service time shows the freeze as much as the response time does
new_log
freeze 1 1.5
"$QUERN" run $D/open_vu.lua --rate 100/s --duration 3s --vus 200 -p base_url="$NGBASE" --db none -q \
  --summary-json "$TMP/spare.json" >"$TMP/spare.out" 2>"$TMP/spare.err"
eq "freeze, VUs to spare: exit 0" "$?" 0
wait "$FREEZE_PID"
eq "freeze, VUs to spare: nginx served 300 runs" "$(hits)" 300
eq "freeze, VUs to spare: none late" "$(arr "$TMP/spare.json" late)" 0
echo "# freeze, VUs to spare: p99 $(lat "$TMP/spare.json" p99_ms) ms response, $(svc "$TMP/spare.json" p99_ms) ms service"
check "freeze, VUs to spare: response p99 >= 1 s" ge "$(lat "$TMP/spare.json" p99_ms)" 1000
check "freeze, VUs to spare: service p99 >= 1 s too (sent on time, held by nginx)" \
  ge "$(svc "$TMP/spare.json" p99_ms)" 1000

# ---- --rate-stages 3s:100/s,3s:100/s: from 0/s up to 100/s in 3 s (150
# arrivals, L(t) = 100 t^2 / 6: 37.5 in the first 1.5 s), then 300 in 3 s
new_log
"$QUERN" run $D/open_vu.lua --rate-stages 3s:100/s,3s:100/s -p base_url="$NGBASE" --db none -q \
  --summary-json "$TMP/ramp.json" >"$TMP/ramp.out" 2>"$TMP/ramp.err"
eq "rate stages: exit 0" "$?" 0
eq "rate stages: nginx served 450 runs" "$(hits)" 450
eq "rate stages: 450 scheduled" "$(arr "$TMP/ramp.json" scheduled)" 450
read -r r1 r2 r3 < <(awk '$4 == "/hit" { if (t0 == "") t0 = $1; t = $1 - t0; if (t < 1.5) a++; else if (t < 3) b++; else c++ }
                          END { print a + 0, b + 0, c + 0 }' "$LOG")
between "rate stages: half-way up (0-1.5 s): 38 arrivals" "$r1" 35 41
between "rate stages: the rest of the climb (1.5-3 s): 112" "$r2" 108 116
between "rate stages: the hold (3-6 s): 300" "$r3" 296 304

# ---- a mixed run: OPEN's own rate (100/s for 3 s) beside CLOSED, 2 VUs paced
# at 100 ms (--vus): ids 1-2 are CLOSED's, the pool's come after them
new_log
"$QUERN" run $D/open_vu.lua -p own_rate=100/s -p closed=1 --vus 2 --duration 3s --workers 2 \
  -p base_url="$NGBASE" --db none -q --summary-json "$TMP/mixed.json" >"$TMP/mixed.out" 2>"$TMP/mixed.err"
eq "mixed: exit 0" "$?" 0
eq "mixed: nginx served OPEN's 300 arrivals" "$(hits)" 300
between "mixed: CLOSED's 2 VUs paced at 100 ms for 3 s (about 60)" "$(grep -c ' /closed$' "$LOG")" 50 62
eq "mixed: CLOSED is played by VUs 1 and 2" "$(awk '$4 == "/closed" { print $3 }' "$LOG" | sort -u | tr '\n' ' ')" "1 2 "
eq "mixed: OPEN's pool has ids after them" "$(awk '$4 == "/hit" && $3 <= 2' "$LOG" | wc -l)" 0
eq "mixed: the summary counts OPEN's arrivals" "$(sj "$TMP/mixed.json" '.scenarios[0].arrivals.scheduled')" 300
eq "mixed: CLOSED has no arrivals" "$(sj "$TMP/mixed.json" '.scenarios[1].arrivals')" null

# ---- two scenarios share --rate by weight (3:1): 150/s and 50/s for 2 s,
# each its own stream and its own share of the pool (--max-vus 40: 30 and 10)
new_log
"$QUERN" run $D/open_vu.lua --rate 200/s --duration 2s --max-vus 40 --workers 2 -p open_weight=3 \
  -p second_weight=1 -p base_url="$NGBASE" --db none -q --summary-json "$TMP/wt.json" \
  >"$TMP/wt.out" 2>"$TMP/wt.err"
eq "weights 3:1: exit 0" "$?" 0
eq "weights 3:1: nginx served 300 runs of OPEN" "$(hits)" 300
eq "weights 3:1: nginx served 100 runs of SECOND" "$(grep -c ' /second$' "$LOG")" 100
eq "weights 3:1: OPEN's arrivals" "$(sj "$TMP/wt.json" '.scenarios[0].arrivals.scheduled')" 300
eq "weights 3:1: SECOND's arrivals" "$(sj "$TMP/wt.json" '.scenarios[1].arrivals.scheduled')" 100
check "weights 3:1: interleaved (SECOND's first hit within OPEN's first 100 ms)" \
  awk '$4 == "/hit" && o == "" { o = $1 } $4 == "/second" && s == "" { s = $1 } END { exit !(s - o < 0.1) }' "$LOG"
check "weights 3:1: the pool stays within --max-vus 40" test "$(grep -c ' /init$' "$LOG")" -le 40

# ---- a scenario's own rate: quern.scenario("OPEN", { rate = "100/s" }) with
# --duration, and { rate_stages = { "2s:100/s", "2s:100/s" } } (100 + 200)
new_log
"$QUERN" run $D/open_vu.lua -p own_rate=100/s --duration 3s -p base_url="$NGBASE" --db none -q \
  --summary-json "$TMP/srate.json" >"$TMP/srate.out" 2>"$TMP/srate.err"
eq "scenario rate: exit 0" "$?" 0
eq "scenario rate: nginx served 300 runs" "$(hits)" 300
eq "scenario rate: 300 scheduled" "$(arr "$TMP/srate.json" scheduled)" 300
new_log
"$QUERN" run $D/open_vu.lua -p own_rate_stages=2s:100/s,2s:100/s -p base_url="$NGBASE" --db none -q \
  --summary-json "$TMP/sstages.json" >"$TMP/sstages.out" 2>"$TMP/sstages.err"
eq "scenario rate_stages: exit 0" "$?" 0
eq "scenario rate_stages: nginx served 300 runs" "$(hits)" 300
eq "scenario rate_stages: 300 started" "$(arr "$TMP/sstages.json" started)" 300

# ---- nginx frozen for 2 s in the middle, a pool of 20: the arrivals wait
# (late), none is dropped within --max-lag 10s, all 2,000 are served
new_log
freeze 4 2
"$QUERN" run $D/open_vu.lua --rate 200/s --duration 10s --max-vus 20 --max-lag 10s --workers 2 \
  -p base_url="$NGBASE" --db none -q --summary-json "$TMP/late.json" >"$TMP/late.out" 2>"$TMP/late.err"
eq "freeze: exit 0" "$?" 0
wait "$FREEZE_PID"
echo "# freeze: hits per second at nginx: $(per_second)"
between "freeze: nginx served 2,000 runs (± 1 %)" "$(hits)" 1980 2020
eq "freeze: the summary's started is nginx's count" "$(arr "$TMP/late.json" started)" "$(hits)"
between "freeze: at least 300 arrivals late" "$(arr "$TMP/late.json" late)" 300 2000
eq "freeze: none dropped" "$(arr "$TMP/late.json" dropped)" 0
eq "freeze: the pool stays within --max-vus 20" "$(grep -c ' /init$' "$LOG")" 20
check "freeze: the summary table shows the service times too" \
  grep -q "^Service time, from each request's actual start" "$TMP/late.out"
check "200/s: on time, the table shows response times only" \
  sh -c "grep -q '^Latencies: response time' '$TMP/one.out' && ! grep -q '^Service time, from' '$TMP/one.out'"
check "freeze: the summary says how many were late" \
  grep -q "arrivals 2000 scheduled, [0-9]* started, [0-9]* late" "$TMP/late.out"
echo "# freeze: p95 $(lat "$TMP/late.json" p95_ms) / $(svc "$TMP/late.json" p95_ms) ms, p99 $(lat "$TMP/late.json" p99_ms) / $(svc "$TMP/late.json" p99_ms) ms (response / service)"
# the start lag is quern's own delay: the wait for a VU of the full pool
# (the freeze, through the pool) is not in it, the response times hold it
check "freeze: the start lag is quern's own, the late arrivals' wait not in it (max < 500 ms)" \
  lt "$(arr "$TMP/late.json" start_lag.max_ms)" 500
check "freeze: response p99 >= 1 s (from each arrival's scheduled time)" \
  ge "$(lat "$TMP/late.json" p99_ms)" 1000
check "freeze: response p95 >= 1 s (a fifth of the arrivals waited)" \
  ge "$(lat "$TMP/late.json" p95_ms)" 1000
check "freeze: service p95 < 500 ms (only the 20 requests in flight saw nginx frozen)" \
  lt "$(svc "$TMP/late.json" p95_ms)" 500

# ---- the same freeze with --max-lag 500ms: some dropped, counted, and a
# threshold on them fails the run
new_log
freeze 2 2
"$QUERN" run $D/open_vu.lua --rate 200/s --duration 6s --max-vus 20 --max-lag 500ms --workers 2 \
  --threshold 'arrivals.dropped<=0' --threshold 'service.p95<1s' -p base_url="$NGBASE" --db "$TMP/drop.db" -q \
  --summary-json "$TMP/drop.json" >"$TMP/drop.out" 2>"$TMP/drop.err"
eq "--max-lag 500ms: exit 1 (arrivals.dropped<=0 failed)" "$?" 1
wait "$FREEZE_PID"
d=$(arr "$TMP/drop.json" dropped)
between "--max-lag 500ms: some dropped" "$d" 100 1200
eq "--max-lag 500ms: started + dropped = scheduled" \
  "$(( $(arr "$TMP/drop.json" started) + d ))" "$(arr "$TMP/drop.json" scheduled)"
eq "--max-lag 500ms: the summary's started is nginx's count" "$(arr "$TMP/drop.json" started)" "$(hits)"
check "--max-lag 500ms: the threshold names the count" \
  grep -q "FAIL  arrivals.dropped<=0 .*arrivals.dropped of every scenario = $d, limit <= 0" "$TMP/drop.out"
eq "--max-lag 500ms: the database keeps the arrivals" \
  "$(sqlite3 "$TMP/drop.db" 'SELECT arr_scheduled, arr_started, arr_late, arr_dropped FROM scenario_totals')" \
  "$(jq -r '.scenarios[0].arrivals | "\(.scheduled)|\(.started)|\(.late)|\(.dropped)"' "$TMP/drop.json")"
"$QUERN" report --db "$TMP/drop.db" -o "$TMP/drop.html" >/dev/null 2>&1
check "--max-lag 500ms: service.p95<1s passes (judged on the service times)" \
  grep -q "PASS  service.p95<1s .*service.p95 of all steps = " "$TMP/drop.out"
between "--max-lag 500ms: the database keeps service times where they differ" \
  "$(sqlite3 "$TMP/drop.db" 'SELECT count(*) FROM step_intervals WHERE service_histogram IS NOT NULL')" 1 100
check "--max-lag 500ms: the report charts the service times" grep -q "Service time percentiles" "$TMP/drop.html"
check "--max-lag 500ms: the report shows the dropped arrivals" \
  grep -q "<th class=\"n\">Dropped</th>.*<td class=\"n\">$d</td><td class=\"n\">[0-9,]*</td></tr>" \
  <(tr -d '\n' <"$TMP/drop.html")

# ---- a closed run paced at 100 ms, 5 VUs, nginx frozen 1.5 s: each VU's
# run after the freeze starts late, and its response time counts from its
# pacing slot: the sum of response times passes that of service times by
# about 5 x 1.4 s. The slots the freeze cost are load asked and not sent: the
# verdict is inconclusive (exit 1), and says so.
new_log
freeze 1 1.5
"$QUERN" run $D/pacing.lua --vus 5 --duration 4s -p pacing=100ms -p path=/hit -p base_url="$NGBASE" \
  --db none -q --summary-json "$TMP/paced.json" >"$TMP/paced.out" 2>"$TMP/paced.err"
eq "paced freeze: exit 1 (load not sent)" "$?" 1
wait "$FREEZE_PID"
check "paced freeze: the verdict names the missed pacing slots" \
  grep -q "^Verdict: inconclusive: .* of the load asked was not sent (.* runs missed their pacing slot" "$TMP/paced.out"
eq "paced freeze: the console's count is nginx's" "$(sj "$TMP/paced.json" '.tests[0].count')" "$(hits)"
check "paced freeze: each VU missed its pacing" ge "$(sj "$TMP/paced.json" '.scenarios[0].missed_pacing')" 5
lag_s=$(jq -r '.tests[0] | (.mean_ms - .service.mean_ms) * .count / 1000' "$TMP/paced.json")
echo "# paced freeze: response times exceed service times by $lag_s s in all"
check "paced freeze: response times count from the slots (5 x 0.9 to 5 x 2 s more)" \
  awk -v l="$lag_s" 'BEGIN { exit !(l >= 4.5 && l <= 10) }'
check "paced freeze: response p99 >= 1 s" ge "$(lat "$TMP/paced.json" p99_ms)" 1000

# ---- the same open run on two agents (a worker each): one 200/s stream
new_log
start_console d $D/open_vu.lua --rate 200/s --duration 5s --agents 2 --wait 20s -p base_url="$NGBASE" \
  --db none -q --summary-json "$TMP/dist.json"
start_agent o1 1
start_agent o2 1
wait_exit $CONSOLE_PID 40
eq "2 agents: console exits 0" "$WAIT_RC" 0
echo "# 2 agents: hits per second at nginx: $(per_second)"
between "2 agents: nginx served 1,000 runs (± 1 %)" "$(hits)" 990 1010
eq "2 agents: the summary's started is nginx's count" "$(arr "$TMP/dist.json" started)" "$(hits)"
eq "2 agents: 1,000 scheduled" "$(arr "$TMP/dist.json" scheduled)" 1000
# Interleaved, not two bursts: the gap between two hits is about 5 ms (less
# by how far apart the two agents started), not the 0 ms of two streams of
# the same times, which would make every other gap (500) nearly 0.
gaps=$(awk '$4 == "/hit" { if (p != "") { g = ($1 - p) * 1000; if (g < 1) s++ } p = $1 }
            END { print s + 0 }' "$LOG")
between "2 agents: the two streams interleave (gaps under 1 ms)" "$gaps" 0 200
no_sanitizer_report "$TMP"/agent-o*.log "$TMP/d.err" && ok "2 agents: no sanitizer report" ||
  notok "2 agents: no sanitizer report"

# ---- bad input: one line, exit 2, nothing sent
new_log
bad() { "$QUERN" run $D/open_vu.lua "$@" -p base_url="$NGBASE" --db none -q >"$TMP/bad.out" 2>"$TMP/bad.err"; echo $?; }
first() { head -n 1 "$TMP/bad.err"; }
eq "--rate 0/s: exit 2" "$(bad --rate 0/s --duration 5s)" 2
check "--rate 0/s: says the rate must be above 0" grep -q -- '--rate: "0/s": a rate is above 0/s' <(first)
eq "--rate 0/s: one line" "$(wc -l <"$TMP/bad.err")" 1
eq "--rate 5/x: exit 2" "$(bad --rate 5/x --duration 5s)" 2
check "--rate 5/x: names the unit" grep -q -- "--rate: \"5/x\": the unit after '/' is s, m or h" <(first)
eq "--rate without --duration: exit 2" "$(bad --rate 5/s)" 2
check "--rate without --duration: says so" grep -q -- '--rate needs --duration' <(first)
eq "--rate with --stages: exit 2" "$(bad --rate 5/s --stages 1s:2)" 2
check "--rate with --stages: names both" grep -q -- '--rate and --stages cannot be used together' <(first)
eq "--rate-stages with --duration: exit 2" "$(bad --rate-stages 1s:5/s --duration 2s)" 2
eq "--vus above --max-vus: exit 2" "$(bad --rate 5/s --duration 1s --vus 30 --max-vus 20)" 2
eq "scenario rate without --duration: exit 2" "$(bad -p own_rate=100/s)" 2
check "scenario rate without --duration: says so" grep -q -- 'has a rate: give --duration' <(first)
eq "scenario rate with --rate: exit 2" "$(bad -p own_rate=100/s --duration 2s --rate 5/s)" 2
eq "scenario rate = \"5/x\": exit 2" "$(bad -p own_rate=5/x --duration 1s)" 2
check "scenario rate = \"5/x\": file:line and the unit" \
  grep -q "^$D/open_vu.lua:[0-9]*: scenario OPEN: rate: \"5/x\": the unit" <(first)
caught_up
eq "bad input: nothing sent" "$(grep -vc ' /mark$' "$LOG")" 0
