# The console–agent link under attack by someone who knows no token
# (tests/tools/linkprobe.c): a relay that injects a StartRun after a relayed
# handshake, one that flips a byte of the bundle, one that records the
# traffic; a fake console that sends a 16 MiB frame before Hello, an early
# AuthResult, a wrong proof; a console with the token that sends runs an
# agent must refuse; a flood of pending connections while a real agent
# joins.
# e2e: long (it starts among the first: tests/run.sh)
. "$(dirname "$0")/dist_lib.bash"
need_linkprobe
start_target

# start_probe NAME ARGS...: linkprobe in the background; sets PROBE_PID and,
# once it listens, PPORT.
start_probe() {
  local name=$1; shift
  rm -f "$TMP/$name.port"
  "$PROBE" "$1" "$TMP/$name.port" "${@:2}" >"$TMP/$name.log" 2>&1 &
  PROBE_PID=$!
  PIDS+=("$PROBE_PID")
  for _ in $(seq 100); do [ -s "$TMP/$name.port" ] && break; sleep 0.05; done
  PPORT=$(cat "$TMP/$name.port" 2>/dev/null)
}
# agent_via PORT NAME: an agent whose console is at PORT (a relay or a fake).
agent_via() {
  "$QUERN" agent --console "127.0.0.1:$1" --token-file "$TMP/token" --workers 1 --name "$2" \
    >"$TMP/agent-$2.log" 2>&1 &
  AGENT_PID=$!
  PIDS+=("$AGENT_PID")
}
stop() { kill "$@" 2>/dev/null; for p in "$@"; do wait "$p" 2>/dev/null; done; }
# peak_kb PID: the process's peak resident memory (VmHWM), in KiB.
peak_kb() { awk '/^VmHWM/{print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
lines() { [ -f "$1" ] && wc -l <"$1" || echo 0; }

# The scenario's folder: a script and a CSV of secrets.
MARK="SECRET-CSV-MARKER-$$"
mkdir -p "$TMP/sc"
cat >"$TMP/sc/link.lua" <<'EOF'
local quern = require "quern"
local base = quern.property("base_url")
local feed = quern.csv("accounts.csv", { mode = "circular" })
local sc = quern.scenario("LINK", { pacing = "100ms" })
local hit = sc:step(1, "Hit")
function sc.run(vu)
  local row = feed:next(vu)
  hit:get(base .. "/link/FLIPME/" .. row.user):expect(404)
end
EOF
{ echo "user,password"; for i in 1 2 3 4; do echo "user$i,$MARK-$i"; done; } >"$TMP/sc/accounts.csv"
run_link() { # OUT_PREFIX ARGS...: a console running the link scenario on 2 VUs
  local pre=$1; shift
  start_console "$pre" "$TMP/sc/link.lua" --vus 2 --duration 3s --agents 1 -p base_url="$BASE" "$@"
}

# 1. A relay injects Registered, StartRun and Go after a relayed handshake:
# refused, nothing runs.
reset_target
run_link inj --wait 60s
start_probe inj relay "$CPORT" inject "$BASE"
agent_via "$PPORT" inj; A=$AGENT_PID
wait_for "$TMP/inj.log" 'injected' 15
sleep 5 # time for a run the injected frames started to show: none is judged
check "relay injected a StartRun" grep -q injected "$TMP/inj.log"
eq "injected StartRun: the target counts no request" "$(stat .requests)" 0
check "agent says the frame failed its check" grep -q 'integrity check' "$TMP/agent-inj.log"
check "agent still alive" kill -0 $A
stop $A $PROBE_PID $CONSOLE_PID

# 2. A relay flips one byte of the bundle: the connection is closed, no
# request reaches the target, the console reports the agent lost.
reset_target
run_link flip --wait 8s
start_probe flip relay "$CPORT" flip
agent_via "$PPORT" flip; A=$AGENT_PID
wait_for "$TMP/flip.log" 'flipped' 15
wait_exit $CONSOLE_PID 30
check "relay flipped a byte" grep -q flipped "$TMP/flip.log"
eq "flipped byte: no request reaches the target" "$(stat .requests)" 0
check "flipped byte: console exits non-zero" test "$WAIT_RC" != 0
check "flipped byte: the agent closed the link (integrity check)" grep -q 'integrity check' "$TMP/agent-flip.log"
check "flipped byte: the console reports the agent lost" grep -q 'agent flip lost' "$TMP/flip.err"
check "agent still alive" kill -0 $A
stop $A $PROBE_PID

# 3. A relay records everything: the run works, and no byte of the bundled
# CSV (nor of the script) is in the capture.
reset_target
: >"$TMP/capture"
run_link rec --wait 20s --summary-json "$TMP/rec.json"
start_probe rec relay "$CPORT" record "$TMP/capture"
agent_via "$PPORT" rec; A=$AGENT_PID
wait_exit $CONSOLE_PID 40
eq "recorded link: the run completes" "$WAIT_RC" 0
check "recorded link: requests went through" test "$(stat .requests)" -gt 10
check "capture holds the traffic" test "$(wc -c <"$TMP/capture")" -gt 1000
check "CSV marker never in the capture" bash -c "! grep -qa '$MARK' '$TMP/capture'"
check "script never in the capture" bash -c "! grep -qa 'FLIPME' '$TMP/capture'"
stop $A $PROBE_PID

# 4. A fake console (no token) against an agent: a 16 MiB frame before
# Hello, an early AuthResult(ok=false), a wrong proof. Memory stays bounded,
# the agent stays, retries, and says why.
for mode in big early badproof; do
  : >"$TMP/fc-$mode.conns"
  start_probe fc-$mode fakecon "$mode" "$TMP/fc-$mode.conns"
  agent_via "$PPORT" fc-$mode; A=$AGENT_PID
  for _ in $(seq 150); do [ "$(lines "$TMP/fc-$mode.conns")" -ge 3 ] && break; sleep 0.1; done
  check "fake console ($mode): agent came back at least twice" test "$(lines "$TMP/fc-$mode.conns")" -ge 3
  check "fake console ($mode): agent still alive" kill -0 $A
  # ASan doubles the footprint; the agent alone is about 40 MB under it.
  between "fake console ($mode): agent's peak memory (KiB)" "$(peak_kb $A)" 1 150000
  check "fake console ($mode): agent says why and retries" grep -q 'retrying in' "$TMP/agent-fc-$mode.log"
  stop $A $PROBE_PID
done
check "16 MiB frame refused at its header" grep -q 'exceeds maximum' "$TMP/agent-fc-big.log"
check "early AuthResult named" grep -q 'refused us: go away\|before the console proved' "$TMP/agent-fc-early.log"
check "wrong console proof named" grep -q 'does not know our token' "$TMP/agent-fc-badproof.log"

# 5. A console that knows the token but sends what an agent must refuse:
# vus_total 4e9, a script outside the bundle, 100000 workers. Each is refused
# with Ready(ok=false) naming the field; the agent stays; no run folder left.
mkdir -p "$TMP/agtmp"
start_probe evil evilcon "$TMP/token"
TMPDIR="$TMP/agtmp" agent_via "$PPORT" evil; A=$AGENT_PID
wait_for "$TMP/evil.log" 'ready.*workers\|no ready\|failed' 30
check "bad console: handshake done" grep -q '^registered' "$TMP/evil.log"
check "vus_total 4e9 refused" grep -q 'ready ok=0 error=.*vus_total 4000000000' "$TMP/evil.log"
check "script ../../x.lua refused" grep -q 'ready ok=0 error=.*script name "../../x.lua"' "$TMP/evil.log"
check "100000 workers refused" grep -q 'ready ok=0 error=.*100000 workers' "$TMP/evil.log"
check "bad console: agent still alive" kill -0 $A
eq "bad console: no run folder left" "$(ls "$TMP/agtmp" | wc -l)" 0
stop $A $PROBE_PID

# 6. 2,048 connections held open (and reopened when closed) against a
# console while a real agent joins: it is let in at once (the console waits
# 8 s for it, the flood holds every connection longer than a handshake may
# last), the run completes, and the console says little about the refused
# peers.
reset_target
start_console fl tests/e2e/scripts/dist_hit.lua --vus 2 --duration 2s --agents 1 --wait 8s \
  -p base_url="$BASE" --summary-json "$TMP/fl.json"
"$PROBE" flood "$CPORT" 2048 25 >"$TMP/flood.out" 2>&1 &
FLOOD=$!; PIDS+=("$FLOOD")
sleep 3 # 3 s of flood: then the console's peak memory, and the agent joins
CPEAK=$(peak_kb $CONSOLE_PID)
start_agent fl 1; A=$AGENT_PID
wait_exit $CONSOLE_PID 40
eq "flooded console: the run completes" "$WAIT_RC" 0
eq "flooded console: status completed" "$(sj "$TMP/fl.json" .run.status 2>/dev/null)" completed
n=$(grep -c 'refused peer\|dropped the pending\|during the handshake' "$TMP/fl.err")
between "flooded console: lines about refused peers" "$n" 0 40
between "flooded console: peak memory (KiB)" "$CPEAK" 1 300000
stop $A $FLOOD
check "no sanitizer report" no_sanitizer_report "$TMP"/*.err "$TMP"/agent-*.log
