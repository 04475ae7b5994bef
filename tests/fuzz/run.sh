#!/bin/bash
# Runs libFuzzer targets for a bounded time each (make fuzz).
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]    default: every BUILD_DIR/fuzz_*
# Each target starts from its checked-in seeds (tests/fuzz/corpus/TARGET/)
# and grows a working corpus in BUILD_DIR/corpus/TARGET/ (kept between runs,
# not checked in). A crashing input is written to BUILD_DIR/crashes/ ; add it
# to the checked-in corpus once the bug is fixed. Prints the executions each
# target reached; exits 1 if any target crashed.
set -u
cd "$(dirname "$0")/../.."

FZ=${1:?usage: tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]}
SECS=${2:?usage: tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
if [ ${#targets[@]} = 0 ]; then
  for t in "$FZ"/fuzz_*; do [ -x "$t" ] && targets+=("$(basename "$t" | sed 's/^fuzz_//')"); done
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$FZ/crashes" "$FZ/logs"
crashed=()
summary=()
for t in "${targets[@]}"; do
  bin="$FZ/fuzz_$t"
  seeds="tests/fuzz/corpus/$t"
  work="$FZ/corpus/$t"
  log="$FZ/logs/$t.log"
  mkdir -p "$work" "$seeds"
  echo "fuzz_$t: ${SECS}s ..."
  "$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$FZ/crashes/$t-" "$work" "$seeds" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  files=$(find "$work" -type f | wc -l)
  line=$(printf '%-8s %12s executions (%s/s), %s, corpus %s' "$t" "${runs:-?}" "${speed:-?}" \
    "${cov:-cov: ?}" "$files")
  if [ $rc != 0 ]; then
    line="$line, CRASHED (exit $rc, see $log)"
    crashed+=("$t")
    grep -m 3 -E 'ERROR: |SUMMARY: |invariant failed|Test unit written' "$log" | sed 's/^/    /'
  fi
  summary+=("$line")
  echo "$line"
done
echo "--- executions per target (${SECS}s each)"
printf '%s\n' "${summary[@]}"
if [ ${#crashed[@]} -gt 0 ]; then
  echo "crashed: ${crashed[*]} (inputs in $FZ/crashes/)"
  exit 1
fi
