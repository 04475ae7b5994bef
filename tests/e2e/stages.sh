# Staged loads (--stages, a scenario's stages), judged by a real nginx's
# access log: each request names its VU (X-VU), so the log tells how many VUs
# were active in each window, which ids came back, and whether a request was
# cut (status 499) when VUs left.
# e2e: alone (it judges time to the millisecond; tests/run.sh runs it by itself)
. "$(dirname "$0")/dist_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"
D=tests/e2e/scripts
start_nginx 1024
# The access log's lines as "SECONDS STATUS VU URI", SECONDS from the first
# init (VU 1 starts at the run's start).
rel_log() {
  awk '$4 == "/init" && t0 == "" { t0 = $1 } { l[NR] = $0 }
       END { for (i = 1; i <= NR; i++) { split(l[i], f, " "); printf "%.3f %s %s %s\n", f[1] - t0, f[2], f[3], f[4] } }' "$LOG"
}
# distinct FROM TO: VUs that hit /hit in [FROM, TO) seconds
distinct() { rel_log | awk -v a="$1" -v b="$2" '$4 == "/hit" && $1 >= a && $1 < b { s[$3] = 1 } END { print length(s) }'; }
# per_second: the distinct VUs of each second, for the log
per_second() { rel_log | awk '$4 == "/hit" { k = int($1); if (!((k, $3) in s)) { s[k, $3] = 1; n[k]++ } if (k > m) m = k }
                               END { for (k = 0; k <= m; k++) printf "%d:%d ", k, n[k] + 0; print "" }'; }
hits() { rel_log | awk -v a="$1" -v b="$2" '$4 == "/hit" && $1 >= a && $1 < b' | wc -l; }

# ---- 3s:20,4s:20,3s:0 on one machine, two workers
# Up: VU k starts at (k-1) * 150 ms; down: VU k leaves at 7 s + (21-k) * 150 ms,
# after its run. Each VU hits once per 200 ms (its pacing).
check_shape() {
  local pre=$1 json=$2
  echo "# $pre: distinct VUs per second: $(per_second)"
  between "$pre: half-way up (1.4-1.6 s): about 10 VUs" "$(distinct 1.4 1.6)" 9 12
  between "$pre: the hold (4-5 s): 20 VUs" "$(distinct 4 5)" 20 20
  local lo=20 hi=0 n
  for w in 3.4 3.8 4.2 4.6 5.0 5.4 5.8 6.2 6.6; do
    n=$(distinct "$w" "$(awk -v w="$w" 'BEGIN { print w + 0.2 }')")
    [ "$n" -lt "$lo" ] && lo=$n
    [ "$n" -gt "$hi" ] && hi=$n
  done
  eq "$pre: every 200 ms of the hold: 20 VUs (fewest)" "$lo" 20
  eq "$pre: every 200 ms of the hold: 20 VUs (most)" "$hi" 20
  between "$pre: half-way down (8.4-8.6 s): about 10 VUs" "$(distinct 8.4 8.6)" 9 12
  eq "$pre: no request after the end (10.3 s)" "$(hits 10.3 999)" 0
  eq "$pre: 20 VUs in all" "$(rel_log | awk '$4 == "/hit" { s[$3] = 1 } END { print length(s) }')" 20
  eq "$pre: init 20 times" "$(grep -c ' /init$' "$LOG")" 20
  eq "$pre: finish 20 times" "$(grep -c ' /finish$' "$LOG")" 20
  eq "$pre: no request cut (no 499)" "$(awk '$2 != 200' "$LOG" | wc -l)" 0
  eq "$pre: the console's count is nginx's" "$(sj "$json" '.tests[0].count')" "$(grep -c ' /hit$' "$LOG")"
  # the highest index leaves first: each VU's last hit is after every higher one's
  eq "$pre: the highest index leaves first" "$(rel_log | awk '$4 == "/hit" { last[$3] = $1 }
      END { bad = 0; for (k = 2; k <= 20; k++) if (last[k] > last[k - 1] + 0.05) bad++; print bad }')" 0
}

new_log
"$QUERN" run $D/stages_vu.lua --stages 3s:20,4s:20,3s:0 --workers 2 -p base_url="$NGBASE" --db "$TMP/one.db" -q \
  --summary-json "$TMP/one.json" >"$TMP/one.out" 2>"$TMP/one.err"
eq "3s:20,4s:20,3s:0: exit 0" "$?" 0
check_shape "3s:20,4s:20,3s:0" "$TMP/one.json"
between "3s:20,4s:20,3s:0: the run lasts the stages (s)" "$(sj "$TMP/one.json" '.run.duration_s')" 9.5 11.5
eq "3s:20,4s:20,3s:0: the summary's VUs are the largest target" "$(sj "$TMP/one.json" '.run.vus')" 20
eq "3s:20,4s:20,3s:0: the database keeps the stages" \
  "$(sqlite3 "$TMP/one.db" 'SELECT req_stages FROM runs')" "3s:20,4s:20,3s:0"
"$QUERN" report --db "$TMP/one.db" -o "$TMP/one.html" >/dev/null 2>&1
check "3s:20,4s:20,3s:0: the report shows the stages" \
  grep -q '<dt>Stages (--stages)</dt><dd><code>3s:20,4s:20,3s:0</code>' "$TMP/one.html"
# The active VUs of each second (at its end) that the database, the live view
# and the JTL show: ceil(N(t)) at t = 1, 2, ... s, give or take a VU.
vus=$(sqlite3 "$TMP/one.db" 'SELECT group_concat(active_vus, " ") FROM (SELECT active_vus FROM intervals ORDER BY second)')
echo "# 3s:20,4s:20,3s:0: active VUs per second in the database: $vus"
read -r -a got_vus <<<"$vus"
want=(7 14 20 20 20 20 20 14 7)
bad=0
for i in 0 1 2 3 4 5 6 7 8; do
  got=${got_vus[i]:-none}
  [ "$got" = none ] && { bad=$((bad + 1)); continue; }
  d=$((got - want[i])); [ $d -lt 0 ] && d=$((-d))
  [ $d -le 2 ] || bad=$((bad + 1))
done
eq "3s:20,4s:20,3s:0: the database's active VUs follow the stages (7 14 20 20 20 20 20 14 7)" "$bad" 0

# ---- a climb after a descent: new VUs, init again
new_log
"$QUERN" run $D/stages_vu.lua --stages 2s:4,2s:0,2s:4 --workers 2 -p base_url="$NGBASE" --db none -q \
  --summary-json "$TMP/again.json" >"$TMP/again.out" 2>"$TMP/again.err"
eq "2s:4,2s:0,2s:4: exit 0" "$?" 0
echo "# 2s:4,2s:0,2s:4: distinct VUs per second: $(per_second)"
eq "2s:4,2s:0,2s:4: the second climb is VUs 5..8" \
  "$(rel_log | awk '$4 == "/hit" && $1 >= 4.1 { print $3 }' | sort -un | tr '\n' ' ')" "5 6 7 8 "
eq "2s:4,2s:0,2s:4: VUs 1..4 never after the descent" \
  "$(rel_log | awk '$4 == "/hit" && $1 >= 4.1 && $3 <= 4' | wc -l)" 0
eq "2s:4,2s:0,2s:4: the first climb is VUs 1..4" \
  "$(rel_log | awk '$4 == "/hit" && $1 < 2 { print $3 }' | sort -un | tr '\n' ' ')" "1 2 3 4 "
eq "2s:4,2s:0,2s:4: the summary's VUs: 4 at most, 8 ids" "$(sj "$TMP/again.json" '"\(.run.vus) \(.run.vu_ids)"')" "4 8"
eq "2s:4,2s:0,2s:4: init runs 8 times" "$(grep -c ' /init$' "$LOG")" 8
eq "2s:4,2s:0,2s:4: 8 distinct init VUs" "$(awk '$4 == "/init" { s[$3] = 1 } END { print length(s) }' "$LOG")" 8
eq "2s:4,2s:0,2s:4: no request cut (no 499)" "$(awk '$2 != 200' "$LOG" | wc -l)" 0
eq "2s:4,2s:0,2s:4: the console's count is nginx's" "$(sj "$TMP/again.json" '.tests[0].count')" "$(grep -c ' /hit$' "$LOG")"

# ---- the same stages over 2 agents: the same counts
new_log
start_console d $D/stages_vu.lua --stages 3s:20,4s:20,3s:0 --agents 2 --wait 20s -p base_url="$NGBASE" \
  --db none -q --summary-json "$TMP/dist.json"
start_agent s1 1
start_agent s2 1
wait_exit $CONSOLE_PID 40
eq "2 agents: console exits 0" "$WAIT_RC" 0
check_shape "2 agents" "$TMP/dist.json"

# ---- the same stages as a scenario's own: quern.scenario{stages = {...}}
new_log
"$QUERN" run $D/stages_vu.lua -p own_stages=3s:20,4s:20,3s:0 --workers 2 -p base_url="$NGBASE" --db none -q \
  --summary-json "$TMP/scen.json" >"$TMP/scen.out" 2>"$TMP/scen.err"
eq "scenario stages: exit 0" "$?" 0
check_shape "scenario stages" "$TMP/scen.json"

# ---- beside a scenario without stages: that one plays --vus (ids 1..2),
# the staged one its own ids after them (3..6), and the run lasts its stages
new_log
"$QUERN" run $D/stages_vu.lua -p own_stages=1s:4,1s:4 -p with_api=1 --vus 2 --workers 2 -p base_url="$NGBASE" \
  --db none -q --summary-json "$TMP/mix.json" >"$TMP/mix.out" 2>"$TMP/mix.err"
eq "mixed: exit 0" "$?" 0
eq "mixed: the scenario without stages plays VUs 1..2" \
  "$(awk '$4 == "/api" { print $3 }' "$LOG" | sort -un | tr '\n' ' ')" "1 2 "
eq "mixed: the staged scenario plays VUs 3..6" \
  "$(awk '$4 == "/hit" { print $3 }' "$LOG" | sort -un | tr '\n' ' ')" "3 4 5 6 "
between "mixed: the run lasts the stages (s)" "$(sj "$TMP/mix.json" '.run.duration_s')" 1.8 3.5
eq "mixed: the console's count is nginx's" "$(sj "$TMP/mix.json" '[.tests[].count] | add')" \
  "$(grep -c -e ' /hit$' -e ' /api$' "$LOG")"

# ---- bad input: one line, exit 2, nothing sent
new_log
bad() { "$QUERN" run "$@" -p base_url="$NGBASE" --db none -q >"$TMP/bad.out" 2>"$TMP/bad.err"; echo $?; }
first() { head -n 1 "$TMP/bad.err"; }
eq "--stages 3s: exit 2" "$(bad $D/stages_vu.lua --stages 3s)" 2
check "--stages 3s: names the flag and the stage" grep -q -- '--stages: "3s" is not D:N' <(first)
eq "--stages 3s: one line" "$(wc -l <"$TMP/bad.err")" 1
eq "--stages 3x:20: exit 2" "$(bad $D/stages_vu.lua --stages 3x:20)" 2
check "--stages 3x:20: names the flag and the unit" grep -q -- '--stages: "3x:20": .*unit' <(first)
eq "--stages '': exit 2" "$(bad $D/stages_vu.lua --stages '')" 2
check "--stages '': says it is empty" grep -q -- '--stages: empty' <(first)
eq "--stages with --vus: exit 2" "$(bad $D/stages_vu.lua --stages 1s:2 --vus 3)" 2
check "--stages with --vus: names both" grep -q -- '--stages and --vus cannot be used together' <(first)
eq "--stages with --ramp-up: exit 2" "$(bad $D/stages_vu.lua --ramp-up 1s --stages 1s:2)" 2
check "--stages with --ramp-up: names both" grep -q -- '--stages and --ramp-up cannot be used together' <(first)
eq "--stages with --duration: exit 2" "$(bad $D/stages_vu.lua --stages 1s:2 --duration 5s)" 2
check "--stages with --duration: names both" grep -q -- '--stages and --duration cannot be used together' <(first)
eq "scenario stages = { \"3s\" }: exit 2" "$(bad $D/stages_vu.lua -p own_stages=3s)" 2
check "scenario stages = { \"3s\" }: file:line and the stage" \
  grep -q "^$D/stages_vu.lua:[0-9]*: scenario STAGES: stages\[1\]: \"3s\" is not D:N" <(first)
eq "scenario stages = { \"3s\" }: one line" "$(wc -l <"$TMP/bad.err")" 1
eq "scenario stages = { \"1s:2\", \"2x:0\" }: exit 2" "$(bad $D/stages_vu.lua -p own_stages=1s:2,2x:0)" 2
check "scenario stages = { \"1s:2\", \"2x:0\" }: file:line and the stage" \
  grep -q "^$D/stages_vu.lua:[0-9]*: scenario STAGES: stages\[2\]: \"2x:0\"" <(first)
eq "--vus when every scenario has stages: exit 2" "$(bad $D/stages_vu.lua -p own_stages=1s:2 --vus 3)" 2
check "--vus when every scenario has stages: says so" \
  grep -q -- "--vus: every scenario of $D/stages_vu.lua has stages of its own" <(first)
caught_up
eq "bad input: nothing sent" "$(grep -vc ' /mark$' "$LOG")" 0
