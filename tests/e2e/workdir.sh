# An agent runs the Lua it finds in its work folder, so no other local user may
# reach it: a work folder owned by someone else, reached through a symbolic
# link, or writable by anyone without the sticky bit is refused; in a sticky
# folder owned by root (as /tmp) another user's process that tries, as fast
# as it can, to rename or fill every new run folder fails, and the run uses
# the console's script. And the bundle ships nothing from outside the
# scenario's folder: a link out of it stops `quern run` before any load.
. "$(dirname "$0")/dist_lib.bash"
OTHER=65534 # nobody
as_other() { setpriv --reuid=$OTHER --regid=$OTHER --clear-groups "$@"; }
if [ "$(id -u)" != 0 ] || ! as_other true 2>/dev/null; then
  echo "# SKIP: needs root and setpriv to act as another user"
  exit 0
fi
# The sticky folder sits in /tmp itself: the other user must reach it.
S=$(mktemp -d /tmp/quern-e2e-sticky.XXXXXX)
trap 'touch "$S/stop" 2>/dev/null; dist_cleanup; rm -rf "$S"' EXIT
start_target

# --- a work folder that is not ours ---------------------------------------
W="$TMP/nobodys"
mkdir -m 700 "$W"
chown $OTHER:$OTHER "$W"
timeout 10 "$QUERN" agent --console 127.0.0.1:1 --token-file "$TMP/token" --work-dir "$W" \
  >"$TMP/w1.out" 2>&1
eq "work folder of another user: exit 2" "$?" 2
check "work folder of another user: one clear line naming it and its owner" grep -qxF \
  "quern agent: --work-dir $W: $W belongs to uid $OTHER, not to this agent's user (uid 0) or root: its owner could swap the scripts the agent runs" \
  "$TMP/w1.out"
mkdir -m 700 "$W/runs"
timeout 10 "$QUERN" agent --console 127.0.0.1:1 --token-file "$TMP/token" --work-dir "$W/runs" \
  >"$TMP/w2.out" 2>&1
eq "our folder inside another user's: exit 2" "$?" 2
check "our folder inside another user's: the other's folder is named" \
  grep -qF "quern agent: --work-dir $W/runs: $W belongs to uid $OTHER" "$TMP/w2.out"

mkdir -m 700 "$TMP/real"
ln -s "$TMP/real" "$TMP/link"
timeout 10 "$QUERN" agent --console 127.0.0.1:1 --token-file "$TMP/token" --work-dir "$TMP/link" \
  >"$TMP/w3.out" 2>&1
eq "work folder through a link: exit 2" "$?" 2
check "work folder through a link: the link is named" \
  grep -qF "quern agent: --work-dir $TMP/link: $TMP/link is a symbolic link (to $TMP/real)" "$TMP/w3.out"

mkdir "$TMP/open" && chmod 777 "$TMP/open"
TMPDIR="$TMP/open" timeout 10 "$QUERN" agent --console 127.0.0.1:1 --token-file "$TMP/token" \
  >"$TMP/w4.out" 2>&1
eq "a \$TMPDIR anyone may write into: exit 2" "$?" 2
check "a \$TMPDIR anyone may write into: named, with the way out" grep -qxF \
  "quern agent: the work folder $TMP/open (\$TMPDIR): $TMP/open: anyone may write into it and it is not sticky (make it mode 700) (or choose one with --work-dir)" \
  "$TMP/w4.out"

# A one-machine run writes its local agent's token there: refused at once,
# not after --wait, and no token file is left.
start=$(date +%s%N)
TMPDIR="$TMP/open" timeout 20 "$QUERN" run tests/e2e/scripts/dist_hit.lua --runs 1 -q \
  -p base_url=http://127.0.0.1:1 --db none --junit "$TMP/w5.xml" >"$TMP/w5.out" 2>&1
eq "a one-machine run with that \$TMPDIR: exit 3" "$?" 3
check "a one-machine run with that \$TMPDIR: named, before any token is written" grep -qxF \
  "quern run: cannot write the local agent's token: the work folder $TMP/open (\$TMPDIR): $TMP/open: anyone may write into it and it is not sticky (make it mode 700)" \
  "$TMP/w5.out"
