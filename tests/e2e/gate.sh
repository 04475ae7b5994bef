# A regression gate that knows the noise (reports/noise.h, reports/compare.h):
# runs of an unchanged server (the demo target answering in 20 ms) compared
# with the ones before them find no regression, with their intervals; a
# server 30 % slower (26 ms) is caught, its interval past the threshold and
# its figure beyond every baseline's; the regressed run is marked so and the next
# comparison's default baseline skips it, as it skips a failed run; the
# baselines can be named (a run id, a tag). Each run is 5 s: the seconds an
# interval needs.
# e2e: long (it starts among the first: tests/run.sh)
. "$(dirname "$0")/lib.bash"
unset QUERN_DB
start_target
DB=$TMP/g.db
S=tests/e2e/scripts
q() { sqlite3 -batch -noheader "$DB" "$1" 2>/dev/null; }
gate_run() {  # gate_run MS [FLAGS...]: one 5 s run of 4 VUs, the server answering in MS ms
  local ms=$1
  shift
  "$QUERN" run $S/gate.lua --vus 4 --duration 5s -q -p base_url="$BASE" -p ms="$ms" --db "$DB" \
    --name gate "$@" >/dev/null 2>>"$TMP/runs.err"
}
for i in 1 2; do gate_run 20; done
gate_run 20 --tag release=1.2 # run 3
"$QUERN" compare 3 --db "$DB" --baselines 2 --fail-on-regression 10% -o "$TMP/aa3.html" \
  >"$TMP/aa3.out" 2>"$TMP/aa3.err"
eq "unchanged server: run 3 against 2 baselines: exit 0" "$?" 0
sed -n '/^SC-GATE-STEP-1/,/^$/p' "$TMP/aa3.out" | sed 's/^/# /'
check "unchanged server: the baselines named" grep -q '^baselines: 2 runs, 2 1 ' "$TMP/aa3.out"
check "unchanged server: no step worse" grep -q '^verdict: 0 steps worse' "$TMP/aa3.out"

gate_run 26 # run 4: 30 % slower
"$QUERN" compare 4 --db "$DB" --baselines 3 --fail-on-regression 10% -o "$TMP/ab.html" \
  >"$TMP/ab.out" 2>"$TMP/ab.err"
eq "slower server: exit 1" "$?" 1
sed -n '/^SC-GATE-STEP-1/,/^$/p' "$TMP/ab.out" | sed 's/^/# /'
check "slower server: the step is worse" grep -q '^SC-GATE-STEP-1 (page): worse' "$TMP/ab.out"
check "slower server: a latency worse, its interval past the threshold" \
  grep -Eq '^  (mean|p50|p95|p99) ms .*\+[0-9.]+%  worse \(95 % interval \+[1-9][0-9.]+% to \+[0-9.]+% over [0-9]+ and [0-9]+ s\) \(the 3 baselines: ' "$TMP/ab.out"
check "slower server: marked regressed" grep -q '^run 4 marked regressed' "$TMP/ab.out"
eq "slower server: the database keeps it" "$(q "SELECT regressed IS NOT NULL FROM runs WHERE id = 4")" 1

# the next run's default baseline skips the regressed run, and a failed one
gate_run 20 --threshold 'p95<1ms' # run 5: fails its threshold
gate_run 20                       # run 6
"$QUERN" compare 6 --db "$DB" --fail-on-regression 10% -o "$TMP/next.html" >"$TMP/next.out" 2>&1
eq "next run: exit 0" "$?" 0
check "next run: compared with run 3, the last passed (4 regressed, 5 failed)" \
  grep -q '^baseline: run 3 ' "$TMP/next.out"
"$QUERN" compare 6 --db "$DB" --baseline 4 -o "$TMP/named.html" >"$TMP/named.out" 2>&1
check "--baseline RUN_ID: that run" grep -q '^baseline: run 4 ' "$TMP/named.out"
"$QUERN" compare 6 --db "$DB" --baseline tag:release=1.2 -o "$TMP/tag.html" >"$TMP/tag.out" 2>&1
check "--baseline tag:release=1.2: the tagged run" grep -q '^baseline: run 3 ' "$TMP/tag.out"
"$QUERN" compare 6 3 --db "$DB" --baseline 2 >/dev/null 2>"$TMP/both.err"
eq "B and --baseline together: exit 2" "$?" 2
"$QUERN" compare 1 --db "$DB" >/dev/null 2>"$TMP/first.err"
eq "no earlier passed run: exit 2" "$?" 2
check "no earlier passed run: says so" grep -q 'has no earlier passed run of the same name' "$TMP/first.err"
