# A hostile or careless script never turns a failure green, never stalls a
# VU, never aborts a worker, never grows one without bound: os.exit, a stray
# coroutine.yield, an error object whose __tostring raises, a run that keeps
# allocating, names that are not UTF-8.
. "$(dirname "$0")/lib.bash"
start_target
D=tests/e2e/scripts
# run SCRIPT ARGS...: quern run bounded in time; prints its exit status.
run() {
  local s=$1; shift
  timeout 30 "$QUERN" run "$D/$s" -p base_url="$BASE" -q --summary-json "$TMP/s.json" \
    --junit "$TMP/j.xml" "$@" >"$TMP/out" 2>"$TMP/err"
  echo $?
}
func_errors() { sj "$TMP/s.json" '[.tests[].errors.functional] | add'; }
func_sample() { sj "$TMP/s.json" '.tests[0].errors.samples.functional // ""'; }

# os.exit at the top level: exit 2 with file:line, the JUnit start case failed.
rm -f "$TMP/j.xml"
eq "os.exit while loading: exit 2" "$(run hostile_exit.lua --vus 1 --runs 1)" 2
check "os.exit while loading: file:line" \
  grep -qx "$D/hostile_exit.lua:5: os.exit is not allowed in a scenario" <(head -n 1 "$TMP/err")
check "os.exit while loading: the JUnit start case fails with it" \
  grep -q '<failure message=".*hostile_exit.lua:5: os.exit is not allowed' "$TMP/j.xml"
eq "os.exit while loading: nothing sent" "$(stat .requests)" 0

# os.exit from a run: a functional error at its line, every run played.
eq "os.exit in a run: errors fail the run (exit 1)" "$(run hostile_exit_run.lua --vus 1 --runs 3)" 1
eq "os.exit in a run: one error a run" "$(func_errors)" 3
check "os.exit in a run: file:line" \
  grep -q "hostile_exit_run.lua:9: os.exit is not allowed in a scenario" <(func_sample)
eq "os.exit in a run: every run sent its request" "$(stat .requests)" 3

# A stray coroutine.yield: an error at its line, and --runs ends.
reset_target
t0=$(date +%s)
eq "stray yield: errors fail the run (exit 1)" "$(run hostile_yield.lua --vus 2 --runs 3)" 1
between "stray yield: --runs 3 ends at once (s)" $(($(date +%s) - t0)) 0 10
eq "stray yield: one error a run" "$(func_errors)" 6
check "stray yield: file:line" \
  grep -q "hostile_yield.lua:8: coroutine.yield outside a request or sleep" <(func_sample)
eq "stray yield: 3 runs a VU" "$(sj "$TMP/s.json" '.scenarios[0].runs')" 6
eq "stray yield: each run's request counted" "$(sj "$TMP/s.json" '.tests[0].count')" 6

# The script's own coroutines keep working.
eq "own coroutines: the run passes" "$(run hostile_gen.lua --vus 1 --runs 3)" 0
eq "own coroutines: no error (the script asserts the generator's sum)" "$(func_errors)" 0
eq "own coroutines: each run's request, with the generator's sum" \
  "$(sj "$TMP/s.json" '.tests[0].count')" 3

# An error object whose __tostring raises: a message, and the worker lives on.
eq "raising __tostring: errors fail the run (exit 1)" "$(run hostile_tostring.lua --vus 1 --runs 3)" 1
eq "raising __tostring: one error a run, none lost" "$(func_errors)" 3
eq "raising __tostring: the type is the message" "$(func_sample)" "(error object is a table value)"
eq "raising __tostring: the worker did not abort" "$(grep -c "unprotected error" "$TMP/err")" 0
eq "raising __tostring: run completed" "$(sj "$TMP/s.json" .run.status)" completed

# --worker-memory: past it the run's allocation fails, the VU goes on, the
# worker stays small. ru_maxrss of the children: the largest process of the
# tree (AddressSanitizer's quarantine of freed blocks kept small).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4"
t0=$(date +%s)
rss=$(python3 -c '
import resource, subprocess, sys
subprocess.call(sys.argv[1:], stdout=open(sys.argv[-1] + ".out", "w"), stderr=subprocess.STDOUT)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
  timeout 30 "$QUERN" run $D/hostile_memory.lua --vus 2 --runs 3 --worker-memory 64M -q \
  --summary-json "$TMP/m.json")
between "--worker-memory: bounded time (s)" $(($(date +%s) - t0)) 0 15
eq "--worker-memory: every run failed on memory" "$(sj "$TMP/m.json" '.tests[0].errors.functional')" 6
check "--worker-memory: the summary says not enough memory, at the line" \
  grep -q 'hostile_memory.lua:8: not enough memory' <(sj "$TMP/m.json" '.tests[0].errors.samples.functional')
eq "--worker-memory: every run played" "$(sj "$TMP/m.json" '.scenarios[0].runs')" 6
eq "--worker-memory: run completed (no worker lost)" "$(sj "$TMP/m.json" .run.status)" completed
eq "--worker-memory: errors and no threshold: the default rule fails it" \
  "$(sj "$TMP/m.json" .verdict.passed)" false
between "--worker-memory: the largest process stayed small (KB)" "$rss" 1 200000
eq "--worker-memory 2X: exit 2" "$(run hostile_gen.lua --worker-memory 2X)" 2
check "--worker-memory 2X: names the flag" grep -q -- "--worker-memory: \"2X\" is not an amount" "$TMP/err"
eq "--worker-memory 1M: below the floor, exit 2" "$(run hostile_gen.lua --worker-memory 1M)" 2

# Names that are not UTF-8 are refused where they are declared.
eq "label not UTF-8: exit 2" "$(run hostile_label.lua --vus 1 --runs 1)" 2
check "label not UTF-8: file:line" \
  grep -qx "$D/hostile_label.lua:4: step 1: label is not valid UTF-8 (byte 4)" <(head -n 1 "$TMP/err")
eq "scenario name not UTF-8: exit 2" "$(run hostile_scen.lua --vus 1 --runs 1)" 2
check "scenario name not UTF-8: file:line" \
  grep -qx "$D/hostile_scen.lua:3: scenario name is not valid UTF-8 (byte 4)" <(head -n 1 "$TMP/err")
"$QUERN" agent --worker-memory 5x >"$TMP/out" 2>"$TMP/err"
check "quern agent --worker-memory 5x: refused, naming the flag" \
  grep -q -- '--worker-memory: "5x" is not an amount of memory' "$TMP/err"

# Precompiled chunks are refused: Lua has no bytecode verifier, and crafted
# bytecode can crash the worker. A script (or a module it requires) is text.
printf '\033Lua\124\000\031\223\015\012\032\012' >"$TMP/binary.lua"
timeout 30 "$QUERN" run "$TMP/binary.lua" -q --runs 1 >"$TMP/out" 2>"$TMP/err"
eq "a precompiled script: exit 2" "$?" 2
check "a precompiled script: refused as binary" grep -q "attempt to load a binary chunk" "$TMP/err"
