# Bad input: one clear line (file:line for scripts), exit status 2, and not a
# single request sent.
. "$(dirname "$0")/lib.bash"
start_target
D=tests/e2e/scripts
run() { "$QUERN" run "$@" -p base_url="$BASE" --vus 2 --duration 2s -q >"$TMP/out" 2>"$TMP/err"; echo $?; }
first() { head -n 1 "$TMP/err"; }

eq "syntax error: exit 2" "$(run $D/syntax.lua)" 2
check "syntax error: file:line" grep -q "^$D/syntax.lua:6:" <(first)
eq "syntax error: one line" "$(wc -l <"$TMP/err")" 1

eq "duplicate step id across files: exit 2" "$(run $D/dup_a.lua)" 2
check "duplicate step id: names the scenario's second declaration" grep -q "dup_b.lua:5:.*DUP.*already declared at .*dup_a.lua:2" <(first)
eq "duplicate step id in one file: exit 2" "$(run $D/dup_c.lua)" 2
check "duplicate step id: both lines" grep -q "dup_c.lua:4: duplicate step id SC-DUPC-STEP-1 (already declared at .*dup_c.lua:3)" <(first)

eq "unknown scenario option: exit 2" "$(run $D/badopt.lua)" 2
check "unknown scenario option: file:line and name" grep -q "badopt.lua:2:.*unknown option \"thinktime\"" <(first)
eq "no run function: exit 2" "$(run $D/norun.lua)" 2
check "no run function: says so" grep -q "norun.lua:2: scenario NORUN has no run function" <(first)
eq "error while loading: exit 2" "$(run $D/toperr.lua)" 2
check "error while loading: file:line" grep -q "toperr.lua:3:" <(first)

eq "missing script: exit 2" "$(run $D/nope.lua)" 2
check "missing script: says so" grep -q "cannot read script $D/nope.lua" <(first)
eq "unknown flag: exit 2" "$(run scripts/consultation_profil.lua --bogus)" 2
check "unknown flag: names it" grep -q "unknown option --bogus" <(first)
eq "bad duration: exit 2" "$("$QUERN" run scripts/consultation_profil.lua --duration 5x 2>"$TMP/err"; echo $?)" 2
check "bad duration: names the flag and unit" grep -q -- "--duration: .*unknown unit" <(first)
eq "bad --trace value: exit 2" "$("$QUERN" run scripts/consultation_profil.lua --trace=x 2>"$TMP/err"; echo $?)" 2
check "bad --trace value: says the only value" grep -q -- '--trace=x: the only value is "all"' <(first)
eq "a switch given a value: exit 2" "$("$QUERN" run scripts/consultation_profil.lua --quiet=1 2>"$TMP/err"; echo $?)" 2
check "a switch given a value: says it takes none" grep -q -- "--quiet takes no value" <(first)
eq "last flag without its value: exit 2" "$("$QUERN" run scripts/consultation_profil.lua --vus 2>"$TMP/err"; echo $?)" 2
check "last flag without its value: says so" grep -q -- "--vus needs a value" <(first)
eq "two scripts: exit 2" "$("$QUERN" run scripts/consultation_profil.lua scripts/mix.lua 2>"$TMP/err"; echo $?)" 2
check "two scripts: names the second" grep -q 'one script only, got also "scripts/mix.lua"' <(first)
eq "bad VU count: exit 2" "$("$QUERN" run scripts/consultation_profil.lua --vus many 2>"$TMP/err"; echo $?)" 2
eq "bad property: exit 2" "$("$QUERN" run scripts/consultation_profil.lua -p novalue 2>"$TMP/err"; echo $?)" 2
eq "no request reached the server" "$(stat .requests)" 0

eq "unknown command: exit 2" "$("$QUERN" frobnicate 2>/dev/null; echo $?)" 2
check "quern --help lists run" grep -q "run SCRIPT.lua" <("$QUERN" --help)
check "quern help run lists the options and exit statuses" grep -q -- "--ramp-up" <("$QUERN" help run)

# An unreachable target is not bad input: the run completes, failures counted,
# and the run fails (exit 1: any error fails a run without an errors threshold).
"$QUERN" run scripts/consultation_profil.lua --vus 2 --runs 1 -q -p base_url=http://127.0.0.1:$(free_port) \
  --summary-json "$TMP/s.json" >/dev/null 2>&1
eq "unreachable target: run completes, failed (exit 1)" "$?" 1
eq "unreachable target: status completed" "$(sj "$TMP/s.json" .run.status)" completed
eq "unreachable target: login failures are technical" "$(sj "$TMP/s.json" '.tests[0].errors.technical > 0')" true
