# The capacity search (--capacity), judged against a real nginx that limits
# /hit to 125 requests a second and /slow to 75 (limit_req, 503 past it; a
# burst of 10 absorbs the timers' jitter): the staircase 50/s, 100/s,
# 150/s... names 100/s for /hit and 50/s for /slow, stops right after the
# failing step, and puts every step's figures in the summary. Steps of 2 s,
# the first second of each settling.
# e2e: heavy (it drives a CPU-bound load; tests/run.sh gives it two slots)
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
D=tests/e2e/scripts
start_nginx 1024 'limit_req_zone $binary_remote_addr zone=hit:1m rate=125r/s; limit_req_zone $binary_remote_addr zone=slow:1m rate=75r/s; limit_req_status 503;' \
  'location /hit { limit_req zone=hit burst=10 nodelay; empty_gif; } location /slow { limit_req zone=slow burst=10 nodelay; empty_gif; }'
DB=$TMP/cap.db
cap() { sj "$1" ".capacity.$2"; }
step() { sj "$1" ".capacity.steps[$2].$3"; }

# ---- the open model: 50/s, 100/s, 150/s (fails), up to 250/s
new_log
"$QUERN" run $D/capacity.lua --capacity 50/s:50/s:2s:250/s --threshold 'errors<1%' --workers 2 \
  -p base_url="$NGBASE" --db "$DB" --name cap -q --summary-json "$TMP/a.json" >"$TMP/a.out" 2>"$TMP/a.err"
eq "open: a capacity was found: exit 0" "$?" 0
sed -n '/^Capacity search/,/^Capacity:/p' "$TMP/a.out" | sed 's/^/# /'
eq "open: the capacity is 100/s, the step just under the limit" "$(cap "$TMP/a.json" found) $(cap "$TMP/a.json" value) $(cap "$TMP/a.json" unit)" "true 100 /s"
eq "open: stopped right after the failing step: 3 steps judged" "$(sj "$TMP/a.json" '.capacity.steps | length')" 3
eq "open: steps 1 and 2 passed, 3 failed" "$(sj "$TMP/a.json" '[.capacity.steps[].passed] | map(tostring) | join(",")')" "true,true,false"
check "open: the failing step names its threshold" grep -q '^errors<1%: ' <<<"$(step "$TMP/a.json" 2 failed)"
between "open: step 3's errors are nginx's 503s past 125/s (about 17 %)" "$(step "$TMP/a.json" 2 errors_pct)" 8 30
between "open: step 2 ran at 100/s" "$(step "$TMP/a.json" 1 tps)" 85 115
check "open: every step has its percentiles" jq -e '[.capacity.steps[] | .p50_ms > 0 and .p95_ms >= .p50_ms and .p99_ms >= .p95_ms] | all' "$TMP/a.json"
# the run ended within a few seconds of the failing step's end (6 s), not at MAX's (10 s)
between "open: the run stopped after step 3, not at MAX" "$(sj "$TMP/a.json" .run.duration_s)" 6 9.9
eq "open: 503s only past the limit (none in the first 4 s)" \
  "$(awk 'NR == 1 { t0 = $1 } $2 == 503 && $1 - t0 < 3.9' "$LOG" | wc -l)" 0
eq "open: the run passed, its thresholds judged on the capacity's step" \
  "$(sj "$TMP/a.json" '[.verdict.passed, .thresholds[0].passed, (.thresholds | length)] | map(tostring) | join(",")')" "true,true,1"
eq "open: the database's threshold verdict is the capacity step's" "$(sqlite3 "$DB" "SELECT passed FROM thresholds")" 1
eq "open: the server limited it (nginx's 503s, every arrival sent)" \
  "$(cap "$TMP/a.json" limited_by) $(sj "$TMP/a.json" '[.capacity.steps[].injector_saturated] | any')" "server false"
check "open: the capacity line is printed" grep -q '^Capacity: capacity 100/s (the step at 150/s failed' "$TMP/a.out"
eq "open: the database has the capacity" "$(sqlite3 "$DB" 'SELECT found, value, unit FROM capacity')" "1|100.0|/s"
eq "open: the database has each step's window" \
  "$(sqlite3 "$DB" 'SELECT group_concat(t0_us || "-" || t1_us || ":" || passed, " ") FROM capacity_steps')" \
  "0-2000000:1 2000000-4000000:1 4000000-6000000:0"

