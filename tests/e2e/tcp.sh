# step:tcp against a line server of its own (scripts/tcp/server.py) and
# OpenSSL's s_server, and memcached through the example's client written in
# Lua (scripts/memcached.lua, scripts/lib/memcache.lua): lines (CRLF and LF), n bytes, delimiters, whatever
# came; a wait's timeout; a server that closes; a line past the 1 MiB
# bound; TLS with a CA of the test's. Judged by the server's own counts:
# its connections are the connect step's samples, its bytes are quern's.
. "$(dirname "$0")/lib.bash"
D=tests/e2e/scripts/tcp
for b in openssl /usr/bin/memcached; do
  command -v "$b" >/dev/null || { notok "$b is installed"; exit 1; }
done
SRV_PIDS=()
tcp_cleanup() {
  for p in "${SRV_PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  cleanup
}
trap tcp_cleanup EXIT

P=$(free_port_py)
LOG=$TMP/server.log
: >"$LOG"
python3 "$D/server.py" "$P" "$LOG" 2>"$TMP/server.err" &
SRV_PIDS+=($!)
listening() { python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $P), 1).close()" 2>/dev/null; }
await "the line server listens" 10 listening || exit 1
sleep 0.2 # the probe's own connection is logged: start from an empty log
: >"$LOG"

# run CASE VUS RUNS [ARGS...]: the case's run against port $PORT, its
# summary in $TMP/CASE.json
PORT=$P
run() {
  local c=$1 v=$2 r=$3; shift 3
  timeout 60 "$QUERN" run "$D/lines.lua" --vus "$v" --runs "$r" -q -p port="$PORT" -p case="$c" \
    --summary-json "$TMP/$c.json" "$@" >"$TMP/$c.out" 2>"$TMP/$c.err"
}
t() { sj "$TMP/$1.json" ".tests[] | select(.id == \"SC-TCP-STEP-$2\") | $3"; }
# served: the server's connections, bytes received and sent ("N IN OUT")
served() { awk '{ n++; i += $2; o += $3 } END { printf "%d %d %d", n, i, o }' "$LOG"; }
settle() { for _ in $(seq 50); do [ "$(wc -l <"$LOG")" -ge "$1" ] && return; sleep 0.1; done; }

# --- reads: each kind of piece, 3 VUs x 4 runs -----------------------------
run reads 3 4
eq "reads: exits 0" "$?" 0
eq "reads: no errors" "$(sj "$TMP/reads.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
settle 12
read -r n in out <<<"$(served)"
eq "reads: a connect sample a server connection" "$(t reads 1 .count)/$n" 12/12
eq "reads: an exchange a run" "$(t reads 2 .count)" 12
eq "reads: bytes sent = the server's received" \
  "$(jq '[.tests[].bytes_out] | add' "$TMP/reads.json")" "$in"
eq "reads: bytes received = the server's sent" \
  "$(jq '[.tests[].bytes_in] | add' "$TMP/reads.json")" "$out"
eq "reads: the exchange's bytes are its block's" "$(t reads 2 .bytes_out)" "$in"

# --- a wait's timeout: nil, "timeout"; the connection stays open -----------
: >"$LOG"
run timeout 2 1
eq "timeout: exits 0, no errors" "$?/$(sj "$TMP/timeout.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0/0
between "timeout: the wait took its 300 ms" "$(t timeout 2 '.min_ms | floor')" 290 1500

# --- a server that closes: what it sent first is read, then "closed" -------
run closed 2 2
eq "closed: exits 0, no errors" "$?/$(sj "$TMP/closed.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0/0
eq "closed: every run connected" "$(t closed 1 .count)" 4

# --- a line past the bound: a technical error of the block, not memory -----
run big 1 2 --allow-errors
eq "big: exits 0" "$?" 0
eq "big: technical errors of the block" "$(t big 2 .count)/$(t big 2 .errors.technical)" 2/2
check "big: the bound is named" grep -q "past 1048576 bytes" <<<"$(t big 2 .errors.samples.technical)"

