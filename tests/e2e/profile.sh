# --profile: a capacity search against tests/tools/knee_server.c (symbols and
# frame pointers, its own process on CPU 1, quern on CPU 0) with each of its
# bottlenecks names the function that limits it: the lock waits in seq_next
# (a global mutex held across a round trip), the CPU in find_item (a linear
# search), and neither for the control; the profile is stored, drawn and in
# JUnit. A target that cannot be profiled is said at the start and the run
# goes on; a remote agent profiles only what its --profile-allow lists.
# e2e: heavy (it drives a CPU-bound load; tests/run.sh gives it two slots)
. "$(dirname "$0")/dist_lib.bash"
D=tests/e2e/scripts
KNEE=$(dirname "$QUERN")/knee-server
DB=$TMP/prof.db
[ -x "$KNEE" ] || { notok "knee-server built beside quern ($KNEE)"; exit 1; }
KPID=""
stop_knee() { [ -n "$KPID" ] && kill "$KPID" 2>/dev/null && wait "$KPID" 2>/dev/null; KPID=""; }
trap 'stop_knee; dist_cleanup' EXIT
# start_knee MODE: the server on CPU 1; sets KBASE.
start_knee() {
  stop_knee
  rm -f "$TMP/knee.port"
  taskset -c 1 "$KNEE" --mode "$1" --threads 4 >"$TMP/knee.port" 2>"$TMP/knee.err" &
  KPID=$!
  wait_file "$TMP/knee.port"
  KBASE="http://127.0.0.1:$(awk '{print $2}' "$TMP/knee.port")"
}
# cap NAME MAX P95: a closed capacity search 1, 3, 5... VUs up to MAX, p95 under P95.
cap() {
  taskset -c 0 "$QUERN" run $D/knee.lua --capacity "1:2:2s:$2" --threshold "p95<$3" --workers 1 \
    -p base_url="$KBASE" --profile comm:knee-server --db "$DB" --name "$1" \
    --summary-json "$TMP/$1.json" --junit "$TMP/$1.xml" >"$TMP/$1.out" 2>"$TMP/$1.err"
}
# the function with the most own samples, "[kernel]" (system calls) left out
topcpu() { sj "$TMP/$1.json" '[.profile.targets[0].top_cpu[] | select(.name | startswith("[") | not)][0].name'; }

# ---- a global mutex held in seq_next: the lock wait is named
start_knee lock
cap lock 11 1ms
eq "lock: the run completed" "$?" 0
sed -n '/^Profile of/,/Diagnosis/p' "$TMP/lock.out" | sed 's/^/# /'
check "lock: the profile is announced at the start" grep -q 'profile comm:knee-server: agent local profiles 1 process(es), [0-9]* thread(s), 99 Hz' "$TMP/lock.err"
eq "lock: profiled" "$(sj "$TMP/lock.json" '.profile.targets[0] | [.ok, .target, .agent] | map(tostring) | join(" ")')" "true comm:knee-server local"
check "lock: the capacity's diagnosis is the lock in seq_next" \
  grep -q 'waiting on a lock in seq_next (.*pthread_mutex_lock)' <<<"$(sj "$TMP/lock.json" .capacity.diagnosis)"
eq "lock: profile.diagnosis says the same" "$(sj "$TMP/lock.json" .profile.diagnosis)" "$(sj "$TMP/lock.json" .capacity.diagnosis)"
check "lock: the verdict carries it" grep -q '^Verdict: .*the profile: the server.s threads spent [0-9]* % of their time waiting on a lock in seq_next' "$TMP/lock.out"
check "lock: a wait at work is seq_next's lock" \
  eval 'sj "$TMP/lock.json" ".profile.targets[0].top_off[].name" | grep -q "^seq_next (.*pthread_mutex_lock)$"'
eq "lock: on the CPU, seq_next (it hashes under the lock)" "$(topcpu lock)" seq_next
check "lock: JUnit's capacity case has the diagnosis" grep -q '<testcase[^>]*name="capacity"' "$TMP/lock.xml"
check "lock: ... and its text" grep -q 'waiting on a lock in seq_next' "$TMP/lock.xml"
eq "lock: the database holds the target" "$(sqlite3 "$DB" "SELECT ok, procs, cpus FROM profile_targets JOIN runs ON runs.id = run_id WHERE runs.name = 'lock'")" "1|1|1"
check "lock: and its seconds, with lock waits" test "$(sqlite3 "$DB" "SELECT SUM(value) FROM profile_samples s JOIN profile_stacks k ON k.run_id = s.run_id AND k.id = s.stack JOIN runs ON runs.id = s.run_id WHERE runs.name = 'lock' AND kind = 1 AND frames LIKE '%seq_next;%pthread_mutex_lock%'")" -gt 100000

# ---- a linear search in find_item: CPU-bound
start_knee search
cap search 13 2ms
eq "search: the run completed" "$?" 0
sed -n '/^Profile of/,/Diagnosis/p' "$TMP/search.out" | sed 's/^/# /'
check "search: the diagnosis is CPU in find_item" grep -q '^CPU-bound: find_item holds [0-9]* % of the samples' <<<"$(sj "$TMP/search.json" .capacity.diagnosis)"
eq "search: find_item on top of the CPU" "$(topcpu search)" find_item
between "search: find_item's own share of the samples" "$(sj "$TMP/search.json" '.profile.targets[0].top_cpu[] | select(.name == "find_item") | .self')" 0.5 1
check "search: no lock wait named" test "$(sj "$TMP/search.json" '[.profile.targets[0].top_off[] | select(.name | test("lock"))] | length')" = 0

