# The load asked against the load sent, against the demo target: an
# open-model run whose pool is too small is inconclusive (not a pass), a
# healthy one passes with nothing unsent and Little's law holding, and a
# capacity search whose failing step quern could not send names the
# injector as its limit and its capacity as a lower bound.
# e2e: heavy (it drives a CPU-bound load; tests/run.sh gives it two slots)
. "$(dirname "$0")/lib.bash"
start_target
D=tests/e2e/scripts

# ---- 30/s for 4 s with a pool of 3 and runs of 1 s: about 3 runs a second
# can start, the rest wait past --max-lag 1s and are dropped
"$QUERN" run $D/capacity.lua --rate 30/s --duration 4s --max-vus 3 --max-lag 1s -q \
  -p base_url="$BASE" -p 'path=/slow?ms=1000' --db none --summary-json "$TMP/a.json" >"$TMP/a.out" 2>"$TMP/a.err"
eq "pool of 3: exit 1 (inconclusive)" "$?" 1
check "pool of 3: the verdict says how much was not sent and why" \
  grep -Eq '^Verdict: inconclusive: [0-9]+ % of the load asked was not sent \([0-9]+ of 120 arrivals dropped: every VU of the pool of 3 was busy; raise --max-vus' "$TMP/a.out"
between "pool of 3: run.load.undelivered_pct" "$(sj "$TMP/a.json" .run.load.undelivered_pct)" 70 95
eq "pool of 3: asked = sent + dropped" \
  "$(sj "$TMP/a.json" '.run.load | .asked == .sent + .dropped and .asked == 120')" true
check "pool of 3: the summary's Load line" grep -Eq '^Load: 120 arrivals asked, [0-9]+ sent, [0-9]+ dropped \([0-9]+ %\)' "$TMP/a.out"
eq "pool of 3: the pool's peak and size" "$(sj "$TMP/a.json" '"\(.run.vus_peak) \(.run.vu_pool)"')" "3 3"
check "pool of 3: the summary shows the pool's peak" grep -q 'VUs: pool peak 3 of 3$' "$TMP/a.out"
eq "pool of 3: not passed" "$(sj "$TMP/a.json" .verdict.passed)" false
check "pool of 3: the table says which latency it shows" \
  grep -q "^Latencies: response time, from each request's intended start" "$TMP/a.out"
check "pool of 3: the starts waited, so it shows the service times too" \
  grep -q "^Service time, from each request's actual start (where it differs by more than 10 %):" "$TMP/a.out"
check "  a service row per step (1 s runs: a mean of 1,000 to 1,100 ms)" \
  awk '/^Service time, from/ { on = 1; next } on && /^SC-/ { if ($6 >= 1000 && $6 < 1100) ok = 1 } END { exit !ok }' "$TMP/a.out"

# ---- a pool smaller than the worker processes: each worker has a VU of it
# at least; the pool is said to be that, and the summary does not show a
# peak above it
"$QUERN" run $D/capacity.lua --rate 20/s --duration 1s --max-vus 1 --workers 2 -q --allow-saturation \
  -p base_url="$BASE" -p 'path=/slow?ms=10' --db none --summary-json "$TMP/w.json" >"$TMP/w.out" 2>"$TMP/w.err"
check "--max-vus 1, 2 workers: a warning says the pool is 2" \
  grep -q "warning: --max-vus 1 is below the run's 2 worker processes: each has a VU of the pool at least, so the pool is 2 VUs" "$TMP/w.err"
eq "  run.vu_pool 2" "$(sj "$TMP/w.json" .run.vu_pool)" 2
check "  the peak is within the pool" test "$(sj "$TMP/w.json" .run.vus_peak)" -le 2

# ---- 20/s for 5 s, runs of 100 ms, a pool of 50 with 20 made at the start:
# all sent, and the law holds (the VUs idle in the pool are not in the system)
"$QUERN" run $D/capacity.lua --rate 20/s --duration 5s --vus 20 --max-vus 50 -q -p base_url="$BASE" \
  -p 'path=/slow?ms=100' --db "$TMP/h.db" --summary-json "$TMP/h.json" >"$TMP/h.out" 2>"$TMP/h.err"
eq "healthy: exit 0" "$?" 0
eq "healthy: nothing unsent" "$(sj "$TMP/h.json" '"\(.run.load.undelivered_pct) \(.run.load.dropped)"')" "0 0"
eq "healthy: the pool's peak: the 20 made at the start" "$(sj "$TMP/h.json" .run.vus_peak)" 20
eq "healthy: the pool's size" "$(sj "$TMP/h.json" .run.vu_pool)" 50
eq "healthy: the database keeps the pool's peak and size" \
  "$(sqlite3 "$TMP/h.db" 'SELECT vus_peak, vu_pool FROM runs')" "20|50"
