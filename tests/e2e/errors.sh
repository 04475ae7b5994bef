# Error classification: technical (transport, timeout, status) vs functional
# (failed checks, script errors), counted per step with a sample message.
. "$(dirname "$0")/lib.bash"
start_target
"$QUERN" run tests/e2e/scripts/errors.lua --vus 2 --runs 3 -q -p base_url="$BASE" --allow-errors \
  -p dead_url="http://127.0.0.1:$(free_port)" --summary-json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
eq "run exits 0" "$?" 0
S=$TMP/s.json
t() { sj "$S" ".tests[] | select(.id == \"SC-ERR-STEP-$1\") | $2"; }
eq "refused: 6 samples" "$(t 1 .count)" 6
eq "refused: technical" "$(t 1 .errors.technical)/$(t 1 .errors.functional)" 6/0
check "refused: reason kept" grep -qi "connect" <<<"$(t 1 .errors.samples.technical)"
eq "500: technical" "$(t 2 .errors.technical)/$(t 2 .errors.functional)" 6/0
check "500: reason kept" grep -q "500" <<<"$(t 2 .errors.samples.technical)"
eq "timeout: technical" "$(t 3 .errors.technical)/$(t 3 .errors.functional)" 6/0
check "timeout: reason kept" grep -qi "timeout\|timed out" <<<"$(t 3 .errors.samples.technical)"
between "timeout: sample time is the timeout" "$(t 3 .max_ms)" 150 1000
eq "failed expect: functional" "$(t 4 .errors.technical)/$(t 4 .errors.functional)" 0/6
check "failed expect: message" grep -q "expected status 201, got 200" <<<"$(t 4 .errors.samples.functional)"
eq "failed contains: functional" "$(t 5 .errors.technical)/$(t 5 .errors.functional)" 0/6
eq "404 accepted by expect: no error" "$(t 6 .count)/$(t 6 .errors.technical)/$(t 6 .errors.functional)" 6/0/0
eq "fine: no error" "$(t 7 .count)/$(t 7 .errors.technical)/$(t 7 .errors.functional)" 6/0/0
eq "script error: functional on its step" "$(t 8 .count)/$(t 8 .errors.functional)" 6/6
check "script error: message has file:line" grep -q "errors.lua:[0-9]*:" <<<"$(t 8 .errors.samples.functional)"
eq "redirect instead of 200: functional" "$(t 9 .errors.technical)/$(t 9 .errors.functional)" 0/6
eq "VUs go on after script errors (every run counted)" "$(sj $S '.scenarios[0].runs')" 6
check "script error logged with a traceback" grep -q "stack traceback" "$TMP/err"
eq "server saw each 500" "$(stat '.by_path["/status/500"]')" 6
eq "server saw each timed-out request" "$(stat '.by_path["/slow"]')" 6
eq "samples = requests the server saw" "$(sj $S '[.tests[] | select(.id != "SC-ERR-STEP-1") | .count] | add')" "$(stat .requests)"

# A check or an extraction on a response that never came fails with the
# transport's cause, technical (not "body does not contain", functional)
"$QUERN" run tests/e2e/scripts/noresp.lua --vus 1 --runs 2 -q --allow-errors --db none \
  -p dead_url="http://127.0.0.1:$(free_port)" --summary-json "$TMP/nr.json" >"$TMP/nrout" 2>"$TMP/nrerr"
nr() { sj "$TMP/nr.json" ".tests[] | select(.id == \"SC-NR-STEP-$1\") | $2"; }
eq "no response, then xpath: technical only" "$(nr 1 .errors.technical)/$(nr 1 .errors.functional)" 2/0
eq "no response, then an untimed contains: technical, on the current step" \
  "$(nr 2 .errors.technical)/$(nr 2 .errors.functional)" 4/0
check "  its message names the check and the cause" \
  grep -q "contains: no response: Failed to connect to 127.0.0.1 port" "$TMP/nrout"
"$QUERN" run tests/e2e/scripts/noresp.lua --vus 1 --runs 1 -q --allow-errors --db none -p in_init=1 \
  -p dead_url="http://127.0.0.1:$(free_port)" >"$TMP/nr2out" 2>"$TMP/nr2err"
check "init's xpath on a server that is down: the cause, not a parse error" \
  grep -q "xpath //input\[@name='csrf'\]/@value: no response: Failed to connect" "$TMP/nr2out" "$TMP/nr2err"
check "  nothing says the body is not well-formed" sh -c "! grep -q 'well-formed' '$TMP/nr2out' '$TMP/nr2err'"

# A check that pcall caught, then a bug in the same run: the bug is not
# taken for the check's error on its way out (it was silent): it is logged
# as a script error; the sample keeps one error, its first
reset_target
"$QUERN" run tests/e2e/scripts/caught.lua --vus 1 --runs 3 -q -p base_url="$BASE" --allow-errors --db none \
  --summary-json "$TMP/c.json" >"$TMP/cout" 2>"$TMP/cerr"
eq "a caught check, then a bug: one functional error a sample" \
  "$(sj "$TMP/c.json" '.tests[0] | "\(.count) \(.errors.functional)"')" "3 3"
eq "  the bug is logged as a script error, each run" \
  "$(grep -c "caught.lua:13: attempt to index a nil value" "$TMP/cerr")" 3

# A VU of scenario A records into scenario B's step: a functional error at
# the call, counted against A's step, and no request for it.
reset_target
"$QUERN" run tests/e2e/scripts/cross.lua --vus 2 --runs 2 -q -p base_url="$BASE" \
  --summary-json "$TMP/x.json" >"$TMP/xout" 2>"$TMP/xerr"
x() { sj "$TMP/x.json" ".tests[] | select(.id == \"$1\") | $2"; }
eq "foreign step: a functional error per run of A, on A's step" "$(x SC-A-STEP-1 .errors.functional)" 2
check "foreign step: the message names the line and both scenarios" \
  grep -q "cross.lua:11: step SC-B-STEP-1 belongs to scenario B; this VU runs scenario A" <<<"$(x SC-A-STEP-1 .errors.samples.functional)"
check "foreign step in step:time: the script's line" grep -q "cross.lua:13: step SC-B-STEP-1 belongs to scenario B" "$TMP/xerr"
eq "foreign step: B's step counts only B's own samples" "$(x SC-B-STEP-1 .count)" 2
eq "foreign step: no request made for it (the server saw B's 2)" "$(stat .requests)" 2
