# --jtl and --grinder-logs: the JTL has JMeter's header and one line per
# request the server saw (no step:time blocks here), labelled with the step
# names, success=false for errors; a distributed run gathers every agent's
# lines into one file; the Grinder data_ logs have a line per request and the
# out_ tables, read back with the Jenkins Grinder plugin's rule, give the
# per-test counts.
. "$(dirname "$0")/dist_lib.bash"
start_target

HEADER='timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect'

# jtl_py FILE EXPR: evaluates EXPR over the JTL's rows (csv.DictReader).
jtl_py() {
  python3 - "$1" "$2" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
print(eval(sys.argv[2]))
EOF
}

# grinder_counts DIR: "N tests errors" per test over every out_ log, read as
# the plugin does: after the line matching " Tests        Errors ", rows
# "Test N ..." and "Totals ..." split on two or more spaces.
grinder_counts() {
  python3 - "$1" <<'EOF'
import glob, re, sys, collections
tot = collections.Counter(); err = collections.Counter(); totals = [0, 0]
for f in sorted(glob.glob(sys.argv[1] + '/out_*.log')):
    lines = open(f).read().split('\n')
    i = next(k for k, l in enumerate(lines) if re.search(r' Tests        Errors ', l))
    for l in lines[i + 1:]:
        if re.match(r'Test \d', l):
            c = re.split(r'\s{2,}', l)
            n = int(c[0].split()[1]); tot[n] += int(c[1]); err[n] += int(c[2])
            float(c[3]); float(c[4]); float(c[5])   # mean, sd, TPS are numbers
            assert c[-1].startswith('"') and c[-1].endswith('"'), c[-1]
        elif l.startswith('Totals '):
            c = re.split(r'\s{2,}', l)
            totals[0] += int(c[1]); totals[1] += int(c[2])
for n in sorted(tot):
    print(n, tot[n], err[n])
print('totals', totals[0], totals[1])
EOF
}

# ---------------------------------------------------------------- a local run
"$QUERN" run scripts/consultation_profil.lua --vus 5 --duration 3s -q -p base_url="$BASE" \
  -p pacing=300ms --jtl "$TMP/r.jtl" --grinder-logs "$TMP/g" --summary-json "$TMP/s.json" \
  >"$TMP/out" 2>&1
eq "local run exits 0" "$?" 0
REQ=$(stat '.requests - .login_forms')  # the login form, fetched in the login's time block, has no line
eq "exact JMeter header" "$(head -1 "$TMP/r.jtl")" "$HEADER"
eq "one JTL line per server request" "$(($(wc -l <"$TMP/r.jtl") - 1))" "$REQ"
eq "labels are the step names" \
  "$(jtl_py "$TMP/r.jtl" "sorted(set(r['label'] for r in rows))")" \
  "['SC-CONSULTATION-PROFIL-STEP-1)Login', 'SC-CONSULTATION-PROFIL-STEP-2)Consultation du profil', 'SC-CONSULTATION-PROFIL-STEP-3)Logout']"
eq "profile lines = server GET /profile" \
  "$(jtl_py "$TMP/r.jtl" "sum(r['label'].endswith('profil') for r in rows)")" \
  "$(stat '.by_method_path["GET /profile"]')"
eq "all lines successful, code 200 OK" \
  "$(jtl_py "$TMP/r.jtl" "all(r['success'] == 'true' and r['responseCode'] == '200' and r['responseMessage'] == 'OK' for r in rows)")" True
eq "every row has 17 fields" "$(jtl_py "$TMP/r.jtl" "all(None not in r and len(r) == 17 for r in rows)")" True
check "thread names are 'local W-VU'" \
  test "$(jtl_py "$TMP/r.jtl" "all(__import__('re').fullmatch(r'local [0-9]+-[1-5]', r['threadName']) for r in rows)")" = True
check "timestamps are epoch ms near now, elapsed and latency are numbers" \
  test "$(jtl_py "$TMP/r.jtl" "all(abs(int(r['timeStamp']) / 1000 - __import__('time').time()) < 120 and int(r['elapsed']) >= 0 and int(r['Latency']) >= 0 and int(r['allThreads']) >= 1 for r in rows)")" = True