check "a one-machine run with that \$TMPDIR: stops within 5 s" [ $((($(date +%s%N) - start) / 1000000)) -lt 5000 ]
eq "a one-machine run with that \$TMPDIR: no token file left" "$(find "$TMP/open" -name 'quern-token.*' | wc -l)" 0
check "a one-machine run with that \$TMPDIR: the JUnit start case failed" grep -q '<failure' "$TMP/w5.xml"

# --- a sticky folder of root's, another user racing for the run folders ----
chmod 1777 "$S"
cat >"$TMP/hostile.py" <<'EOF'
# Renames every run folder it sees and puts its own script in its place, or
# writes into it, until told to stop; prints the folders seen and its wins.
import os, sys, time
S, marker, stop = sys.argv[1], sys.argv[2], time.time() + 25
evil = 'local f = io.open(%r, "w") f:write("pwned") f:close()\n' % marker
seen, wins, n = set(), 0, 0
open(os.path.join(S, "ready"), "w").close()
def plant(p):
    with open(os.path.join(p, "dist_hit.lua"), "w") as f:
        f.write(evil)
while time.time() < stop and not os.path.exists(os.path.join(S, "stop")):
    for name in os.listdir(S):
        if not name.startswith("quern-run."):
            continue
        p = os.path.join(S, name)
        seen.add(name)
        n += 1
        try:
            os.rename(p, os.path.join(S, "stolen.%d" % n))
            os.mkdir(p)
            plant(p)
            wins += 1
        except OSError:
            pass
        try:
            plant(p)
            wins += 1
        except OSError:
            pass
    time.sleep(0.0005)
print(len(seen), wins, flush=True)
EOF
as_other /usr/bin/python3 - "$S" "$TMP/marker" <"$TMP/hostile.py" >"$TMP/hostile.out" 2>&1 &
hostile=$!
PIDS+=("$hostile")
for _ in $(seq 100); do [ -e "$S/ready" ] && break; sleep 0.05; done
start_console c1 tests/e2e/scripts/dist_hit.lua --agents 1 --runs 3 --vus 2 -p pacing=10ms \
  -p base_url="$BASE" --db none
"$QUERN" agent --console "127.0.0.1:$CPORT" --token-file "$TMP/token" --workers 2 --name a1 \
  --work-dir "$S" >"$TMP/agent-a1.log" 2>&1 &
AGENT_PID=$!
PIDS+=("$AGENT_PID")
wait_exit "$CONSOLE_PID" 20
eq "sticky work folder of root's: the run completes" "$WAIT_RC" 0
eq "sticky work folder: the console's script ran (6 requests)" "$(stat .requests)" 6
touch "$S/stop"
wait "$hostile" 2>/dev/null
read -r seen wins <"$TMP/hostile.out"
check "the other user saw the run folder ($seen)" test "${seen:-0}" -ge 1
eq "the other user could neither rename nor write into it" "${wins:-x}" 0
check "the other user's script never ran" test ! -e "$TMP/marker"
eq "the run folder is removed" "$(find "$S" -maxdepth 1 -name 'quern-run.*' | wc -l)" 0

# --- a bundle with a link out of the scenario's folder -----------------------
mkdir "$TMP/scen"
cp tests/e2e/scripts/dist_hit.lua "$TMP/scen/hit.lua"
ln -s /etc/shadow "$TMP/scen/loot"
reset_target
"$QUERN" run "$TMP/scen/hit.lua" --runs 1 -q -p base_url="$BASE" --db none >"$TMP/b.out" 2>&1
eq "a link out of the scenario's folder: exit 2" "$?" 2
check "a link out of the scenario's folder: one line naming it and its target" grep -qxF \
  "quern run: $TMP/scen/loot is a symbolic link to /etc/shadow, outside the scenario's folder $TMP/scen: not shipped (copy what it points to into the folder)" \
  "$TMP/b.out"
eq "a link out of the scenario's folder: nothing was loaded or sent" "$(stat .requests)" 0
rm "$TMP/scen/loot"
ln -s hit.lua "$TMP/scen/again.lua"
"$QUERN" run "$TMP/scen/hit.lua" --runs 1 -q -p base_url="$BASE" --db none >"$TMP/b2.out" 2>&1
eq "a link inside the scenario's folder: the run goes on" "$?" 0
