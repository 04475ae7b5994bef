# The Jenkins build step (scripts/jenkins/quern-build-step.sh) against the demo
# target: two builds that pass and share a results database kept between them
# (in $QUERN_DB_DIR, then as an archived copy given back with --seed-db, also
# from an older quern's schema); a deliberately slowed build exits 1 with a
# regression; a failed threshold exits 1 and shows in the JUnit XML; a script
# error exits 2 before any request; an unusable database exits 3.
# e2e: long (it starts among the first: tests/run.sh)
. "$(dirname "$0")/lib.bash"
if ! command -v sqlite3 >/dev/null; then
  notok "the sqlite3 command-line tool is installed (apt-get install sqlite3)"
  exit 0
fi
unset QUERN_DB BUILD_NUMBER JOB_NAME GIT_COMMIT
export QUERN
STEP=scripts/jenkins/quern-build-step.sh
SCRIPT=scripts/jenkins/example.lua
export QUERN_DB_DIR=$TMP/agent-db
DB=$QUERN_DB_DIR/quern-results.db
q() { sqlite3 -batch -noheader "$1" "$2"; }
start_target
# step N [STEP OPTIONS...] [-- RUN OPTIONS...]: a build into $TMP/bN; prints its exit status.
step() {
  local n=$1; shift
  local pre=() post=() seen=0 a
  for a in "$@"; do
    if [ $seen = 0 ] && [ "$a" = -- ]; then seen=1; continue; fi
    if [ $seen = 0 ]; then pre+=("$a"); else post+=("$a"); fi
  done
  "$STEP" --out "$TMP/b$n" --name ci-e2e --fail-on-regression 100% "${pre[@]}" "$SCRIPT" -- \
    --vus 4 --duration 3s -p base_url="$BASE" -p pacing=250ms "${post[@]}" \
    >"$TMP/b$n.out" 2>"$TMP/b$n.err"
  echo $?
}

# Usage.
"$STEP" --help >"$TMP/help.out" 2>&1
eq "--help: exit 0" "$?" 0
check "--help: lists the exit statuses" grep -q '^  1  a threshold failed, a step regressed' "$TMP/help.out"
"$STEP" >/dev/null 2>"$TMP/usage.err"
eq "no script: exit 2" "$?" 2
check "no script: says so" grep -q 'no script given' "$TMP/usage.err"
"$STEP" --fail-on-regression lots "$SCRIPT" >/dev/null 2>&1
eq "bad --fail-on-regression: exit 2" "$?" 2

# Build 1: passes; nothing to compare with yet.
eq "build 1: exit 0" "$(step 1)" 0
check "build 1: the database is in \$QUERN_DB_DIR" test -s "$DB"
check "build 1: JUnit XML well-formed" xmllint --noout "$TMP/b1/junit.xml"
# 1 step, 3 thresholds of the script, and the default count>=1
eq "build 1: JUnit has a case per step and per threshold" "$(grep -c '<testcase' "$TMP/b1/junit.xml")" 5
check "build 1: JUnit without failure" grep -q 'failures="0"' "$TMP/b1/junit.xml"
check "build 1: HTML report" grep -qi '<svg' "$TMP/b1/report.html"
check "build 1: says there is no previous run" grep -q 'no previous run named ci-e2e' "$TMP/b1.out"
check "build 1: no comparison page" test ! -e "$TMP/b1/compare.html"
check "build 1: thresholds from the scenario printed" grep -q 'PASS  p95<500ms .*(scripts/jenkins/example.lua:13)' "$TMP/b1/run.log"
eq "build 1: summary JSON carries the thresholds" \
  "$(jq -r '[.thresholds[] | "\(.expr)=\(.passed)"] | join(" ")' "$TMP/b1/summary.json")" \
  "errors<1%=true p95<500ms=true SC-CI-CATALOG-STEP-*: count>=20=true count>=1=true"

