# Helpers for the end-to-end tests: start the demo target on a free loopback
# port, run quern against it, compare the tool's numbers with the server's.
# Each check prints "ok - NAME" or "not ok - NAME"; tests/run.sh counts them.
set -u
: "${QUERN:?QUERN must point at the quern binary}"
: "${TARGET:?TARGET must point at the quern-target binary}"
TMP=$(mktemp -d /tmp/quern-e2e.XXXXXX)
# The tests run sanitizer builds, three at a time on a small box: their
# injector saturates in short bursts (a TLS handshake, a script's load), which
# is not what they judge. injector.sh judges it, without this.
export QUERN_ALLOW_SATURATION=1
TARGET_PID=""
cleanup() {
  [ -n "$TARGET_PID" ] && kill "$TARGET_PID" 2>/dev/null && wait "$TARGET_PID" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
# check NAME COMMAND...: ok when the command succeeds.
check() {
  local name=$1; shift
  if "$@" >/dev/null; then ok "$name"; else notok "$name"; fi
}
# eq NAME GOT WANT
eq() {
  if [ "$2" = "$3" ]; then ok "$1"; else notok "$1 (got '$2', want '$3')"; fi
}
# between NAME VALUE LO HI (numbers, inclusive)
between() {
  if awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN{exit !(v>=lo && v<=hi)}'; then ok "$1 ($2)"
  else notok "$1 (got $2, want $3..$4)"; fi
}

start_target() {
  rm -f "$TMP/port"
  "$TARGET" --port 0 --port-file "$TMP/port" >"$TMP/target.log" 2>&1 &
  TARGET_PID=$!
  for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
  PORT=$(cat "$TMP/port")
  BASE="http://127.0.0.1:$PORT"
}
reset_target() { curl -s -X POST "$BASE/__reset" >/dev/null; }
# stat JQ_EXPR: a value of the server's own counts
stat() { curl -s "$BASE/__stats" | jq -r "$1"; }
# sj FILE JQ_EXPR: a value of a summary JSON
sj() { jq -r "$2" "$1"; }
# A port nothing listens on.
free_port() { echo 1; }
free_port_py() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo 9
}
# wait_file FILE: until FILE is not empty, 10 s at most.
wait_file() { for _ in $(seq 200); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }
# wait_for FILE PATTERN SECONDS: waits until FILE has a line matching PATTERN.
wait_for() {
  local t=$(( $3 * 10 ))
  while ! grep -q "$2" "$1" 2>/dev/null && [ $t -gt 0 ]; do sleep 0.1; t=$((t - 1)); done
  grep -q "$2" "$1" 2>/dev/null
}
# wait_until SECONDS COMMAND...: until COMMAND succeeds (its output dropped),
# SECONDS at most; 1 if it never did.
wait_until() {
  local t=$(( $1 * 10 ))
  shift
  until "$@" >/dev/null 2>&1; do
    [ $t -gt 0 ] || return 1
    sleep 0.1
    t=$((t - 1))
  done
}
# await WHAT SECONDS COMMAND...: wait_until, and a "not ok" naming WHAT when
# SECONDS passed without it; 1 then. A test waits on a condition like this;
# it sleeps a fixed time only when the time itself is under test, and says so.
await() {
  local what=$1
  shift
  wait_until "$@" && return 0
  notok "waited $1 s for $what"
  return 1
}
# alive PID: the process runs (a zombie, which nobody may reap here, does not).
alive() {
  local s
  s=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  case $s in *Z*) return 1 ;; esac
}
# all_gone PID...: none of them runs.
all_gone() {
  local p
  for p in "$@"; do alive "$p" && return 1; done
  return 0
}
# wait_requests N SECONDS: until the server has counted N requests.
wait_requests() {
  local i
  for i in $(seq $(($2 * 10))); do
    [ "$(stat .requests)" -ge "$1" ] && return 0
    sleep 0.1
  done
  return 1
}
