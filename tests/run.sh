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
# mirroring the tree): one test each, a failure's output shown below it.
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

if [ $valgrind = 0 ]; then
  export QUERN="$PWD/$B/quern" TARGET="$PWD/$B/quern-target"
  export QUERN_TEST_ARTIFACTS="$PWD/tests/artifacts"
  export QUERN_DB="$LOGDIR/quern-results.db"  # runs without --db write here, not in the tree
  mkdir -p "$QUERN_TEST_ARTIFACTS"
  for t in tests/e2e/*.sh; do
    name=$(basename "$t" .sh)
    log="$LOGDIR/$name.log"
    start=$(date +%s)
    timeout 300 bash "$t" >"$log" 2>&1
    rc=$?
    ok=$(grep -c '^ok ' "$log")
    bad=$(grep -c '^not ok ' "$log")
    passed=$((passed + ok))
    failed=$((failed + bad))
    if [ "$rc" != 0 ] && [ "$bad" = 0 ]; then
      failed=$((failed + 1))
      failures+=("$name (exit $rc)")
    fi
    [ "$bad" != 0 ] && failures+=("$name")
    printf '%-28s %3d passed, %d failed (%ds)\n' "$name" "$ok" "$bad" $(( $(date +%s) - start ))
    if [ "$bad" != 0 ] || [ "$rc" != 0 ]; then
      grep '^not ok ' "$log" | sed 's/^/    /'
      echo "    --- last lines of $log:"; tail -n 25 "$log" | sed 's/^/    /'
    fi
  done
fi

if [ ${#failures[@]} -gt 0 ]; then
  echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
