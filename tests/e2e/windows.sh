# Thresholds in rolling windows (console/rollwin.h): a server that stalls
# 500 ms for 0.4 s of a 12 s run at 50 arrivals a second (its own log says
# which requests, and how long each took) passes p95<300ms over the whole
# run, and fails p95[5s]<300ms: every 5 s window holding the stall has 8 %
# of its samples slow. The verdict names the worst window and when it was;
# the windows' count is the run's seconds less the window, plus one.
. "$(dirname "$0")/dist_lib.bash"
S=tests/e2e/scripts
python3 tests/tools/slow_server.py "$TMP/sport" >"$TMP/slow.log" 2>"$TMP/slow.err" &
PIDS+=($!)
wait_file "$TMP/sport"
SBASE="http://127.0.0.1:$(cat "$TMP/sport")"
"$QUERN" run $S/blip.lua --rate 50/s --duration 12s --workers 1 -q -p base_url="$SBASE" --db none \
  --threshold 'p95<300ms' --threshold 'p95[5s]<300ms' --threshold 'errors[5s]<1%' \
  --summary-json "$TMP/w.json" >"$TMP/w.out" 2>"$TMP/w.err"
eq "exit 1: a window failed" "$?" 1
grep '^  \(PASS\|FAIL\)\|^Verdict' "$TMP/w.out" | sed 's/^/# /'
slow=$(awk '$3 == "/blip" && $2 >= 0.5' "$TMP/slow.log" | wc -l)
between "the server stalled about 20 requests (its own log)" "$slow" 15 25
eq "the server answered every request quern counted" \
  "$(grep -c ' /blip$' "$TMP/slow.log")" "$(sj "$TMP/w.json" '.tests[0].count')"
check "the whole run's p95 passes" grep -q '^  PASS  p95<300ms ' "$TMP/w.out"
check "p95[5s] fails, in its worst window" \
  grep -Eq '^  FAIL  p95\[5s\]<300ms +p95\[5s\] of all steps = 5[0-9.]+ ms, limit < 300 ms, in its worst 5 s window, [0-9]+-[0-9]+ s of the run \([89] windows\)' "$TMP/w.out"
from=$(sed -n 's/.*p95\[5s\] of all steps = .*worst 5 s window, \([0-9]*\)-\([0-9]*\) s of the run.*/\1 \2/p' "$TMP/w.out" | head -1)
check "the worst window holds the stall's second (5 s after the first request)" \
  awk -v a="${from% *}" -v b="${from#* }" 'BEGIN { exit !(a <= 5 && b > 5 && b - a == 5) }'
check "errors[5s]: every window without an error" grep -q '^  PASS  errors\[5s\]<1% ' "$TMP/w.out"
check "the verdict names the windowed threshold" \
  grep -q '^Verdict: failed: threshold p95\[5s\]<300ms: p95\[5s\] of all steps = ' "$TMP/w.out"
"$QUERN" check $S/blip.lua -p base_url="$SBASE" --threshold 'p95[5s]<300ms' >"$TMP/c.out" 2>&1
eq "quern check takes a windowed threshold" "$?" 0
"$QUERN" run $S/blip.lua --capacity 10/s:10/s:2s:20/s -p base_url="$SBASE" --db none -q \
  --threshold 'p95[5s]<300ms' >/dev/null 2>"$TMP/cap.err"
eq "--capacity refuses a windowed threshold: exit 2" "$?" 2
check "--capacity refuses it, saying why" grep -q "judges each step on its own seconds" "$TMP/cap.err"
