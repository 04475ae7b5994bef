# Helpers for the distributed tests (sourced by dist_*.sh; run alone it does nothing).
[ "${BASH_SOURCE[0]}" = "$0" ] && exit 0
. "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

# Skip (no ok/not ok line) when this quern has no agent command yet.
if ! "$QUERN" agent --help >/dev/null 2>&1; then
  echo "# SKIP: $QUERN has no 'agent' command"
  exit 0
fi

# need_linkprobe: PROBE, the attacker and relay of tests/tools/linkprobe.c
# built beside quern, or a failed test.
need_linkprobe() {
  PROBE=${LINKPROBE:-$(dirname "$QUERN")/linkprobe}
  [ -x "$PROBE" ] && return 0
  notok "linkprobe built beside quern ($PROBE)"
  exit 1
}

printf 'token-for-the-distributed-tests-%s\n' "$$" >"$TMP/token"
chmod 600 "$TMP/token"
PIDS=()
dist_cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  cleanup
}
trap dist_cleanup EXIT

# start_console OUT_PREFIX ARGS...: a console in the background listening on a
# free loopback port; sets CONSOLE_PID and CPORT.
start_console() {
  local pre=$1; shift
  rm -f "$TMP/$pre.port"
  "$QUERN" run "$@" --listen 127.0.0.1:0 --port-file "$TMP/$pre.port" \
    --token-file "$TMP/token" >"$TMP/$pre.out" 2>"$TMP/$pre.err" &
  CONSOLE_PID=$!
  PIDS+=("$CONSOLE_PID")
  for _ in $(seq 100); do [ -s "$TMP/$pre.port" ] && break; sleep 0.05; done
  CPORT=$(cat "$TMP/$pre.port" 2>/dev/null)
}
# start_agent NAME WORKERS [TOKEN_FILE]: sets AGENT_PID.
start_agent() {
  "$QUERN" agent --console "127.0.0.1:$CPORT" --token-file "${3:-$TMP/token}" \
    --workers "$2" --name "$1" >"$TMP/agent-$1.log" 2>&1 &
  AGENT_PID=$!
  PIDS+=("$AGENT_PID")
}
# wait_exit PID SECONDS: waits for PID to end; its status in WAIT_RC (124 on timeout).
wait_exit() {
  local t=$(( $2 * 10 ))
  while kill -0 "$1" 2>/dev/null && [ $t -gt 0 ]; do sleep 0.1; t=$((t - 1)); done
  if kill -0 "$1" 2>/dev/null; then WAIT_RC=124; return; fi
  wait "$1"; WAIT_RC=$?
}
# send_raw BYTES_PRINTF_FORMAT: sends bytes to the console port and waits
# (5 s at most) for the console to close the connection; 0 if it did.
send_raw() {
  timeout 5 bash -c 'trap "" PIPE; exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 2; printf "$2" >&3 2>/dev/null; cat <&3 >/dev/null 2>&1; exit 0' \
    _ "$CPORT" "$1"
}
no_sanitizer_report() { ! grep -q 'Sanitizer' "$@"; }