check "URL column holds the request URL" \
  test "$(jtl_py "$TMP/r.jtl" "all(r['URL'].startswith('$BASE/') for r in rows)")" = True

# allThreads: the run's active VUs of the sample's second (all at once here;
# samples recorded as the run stops may see fewer).
eq "allThreads reaches the run's 5 VUs, never more" "$(jtl_py "$TMP/r.jtl" "max(int(r['allThreads']) for r in rows)")" 5
check "allThreads is the run's 5 VUs on 90 % of the lines" \
  test "$(jtl_py "$TMP/r.jtl" "sum(r['allThreads'] == '5' for r in rows) >= 0.9 * len(rows)")" = True
eq "grpThreads = allThreads" "$(jtl_py "$TMP/r.jtl" "all(r['grpThreads'] == r['allThreads'] for r in rows)")" True

# allThreads is the run's count, not a worker's: 12 VUs over 2 workers.
reset_target
"$QUERN" run tests/e2e/scripts/dist_hit.lua --vus 12 --workers 2 --duration 2s -q -p base_url="$BASE" \
  --jtl "$TMP/t.jtl" >"$TMP/t.out" 2>&1
eq "12 VUs, 2 workers: run exits 0" "$?" 0
eq "12 VUs, 2 workers: lines of both workers" \
  "$(jtl_py "$TMP/t.jtl" "sorted(set(r['threadName'].split('-')[0] for r in rows))")" "['local 1', 'local 2']"
eq "12 VUs, 2 workers: allThreads reaches 12, never more" \
  "$(jtl_py "$TMP/t.jtl" "max(int(r['allThreads']) for r in rows)")" 12
check "12 VUs, 2 workers: allThreads is 12 on 90 % of the lines (no ramp-up)" \
  test "$(jtl_py "$TMP/t.jtl" "sum(r['allThreads'] == '12' for r in rows) >= 0.9 * len(rows)")" = True
eq "12 VUs, 2 workers: grpThreads = allThreads" \
  "$(jtl_py "$TMP/t.jtl" "all(r['grpThreads'] == r['allThreads'] for r in rows)")" True

# Grinder logs of the same run.
check "one data_ and one out_ log per worker" \
  test "$(ls "$TMP/g" | grep -c '^data_local-[0-9]*\.log$')" = "$(ls "$TMP/g" | grep -c '^out_local-[0-9]*\.log$')"
check "data_ logs start with The Grinder's header" \
  grep -qx 'Thread, Run, Test, Start time (ms since Epoch), Test time, Errors, HTTP response code, HTTP response length, HTTP response errors, Time to resolve host, Time to establish connection, Time to first byte, New connections' "$TMP/g/data_local-0.log"
DATA=$(cat "$TMP"/g/data_*.log | grep -vc '^Thread,')
eq "data_ lines = server requests" "$DATA" "$REQ"
grinder_counts "$TMP/g" >"$TMP/gc" 2>"$TMP/gc.err"
eq "out_ tables parse with the plugin's rule" "$?" 0
for t in 1 2 3; do
  eq "out_ Test $t count = summary count" \
    "$(awk -v t=$t '$1 == t {print $2 + $3}' "$TMP/gc")" "$(sj "$TMP/s.json" ".tests[$((t - 1))].count")"
done
eq "out_ Totals = server requests" "$(awk '$1 == "totals" {print $2 + $3}' "$TMP/gc")" "$REQ"

# ---------------------------------------------------------------- errors
reset_target
"$QUERN" run tests/e2e/scripts/errors.lua --vus 2 --runs 2 -q -p base_url="$BASE" \
  -p dead_url=http://127.0.0.1:1 --jtl "$TMP/e.jtl" --summary-json "$TMP/e.json" >"$TMP/e.out" 2>&1
J=$TMP/e.jtl
eq "errors run: one JTL line per step sample" "$(($(wc -l <"$J") - 1))" \
  "$(sj "$TMP/e.json" '[.tests[].count]|add')"
eq "failed lines = errors of the summary" "$(jtl_py "$J" "sum(r['success'] == 'false' for r in rows)")" \
  "$(sj "$TMP/e.json" '[.tests[].errors.technical,.tests[].errors.functional]|add')"
