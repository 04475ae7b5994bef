# Lua that holds a worker's event loop. A VU whose run never yields fails that
# run (a functional error naming the script line) after 1 s, and the worker's
# other VUs are served; a worker held in a C call, which no Lua hook can cut,
# is killed 5 s past the run's planned end, held (it sent nothing), and lost
# (the run is degraded); a script whose top level never ends stops after 10 s,
# before any request.
# e2e: alone (it spins a CPU and judges the progress of the others; tests/run.sh runs it by itself)
. "$(dirname "$0")/dist_lib.bash"
start_target
D=tests/e2e/scripts
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}'; }

# Two VUs in one worker; VU 1 spins in every run, in odd runs plainly, in
# even runs inside a pcall.
t0=$(now)
timeout 40 "$QUERN" run $D/hold.lua --vus 2 --duration 4s --workers 1 -q -p base_url="$BASE" \
  --summary-json "$TMP/h.json" >"$TMP/h.out" 2>"$TMP/h.err"
rc=$?
between "held loop, 4 s run: ends on time (s)" "$(since "$t0")" 3.5 10
check "held loop: exit 0 or 1 (not an overrun, not an abort)" test $rc -le 1
check "held loop: the run is not degraded" test "$(sj "$TMP/h.json" .run.status)" != degraded
between "held loop: each held run is a functional error" "$(sj "$TMP/h.json" '.tests[0].errors.functional')" 2 8
check "held loop: the error names the script line" \
  grep -q "hold.lua:12: the VU ran for more than 1 s without yielding" <<<"$(sj "$TMP/h.json" '.tests[0].errors.samples.functional')"
check "held loop inside a pcall: cut too, at its line" grep -q "hold.lua:14: the VU ran for more than 1 s" "$TMP/h.err"
check "held loop: VU 1 goes on with its next runs" test "$(stat '.by_path["/vu/1"]')" -ge 3
check "held loop: VU 2 of the same worker keeps being served" test "$(stat '.by_path["/vu/2"]')" -ge 3

# Held in C: the worker that plays VU 1 is killed and reported lost, the
# other worker goes on.
reset_target
t0=$(now)
timeout 40 "$QUERN" run $D/hold_c.lua --vus 4 --duration 3s --grace 1s --workers 2 -q -p base_url="$BASE" \
  --summary-json "$TMP/c.json" >"$TMP/c.out" 2>"$TMP/c.err"
rc=$?
between "worker held in C, 3 s run, 1 s grace: ends 5 s after the planned end (s)" "$(since "$t0")" 8 13
eq "worker held in C: the run is degraded (exit 1)" "$rc" 1
eq "worker held in C: status degraded" "$(sj "$TMP/c.json" .run.status)" degraded
check "worker held in C: reported as held, killed for no progress" grep -q "was held: no progress for" "$TMP/c.err"
check "worker held in C: the other worker's VUs went on" test "$(stat '[.by_path["/vu/2"], .by_path["/vu/4"]] | map(. // 0) | max')" -ge 10

# A script that never finishes loading.
reset_target
t0=$(now)
timeout 40 "$QUERN" run $D/loadloop.lua --vus 1 --duration 2s -q -p base_url="$BASE" >"$TMP/l.out" 2>"$TMP/l.err"
rc=$?
between "endless top level: stops after 10 s (s)" "$(since "$t0")" 9.5 13
eq "endless top level: exit 2" "$rc" 2
check "endless top level: file:line and the limit" grep -qE "^$D/loadloop.lua:[0-9]+: the script did not finish loading within 10 s$" "$TMP/l.err"
eq "endless top level: one line" "$(wc -l <"$TMP/l.err")" 1
eq "endless top level: no request sent" "$(stat .requests)" 0
check "no sanitizer report" no_sanitizer_report "$TMP"/*.err
