# CSV data feeders: which VU gets which row in each mode, RFC 4180 parsing,
# and bad files refused at load (exit 2, file:line, no request sent).
. "$(dirname "$0")/lib.bash"
start_target
D=tests/e2e/scripts
# feed ARGS...: runs csv_feed.lua against the target, summary in $TMP/s.json.
feed() {
  reset_target
  "$QUERN" run $D/csv_feed.lua -q -p base_url="$BASE" --summary-json "$TMP/s.json" "$@" \
    >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  cat "$TMP/err" >>"$TMP/all.err"
  return $rc
}
# hits: "path=count" of every /u/ path the server saw, sorted.
hits() { curl -s "$BASE/__stats" | jq -r '.by_path|to_entries[]|select(.key|startswith("/u/"))|"\(.key)=\(.value)"' | sort | tr '\n' ' '; }
distinct() { curl -s "$BASE/__stats" | jq '[.by_path|keys[]|select(startswith("/u/"))]|length'; }
each_once=$(for i in $(seq -w 1 10); do printf '/u/user%s=1 ' "$i"; done)
each_twice=$(for i in $(seq -w 1 10); do printf '/u/user%s=2 ' "$i"; done)
func() { sj "$TMP/s.json" '[.tests[].errors.functional]|add'; }

# unique: 10 rows, 10 VUs logging in: each user once, 10 sessions.
feed --vus 10 --runs 1 -p mode=unique -p login=true
eq "unique: exit 0" "$?" 0
eq "unique: each user seen once" "$(hits)" "$each_once"
eq "unique: 10 logins, 10 sessions" "$(stat '.by_method_path["POST /login"]')/$(stat .sessions_created)" 10/10
eq "unique: no error" "$(func)" 0
# VU k's n-th call takes row k + (n-1)*5: 5 VUs x 2 runs share out the 10 rows.
feed --vus 5 --runs 2 -p mode=unique -p noarg=true
eq "unique, 2 rows per VU, next() without vu: each user once" "$(hits)" "$each_once"
# Exhausted: VUs 11..20 have no row.
feed --vus 20 --runs 1 -p mode=unique
eq "unique exhausted: run completes, failed by its errors (exit 1)" "$?" 1
eq "unique exhausted: 10 users served" "$(hits)" "$each_once"
eq "unique exhausted: 10 functional errors" "$(func)" 10
check "unique exhausted: clear message" grep -Eq \
  "csv_feed.lua:[0-9]+: csv_users.csv: no row left for VU (1[1-9]|20) \(unique mode, 10 rows for 20 VUs\)" \
  <(sj "$TMP/s.json" '.tests[0].errors.samples.functional')
feed --vus 20 --runs 1 -p mode=unique -p on_exhausted=wrap
eq "unique, on_exhausted=wrap: each user twice, no error" "$(hits)/$(func)" "$each_twice/0"
feed --vus 20 --runs 1 -p mode=unique -p on_exhausted=stop
eq "unique, on_exhausted=stop: nil for VUs 11..20, no error" "$(hits)/$(func)" "$each_once/0"

# circular: 4 VUs x 5 runs = 20 calls over 10 rows: each row exactly twice.
feed --vus 4 --runs 5 -p mode=circular
eq "circular: wraps, each user twice" "$(hits)" "$each_twice"
eq "circular: no error" "$(func)" 0
# sequential: one cursor per worker (one worker here), wrapping: 12 calls = rows 1..10, then 1, 2.
feed --vus 3 --runs 4 --workers 1 -p mode=sequential
eq "sequential: wraps after the last row" "$(hits)" \
  "/u/user01=2 /u/user02=2 $(for i in $(seq -w 3 10); do printf '/u/user%s=1 ' "$i"; done)"
feed --vus 3 --runs 4 --workers 1 -p mode=sequential -p on_exhausted=error
eq "sequential, on_exhausted=error: 10 served, 2 errors" "$(distinct)/$(func)" 10/2
# random: every call a row of the file.
feed --vus 5 --runs 10 -p mode=random
eq "random: 50 rows, all from the file" \
  "$(curl -s "$BASE/__stats" | jq '[.by_path|to_entries[]|select(.key|test("^/u/user(0[1-9]|10)$"))|.value]|add')" 50
# header = false: rows are arrays.
feed --vus 3 --runs 1 -p mode=unique -p header=false -p file=csv_noheader.csv
eq "no header: row[1]" "$(hits)" "/u/alice=1 /u/bob=1 /u/carol=1 "