eq "connection refused: a non-HTTP response code, success false" \
  "$(jtl_py "$J" "set((r['responseCode'].startswith('Non HTTP response code'), r['success']) for r in rows if r['label'].endswith('connection refused'))")" \
  "{(True, 'false')}"
eq "status 500: code 500, message, failure message" \
  "$(jtl_py "$J" "set((r['responseCode'], r['responseMessage'], r['success'], r['failureMessage']) for r in rows if r['label'].endswith('status 500'))")" \
  "{('500', 'Internal Server Error', 'false', 'HTTP status 500')}"
eq "a failed check on a 200: code 200, success false" \
  "$(jtl_py "$J" "set((r['responseCode'], r['success']) for r in rows if r['label'].endswith('expect fails on a 200'))")" \
  "{('200', 'false')}"
eq "a 404 accepted by expect is a success" \
  "$(jtl_py "$J" "set((r['responseCode'], r['success']) for r in rows if r['label'].endswith('404 accepted by expect'))")" \
  "{('404', 'true')}"
eq "a script error after the response fails its sample" \
  "$(jtl_py "$J" "set(r['success'] for r in rows if r['label'].endswith('script error'))")" "{'false'}"
check "messages with commas or quotes stay one CSV field" \
  test "$(jtl_py "$J" "all(None not in r and len(r) == 17 for r in rows)")" = True

# ---------------------------------------------------------------- distributed
reset_target
start_console c scripts/consultation_profil.lua --vus 8 --duration 3s --agents 2 --wait 20s \
  -p base_url="$BASE" -p pacing=300ms --jtl "$TMP/d.jtl" --grinder-logs "$TMP/dg" \
  --summary-json "$TMP/d.json"
start_agent alpha 2
start_agent beta 1
wait_exit $CONSOLE_PID 60
eq "distributed run exits 0" "$WAIT_RC" 0
REQ=$(stat '.requests - .login_forms')  # the login form, fetched in the login's time block, has no line
eq "distributed: exact header, once" "$(grep -c '^timeStamp,' "$TMP/d.jtl")/$(head -1 "$TMP/d.jtl")" "1/$HEADER"
eq "distributed: one JTL line per server request" "$(($(wc -l <"$TMP/d.jtl") - 1))" "$REQ"
eq "distributed: thread names of both agents" \
  "$(jtl_py "$TMP/d.jtl" "sorted(set(r['threadName'].split(' ')[0] for r in rows))")" "['alpha', 'beta']"
eq "distributed: every row well-formed" "$(jtl_py "$TMP/d.jtl" "all(None not in r and len(r) == 17 for r in rows)")" True
eq "distributed: allThreads reaches the run's 8 VUs on both agents" \
  "$(jtl_py "$TMP/d.jtl" "sorted(set((r['threadName'].split(' ')[0], max(int(q['allThreads']) for q in rows if q['threadName'].split(' ')[0] == r['threadName'].split(' ')[0])) for r in rows))")" \
  "[('alpha', 8), ('beta', 8)]"
check "distributed: allThreads is the run's 8 VUs on 90 % of the lines" \
  test "$(jtl_py "$TMP/d.jtl" "sum(r['allThreads'] == '8' and r['grpThreads'] == '8' for r in rows) >= 0.9 * len(rows)")" = True
eq "distributed: Grinder logs of the three workers" "$(cd "$TMP/dg" && ls | tr '\n' ' ')" \
  "data_alpha-0.log data_alpha-1.log data_beta-0.log out_alpha-0.log out_alpha-1.log out_beta-0.log "
eq "distributed: data_ lines = server requests" "$(cat "$TMP"/dg/data_*.log | grep -vc '^Thread,')" "$REQ"
grinder_counts "$TMP/dg" >"$TMP/dgc"
eq "distributed: out_ Totals = server requests" "$(awk '$1 == "totals" {print $2 + $3}' "$TMP/dgc")" "$REQ"
check "no sanitizer report" no_sanitizer_report "$TMP"/c.err "$TMP"/agent-*.log "$TMP/out" "$TMP/e.out"