# ---- neither: the control names neither function
start_knee none
cap none 5 1ms
eq "none: the run completed" "$?" 0
sed -n '/^Profile of/,/Diagnosis/p' "$TMP/none.out" | sed 's/^/# /'
d=$(sj "$TMP/none.json" .profile.diagnosis)
check "none: a diagnosis" test -n "$d"
check "none: it names neither bottleneck" eval '! grep -q "seq_next\|find_item\|waiting on a lock" <<<"$d"'
check "none: neither is in the profile's top" eval '! sj "$TMP/none.json" ".profile.targets[0].top_cpu[].name" | grep -q "seq_next\|find_item"'
check "none: its own work is seen" eval 'sj "$TMP/none.json" ".profile.targets[0].top_cpu[].name" | grep -qx handle_plain'

# ---- compare: the function whose share grew between the control and the search
id_of() { sqlite3 "$DB" "SELECT id FROM runs WHERE name = '$1'"; }
"$QUERN" compare "$(id_of search)" "$(id_of none)" --db "$DB" -o "$TMP/cmp.html" >"$TMP/cmp.out" 2>&1
grep '^profile ' "$TMP/cmp.out" | sed 's/^/# /'
check "compare: names find_item, whose share grew" grep -q '^profile comm:knee-server: find_item [0-9.]* % of the on-CPU samples, up from 0.0 %' "$TMP/cmp.out"
"$QUERN" compare "$(id_of none)" "$(id_of search)" --db "$DB" -o "$TMP/cmp2.html" >"$TMP/cmp2.out" 2>&1
check "compare: the other way round, find_item is not named" eval '! grep -q "^profile .*find_item" "$TMP/cmp2.out"'

# ---- the report draws the profile
"$QUERN" report "$(sqlite3 "$DB" "SELECT id FROM runs WHERE name = 'lock'")" --db "$DB" -o "$TMP/lock.html" >/dev/null 2>&1
eq "report: written" "$?" 0
check "report: a flame graph names seq_next with its share" grep -q '<title>seq_next: [0-9.]* %' "$TMP/lock.html"
check "report: the knee's diagnosis" grep -q 'waiting on a lock in seq_next' "$TMP/lock.html"
[ -n "${QUERN_TEST_ARTIFACTS:-}" ] && mkdir -p "$QUERN_TEST_ARTIFACTS" && cp "$TMP/lock.html" "$QUERN_TEST_ARTIFACTS/profile.html"

# ---- what cannot be profiled: said at the start, the run goes on
taskset -c 0 "$QUERN" run $D/knee.lua --vus 1 --duration 1s -p base_url="$KBASE" \
  --profile comm:no-such-proc --db "$DB" --summary-json "$TMP/gone.json" >"$TMP/gone.out" 2>"$TMP/gone.err"
eq "gone: the run completed" "$?" 0
check "gone: said at the start" grep -q 'profile comm:no-such-proc: comm:no-such-proc: no such process on this host; the run goes on without its profile' "$TMP/gone.err"
eq "gone: in the summary" "$(sj "$TMP/gone.json" '.profile.targets[0] | [.ok, .error] | map(tostring) | join(" ")')" "false comm:no-such-proc: no such process on this host"
"$QUERN" run $D/knee.lua --vus 1 --duration 1s --profile nginx >"$TMP/bad.out" 2>"$TMP/bad.err"
eq "bad target: a usage error" "$?" 2
check "bad target: the flag and the form" grep -q -- '--profile: nginx: a target is comm:NAME or pid:N' "$TMP/bad.err"
eq "bad target: no load" "$(grep -c . "$TMP/bad.out")" 0

# ---- remote agents: one allows the target, one does not
start_console dist $D/knee.lua --agents 2 --vus 2 --duration 3s -p base_url="$KBASE" \
  --profile comm:knee-server@probe --profile comm:knee-server@inj --db "$DB" --summary-json "$TMP/dist.json"
start_agent inj 1
"$QUERN" agent --console "127.0.0.1:$CPORT" --token-file "$TMP/token" --workers 1 --name probe \
  --profile-allow comm:knee-server >"$TMP/agent-probe.log" 2>&1 &
PIDS+=("$!")
wait_exit "$CONSOLE_PID" 30
eq "dist: the run completed" "$WAIT_RC" 0
eq "dist: the probe profiled, the other refused" \
  "$(sj "$TMP/dist.json" '[.profile.targets[] | "\(.target):\(.ok)"] | sort | join(" ")')" \
  "comm:knee-server@inj:false comm:knee-server@probe:true"
check "dist: the refusal says why and the fix" grep -q 'agent inj does not allow profiling comm:knee-server: start it with --profile-allow comm:knee-server' "$TMP/dist.err"
check "dist: the probe's samples came over the link" test "$(sj "$TMP/dist.json" '[.profile.targets[] | select(.ok) | .samples] | add')" -gt 0
"$QUERN" agent --console 127.0.0.1:1 --token-file "$TMP/token" --profile-allow 'comm:a/b' >"$TMP/allow.out" 2>&1
eq "agent: a bad --profile-allow is a usage error" "$?" 2
check "agent: ... naming it" grep -q -- '--profile-allow: comm:a/b' "$TMP/allow.out"
no_sanitizer_report "$TMP"/*.err "$TMP"/agent-*.log && ok "no sanitizer report" || notok "no sanitizer report"
