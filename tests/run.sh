#!/bin/bash
# Runs every test and ends with one line "N passed, N failed".
#   tests/run.sh BUILD_DIR              lint checks, unit tests (cmocka), fuzz corpora, end-to-end tests
#   tests/run.sh --valgrind BUILD_DIR   unit tests under valgrind, zero leaks
set -u
cd "$(dirname "$0")/.."

valgrind=0
if [ "${1:-}" = "--valgrind" ]; then valgrind=1; shift; fi
B=${1:?usage: tests/run.sh [--valgrind] BUILD_DIR}
passed=0
failed=0
failures=()
LOGDIR=$(mktemp -d /tmp/quern-tests.XXXXXX)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export CMOCKA_MESSAGE_OUTPUT=stdout

# The checks of tests/lint/ (layering, headers alone, clang-format, tests
# mirroring the tree, prefixes, error messages, luacheck): one test each, a failure's output
# shown below it.
if [ $valgrind = 0 ]; then
  log="$LOGDIR/lint.log"
  tests/lint/run.sh >"$log" 2>&1
  rc=$?
  ok=$(grep -c '^ok ' "$log")
  bad=$(grep -c '^not ok ' "$log")
  passed=$((passed + ok))
  failed=$((failed + bad))
  if [ "$rc" != 0 ] && [ "$bad" = 0 ]; then
    failed=$((failed + 1))
    failures+=("lint (exit $rc)")
  fi
  for c in $(sed -n 's/^not ok //p' "$log"); do failures+=("$c"); done
  printf '%-28s %3d passed, %d failed%s\n' "lint" "$ok" "$bad" \
    "$([ "$rc" != 0 ] && echo " (see $log)")"
  [ "$rc" != 0 ] && grep -v '^ok ' "$log" | head -n 60 | sed 's/^/    /'
fi

for t in "$B"/tests/test_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  [ -e "tests/unit/$name.c" ] || continue # a binary left by a renamed or removed test
  log="$LOGDIR/$name.log"
  if [ $valgrind = 1 ]; then
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
      --error-exitcode=99 "$t" >"$log" 2>&1
  else
    "$t" >"$log" 2>&1
  fi
  rc=$?
  ok=$(grep -c '^\[       OK \]' "$log")
  bad=$(grep '^\[  FAILED  \]' "$log" | grep -vc 'test(s)')
  passed=$((passed + ok))
  failed=$((failed + bad))
  if [ "$rc" != 0 ] && [ "$bad" = 0 ]; then
    failed=$((failed + 1))
    failures+=("$name (exit $rc)")
  fi
  [ "$bad" != 0 ] && failures+=("$name")
  printf '%-28s %3d passed, %d failed%s\n' "$name" "$ok" "$bad" \
    "$([ "$rc" != 0 ] && echo " (exit $rc, see $log)")"
done

# Each fuzz target once over its checked-in corpus (tests/fuzz/, built with
# tests/fuzz/driver.c): every seed and every input that once crashed must pass.
if [ $valgrind = 0 ]; then
  for t in "$B"/fuzz/fuzz_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    [ -e "tests/fuzz/$name.c" ] || continue # left by a renamed or removed target
    corpus="tests/fuzz/corpus/${name#fuzz_}"
    log="$LOGDIR/$name.log"
    "$t" "$corpus" >"$log" 2>&1
    rc=$?
    n=$(find "$corpus" -maxdepth 1 -type f ! -name '.*' 2>/dev/null | wc -l)
    if [ "$rc" = 0 ] && [ "$n" -gt 0 ]; then
      passed=$((passed + 1))
      printf '%-28s %3d passed, 0 failed (%d inputs)\n' "$name" 1 "$n"
    else
      failed=$((failed + 1))
      failures+=("$name")
      printf '%-28s %3d passed, 1 failed (exit %s, see %s)\n' "$name" 0 "$rc" "$log"
      grep -E '^running |ERROR: |SUMMARY: |invariant failed' "$log" | tail -n 4 | sed 's/^/    /'
    fi
  done
fi