eq "open: the database keeps the staircase as the run's rate stages" \
  "$(sqlite3 "$DB" "SELECT req_stages FROM runs WHERE name = 'cap'")" \
  "0s:50/s,2s:50/s,0s:100/s,2s:100/s,0s:150/s,2s:150/s,0s:200/s,2s:200/s,0s:250/s,2s:250/s"
# the report draws the knee: throughput and p95 by step load, the capacity marked
"$QUERN" report --db "$DB" -o "$TMP/a.html" >/dev/null 2>&1
eq "report: written" "$?" 0
check "report: a capacity section with the knee chart" grep -q 'Throughput and p95 against the load of each step' "$TMP/a.html"
check "report: names the capacity and the failing step" grep -q 'Capacity: <b>100/s</b>, the last step that passed; the step at 150/s failed' "$TMP/a.html"
eq "report: the capacity marked once, the failing step's two points in red" \
  "$(grep -c 'class="capacity"' "$TMP/a.html") $(grep -o 'fill="#b42318"><title>' "$TMP/a.html" | wc -l)" "1 2"
[ -n "${QUERN_TEST_ARTIFACTS:-}" ] && mkdir -p "$QUERN_TEST_ARTIFACTS" && cp "$TMP/a.html" "$QUERN_TEST_ARTIFACTS/capacity.html"

# ---- /slow is limited at 75/s: the capacity fell to 50/s, and compare says so
new_log
"$QUERN" run $D/capacity.lua --capacity 50/s:50/s:2s:250/s --threshold 'errors<1%' --workers 2 \
  -p base_url="$NGBASE" -p path=/slow --db "$DB" --name cap -q --summary-json "$TMP/b.json" >"$TMP/b.out" 2>"$TMP/b.err"
eq "slower: exit 0" "$?" 0
eq "slower: the capacity is 50/s, 2 steps" "$(cap "$TMP/b.json" value) $(sj "$TMP/b.json" '.capacity.steps | length')" "50 2"
"$QUERN" compare --db "$DB" --fail-on-regression 10% -o "$TMP/cmp.html" >"$TMP/cmp.out" 2>&1
eq "compare: a fallen capacity is a regression (exit 1)" "$?" 1
check "compare: says the capacity fell" grep -q 'capacity fell from 100/s to 50/s' "$TMP/cmp.out"

# ---- the closed model: VUs with a pacing of 100 ms (10 runs a second each):
# 5, 10, 15 VUs are 50/s, 100/s, 150/s at /hit
new_log
"$QUERN" run $D/capacity.lua --capacity 5:5:2s:30 --threshold 'errors<1%' --workers 2 -p pacing=100ms \
  -p base_url="$NGBASE" --db "$DB" --name closed -q --summary-json "$TMP/v.json" >"$TMP/v.out" 2>"$TMP/v.err"
eq "closed: exit 0" "$?" 0
eq "closed: the capacity is 10 VUs, the third step failed" \
  "$(cap "$TMP/v.json" value) $(cap "$TMP/v.json" unit) $(sj "$TMP/v.json" '[.capacity.steps[].passed] | map(tostring) | join(",")')" \
  "10 vus true,true,false"
between "closed: 10 VUs paced at 100 ms ran 100/s" "$(step "$TMP/v.json" 1 tps)" 80 110
# the Universal Scalability Law needs 4 steps (3 coefficients pass through
# any 3 points): this search stopped at its third
eq "closed: 3 steps, no USL fit" "$(sj "$TMP/v.json" '.capacity.usl | [.fitted, .why] | map(tostring) | join(",")')" \
  "false,fewer than 4 steps with distinct concurrencies"
# 2 to 8 VUs paced at 100 ms, under nginx's 125/s: linear, every step passes
"$QUERN" run $D/capacity.lua --capacity 2:2:2s:8 --threshold 'errors<1%' --workers 2 -p pacing=100ms \
  -p base_url="$NGBASE" --db none -q --summary-json "$TMP/u.json" >"$TMP/u.out" 2>"$TMP/u.err"
