#!/bin/bash
# quern-build-step.sh — a quern load test as a CI build step (Jenkins or any
# other CI, or by hand). Runs the scenario with its thresholds, records the
# run in the results database, writes JUnit XML (and a JTL file when this
# quern has --jtl), the HTML report, compares the run with the previous run
# of the same name, and exits with one status the build can act on.
# `quern-build-step.sh --help` tells the rest; scripts/jenkins/Jenkinsfile uses it.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: quern-build-step.sh [options] SCRIPT.lua [-- QUERN RUN OPTIONS...]

Runs `quern run SCRIPT.lua` as a CI build step, then `quern report` and
`quern compare` against the previous run of the same name, and writes into
the output folder:
  run.log        what quern run printed (thresholds, per-step table)
  junit.xml      JUnit XML: a test case per step and per threshold
  summary.json   the summary, with every threshold's verdict
  results.jtl    JMeter CSV results, when this quern has --jtl
  report.html    the run's HTML report (quern report)
  compare.html   both runs on the same charts, and compare.txt, the per-step
                 table (quern compare), when there is a previous run
  quern-results.db  the results database, unless --db or $QUERN_DB_DIR puts
                 it elsewhere: archive it and give it back with --seed-db to
                 the next build, so that it compares with this one

options:
  -o, --out DIR              output folder (default ./quern-out)
  -n, --name NAME            run name in the database; runs are compared with
                             the previous run of that name (default: the
                             script's base name, without .lua)
      --db FILE              results database (default: $QUERN_DB_DIR/
                             quern-results.db when QUERN_DB_DIR is set, a folder
                             kept on the agent; else OUT/quern-results.db)
      --seed-db FILE         when the database does not exist yet, start from a
                             copy of FILE (the previous build's archived
                             database); a FILE that does not exist is fine
      --fail-on-regression P%
                             a step is worse when TPS or a latency moved by more
                             than P% and beyond the noise (default 10%); "off":
                             no comparison; a regressed run is marked so in the
                             database and is no later build's baseline
      --baseline SPEC        what the run is compared with: last-passed (the
                             default: the newest passed run of its name, never a
                             failed or regressed one), a run id, or
                             tag:KEY[=VALUE] (quern compare --baseline)
      --baselines N          compare with the N newest passed runs: their
                             spread is the noise of the unchanged system
      --tag KEY=VALUE        tag the run (repeatable); the tags build, job and
                             commit come from $BUILD_NUMBER, $JOB_NAME and
                             $GIT_COMMIT when they are set
      --quern PATH           the quern binary (default: $QUERN, else quern on
                             the PATH, else bin/quern of this repository)
  -h, --help                 this help

Everything after -- goes to quern run as it is: --vus, --duration, -p
base_url=..., --threshold 'p95<500ms', --abort-on-fail, --agents...

exit status:
  0  the run completed, every threshold passed, no step regressed
  1  a threshold failed, a step regressed, or the run was degraded
  2  usage or script error (nothing was sent)
  3  the run could not start or was aborted, or a report could not be written
EOF
}

die_usage() {
  echo "quern-build-step: $*" >&2
  echo "usage: quern-build-step.sh [options] SCRIPT.lua [-- QUERN RUN OPTIONS...] (see --help)" >&2
  exit 2
}

say() { echo "quern-build-step: $*"; }

out=./quern-out
name=
db=
seed=
regression=10%
baseline=
baselines=
quern=
script=
tags=()
run_args=()

need_value() { [ $# -ge 2 ] || die_usage "$1 needs a value"; }
while [ $# -gt 0 ]; do
  case $1 in
  -h | --help) usage; exit 0 ;;
  -o | --out) need_value "$@"; out=$2; shift 2 ;;
  -n | --name) need_value "$@"; name=$2; shift 2 ;;
  --db) need_value "$@"; db=$2; shift 2 ;;
  --seed-db) need_value "$@"; seed=$2; shift 2 ;;
  --fail-on-regression) need_value "$@"; regression=$2; shift 2 ;;
  --baseline) need_value "$@"; baseline=$2; shift 2 ;;
  --baselines) need_value "$@"; baselines=$2; shift 2 ;;
  --tag) need_value "$@"; tags+=(--tag "$2"); shift 2 ;;
  --quern) need_value "$@"; quern=$2; shift 2 ;;
  --) shift; run_args=("$@"); break ;;
  -*) die_usage "unknown option $1" ;;
  *)
    [ -z "$script" ] || die_usage "one script only, got also \"$1\""
    script=$1; shift ;;
  esac
done

[ -n "$script" ] || die_usage "no script given"
[ -r "$script" ] || die_usage "cannot read script $script"
[ -n "$out" ] || die_usage "--out is empty"
case $regression in
off | [0-9]*%) ;;
*) die_usage "--fail-on-regression wants a percentage like 10% (or off), got \"$regression\"" ;;
esac

if [ -z "$quern" ]; then
  if [ -n "${QUERN:-}" ]; then
    quern=$QUERN
  elif command -v quern >/dev/null 2>&1; then
    quern=$(command -v quern)
  else
    quern="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/bin/quern"
  fi
