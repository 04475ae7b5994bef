# The agent's systemd unit as make install writes it: systemd-analyze
# verify accepts it, and its ExecStart line, with the settings file as
# installed and the token as systemd hands credentials over, is an agent
# that serves a real run. A second make install keeps edited settings.
. "$(dirname "$0")/dist_lib.bash"
start_target
MODE=$(basename "$(dirname "$QUERN")")
P="$TMP/usr"
UNIT="$P/lib/systemd/system/quern-agent.service"
DEF="$TMP/etc/default/quern-agent"

make -s MODE="$MODE" install PREFIX="$P" SYSCONFDIR="$TMP/etc" >"$TMP/install.log" 2>&1
eq "make install: exit 0" "$?" 0
check "the unit is installed" test -s "$UNIT"
check "the settings file is installed" test -s "$DEF"
check "the unit runs the installed binary" grep -q "^ExecStart=$P/bin/quern agent " "$UNIT"
MANPATH="$P/share/man" systemd-analyze verify "$UNIT" >"$TMP/verify.log" 2>&1
eq "systemd-analyze verify: no complaint" "$?:$(wc -c <"$TMP/verify.log")" "0:0"
check "its own user" grep -qx "DynamicUser=yes" "$UNIT"
check "a read-only system" grep -qx "ProtectSystem=strict" "$UNIT"
check "a private /tmp" grep -qx "PrivateTmp=yes" "$UNIT"
check "restarted on failure" grep -qx "Restart=on-failure" "$UNIT"

# The console of a real run, then the agent as the unit would start it.
start_console c tests/e2e/scripts/dist_ids.lua --vus 2 --duration 2s --agents 1 --wait 20s \
  -p base_url="$BASE" -q
sed -i "s|^QUERN_CONSOLE=.*|QUERN_CONSOLE=\"127.0.0.1:$CPORT\"|; s|^QUERN_AGENT_OPTS=.*|QUERN_AGENT_OPTS=\"--workers 1 --name svc\"|" "$DEF"
mkdir -p "$TMP/cred"
cp "$TMP/token" "$TMP/cred/token" && chmod 400 "$TMP/cred/token" # as LoadCredential= does
exec_line=$(sed -n 's/^ExecStart=//p' "$UNIT")
(
  set -a
  . "$DEF"
  CREDENTIALS_DIRECTORY="$TMP/cred"
  # systemd: ${VAR} is one word, $VAR is split at white space
  eval "set -- $exec_line"
  exec "$@"
) >"$TMP/svc.log" 2>&1 &
PIDS+=($!)
wait_exit "$CONSOLE_PID" 60
eq "the run served by the unit's agent: exit 0" "$WAIT_RC" 0
check "the console names the agent of the settings file" grep -q "agent svc registered" "$TMP/c.err"

echo 'QUERN_AGENT_OPTS="--workers 3"' >>"$DEF"
make -s MODE="$MODE" install PREFIX="$P" SYSCONFDIR="$TMP/etc" >>"$TMP/install.log" 2>&1
check "a second make install keeps edited settings" grep -qx 'QUERN_AGENT_OPTS="--workers 3"' "$DEF"