# Build 2: same load; compared with build 1, no regression.
eq "build 2: exit 0" "$(step 2)" 0
check "build 2: compare output" grep -q '^verdict: 0 steps worse' "$TMP/b2/compare.txt"
check "build 2: compare page" grep -qi '<svg' "$TMP/b2/compare.html"
check "build 2: HTML report" test -s "$TMP/b2/report.html"
eq "the database carries both runs" "$(q "$DB" "SELECT count(*) FROM runs WHERE name = 'ci-e2e' AND status = 'completed'")" 2
eq "both runs' threshold verdicts stored" \
  "$(q "$DB" "SELECT count(*) || ' ' || sum(passed) FROM thresholds")" "8 8"
eq "verdicts: expr, source, measured, limit" \
  "$(q "$DB" "SELECT expr || '|' || source || '|' || (measured > 0) || '|' || \"limit\" || '|' || unit FROM thresholds WHERE run_id = 2 AND position = 1")" \
  "p95<500ms|scripts/jenkins/example.lua:13|1|500.0|ms"
eq "the server saw every request of both builds" \
  "$(q "$DB" "SELECT sum(count) FROM step_totals")" "$(stat .requests)"

# Build 3: the page answers in 200 ms instead of 40: a regression, exit 1,
# although every threshold passes.
eq "slowed build: exit 1" "$(step 3 -- -p 'path=/slow?ms=200')" 1
check "slowed build: thresholds still pass" bash -c "! grep -q '^  FAIL' '$TMP/b3/run.log'"
check "slowed build: the step is worse" grep -q '^SC-CI-CATALOG-STEP-1 (Catalogue): worse' "$TMP/b3/compare.txt"
check "slowed build: says regression" grep -q 'REGRESSION beyond 100%' "$TMP/b3.out"
check "slowed build: compare page" test -s "$TMP/b3/compare.html"
eq "slowed build: marked regressed in the database" \
  "$(q "$DB" "SELECT regressed LIKE 'SC-CI-CATALOG-STEP-1 (%p95 +%' FROM runs WHERE id = 3")" 1
check "slowed build: compare says so" grep -q '^run 3 marked regressed' "$TMP/b3/compare.txt"

# Build 4: back to normal (better than build 3) but a threshold fails: exit 1,
# the failure in the JUnit XML and the database.
eq "failed threshold: exit 1" "$(step 4 -- --threshold 'p95<10ms')" 1
check "failed threshold: printed" grep -q '^  FAIL  p95<10ms' "$TMP/b4/run.log"
check "failed threshold: in the JUnit XML" grep -q '<failure message="p95 of all steps' "$TMP/b4/junit.xml"
check "failed threshold: JUnit still well-formed" xmllint --noout "$TMP/b4/junit.xml"
check "failed threshold: no regression" grep -q '^verdict: 0 steps worse' "$TMP/b4/compare.txt"
eq "failed threshold: stored, from the command line" \
  "$(q "$DB" "SELECT source || ' ' || passed FROM thresholds WHERE run_id = 4 AND expr = 'p95<10ms'")" "cli 0"

# The database kept as a build artifact: the next build starts from a copy of
# the archived one (--seed-db), and compares with the last run in it.
unset QUERN_DB_DIR
cp "$DB" "$TMP/archived.db"
eq "seeded build: exit 0" "$(step 5 --seed-db "$TMP/archived.db")" 0
check "seeded build: the database is in the output folder" test -s "$TMP/b5/quern-results.db"
eq "seeded build: it holds the earlier runs" "$(q "$TMP/b5/quern-results.db" "SELECT count(*) FROM runs")" 5
# build 4 failed its threshold and build 3 regressed: neither is a baseline
check "seeded build: compared with build 2, the last passed and not regressed" \
  grep -q '^baseline: run 2 ' "$TMP/b5/compare.txt"
eq "first build without a seed: exit 0" "$(step 6 --seed-db "$TMP/none.db")" 0

