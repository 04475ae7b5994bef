# No secret left on disk: an agent's run folder (the script and its CSV data)
# is private while the run lasts, and the folder a killed agent left behind is
# removed when an agent starts again.
. "$(dirname "$0")/dist_lib.bash"
start_target
mkdir -p "$TMP/tmpdir"
export TMPDIR="$TMP/tmpdir"
folders() { find "$TMP/tmpdir" -maxdepth 1 -name 'quern-run.*' -type d | sort; }

# A marked folder nobody holds, of this user, as a killed agent leaves it; and
# an unmarked one (being made, or an older agent's, which takes no lock).
mkdir -m 700 "$TMP/tmpdir/quern-run.stale1" && echo 'user,password' >"$TMP/tmpdir/quern-run.stale1/users.csv"
touch "$TMP/tmpdir/quern-run.stale1/.quern-held"
mkdir -m 700 "$TMP/tmpdir/quern-run.unmarked"
start_console c1 tests/e2e/scripts/dist_hit.lua --agents 1 --duration 6s --vus 2 -q -p base_url="$BASE" --db none
start_agent a1 1
wait_for "$TMP/agent-a1.log" 'removed 1 run folder' 10
check "agent start: the stale folder is removed" bash -c "[ ! -e '$TMP/tmpdir/quern-run.stale1' ]"
check "agent start: an unmarked folder is left" bash -c "[ -d '$TMP/tmpdir/quern-run.unmarked' ]"
rmdir "$TMP/tmpdir/quern-run.unmarked"
wait_requests 5 10
run=$(folders | head -n 1)
check "during the run: the agent's folder exists" test -n "$run"
eq "during the run: its mode is 700" "$(command stat -c %a "$run" 2>/dev/null)" 700
# A second agent starting now must not touch the live run's folder.
"$QUERN" agent -v --console 127.0.0.1:1 --token-file "$TMP/token" --name a2 >"$TMP/a2.log" 2>&1 &
a2=$!
# its sweep is done once it tries the console (refused on port 1: -v says so)
check "the second agent tried the console" wait_for "$TMP/a2.log" 'connect 127.0.0.1:1: ' 10
kill $a2 2>/dev/null; wait $a2 2>/dev/null
check "a second agent leaves the live run's folder" test -d "$run"
workers=$(pgrep -P $AGENT_PID)
kill -9 $AGENT_PID
wait $AGENT_PID 2>/dev/null
# its workers end with it: then nothing of it is left to remove the folder
await "the killed agent's workers to end" 10 all_gone $workers
check "after kill -9: the folder is left behind" test -d "$run"
wait_exit $CONSOLE_PID 30
# The next agent (here, the one a local run starts) removes it.
"$QUERN" run tests/e2e/scripts/dist_hit.lua --runs 1 -q -p base_url="$BASE" --db none >"$TMP/local.out" 2>&1
eq "next local run: exit 0" "$?" 0
check "next agent: the killed agent's folder is gone" bash -c "[ ! -e '$run' ]"
eq "next local run: nothing left in TMPDIR" "$(ls -A "$TMP/tmpdir" | wc -l)" 0

# The one-time token of a local run leaves the disk once its agent is in.
"$QUERN" run tests/e2e/scripts/dist_hit.lua --duration 20s -q -p base_url="$BASE" --db none \
  >"$TMP/local2.out" 2>&1 &
console=$!
reset_target
wait_requests 3 10
eq "local run under way: no token file on disk" "$(find "$TMP/tmpdir" -name 'quern-token.*' | wc -l)" 0
kids=$(pgrep -P $console)
kids="$kids $(for k in $kids; do pgrep -P "$k"; done)"
kill -9 $console
wait $console 2>/dev/null
# its agent and the agent's workers end with it: nothing of the run is left
await "the killed run's processes to end" 10 all_gone $kids
eq "console killed: no token file left" "$(find "$TMP/tmpdir" -name 'quern-token.*' | wc -l)" 0

# An agent's --work-dir: made mode 700 when missing; its run folders go there
# (not to TMPDIR), and the next agent on it removes what a killed one left.
W="$TMP/work/runs"
mkdir -p "$TMP/work"
start_console c3 tests/e2e/scripts/dist_hit.lua --agents 1 --duration 6s --vus 2 -q -p base_url="$BASE" --db none
"$QUERN" agent --console "127.0.0.1:$CPORT" --token-file "$TMP/token" --workers 1 --name w1 \
  --work-dir "$W" >"$TMP/agent-w1.log" 2>&1 &
w1=$!
PIDS+=("$w1")
reset_target
wait_requests 5 10
eq "--work-dir: made mode 700" "$(command stat -c %a "$W" 2>/dev/null)" 700
eq "--work-dir: the run's folder is there" "$(find "$W" -maxdepth 1 -name 'quern-run.*' -type d | wc -l)" 1
eq "--work-dir: nothing in TMPDIR" "$(ls -A "$TMP/tmpdir" | wc -l)" 0
kill -9 $w1
wait $w1 2>/dev/null
wait_exit $CONSOLE_PID 30
eq "--work-dir, after kill -9: the folder is left behind" "$(find "$W" -maxdepth 1 -name 'quern-run.*' | wc -l)" 1
"$QUERN" agent --console 127.0.0.1:1 --token-file "$TMP/token" --name w2 --work-dir "$W" >"$TMP/w2.log" 2>&1 &
w2=$!
wait_for "$TMP/w2.log" 'removed 1 run folder' 10
kill $w2 2>/dev/null; wait $w2 2>/dev/null
eq "--work-dir: the next agent removes it" "$(ls -A "$W" | wc -l)" 0
"$QUERN" agent --token-file "$TMP/token" --work-dir relative/runs >"$TMP/w3.out" 2>&1
eq "--work-dir relative: exit 2" "$?" 2
check "--work-dir relative: one clear line" grep -qx 'quern agent: --work-dir wants an absolute path, got "relative/runs"' "$TMP/w3.out"
chmod 777 "$W"
"$QUERN" agent --token-file "$TMP/token" --work-dir "$W" >"$TMP/w4.out" 2>&1
eq "--work-dir writable by anyone: exit 2" "$?" 2
check "--work-dir writable by anyone: says so" grep -q 'anyone may write into it' "$TMP/w4.out"
