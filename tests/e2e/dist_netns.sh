# A lab in network namespaces: the console, two agents and the target on four
# hosts of their own (10.231.0.0/24, a bridge in a fifth namespace), so that
# what crosses a network is tested as on real injectors. Needs root and
# `ip netns`; elsewhere it says so and skips.
. "$(dirname "$0")/lib.bash"
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! ip netns add "qtest$$" 2>/dev/null; then
  echo "ok - network namespaces # SKIP needs root and ip netns"
  exit 0
fi
ip netns del "qtest$$"
NS=(qhub$$ qcon$$ qag1$$ qag2$$ qtgt$$)
. "$(dirname "$0")/netns_lib.bash"
trap netns_cleanup EXIT
netns_lab v 10.231.0 "${NS[@]}"
CON=10.231.0.1 TGT=10.231.0.4

in_ns "${NS[4]}" "$TARGET" --host $TGT --port 8080 >"$TMP/target.log" 2>&1 &
printf 'netns-token-of-the-tests-%s\n' "$$" >"$TMP/token"; chmod 600 "$TMP/token"
for _ in $(seq 50); do in_ns "${NS[4]}" curl -s -o /dev/null "http://$TGT:8080/__stats" && break; sleep 0.1; done
BASE="http://$TGT:8080"
stat() { in_ns "${NS[4]}" curl -s "$BASE/__stats" | jq -r "$1"; }

in_ns "${NS[1]}" "$QUERN" run scripts/consultation_profil.lua --vus 12 --duration 4s -p base_url="$BASE" \
  -p pacing=500ms --listen $CON:6372 --agents 2 --wait 30s --token-file "$TMP/token" -q \
  --db none --summary-json "$TMP/s.json" >"$TMP/c.out" 2>"$TMP/c.err" &
CPID=$!
await "the console listening on $CON:6372" 20 ns_listening "${NS[1]}" 6372
in_ns "${NS[2]}" "$QUERN" agent --console $CON:6372 --token-file "$TMP/token" --workers 2 --name ag1 >"$TMP/ag1.log" 2>&1 &
in_ns "${NS[3]}" "$QUERN" agent --console $CON:6372 --token-file "$TMP/token" --workers 1 --name ag2 >"$TMP/ag2.log" 2>&1 &
wait $CPID
eq "netns: console exits 0" "$?" 0
S=$TMP/s.json
eq "netns: status completed" "$(sj $S .run.status)" completed
eq "netns: counts = the target's" "$(sj $S '[.tests[].count] | add')" "$(stat '.requests - .login_forms')"
eq "netns: one session per VU" "$(stat .sessions_created)" 12
eq "netns: one connection per VU, from the agents' hosts" "$(stat .connections)" 12
for a in ag1 ag2; do
  check "netns: $a played its VUs" test "$(awk -v n=$a '$1==n{print $4}' "$TMP/c.out")" -gt 0
done