# A database from quern before thresholds were stored (schema 1) still opens.
awk '/^-- @migration 2/ {exit} /^-- @migration 1/ {on = 1} on' store/schema.sql >"$TMP/v1.sql"
sqlite3 "$TMP/v1.db" <"$TMP/v1.sql"
sqlite3 "$TMP/v1.db" "PRAGMA user_version = 1; INSERT INTO runs (name, script, script_hash, quern_version, vus, started_at, started_us, status) VALUES ('older', 'x.lua', 'h', '0.1', 1, '2024-01-01T00:00:00.000Z', 1, 'completed')"
eq "schema 1 database: exit 0" "$(step 7 --db "$TMP/v1.db")" 0
eq "schema 1 database: upgraded" "$(q "$TMP/v1.db" 'PRAGMA user_version')" "$(sed -n 's/^#define DB_SCHEMA_VERSION \([0-9]*\).*/\1/p' store/db.h)"
eq "schema 1 database: old run kept, new one added" "$(q "$TMP/v1.db" "SELECT count(*) FROM runs")" 2

# A script error: exit 2, file:line, nothing sent.
reset_target
printf 'local quern = require "quern"\nlocal sc = quern.scenario("X")\nsc:step(1, "a")\nquern.threshold("p95<soon")\nfunction sc.run(vu) end\n' >"$TMP/bad.lua"
"$STEP" --out "$TMP/b8" --db "$TMP/b8.db" "$TMP/bad.lua" -- -p base_url="$BASE" >"$TMP/b8.out" 2>&1
eq "script error: exit 2" "$?" 2
check "script error: file:line of the threshold" grep -q "bad.lua:4: threshold 'p95<soon'" "$TMP/b8/run.log"
eq "script error: no request sent" "$(stat .requests)" 0

# A database this quern cannot use: the run cannot start, exit 3.
sqlite3 "$TMP/new.db" 'PRAGMA user_version = 99'
eq "unusable database: exit 3" "$(step 9 --db "$TMP/new.db")" 3

# --summary-json -: standard output is the JSON alone (for a pipe), the
# table goes to stderr; the run's id, name, start and totals let the next CI
# step find it (quern report ID).
reset_target
"$QUERN" run "$SCRIPT" --vus 6 --duration 2s -p base_url="$BASE" --db "$TMP/pipe.db" --name piped \
  --summary-json - >"$TMP/pipe.json" 2>"$TMP/pipe.err"
eq "--summary-json -: exit 0" "$?" 0
check "  standard output is one JSON document" jq -e . "$TMP/pipe.json"
check "  the table went to stderr" grep -q '^Test  *Count' "$TMP/pipe.err"
eq "  run.id is the database's" "$(jq -r .run.id "$TMP/pipe.json")" \
  "$(q "$TMP/pipe.db" "SELECT id FROM runs WHERE name = 'piped'")"
eq "  run.name" "$(jq -r .run.name "$TMP/pipe.json")" piped
check "  run.started_at: ISO 8601 UTC" sh -c "jq -r .run.started_at '$TMP/pipe.json' | grep -Eqx '20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-9:]{8}\.[0-9]{3}Z'"
eq "  totals.count: every step's, the server's" "$(jq -r .totals.count "$TMP/pipe.json")" "$(stat .requests)"
eq "  totals.count = the sum of tests[].count" "$(jq -r .totals.count "$TMP/pipe.json")" \
  "$(jq '[.tests[].count] | add' "$TMP/pipe.json")"
"$QUERN" report "$(jq -r .run.id "$TMP/pipe.json")" --db "$TMP/pipe.db" -o "$TMP/pipe.html" >/dev/null 2>&1
eq "  quern report ID: exit 0" "$?" 0

check "no sanitizer report" bash -c "! grep -q Sanitizer '$TMP'/b*.out '$TMP'/b*.err '$TMP'/b*/run.log"