# End-to-end tests, E2E_JOBS slots at a time (3 by default): most of their
# time is spent waiting on runs bounded in time, not on the CPU (each test's
# CPU time is printed beside its wall time). A test whose first lines hold
# "# e2e: heavy" (it drives a CPU-bound load) takes two slots; one holding
# "# e2e: alone" (it judges timing, or loads the machine) runs by itself
# after the others; the heavy ones and those holding "# e2e: long" start
# first. Each test has its own log and default database.
e2e_one() {  # e2e_one NAME: runs it, writes NAME.result "ok bad rc seconds cpu-seconds"
  local name=$1 start rc cpu
  start=$(date +%s)
  QUERN_DB="$LOGDIR/$name.db" timeout 300 bash "tests/e2e/$name.sh" >"$LOGDIR/$name.log" 2>&1
  rc=$?
  # the CPU time of the test and everything it started (bash's times: the
  # second line is the children's user and system time; e2e_one runs in a
  # subshell of its own, so they are this test's)
  times >"$LOGDIR/$name.times"
  cpu=$(sed -n 2p "$LOGDIR/$name.times" | awk '{ split($1, u, "m"); split($2, s, "m"); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
  echo "$(grep -c '^ok ' "$LOGDIR/$name.log") $(grep -c '^not ok ' "$LOGDIR/$name.log") $rc $(($(date +%s) - start)) ${cpu:-0}" \
    >"$LOGDIR/$name.result"
}
e2e_report() {  # e2e_report NAME: counts and prints one finished test
  local name=$1 ok bad rc secs cpu log="$LOGDIR/$1.log"
  read -r ok bad rc secs cpu <"$LOGDIR/$name.result"
  passed=$((passed + ok))
  failed=$((failed + bad))
  if [ "$rc" != 0 ] && [ "$bad" = 0 ]; then
    failed=$((failed + 1))
    failures+=("$name (exit $rc)")
  fi
  [ "$bad" != 0 ] && failures+=("$name")
  printf '%-28s %3d passed, %d failed (%ds, CPU %ds)\n' "$name" "$ok" "$bad" "$secs" "$cpu"
  if [ "$bad" != 0 ] || [ "$rc" != 0 ]; then
    grep '^not ok ' "$log" | sed 's/^/    /'
    echo "    --- last lines of $log:"; tail -n 25 "$log" | sed 's/^/    /'
  fi
}
if [ $valgrind = 0 ]; then
  export QUERN="$PWD/$B/quern" TARGET="$PWD/$B/quern-target"
  export QUERN_TEST_ARTIFACTS="$PWD/tests/artifacts"
  mkdir -p "$QUERN_TEST_ARTIFACTS"
  jobs_max=${E2E_JOBS:-3}
  together=() alone=()
  declare -A weight=()
  # those that take longest ("heavy" or "long" in their first lines) start
  # first, so that the last slots do not wait on one of them alone
  later=()
  for t in tests/e2e/*.sh; do
    name=$(basename "$t" .sh)
    weight[$name]=1
    head -n 15 "$t" | grep -q '^# e2e: heavy' && weight[$name]=2
    if head -n 15 "$t" | grep -q '^# e2e: alone'; then
      alone+=("$name")
    elif head -n 15 "$t" | grep -q '^# e2e: \(heavy\|long\)'; then
      together+=("$name")
    else
      later+=("$name")
    fi
  done
  together+=("${later[@]}")
  declare -A pid_name=()
  used=0
  reap_one() {  # waits for one test to end, reports it, frees its slots
    wait -n -p done_pid "${!pid_name[@]}"
    e2e_report "${pid_name[$done_pid]}"
    used=$((used - weight[${pid_name[$done_pid]}]))
    unset "pid_name[$done_pid]"
  }
  for name in "${together[@]}"; do
    while [ "${#pid_name[@]}" -gt 0 ] && [ $((used + weight[$name])) -gt "$jobs_max" ]; do reap_one; done
    e2e_one "$name" &
    pid_name[$!]=$name
    used=$((used + weight[$name]))
  done
  while [ "${#pid_name[@]}" -gt 0 ]; do reap_one; done
  for name in "${alone[@]}"; do
    (e2e_one "$name")
    e2e_report "$name"
  done
fi

if [ ${#failures[@]} -gt 0 ]; then
  echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