# Quoted fields, doubled quotes, CRLF, a line break in a field (asserted at load).
"$QUERN" run $D/csv_quoted.lua --vus 1 --runs 1 -p base_url="$BASE" >"$TMP/out" 2>"$TMP/err"
eq "quoted fields, header/no header: asserts pass" "$?" 0
check "feeder prints as itself" grep -q "csv feeder csv_quoted.csv (sequential, 3 rows)" "$TMP/err"

# Bad files: exit 2, the script line of quern.csv and the file's line, no request.
reset_target
bad() {
  "$QUERN" run $D/csv_feed.lua -q -p base_url="$BASE" --vus 2 --runs 1 -p file="$1" \
    >"$TMP/out" 2>"$TMP/err"
  echo $?
  cat "$TMP/err" >>"$TMP/all.err"
}
eq "quote in an unquoted field: exit 2" "$(bad csv_badquote.csv)" 2
check "quote in an unquoted field: file:line" \
  grep -q "^$D/csv_feed.lua:[0-9]*: csv_badquote.csv:3: quote in an unquoted field" "$TMP/err"
eq "wrong field count: exit 2" "$(bad csv_badcount.csv)" 2
check "wrong field count: file:line" \
  grep -q "^$D/csv_feed.lua:[0-9]*: csv_badcount.csv:3: 1 field, expected 2" "$TMP/err"
eq "unclosed quote: exit 2" "$(bad csv_unclosed.csv)" 2
check "unclosed quote: line of the opening quote" \
  grep -q "^$D/csv_feed.lua:[0-9]*: csv_unclosed.csv:3: quoted field not closed" "$TMP/err"
eq "column named twice: exit 2" "$(bad csv_duphead.csv)" 2
check "column named twice: says which" \
  grep -q "^$D/csv_feed.lua:[0-9]*: csv_duphead.csv:1: column \"user\" appears twice" "$TMP/err"
eq "missing file: exit 2" "$(bad nope.csv)" 2
check "missing file: names it" \
  grep -q "^$D/csv_feed.lua:[0-9]*: cannot open nope.csv ($D/nope.csv): No such file" "$TMP/err"
eq "one line" "$(wc -l <"$TMP/err")" 1
eq "a folder: exit 2" "$(bad .)" 2
check "a folder: not a regular file" grep -q "csv_feed.lua:[0-9]*: \. ($D/\.) is not a regular file" "$TMP/err"
truncate -s 65M "$TMP/big.csv"
eq "larger than 64 MiB (absolute path): exit 2" "$(bad "$TMP/big.csv")" 2
check "larger than 64 MiB: says so" grep -q "big.csv is larger than 64 MiB" "$TMP/err"
eq "bad files: no request reached the server" "$(stat .requests)" 0

# quern.csv from a VU: an error counted against the step.
"$QUERN" run $D/csv_late.lua --vus 1 --runs 1 -q -p base_url="$BASE" \
  --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
check "quern.csv from a VU: says it is for load time" \
  grep -q "csv_late.lua:6: quern.csv is called when the script loads" <(sj "$TMP/s.json" '.tests[0].errors.samples.functional')
cat "$TMP/err" >>"$TMP/all.err"
check "no sanitizer report" bash -c "! grep -q Sanitizer '$TMP/all.err'"

# Distributed: unique rows across two agents (the CSV travels with the script).
if "$QUERN" agent --help >/dev/null 2>&1; then
  reset_target
  printf 'token-for-the-csv-tests-%s\n' "$$" >"$TMP/token"; chmod 600 "$TMP/token"
  "$QUERN" run $D/csv_feed.lua --vus 10 --runs 1 -p base_url="$BASE" -p mode=unique \
    --agents 2 --wait 20s --listen 127.0.0.1:0 --port-file "$TMP/cport" --token-file "$TMP/token" \
    --summary-json "$TMP/s.json" >"$TMP/c.out" 2>"$TMP/c.err" &
  CPID=$!
  for _ in $(seq 100); do [ -s "$TMP/cport" ] && break; sleep 0.05; done
  APIDS=()
  for a in a1 a2; do
    "$QUERN" agent --console "127.0.0.1:$(cat "$TMP/cport")" --token-file "$TMP/token" \
      --workers 2 --name $a >"$TMP/agent-$a.log" 2>&1 &
    APIDS+=($!)
  done
  wait $CPID
  eq "distributed unique: console exits 0" "$?" 0
  eq "distributed unique: each user once across 2 agents x 2 workers" "$(hits)" "$each_once"
  for p in "${APIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  check "distributed: no sanitizer report" bash -c "! grep -q Sanitizer $TMP/c.err $TMP/agent-*.log"
fi