check "healthy: quern runs shows the pool's peak of its size" \
  grep -Eq '^ *1 .* 20/50 ' <("$QUERN" runs --db "$TMP/h.db")
"$QUERN" report --db "$TMP/h.db" -o "$TMP/h.html" >/dev/null 2>&1
check "healthy: the report shows the pool's peak of its size" grep -q "VUs: pool peak 20 of 50" "$TMP/h.html"
check "healthy: the report has Little's law" grep -q "Little's law" "$TMP/h.html"
check "healthy: no run piling up in the report (idle pool VUs are not in the system)" \
  bash -c "! grep -q 'piling up' '$TMP/h.html'"

# ---- a capacity search whose second step, 100,000/s, one worker cannot start:
# its arrivals wait (late, dropped), and its p95 is quern's own queue
# (without QUERN_ALLOW_SATURATION, which would judge it as usual)
env -u QUERN_ALLOW_SATURATION "$QUERN" run $D/capacity.lua --capacity 100/s:99900/s:2s:100000/s --threshold 'p95<100ms' --workers 1 \
  -q -p base_url="$BASE" -p path=/static/a.css --db "$TMP/c.db" --summary-json "$TMP/c.json" >"$TMP/c.out" 2>"$TMP/c.err"
eq "injector-limited search: exit 1 (inconclusive)" "$?" 1
eq "injector-limited search: limited_by" "$(sj "$TMP/c.json" .capacity.limited_by)" injector
eq "injector-limited search: not allowed" "$(sj "$TMP/c.json" .verdict.allowed)" false
eq "injector-limited search: steps' injector_saturated" \
  "$(sj "$TMP/c.json" '[.capacity.steps[].injector_saturated] | map(tostring) | join(",")')" "false,true"
check "injector-limited search: the capacity is a lower bound" \
  grep -q '^Verdict: inconclusive: capacity at least 100/s: the step at 100000/s was limited by the injector' "$TMP/c.out"
eq "injector-limited search: the database has it" \
  "$(sqlite3 "$TMP/c.db" "SELECT limited_by FROM capacity; SELECT group_concat(injector_saturated) FROM capacity_steps")" "injector
0,1"
"$QUERN" report --db "$TMP/c.db" -o "$TMP/c.html" >/dev/null 2>&1
eq "injector-limited search: the knee chart shades the one step the injector limited" \
  "$(grep -o '<rect class="injector"' "$TMP/c.html" | wc -l)" 1
check "injector-limited search: the report calls the capacity a lower bound" \
  grep -q 'limited by the injector (.*): a lower bound, not the server' "$TMP/c.html"
check "injector-limited search: the steps table marks the step" grep -q '\[injector-limited: ' "$TMP/c.html"
sed -n '/^Capacity search/,/^Capacity:/p' "$TMP/c.out" | sed 's/^/# /'
grep "^Verdict" "$TMP/c.out" | sed "s/^/# /"

# ---- a capacity search against a server that takes 200 ms a run, with a pool
# of 10 VUs: 20/s and 40/s need 4 and 8 VUs busy (Little's law), 60/s needs
# 12: every VU of the pool waits on a response, arrivals wait for one, and
# p95 (counted from each arrival's time) passes 400 ms. The injector kept up:
# the pool was too small for the server's response time, the server's limit
"$QUERN" run $D/capacity.lua --capacity 20/s:20/s:2s:100/s --threshold 'p95<400ms' --max-vus 10 --workers 1 \
  -q -p base_url="$BASE" -p 'path=/slow?ms=200' --db none --summary-json "$TMP/s.json" >"$TMP/s.out" 2>"$TMP/s.err"
eq "pool-limited search: exit 0, a capacity found" "$?" 0
sed -n '/^Capacity search/,/^Capacity:/p' "$TMP/s.out" | sed 's/^/# /'
eq "pool-limited search: limited by the server at 40/s" \
  "$(sj "$TMP/s.json" '"\(.capacity.limited_by) \(.capacity.value)"')" "server 40"
eq "pool-limited search: the failing step is the pool's, not the injector's" \
  "$(sj "$TMP/s.json" '.capacity.steps[2] | "\(.injector_saturated) \(.pool_limited)"')" "false true"
check "pool-limited search: the verdict names the pool too small for the server's response time" \
  grep -Eq "^Verdict: passed: capacity 40/s \(the step at 60/s failed: .*the server's limit: pool too small for the server's response time: 60/s x 0\.2[0-9]* s = 1[0-9] VUs busy, the pool has 10" "$TMP/s.out"