# --- TLS: openssl s_server with a certificate of the test's CA -------------
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=quern-test \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$TMP/key.pem" -out "$TMP/cert.pem" 2>/dev/null
PT=$(free_port_py)
# -rev: each line sent back reversed; a new server for every connection
openssl s_server -accept "127.0.0.1:$PT" -cert "$TMP/cert.pem" -key "$TMP/key.pem" -rev \
  -naccept 100 >"$TMP/tls.log" 2>&1 </dev/null &
SRV_PIDS+=($!)
# it prints ACCEPT once listening (a plain probe would be a failed handshake)
tls_up() { grep -q '^ACCEPT' "$TMP/tls.log"; }
await "openssl s_server listens" 10 tls_up || exit 1
cp "$TMP/cert.pem" "$TMP/ca.pem"
PORT=$PT
run tls 1 3 -p ca="$TMP/ca.pem"
eq "tls: exits 0, no errors" "$?/$(sj "$TMP/tls.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0/0
eq "tls: connects and exchanges" "$(t tls 1 .count)/$(t tls 2 .count)" 3/3
eq "tls: the exchange's bytes are the lines" "$(t tls 2 .bytes_out)/$(t tls 2 .bytes_in)" 45/45
eq "tls: s_server saw the TLS connections" "$(grep -c '^CONNECTION ESTABLISHED' "$TMP/tls.log")" 3

# --- TLS without the CA: the connect fails, technically, before any byte ---
run untrusted 1 2 --allow-errors
eq "untrusted: exits 0" "$?" 0
eq "untrusted: the connects fail, technically" \
  "$(t untrusted 1 .count)/$(t untrusted 1 .errors.technical)/$(t untrusted 2 .count)" 2/2/0
check "untrusted: the certificate is named" grep -qi "certificate" <<<"$(t untrusted 1 .errors.samples.technical)"

# --- a refused connect: a technical error of the connect step --------------
PR=$(free_port_py)
timeout 60 "$QUERN" run "$D/lines.lua" --vus 1 --runs 2 -q -p port="$PR" --allow-errors \
  --summary-json "$TMP/refused.json" >/dev/null 2>&1
eq "refused: exits 0" "$?" 0
eq "refused: technical errors of the connect" "$(t refused 1 .count)/$(t refused 1 .errors.technical)" 2/2

# --- memcached through scripts/lib/memcache.lua: its stats are the samples -
PM=$(free_port_py)
as_user=()
[ "$(id -u)" = 0 ] && as_user=(-u nobody)
/usr/bin/memcached -l 127.0.0.1 -p "$PM" -U 0 "${as_user[@]}" >"$TMP/memcached.log" 2>&1 &
SRV_PIDS+=($!)
mc_stats() { python3 - "$PM" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 2)
s.sendall(b"stats\r\n")
buf = b""
while not buf.endswith(b"END\r\n"):
    buf += s.recv(65536)
for line in buf.decode().splitlines():
    if line.startswith("STAT "):
        print(line[5:])
PY
}
mc_up() { mc_stats >/dev/null 2>&1; }
await "memcached listens" 10 mc_up || exit 1
before=$(mc_stats | sed -n 's/^total_connections //p')
timeout 60 "$QUERN" run scripts/memcached.lua --vus 4 --runs 5 -q -p memcached="127.0.0.1:$PM" \
  -p pacing=0s --summary-json "$TMP/mc.json" >"$TMP/mc.out" 2>&1
eq "memcached: exits 0" "$?" 0
mc_stats >"$TMP/mc.stats"
st() { sed -n "s/^$1 //p" "$TMP/mc.stats"; }
m() { sj "$TMP/mc.json" ".tests[] | select(.id == \"SC-MEMCACHED-STEP-$1\") | .count"; }
eq "memcached: no errors" "$(sj "$TMP/mc.json" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
# the server's connections since: quern's and the stats' own
eq "memcached: a connect a run, a server connection a connect" \
  "$(m 1)/$(($(st total_connections) - before - 1))" 20/20
eq "memcached: a read sample a hit" "$(m 3)/$(st get_hits)/$(st get_misses)" 20/20/0
eq "memcached: a first view a miss and a set, then hits" \
  "$(st incr_misses)/$(st incr_hits)/$(st cmd_set)" "4/16/$(($(m 2) + 4))"
eq "memcached: a count a run" "$(m 4)" 20