eq "usl: exit 0" "$?" 0
eq "usl: the law's N is the step's VUs" "$(sj "$TMP/u.json" '[.capacity.steps[].usl_n] | map(tostring) | join(",")')" "2,4,6,8"
eq "usl: paced VUs under the limit scale linearly: no contention, no coherency" \
  "$(sj "$TMP/u.json" '.capacity.usl | [.fitted, .sigma < 0.05, .kappa < 0.001, .r2 > 0.9] | map(tostring) | join(",")')" \
  "true,true,true,true"
check "usl: the summary says it" grep -q '^Scalability (USL, R² [0-9.]*): ' "$TMP/u.out"
eq "closed: the database keeps the staircase as the run's stages" \
  "$(sqlite3 "$DB" "SELECT req_stages FROM runs WHERE name = 'closed'")" "0s:5,2s:5,0s:10,2s:10,0s:15,2s:15,0s:20,2s:20,0s:25,2s:25,0s:30,2s:30"

# Little's law in a steady second of the 10-VU step (second 3): N = 10 VUs in
# the system, and X * (R + Z) (runs a second times run time plus pacing) the same
lit() { sqlite3 "$DB" "SELECT $1 FROM little WHERE run_id = (SELECT id FROM runs WHERE name = 'closed') AND second = 3"; }
between "little: N is the 10 VUs of the step" "$(lit 'vu_us / 1e6')" 9.5 10.5
between "little: X * (R + Z) is N (within 10 %)" "$(lit '(run_us + wait_us) * 1.0 / vu_us')" 0.9 1.1
between "little: about 100 runs that second" "$(lit runs)" 80 110
"$QUERN" report --db "$DB" -o "$TMP/v.html" >/dev/null 2>&1
check "little: the report draws N against X × (R + Z)" grep -q 'Little.*s law: N against X' "$TMP/v.html"
check "little: the report says how often it held" grep -Eq 'The law held in [0-9]+ of [0-9]+ seconds' "$TMP/v.html"

# ---- even START fails: exit 1, no capacity
"$QUERN" run $D/capacity.lua --capacity 200/s:50/s:2s --threshold 'errors<1%' --workers 2 \
  -p base_url="$NGBASE" --db none -q --summary-json "$TMP/c.json" >"$TMP/c.out" 2>"$TMP/c.err"
eq "START fails: exit 1" "$?" 1
eq "START fails: its threshold failed on START" "$(sj "$TMP/c.json" '.thresholds[0].passed')" false
eq "START fails: no capacity, one step" "$(cap "$TMP/c.json" found) $(cap "$TMP/c.json" value) $(sj "$TMP/c.json" '.capacity.steps | length')" "false null 1"
check "START fails: the verdict says so" grep -q '^Verdict: failed: no capacity: the first step, 200/s, failed' "$TMP/c.out"

# ---- usage errors: exit 2 before any request
new_log
"$QUERN" run $D/capacity.lua --capacity 50/s:50/s:2s -p base_url="$NGBASE" --db none -q >"$TMP/d.out" 2>"$TMP/d.err"
eq "no threshold: exit 2" "$?" 2
check "no threshold: one clear line" grep -q -- '--capacity needs a threshold' "$TMP/d.err"
"$QUERN" run $D/capacity.lua --capacity 50/s:5:2s --threshold 'errors<1%' --db none -q 2>"$TMP/e.err"
eq "rates and VUs mixed: exit 2" "$?" 2
check "rates and VUs mixed: names the flag" grep -q -- '^quern run: --capacity: ' "$TMP/e.err"
"$QUERN" run $D/capacity.lua --capacity 5:5:2s --vus 3 --threshold 'errors<1%' --db none -q 2>"$TMP/f.err"
eq "--capacity with --vus: exit 2" "$?" 2
"$QUERN" run $D/capacity.lua --capacity 5:5:2s --capacity-settle 2s --threshold 'errors<1%' --db none -q 2>"$TMP/g.err"
eq "a settle that leaves nothing to judge: exit 2" "$?" 2
eq "usage errors: no request reached nginx" "$(wc -l <"$LOG")" 0