fi
[ -x "$quern" ] || die_usage "no quern binary at \"$quern\" (give --quern PATH or set \$QUERN)"

if [ -z "$name" ]; then
  name=$(basename "$script")
  name=${name%.lua}
fi
mkdir -p "$out"
if [ -z "$db" ]; then
  if [ -n "${QUERN_DB_DIR:-}" ]; then
    mkdir -p "$QUERN_DB_DIR"
    db=$QUERN_DB_DIR/quern-results.db
  else
    db=$out/quern-results.db
  fi
fi
if [ -n "$seed" ] && [ ! -e "$db" ]; then
  if [ -f "$seed" ]; then
    cp "$seed" "$db"
    say "results database: starting from $seed"
  else
    say "results database: no $seed to start from (a first build?): starting afresh"
  fi
fi
[ -n "${BUILD_NUMBER:-}" ] && tags+=(--tag "build=$BUILD_NUMBER")
[ -n "${JOB_NAME:-}" ] && tags+=(--tag "job=$JOB_NAME")
[ -n "${GIT_COMMIT:-}" ] && tags+=(--tag "commit=$GIT_COMMIT")

# Outputs of an earlier step in the same folder must not be mistaken for ours.
rm -f "$out/run.log" "$out/junit.xml" "$out/summary.json" "$out/results.jtl" \
  "$out/report.html" "$out/compare.html" "$out/compare.txt" "$out/compare.err"

files=(--junit "$out/junit.xml" --summary-json "$out/summary.json")
if "$quern" help run 2>/dev/null | grep -q -- '--jtl'; then
  files+=(--jtl "$out/results.jtl")
fi

# --- the run
say "quern run $script (name $name, database $db)"
set +e +o pipefail
"$quern" run "$script" --db "$db" --name "$name" "${tags[@]}" "${files[@]}" "${run_args[@]}" 2>&1 |
  tee "$out/run.log"
run_rc=${PIPESTATUS[0]}
set -e -o pipefail
case $run_rc in
0 | 1 | 2 | 3) ;;
*) say "quern run died (exit $run_rc)"; run_rc=3 ;;
esac
if [ "$run_rc" = 2 ]; then
  say "usage or script error: nothing was run (exit 2)"
  exit 2
fi

# --- the run's id: the newest run of that name
runs_of_name() {
  "$quern" runs --db "$db" --name "$name" --limit "$1" 2>/dev/null | awk 'NR > 1 && $1 ~ /^[0-9]+$/ {print $1}'
}
run_id=$( (runs_of_name 1 || true) | head -n 1)
if [ -z "$run_id" ]; then
  say "the run was not recorded in $db (exit $run_rc)"
  exit $((run_rc == 0 ? 3 : run_rc))
fi

tool_failed=0
# --- the report
if "$quern" report "$run_id" --db "$db" -o "$out/report.html" >/dev/null; then
  say "report: $out/report.html (run $run_id)"
else
  say "quern report failed"
  tool_failed=1
fi

# --- the comparison with the previous run of the same name
cmp_rc=0
nruns=$( (runs_of_name 2 || true) | wc -l)
if [ "$regression" = off ]; then
  say "comparison: off"
elif [ "$run_rc" = 3 ]; then
  say "comparison: skipped (the run was aborted)"
elif [ "$nruns" -lt 2 ]; then
  say "comparison: no previous run named $name in $db: nothing to compare with"
else
  cmp_args=()
  [ -n "$baseline" ] && cmp_args+=(--baseline "$baseline")
  [ -n "$baselines" ] && cmp_args+=(--baselines "$baselines")
  set +e +o pipefail
  "$quern" compare "$run_id" --db "$db" -o "$out/compare.html" --fail-on-regression "$regression" \
    "${cmp_args[@]}" 2>"$out/compare.err" | tee "$out/compare.txt"
  cmp_rc=${PIPESTATUS[0]}
  set -e -o pipefail
  cat "$out/compare.err" >&2
  case $cmp_rc in
  0) say "comparison: no regression beyond $regression" ;;
  1) say "comparison: REGRESSION beyond $regression (see $out/compare.txt)" ;;
  2)
    if grep -q 'no earlier passed run' "$out/compare.err"; then
      say "comparison: no passed run named $name before this one in $db: nothing to compare with"
    else
      say "quern compare failed (exit $cmp_rc)"
      tool_failed=1
    fi
    cmp_rc=0
    ;;
  *) say "quern compare failed (exit $cmp_rc)"; tool_failed=1; cmp_rc=0 ;;
  esac
fi

# --- one verdict
if [ "$run_rc" = 3 ]; then
  rc=3
elif [ "$run_rc" = 1 ] || [ "$cmp_rc" = 1 ]; then
  rc=1
elif [ "$tool_failed" = 1 ]; then
  rc=3
else
  rc=0
fi
say "run $run_id: quern run exit $run_rc, compare exit $cmp_rc: exit $rc"
exit $rc
