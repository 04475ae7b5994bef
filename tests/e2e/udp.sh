# step:udp against a datagram echo server of its own (scripts/udp/server.py):
# datagrams both ways, two answers to one, a 60,000-byte one; a wait's
# timeout (sent from --source-addrs); a port where nobody listens (the ICMP refusal); what a socket
# refuses before anything is sent. Judged by the server's own counts.
. "$(dirname "$0")/lib.bash"
D=tests/e2e/scripts/udp
python3 "$D/server.py" "$TMP/port" "$TMP/counts" 2>"$TMP/server.err" &
SRV=$!
trap 'kill "$SRV" 2>/dev/null; wait "$SRV" 2>/dev/null; cleanup' EXIT
wait_file "$TMP/port" || { notok "the echo server starts"; exit 1; }
P=$(cat "$TMP/port")

# run CASE VUS RUNS [ARGS...]: the case's run, its summary in $TMP/CASE.json
run() {
  local c=$1 v=$2 r=$3; shift 3
  timeout 60 "$QUERN" run "$D/echo.lua" --vus "$v" --runs "$r" -q -p port="$P" -p case="$c" \
    --summary-json "$TMP/$c.json" "$@" >"$TMP/$c.out" 2>"$TMP/$c.err"
}
t() { sj "$TMP/$1.json" ".tests[] | select(.id == \"SC-UDP-STEP-$2\") | $3"; }
errs() { sj "$TMP/$1.json" '[.tests[].errors.technical, .tests[].errors.functional] | add'; }

run echo 3 4
eq "echo: exits 0, no errors" "$?/$(errs echo)" 0/0
eq "echo: an exchange a run; opening is no sample" "$(t echo 2 .count)/$(t echo 1 .count)" 12/0
run timeout 1 2 --source-addrs 127.0.0.2
eq "timeout: exits 0, no errors" "$?/$(errs timeout)" 0/0
between "timeout: the wait took its 300 ms" "$(t timeout 2 '.min_ms | floor')" 290 1500
kill "$SRV"
wait "$SRV"
read -r n_in b_in n_out b_out peers <"$TMP/counts"
# echo: 3 datagrams a run (ping, twice, big) in, 4 out; timeout: 1 in
eq "server: datagrams received" "$n_in" $((12 * 3 + 2))
eq "server: datagrams sent" "$n_out" $((12 * 4))
eq "echo + timeout: bytes sent = the server's received" \
  "$(($(t echo 2 .bytes_out) + $(jq '[.tests[].bytes_out] | add' "$TMP/timeout.json")))" "$b_in"
eq "echo: bytes received = the server's sent" "$(t echo 2 .bytes_in)" "$b_out"
eq "--source-addrs: the timeout case's datagrams came from 127.0.0.2" "$peers" 127.0.0.1,127.0.0.2

# the server is gone: its port answers with an ICMP port unreachable
run refused 1 2
eq "refused: exits 0, no errors" "$?/$(errs refused)" 0/0
eq "refused: every exchange ran" "$(t refused 2 .count)" 2

run toolarge 1 1 --allow-errors
check "a datagram past 65,507 bytes: the script's error" grep -q "a datagram holds 65507 at most" \
  <<<"$(t toolarge 1 .errors.samples.functional)"
run name 1 1 --allow-errors
check "a name: refused, no lookup" grep -q '"example.invalid" is not a numeric address' \
  <<<"$(t name 1 .errors.samples.functional)"
