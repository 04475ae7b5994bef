# Slowloris against --web and --metrics: from each of 127.0.0.2-5, 16
# connections to each server that send a header line every 2 s and never
# end their headers. Each server keeps at most HSRV_PER_IP_MAX (8) of an
# address's, so a client from 127.0.0.1 still gets its answer at once, and
# closes each slow one HSRV_HEADER_DEADLINE_S (10 s) after its accept
# however steadily it trickles in (libmicrohttpd's 5 s idle timeout alone
# would keep it forever). About 16 s.
. "$(dirname "$0")/lib.bash"
QPID=""
SPID=""
stop_all() {
  [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
  [ -n "$QPID" ] && kill -INT "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
  cleanup
}
trap stop_all EXIT
start_target
S=tests/e2e/scripts/prom.lua
# fetch URL: "CODE SECONDS" of a GET from 127.0.0.1, 3 s at most
fetch() { curl -s --max-time 3 -o /dev/null -w '%{http_code} %{time_total}' "$1"; }

"$QUERN" run $S --vus 1 --duration 60s -p base_url="$BASE" --allow-errors --stopped-ok --db none -q \
  --web 127.0.0.1:0 --web-port-file "$TMP/wport" --metrics 127.0.0.1:0 \
  --metrics-port-file "$TMP/mport" --metrics-linger 0s >"$TMP/run.out" 2>"$TMP/run.err" &
QPID=$!
check "port files written" wait_file "$TMP/wport"
wait_file "$TMP/mport"
WP=$(cat "$TMP/wport")
MP=$(cat "$TMP/mport")
python3 tests/e2e/scripts/slowloris.py "$TMP/slow" "$WP,$MP" 16 2 14 \
  127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 >"$TMP/slow.log" 2>&1 &
SPID=$!
check "the slow clients connected" wait_file "$TMP/slow.ready"
echo "# after 1 s: $(cat "$TMP/slow.ready")"
eq "each address kept to 8 connections" "$(jq -c '[.kept_per_addr[]] | unique' "$TMP/slow.ready")" "[8]"
for u in "http://127.0.0.1:$WP/state.json" "http://127.0.0.1:$MP/metrics"; do
  set -- $(fetch "$u")
  eq "during the attack, ${u##*/} from 127.0.0.1: 200" "${1:-none}" 200
  between "  within 1 s" "${2:-9}" 0 1
done
sleep 4 # past the 5 s idle timeout the slow clients must outlast
for u in "http://127.0.0.1:$WP/state.json" "http://127.0.0.1:$MP/metrics"; do
  set -- $(fetch "$u")
  eq "5 s on, ${u##*/} from 127.0.0.1: 200" "${1:-none}" 200
done
wait "$SPID"
SPID=""
R=$TMP/slow
echo "# at the end: $(jq -c '{kept, open_at_5s, answered}' "$R")"
eq "32 slow connections to each server held past 5 s (the idle timeout)" \
  "$(jq -c '[.open_at_5s[]] | unique' "$R")" "[32]"
eq "all 64 closed by the server" "$(jq '[.closed_after_s[] | select(. != null)] | length' "$R")" 64
check "each 10 to 11.5 s after its accept ($(jq -c '[.closed_after_s | min, max]' "$R"))" \
  jq -e '.closed_after_s | all(. != null and . >= 9.9 and . <= 11.5)' "$R"
eq "none got an answer" "$(jq .answered "$R")" 0
set -- $(fetch "http://127.0.0.1:$WP/state.json")
eq "after the attack, /state.json: 200" "${1:-none}" 200
kill -INT "$QPID"
wait "$QPID"
eq "the run stopped (--stopped-ok): exit 0" "$?" 0
QPID=""
